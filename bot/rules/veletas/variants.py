"""Veletas's settings: the three boards (``VARIANTS``) and the two rules editions (``EDITIONS``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from bot.rules import protocol
from bot.rules.common import quote

Edition = Literal["current", "classic"]
EDITIONS: Final[tuple[Edition, Edition]] = ("current", "classic")
COLOURS: Final = protocol.COLOURS
SEATS: Final = protocol.SEATS


@dataclass(frozen=True)
class Variant:
    """One board size with its shooter count and how setup splits them."""

    name: str
    size: int
    shooters: int
    first_places: int
    second_places: int
    to_win: int


VARIANTS: Final[dict[str, Variant]] = {
    "standard": Variant("standard", 10, 7, 3, 4, 4),
    "medium": Variant("medium", 9, 5, 2, 3, 3),
    "small": Variant("small", 7, 3, 1, 2, 2),
}


def _check_rules(rules: str) -> bool:
    """True for classic; refuses unknown editions so a typo never silently plays the wrong rules."""
    if rules not in EDITIONS:
        raise ValueError(f"unknown rules edition {quote(rules)}: expected one of {', '.join(EDITIONS)}")
    return rules == "classic"


def _variant_of(size: int, shooters: int) -> Variant | None:
    """The variant played on this board size with this many shooters in all; None when no variant is."""
    for variant in VARIANTS.values():
        if variant.size == size and variant.shooters == shooters:
            return variant
    return None
