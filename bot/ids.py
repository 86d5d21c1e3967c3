"""Ids a member sent: in a button's or menu's custom id, a menu value or a command option.

Pure: no Discord. Discord snowflakes and the store's row ids are positive and fit in 63 bits (both
databases keep them as signed 64-bit integers), so anything else names nothing: it is refused as
"no such game here" before it reaches the store, never passed on to fail as an overflow.
Only ASCII digits count: ``str.isdigit()`` also accepts ``²`` and ``٣``.
"""

from __future__ import annotations

import re
from typing import Final

MAX_ID: Final = 2**63 - 1
"""The largest id a snowflake or a row can have."""

# Custom id templates read ids as any run of ASCII digits ([0-9]+), so an id out of range still reaches its
# item and is refused there.
_DIGITS = re.compile("[0-9]+")


def is_id(value: int) -> bool:
    """True if ``value`` could be a snowflake or a row id."""
    return 0 < value <= MAX_ID


def parse_id(text: str) -> int | None:
    """The id ``text`` spells in ASCII digits, if it could be a snowflake or a row id; else None."""
    if not _DIGITS.fullmatch(text) or len(text) > len(str(MAX_ID)):
        return None
    value = int(text)
    return value if is_id(value) else None


def id_or_zero(text: str) -> int:
    """``parse_id`` for a custom id's group: 0 (which names no row) when ``text`` is not an id."""
    return parse_id(text) or 0
