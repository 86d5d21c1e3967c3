"""Speed of the Veloop rules core: random playouts to the end of the game, and perft.

Run ``python -m benchmarks.bench_veloop`` to print a markdown table, ``--write`` to publish
it into the README through ``benchmarks._report.publish``. Each figure is the best of a
few rounds on one core, because other processes on a shared machine only ever slow a round
down. Playouts pick uniformly random legal moves from the start until the game ends, the
work unit of a playout-based AI; seeds are fixed, so two runs measure the same games.
``measure`` returns the rows for anyone assembling a wider table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from typing import NamedTuple

from bot.rules.veloop import Position, perft, playout

# (board, protocol, target playouts/s): issue 7 asks for 340/s on 8×8 under protocol 122.
PLAYOUT_CASES: tuple[tuple[int, str, float | None], ...] = (
    (8, "122", 340.0),
    (8, "alternating", None),
    (5, "122", None),
    (6, "122", None),
    (12, "122", None),
)
PERFT_DEPTH = 7


class Figure(NamedTuple):
    """One measured figure and, when the issue sets one, its target."""

    measure: str
    figure: float
    unit: str
    target: float | None = None


def best_rate(work: Callable[[], int], seconds: float, rounds: int) -> float:
    """Units per second of the best round; each round repeats `work` (which returns its units) for `seconds`."""
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


def playout_figure(size: int, protocol: str, target: float | None, seconds: float, rounds: int) -> Figure:
    start = Position.start(size, protocol)
    rng = random.Random(2022)
    plies = [0, 0]

    def one() -> int:
        _, n = playout(start, rng)
        plies[0] += n
        plies[1] += 1
        return 1

    rate = best_rate(one, seconds, rounds)
    mean = plies[0] / plies[1]
    what = f"random playouts, {size}×{size}, protocol {protocol}, start to end (mean {mean:.0f} plies)"
    return Figure(what, rate, "playouts/s", target)


def perft_figure(depth: int, rounds: int) -> Figure:
    start = Position.start()
    best = float("inf")
    count = 0
    for _ in range(rounds):
        t0 = time.perf_counter()
        count = perft(start, depth)
        best = min(best, time.perf_counter() - t0)
    return Figure(f"perft({depth}) from the 8×8 start, protocol 122 ({count:,} leaves)", count / best, "leaves/s")


def measure(seconds: float = 2.0, rounds: int = 3) -> list[Figure]:
    figures = [playout_figure(size, protocol, target, seconds, rounds) for size, protocol, target in PLAYOUT_CASES]
    figures.append(perft_figure(PERFT_DEPTH, rounds))
    return figures


def table(figures: list[Figure]) -> str:
    lines = ["| Veloop | figure | target | met |", "|---|---|---|---|"]
    for f in figures:
        target = "" if f.target is None else f"≥ {f.target:,.0f}"
        met = "" if f.target is None else ("yes" if f.figure >= f.target else "**no**")
        lines.append(f"| {f.measure} | {f.figure:,.0f} {f.unit} | {target} | {met} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one measuring round (default 2)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per figure; the best counts (default 3)")
    parser.add_argument("--write", action="store_true", help="publish the table into the README")
    args = parser.parse_args(argv)
    markdown = table(measure(args.seconds, args.rounds))
    print(markdown)
    if args.write:
        from benchmarks._report import publish

        publish("veloop", markdown, "python -m benchmarks.bench_veloop --write")
    return 0


if __name__ == "__main__":
    sys.exit(main())
