"""The puzzle solver: a proving search for a forced goal within a few of the solver's turns.

The side to move in a position is the *solver*, the other side the *defender*. The goals
(``bot.puzzles.values.GOALS``), each judged right after every turn, whoever made it:

- ``decide`` (Veletas): the game is over and the solver won it, by the rules' own scoring (the solver has
  claimed the number of shooters the variant needs). A turn that makes the defender win fails.
- ``claim`` (Veletas): a turn of the solver claims at least one shooter *for the solver* (by the rules' claim
  resolution: the strictly bigger adjacent group, a tie going to the mover's opponent), or the game is over
  with the solver the winner (a defender's turn can only hand the solver a shooter that way). A claim made
  for the defender, by either side's turn, does not count; the game ending in the defender's favour fails.
- ``confine`` (Veloop): the game is over by confinement and the solver won it (fewer confined stones than
  the defender). A turn that confines as many of the solver's stones as of the defender's (a draw), or that
  leaves the solver with more confined, fails; so does a draw by passes.

"Forced within N" is exact: the solver has a turn such that, whatever the defender replies, the solver can
go on reaching the goal, using at most N turns of its own. A turn is one entry of a game's ``turns`` (a
Veletas move, a Veloop ply or pass); under Veloop's protocol 122 a side makes two turns in a row and the
search follows that (the count is of the solver's turns, whoever moves).

The search is a depth-limited AND/OR search (OR at the solver's turns, AND at the defender's), proving, not
sampling: every defender reply is looked at before a solver's turn counts as winning. It keeps a
transposition table of proven results (a win within k holds for every larger k, a failure within k for
every smaller one), orders the solver's turns goal-first (on the last turn only those that can reach the
goal at all: Veletas's ``claim_candidates``), and tries first the defender's reply that refuted a sibling
(killer replies). It runs on the AIs' fast boards (Veletas's ``FastBoard``, Veloop's ``Board``) and turns
their move codes into the rules' canonical text only for what it reports. A node budget (and a time budget)
bounds it: past it the answer is "unknown", never a guess.

Uniqueness (``find_puzzle``): the position's smallest K with a winning first turn; exactly one first turn
must win within K; then, along the line, the defender plays its longest resistance (a reply after which the
solver needs all its remaining turns; among several, the first by text) and at every later solver step
exactly one turn must win within the turns left. Any step with two winning turns rejects the position.

Difficulty (``rating``): ``1150 + 250 × K + 75 × log2(1 + tempting)`` on the Glicko-2 scale (1400 for a lone
one-turn puzzle, 2150 and more for four turns). *Tempting* wrong first turns are those that look like they go for the
goal: in Veletas, a wrong turn that takes an opening of an unclaimed shooter down to two or fewer openings (or
moves a shooter where it may be trapped): the turns that can claim at all, ``claim_candidates``; in Veloop, a
wrong ply that confines (for a draw or a loss), or that sets up a winning confinement the solver did not
already have (were the defender to do nothing, the solver's next ply would win).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

from bot.ai.veletas.board import claim_candidates
from bot.ai.veloop import Board as LoopBoard
from bot.ai.veloop import Ply
from bot.rules.protocol import GameState
from bot.rules.veletas import FastBoard
from bot.rules.veletas import Game as VeletasGame
from bot.rules.veloop import Game as VeloopGame

__all__ = [
    "MAX_TURNS",
    "GiveUp",
    "Solution",
    "Verdict",
    "find_puzzle",
    "forced_win",
    "rating",
    "winning_turns",
]

MAX_TURNS: Final = 4
NODES: Final = 200_000
"""The default node budget of one question about one position: positions made (one per turn tried)."""

WIN: Final = 1
LOSS: Final = -1
GOING: Final = 0


class GiveUp(Exception):
    """The node or time budget ran out before the question was settled."""


def rating(turns: int, tempting: int) -> float:
    """A puzzle's starting difficulty from its solution length (solver turns) and its tempting wrong first turns."""
    return round(1150.0 + 250.0 * turns + 75.0 * math.log2(1 + tempting), 1)


# --------------------------------------------------------------------------- the two games' boards


class _Rules(Protocol):
    """What the search needs of a game: moves, making one, judging it against the goal, naming it (each game's
    class below implements it)."""

    def mover(self, board: Any) -> int: ...

    def moves(self, board: Any, last: bool) -> list[Any]: ...

    def play(self, board: Any, move: Any, solver: int) -> tuple[Any, int]: ...

    def key(self, board: Any) -> bytes: ...

    def text(self, board: Any, move: Any) -> str: ...

    def tempting(self, board: Any, solver: int) -> list[Any]:
        """The turns that look like they go for the goal (a wrong one among them is *tempting*)."""
        ...


class _Veletas(_Rules):
    def __init__(self, goal: str) -> None:
        self.decide = goal == "decide"

    def mover(self, board: FastBoard) -> int:
        return board.to_move

    def moves(self, board: FastBoard, last: bool) -> list[int]:
        # Goal-first: the moves that can claim anything lead; on the solver's last turn they are the only hope.
        candidates = claim_candidates(board, board.geometry)
        if last:
            return candidates
        seen = set(candidates)
        return candidates + [code for code in board.legal_codes() if code not in seen]

    def play(self, board: FastBoard, move: int, solver: int) -> tuple[FastBoard, int]:
        child = board.copy()
        mover = board.to_move
        claims = child.play_code(move)
        if child.winner >= 0:
            return child, WIN if child.winner == solver else LOSS
        if not self.decide and mover == solver and any(colour == solver for _sq, colour, _b, _w in claims):
            return child, WIN
        return child, GOING

    def key(self, board: FastBoard) -> bytes:
        return board.key()

    def text(self, board: FastBoard, move: int) -> str:
        return str(board.move_of(move))

    def tempting(self, board: FastBoard, solver: int) -> list[int]:
        # Every turn that takes an opening of a shooter down to two or fewer, or may trap the shooter it moves.
        return claim_candidates(board, board.geometry)


class _Veloop(_Rules):
    def mover(self, board: LoopBoard) -> int:
        return board.mover

    def moves(self, board: LoopBoard, last: bool) -> list[Ply]:
        plies = board.moves()
        if last:
            # Only a ply that ends the game can reach the goal on the last turn.
            return [ply for ply in plies if ply is not None and board.outcome(ply) >= 0]
        return plies

    def play(self, board: LoopBoard, move: Ply, solver: int) -> tuple[LoopBoard, int]:
        child = board.after(move)
        if child.result < 0:
            return child, GOING
        return child, WIN if child.result == solver else LOSS

    def key(self, board: LoopBoard) -> bytes:
        return bytes(board.top) + bytes(board.under) + bytes((board.colour, board.ply, board.plies, board.lone))

    def text(self, board: LoopBoard, move: Ply) -> str:
        return str(board.move_of(move))

    def tempting(self, board: LoopBoard, solver: int) -> list[Ply]:
        # Every ply that confines (to no avail) or that sets up a confinement the solver could make next.
        threat = _threat(board, solver)
        out: list[Ply] = []
        for ply in board.moves():
            if ply is None:
                continue
            after = board.after(ply)
            if after.result >= 0 or (not threat and _threat(after, solver)):
                out.append(ply)
        return out


def _threat(board: LoopBoard, solver: int) -> bool:
    """Whether the solver, were it to move now, would win with one ply."""
    trial = board.copy()
    trial.colour, trial.ply, trial.plies = solver + 1, 1, 1
    return any(trial.outcome(ply) == solver for ply in trial.moves() if ply is not None)


# --------------------------------------------------------------------------- the search


class _Search:
    """One position's questions, sharing a transposition table and a budget."""

    def __init__(self, rules: _Rules, solver: int, nodes: int, seconds: float | None) -> None:
        self.rules = rules
        self.solver = solver
        self.budget = nodes
        self.nodes = 0
        self.deadline = None if seconds is None else time.perf_counter() + seconds
        # key -> (smallest k proven a win, largest k proven a failure)
        self.table: dict[bytes, tuple[int, int]] = {}
        self.killers: dict[int, Any] = {}

    def tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.budget:
            raise GiveUp(f"node budget of {self.budget} spent")
        if self.deadline is not None and not self.nodes & 255 and time.perf_counter() > self.deadline:
            raise GiveUp("time budget spent")

    def play(self, board: Any, move: Any) -> tuple[Any, int]:
        """The position after ``move`` and what it did for the goal: one node of the budget."""
        self.tick()
        return self.rules.play(board, move, self.solver)

    def turn_wins(self, board: Any, move: Any, k: int) -> bool:
        """Whether the solver's ``move`` (the solver to move in ``board``) forces the goal within ``k`` turns."""
        child, result = self.play(board, move)
        if result != GOING:
            return result == WIN
        return k > 1 and self.wins(child, k - 1)

    def wins(self, board: Any, k: int) -> bool:
        """Whether the solver forces the goal from ``board`` (either side to move) within ``k`` solver turns."""
        rules = self.rules
        key = rules.key(board)
        known = self.table.get(key)
        if known is not None:
            if known[0] <= k:
                return True
            if known[1] >= k:
                return False
        if rules.mover(board) == self.solver:
            found = k > 0 and any(self.turn_wins(board, move, k) for move in rules.moves(board, k == 1))
        else:
            found = self._defended(board, k)
        low, high = known if known is not None else (MAX_TURNS + 99, -1)
        self.table[key] = (min(low, k), high) if found else (low, max(high, k))
        return found

    def _defended(self, board: Any, k: int) -> bool:
        """Whether every defender reply still lets the solver win within ``k`` (the killer reply tried first)."""
        rules = self.rules
        replies = rules.moves(board, False)
        killer = self.killers.get(k)
        if killer is not None and killer in replies:
            replies.remove(killer)
            replies.insert(0, killer)
        for reply in replies:
            child, result = self.play(board, reply)
            if result == WIN:
                continue
            if result == LOSS or not self.wins(child, k):
                self.killers[k] = reply
                return False
        return True

    def need(self, board: Any, k: int) -> int:
        """The fewest solver turns (1..k) that force the goal from ``board``; k + 1 when none do."""
        for j in range(1, k + 1):
            if self.wins(board, j):
                return j
        return k + 1


# --------------------------------------------------------------------------- what callers ask


@dataclass(frozen=True, slots=True)
class Solution:
    """A unique forced line: ``line`` alternates (by the rules' turn order) solver turns and defender replies."""

    goal: str
    turns: int
    line: tuple[str, ...]
    movers: tuple[int, ...]
    """Who made each turn of ``line``: 0 the solver, 1 the defender."""
    tempting: int
    rating: float


Status = Literal["win", "none", "unknown"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the solver found for one goal: ``win`` (``turns`` the fewest, ``first`` every first turn winning in
    that many, ``solution`` when the line is unique at every step), ``none`` within the turns asked, or
    ``unknown`` (the budget ran out)."""

    status: Status
    goal: str
    turns: int = 0
    first: tuple[str, ...] = ()
    solution: Solution | None = None
    nodes: int = 0


def _rules_for(state: GameState, goal: str) -> tuple[_Rules, Any]:
    if isinstance(state, VeletasGame):
        if goal not in ("decide", "claim"):
            raise ValueError(f"a Veletas puzzle's goal is decide or claim, not {goal!r}")
        if state.phase != "play":
            raise ValueError(f"a puzzle starts in the play phase, not in {state.phase}")
        return _Veletas(goal), state.position.fast()
    if isinstance(state, VeloopGame):
        if goal != "confine":
            raise ValueError(f"a Veloop puzzle's goal is confine, not {goal!r}")
        if state.phase != "play":
            raise ValueError("a puzzle starts in a game still going on")
        return _Veloop(), LoopBoard(state.position)
    raise TypeError(f"no solver for {state.kind.title}")


def _search(state: GameState, goal: str, nodes: int, seconds: float | None) -> tuple[_Search, Any]:
    rules, board = _rules_for(state, goal)
    return _Search(rules, rules.mover(board), nodes, seconds), board


def winning_turns(
    state: GameState, goal: str, turns: int, *, nodes: int = NODES, seconds: float | None = None
) -> tuple[str, ...] | None:
    """Every first turn of the side to move that forces ``goal`` within ``turns`` of its turns (None: unknown)."""
    search, board = _search(state, goal, nodes, seconds)
    rules = search.rules
    try:
        return tuple(
            rules.text(board, move) for move in rules.moves(board, turns == 1) if search.turn_wins(board, move, turns)
        )
    except GiveUp:
        return None


def forced_win(
    state: GameState, goal: str, turns: int, *, nodes: int = NODES, seconds: float | None = None
) -> bool | None:
    """Whether the side to move forces ``goal`` within ``turns`` of its turns (None: the budget ran out)."""
    search, board = _search(state, goal, nodes, seconds)
    try:
        return search.wins(board, turns)
    except GiveUp:
        return None


def find_puzzle(
    state: GameState,
    goal: str,
    max_turns: int = MAX_TURNS,
    *,
    nodes: int = NODES,
    seconds: float | None = None,
    alternate: bool = True,
) -> Verdict:
    """The fewest solver turns (1..``max_turns``) that force ``goal``, every first turn doing it, and the unique
    line when there is one. With ``alternate`` a line in which a side makes two turns in a row (Veloop's 122)
    is not a puzzle: the verdict is a win without a solution."""
    if not 1 <= max_turns <= MAX_TURNS:
        raise ValueError(f"a puzzle has 1 to {MAX_TURNS} solver turns, not {max_turns}")
    search, board = _search(state, goal, nodes, seconds)
    rules = search.rules
    solver = search.solver
    try:
        first: list[Any] = []
        turns = 0
        for k in range(1, max_turns + 1):
            first = [move for move in rules.moves(board, k == 1) if search.turn_wins(board, move, k)]
            if first:
                turns = k
                break
        if not first:
            return Verdict("none", goal, nodes=search.nodes)
        names = tuple(rules.text(board, move) for move in first)
        if len(first) > 1:
            return Verdict("win", goal, turns, names, nodes=search.nodes)
        line = _line(search, board, first[0], turns)
        if line is None or (alternate and any(a == b for a, b in zip(line[1], line[1][1:], strict=False))):
            return Verdict("win", goal, turns, names, nodes=search.nodes)
        tempting = _tempting(search, board, first[0], solver)
        solution = Solution(goal, turns, line[0], line[1], tempting, rating(turns, tempting))
        return Verdict("win", goal, turns, names, solution, nodes=search.nodes)
    except GiveUp:
        return Verdict("unknown", goal, nodes=search.nodes)


def _line(search: _Search, board: Any, move: Any, turns: int) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """The line after the unique first ``move``: longest resistance, the solver's only winning turn each time."""
    rules = search.rules
    solver = search.solver
    texts: list[str] = []
    movers: list[int] = []
    k = turns
    while True:
        texts.append(rules.text(board, move))
        movers.append(0)
        board, result = search.play(board, move)
        if result == WIN:
            return tuple(texts), tuple(movers)
        k -= 1
        while rules.mover(board) != solver:
            reply = _resistance(search, board, k)
            texts.append(rules.text(board, reply))
            movers.append(1)
            board, result = search.play(board, reply)
            if result != GOING:  # the defender's only replies end the game: not a line to play
                return None
        winners = [m for m in rules.moves(board, k == 1) if search.turn_wins(board, m, k)]
        if len(winners) != 1:
            return None
        move = winners[0]


def _resistance(search: _Search, board: Any, k: int) -> Any:
    """The defender's reply that delays the goal most (the first by text among equals); a game-ending reply last."""
    rules = search.rules
    best: tuple[int, str] | None = None
    chosen: Any = None
    for reply in rules.moves(board, False):
        child, result = search.play(board, reply)
        delay = -1 if result != GOING else search.need(child, k)
        rank = (-delay, rules.text(board, reply))
        if best is None or rank < best:
            best, chosen = rank, reply
    return chosen


def _tempting(search: _Search, board: Any, solution: Any, solver: int) -> int:
    """Wrong first turns that look like they go for the goal (see the module's text)."""
    return sum(1 for move in search.rules.tempting(board, solver) if move != solution)
