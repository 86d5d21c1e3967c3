"""A game's settings as a player types them (bot/game_settings.py): read for any game from its
``setting_choices``, written back, offered whole, and refused with the values the game takes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import cast

import pytest

from bot import game_settings
from bot.errors import UserError
from bot.i18n import words
from bot.rules.protocol import GameKind, fill_settings
from bot.rules.registry import GAMES, find_game

VELETAS, VELOOP = find_game("veletas"), find_game("veloop")


@dataclass(frozen=True)
class ToyKind:
    """Only what the settings need of a game: a third game, unknown to the code that reads its settings."""

    name: str = "toy"
    title: str = "Toy"
    setting_choices: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: {"size": ("3", "4"), "start": ("first", "second"), "speed": ("calm", "wild")}
    )

    def check_settings(self, settings: Mapping[str, str]) -> dict[str, str]:
        return fill_settings(self.setting_choices, settings)


TOY = cast(GameKind, ToyKind())


def test_values_are_read_in_any_order_case_and_separator_and_the_rest_is_the_default() -> None:
    assert game_settings.parse(VELOOP, "5, alternating") == {"board": "5", "protocol": "alternating"}
    assert game_settings.parse(VELOOP, " Alternating  12 ") == {"board": "12", "protocol": "alternating"}
    assert game_settings.parse(VELETAS, "classic、small") == {"variant": "small", "rules": "classic"}
    assert game_settings.parse(VELETAS, "") == {"variant": "standard", "rules": "current"}
    assert game_settings.parse(VELETAS, "small small") == {"variant": "small", "rules": "current"}


def test_a_third_game_brings_its_settings_with_it() -> None:
    games = [*GAMES.values(), TOY]
    assert game_settings.parse(TOY, "wild 4", games) == {"size": "4", "start": "first", "speed": "wild"}
    assert len(game_settings.combinations(TOY)) == 8
    assert game_settings.combinations(TOY)[0] == {"size": "3", "start": "first", "speed": "calm"}
    with pytest.raises(UserError) as refused:
        game_settings.parse(VELOOP, "wild", games)
    assert refused.value.key == "refusal.settings_other_game" and refused.value.data["other"] == "Toy"


def test_the_typed_form_reads_back_as_the_same_settings() -> None:
    for kind in GAMES.values():
        for combination in game_settings.combinations(kind):
            text = game_settings.typed(kind, combination)
            assert game_settings.parse(kind, text) == combination
    assert game_settings.typed(VELOOP, {"board": "6"}) == "6, 122"


@pytest.mark.parametrize(
    ("kind", "text", "key", "shown"),
    [
        (VELOOP, "huge", "refusal.settings_unknown", "`huge` is not a Veloop (Square) setting."),
        (VELOOP, "classic", "refusal.settings_other_game", "`classic` is a Veletas setting, not a Veloop (Square)"),
        (VELETAS, "small, medium", "refusal.settings_twice", "`small` and `medium` are two values of the same"),
    ],
)
def test_bad_settings_are_refused_naming_the_values_the_game_takes(
    kind: GameKind, text: str, key: str, shown: str
) -> None:
    with pytest.raises(UserError) as refused:
        game_settings.parse(kind, text)
    assert refused.value.key == key
    said = refused.value.message
    assert said.startswith(shown), said
    groups = ["`" + "` / `".join(values) + "`" for values in kind.setting_choices.values()]
    assert said.endswith("Choose at most one value from each group: " + "; ".join(groups) + "."), said
    japanese = refused.value.worded(words("ja"))
    assert "、".join(groups) in japanese and "；" not in japanese and ";" not in japanese


def test_a_refused_value_is_shown_short_and_without_breaking_its_code_span() -> None:
    with pytest.raises(UserError) as refused:
        game_settings.parse(VELOOP, "`" + "x" * 200)
    assert refused.value.data["value"] == "`'" + "x" * 39 + "`"


def test_what_is_typed_narrows_the_combinations_by_value_or_by_label() -> None:
    label = "small board, classic rules"
    combination = {"variant": "small", "rules": "classic"}
    assert game_settings.matches(combination, label, "")
    assert game_settings.matches(combination, label, "sm, cla")
    assert game_settings.matches(combination, label, "Board")
    assert not game_settings.matches(combination, label, "small current")
