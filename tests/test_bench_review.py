"""The review benchmark's own logic: the workers' CPU read from /proc, the percentiles, the game it reviews and the
row the README's summary takes from its table."""

from __future__ import annotations

import os
import time

import pytest

from benchmarks import _report, bench_review
from benchmarks.bench_review import Latency, Reviewed
from bot.config import DEFAULT_AI_WORKERS
from bot.rules.registry import find_game
from cogs.challenge import DEFAULT_AI_LEVEL


def test_cpu_seconds_reads_a_process_cpu_time_from_proc() -> None:
    before, clock = bench_review.cpu_seconds(os.getpid()), time.process_time()
    total = 0
    while time.process_time() - clock < 0.3:
        total += sum(range(1000))
    used = time.process_time() - clock
    assert total > 0
    # /proc counts in clock ticks (1/100 s here): the same CPU time within a few of them.
    assert bench_review.cpu_seconds(os.getpid()) - before == pytest.approx(used, abs=0.05)


def test_spent_counts_a_new_worker_from_zero_and_only_what_each_worker_added() -> None:
    assert bench_review.spent({1: 2.0, 2: 5.0}, {1: 3.5, 2: 5.0, 3: 0.25}) == pytest.approx(1.75)


def test_percentile_is_the_nearest_rank() -> None:
    values = [float(n) for n in range(20, 0, -1)]
    assert bench_review.percentile(values, 0.95) == 19.0
    assert bench_review.percentile(values, 0.5) == 10.0
    assert bench_review.percentile([0.7], 0.95) == 0.7
    with pytest.raises(ValueError):
        bench_review.percentile([], 0.5)


def test_the_reviewed_game_is_a_self_play_game_cut_at_its_60th_turn() -> None:
    seed, turns = bench_review.long_game("veloop", {"board": "8"}, 1)
    assert len(turns) == bench_review.TURNS == 60
    state = find_game("veloop").replay(turns, {"board": "8"})
    assert len(state.turns) == 60
    # Too long a game for the seeds tried is said, not looped over.
    with pytest.raises(RuntimeError, match="reached 100000 turns"):
        bench_review.long_game("veloop", {"board": "5"}, seed, turns=100_000, tries=2)


def test_it_measures_what_the_bot_deploys() -> None:
    assert bench_review.LIVE_LEVEL == DEFAULT_AI_LEVEL
    defaults = bench_review.arguments().parse_args([])
    assert defaults.workers == DEFAULT_AI_WORKERS and not defaults.write


def test_the_summary_takes_the_veletas_review_row_and_the_targets_are_judged() -> None:
    reviewed = [
        Reviewed("Veletas standard (10×10)", 1, wall=16.0, cpu=15.5, graded=12),
        Reviewed("Veloop 8×8", 2, wall=21.0, cpu=20.5, graded=9),
    ]
    slow = Latency(alone=[0.4] * 18 + [0.6, 0.7], with_review=[0.5] * 18 + [0.95, 1.0])
    markdown = bench_review.table(
        reviewed, slow, 10.0, workers=1, plies=12, level=3, replaced=0, recycled=0, load="1.0 / 1.0 / 1.0"
    )
    rows = {line.split("|")[1].strip(): line for line in markdown.splitlines() if line.startswith("| ")}
    assert rows["a 60-turn game reviewed: Veloop 8×8"].endswith("| ≤ 20 s CPU | **no** |")
    # p95 0.95 s against 0.6 s alone: 1.58×, past the 1.5× target.
    assert (
        "| 1.58× (p95) | ≤ 1.5× (p95) | **no** |"
        in rows["an AI turn (level 3) in a live game, p50 / p95: a review running"]
    )
    assert "(+350 ms)" in markdown
    doc = _report.splice("", "review", f"{markdown}\n\n_Measured on Test CPU, 2026-01-02 with `x`._\n")
    summary = _report.summary(doc)
    assert (
        "| a 60-turn Veletas game (standard board) reviewed: worker CPU (wall) | 15.5 s worker CPU (16.0 s wall) "
        "| 1,550× | yes | 2026-01-02 |"
    ) in summary
