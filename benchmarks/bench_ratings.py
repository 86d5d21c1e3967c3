"""Speed of the ratings arithmetic: rebuilding every rating from stored games, and one game's update.

``python -m benchmarks.bench_ratings`` prints the table; ``--write`` publishes it into the README.
The games are made up from a fixed seed (2,000 players, two servers, both games' pools), so two
runs measure the same work. Beside each figure is its ratio to the house yardstick measured in
the same run (``benchmarks._report.reference_ms``), so a slow day shows as such.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from benchmarks._report import REFERENCE, publish, reference_ms
from bot.ratings import DAY, RatedGame, Rating, pools_for, rate_game, rebuild

GAMES = 100_000
PLAYERS = 2_000


def made_up_games(count: int, seed: int = 1) -> list[RatedGame]:
    rng = random.Random(seed)
    settings = [
        ("veletas", {"variant": "standard", "rules": "current"}),
        ("veletas", {"variant": "small", "rules": "current"}),
        ("veloop", {"board": "8", "protocol": "122"}),
    ]
    games = []
    when = 0.0
    for game_id in range(1, count + 1):
        first, second = rng.sample(range(PLAYERS), 2)
        game, chosen = rng.choice(settings)
        when += rng.expovariate(1 / 300)
        pools = pools_for(rng.choice((101, 202)), game, chosen)
        games.append(RatedGame(game_id, pools, first, second, rng.choice((0.0, 0.5, 1.0)), when))
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="publish into the README and benchmarks/results")
    parser.add_argument("--games", type=int, default=GAMES)
    args = parser.parse_args()
    reference = reference_ms()
    games = made_up_games(args.games)
    start = time.perf_counter()
    table = rebuild(games)
    rebuild_s = time.perf_counter() - start
    updates = []
    a, b = Rating(1620, 80), Rating(1480, 140)
    for _ in range(2000):
        t = time.perf_counter()
        rate_game(a, b, 1.0, when=DAY)
        updates.append((time.perf_counter() - t) * 1e6)
    update_us = statistics.median(updates)
    reference_after = reference_ms()
    ref = min(reference, reference_after)
    rows = [
        "| measure | figure | × reference | target | met |",
        "|---|---|---|---|---|",
        f"| rebuild every rating from {len(games):,} stored games ({len(table):,} pool ratings, each game in "
        f"its server's and the global pool) | {rebuild_s:.1f} s | {rebuild_s * 1e3 / ref:,.0f} | ≤ 30 s | "
        f"{'yes' if rebuild_s <= 30 else '**no**'} |",
        f"| one game's update (both players, one pool), median | {update_us:.0f} µs "
        f"| {update_us / 1e3 / ref:.3f} | | |",
        f"| reference: {REFERENCE}, median (before / after) | {reference:.1f} ms / {reference_after:.1f} ms | 1 | | |",
    ]
    markdown = "### Ratings\n\n" + "\n".join(rows) + "\n\nPure arithmetic in one process (`bot/ratings.py`); "
    markdown += "the store's rebuild adds reading the games and writing the table."
    print(markdown)
    if args.write:
        publish("ratings", markdown, "python -m benchmarks.bench_ratings --write")


if __name__ == "__main__":
    main()
