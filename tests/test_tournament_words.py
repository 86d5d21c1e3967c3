"""Standings in words: points with the catalogue's plural forms in every language."""

from __future__ import annotations

import pytest

from bot.i18n import words
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
