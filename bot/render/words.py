"""The words drawn on images (the header's status line, fallback names), from the catalogue (``bot.i18n``).

Every drawer takes ``words``: a ``bot.i18n.Words`` in the reader's language, English by default,
so the caller (the bot) decides the language and the drawers stay pure drawing.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.i18n import Words, words
from bot.render.text import drawable


def or_english(given: Words | None) -> Words:
    return given if given is not None else words("en")


def colour_names(players: Mapping[str, str] | None, w: Words) -> tuple[str, str]:
    """The names shown for Black and White: the players' own, else the colours in ``w``'s language."""
    shown = drawable(players)
    return shown.get("black") or w("render.black"), shown.get("white") or w("render.white")


def colour_times(
    clocks: Mapping[str, str] | None, seats: Mapping[str, str | None] | None = None
) -> tuple[str | None, str | None]:
    """Each side's clock for the header, by colour: ``clocks`` is keyed by colour, or by seat with ``seats``
    mapping each colour to its seat (unknown before Veletas's pie choice: no time is shown then)."""
    shown: list[str | None] = []
    for colour in ("black", "white"):
        seat = (seats or {}).get(colour)
        shown.append((clocks or {}).get(colour) or ((clocks or {}).get(seat) if seat else None))
    return shown[0], shown[1]
