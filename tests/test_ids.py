"""Ids a member sent, read as ASCII digits within the 63 bits snowflakes and row ids live in."""

from __future__ import annotations

import pytest

from bot.ids import MAX_ID, id_or_zero, is_id, parse_id


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", 1),
        ("0042", 42),
        (str(MAX_ID), MAX_ID),
        ("0" * 19 + "7", None),  # longer than any id, however it reads
        (str(MAX_ID + 1), None),
        ("9" * 30, None),
        ("0", None),
        ("-1", None),
        ("+1", None),
        (" 1", None),
        ("1\n", None),
        ("²", None),  # str.isdigit() says yes; int() fails
        ("٣", None),  # a decimal digit to int() and to \d, not to us
        ("１", None),  # full-width
        ("", None),
        ("1e3", None),
        ("0x10", None),
    ],
)
def test_parse_id(text: str, expected: int | None) -> None:
    assert parse_id(text) == expected
    assert id_or_zero(text) == (expected or 0)


def test_is_id_is_the_63_bit_positive_range() -> None:
    assert [is_id(v) for v in (0, 1, MAX_ID, MAX_ID + 1, -1, 2**64)] == [False, True, True, False, False, False]
