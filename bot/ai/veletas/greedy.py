"""One-ply judgement: the evaluation of the position after each move, the greedy player's whole view.

Level 2 plays the best of these (with noise), level 3 shortlists from them, and the tree
search orders its root by them: an exact look one move ahead is affordable once per
decision, though not at every node.
"""

from __future__ import annotations

import random

from bot.ai.budget import Budget
from bot.ai.veletas.board import claim_candidates
from bot.ai.veletas.evaluate import black_chance
from bot.rules import FastBoard, Geometry


def after_move(board: FastBoard, geo: Geometry, code: int) -> float:
    trial = board.copy()
    trial.play_code(code)
    return black_chance(trial, geo)


def rank_moves(
    board: FastBoard, geo: Geometry, rng: random.Random, budget: Budget, gifts: set[int], noise: float
) -> list[tuple[float, int]]:
    """(mover's chance after the move, code), best first, over as many moves as the budget allows.

    Moves that can claim something come first (they are the ones whose effect is sharpest),
    then a random sample of the rest; gifts are left out unless nothing else exists.
    """
    legal = board.legal_codes()
    urgent = [code for code in claim_candidates(board, geo) if code not in gifts]
    seen = set(urgent)
    rest = [code for code in legal if code not in seen and code not in gifts]
    rng.shuffle(rest)
    order = urgent + rest
    if not order:
        order = legal
    mover = board.to_move
    scored: list[tuple[float, int]] = []
    for done, code in enumerate(order):
        if done and budget.spent(done):
            break
        black = after_move(board, geo, code)
        mine = black if mover == 0 else 1.0 - black
        scored.append((mine + rng.gauss(0.0, noise) if noise else mine, code))
    scored.sort(key=lambda item: -item[0])
    return scored
