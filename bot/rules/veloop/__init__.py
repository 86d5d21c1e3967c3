"""Veloop (Square), Dale Walton's placement-and-swap game, as Ludii 1.3.13 runs it: the game's entry point.

The rules are those of VELOOP.md: every move puts a stone a knight's leap from one of your
stones (the *support*) and swaps the two cells between them, which must show different
things; the game ends after the first move that leaves any stone fenced in (*confined*).

Positions are immutable values. The hot paths (perft, random playouts) run on flat mutable
lists with a make/unmake discipline and an incremental confinement test, because a random
playout is the unit of work of the AI and must stay cheap in pure Python; the immutable
``Position`` uses the same move generator and move applier, and checks confinement with a
plain flood fill, so the two confinement tests cross-check each other in the test suite.

One idea per module: ``board`` (sizes and each size's geometry), ``kernel`` (move generation,
the applier, confinement), ``moves`` (``Move`` and reading typed moves), ``position``
(``Position`` and its position string), ``search`` (perft and playouts), ``record`` (records),
``cli`` (the command line adapter) and ``game`` (``Game`` and ``KIND``). Everything other code
uses is importable from here; the kernel's functions are exported for the AI, which searches on
the same lists.
"""

from bot.rules.veloop.board import COLOURS, PROTOCOLS, SIZES, _Geometry, _geometry
from bot.rules.veloop.cli import cli_perft, cli_play, cli_replay
from bot.rules.veloop.game import KIND, Game, VeloopKind
from bot.rules.veloop.kernel import _apply, _confined_cells, _confines, _generate
from bot.rules.veloop.moves import PASS, IllegalMove, Move
from bot.rules.veloop.position import Confined, Position, Scores
from bot.rules.veloop.record import Replay, replay, result_text, write_record
from bot.rules.veloop.search import divide, perft, playout, random_playout

__all__ = [
    "COLOURS",
    "KIND",
    "PASS",
    "PROTOCOLS",
    "SIZES",
    "Confined",
    "Game",
    "IllegalMove",
    "Move",
    "Position",
    "Replay",
    "Scores",
    "VeloopKind",
    "_Geometry",
    "_apply",
    "_confined_cells",
    "_confines",
    "_generate",
    "_geometry",
    "cli_perft",
    "cli_play",
    "cli_replay",
    "divide",
    "perft",
    "playout",
    "random_playout",
    "replay",
    "result_text",
    "write_record",
]
