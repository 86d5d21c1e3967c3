"""A finished game's review in the AI's worker processes, and the AI's live turns while a review runs.

Run ``python -m benchmarks.bench_review`` to print the table, ``--write`` to publish it into
docs/BENCHMARKS.md, ``benchmarks/results/review.md`` and the README's summary.

Everything goes through the pool the bot runs (``cogs._ai_pool.PooledAi``, ``AI_WORKERS`` worker processes as
deployed by default, ``--workers`` to change it):

1. **A review.** For each game, the first self-play game (level 1, seeds from ``--seed``) that reaches 60 turns
   is cut at its 60th turn and reviewed as ``/veletas review`` reviews a stored game: the pool's review job
   (``PooledAi.review_positions``, one position a job at the review's default time per position), then the
   moves graded (``bot.ai.review.judge``). Reported: the wall time, and the CPU time the workers spent
   (read from ``/proc/<pid>/stat`` before and after, so the benchmark's own process does not count).
2. **The AI's live turns.** The same schedule of AI turns at the default level of a game against the bot
   (both sides played by the AI, Veletas standard and Veloop 8×8 games of ``--plies`` turns each, each turn
   asked through ``PooledAi.choose_turn`` as the bot asks it) is played twice: alone, then while reviews
   run one after another. Reported: each turn's latency (asked to answered), p50 and p95, and the p95 with
   reviews running divided by the p95 alone.

The pool's promise: an AI turn goes ahead of every queued review position, and a review queues at most one
position per worker, so a turn asked during a review waits at most for the positions the workers are already
searching (one each, ``POSITION_SECONDS`` plus replaying the game to it), never for the rest of the review.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks._report import REFERENCE, reference_ms
from bot.ai.review import POSITION_SECONDS, judge
from bot.config import DEFAULT_AI_WORKERS
from bot.puzzles.mine import self_play
from bot.rules.registry import find_game
from cogs._ai_pool import PooledAi

TURNS = 60
"""The length of the reviewed game."""
CPU_TARGET = 20.0
"""The most worker CPU seconds a 60-turn game's review may take."""
LATENCY_TARGET = 1.5
"""The most an AI turn's p95 with a review running may be, in p95s of the same turns alone."""
LIVE_LEVEL = 3
"""The AI's level when a member challenges the bot without naming one (``cogs.challenge.DEFAULT_AI_LEVEL``)."""

REVIEWED: tuple[tuple[str, str, Mapping[str, str]], ...] = (
    ("veletas", "Veletas standard (10×10)", {"variant": "standard"}),
    ("veloop", "Veloop 8×8", {"board": "8"}),
)
LIVE: tuple[tuple[str, Mapping[str, str]], ...] = (
    ("veletas", {"variant": "standard"}),
    ("veloop", {"board": "8"}),
)
GAMES_EACH = 3
"""Live games of each kind in the schedule of AI turns."""


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` has used so far, from ``/proc/<pid>/stat``."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    # The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    fields = stat[stat.rindex(")") + 2 :].split()
    utime, stime = int(fields[11]), int(fields[12])
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


def workers_cpu(pool: PooledAi) -> dict[int, float]:
    """The CPU time of every live worker process the pool has started."""
    found = {}
    for pid in pool.pids:
        with contextlib.suppress(OSError):
            found[pid] = cpu_seconds(pid)
    return found


def spent(before: Mapping[int, float], after: Mapping[int, float]) -> float:
    """The CPU the workers spent between two readings (a worker started in between counts from zero)."""
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile: the smallest value with at least ``fraction`` of the values at or below it."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def long_game(
    game: str, settings: Mapping[str, str], seed: int, turns: int = TURNS, tries: int = 100
) -> tuple[int, tuple[str, ...]]:
    """The first self-play game from ``seed`` on that lasts ``turns`` turns, cut there: (its seed, its turns)."""
    for candidate in range(seed, seed + tries):
        played = self_play(game, settings, candidate)
        if len(played) >= turns:
            return candidate, played[:turns]
    raise RuntimeError(f"no self-play game of {game} reached {turns} turns from seed {seed}")


@dataclass(frozen=True)
class Reviewed:
    board: str
    seed: int
    wall: float
    cpu: float
    graded: int

    def cells(self, reference: float) -> list[str]:
        return [
            f"a {TURNS}-turn game reviewed: {self.board}",
            f"{self.cpu:.1f} s worker CPU ({self.wall:.1f} s wall)",
            f"{self.cpu * 1e3 / reference:,.0f}×",
            "",
            f"≤ {CPU_TARGET:.0f} s CPU",
            "yes" if self.cpu <= CPU_TARGET else "**no**",
        ]


async def review(pool: PooledAi, game: str, settings: Mapping[str, str], turns: tuple[str, ...]) -> int:
    """One review as the bot's review command does it: the pool's review job, then the moves graded."""
    pairs = tuple(sorted(settings.items()))
    evaluations = await pool.review_positions(game, turns, pairs)
    graded = await asyncio.to_thread(judge, game, turns, settings, evaluations)
    return sum(1 for turn in graded.turns if turn.grade is not None)


async def measure_review(
    pool: PooledAi, game: str, board: str, settings: Mapping[str, str], seed: int, turns: tuple[str, ...]
) -> Reviewed:
    before = workers_cpu(pool)
    start = time.perf_counter()
    graded = await review(pool, game, settings, turns)
    wall = time.perf_counter() - start
    return Reviewed(board, seed, wall, spent(before, workers_cpu(pool)), graded)


async def live_turns(pool: PooledAi, plies: int, level: int) -> list[float]:
    """Play the schedule of live games (every turn the AI's, asked through the pool): each turn's latency in s."""
    latencies = []
    for _ in range(GAMES_EACH):
        for game, settings in LIVE:
            state = find_game(game).new(settings)
            while state.phase != "over" and len(state.turns) < plies:
                start = time.perf_counter()
                turn = await pool.choose_turn(state, level)
                latencies.append(time.perf_counter() - start)
                state = state.play(turn)
    return latencies


async def reviews_forever(pool: PooledAi, games: Iterable[tuple[str, Mapping[str, str], tuple[str, ...]]]) -> None:
    """Review these games one after another, round and round, until cancelled."""
    chosen = list(games)
    while True:
        for game, settings, turns in chosen:
            await review(pool, game, settings, turns)


@dataclass(frozen=True)
class Latency:
    alone: list[float]
    with_review: list[float]

    @property
    def added(self) -> float:
        """What a review running added to the p95, in seconds."""
        return percentile(self.with_review, 0.95) - percentile(self.alone, 0.95)

    @property
    def ratio(self) -> float:
        return percentile(self.with_review, 0.95) / percentile(self.alone, 0.95)

    def rows(self, level: int) -> list[list[str]]:
        def figure(values: list[float]) -> str:
            return (
                f"{percentile(values, 0.5):.2f} s / {percentile(values, 0.95):.2f} s "
                f"(max {max(values):.2f} s, {len(values)} turns)"
            )

        return [
            [f"an AI turn (level {level}) in a live game, p50 / p95: alone", figure(self.alone), "", "1", "", ""],
            [
                f"an AI turn (level {level}) in a live game, p50 / p95: a review running",
                figure(self.with_review),
                "",
                f"{self.ratio:.2f}× (p95)",
                f"≤ {LATENCY_TARGET}× (p95)",
                "yes" if self.ratio <= LATENCY_TARGET else "**no**",
            ],
        ]


async def run(workers: int, seed: int, plies: int, level: int) -> tuple[list[Reviewed], Latency, PooledAi]:
    games = []
    for game, board, settings in REVIEWED:
        used, turns = long_game(game, settings, seed)
        games.append((game, board, settings, used, turns))
    pool = PooledAi(workers)
    try:
        # Start the workers (and import the AI in them) before anything is timed, as a running bot has.
        await asyncio.gather(*(pool.choose_turn(find_game("veloop").new({"board": "5"}), 1) for _ in range(workers)))
        reviewed = []
        for game, board, settings, used, turns in games:
            reviewed.append(await measure_review(pool, game, board, settings, used, turns))
            print(f"{board}: {reviewed[-1].cpu:.1f} s CPU, {reviewed[-1].wall:.1f} s wall", file=sys.stderr)
        alone = await live_turns(pool, plies, level)
        print(f"alone: p95 {percentile(alone, 0.95):.2f} s", file=sys.stderr)
        async with asyncio.TaskGroup() as group:
            background = group.create_task(reviews_forever(pool, ((g, s, t) for g, _, s, _, t in games)))
            await asyncio.sleep(0)  # the first review positions are queued before the first turn is asked
            with_review = await live_turns(pool, plies, level)
            background.cancel()
        print(f"with a review: p95 {percentile(with_review, 0.95):.2f} s", file=sys.stderr)
        return reviewed, Latency(alone, with_review), pool
    finally:
        await asyncio.to_thread(pool.close)


def table(
    reviewed: Sequence[Reviewed],
    latency: Latency,
    reference: float,
    *,
    workers: int,
    plies: int,
    level: int,
    replaced: int,
    recycled: int,
    load: str,
) -> str:
    header = ["measure", "figure", "× reference", "× alone", "target", "met"]
    lines = [
        "### A game's review, and the AI's live turns while one runs",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    rows = [row.cells(reference) for row in reviewed] + latency.rows(level)
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines += [
        f"| reference: {REFERENCE}, median | {reference:.1f} ms | 1 | | | |",
        "",
        f"{workers} worker process{'es' if workers != 1 else ''} (`AI_WORKERS`, as deployed by default), through "
        "the pool the bot runs (`cogs._ai_pool.PooledAi`). Each review: the first level-1 self-play game (seeds "
        f"{', '.join(str(row.seed) for row in reviewed)}) that reaches {TURNS} turns, cut there, reviewed as the "
        f"review command does it: {TURNS + 1} positions, one job each, {POSITION_SECONDS} s of search each "
        f"(`POSITION_SECONDS`), then the moves graded ({', '.join(str(row.graded) for row in reviewed)} graded "
        "moves). *worker CPU* is the user and system time of the worker processes, read from `/proc` before and "
        "after; *wall* is the time the member waits for the evaluations and grades (the images are drawn "
        "after). A position's search is capped in wall time, so on a busy machine the workers get less CPU "
        "within it, never more. *× reference* is the worker CPU in reference times. "
        f"The AI's turns: {GAMES_EACH} Veletas standard and {GAMES_EACH} Veloop 8×8 games of {plies} turns, every "
        f"turn the AI's at level {level} (a challenge to the bot's default), each asked through the pool as the "
        "bot asks it and timed from asked to answered; played alone, then again while reviews of the two games "
        "run one after another. *× alone* is the p95 with a review running divided by the p95 alone "
        f"({latency.added * 1e3:+.0f} ms). The "
        "pool's design: a turn goes ahead of every queued review position and a review queues at most one "
        "position per worker, so a turn waits at most for the position a worker is already searching "
        f"({POSITION_SECONDS} s and the replay to it), never for the rest of the review. "
        f"Workers replaced: {replaced}, recycled: {recycled}. Load average (1 / 5 / 15 min) {load}.",
    ]
    return "\n".join(lines)


def arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--workers", type=int, default=DEFAULT_AI_WORKERS, help="worker processes (AI_WORKERS)")
    parser.add_argument("--seed", type=int, default=1, help="the first self-play seed tried for each game")
    parser.add_argument("--plies", type=int, default=12, help="turns of each live game (default 12)")
    parser.add_argument("--write", action="store_true", help="publish the table into docs/BENCHMARKS.md")
    return parser


def load_average() -> str:
    return " / ".join(f"{value:.1f}" for value in os.getloadavg())


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments().parse_args(argv)
    began = load_average()
    reference = reference_ms()
    reviewed, latency, pool = asyncio.run(run(args.workers, args.seed, args.plies, LIVE_LEVEL))
    load = f"{began} when the run began, {load_average()} when it ended"
    markdown = table(
        reviewed,
        latency,
        min(reference, reference_ms()),
        workers=args.workers,
        plies=args.plies,
        level=LIVE_LEVEL,
        replaced=pool.replaced,
        recycled=pool.recycled,
        load=load,
    )
    print(markdown)
    if args.write:
        from benchmarks._report import publish

        command = "python -m benchmarks.bench_review --write"
        if args.workers != DEFAULT_AI_WORKERS or args.plies != 12 or args.seed != 1:
            command = (
                f"python -m benchmarks.bench_review --workers {args.workers} --plies {args.plies} "
                f"--seed {args.seed} --write"
            )
        publish("review", markdown, command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
