"""Setup placements and the pie choice, judged by random playouts from the positions they lead to.

Nothing is known about a Veletas opening but its outcome under play, so a placement is judged
the Monte Carlo way: candidates are drawn at random, each is finished into playing
positions, and random games from there say who tends to win. A setup turn with more to come
after it is finished with random placements by the other side, whose best answer (the
worst case for the placer) is what counts. In the current edition the first player is
judged on balance, not strength: the pie lets the other player take the better colour.
"""

from __future__ import annotations

import random

from bot.ai.budget import Budget
from bot.rules import Game
from bot.rules.common import parse_square, square_name

# Playouts per judged position and answers tried per candidate; the level's budget decides how many candidates.
PLAYOUTS = 12
ANSWERS = 3


def random_placement(game: Game, rng: random.Random) -> str:
    """A legal setup turn for ``game``, drawn uniformly square by square."""
    placed: list[str] = []
    position = game.position
    classic = game.rules == "classic"
    size = position.size
    for _ in range(game.shooters_to_place):
        choices = [sq for sq in game.setup_squares() if sq not in placed]
        if classic:
            choices = [sq for sq in choices if all(not _touching(sq, p, size) for p in placed)]
        placed.append(rng.choice(choices))
    text = ",".join(placed)
    if game.stone_to_place:
        taken = set(placed)
        occupied = position.pieces()
        names = (square_name(i % size, i // size) for i in range(size * size))
        empties = [sq for sq in names if sq not in occupied and sq not in taken]
        text += "/" + rng.choice(empties)
    return text


def _touching(a: str, b: str, size: int) -> bool:
    fa, ra = parse_square(a, size)
    fb, rb = parse_square(b, size)
    return max(abs(fa - fb), abs(ra - rb)) <= 1


def _black_share(game: Game, rng: random.Random, playouts: int) -> float:
    """Black's share of random games from a game whose setup is complete."""
    position = game.position
    if position.winner is not None:
        return 1.0 if position.winner == "black" else 0.0
    start = position.fast()
    total = 0.0
    for _ in range(playouts):
        board = start.copy()
        winner = board.random_playout(rng.random)
        total += 0.5 if winner < 0 else 1.0 - winner
    return total / playouts


def _finish(game: Game, rng: random.Random) -> Game:
    """Play out the rest of setup at random (keeping colours as they are at the pie)."""
    while game.phase in ("setup", "pie"):
        game = game.play("keep" if game.phase == "pie" else random_placement(game, rng))
    return game


def black_estimate(game: Game, rng: random.Random, playouts: int, answers: int) -> float:
    """Black's chance from a setup in progress: the other side's best of ``answers`` random finishes."""
    if game.phase not in ("setup", "pie"):
        return _black_share(game, rng, playouts)
    # Who places next decides whose best answer counts: after the pie (current) and in classic, that is White.
    results = [_black_share(_finish(game, rng), rng, playouts) for _ in range(max(1, answers))]
    return min(results)


def choose_placement(game: Game, level: int, rng: random.Random, budget: Budget) -> str:
    """The setup turn of ``level``: the best of as many random candidates as the budget can judge."""
    if level <= 1:
        return random_placement(game, rng)
    colour = game.colour_to_act
    balance = game.rules == "current" and colour is None
    candidates: list[tuple[float, str]] = []
    done = 0
    while not candidates or not budget.spent(done):
        text = random_placement(game, rng)
        after = game.play(text)
        black = black_estimate(after, rng, PLAYOUTS, ANSWERS)
        done += PLAYOUTS if after.phase in ("play", "over") else PLAYOUTS * ANSWERS
        mine = black if colour == "black" else 1.0 - black
        score = -abs(black - 0.5) if balance else mine
        candidates.append((score, text))
    candidates.sort(key=lambda item: -item[0])
    return candidates[0][1]


def choose_keep_or_swap(game: Game, level: int, rng: random.Random, budget: Budget) -> str:
    """``swap`` when Black looks better (the chooser then plays Black), else ``keep``."""
    if level <= 1:
        return rng.choice(("keep", "swap"))
    estimates: list[float] = []
    done = 0
    while not estimates or not budget.spent(done):
        estimates.append(black_estimate(game, rng, PLAYOUTS, ANSWERS))
        done += PLAYOUTS * ANSWERS
    return "swap" if sum(estimates) / len(estimates) > 0.5 else "keep"
