"""The AI players of every game, and what they share: the levels, the search budget, the tree search.

Pure functions of values (no Discord, no database, no images), so the bot can run them in a
process pool: every entry point is a top-level function whose arguments and results pickle.
With a ``seed`` a decision is reproducible (iteration counts, not the clock, end the search);
``time_limit`` is always a hard cap in seconds.

Each game's AI lives in its own module or package (``bot.ai.veletas``, ``bot.ai.veloop``), named by
the ``ai`` of the game's descriptor (``bot.rules.registry``); ``choose_turn`` plays any registered
game's turn through it, so nothing here names a game.
"""

from __future__ import annotations

from bot.ai.budget import Level
from bot.rules.protocol import GameState
from bot.rules.registry import describe, load

__all__ = ["LEVELS", "choose_turn", "level_of"]


def _levels() -> dict[int, Level]:
    from bot.ai.veletas.players import LEVELS as levels

    return levels


def level_of(level: int) -> Level:
    """The level's settings (whose ``cap``, the hard limit in seconds, every game's AI keeps); ValueError (with
    the accepted range) for anything but 1 to 5."""
    levels = _levels()
    found = levels.get(level) if isinstance(level, int) else None
    if found is None:
        raise ValueError(f"the AI level must be a whole number from 1 to {max(levels)}, not {level!r}")
    return found


def choose_turn(state: GameState, level: int = 3, *, seed: int | None = None, time_limit: float | None = None) -> str:
    """The AI's next turn in any registered game, as the text ``state.play`` accepts.

    A turn nobody has a choice in (``forced_turn``) is played as it is; any other is asked of the game's
    AI (its descriptor's ``ai``). ValueError for a finished game, an unknown level, or a game whose
    descriptor names no AI.
    """
    level_of(level)
    if state.phase == "over":
        raise ValueError("the game is over: there is no turn to choose")
    forced = state.forced_turn
    if forced is not None:
        return forced
    spec = describe(state.kind.name).ai
    if not spec:
        raise ValueError(f"the AI does not play {state.kind.title}")
    turn: str = load(spec)(state, level, seed=seed, time_limit=time_limit)
    return turn
