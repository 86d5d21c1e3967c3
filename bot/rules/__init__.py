"""Pure game rules: no Discord, no I/O, no asyncio. One module per game."""

from bot.rules.common import RecordError
from bot.rules.veletas import (
    COLOURS,
    EDITIONS,
    SEATS,
    VARIANTS,
    Claim,
    FastBoard,
    Game,
    IllegalMove,
    Move,
    Position,
    Variant,
    perft,
    random_playout,
    random_setup,
)

__all__ = [
    "COLOURS",
    "EDITIONS",
    "SEATS",
    "VARIANTS",
    "Claim",
    "FastBoard",
    "Game",
    "IllegalMove",
    "Move",
    "Position",
    "RecordError",
    "Variant",
    "perft",
    "random_playout",
    "random_setup",
]
