"""An independent plain search for checking mined puzzles: minimax over the public rules API only.

It knows nothing of the solver (``bot.puzzles.solve``) or the AIs' fast boards: it lists turns with the
rules' own ``legal_moves`` of the game's position, plays them with ``GameState.play`` (the canonical text,
as a member types it), and judges the goals from what the game reports (``winner``, the claimed counts,
``outcome``). No move ordering, no pruning beyond stopping once a node's value is known, no table.
"""

from __future__ import annotations

from bot.rules.protocol import Colour, GameState
from bot.rules.veletas import Game as VeletasGame

WIN = 1
LOSS = -1
GOING = 0


def turns(state: GameState) -> list[str]:
    """Every legal turn of the side to move, in the rules' text."""
    position = state.position  # type: ignore[attr-defined]
    return [str(move) for move in position.legal_moves()]


def _claimed(state: GameState, colour: Colour) -> int:
    black, white = state.position.score  # type: ignore[attr-defined]
    return int(black if colour == "black" else white)


def judge(before: GameState, after: GameState, solver: Colour, goal: str) -> int:
    """What one turn (``before`` to ``after``) did for the solver's goal."""
    outcome = after.outcome
    if outcome is not None:
        return WIN if outcome.winner == solver else LOSS
    if goal == "claim" and before.colour_to_act == solver and _claimed(after, solver) > _claimed(before, solver):
        return WIN
    return GOING


def wins(state: GameState, solver: Colour, goal: str, k: int) -> bool:
    """Whether ``solver`` forces ``goal`` from ``state`` within ``k`` of its own turns."""
    if state.colour_to_act == solver:
        if k <= 0:
            return False
        return any(turn_wins(state, turn, solver, goal, k) for turn in turns(state))
    for turn in turns(state):
        child = state.play(turn)
        result = judge(state, child, solver, goal)
        if result == LOSS or (result == GOING and not wins(child, solver, goal, k)):
            return False
    return True


def turn_wins(state: GameState, turn: str, solver: Colour, goal: str, k: int) -> bool:
    """Whether the solver's ``turn`` forces ``goal`` within ``k`` solver turns (this one included)."""
    child = state.play(turn)
    result = judge(state, child, solver, goal)
    if result != GOING:
        return result == WIN
    return k > 1 and wins(child, solver, goal, k - 1)


def check_line(start: GameState, solution: tuple[str, ...], goal: str) -> None:
    """Assert that ``solution`` is a puzzle's unique line from ``start``: at each solver step its turn is the only
    one forcing the goal within the solver turns left, each reply is legal, and the last turn reaches the goal."""
    solver = start.colour_to_act
    assert solver is not None
    if isinstance(start, VeletasGame):
        assert start.phase == "play"
    state = start
    left = (len(solution) + 1) // 2
    for index, turn in enumerate(solution):
        legal = turns(state)
        assert turn in legal, f"turn {index} {turn!r} is not legal"
        if index % 2 == 0:
            assert state.colour_to_act == solver
            winners = [t for t in legal if turn_wins(state, t, solver, goal, left)]
            assert winners == [turn], f"step {index}: winning turns {winners}, the solution says {turn}"
            left -= 1
        else:
            assert state.colour_to_act != solver
        after = state.play(turn)
        assert after.turns[-1] == turn, f"{turn!r} is not written as the rules write it ({after.turns[-1]!r})"
        result = judge(state, after, solver, goal)
        if index == len(solution) - 1:
            assert result == WIN, "the line's last turn does not reach the goal"
        else:
            assert result == GOING, f"the game or goal is settled early, at turn {index}"
        state = after
