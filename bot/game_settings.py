"""A game's settings as a player types them: the values one after another, separated by commas or spaces
(``small, classic``; ``5 alternating``; ``12``), each setting left out at its default.

A game's ``setting_choices`` gives each setting's values, the default first, and no two settings of a game share a
value, so a value alone says which setting it sets: a new game's settings are read without a line here. A value
that is not the game's, one of another game, or two values for one setting are refused (``UserError``) naming the
values the game takes, group by group.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping

from bot.errors import UserError
from bot.i18n import Clauses, Phrase
from bot.rules.protocol import GameKind
from bot.rules.registry import GAMES

SEPARATORS = re.compile(r"[\s,、，]+")
"""What may stand between two values: spaces and commas (a Japanese keyboard's too)."""
SHOWN_LENGTH = 40
"""The most characters of a refused value a refusal repeats."""


def values_of(text: str) -> list[str]:
    """The values typed, lowercase, in the order written."""
    return [token for token in SEPARATORS.split(text.strip().lower()) if token]


def typed(kind: GameKind, settings: Mapping[str, str]) -> str:
    """The settings as a player writes them: every setting's value in the game's order (``small, classic``)."""
    filled = kind.check_settings(settings)
    return ", ".join(filled[name] for name in kind.setting_choices)


def combinations(kind: GameKind) -> list[dict[str, str]]:
    """Every whole choice of the game's settings: the defaults first, then in the game's order of values."""
    names = list(kind.setting_choices)
    return [dict(zip(names, values, strict=True)) for values in itertools.product(*kind.setting_choices.values())]


def matches(combination: Mapping[str, str], label: str, text: str) -> bool:
    """Whether a combination fits what is typed so far: each word typed begins one of its values or is part of
    its label (``label``, the settings in the reader's words)."""
    values = combination.values()
    shown = label.casefold()
    return all(any(v.startswith(word) for v in values) or word.casefold() in shown for word in values_of(text))


def allowed(kind: GameKind) -> Phrase:
    """The values the game takes, one group per setting (``` `8` / `5` / `6` / `12` ```), for a refusal."""
    groups = Clauses(" / ".join(f"`{v}`" for v in values) for values in kind.setting_choices.values())
    return Phrase("refusal.settings_allowed", groups=groups)


def _shown(value: str) -> str:
    return "`" + value.replace("`", "'")[:SHOWN_LENGTH] + "`"


def parse(kind: GameKind, text: str, games: Iterable[GameKind] = GAMES.values()) -> dict[str, str]:
    """The settings ``text`` chooses for ``kind``, every one filled in (defaults for those left out).

    ``UserError`` for a value the game does not take (``refusal.settings_other_game`` when another of ``games``
    takes it) and for two values of one setting (``refusal.settings_twice``); the same value twice is one choice.
    """
    chosen: dict[str, str] = {}
    for value in values_of(text):
        setting = next((name for name, values in kind.setting_choices.items() if value in values), None)
        if setting is None:
            other = next(
                (g for g in games if g.name != kind.name and any(value in v for v in g.setting_choices.values())),
                None,
            )
            if other is not None:
                raise UserError(
                    "refusal.settings_other_game",
                    value=_shown(value),
                    other=other.title,
                    game=kind.title,
                    allowed=allowed(kind),
                )
            raise UserError("refusal.settings_unknown", value=_shown(value), game=kind.title, allowed=allowed(kind))
        if chosen.get(setting, value) != value:
            raise UserError(
                "refusal.settings_twice",
                first=_shown(chosen[setting]),
                second=_shown(value),
                game=kind.title,
                allowed=allowed(kind),
            )
        chosen[setting] = value
    return kind.check_settings(chosen)
