"""Strength of the AI levels: paired matches between neighbouring levels, as issue 6 asks for them.

Run ``python -m benchmarks.bench_ai`` to print the markdown table, ``--write`` to publish it
into the README through ``benchmarks._report.publish``. Every row is the same match that
``python -m bot.ai match A B --games N --variant V --seed S`` plays: random setups, each played
with both colours, moves chosen with seeds so a rerun replays the same games. ``--jobs 2``
plays two games at once. The full table (40 games a row) takes a long while on two cores;
``--games 2`` is a smoke run that only shows the machinery works.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bot.ai.match import Outcome, Score, match


@dataclass(frozen=True)
class Row:
    """One match of the table and the win rate the issue expects of its stronger side."""

    level_a: int
    level_b: int
    variant: str
    target: float


ROWS: tuple[Row, ...] = (
    Row(2, 1, "medium", 0.65),
    Row(3, 2, "medium", 0.65),
    Row(4, 3, "medium", 0.65),
    Row(5, 4, "medium", 0.65),
    Row(5, 3, "medium", 0.85),
    Row(3, 2, "standard", 0.65),
)


@dataclass(frozen=True)
class Measured:
    row: Row
    score: Score
    outcomes: list[Outcome]
    seconds: float

    def cells(self) -> list[str]:
        lo, hi = self.score.interval()
        elo_lo, elo_hi = self.score.elo_interval()
        moves_a = sum((o.moves + (1 if o.pairing.a_black else 0)) // 2 for o in self.outcomes)
        moves_b = sum(o.moves for o in self.outcomes) - moves_a
        think_a = sum(o.seconds_a for o in self.outcomes) / max(1, moves_a)
        think_b = sum(o.seconds_b for o in self.outcomes) / max(1, moves_b)
        verdict = "yes" if lo >= self.row.target else ("likely" if self.score.rate >= self.row.target else "**no**")
        return [
            f"{self.row.level_a} vs {self.row.level_b}",
            self.row.variant,
            str(self.score.games),
            f"{self.score.rate:.0%}",
            f"{lo:.0%}–{hi:.0%}",
            f"{self.score.elo():+.0f} ({elo_lo:+.0f} to {elo_hi:+.0f})",
            f"{think_a:.2f} / {think_b:.2f}",
            f"≥ {self.row.target:.0%}",
            verdict,
        ]


HEADER = [
    "match",
    "board",
    "games",
    "win rate",
    "95% CI",
    "Elo (95% CI)",
    "s/move",
    "target",
    "met",
]


def table(measured: Sequence[Measured], games: int, seed: int) -> str:
    lines = [
        "### AI strength (paired games from random setups, current edition)",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "|".join("---" for _ in HEADER) + "|",
    ]
    lines += ["| " + " | ".join(m.cells()) + " |" for m in measured]
    lines += [
        "",
        f"Each row: {games} games (every setup played once with each colour), match seed {seed}, moves by "
        "seeded iteration budgets; *win rate* is the first level's; *met* is yes when the whole 95% "
        "interval clears the target, likely when only the rate does; *s/move* is the mean thinking time "
        "of each side.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=40, help="games per row (rounded up to pairs)")
    parser.add_argument("--jobs", type=int, default=2, help="games played at once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rows", type=str, default="", help="comma-separated row numbers (1-based) to run")
    parser.add_argument("--write", action="store_true", help="publish the table into the README")
    args = parser.parse_args(argv)
    chosen = ROWS
    if args.rows:
        chosen = tuple(ROWS[int(n) - 1] for n in args.rows.split(","))
    measured = []
    for row in chosen:
        start = time.perf_counter()
        score, outcomes = match(
            row.level_a, row.level_b, args.games, variant=row.variant, seed=args.seed, jobs=args.jobs
        )
        elapsed = time.perf_counter() - start
        measured.append(Measured(row, score, outcomes, elapsed))
        print(
            f"{row.level_a} vs {row.level_b} on {row.variant}: {score.wins}/{score.games} in {elapsed:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    text = table(measured, measured[0].score.games if measured else args.games, args.seed)
    print(text)
    if args.write:
        from benchmarks._report import publish

        command = "python -m benchmarks.bench_ai " + " ".join(argv if argv is not None else sys.argv[1:])
        publish("ai", text, command.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
