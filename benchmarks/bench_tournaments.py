"""Speed of the tournament engine: pairing a Swiss round (FIDE Dutch, py4swiss) and standings with tie-breaks.

Run ``python -m benchmarks.bench_tournaments`` to print a markdown table, ``--write`` to publish it
into the README through ``benchmarks._report.publish``. Every figure comes with a reference measured
in the same run, a fixed piece of plain Python (sorting 500 tuples), and the ratio between the two: on
a slow or busy day both grow, the ratio stays, so a regression shows as a ratio, not as a bad day.

The fields are built from fixed seeds. Earlier rounds are paired by a quick stand-in (neighbours
by score, no rematch), since only the round being measured needs the real engine and the history
only has to be a valid one; results follow the ratings.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.tournaments import Bye, Game, Round, Tournament, pair_swiss, seed_by_rating, standings

PAIR_TARGET_S = 2.0  # a 500-player Swiss round
STANDINGS_TARGET_S = 0.2  # standings with tie-breaks, 500 players


@dataclass(frozen=True)
class Row:
    measure: str
    seconds: float
    reference: float
    target: float | None = None

    def cells(self) -> list[str]:
        target = "" if self.target is None else f"≤ {_fmt(self.target)}"
        met = "" if self.target is None else ("yes" if self.seconds <= self.target else "**no**")
        return [self.measure, _fmt(self.seconds), f"{self.seconds / self.reference:,.0f}×", target, met]


def _fmt(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms" if seconds < 1 else f"{seconds:,.2f} s"


def best_of(work: Callable[[], object], repeats: int) -> float:
    """The fastest of ``repeats`` runs: other processes only ever slow a run down."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def reference_seconds() -> float:
    """Sorting 500 random (float, int) tuples, best of many: the yardstick every row is divided by."""
    rng = random.Random(0)
    data = [(rng.random(), i) for i in range(500)]
    return best_of(lambda: sorted(data), 2000)


def _result(rng: random.Random, white: int, black: int) -> str:
    p_white = 1 / (1 + 10 ** ((black - white) / 400))
    return "1/2-1/2" if rng.random() < 0.2 else ("1-0" if rng.random() < p_white else "0-1")


def field(n: int, rounds: int, total: int, seed: int = 500) -> Tournament:
    """A Swiss of ``n`` players after ``rounds`` rounds with results, paired by the quick stand-in."""
    rng = random.Random(seed)
    t = Tournament("swiss", seed_by_rating((i + 1, rng.randint(1000, 2400)) for i in range(n)), total)
    rating = {p.id: p.rating for p in t.players}
    met: set[frozenset[int]] = set()
    for number in range(1, rounds + 1):
        points = t.points()
        order = sorted((p.id for p in t.players), key=lambda pid: (-points[pid], pid))
        games: list[Game] = []
        byes: tuple[Bye, ...] = ()
        if len(order) % 2:
            byes = (Bye(order.pop(), "pairing"),)
        while order:
            a = order.pop(0)
            b = next((x for x in order if frozenset((a, x)) not in met), order[0])
            order.remove(b)
            met.add(frozenset((a, b)))
            white, black = (a, b) if rng.random() < 0.5 else (b, a)
            games.append(Game(white, black, _result(rng, rating[white], rating[black])))  # type: ignore[arg-type]
        t = t.with_round(Round(number, tuple(games), byes))
    return t


def swiss_rows(reference: float, quick: bool) -> list[Row]:
    rows: list[Row] = []
    sizes = (100, 200, 500) if not quick else (100,)
    for n in sizes:
        target = PAIR_TARGET_S if n == 500 else None
        for done in (0, 4):
            t = field(n, done, 9)
            seconds = best_of(lambda t=t: pair_swiss(t), 1 if n >= 500 else 3)
            what = f"pair round {done + 1} of a {n}-player Swiss (Dutch, py4swiss)"
            rows.append(Row(what, seconds, reference, target))
    return rows


def standings_rows(reference: float, quick: bool) -> list[Row]:
    rows: list[Row] = []
    for n in (100, 500):
        t = field(n, 7, 7)
        seconds = best_of(lambda t=t: standings(t), 3 if quick else 7)
        what = f"standings with BH-C1, BH, SB, head-to-head, wins: {n} players, 7 rounds"
        rows.append(Row(what, seconds, reference, STANDINGS_TARGET_S if n == 500 else None))
    return rows


def table(rows: list[Row], reference: float) -> str:
    lines = ["| measure | time | × reference | target | met |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    lines.append(f"| reference: sort 500 (float, int) tuples | {reference * 1e6:,.1f} µs | 1× |  |  |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="skip the 500-player pairings (they take minutes)")
    parser.add_argument("--write", action="store_true", help="publish the table into the README")
    args = parser.parse_args(argv)
    before = reference_seconds()
    rows = standings_rows(before, args.quick) + swiss_rows(before, args.quick)
    reference = min(before, reference_seconds())
    rows = [Row(r.measure, r.seconds, reference, r.target) for r in rows]
    markdown = table(rows, reference)
    print(markdown)
    if args.write:
        from benchmarks._report import publish

        publish("tournaments", markdown, "python -m benchmarks.bench_tournaments --write")
    return 0


if __name__ == "__main__":
    sys.exit(main())
