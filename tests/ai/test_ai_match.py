"""Matches: paired games, honest statistics, the command line, and a stronger level really winning."""

import asyncio
import concurrent.futures
import multiprocessing
import os
import random
import signal
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from e2e.processes import command_line, family, still_running

from bot.ai.__main__ import main
from bot.ai.match import Score, elo_difference, match, pairings, setup_game, wilson
from bot.ai.veletas import choose_move
from bot.ai.veletas.players import LEVELS
from bot.rules import Game, random_setup


def test_wilson_interval_matches_known_values() -> None:
    lo, hi = wilson(20, 40)
    assert lo == pytest.approx(0.3519, abs=1e-3)
    assert hi == pytest.approx(0.6481, abs=1e-3)
    lo, hi = wilson(40, 40)
    assert hi == 1.0
    assert lo == pytest.approx(0.9124, abs=1e-3)


def test_elo_difference_is_zero_at_even_and_antisymmetric() -> None:
    assert elo_difference(0.5, 40) == 0.0
    assert elo_difference(0.75, 40) == pytest.approx(190.8, abs=0.1)
    assert elo_difference(0.25, 40) == pytest.approx(-elo_difference(0.75, 40))
    assert elo_difference(1.0, 40) == elo_difference(1 - 0.5 / 40, 40)


def test_score_reports_rate_interval_and_elo() -> None:
    score = Score(30, 40)
    assert score.rate == 0.75
    lo, hi = score.interval()
    assert lo < 0.75 < hi
    elo_lo, elo_hi = score.elo_interval()
    assert elo_lo < score.elo() < elo_hi


def test_every_setup_is_played_with_both_colours() -> None:
    plan = pairings(4, 3, 7, "medium", "current", 5)
    assert len(plan) == 8
    for setup in range(4):
        colours = sorted(p.a_black for p in plan if p.setup == setup)
        assert colours == [False, True]
    first = setup_game("medium", "current", 5, 2)
    assert first.turns == setup_game("medium", "current", 5, 2).turns
    assert first.turns != setup_game("medium", "current", 5, 3).turns


@pytest.mark.slow
def test_level_four_beats_level_one_on_the_small_board(monkeypatch: pytest.MonkeyPatch) -> None:
    # A short budget keeps the test fast; the search is still level 4's.
    monkeypatch.setitem(LEVELS, 4, replace(LEVELS[4], iterations=300))
    score, outcomes = match(4, 1, 4, variant="small", rules="current", seed=3)
    assert score.games == 4
    assert score.wins >= 3
    for outcome in outcomes:
        assert Game.from_record(outcome.record).phase == "over"


def test_the_match_command_prints_rate_interval_and_elo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "2", "1", "--games", "2", "--variant", "small", "--rules", "classic", "--seed", "4"]) == 0
    out, err = capsys.readouterr()
    assert "level 2 vs level 1:" in out
    assert "95% CI" in out and "Elo difference" in out
    assert err.count("setup 1, level 2 as") == 2


def test_the_match_command_refuses_an_unknown_level(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["match", "7", "1"])
    assert "invalid choice" in capsys.readouterr().err


def test_choices_can_run_in_a_worker_process() -> None:
    position = random_setup("small", "current", random.Random(2)).position
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        move = pool.submit(choose_move, position, 2, seed=5).result(timeout=60)
    assert position.is_legal(move)
    assert move == choose_move(position, 2, seed=5)


async def test_a_killed_match_leaves_no_worker_behind(tmp_path: Path) -> None:
    """``--jobs`` plays in a pool of worker processes: SIGKILL of the match must not leave them searching."""
    root = Path(__file__).resolve().parents[2]
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.ai", "match", "5", "5", "--games", "40", "--jobs", "2",
        cwd=tmp_path, env=os.environ | {"PYTHONPATH": str(root)}, stdout=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    loop = asyncio.get_running_loop()
    settle = loop.time() + 30
    workers: dict[int, int] = {}
    lines: dict[int, str] = {}
    try:
        # A process just forked shows its parent's command line until it runs its own: look until they settle.
        while loop.time() < settle:
            workers = family(process.pid)
            lines = {pid: command_line(pid) for pid in workers}
            if sum("spawn_main" in line for line in lines.values()) == 2:
                break
            await asyncio.sleep(0.05)  # polling the kernel's process table: there is nothing to await
        assert sum("spawn_main" in line for line in lines.values()) == 2, lines
    finally:
        process.kill()
        await process.wait()
    deadline = loop.time() + 5
    while still_running(workers) and loop.time() < deadline:
        await asyncio.sleep(0.05)
    left = {pid: lines[pid] for pid in still_running(workers)}
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == {}, "these outlived the killed match"
