"""Veletas (Luis Bolaños Mures, 2013): positions, moves, whole games and records, both rules editions.

The game's entry point: everything other code uses is importable from here. The public layer speaks
square names and frozen values (``Move``, ``Position``, ``Game``) so that cogs, the store and the
renderer can never corrupt a game. Under it sits a small integer kernel (``kernel``: a flat
``bytearray`` board, rays precomputed per square and direction, moves interned per board size)
because search and move lists must be fast in pure Python; ``FastBoard`` exposes that kernel to the
AI without any strings in the loop.

One idea per module: ``variants`` (boards and rules editions), ``kernel`` (the fast core and the
move values), ``position`` (``Position``, perft, playouts), ``game`` (``Game`` through setup, pie
and play, ``random_setup``, ``KIND``) and ``record`` (setup-turn spelling and records).
"""

from bot.rules.veletas.game import KIND, Game, VeletasKind, random_setup
from bot.rules.veletas.kernel import (
    BLACK,
    CLAIMED_BLACK,
    CLAIMED_WHITE,
    EMPTY,
    SHOOTER,
    STONE_BLACK,
    STONE_WHITE,
    WHITE,
    Claim,
    FastBoard,
    Geometry,
    IllegalMove,
    Move,
    biggest_groups,
    board_geometry,
    reach,
)
from bot.rules.veletas.position import Position, perft, random_playout
from bot.rules.veletas.variants import COLOURS, EDITIONS, SEATS, VARIANTS, Edition, Variant

__all__ = [
    "BLACK",
    "CLAIMED_BLACK",
    "CLAIMED_WHITE",
    "COLOURS",
    "EDITIONS",
    "EMPTY",
    "KIND",
    "SEATS",
    "SHOOTER",
    "STONE_BLACK",
    "STONE_WHITE",
    "VARIANTS",
    "WHITE",
    "Claim",
    "Edition",
    "FastBoard",
    "Game",
    "Geometry",
    "IllegalMove",
    "Move",
    "Position",
    "Variant",
    "VeletasKind",
    "biggest_groups",
    "board_geometry",
    "perft",
    "random_playout",
    "random_setup",
    "reach",
]
