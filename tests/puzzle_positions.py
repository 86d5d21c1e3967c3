"""Real puzzles for the playing side's tests: positions reached by real turns, each with a forced line checked here by
a plain search over the rules' legal moves (not the miner's solver), so the tests stay true when mined puzzles arrive.

- ``VELOOP_ONE``: 5×5 Veloop (alternating), Black confines at once, by one turn only.
- ``VELOOP_TWO``: 5×5 Veloop, Black's quiet turn after which every White reply lets Black confine.
- ``VELETAS_ONE``: small-board Veletas, Black claims a region at once, by one turn only.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.puzzles.values import Puzzle
from bot.rules.protocol import Colour, GameState
from bot.rules.registry import find_game

VELOOP = {"board": "5", "protocol": "alternating"}
VELETAS = {"variant": "small", "rules": "current"}

VELOOP_ONE_BEFORE = (
    "b4<c2", "c1<b3", "c2<b4", "d1<c3", "c4<b2", "a2<c1", "c2<b4", "a4<c3", "b4<c2", "b2<a4", "d5<b4", "b5<a3",
    "e4<c5", "d5<b4", "e5<c4", "e3<d1", "d2<c4", "c3<b5", "b3<d2", "a1<c2", "c5<e4", "a5<c4", "c4<e5", "e1<c2",
)  # fmt: skip
VELOOP_TWO_BEFORE = (
    "b4<c2", "a5<b3", "b4<c2", "b1<c3", "d3<b2", "e3<c2", "d1<b2", "c4<a5", "c5<a4", "d3<c1", "c3<a4", "a2<c1",
    "e1<c2", "a3<c4", "e2<c3", "e4<d2", "d5<e3", "e5<d3", "d4<e2", "b3<c1",
)  # fmt: skip
# More one-turn Veloop positions (5×5, alternating): the turns before, and the one turn that confines.
VELOOP_MORE = (
    (
        ("d4<c2", "e5<d3", "e3<c2", "d3<e5", "d5<e3", "b3<d2", "d1<c3", "e1<c2", "b1<c3", "c4<e5", "a4<c3", "c2<e1",
         "c5<e4", "a3<c4", "b5<c3", "a1<b3", "e2<c3", "d4<c2", "b2<d1", "c2<e1", "c4<e3", "a5<b3", "c3<e2", "e3<c2",
         "a3<b1", "c4<b2"),
        "c3<e2",
    ),
    (
        ("d4<c2", "b2<d3", "c2<d4", "d1<b2", "a2<c1", "b2<d1", "e5<d3", "d2<b1", "e1<d3", "a3<b1", "b3<c1", "e3<d1",
         "d4<c2", "c4<a3", "b3<c1", "c5<d3", "a1<b3", "b5<d4", "a4<c5", "c2<d4", "a5<b3", "e2<c3", "d5<b4", "d2<b1",
         "e3<d5", "a2<c3", "a3<b5"),
        "a1<b3",
    ),
    (
        ("b4<c2", "a5<b3", "c3<a4", "b3<a5", "d4<c2", "d2<b3", "b2<d3", "c4<a5", "b4<c2", "b3<d2", "a2<c3", "a1<c2",
         "c1<b3", "d1<b2", "e2<c3", "a3<b1", "e4<d2", "c1<a2", "d5<c3", "d5<e3", "e1<c2", "d3<c1", "e5<c4", "c5<d3",
         "d3<e5", "b3<d4", "d4<e2"),
        "c4<a3",
    ),
)  # fmt: skip
VELETAS_ONE_BEFORE = ("d4/d7", "keep", "c5,e4/f1", "c5-e7/f6", "e7-e2/d2", "d4-g4/f3", "g4-g7/g5")


def margin(state: GameState, colour: Colour) -> int:
    """The solver's lead on the board: won is past any score."""
    outcome = state.outcome
    if outcome is not None and outcome.winner is not None:
        return 1_000_000 if outcome.winner == colour else -1_000_000
    black, white = state.scores
    return black - white if colour == "black" else white - black


def legal(state: GameState) -> list[str]:
    return [state.play(str(move)).turns[-1] for move in state.position.legal_moves()]  # type: ignore[attr-defined]


def gaining(state: GameState, colour: Colour, base: int) -> list[str]:
    """The turns after which the solver's lead is above ``base``."""
    return [turn for turn in legal(state) if margin(state.play(turn), colour) > base]


def checked(game: str, settings: dict[str, str], before: Sequence[str], solution: tuple[str, ...], goal: str) -> Puzzle:
    """The puzzle, once a plain search agrees its line is forced: every solver turn but the last gains nothing yet, the
    first is the only one that gains in one turn (one-turn puzzles), and after every defender reply the solver gains."""
    start = find_game(game).replay(before, settings)
    colour = start.colour_to_act
    assert colour is not None
    base = margin(start, colour)
    if len(solution) == 1:
        assert gaining(start, colour, base) == [solution[0]], "one turn, and only one, gains at once"
    else:
        first = start.play(solution[0])
        assert margin(first, colour) == base and gaining(start, colour, base) == []
        for reply in legal(first):
            assert gaining(first.play(reply), colour, base), f"{reply} escapes"
        assert solution[2] in gaining(first.play(solution[1]), colour, base)
    return Puzzle(game=game, settings=settings, before=tuple(before), solution=solution, goal=goal, rating=1500.0)


def veloop_one(**changes: object) -> Puzzle:
    puzzle = checked("veloop", VELOOP, VELOOP_ONE_BEFORE, ("e3<d1",), "confine")
    return _with(puzzle, changes)


def veloop_two(**changes: object) -> Puzzle:
    puzzle = checked("veloop", VELOOP, VELOOP_TWO_BEFORE, ("b5<c3", "d1<e3", "b3<c5"), "confine")
    return _with(puzzle, changes)


def veloop_more(index: int, **changes: object) -> Puzzle:
    """One of ``VELOOP_MORE`` (0 to 2; the second and third have White to move)."""
    before, turn = VELOOP_MORE[index]
    return _with(checked("veloop", VELOOP, before, (turn,), "confine"), changes)


def veletas_one(**changes: object) -> Puzzle:
    puzzle = checked("veletas", VELETAS, VELETAS_ONE_BEFORE, ("e4-g6/f7",), "claim")
    return _with(puzzle, changes)


def _with(puzzle: Puzzle, changes: dict[str, object]) -> Puzzle:
    from dataclasses import replace

    return replace(puzzle, **changes)  # type: ignore[arg-type]


def wrong_first(puzzle: Puzzle) -> str:
    """A legal first turn that is not the solution's and gains nothing at once."""
    start = find_game(puzzle.game).replay(puzzle.before, dict(puzzle.settings))
    colour = start.colour_to_act
    assert colour is not None
    base = margin(start, colour)
    for turn in legal(start):
        if turn != puzzle.solution[0] and margin(start.play(turn), colour) <= base:
            return turn
    raise AssertionError("every turn gains")
