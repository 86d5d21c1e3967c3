"""Strength of the AI levels: paired matches between neighbouring levels, for each game.

Run ``python -m benchmarks.bench_ai`` to print the Veletas table (``--game veloop`` for Veloop's),
``--write`` to publish it into docs/BENCHMARKS.md and ``benchmarks/results/ai.md``, each game in its own
section. Every row is the same match that ``python -m bot.ai match A B --games N --variant V
--seed S`` (or ``--game veloop --board 8 --protocol 122``) plays: random setups or openings,
each played with both colours, moves chosen with seeds so a rerun replays the same games.
``--jobs 2`` plays two games at once. A full table (40 games a row) takes a long while on two
cores; ``--games 2`` is a smoke run that only shows the machinery works. ``--rows 3,4,5 --keep --write``
measures only those rows and keeps the others of the published table, each saying which run measured it
(for rows whose levels did not change since).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks._report import BENCHMARKS_DOC, REFERENCE, RESULTS, ROOT, machine, reference_ms, refresh_summary, splice
from bot.ai.match import Outcome, Score, match


@dataclass(frozen=True)
class Row:
    """One match of the table and the win rate the issue expects of its stronger side."""

    level_a: int
    level_b: int
    variant: str
    target: float
    game: str = "veletas"
    protocol: str = "122"

    @property
    def board(self) -> str:
        """The board column: the Veletas variant, or the Veloop board size."""
        return f"{self.variant}×{self.variant}" if self.game == "veloop" else self.variant


ROWS: tuple[Row, ...] = (
    Row(2, 1, "medium", 0.65),
    Row(3, 2, "medium", 0.65),
    Row(4, 3, "medium", 0.65),
    Row(5, 4, "medium", 0.65),
    Row(5, 3, "medium", 0.85),
    Row(3, 2, "standard", 0.65),
)

VELOOP_ROWS: tuple[Row, ...] = (
    Row(2, 1, "8", 0.65, "veloop"),
    Row(3, 2, "8", 0.65, "veloop"),
    Row(4, 3, "8", 0.65, "veloop"),
    Row(5, 3, "8", 0.85, "veloop"),
    Row(5, 4, "8", 0.65, "veloop"),
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
        if any(o.choices_a >= 0 for o in self.outcomes):
            moves_a = sum(o.choices_a for o in self.outcomes)
            moves_b = sum(o.choices_b for o in self.outcomes)
        else:
            moves_a = sum((o.moves + (1 if o.pairing.a_black else 0)) // 2 for o in self.outcomes)
            moves_b = sum(o.moves for o in self.outcomes) - moves_a
        think_a = sum(o.seconds_a for o in self.outcomes) / max(1, moves_a)
        think_b = sum(o.seconds_b for o in self.outcomes) / max(1, moves_b)
        verdict = "yes" if lo >= self.row.target else ("likely" if self.score.rate >= self.row.target else "**no**")
        return [
            f"{self.row.level_a} vs {self.row.level_b}",
            self.row.board,
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


@dataclass(frozen=True)
class Kept:
    """A row of the published table that this run did not measure, and the run that did (machine and command)."""

    line: str
    source: str


KEPT_NOTE = re.compile(r"^Kept from an earlier run: (.+?), as measured on (.+)\.$")
MEASURED_NOTE = re.compile(r"^_Measured on (.+)\._$")


def published_rows(section: str, readme: str) -> dict[str, Kept]:
    """The rows of ``section``'s table in ``readme`` by their first cell (``4 vs 3``), each with the run it came from.

    A row published as kept keeps the run named in its note; the others come from the run in
    the block's last line.
    """
    pattern = re.compile(
        re.escape(f"<!-- bench:{section} -->") + r"(.*?)" + re.escape(f"<!-- /bench:{section} -->"), re.S
    )
    found = pattern.search(readme)
    if found is None:
        return {}
    lines = found.group(1).splitlines()
    latest = ""
    earlier: dict[str, str] = {}
    for line in lines:
        measured = MEASURED_NOTE.match(line.strip())
        if measured:
            latest = measured.group(1)
        kept = KEPT_NOTE.match(line.strip())
        if kept:
            for name in kept.group(1).split(", "):
                earlier[name] = kept.group(2)
    rows: dict[str, Kept] = {}
    for line in lines:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| ") and re.fullmatch(r"\d+ vs \d+", cells[0]):
            rows[cells[0]] = Kept(line.rstrip(), earlier.get(cells[0], latest))
    return rows


def table(
    measured: Sequence[Measured],
    games: int,
    seed: int,
    game: str = "veletas",
    kept: dict[Row, Kept] | None = None,
) -> str:
    """The markdown table of ``measured``, with ``kept`` rows (from earlier runs) in their places and their notes."""
    kept = kept or {}
    order = VELOOP_ROWS if game == "veloop" else ROWS
    by_row = {m.row: "| " + " | ".join(m.cells()) + " |" for m in measured}
    by_row.update({row: k.line for row, k in kept.items() if row not in by_row})
    ranked = sorted(by_row, key=lambda row: order.index(row) if row in order else len(order))
    sources: dict[str, list[str]] = {}
    for row, k in kept.items():
        sources.setdefault(k.source, []).append(f"{row.level_a} vs {row.level_b}")
    notes = [
        f"Kept from an earlier run: {', '.join(names)}, as measured on {source}." for source, names in sources.items()
    ]
    if game == "veloop":
        title = "### Veloop AI strength (paired games from random openings, protocol 122)"
    else:
        title = "### AI strength (paired games from random setups, current edition)"
    lines = [
        title,
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "|".join("---" for _ in HEADER) + "|",
    ]
    lines += [by_row[row] for row in ranked]
    if game == "veloop":
        draws = sum(m.score.draws for m in measured)
        lines += ["", level_three_time(measured)]
        lines += [
            "",
            f"Each row: {games} games (every opening, the start and three random plies, played once with each "
            f"colour), match seed {seed}, moves by seeded iteration budgets; *win rate* is the first level's, "
            f"a draw counting half ({draws} draws in all); *met* is yes when the whole 95% interval clears the "
            "target, likely when only the rate does; *s/move* is the mean thinking time of each side per move "
            "it chose.",
        ]
        lines += [line for note in notes for line in ("", note)]
        return "\n".join(lines)
    lines += [
        "",
        f"Each row: {games} games (every setup played once with each colour), match seed {seed}, moves by "
        "seeded iteration budgets; *win rate* is the first level's; *met* is yes when the whole 95% "
        "interval clears the target, likely when only the rate does; *s/move* is the mean thinking time "
        "of each side.",
    ]
    lines += [line for note in notes for line in ("", note)]
    return "\n".join(lines)


def level_three_time(measured: Sequence[Measured]) -> str:
    """Level 3's thinking time on 8×8 over every move it chose in these rows (the issue asks for at most 1 s)."""
    total = 0.0
    moves = 0
    longest = 0.0
    for m in measured:
        for o in m.outcomes:
            for level, spent, count, most in (
                (o.pairing.level_a, o.seconds_a, o.choices_a, o.longest_a),
                (o.pairing.level_b, o.seconds_b, o.choices_b, o.longest_b),
            ):
                if level == 3 and o.pairing.board == 8 and count > 0:
                    total += spent
                    moves += count
                    longest = max(longest, most)
    if not moves:
        return "Level 3 on 8×8: not in these rows."
    return (
        f"Level 3 on 8×8: {total / moves:.2f} s a move on average, {longest:.2f} s at most, over {moves} moves "
        "(timed during these matches, on the machine below)."
    )


def think_time(games: int, seed: int) -> str:
    """Level 3's thinking time on 8×8 Veloop as the bot gives it: seeded, with its own 1 s cap, nothing else running.

    Level 3 plays itself from ``games`` random openings; every decision is timed on the wall
    clock and in CPU seconds, and a decision that reached the cap (so stopped before its budget)
    is counted.
    """
    from bot.ai import veloop as veloop_ai
    from bot.ai.match import veloop_opening

    cap = veloop_ai.LEVELS[3].cap
    reference = reference_ms()
    walls: list[float] = []
    cpus: list[float] = []
    rng = random.Random(seed)
    for number in range(games):
        game = veloop_opening(8, "122", seed, number)
        while game.phase == "play":
            forced = game.forced_turn
            if forced is not None:
                game = game.play(forced)
                continue
            wall, cpu = time.perf_counter(), time.process_time()
            move = veloop_ai.choose_move(game.position, 3, seed=rng.getrandbits(32))
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            game = game.play(move)
    walls.sort()
    capped = sum(1 for w in walls if w >= cap)
    ref = min(reference, reference_ms())
    longest = walls[-1]
    return "\n".join(
        [
            "### Veloop level 3's thinking time (8×8, protocol 122)",
            "",
            "| decisions | mean | median | 95th percentile | longest | longest × ref | CPU mean | at the 1 s cap |",
            "|---|---|---|---|---|---|---|---|",
            f"| {len(walls)} | {sum(walls) / len(walls):.2f} s | {walls[len(walls) // 2]:.2f} s | "
            f"{walls[int(len(walls) * 0.95)]:.2f} s | {longest:.2f} s | {longest * 1e3 / ref:.0f}× | "
            f"{sum(cpus) / len(cpus):.2f} s | {capped} |",
            "",
            f"Level 3 playing itself from {games} random openings (the start and three random plies), seeded as "
            "in matches but with its own hard cap, one game at a time (the target: at most 1 s a move). The "
            f"reference is {REFERENCE}, {ref:.1f} ms in this run.",
        ]
    )


def publish_section(section: str, markdown: str, command: str) -> None:
    """Put one game's table between its markers in results/ai.md and in docs/BENCHMARKS.md (each added
    when absent), then remake the README's summary.

    Both games' tables share results/ai.md, so a run for one game leaves the other's section alone.
    """
    body = f"{markdown.rstrip()}\n\n_Measured on {machine()} with `{command}`._\n"
    RESULTS.mkdir(parents=True, exist_ok=True)
    (ROOT / BENCHMARKS_DOC).parent.mkdir(parents=True, exist_ok=True)
    for path in (RESULTS / "ai.md", ROOT / BENCHMARKS_DOC):
        text = path.read_text() if path.exists() else ""
        if path.name == "ai.md" and text and "<!-- bench:" not in text:
            # A file from before there were sections holds the Veletas table alone.
            text = f"<!-- bench:ai -->\n{text.rstrip()}\n<!-- /bench:ai -->\n"
        path.write_text(splice(text, section, body).lstrip("\n"))
    refresh_summary(ROOT)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=40, help="games per row (rounded up to pairs)")
    parser.add_argument("--jobs", type=int, default=2, help="games played at once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=("veletas", "veloop"), default="veletas")
    parser.add_argument("--rows", type=str, default="", help="comma-separated row numbers (1-based) to run")
    parser.add_argument("--write", action="store_true", help="publish the table into docs/BENCHMARKS.md")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="with --rows: keep the published table's other rows, each noted with the run that measured it",
    )
    parser.add_argument(
        "--think-time",
        action="store_true",
        help="instead of matches: level 3's thinking time on 8×8 Veloop, one decision at a time",
    )
    args = parser.parse_args(argv)
    if args.think_time:
        text = think_time(args.games, args.seed)
        print(text)
        if args.write:
            command = "python -m benchmarks.bench_ai " + " ".join(argv if argv is not None else sys.argv[1:])
            publish_section("ai-veloop-time", text, command.strip())
        return 0
    rows = VELOOP_ROWS if args.game == "veloop" else ROWS
    chosen = rows
    if args.rows:
        chosen = tuple(rows[int(n) - 1] for n in args.rows.split(","))
    kept: dict[Row, Kept] = {}
    if args.keep:
        section = "ai-veloop" if args.game == "veloop" else "ai"
        doc = ROOT / BENCHMARKS_DOC
        published = published_rows(section, doc.read_text() if doc.exists() else "")
        for row in rows:
            name = f"{row.level_a} vs {row.level_b}"
            if row not in chosen and name in published:
                kept[row] = published[name]
    measured = []
    for row in chosen:
        start = time.perf_counter()
        if row.game == "veloop":
            score, outcomes = match(
                row.level_a,
                row.level_b,
                args.games,
                seed=args.seed,
                jobs=args.jobs,
                game="veloop",
                board=int(row.variant),
                protocol=row.protocol,
            )
        else:
            score, outcomes = match(
                row.level_a, row.level_b, args.games, variant=row.variant, seed=args.seed, jobs=args.jobs
            )
        elapsed = time.perf_counter() - start
        measured.append(Measured(row, score, outcomes, elapsed))
        print(
            f"{row.level_a} vs {row.level_b} on {row.board}: {score.points:g}/{score.games} in {elapsed:.0f} s",
            file=sys.stderr,
            flush=True,
        )
        if args.write and len(measured) < len(chosen):
            # A long run publishes each row as it lands, saying which rows are still to come.
            _write(args, measured, chosen[len(measured) :], argv, kept)
    text = table(measured, measured[0].score.games if measured else args.games, args.seed, args.game, kept)
    print(text)
    if args.write:
        _write(args, measured, (), argv, kept)
    return 0


def _write(
    args: argparse.Namespace,
    measured: Sequence[Measured],
    pending: Sequence[Row],
    argv: Sequence[str] | None,
    kept: dict[Row, Kept],
) -> None:
    text = table(measured, measured[0].score.games if measured else args.games, args.seed, args.game, kept)
    if pending:
        rows = ", ".join(f"{row.level_a} vs {row.level_b}" for row in pending)
        text += f"\n\nStill running when this was written: {rows}."
    command = "python -m benchmarks.bench_ai " + " ".join(argv if argv is not None else sys.argv[1:])
    publish_section("ai-veloop" if args.game == "veloop" else "ai", text, command.strip())


if __name__ == "__main__":
    sys.exit(main())
