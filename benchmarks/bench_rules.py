"""Speed of the rules cores: move listing, random playouts and perft, one section per game.

Run ``python -m benchmarks.bench_rules`` to print a markdown table, ``--write`` to publish it
into docs/BENCHMARKS.md through ``benchmarks._report.publish``. Each game is one function in
``SECTIONS`` returning its rows, so another game adds one function and one entry.
Everything runs on one core in this process; inputs come from fixed seeds, so two runs
measure the same work.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks._report import REFERENCE, reference_ms


@dataclass(frozen=True)
class Row:
    """One measured figure: what, how fast, and the issue's target when there is one."""

    game: str
    measure: str
    figure: float
    unit: str
    target: float | None = None

    def cells(self, reference: float) -> list[str]:
        """The row's cells; ``reference`` is the yardstick's time in ms, measured in the same run.

        The ratio is the work done in one yardstick's time (the figure times the reference): a slow day slows
        both, so the ratio stays comparable across days where the figure does not.
        """
        target = "" if self.target is None else f"≥ {self.target:,.0f}"
        verdict = "" if self.target is None else ("yes" if self.figure >= self.target else "**no**")
        per_reference = self.figure * reference / 1000
        return [self.game, self.measure, f"{self.figure:,.0f} {self.unit}", f"{per_reference:,.0f}", target, verdict]


def _timed(work: Callable[[], int], seconds: float) -> tuple[int, float]:
    """Repeat ``work`` (which returns how many units it did) for about ``seconds``; best of three rounds.

    The best round is reported because other processes on a shared machine only ever slow a
    round down; the fastest one is the closest to what the code itself costs.
    """
    best_rate = 0.0
    best = (0, 1.0)
    for _ in range(3):
        units = 0
        start = time.perf_counter()
        elapsed = 0.0
        while elapsed < seconds / 3:
            units += work()
            elapsed = time.perf_counter() - start
        if units / elapsed > best_rate:
            best_rate = units / elapsed
            best = (units, elapsed)
    return best


def veletas_section(seconds: float) -> list[Row]:
    """Veletas: the three figures issue 2 asks for, on the standard board in the current edition."""
    from bot.rules.veletas import FastBoard, Position, perft, random_setup

    rng = random.Random(2013)

    # Positions with 7 unclaimed shooters and exactly 30 stones, reached by random play from random setups.
    listing: list[Position] = []
    while len(listing) < 40:
        pos = random_setup("standard", "current", rng).position
        while pos.winner is None and sum(1 for p in pos.pieces().values() if p in "bw") < 30:
            pos = pos.play(rng.choice(pos.legal_moves()))
        if len(pos.unclaimed()) == 7 and sum(1 for p in pos.pieces().values() if p in "bw") == 30:
            listing.append(pos)

    def list_all() -> int:
        return sum(len(p.legal_moves()) for p in listing)

    moves, elapsed = _timed(list_all, seconds)
    rows = [Row("veletas", "legal moves listed (7 unclaimed shooters, 30 stones)", moves / elapsed, "moves/s", 5e6)]

    starts: list[FastBoard] = [random_setup("standard", "current", rng).position.fast() for _ in range(200)]

    def playouts() -> int:
        rnd = rng.random
        for start in starts:
            start.copy().random_playout(rnd)
        return len(starts)

    done, elapsed = _timed(playouts, seconds)
    rows.append(Row("veletas", "random playouts from random setups", done / elapsed, "playouts/s", 3e3))

    sample = Position.from_string("10/10/3S6/6S3/2b7/4S1S3/1S8/5w1S2/2S7/10 b")

    def perft2() -> int:
        return perft(sample, 2)

    leaves, elapsed = _timed(perft2, seconds)
    rows.append(Row("veletas", "perft depth 2 (the NOTATION.md sample position)", leaves / elapsed, "leaves/s"))
    return rows


def veloop_section(seconds: float) -> list[Row]:
    """Veloop: random playouts start to end on every board (issue 7 sets 340/s on 8×8, protocol 122), and perft."""
    from bot.rules.veloop import Position, perft, playout

    cases: tuple[tuple[int, str, float | None], ...] = (
        (8, "122", 340.0),
        (8, "alternating", None),
        (5, "122", None),
        (6, "122", None),
        (12, "122", None),
    )
    rows: list[Row] = []
    for size, protocol, target in cases:
        start = Position.start(size, protocol)
        rng = random.Random(2022)
        plies = [0, 0]

        def one(start: Position = start, rng: random.Random = rng, plies: list[int] = plies) -> int:
            plies[0] += playout(start, rng)[1]
            plies[1] += 1
            return 1

        done, elapsed = _timed(one, seconds)
        mean = plies[0] / plies[1]
        what = f"random playouts, {size}×{size}, protocol {protocol}, start to end (mean {mean:.0f} plies)"
        rows.append(Row("veloop", what, done / elapsed, "playouts/s", target))

    opening = Position.start()

    def perft5() -> int:
        return perft(opening, 5)

    leaves, elapsed = _timed(perft5, seconds)
    rows.append(Row("veloop", "perft depth 5 from the 8×8 start, protocol 122", leaves / elapsed, "leaves/s"))
    return rows


SECTIONS: dict[str, Callable[[float], list[Row]]] = {
    "veletas": veletas_section,
    "veloop": veloop_section,
}


def table(rows: list[Row], reference: float) -> str:
    lines = [
        "| game | measure | figure | per reference | target | met |",
        "|---|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(row.cells(reference)) + " |" for row in rows]
    lines.append(f"| | reference: {REFERENCE}, median | {reference:.1f} ms | 1 | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", choices=sorted(SECTIONS), action="append", help="only these games (repeatable)")
    parser.add_argument("--seconds", type=float, default=6.0, help="time per measure (default 6)")
    parser.add_argument("--write", action="store_true", help="publish the table into docs/BENCHMARKS.md")
    args = parser.parse_args(argv)
    reference = reference_ms()
    rows: list[Row] = []
    for name in args.game or list(SECTIONS):
        rows += SECTIONS[name](args.seconds)
    # The yardstick before and after: the faster one is the closer to the machine's own speed, as for the rows.
    markdown = table(rows, min(reference, reference_ms()))
    print(markdown)
    if args.write:
        from benchmarks._report import publish

        publish("rules", markdown, "python -m benchmarks.bench_rules --write")
    return 0


if __name__ == "__main__":
    sys.exit(main())
