"""The Veletas AI: five levels for every phase of a game (setup, pie, moves), and analysis of a position.

Pure functions of values, as every AI of ``bot.ai``. ``choose_turn`` is the entry point Veletas's
descriptor names; the search itself lives in this package's modules (``board``, ``evaluate``, ``prior``,
``greedy``, ``mcts``, ``players``, ``setup``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.ai import level_of
from bot.ai.budget import Budget
from bot.ai.veletas.evaluate import black_chance
from bot.ai.veletas.players import LEVELS, choose
from bot.ai.veletas.setup import choose_keep_or_swap, choose_placement
from bot.rules import COLOURS, Game, Move, Position, board_geometry
from bot.rules.protocol import GameState

__all__ = [
    "ANALYSIS_LEVEL",
    "LEVELS",
    "Analysis",
    "analyze",
    "choose_move",
    "choose_pie",
    "choose_setup",
    "choose_turn",
]

ANALYSIS_LEVEL = 4
SOLVER_LEVEL = 5


def _rng(seed: int | None) -> random.Random:
    return random.Random(seed)


def choose_move(
    position: Position, level: int = 3, *, seed: int | None = None, time_limit: float | None = None
) -> Move:
    """A legal move for the side to move in ``position`` (ValueError when the game is over)."""
    settings = level_of(level)
    if position.is_over:
        raise ValueError("the game is over: there is no move to choose")
    board = position.fast()
    budget = Budget.for_level(settings, seeded=seed is not None, time_limit=time_limit, size=position.size)
    found = choose(board, level, _rng(seed), budget)
    return board.move_of(found.code)


def choose_setup(game: Game, level: int = 3, *, seed: int | None = None, time_limit: float | None = None) -> str:
    """The setup turn (``c3,e5/d7`` style text that ``Game.play`` accepts) for the seat to act."""
    settings = level_of(level)
    if game.phase != "setup":
        raise ValueError(f"the game is in its {game.phase} phase, not setup")
    budget = Budget.for_level(settings, seeded=seed is not None, time_limit=time_limit, size=game.variant.size)
    return choose_placement(game, level, _rng(seed), budget)


def choose_pie(game: Game, level: int = 3, *, seed: int | None = None, time_limit: float | None = None) -> str:
    """``keep`` or ``swap`` for the second player at the pie choice."""
    settings = level_of(level)
    if game.phase != "pie":
        raise ValueError(f"the game is in its {game.phase} phase, not at the pie choice")
    budget = Budget.for_level(settings, seeded=seed is not None, time_limit=time_limit, size=game.variant.size)
    return choose_keep_or_swap(game, level, _rng(seed), budget)


@dataclass(frozen=True)
class Analysis:
    """Who is winning and the move the search prefers.

    ``black`` is Black's estimated chance of winning in [0, 1] (``white`` is the rest);
    ``proven`` names the colour that wins by force when the search proved it.
    ``best_move`` is None only for a finished game.
    """

    black: float
    best_move: Move | None
    to_move: str
    iterations: int
    proven: str | None

    @property
    def white(self) -> float:
        return 1.0 - self.black

    @property
    def for_side_to_move(self) -> float:
        return self.black if self.to_move == "black" else 1.0 - self.black


def analyze(position: Position, *, time_limit: float | None = None, seed: int | None = None) -> Analysis:
    """Search ``position`` as the level-4 player does (with the solver on) and report what it found."""
    if position.winner is not None:
        return Analysis(1.0 if position.winner == "black" else 0.0, None, position.to_move, 0, position.winner)
    board = position.fast()
    geo = board_geometry(position.size)
    if position.is_over:
        return Analysis(black_chance(board, geo), None, position.to_move, 0, None)
    budget = Budget.for_level(
        level_of(ANALYSIS_LEVEL), seeded=seed is not None, time_limit=time_limit, size=position.size
    )
    # The level-4 budget, searched with the solver so that forced wins are reported as such.
    found = choose(board, SOLVER_LEVEL, _rng(seed), budget)
    proven = COLOURS[found.proven] if found.proven >= 0 else None
    return Analysis(found.black, board.move_of(found.code), position.to_move, found.iterations, proven)


def choose_turn(state: GameState, level: int = 3, *, seed: int | None = None, time_limit: float | None = None) -> str:
    """Veletas's AI turn for ``bot.ai.choose_turn``: a setup placement, ``keep``/``swap`` at the pie, or a move."""
    if not isinstance(state, Game):
        raise TypeError(f"not a Veletas game: {state.kind.title}")
    if state.phase == "setup":
        return choose_setup(state, level, seed=seed, time_limit=time_limit)
    if state.phase == "pie":
        return choose_pie(state, level, seed=seed, time_limit=time_limit)
    return str(choose_move(state.position, level, seed=seed, time_limit=time_limit))
