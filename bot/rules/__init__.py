"""Pure game rules: no Discord, no I/O, no asyncio. One module per game, one registry of games.

``bot.rules.protocol`` says what a game offers (``GameKind``, ``GameState``); ``bot.rules.registry``
lists the games (``GAMES``, ``find_game``). The names exported below without a module are
Veletas's, kept at the top for the code written before there were two games.
"""

from bot.rules.common import RecordError
from bot.rules.protocol import GameKind, GameState, Outcome
from bot.rules.registry import GAMES, UnknownGame, find_game
from bot.rules.veletas import (
    COLOURS,
    EDITIONS,
    SEATS,
    VARIANTS,
    Claim,
    FastBoard,
    Game,
    Geometry,
    IllegalMove,
    Move,
    Position,
    Variant,
    biggest_groups,
    board_geometry,
    perft,
    random_playout,
    random_setup,
    reach,
)

__all__ = [
    "COLOURS",
    "EDITIONS",
    "GAMES",
    "SEATS",
    "VARIANTS",
    "Claim",
    "FastBoard",
    "Game",
    "GameKind",
    "GameState",
    "Geometry",
    "IllegalMove",
    "Move",
    "Outcome",
    "Position",
    "RecordError",
    "UnknownGame",
    "Variant",
    "biggest_groups",
    "board_geometry",
    "find_game",
    "perft",
    "random_playout",
    "random_setup",
    "reach",
]
