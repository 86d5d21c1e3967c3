"""Monte Carlo tree search over split turns, with progressive widening and an optional solver.

A Veletas turn has thousands of possible moves, far too many children for one node. As in
the strong Amazons programs, the turn is split in the tree: a position node chooses a *pair*
(which shooter goes where, or a stationary shot), and the pair's node chooses the target.
Each node lets in its children one by one in the prior's order as it is visited
(progressive widening), so search effort goes to plausible moves first. A playout is cut
after a few random plies and scored by the static evaluation, which is both cheaper and
less noisy than playing on to the end.

With ``solver`` on (MCTS-Solver), won and lost positions found in the tree are propagated as
proven results: a node with one proven-winning child is won, one whose children are all
proven losses is lost, and proven losses are never explored again.

Nodes, selection, backup and the final pick are the shared ones of ``bot.ai.search``; only the
split turn (pairs, then targets) and the Veletas prior and evaluation live here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.ai.budget import Budget
from bot.ai.search import Node, backup, best_child, select, widened
from bot.ai.veletas.board import code_of, pairs, targets
from bot.ai.veletas.evaluate import black_chance
from bot.ai.veletas.prior import Labels, labels, order_pairs, order_targets
from bot.rules import FastBoard, Geometry


@dataclass(frozen=True)
class Settings:
    """The knobs of one search: exploration, widening, playout length, solver."""

    explore: float = 0.35
    widen_base: float = 2.0
    widen_power: float = 0.5
    root_base: float = 2.0
    root_power: float = 0.5
    playout_plies: int = 6
    solver: bool = False


class _Position(Node):
    """A position: actions are pairs. ``facts`` (group labels) are kept for ordering its pairs' targets."""

    __slots__ = ("facts",)

    def __init__(self, mover: int, actions: list[int], facts: Labels | None) -> None:
        super().__init__(mover, actions)
        self.facts = facts


@dataclass(frozen=True)
class Result:
    """What a search found: the move code, Black's estimated chance, iterations run, proven winner or -1."""

    code: int
    black: float
    iterations: int
    proven: int


class Search:
    """One search from ``board``.

    With ``root_moves`` the root is not split: its children are those whole moves in that
    order (a ranking the caller could afford once, such as the evaluation after each move),
    and the split turn starts one ply down, where such a ranking would cost too much per node.
    """

    def __init__(
        self,
        board: FastBoard,
        geo: Geometry,
        settings: Settings,
        rng: random.Random,
        root_moves: list[int] | None = None,
    ) -> None:
        self.board = board
        self.geo = geo
        self.settings = settings
        self.rng = rng
        self.flat_root = bool(root_moves) and board.winner < 0
        self.root: Node = Node(board.to_move, list(root_moves or ())) if self.flat_root else self._position(board)

    def _position(self, board: FastBoard) -> _Position:
        if board.winner >= 0:
            node = _Position(board.to_move, [], None)
            node.proven = board.winner
            return node
        facts = labels(board, self.geo)
        return _Position(board.to_move, order_pairs(board, self.geo, pairs(board, self.geo), facts), facts)

    def _allowed(self, node: Node) -> int:
        s = self.settings
        if node is self.root and self.flat_root:
            return widened(node.visits, len(node.actions), s.root_base, s.root_power)
        return widened(node.visits, len(node.actions), s.widen_base, s.widen_power)

    def _select(self, node: Node) -> int:
        """UCB1 over the widened children; unvisited ones in prior order first; proven losses skipped."""
        return select(node, self._allowed(node), self.settings.explore)

    def iterate(self) -> None:
        board = self.board.copy()
        geo = self.geo
        n2 = geo.n2
        path: list[tuple[Node, int]] = []
        node: Node = self.root
        value = -1.0
        while True:
            if node.proven >= 0:
                value = 1.0 if node.proven == 0 else 0.0
                break
            if not node.actions:
                value = black_chance(board, geo)
                break
            i = self._select(node)
            path.append((node, i))
            if node is self.root and self.flat_root:
                board.play_code(node.actions[i])
                child = node.children[i]
                if child is None:
                    child = node.children[i] = self._position(board)
                    value = self._leaf(board, child)
                    break
                node = child
                continue
            pair = node.actions[i]
            tnode = node.children[i]
            if tnode is None:
                assert isinstance(node, _Position)
                facts = node.facts or labels(board, geo)
                found = targets(board, geo, pair)
                tnode = node.children[i] = Node(node.mover, order_targets(board, geo, pair, found, facts))
            elif tnode.proven >= 0:
                value = 1.0 if tnode.proven == 0 else 0.0
                break
            j = self._select(tnode)
            path.append((tnode, j))
            board.play_code(code_of(pair, tnode.actions[j], n2))
            child = tnode.children[j]
            if child is None:
                child = tnode.children[j] = self._position(board)
                value = self._leaf(board, child)
                break
            node = child
        backup(path, value, self.settings.solver)

    def _leaf(self, board: FastBoard, child: Node) -> float:
        """Black's value of a new node: exact when the game is over, else a cut playout and the evaluation."""
        if child.proven >= 0:
            return 1.0 if child.proven == 0 else 0.0
        winner = board.random_playout(self.rng.random, self.settings.playout_plies)
        return black_chance(board, self.geo) if winner < 0 else 1.0 - winner

    def run(self, budget: Budget) -> Result:
        done = 0
        while not budget.spent(done) and self.root.proven < 0:
            self.iterate()
            done += 1
        return Result(self.best_code(), self.root_black(), done, self.root.proven)

    def best_code(self) -> int:
        root = self.root
        i = best_child(root)
        if self.flat_root:
            return root.actions[i]
        tnode = root.children[i]
        if tnode is None or not tnode.n or max(tnode.n) == 0:
            # Never searched below: the first target in prior order.
            pair = root.actions[i]
            facts = (root.facts if isinstance(root, _Position) else None) or labels(self.board, self.geo)
            ordered = order_targets(self.board, self.geo, pair, targets(self.board, self.geo, pair), facts)
            return code_of(pair, ordered[0], self.geo.n2)
        j = best_child(tnode)
        return code_of(root.actions[i], tnode.actions[j], self.geo.n2)

    def root_black(self) -> float:
        root = self.root
        if root.proven >= 0:
            return 1.0 if root.proven == 0 else 0.0
        total_n = sum(root.n)
        if total_n == 0:
            return black_chance(self.board, self.geo)
        mean = sum(root.w) / total_n
        return mean if root.mover == 0 else 1.0 - mean
