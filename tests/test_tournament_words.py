"""Standings in words: points with the catalogue's plural forms in every language; a big field's announcement and
check-in posts within Discord's limits."""

from __future__ import annotations

import pytest

from bot.clocks import TimeControl
from bot.i18n import words
from bot.store.values import TournamentInfo
from bot.tournaments import Standing
from cogs.tournament import words as tw
from cogs.tournament.words import standings_lines

ROWS = [Standing(1, 11, 2.0, ()), Standing(2, 12, 1.5, ()), Standing(3, 13, 1.0, ()), Standing(4, 14, 0.0, ())]
NAMES = {11: "Ana", 12: "Ben", 13: "Cai", 14: "Dee"}


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", ["2 pts", "1½ pts", "1 pt ", "0 pts"]),
        ("es", ["2 ptos.", "1½ ptos.", "1 pto. ", "0 ptos."]),
        ("ja", ["2点", "1½点", "1点", "0点"]),
    ],
)
def test_points_take_the_languages_plural_forms(language: str, expected: list[str]) -> None:
    lines = standings_lines(words(language), ROWS, NAMES, [])
    for line, points in zip(lines, expected, strict=True):
        assert f"— {points}" in line, line


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", ["0 pts", "½ pts", "1 pt", "1½ pts", "2 pts", "21 pts"]),
        ("es", ["0 ptos.", "½ ptos.", "1 pto.", "1½ ptos.", "2 ptos.", "21 ptos."]),
        ("ja", ["0点", "½点", "1点", "1½点", "2点", "21点"]),
    ],
)
def test_a_score_with_its_unit_is_singular_only_for_exactly_one(language: str, expected: list[str]) -> None:
    # The pairings' explanations, a bye's score and the standings all write points through this one function.
    assert [tw.points(words(language), x) for x in (0, 0.5, 1, 1.5, 2, 21)] == expected


BIG_FIELD = [tw.escaped(f"**player_{i:03}** @everyone with a long display name") for i in range(200)]


@pytest.mark.parametrize("language", ["en", "es", "ja"])
def test_a_200_player_announcement_lists_its_checked_in_players_within_discords_embed_limits(language: str) -> None:
    w = words(language)
    info = TournamentInfo(
        1, 10, 20, 30, "Big Open", "veloop", {}, "swiss", 7, 1, TimeControl.days(1), True, 256, None,
        1_800_000_000.0, 30, 60, "signup", 40, 1_700_000_000.0, None, None,
    )  # fmt: skip
    fields = tw.announcement_fields(w, info, "Veloop", "1 day", 200, BIG_FIELD, 200, 0, BIG_FIELD)
    checked = next(value for name, value, _ in fields if name == tw.t(w, "field.checked_in"))
    players = next(value for name, value, _ in fields if name == tw.t(w, "field.players"))
    for value in (checked, players):
        assert len(value) <= 1024
        shown = value.count("long display name")
        assert 10 < shown <= tw.NAMES_SHOWN
        assert value.endswith(tw.t(w, "and_more", names="", count=200 - shown)), "the rest counted, no name cut"
    assert sum(len(name) + len(value) for name, value, _ in fields) + len(info.name) < 6000
    assert tw.names_within(w, BIG_FIELD[:2], 1024) == tw.listed(w, BIG_FIELD[:2]), "a short list is whole"


@pytest.mark.parametrize("language", ["en", "es", "ja"])
def test_a_check_in_post_naming_200_members_is_cut_within_discords_limits_naming_each_once(language: str) -> None:
    w = words(language)
    ids = [1_000_000_000_000_000_000 + i for i in range(200)]
    posts = tw.mentions_posts(w, "reminder_channel", ids, name="Big Open", at="1800000000")
    assert [uid for _, named in posts for uid in named] == ids
    for text, named in posts:
        assert len(text) <= 2000 and len(named) <= 100
        assert [f"<@{uid}>" in text for uid in named] == [True] * len(named)
    assert len(posts) == 3, "as few posts as the limits allow"
