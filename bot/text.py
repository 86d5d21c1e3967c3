"""Free text people give the bot to keep and show (a tournament's name, a member's display name), checked in one
place: what no database may store, and what shows nothing at all, never gets in.

Pure: no Discord, no SQL. PostgreSQL refuses a NUL in text and both databases refuse a lone surrogate (neither is
valid UTF-8 text), and a control character or a line break would break the lines the name is shown in, so an
organiser's name with any of them is refused; a name with no visible character (only spaces, zero-width and
other format characters, combining marks alone, blank fillers) would show as nothing, so it is refused too.
A member's display name comes from Discord and cannot be refused: it is cleaned instead.
"""

from __future__ import annotations

import unicodedata

from bot.errors import UserError

REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
"""Control characters (NUL among them), lone surrogates, and the line and paragraph separators."""
BLANK_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Cn", "Zs", "Zl", "Zp", "Mn", "Me", "Co"})
"""Characters that show nothing by themselves: spaces, format characters (zero-width space, joiners, marks of
direction), unassigned and private code points, and combining marks with nothing to combine with."""
BLANK_CHARACTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u034f")
"""Letters and symbols drawn as nothing: the Hangul fillers, the blank Braille pattern, and the like."""


def refused_character(text: str) -> str | None:
    """The first character of ``text`` no name may hold, written as ``U+0000``; None if there is none."""
    for char in text:
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            return f"U+{ord(char):04X}"
    return None


def visible(text: str) -> bool:
    """Whether ``text`` shows at least one character."""
    return any(c not in BLANK_CHARACTERS and unicodedata.category(c) not in BLANK_CATEGORIES for c in text)


def check_name(text: str) -> str:
    """A name someone chose, as the bot keeps it (outer spaces dropped); ``UserError`` if it holds a character
    no name may hold, or shows nothing."""
    bad = refused_character(text)
    if bad is not None:
        raise UserError("refusal.name_control", character=bad)
    name = text.strip()
    if not visible(name):
        raise UserError("refusal.name_invisible")
    return name


def clean_name(text: str, fallback: str) -> str:
    """A name nobody can be asked to change (a member's display name, from Discord), as the bot keeps it: the
    characters no name may hold dropped, ``fallback`` if nothing visible is left."""
    name = "".join(c for c in text if unicodedata.category(c) not in REFUSED_CATEGORIES).strip()
    return name if visible(name) else fallback


def fallback_name(user_id: int) -> str:
    """A name in no language for a member with no name to show: the end of their id (``…1234``)."""
    return f"…{str(user_id)[-4:]}"
