"""The scheduler under load: 100,000 pending deadlines, 1,000 of them falling due within one minute.

Run ``python -m benchmarks.bench_clock`` to print a markdown table, ``--write`` to publish it into
docs/BENCHMARKS.md. A real SQLite file holds ``--games`` games in play, each with a live clock running and
its deadline row in the ``due`` table; ``--due`` of those deadlines fall due at random moments over
the next ``--window`` seconds, the others days later. The real scheduler (``bot.scheduler``) runs
on the real clock with the real action, ``Store.flag`` (the game is lost on time in one
transaction), and the figure is how late each action came after its deadline. The query plans
of the scheduler's two queries are printed as SQLite reports them, and the resident memory is this
process's (the store and the scheduler live here, as in the bot).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._report import REFERENCE, reference_ms

CHALLENGER, OPPONENT, GUILD = 11, 22, 1


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def populate(path: Path, games: int, due: int, window: float, start: float, seed: int = 1) -> dict[int, float]:
    """``games`` Veloop games in play with a 1-minute clock; returns the deadlines falling due in the window."""
    rng = random.Random(seed)
    soon = set(rng.sample(range(1, games + 1), due))
    deadlines: dict[int, float] = {}
    rows = []
    for game_id in range(1, games + 1):
        deadline = start + rng.uniform(5.0, window) if game_id in soon else start + rng.uniform(2, 30) * 86_400
        if game_id in soon:
            deadlines[game_id] = deadline
        rows.append((game_id, deadline))
    db = sqlite3.connect(path)
    with db:
        db.executemany(
            "INSERT INTO games (id, guild_id, channel_id, origin_channel_id, status, game, settings, place, "
            "challenger_id, opponent_id, created_at, updated_at, version, board_version, posted_version, "
            "time_control, clock_first, clock_second, clock_running, clock_since) "
            "VALUES (?, ?, ?, ?, 'active', 'veloop', '{\"board\":\"8\",\"protocol\":\"122\"}', 'here', ?, ?, ?, ?, "
            "1, 1, 1, '1+0', 60.0, 60.0, 'first', ?)",
            [(g, GUILD, 10_000 + g, 10_000 + g, CHALLENGER, OPPONENT, start, start, d - 60.0) for g, d in rows],
        )
        db.executemany("INSERT INTO due (kind, game_id, key, due_at) VALUES ('deadline', ?, '', ?)", rows)
    db.close()
    return deadlines


def plans(path: Path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        found = []
        for sql in (
            "SELECT due_at FROM due ORDER BY due_at LIMIT 1",
            "SELECT id, kind, game_id, key, due_at FROM due WHERE due_at <= 0 ORDER BY due_at LIMIT 50",
        ):
            found.append(" ".join(str(row[-1]) for row in db.execute(f"EXPLAIN QUERY PLAN {sql}")))
        return found
    finally:
        db.close()


async def measure(games: int, due: int, window: float) -> dict[str, float | list[str]]:
    from bot.scheduler import Scheduler
    from bot.store import Store
    from bot.store.values import DueRow

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "clock.sqlite3"
        await (await Store.open(path)).close()
        start = time.time() + 2.0
        deadlines = populate(path, games, due, window, start)
        store = await Store.open(path)
        late: dict[int, float] = {}
        done = asyncio.Event()

        async def on_deadline(row: DueRow) -> None:
            ended = await store.flag(row.game_id, due_id=row.id)
            if ended is not None:
                late[row.game_id] = time.time() - deadlines[row.game_id]
                if len(late) == len(deadlines):
                    done.set()

        scheduler = Scheduler(store, {"deadline": on_deadline})
        rss_before = rss_mb()
        task = asyncio.create_task(scheduler.run())
        try:
            await asyncio.wait_for(done.wait(), timeout=window + 60)
        finally:
            task.cancel()
        rss = rss_mb()
        await store.close()
        query_plans = plans(path)
    ordered = sorted(late.values())
    return {
        "acted": float(len(late)),
        "max": ordered[-1],
        "p99": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
        "p50": ordered[len(ordered) // 2],
        "rss": rss,
        "rss_before": rss_before,
        "plans": query_plans,
    }


def table(figures: dict[str, float | list[str]], args: argparse.Namespace, reference: float) -> str:
    acted, worst, p99, p50 = (float(figures[k]) for k in ("acted", "max", "p99", "p50"))  # type: ignore[arg-type]
    rss = float(figures["rss"])  # type: ignore[arg-type]
    plans = list(figures["plans"])  # type: ignore[arg-type]
    ok_time = acted == args.due and worst <= 2.0
    rows = [
        "| measure | result | × ref | target | met |",
        "|---|---|---|---|---|",
        f"| deadlines acted on (games lost on time), of {args.due:,} falling due within {args.window:.0f} s among "
        f"{args.games:,} pending | {acted:,.0f} | | all | {'yes' if acted == args.due else '**no**'} |",
        f"| lateness after the deadline, p50 / p99 / max | {p50 * 1000:.0f} ms / {p99 * 1000:.0f} ms / "
        f"{worst * 1000:.0f} ms | {worst * 1000 / reference:.1f}× (max) | every one ≤ 2 s | "
        f"{'yes' if ok_time else '**no**'} |",
        f"| resident memory of the process (store and scheduler) | {rss:.0f} MB | | ≤ 200 MB | "
        f"{'yes' if rss <= 200 else '**no**'} |",
        f"| reference: {REFERENCE}, median | {reference:.1f} ms | 1.00× | | |",
    ]
    index_ok = all("INDEX due_by_time" in plan and "TEMP B-TREE" not in plan for plan in plans)
    note = (
        f"Query plans (SQLite's EXPLAIN QUERY PLAN): next due `{plans[0]}`; rows due `{plans[1]}` — "
        f"{'both go down the due_by_time index' if index_ok else '**not both on the index**'}. "
        "Each action is `Store.flag`, the same transaction the bot runs (the game ends on time); posting the "
        "board to Discord is not part of this figure."
    )
    return "\n".join(rows) + "\n\n" + note


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=100_000, help="pending deadlines (default 100,000)")
    parser.add_argument("--due", type=int, default=1_000, help="of which falling due in the window (default 1,000)")
    parser.add_argument("--window", type=float, default=60.0, help="seconds they fall due over (default 60)")
    parser.add_argument("--write", action="store_true", help="publish the table into docs/BENCHMARKS.md")
    args = parser.parse_args(argv)
    reference = reference_ms()
    figures = asyncio.run(measure(args.games, args.due, args.window))
    markdown = table(figures, args, min(reference, reference_ms()))
    print(markdown)
    if args.write:
        from benchmarks._report import publish

        publish("clock", markdown, "python -m benchmarks.bench_clock --write")
    return 0


if __name__ == "__main__":
    sys.exit(main())
