"""The five levels, each a different way of spending its budget on the same board facts.

1. random, but it takes a winning claim and never hands the opponent a claim it could avoid;
2. greedy: the move after which the evaluation looks best, blurred by noise, among those after which
   the opponent's next move can neither win nor claim (``_danger``);
3. flat Monte Carlo: the greedy shortlist, then random playouts share the budget among them,
   the weaker half dropped after each round (successive halving);
4. tree search (``bot.ai.veletas.mcts``): whole moves at the root, ranked by the greedy view and
   widened progressively, split turns below;
5. the same with the solver and four times the iterations.

Every level first looks for a move that wins the game at once: missing one is the one
blunder a player never forgives, and finding it costs little (``claim_candidates``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from bot.ai.budget import Budget, Level
from bot.ai.search import successive_halving
from bot.ai.veletas.board import claim_candidates, claims_of
from bot.ai.veletas.evaluate import black_chance
from bot.ai.veletas.greedy import after_move, rank_moves
from bot.ai.veletas.mcts import Search, Settings
from bot.rules import FastBoard, Geometry, board_geometry

LEVELS: dict[int, Level] = {
    1: Level(1, 0.2, 1, 1.0),
    2: Level(2, 0.2, 1500, 1.0),
    3: Level(3, 0.6, 5000, 3.0),
    4: Level(4, 1.0, 4000, 5.0),
    5: Level(5, 3.0, 16000, 10.0),
}

NOISE = 0.04
SHORTLIST = 12
GUARDED = 24
FLAT_RANKED = 600
ROOT_RANKED = 1500
TREE = Settings()
FLAT_PLIES = 12


@dataclass(frozen=True)
class Choice:
    """A decision: the move code, Black's estimated chance of winning after it, and the work it took."""

    code: int
    black: float
    iterations: int
    proven: int = -1


def _tactics(board: FastBoard) -> tuple[list[int], set[int]]:
    """Moves that win the game at once, and moves that give the opponent more claims than the mover gets."""
    mover = board.to_move
    wins: list[int] = []
    gifts: set[int] = set()
    for code in claim_candidates(board, board_geometry(board.size)):
        mine, theirs, winner = claims_of(board, code)
        if winner == mover:
            wins.append(code)
        elif winner >= 0 or theirs > mine:
            gifts.add(code)
    return wins, gifts


def choose(board: FastBoard, level: int, rng: random.Random, budget: Budget) -> Choice:
    """The move of ``level`` for the side to move on ``board`` (which must have a legal move)."""
    geo = board_geometry(board.size)
    wins, gifts = _tactics(board)
    if wins:
        return Choice(wins[0], 1.0 if board.to_move == 0 else 0.0, 0, board.to_move)
    if level <= 1:
        return _random(board, rng, gifts)
    if level == 2:
        return _greedy(board, geo, rng, budget, gifts)
    if level == 3:
        return _flat(board, geo, rng, budget, gifts)
    settings = replace(TREE, solver=level >= 5)
    rank_budget = Budget(ROOT_RANKED, (budget.deadline - budget.start) / 6)
    root_moves = [code for _mine, code in rank_moves(board, geo, rng, rank_budget, gifts, 0.0)]
    search = Search(board, geo, settings, rng, root_moves)
    found = search.run(budget)
    return Choice(found.code, found.black, found.iterations, found.proven)


def _danger(board: FastBoard, geo: Geometry, code: int) -> int:
    """What the opponent's very next move could do after ``code``: 2 win the game, 1 claim more than it gives,
    0 neither (and 0 after a move that wins the game itself)."""
    trial = board.copy()
    trial.play_code(code)
    if trial.winner >= 0:
        return 0 if trial.winner == board.to_move else 2
    opponent = trial.to_move
    worst = 0
    for reply in claim_candidates(trial, geo):
        theirs, mine, winner = claims_of(trial, reply)
        if winner == opponent:
            return 2
        if theirs > mine:
            worst = 1
    return worst


def _random(board: FastBoard, rng: random.Random, gifts: set[int]) -> Choice:
    legal = board.legal_codes()
    safe = [code for code in legal if code not in gifts] if gifts else legal
    code = rng.choice(safe or legal)
    return Choice(code, 0.5, 1)


def _greedy(board: FastBoard, geo: Geometry, rng: random.Random, budget: Budget, gifts: set[int]) -> Choice:
    """The best-looking move (with noise) after which the opponent can neither win nor claim at once; failing
    that, one after which it cannot win at once; failing that, the best-looking.

    The ranking gets three quarters of the time; the rest goes to looking at the opponent's replies to
    the ``GUARDED`` best moves, best first, until a move leaves it nothing: a count, so that a seed fixes
    the move and a crowded board where every move leaves a claim costs no more than that.
    """
    rank_budget = Budget(budget.iterations, (budget.deadline - budget.start) * 0.75)
    scored = rank_moves(board, geo, rng, rank_budget, gifts, NOISE)
    mine, code = scored[0]
    least = 3
    for k, (value, candidate) in enumerate(scored[:GUARDED]):
        if k and budget.remaining() <= 0:
            break
        danger = _danger(board, geo, candidate)
        if danger < least:
            mine, code, least = value, candidate, danger
            if not danger:
                break
    mine = min(1.0, max(0.0, mine))
    return Choice(code, mine if board.to_move == 0 else 1.0 - mine, len(scored))


def _flat(board: FastBoard, geo: Geometry, rng: random.Random, budget: Budget, gifts: set[int]) -> Choice:
    """Successive halving over the greedy shortlist: each round splits its share of playouts evenly, then halves.

    The budget's iterations count playouts; ranking the shortlist takes a quarter of the time at most.
    """
    rank_budget = Budget(FLAT_RANKED, (budget.deadline - budget.start) / 4)
    shortlist = [code for _mine, code in rank_moves(board, geo, rng, rank_budget, gifts, 0.0)[:SHORTLIST]]
    mover = board.to_move

    def trial(k: int) -> float:
        trial = board.copy()
        trial.play_code(shortlist[k])
        winner = trial.random_playout(rng.random, FLAT_PLIES)
        black = black_chance(trial, geo) if winner < 0 else 1.0 - winner
        return black if mover == 0 else 1.0 - black

    found = successive_halving(len(shortlist), trial, budget)
    best = found.order[0]
    code = shortlist[best]
    if found.runs[best] == 0:
        return Choice(code, after_move(board, geo, code), found.done)
    mean = found.mean(best)
    return Choice(code, mean if mover == 0 else 1.0 - mean, found.done)
