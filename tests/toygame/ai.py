"""The toy game's AI: win if it can, else block, else the centre, else the first free square. Any level."""

from __future__ import annotations

from bot.rules.protocol import GameState
from toygame.rules import LINES, ToyGame


def choose_turn(state: GameState, level: int = 3, *, seed: int | None = None, time_limit: float | None = None) -> str:
    """The square to play, as ``bot.ai.choose_turn`` asks of a game's AI."""
    if not isinstance(state, ToyGame):
        raise TypeError(f"not a toy game: {state.kind.title}")
    me = state.colour_to_act
    stones = state.stones
    empty = state.empty
    for wanted in (me, "white" if me == "black" else "black"):
        for line in LINES:
            free = [square for square in line if square in empty]
            if len(free) == 1 and sum(stones.get(square) == wanted for square in line) == 2:
                return free[0]
    return "b2" if "b2" in empty else empty[0]
