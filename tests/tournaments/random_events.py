"""Random Swiss events with every kind of round a player can have, for property tests of what is computed
from a tournament (standings, the crosstable)."""

from __future__ import annotations

import random

import tourney_oracle as oracle

from bot.tournaments import Tournament, TournamentError, pair_swiss, seed_by_rating


def random_swiss(n: int, seed: int) -> Tournament:
    """A Swiss of ``n`` players played from ``seed``: games, forfeits (single and double: no-shows), byes of
    every worth, withdrawals and late entries. Stops early only when no pairing exists at all."""
    rng = random.Random(seed)
    rounds = max(2, min(5, (n - 1) // 2))
    t = Tournament("swiss", seed_by_rating((i + 1, rng.randint(1000, 2200)) for i in range(n)), rounds + 1)
    extra = 100
    for _ in range(rounds):
        number = len(t.rounds) + 1
        active = [p.id for p in t.players if p.active_in(number)]
        byes = {}
        if len(active) > 4 and rng.random() < 0.5:
            byes = {rng.choice(active): rng.choice(["half", "zero", "full"])}
        if len(active) > 5 and rng.random() < 0.3:
            t = t.withdraw(rng.choice([p for p in active if p not in byes]))
        if rng.random() < 0.3 and len(t.rounds) <= t.total_rounds // 2:
            extra += 1
            t = t.join_late(extra, rng.randint(1000, 2200))
        try:
            rnd = pair_swiss(t, byes)  # type: ignore[arg-type]
        except TournamentError:
            # A small field thinned by withdrawals can run out of opponents; the engine may say so only then.
            assert not oracle.pairable(t, byes)
            break
        t = t.with_round(rnd)
        if rnd.games and rng.random() < 0.4:
            game = rng.choice(rnd.games)
            t = t.no_show(game.white)
            if rng.random() < 0.3:
                t = t.no_show(game.black)  # neither came: a double forfeit
        t = oracle.play_round(t, rng)
    return t
