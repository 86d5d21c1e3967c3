"""Speed of the tournament engine: pairing a Swiss round (FIDE Dutch) and standings with tie-breaks.

Run ``python -m benchmarks.bench_tournaments`` to print a markdown table, ``--write`` to publish it
into docs/BENCHMARKS.md through ``benchmarks._report.publish``. Every figure comes with a reference measured
in the same run, a fixed piece of plain Python (sorting 500 tuples), and the ratio between the two: on
a slow or busy day both grow, the ratio stays, so a regression shows as a ratio, not as a bad day.

Swiss rounds are paired by ``pair_swiss`` (py4swiss's Dutch engine driven by ``bot/tournaments/dutch.py``);
each is also paired by py4swiss's own pieces run the same way (``fide2025.py4swiss_pairings`` on the same TRF: its
bracket pairer and completion check with ``bot/tournaments/fide2025.py``'s player records, quality criteria and
2025 brackets), timed for
comparison and checked to give the very same pairs and colours (the run stops if not). Times are the best
wall-clock time of a few runs, with the CPU time of that work beside it: the machine is shared, and CPU time
reads the same on a busy day.

The fields are built from fixed seeds. Earlier rounds are paired by a quick stand-in (neighbours
by score, no rematch), since only the round being measured needs the real engine and the history
only has to be a valid one; results follow the ratings.

``--reference`` replays the recorded reference events (``benchmarks/swiss_reference.py``: bbpPairings' answers,
FIDE Dutch rules as in force since 1 July 2025) and prints "N of M rounds match".

``--breakdown N`` prints where the CPU time of pairing rounds 1, 2 and 5 of an N-player field goes, step
by step (CPU time, so it reads the same on a busy machine). It times the steps (py4swiss's and
``bot/tournaments/dutch.py``'s) by wrapping them for the length of the measurement in this process only;
the pairing is unchanged and the wrappers are removed afterwards.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

from bot.tournaments import Bye, Game, Round, Tournament, pair_swiss, seed_by_rating, standings
from bot.tournaments.swiss import parse_trf, to_trf

PAIR_TARGET_S = 2.0  # a 500-player Swiss round
STANDINGS_TARGET_S = 0.2  # standings with tie-breaks, 500 players


@dataclass(frozen=True)
class Row:
    measure: str
    seconds: float
    cpu: float
    reference: float
    target: float | None = None

    def cells(self) -> list[str]:
        target = "" if self.target is None else f"≤ {_fmt(self.target)}"
        # Judged on CPU time: what the work takes on a core of its own; the shared machine's wall clock is beside it.
        met = "" if self.target is None else ("yes" if self.cpu <= self.target else "**no**")
        ratio = f"{self.seconds / self.reference:,.0f}×"
        return [self.measure, _fmt(self.seconds), _fmt(self.cpu), ratio, target, met]


def _fmt(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms" if seconds < 1 else f"{seconds:,.2f} s"


def best_of(work: Callable[[], object], repeats: int) -> float:
    """The fastest of ``repeats`` runs: other processes only ever slow a run down."""
    return wall_and_cpu(work, repeats)[0]


def wall_and_cpu(work: Callable[[], object], repeats: int) -> tuple[float, float]:
    """(fastest wall-clock time, fastest CPU time) of ``repeats`` runs."""
    wall = cpu = float("inf")
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        work()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


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


def _engine_pairs(t: Tournament) -> list[tuple[int, int]]:
    """py4swiss's own pieces, run by the 2025 rules (``fide2025.py4swiss_pairings``), on the tournament's TRF:
    (white, black) starting numbers, black 0 for the bye. The 2025 quality criteria are set in py4swiss's bracket
    matcher module for this call only."""
    import py4swiss.engines.dutch.bracket.bracket_matcher as matcher_module

    from bot.tournaments import fide2025

    saved = matcher_module.QUALITY_CRITERIA
    matcher_module.QUALITY_CRITERIA = fide2025.QUALITY_CRITERIA
    try:
        return [(p.white, p.black) for p in fide2025.py4swiss_pairings(parse_trf(to_trf(t)))]
    finally:
        matcher_module.QUALITY_CRITERIA = saved


def _as_numbers(t: Tournament, rnd: Round) -> list[tuple[int, int]]:
    numbers = {p.id: i + 1 for i, p in enumerate(t.seeded())}
    pairs = [(numbers[g.white], numbers[g.black]) for g in rnd.games]
    return pairs + [(numbers[b.player], 0) for b in rnd.byes if b.kind == "pairing"]


def _keep(into: list[Any], work: Callable[[], Any]) -> None:
    into.append(work())


def swiss_rows(reference: float, quick: bool) -> list[Row]:
    rows: list[Row] = []
    sizes = (100, 200, 500) if not quick else (100,)
    for n in sizes:
        for done in (0, 1, 4):
            t = field(n, done, 9)
            rnd = pair_swiss(t)
            seconds, cpu = wall_and_cpu(partial(pair_swiss, t), 3 if n >= 500 else 5)
            what = f"pair round {done + 1} of a {n}-player Swiss (Dutch)"
            rows.append(Row(what, seconds, cpu, reference, PAIR_TARGET_S if n == 500 else None))
            theirs: list[list[tuple[int, int]]] = []
            seconds, cpu = wall_and_cpu(partial(_keep, theirs, partial(_engine_pairs, t)), 1)
            if theirs[0] != _as_numbers(t, rnd):
                raise SystemExit(f"round {done + 1} of {n}: py4swiss pairs it differently")
            what = f"the same round by py4swiss {py4swiss_version()}'s own pieces (same pairs and colours)"
            rows.append(Row(what, seconds, cpu, reference))
    return rows


def py4swiss_version() -> str:
    from importlib.metadata import version

    return version("py4swiss")


def standings_rows(reference: float, quick: bool) -> list[Row]:
    rows: list[Row] = []
    for n in (100, 500):
        t = field(n, 7, 7)
        seconds, cpu = wall_and_cpu(partial(standings, t), 3 if quick else 7)
        what = f"standings with BH-C1, BH, SB, head-to-head, wins: {n} players, 7 rounds"
        rows.append(Row(what, seconds, cpu, reference, STANDINGS_TARGET_S if n == 500 else None))
    return rows


_DUTCH = "py4swiss.engines.dutch"
_FAST = "bot.tournaments.dutch"
_STEPS: tuple[tuple[str, str, str, str], ...] = (
    # (module, class, method, what it does): the Dutch engine's steps as py4swiss 0.3.1 and dutch.py name them.
    ("bot.tournaments.fide2025", "", "get_player_infos_from_trf", "player records from the TRF (py4swiss)"),
    ("bot.tournaments.fide2025", "", "_bye_to_the_lowest_score", "who may get the bye (2025)"),
    (_FAST, "", "_first_round", "round 1: S1 against S2, directly"),
    (_FAST, "FastBracketMatcher", "_set_up_computer", "bracket graph: set-up, one weight per profile pair"),
    (_FAST, "FastBracketMatcher", "_get_weight", "bracket graph: weights (py4swiss)"),
    (_FAST, "FastBracketMatcher", "update_matching", "bracket: blossom re-matching (py4swiss, C++)"),
    (_FAST, "FastBracketMatcher", "add_to_weights", "bracket: weight edits"),
    (_FAST, "FastBracketMatcher", "remove_weights", "bracket: edge removals"),
    (_FAST, "FastBracketMatcher", "finalize_match", "bracket: pairs finalized"),
    (f"{_DUTCH}.bracket.bracket_pairer", "BracketPairer", "determine_heterogeneous_s1", "bracket: D.3 (rest)"),
    (f"{_DUTCH}.bracket.bracket_pairer", "BracketPairer", "determine_heterogeneous_s2", "bracket: D.1 MDPs (rest)"),
    (f"{_DUTCH}.bracket.bracket_pairer", "BracketPairer", "determine_homogeneous_exchanges", "bracket: D.2.a-b (rest)"),
    (f"{_DUTCH}.bracket.bracket_pairer", "BracketPairer", "determine_moves_from_s1_to_s2", "bracket: D.2.c (rest)"),
    (f"{_DUTCH}.bracket.bracket_pairer", "BracketPairer", "determine_moves_from_s2_to_s1", "bracket: D.2.d (rest)"),
    (f"{_DUTCH}.bracket.bracket_pairer", "BracketPairer", "transpose_homogeneous_s2", "bracket: D.1 S1 (rest)"),
    (_FAST, "FastValidityMatcher", "is_valid_matching", "completion checks: augmenting paths"),
    (f"{_DUTCH}.validity_matcher", "ValidityMatcher", "_set_up_computer", "completion checks by py4swiss: set-up"),
    (f"{_DUTCH}.validity_matcher", "ValidityMatcher", "is_valid_matching", "completion checks by py4swiss (C++)"),
    ("bot.tournaments.swiss", "", "parse_trf", "TRF read back (py4swiss parser)"),
)


@dataclass
class Step:
    what: str
    seconds: float = 0.0
    calls: int = 0


@contextmanager
def timed_steps() -> Iterator[list[Step]]:
    """CPU time spent in each of ``_STEPS`` (its own time: nested steps count only for themselves)."""
    steps = [Step(what) for *_, what in _STEPS]
    nested: list[float] = []
    restore: list[tuple[Any, str, Any]] = []

    def timed(step: Step, work: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            nested.append(0.0)
            try:
                return work(*args, **kwargs)
            finally:
                spent = time.process_time() - start
                step.seconds += spent - nested.pop()
                step.calls += 1
                if nested:
                    nested[-1] += spent

        return run

    for step, (module, cls, method, _) in zip(steps, _STEPS, strict=True):
        owner = getattr(importlib.import_module(module), cls) if cls else importlib.import_module(module)
        original = owner.__dict__[method]
        restore.append((owner, method, original))
        work = original.__func__ if isinstance(original, staticmethod | classmethod) else original
        setattr(owner, method, timed(step, work))
    try:
        yield steps
    finally:
        for owner, method, original in reversed(restore):
            setattr(owner, method, original)


def breakdown(n: int, done: int) -> tuple[Round, float, list[Step]]:
    """Pair round ``done + 1`` of an ``n``-player field: the round, its CPU time and each step's share."""
    t = field(n, done, 9)
    with timed_steps() as steps:
        start = time.process_time()
        rnd = pair_swiss(t)
        total = time.process_time() - start
    return rnd, total, steps


def breakdown_table(n: int, done: int) -> str:
    _, total, steps = breakdown(n, done)
    lines = [
        f"pair round {done + 1} of a {n}-player Swiss: {_fmt(total)} CPU",
        "",
        "| step | CPU | share | calls |",
        "|---|---|---|---|",
    ]
    for step in sorted(steps, key=lambda s: -s.seconds):
        if step.seconds >= 0.0005:  # the D.x edits of a bracket without MDPs or exchanges take nothing
            lines.append(f"| {step.what} | {_fmt(step.seconds)} | {step.seconds / total:.0%} | {step.calls:,} |")
    rest = total - sum(s.seconds for s in steps)
    lines.append(f"| everything else | {_fmt(rest)} | {rest / total:.0%} |  |")
    return "\n".join(lines)


def table(rows: list[Row], reference: float) -> str:
    lines = ["| measure | time | CPU | × reference | target | met |", "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    lines.append(f"| reference: sort 500 (float, int) tuples | {reference * 1e6:,.1f} µs |  | 1× |  |  |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="only the 100-player pairings")
    parser.add_argument("--write", action="store_true", help="publish the table into docs/BENCHMARKS.md")
    parser.add_argument("--breakdown", type=int, metavar="N", help="where the CPU time of pairing N players goes")
    parser.add_argument(
        "--reference", action="store_true", help="how many recorded rounds pair as the reference engine pairs them"
    )
    args = parser.parse_args(argv)
    if args.reference:
        from benchmarks import swiss_reference

        return swiss_reference.main([])
    if args.breakdown:
        print("\n\n".join(breakdown_table(args.breakdown, done) for done in (0, 1, 4)))
        return 0
    load_before = os.getloadavg()[0]
    before = reference_seconds()
    rows = standings_rows(before, args.quick) + swiss_rows(before, args.quick)
    reference = min(before, reference_seconds())
    rows = [Row(r.measure, r.seconds, r.cpu, reference, r.target) for r in rows]
    note = (
        "*time* is the best wall-clock time of a few runs (one for py4swiss's own engine), *CPU* the least CPU time"
        " of those runs, which is what *met* is judged on (the time the work takes on a core of its own);"
        " *× reference* divides the time by the reference measured in the same run. The machine is"
        f" shared: load average {load_before:.1f} when this run began and {os.getloadavg()[0]:.1f} when it ended,"
        f" on {os.cpu_count()} cores."
    )
    markdown = table(rows, reference) + "\n\n" + note
    print(markdown)
    if args.write:
        from benchmarks._report import publish

        publish("tournaments", markdown, "python -m benchmarks.bench_tournaments --write")
    return 0


if __name__ == "__main__":
    sys.exit(main())
