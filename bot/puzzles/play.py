"""Playing a puzzle, as pure values: its position, who solves it, and whether a turn keeps to its solution.

A member plays the solver's turns of ``Puzzle.solution`` (its even indices); after each right one the defender's
reply (the next odd index) is played for them, straight from the stored line. A turn is right when its canonical
text (what the rules print, as a game's move log keeps it) is the solution's; on the last turn only, another turn
that reaches the same end is right too (a second way to finish is no mistake, as on Lichess): the game won for the
solver, or the same gain in score (a claim, a confinement) as the solution's last turn. A turn the rules refuse
raises the rules' ``IllegalMove`` and changes nothing.

Choosing the day's puzzle is here too (``daily_index``): a digest of the server, the game and the date, so every
process picks the same one without asking another.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from bot.puzzles.values import Puzzle
from bot.rules.protocol import Colour, GameState
from bot.rules.registry import find_game

Verdict = Literal["right", "solved", "wrong", "gave_up"]

WON: Final = 1_000_000
"""A margin standing for "the game is won": larger than any score a board can hold."""


@dataclass(frozen=True, slots=True)
class Step:
    """What one of the member's turns did: ``verdict``, the turn as the rules write it, the defender's reply
    (after a right turn that is not the last), and ``expected``: the solution's turn when the member's was wrong (or
    when they gave up, ``gave_up``, with no turn of theirs: ``turn`` is empty)."""

    verdict: Verdict
    turn: str
    reply: str | None = None
    expected: str | None = None


def replay(puzzle: Puzzle, played: Sequence[str] = ()) -> GameState:
    """The puzzle's game after its ``before`` turns and then ``played`` (turns of the solution line)."""
    return find_game(puzzle.game).replay((*puzzle.before, *played), dict(puzzle.settings))


def solver(puzzle: Puzzle) -> Colour:
    """The colour the member plays: the one to act in the puzzle's position."""
    colour = replay(puzzle).colour_to_act
    if colour is None:
        raise ValueError(f"puzzle {puzzle.id}: nobody is to move in its position")
    return colour


def _margin(state: GameState, colour: Colour) -> int:
    outcome = state.outcome
    if outcome is not None and outcome.winner is not None:
        return WON if outcome.winner == colour else -WON
    black, white = state.scores
    return black - white if colour == "black" else white - black


def judge(puzzle: Puzzle, played: Sequence[str], typed: str) -> Step:
    """The member's next turn ``typed`` after the line ``played`` so far (the solution's first turns).

    Raises the rules' ``IllegalMove`` for a turn they refuse; ``ValueError`` when the line is already over.
    """
    index = len(played)
    if index % 2 or index >= len(puzzle.solution):
        raise ValueError(f"puzzle {puzzle.id}: no turn of the solver's is due after {index} turns")
    state = replay(puzzle, played)
    after = state.play(typed)
    turn = after.turns[-1]
    wanted = state.play(puzzle.solution[index])
    expected = wanted.turns[-1]
    last = index == len(puzzle.solution) - 1
    colour = state.colour_to_act
    right = turn == expected
    if not right and last and colour is not None:
        gain = _margin(wanted, colour) - _margin(state, colour)
        right = gain > 0 and _margin(after, colour) - _margin(state, colour) >= gain
    if not right:
        return Step("wrong", turn, expected=expected)
    if last:
        return Step("solved", turn)
    return Step("right", turn, reply=after.play(puzzle.solution[index + 1]).turns[-1])


def daily_index(guild_id: int, game: str, day: dt.date, count: int) -> int:
    """Which of ``count`` candidates is a server's puzzle of ``game`` on ``day``: the same in every process."""
    if count <= 0:
        raise ValueError("no puzzle to choose from")
    digest = hashlib.sha256(f"{guild_id}:{game}:{day.isoformat()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count
