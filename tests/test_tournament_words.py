"""Standings in words: points with the catalogue's plural forms in every language."""

from __future__ import annotations

import pytest

from bot.i18n import words
from bot.tournaments import Standing
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
