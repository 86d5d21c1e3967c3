"""The AI players: five levels for every phase of a Veletas game, plus analysis of a position.

Pure functions of values (no Discord, no database, no images), so the bot can run them in a
process pool: every entry point is a top-level function whose arguments and results pickle.
With a ``seed`` a decision is reproducible (iteration counts, not the clock, end the search);
``time_limit`` is always a hard cap in seconds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.ai.budget import Budget, Level
from bot.ai.evaluate import black_chance
from bot.ai.players import LEVELS, choose
from bot.ai.setup import choose_keep_or_swap, choose_placement
from bot.rules import COLOURS, Game, Move, Position, board_geometry

__all__ = ["ANALYSIS_LEVEL", "LEVELS", "Analysis", "analyze", "choose_move", "choose_pie", "choose_setup", "level_of"]

ANALYSIS_LEVEL = 4
SOLVER_LEVEL = 5


def level_of(level: int) -> Level:
    """The level's settings; ValueError (with the accepted range) for anything but 1 to 5."""
    found = LEVELS.get(level) if isinstance(level, int) else None
    if found is None:
        raise ValueError(f"the AI level must be a whole number from 1 to {max(LEVELS)}, not {level!r}")
    return found


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


# --------------------------------------------------------------------------- every game, and Veloop
# One entry point for any game's turn (dispatched by the game's name), and Veloop's own players.

from bot.ai.veloop import choose_move as choose_veloop_move  # noqa: E402
from bot.rules import veloop as _veloop_rules  # noqa: E402
from bot.rules.protocol import GameState  # noqa: E402

__all__ += ["choose_turn", "choose_veloop_move"]


def choose_turn(state: GameState, level: int = 3, *, seed: int | None = None, time_limit: float | None = None) -> str:
    """The AI's next turn in any hosted game, as the text ``state.play`` accepts.

    Veletas: a setup placement, ``keep``/``swap`` at the pie, or a move; Veloop: a move, or
    ``pass`` when it is the only one. ValueError for a finished game or an unknown level.
    """
    level_of(level)
    if state.phase == "over":
        raise ValueError("the game is over: there is no turn to choose")
    forced = state.forced_turn
    if forced is not None:
        return forced
    name = state.kind.name
    if name == "veletas" and isinstance(state, Game):
        if state.phase == "setup":
            return choose_setup(state, level, seed=seed, time_limit=time_limit)
        if state.phase == "pie":
            return choose_pie(state, level, seed=seed, time_limit=time_limit)
        return str(choose_move(state.position, level, seed=seed, time_limit=time_limit))
    if name == "veloop" and isinstance(state, _veloop_rules.Game):
        return str(choose_veloop_move(state.position, level, seed=seed, time_limit=time_limit))
    raise ValueError(f"the AI does not play {state.kind.title}")
