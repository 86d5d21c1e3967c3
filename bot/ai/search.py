"""The search written once for every game: tree nodes, UCB selection, solver backup, flat Monte Carlo.

A game plugs in through a small adapter (``Adapter``): who moves, the legal actions in the
order worth trying first, playing one in place, whether the game is over and who won, and a
playout's value. ``TreeSearch`` runs MCTS with progressive widening (and MCTS-Solver when
asked) over any adapter; ``successive_halving`` shares a flat Monte Carlo budget among
candidate moves. Veletas splits its turns in two inside its own tree (``bot.ai.veletas.mcts``) but
selects, backs up and picks its move with the same functions as every other game.

Values are always Black's chance of winning in [0, 1]; a node's ``w`` counts them for its mover.
Movers are 0 (Black) and 1 (White); a game may give the same mover several plies in a row.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from bot.ai.budget import Budget

UNKNOWN = -1
DRAW = 2

S = TypeVar("S")
A = TypeVar("A")


class Node:
    """A chooser with children in prior order; ``n``/``w`` are visits and wins of each edge for ``mover``."""

    __slots__ = ("actions", "children", "lost", "mover", "n", "proven", "visits", "w")

    def __init__(self, mover: int, actions: list[int]) -> None:
        self.mover = mover
        self.actions = actions
        count = len(actions)
        self.children: list[Node | None] = [None] * count
        self.n = [0] * count
        self.w = [0.0] * count
        self.visits = 0
        self.proven = UNKNOWN
        self.lost = 0


def select(node: Node, allowed: int, explore: float) -> int:
    """UCB1 over the first ``allowed`` children; unvisited ones in prior order first; proven losses skipped."""
    children = node.children
    lost = 1 - node.mover
    n = node.n
    w = node.w
    best = -1
    best_score = -1.0
    log_total = math.log(node.visits + 1)
    c = explore
    i = 0
    count = len(node.actions)
    while i < count:
        child = children[i]
        if child is not None and child.proven == lost:
            allowed += 1
            i += 1
            continue
        if i >= allowed:
            break
        visits = n[i]
        if visits == 0:
            return i
        score = w[i] / visits + c * math.sqrt(log_total / visits)
        if score > best_score:
            best_score = score
            best = i
        i += 1
    if best < 0:
        # Every child is a proven loss: any of them will do.
        return 0
    return best


def backup(path: Sequence[tuple[Node, int]], value: float, solver: bool) -> None:
    """Count ``value`` (Black's) along the path; with the solver, pass proven results up as far as they hold."""
    for parent, idx in reversed(path):
        parent.visits += 1
        parent.n[idx] += 1
        parent.w[idx] += value if parent.mover == 0 else 1.0 - value
        if solver and parent.proven < 0:
            child = parent.children[idx]
            if child is not None and child.proven >= 0:
                if child.proven == parent.mover:
                    parent.proven = parent.mover
                else:
                    parent.lost += 1
                    if parent.lost == len(parent.actions):
                        parent.proven = 1 - parent.mover


def best_child(node: Node) -> int:
    """A proven win if there is one, else the most visited edge that is not a proven loss (ties: better mean)."""
    best = 0
    best_key: tuple[float, float] = (-1.0, -1.0)
    for i, child in enumerate(node.children):
        if child is not None and child.proven == node.mover:
            return i
        if child is not None and child.proven == 1 - node.mover:
            continue
        visits = node.n[i]
        key = (float(visits), node.w[i] / visits if visits else 0.0)
        if key > best_key:
            best_key = key
            best = i
    return best


def widened(visits: int, count: int, base: float, power: float) -> int:
    """How many children a node with ``visits`` lets in (progressive widening)."""
    return min(count, 1 + int(base * visits**power))


class Adapter(Protocol[S, A]):
    """What the tree search needs of a game; a state is mutable and copied once per iteration."""

    def copy(self, state: S) -> S: ...

    def mover(self, state: S) -> int:
        """0 for Black, 1 for White: who plays the next action."""
        ...

    def winner(self, state: S) -> int:
        """-1 while the game goes on, else 0 (Black won), 1 (White won) or 2 (a draw)."""
        ...

    def actions(self, state: S) -> list[A]:
        """The legal actions of a game that goes on, the most promising first (never empty: a pass is an action)."""
        ...

    def play(self, state: S, action: A) -> None: ...

    def playout(self, state: S, rng: random.Random) -> float:
        """Black's value of a random continuation of an unfinished ``state`` (may change ``state``)."""
        ...


@dataclass(frozen=True)
class Found(Generic[A]):
    """What a tree search found: the action, Black's estimated chance, iterations run, proven winner or -1."""

    action: A
    black: float
    iterations: int
    proven: int


@dataclass(frozen=True)
class TreeSettings:
    """The knobs of a tree search over an adapter: exploration, widening, solver."""

    explore: float = 0.35
    widen_base: float = 2.0
    widen_power: float = 0.5
    root_base: float = 2.0
    root_power: float = 0.5
    solver: bool = False


def _terminal_value(winner: int) -> float:
    return 0.5 if winner == DRAW else 1.0 if winner == 0 else 0.0


class TreeSearch(Generic[S, A]):
    """MCTS from ``state`` over ``adapter``; ``root_actions`` (a caller's better ranking) replaces the root's own."""

    def __init__(
        self,
        adapter: Adapter[S, A],
        state: S,
        settings: TreeSettings,
        rng: random.Random,
        root_actions: list[A] | None = None,
    ) -> None:
        self.adapter = adapter
        self.state = state
        self.settings = settings
        self.rng = rng
        # Actions are stored by index into each node's own list, so the node type stays the shared one.
        self.moves: dict[int, list[A]] = {}
        self.root = self._node(adapter.copy(state), root_actions)

    def _node(self, state: S, actions: list[A] | None = None) -> Node:
        adapter = self.adapter
        winner = adapter.winner(state)
        if winner >= 0:
            node = Node(adapter.mover(state), [])
            node.proven = winner if winner != DRAW else UNKNOWN
            self.moves[id(node)] = []
            return node
        found = actions if actions else adapter.actions(state)
        node = Node(adapter.mover(state), list(range(len(found))))
        self.moves[id(node)] = found
        return node

    def iterate(self) -> None:
        adapter = self.adapter
        s = self.settings
        state = adapter.copy(self.state)
        path: list[tuple[Node, int]] = []
        node = self.root
        while True:
            if node.proven >= 0:
                value = 1.0 if node.proven == 0 else 0.0
                break
            if not node.actions:
                value = _terminal_value(adapter.winner(state))
                break
            base, power = (s.root_base, s.root_power) if node is self.root else (s.widen_base, s.widen_power)
            i = select(node, widened(node.visits, len(node.actions), base, power), s.explore)
            path.append((node, i))
            adapter.play(state, self.moves[id(node)][i])
            child = node.children[i]
            if child is None:
                child = node.children[i] = self._node(state)
                if child.proven >= 0:
                    value = 1.0 if child.proven == 0 else 0.0
                elif not child.actions:
                    value = _terminal_value(adapter.winner(state))
                else:
                    value = adapter.playout(state, self.rng)
                break
            node = child
        backup(path, value, s.solver)

    def run(self, budget: Budget) -> Found[A]:
        done = 0
        while not budget.spent(done) and self.root.proven < 0:
            self.iterate()
            done += 1
        root = self.root
        i = best_child(root)
        return Found(self.moves[id(root)][i], self.root_black(), done, root.proven)

    def root_black(self) -> float:
        root = self.root
        if root.proven >= 0:
            return 1.0 if root.proven == 0 else 0.0
        total = sum(root.n)
        if total == 0:
            return 0.5
        mean = sum(root.w) / total
        return mean if root.mover == 0 else 1.0 - mean


@dataclass(frozen=True)
class Halving:
    """A flat Monte Carlo run: candidate indices best first (the survivors of the last round), each one's
    summed value and trial count, and the trials run in all."""

    order: list[int]
    wins: list[float]
    runs: list[int]
    done: int

    def mean(self, k: int) -> float:
        return self.wins[k] / self.runs[k] if self.runs[k] else 0.0


def successive_halving(count: int, trial: Callable[[int], float], budget: Budget) -> Halving:
    """Flat Monte Carlo over ``count`` candidates: each round splits its share of trials evenly among the
    survivors, then drops the weaker half.

    ``trial(k)`` is the mover's value of one random game after candidate ``k``; the budget's
    iterations count trials.
    """
    wins = [0.0] * count
    runs = [0] * count
    alive = list(range(count))
    done = 0
    rounds = max(1, math.ceil(math.log2(count))) if count else 1

    def mean(k: int) -> float:
        return wins[k] / runs[k] if runs[k] else 0.0

    for r in range(rounds):
        left = rounds - r
        share = Budget(max(len(alive), (budget.iterations - done) // left), max(0.0, budget.remaining() / left))
        spent = 0
        while alive and not share.spent(spent) and not budget.spent(done):
            k = alive[spent % len(alive)]
            wins[k] += trial(k)
            runs[k] += 1
            spent += 1
            done += 1
        alive.sort(key=lambda k: -mean(k))
        if budget.spent(done):
            break
        alive = alive[: max(1, (len(alive) + 1) // 2)]
    return Halving(alive, wins, runs, done)
