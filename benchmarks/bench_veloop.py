"""Veloop rules speed: random playouts to the end, and perft.

Run ``python -m benchmarks.bench_veloop`` (add ``--write`` to publish the table into the
README). Each figure is the best of a few rounds on one core, so that another process
stealing the CPU for a moment does not decide the number; the playouts are uniformly random
legal moves from the start to the end of the game, the work unit of the AI.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from bot.rules.veloop import Position, perft, playout

PLAYOUT_CASES = ((8, "122"), (8, "alternating"), (5, "122"), (6, "122"), (12, "122"))
PERFT_DEPTH = 7


def best_rate(work: Callable[[], int], seconds: float, rounds: int) -> float:
    """Units per second of the best round; each round repeats `work` for about `seconds`."""
    best = 0.0
    for _ in range(rounds):
        done = 0
        start = time.perf_counter()
        elapsed = 0.0
        while elapsed < seconds:
            done += work()
            elapsed = time.perf_counter() - start
        best = max(best, done / elapsed)
    return best


def playout_figures(size: int, protocol: str, seconds: float, rounds: int) -> tuple[float, float]:
    """Playouts per second and the mean plies per playout."""
    start = Position.start(size, protocol)
    rng = random.Random(1)
    plies = [0, 0]

    def one() -> int:
        _, n = playout(start, rng)
        plies[0] += n
        plies[1] += 1
        return 1

    rate = best_rate(one, seconds, rounds)
    return rate, plies[0] / plies[1]


def perft_figures(depth: int, rounds: int) -> tuple[int, float]:
    """Leaves of perft(depth) from the 8×8 start and leaves per second (best round)."""
    start = Position.start()
    best = float("inf")
    count = 0
    for _ in range(rounds):
        t0 = time.perf_counter()
        count = perft(start, depth)
        best = min(best, time.perf_counter() - t0)
    return count, count / best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one measuring round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per figure; the best one counts")
    parser.add_argument("--write", action="store_true", help="publish the table into the README")
    args = parser.parse_args(argv)

    rows = ["| measure | figure |", "|---|---|"]
    for size, protocol in PLAYOUT_CASES:
        rate, mean = playout_figures(size, protocol, args.seconds, args.rounds)
        rows.append(
            f"| Veloop random playouts, {size}×{size}, protocol {protocol} (mean {mean:.0f} plies) "
            f"| {rate:,.0f} playouts/s |"
        )
        print(rows[-1], file=sys.stderr)
    count, speed = perft_figures(PERFT_DEPTH, args.rounds)
    rows.append(f"| Veloop perft({PERFT_DEPTH}) from the 8×8 start ({count:,} leaves) | {speed:,.0f} leaves/s |")
    table = "\n".join(rows)
    print(table)
    if args.write:
        from benchmarks._report import publish

        command = "python -m benchmarks.bench_veloop --write"
        publish("veloop", table, command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
