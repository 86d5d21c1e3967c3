"""Speed of ratings: rebuilding every rating from stored games, a leaderboard page, a profile chart.

``python -m benchmarks.bench_ratings`` prints the table; ``--write`` publishes it into docs/BENCHMARKS.md.
The games are made up from a fixed seed (2,000 players, two servers, both games' pools), so two
runs measure the same work. The store's figures use a real SQLite file: ``--games`` finished rated
games written straight into it and rebuilt by ``Store.rebuild_ratings`` (reading the games, rating
them, writing both tables in one transaction), and a leaderboard of 10,000 rated players in one
server, each page read and worded as ``/veloop leaderboard`` answers it. Beside each figure is its
ratio to the house yardstick measured in the same run (``benchmarks._report.reference_ms``), so a
slow day shows as such.
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


def store_figures(games: list[RatedGame], players: int = 10_000) -> dict[str, float]:
    """The store's rebuild of ``games`` and leaderboard pages over ``players`` rated players, on a real file."""
    import asyncio
    import json
    import sqlite3
    import tempfile
    from pathlib import Path
    from types import SimpleNamespace
    from typing import cast

    from bot.client import VeletasBot
    from bot.i18n import words
    from bot.store import Store
    from cogs._leaderboard import leaderboard_page
    from cogs.veloop import TABLE

    async def run(path: Path) -> dict[str, float]:
        await (await Store.open(path)).close()
        db = sqlite3.connect(path)
        with db:
            rows = []
            for number, game in enumerate(games, start=1):  # rated in this order (``rating_seq``)
                pool = game.pools[0]
                settings = json.dumps(
                    dict(part.split("=") for part in pool.settings.split(",")), sort_keys=True, separators=(",", ":")
                )
                winner = game.first if game.first_score == 1.0 else game.second if game.first_score == 0.0 else None
                rows.append(
                    (
                        game.game_id,
                        pool.scope,
                        pool.game,
                        settings,
                        game.first,
                        game.second,
                        winner,
                        game.ended_at,
                        number,
                    )
                )
            db.executemany(
                "INSERT INTO games (id, guild_id, channel_id, origin_channel_id, status, game, settings, place, "
                "challenger_id, opponent_id, winner_id, created_at, updated_at, ended_at, rated, rating_seq) "
                "VALUES (?1, ?2, 1, 1, 'finished', ?3, ?4, 'thread', ?5, ?6, ?7, ?8, ?8, ?8, 1, ?9)",
                rows,
            )
            rng = random.Random(3)
            db.executemany(
                "INSERT INTO ratings (scope, game, settings, user_id, value, deviation, volatility, games, "
                "last_played, wins, losses, draws) VALUES (7, 'veloop', 'board=8,protocol=122', ?, ?, ?, 0.06, "
                "20, 0, 10, 8, 2)",
                [(100_000 + i, rng.gauss(1500, 250), rng.uniform(45, 350)) for i in range(players)],
            )
        db.close()
        store = await Store.open(path)
        try:
            start = time.perf_counter()
            rebuilt = await store.rebuild_ratings()
            rebuild_s = time.perf_counter() - start
            # The rebuild replaced the leaderboard players: put them back for the pages.
            db = sqlite3.connect(path)
            with db:
                rng = random.Random(3)
                db.executemany(
                    "INSERT INTO ratings (scope, game, settings, user_id, value, deviation, volatility, games, "
                    "last_played, wins, losses, draws) VALUES (7, 'veloop', 'board=8,protocol=122', ?, ?, ?, 0.06, "
                    "20, 0, 10, 8, 2)",
                    [(100_000 + i, rng.gauss(1500, 250), rng.uniform(45, 350)) for i in range(players)],
                )
            db.close()
            # No server in the cache: membership is not asked of Discord here (it is cached for an hour in the bot).
            bot = cast(VeletasBot, SimpleNamespace(store=store, get_guild=lambda _id: None))
            settings = {"board": "8", "protocol": "122"}
            pages = []
            rng = random.Random(4)
            for _ in range(300):
                page = rng.randrange(players // 10)
                t = time.perf_counter()
                await leaderboard_page(bot, 7, TABLE, settings, page, rng.random() < 0.5, words("en"))
                pages.append((time.perf_counter() - t) * 1e3)
            pages.sort()
        finally:
            await store.close()
        return {
            "rebuild_s": rebuild_s,
            "rebuilt": float(rebuilt),
            "page_p50": pages[len(pages) // 2],
            "page_p99": pages[int(len(pages) * 0.99)],
        }

    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(run(Path(tmp) / "ratings.sqlite3"))


def chart_ms() -> float:
    from bot.render.chart import rating_chart_png

    rng = random.Random(5)
    points, value, deviation = [], 1500.0, 350.0
    for _ in range(200):
        value += rng.uniform(-30, 32)
        deviation = max(50.0, deviation * 0.97)
        points.append((value, deviation))
    rating_chart_png(points, title="warm-up", theme="dark")
    times = []
    for _ in range(30):
        t = time.perf_counter()
        rating_chart_png(points, title="alice · Veloop 8×8 board, protocol 122", theme="dark")
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="publish into docs/BENCHMARKS.md and benchmarks/results")
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
    stored = store_figures(games)
    chart = chart_ms()
    reference_after = reference_ms()
    ref = min(reference, reference_after)
    rows = [
        "| measure | figure | × reference | target | met |",
        "|---|---|---|---|---|",
        f"| rebuild every rating from {len(games):,} stored games ({len(table):,} pool ratings, each game in "
        f"its server's and the global pool) | {rebuild_s:.1f} s | {rebuild_s * 1e3 / ref:,.0f} | ≤ 30 s | "
        f"{'yes' if rebuild_s <= 30 else '**no**'} |",
        f"| the same through the store: read {stored['rebuilt']:,.0f} rated games from SQLite, rate them, write "
        f"ratings and rating changes in one transaction | {stored['rebuild_s']:.1f} s | "
        f"{stored['rebuild_s'] * 1e3 / ref:,.0f} | ≤ 30 s | {'yes' if stored['rebuild_s'] <= 30 else '**no**'} |",
        f"| a leaderboard page (10 of 10,000 rated players in one server, read and worded), p50 / p99 | "
        f"{stored['page_p50']:.1f} ms / {stored['page_p99']:.1f} ms | {stored['page_p99'] / ref:.2f} (p99) | "
        f"p99 ≤ 100 ms | {'yes' if stored['page_p99'] <= 100 else '**no**'} |",
        f"| the profile's rating chart (200 games), median | {chart:.1f} ms | {chart / ref:.2f} | ≤ 50 ms | "
        f"{'yes' if chart <= 50 else '**no**'} |",
        f"| one game's update (both players, one pool), median | {update_us:.0f} µs "
        f"| {update_us / 1e3 / ref:.3f} | | |",
        f"| reference: {REFERENCE}, median (before / after) | {reference:.1f} ms / {reference_after:.1f} ms | 1 | | |",
    ]
    markdown = "### Ratings\n\n" + "\n".join(rows) + "\n\nThe first row is the pure arithmetic (`bot/ratings.py`); "
    markdown += "the store's rows use a real SQLite file, as `python -m bot ratings rebuild` and the commands do."
    print(markdown)
    if args.write:
        publish("ratings", markdown, "python -m benchmarks.bench_ratings --write")


if __name__ == "__main__":
    main()
