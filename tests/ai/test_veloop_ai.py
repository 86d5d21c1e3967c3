"""The Veloop AI: legal, sensible, reproducible moves at every level, within its time, and matches."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from bot.ai import choose_turn
from bot.ai import veloop as ai
from bot.ai.__main__ import main
from bot.ai.budget import Budget
from bot.ai.match import match, pairings, veloop_opening
from bot.ai.veloop import choose_move as choose_veloop_move
from bot.rules import find_game
from bot.rules.veloop import PASS, PROTOCOLS, SIZES, Game, Move, Position, playout

ROOT = Path(__file__).resolve().parents[2]

LEVELS = [1, 2, 3, 4, 5]

# Forced passes that random games reached: the side to move has no legal move at all.
FORCED_PASS = {
    (5, "122"): "w(bb)(wb)(wb)(wb)/(wb)(ww)(wb)(wb)(ww)/w(bb)(ww)(wb)(bb)/(ww)(bw)(bw)(bw)(bb)/"
    "(bw)(bb)(wb)(bw)b w 1/2 0",
    (5, "alternating"): "w(bw)(bb)(ww)(wb)/(bb)(wb)(wb)(bb)(ww)/(wb)(bw)(bw)(bb)(wb)/(wb)w(bw)(ww)(bw)/"
    "(wb)w(bw)(bb)(wb) w 1/1 0",
    (6, "122"): "b(bw)(wb)(bw)bb/b(bb)(bb)(wb)(ww)(bw)/(wb)(ww)(bb)(wb)(bw)(ww)/(bw)(wb)(ww)(wb)(bw)(bw)/"
    "b(ww)(bw)(ww)(bw)w/bwb(bw)wb b 1/2 0",
}


def _near_end(size: int, protocol: str, seed: int, before: int) -> Position:
    """A position ``before`` plies before the end of a random game (never a finished one)."""
    rng = random.Random(f"{size}/{protocol}/{seed}")
    start = Position.start(size, protocol)
    trace: list[Move] = []
    playout(start, rng, trace)
    position = start
    for move in trace[: max(0, len(trace) - before)]:
        position = position.play(move)
    assert not position.is_over
    return position


def _opponent_wins_at_once(position: Position) -> bool:
    """Plain check with the rules' own API: the side to move has a move that ends the game in its favour."""
    return any(position.play(reply).result == position.to_move for reply in position.legal_moves())


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_a_legal_move_on_every_board(level: int, size: int, protocol: str) -> None:
    for before in (30, 3):
        position = _near_end(size, protocol, level, before)
        move = choose_veloop_move(position, level, seed=level, time_limit=0.3)
        assert move in position.legal_moves()


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("key", sorted(FORCED_PASS))
def test_a_forced_pass_is_played_at_every_level(level: int, key: tuple[int, str]) -> None:
    _size, protocol = key
    position = Position.from_string(FORCED_PASS[key], protocol)
    assert position.legal_moves() == (PASS,)
    assert choose_veloop_move(position, level, seed=1) == PASS
    game = Game(position)
    assert game.forced_turn == "pass"
    assert choose_turn(game, level, seed=1) == "pass"


@pytest.mark.parametrize("level", LEVELS)
def test_the_first_move_of_a_game_through_the_game_protocol(level: int) -> None:
    for protocol in PROTOCOLS:
        game = find_game("veloop").new({"board": "6", "protocol": protocol})
        turn = choose_turn(game, level, seed=2, time_limit=0.5)
        assert game.play(turn).turns == (turn,)


def test_choose_turn_serves_veletas_too() -> None:
    game = find_game("veletas").new({"variant": "small"})
    turn = choose_turn(game, 1, seed=3)
    assert game.play(turn).phase in ("setup", "pie", "play")


def test_a_finished_game_and_unknown_levels_are_refused() -> None:
    position = _near_end(8, "122", 4, 1)
    finished = position
    for move in position.legal_moves():
        if position.play(move).is_over:
            finished = position.play(move)
            break
    assert finished.is_over
    with pytest.raises(ValueError, match="over"):
        choose_veloop_move(finished, 3)
    with pytest.raises(ValueError, match="over"):
        choose_turn(Game(finished), 3)
    for level in (0, 6):
        with pytest.raises(ValueError, match="1 to 5"):
            choose_turn(Game.new(), level)


@pytest.mark.parametrize("level", LEVELS)
def test_a_seed_fixes_the_move(level: int) -> None:
    for before in (40, 8):
        position = _near_end(8, "122", 11, before)
        board = ai.Board(position)
        first = ai.choose(board, level, random.Random(5), Budget(120, 60.0))
        again = ai.choose(ai.Board(position), level, random.Random(5), Budget(120, 60.0))
        assert first == again
        if level <= 3:
            # Through the public entry point with the level's own budget (a roomy cap: a seed, not the clock, decides).
            first_move = choose_veloop_move(position, level, seed=9, time_limit=60.0)
            assert choose_veloop_move(position, level, seed=9, time_limit=60.0) == first_move


def _sample(count: int) -> list[Position]:
    """Positions a few plies from the end of random games on 6×6 and 8×8, both protocols: where blunders lurk."""
    out = []
    for k in range(count):
        size = (6, 8)[k % 2]
        protocol = PROTOCOLS[k // 2 % 2]
        out.append(_near_end(size, protocol, 100 + k, 1 + k % 4))
    return out


def test_the_weakest_level_is_never_absurd() -> None:
    """Level 1 takes a win it has, never ends the game against itself while another move goes on, and, when
    the next ply is the opponent's, never leaves them a move that wins at once if some move avoids it.
    Judged by brute force with the rules' own API, not the AI's tactics."""
    avoided = 0
    for number, position in enumerate(_sample(60)):
        me = position.to_move
        legal = position.legal_moves()
        after = {move: position.play(move) for move in legal}
        wins = [m for m in legal if after[m].result == me]
        going = [m for m in legal if not after[m].is_over]
        safe = [m for m in going if after[m].to_move == me or not _opponent_wins_at_once(after[m])]
        for seed in range(3):
            move = choose_veloop_move(position, 1, seed=seed)
            context = f"position {number} {position}, seed {seed}: {move}"
            if wins:
                assert after[move].result == me, context
                continue
            if going:
                assert move in going, context
            if safe:
                assert move in safe, context
        avoided += bool(safe) and len(safe) < len(going)
    # The sample really holds positions with moves that hand the opponent the game.
    assert avoided >= 5


def test_stronger_levels_see_their_whole_double_turn_and_the_opponents() -> None:
    """From the first ply of a double turn, a level from 2 up plays a ply after which its second ply wins,
    whenever one exists (and no single ply wins); it is found in random games' last turns."""
    checked = 0
    for k in range(80):
        position = _near_end(8, "122", 500 + k, 2)
        if position.ply != 1 or position.plies != 2 or any(position.play(m).is_over for m in position.legal_moves()):
            continue
        me = position.to_move
        two_ply_wins = [
            m
            for m in position.legal_moves()
            if any(position.play(m).play(r).result == me for r in position.play(m).legal_moves())
        ]
        if not two_ply_wins:
            continue
        checked += 1
        for level in (2, 3):
            move = choose_veloop_move(position, level, seed=k)
            assert move in two_ply_wins, f"level {level} in {position}: {move}"
    assert checked >= 3


def _turn_is_safe(board: ai.Board) -> bool:
    """Oracle for ``has_safe_turn`` through the tactics alone: the mover's (whole) turn has a way not to lose."""
    found = ai.tactics(board, None, deep=True)
    if found.wins:
        return True
    if board.two_ply and board.ply < board.plies:
        return any(_turn_is_safe(board.after(ply)) for ply in found.safe)
    return bool(found.safe)


# Random games' last turns (seed 700 + k, plies before the end) where it matters: the first ply of a double
# turn where only some first plies leave a safe second one, and a ply ending a turn that leaves the opponent
# no safe turn among others that do not.
FIRST_PLY_TRAPS = [(15, 4), (20, 4), (30, 4), (70, 5), (89, 2), (115, 3)]
KILLING_TURNS = [(14, 3), (27, 4), (37, 4), (76, 5), (89, 3)]


@pytest.mark.parametrize("level", [4, 5])
def test_the_tree_levels_keep_a_safe_second_ply_for_their_double_turn(level: int) -> None:
    for k, before in FIRST_PLY_TRAPS:
        position = _near_end(8, "122", 700 + k, before)
        board = ai.Board(position)
        assert position.ply == 1 and position.plies == 2
        found = ai.tactics(board, None, deep=True)
        whole = [ply for ply in found.safe if _turn_is_safe(board.after(ply))]
        assert 0 < len(whole) < len(found.safe), "the sample holds first plies with no safe second one"
        assert all(ai.has_safe_turn(board.after(ply)) == (ply in whole) for ply in found.safe)
        move = choose_veloop_move(position, level, seed=k, time_limit=60.0)
        assert move in {board.move_of(ply) for ply in whole}, f"level {level} in {position}: {move}"
        # Even a search too short to see the trap itself keeps out of it.
        for iterations in (1, 4):
            quick = ai.choose(ai.Board(position), level, random.Random(k), Budget(iterations, 60.0))
            assert quick.ply in whole, f"level {level} with {iterations} iterations in {position}"


def test_level_five_leaves_the_opponent_without_a_safe_turn_when_it_can() -> None:
    for k, before in KILLING_TURNS:
        position = _near_end(8, "122", 700 + k, before)
        board = ai.Board(position)
        found = ai.tactics(board, None, deep=True)
        assert not found.wins
        killing = [ply for ply in found.safe if not _turn_is_safe(board.after(ply))]
        assert 0 < len(killing) < len(found.safe)
        assert all(ai.has_safe_turn(board.after(ply)) == (ply not in killing) for ply in found.safe)
        move = choose_veloop_move(position, 5, seed=k, time_limit=60.0)
        assert move in {board.move_of(ply) for ply in killing}, f"level 5 in {position}: {move}"


@pytest.mark.slow
def test_level_fives_tree_counts_a_turn_with_no_safe_way_out_as_lost() -> None:
    """The proving adapter judges a position where the mover starts a turn with no safe turn as the
    opponent's win (only when asked to prove, and only at the start of a turn); level 5 still plays a legal
    move from such a position of its own (its root is never judged)."""
    judged = 0
    for k, before in KILLING_TURNS:
        position = _near_end(8, "122", 700 + k, before)
        board = ai.Board(position)
        found = ai.tactics(board, None, deep=True)
        for ply in found.safe:
            after = board.after(ply)
            lost = not _turn_is_safe(after)
            assert after.ply == 1
            assert ai.Adapter(prove=True).winner(after) == (board.mover if lost else ai.ONGOING)
            assert ai.Adapter().winner(after) == ai.ONGOING
            if lost:
                judged += 1
                second = after.after(after.moves()[0])
                if second.result < 0 and second.ply == 2:
                    assert ai.Adapter(prove=True).winner(second) == ai.ONGOING, "mid-turn positions are not judged"
                move = choose_veloop_move(after.position(), 5, seed=k, time_limit=60.0)
                assert move in after.position().legal_moves()
    assert judged >= len(KILLING_TURNS)


def test_level_one_plays_at_random_among_safe_moves() -> None:
    position = Position.start(8, "122").play("f6<e4")
    seen = {choose_veloop_move(position, 1, seed=seed) for seed in range(30)}
    assert len(seen) >= 4


@pytest.mark.serial
@pytest.mark.parametrize("seeded", [False, True])
def test_the_time_limit_is_a_hard_cap(seeded: bool) -> None:
    for size in (8, 12):
        position = _near_end(size, "122", 3, 60)
        start = time.perf_counter()
        move = choose_veloop_move(position, 5, seed=1 if seeded else None, time_limit=0.3)
        elapsed = time.perf_counter() - start
        assert move in position.legal_moves()
        # Level 5 would think for seconds; the margin only absorbs a loaded machine's scheduling.
        assert elapsed < 0.3 + 0.5


def test_openings_are_random_plies_shared_by_both_games_of_a_pair() -> None:
    plan = pairings(2, 1, 5, "medium", "current", 4, game="veloop", board=6, protocol="alternating")
    assert len(plan) == 6
    assert {(p.setup, p.a_black) for p in plan} == {(s, c) for s in range(3) for c in (True, False)}
    first = veloop_opening(6, "alternating", 4, 1)
    assert first.turns == veloop_opening(6, "alternating", 4, 1).turns
    assert first.turns != veloop_opening(6, "alternating", 4, 2).turns
    assert len(first.turns) == 3 and first.phase == "play"


@pytest.mark.slow
def test_a_short_match_is_played_to_the_end_and_won_by_the_stronger_level(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ai.LEVELS, 3, replace(ai.LEVELS[3], iterations=40))
    score, outcomes = match(3, 1, 4, game="veloop", board=6, protocol="122", seed=2)
    assert score.games == 4
    assert score.points >= 3
    for outcome in outcomes:
        game = find_game("veloop").from_record(outcome.record)
        assert game.phase == "over"
        assert game.size == 6
        assert outcome.choices_a > 0 and outcome.choices_b > 0


def test_the_match_command_plays_veloop(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", "--game", "veloop", "--board", "5", "--protocol", "alternating", "2", "1", "--games", "2"]
    assert main([*argv, "--seed", "4"]) == 0
    out, err = capsys.readouterr()
    assert "level 2 vs level 1:" in out
    assert "95% CI" in out and "Elo difference" in out
    assert err.count("opening 1, level 2 as") == 2


def test_the_benchmark_plays_a_veloop_row_and_prints_its_table() -> None:
    command = [sys.executable, "-m", "benchmarks.bench_ai", "--game", "veloop", "--games", "2", "--rows", "1"]
    out = subprocess.run(
        [*command, "--jobs", "1", "--seed", "3"], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    lines = out.stdout.splitlines()
    assert lines[0].startswith("### Veloop AI strength")
    header = next(i for i, line in enumerate(lines) if line.startswith("| match |"))
    row = [cell.strip() for cell in lines[header + 2].split("|")]
    assert row[1:4] == ["2 vs 1", "8×8", "2"]
    assert row[8] == "≥ 65%"
    assert "2 vs 1 on 8×8: " in out.stderr


def test_publishing_one_games_table_keeps_the_others(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import bench_ai

    results = tmp_path / "benchmarks" / "results"
    results.mkdir(parents=True)
    (results / "ai.md").write_text("### AI strength (Veletas)\n\n| old table |\n")
    doc = tmp_path / "docs" / "BENCHMARKS.md"
    doc.parent.mkdir()
    doc.write_text("# Speed\n\n<!-- bench:ai -->\nVeletas figures\n<!-- /bench:ai -->\n")
    monkeypatch.setattr(bench_ai, "RESULTS", results)
    monkeypatch.setattr(bench_ai, "ROOT", tmp_path)
    bench_ai.publish_section("ai-veloop", "### Veloop table v1", "cmd 1")
    bench_ai.publish_section("ai-veloop", "### Veloop table v2", "cmd 2")
    for path in (results / "ai.md", doc):
        text = path.read_text()
        assert "Veloop table v2" in text and "cmd 2" in text
        assert "v1" not in text
        assert text.count("<!-- bench:ai-veloop -->") == 1
    assert "| old table |" in (results / "ai.md").read_text()
    assert "Veletas figures" in doc.read_text()
    bench_ai.publish_section("ai", "### AI strength v3", "cmd 3")
    text = (results / "ai.md").read_text()
    assert "| old table |" not in text and "AI strength v3" in text and "Veloop table v2" in text


@pytest.mark.slow
def test_level_three_thinking_time_is_reported_per_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import bench_ai

    monkeypatch.setitem(ai.LEVELS, 3, replace(ai.LEVELS[3], iterations=8))
    text = bench_ai.think_time(1, 5)
    lines = text.splitlines()
    assert lines[0] == "### Veloop level 3's thinking time (8×8, protocol 122)"
    cells = [cell.strip() for cell in lines[4].split("|")[1:-1]]
    assert int(cells[0]) > 10
    assert all(cell.endswith(" s") for cell in cells[1:5]) and cells[6].endswith(" s")
    assert cells[5].endswith("×"), "the longest decision beside the house reference"
    assert 0 <= int(cells[7]) <= int(cells[0])


@pytest.mark.slow
def test_a_partial_run_keeps_the_other_published_rows_with_their_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--rows 1 --keep --write`` measures row 1 and keeps rows 2–5 as published, each naming the run that
    measured it; a second partial run keeps naming that first run, not itself."""
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import bench_ai

    results = tmp_path / "benchmarks" / "results"
    results.mkdir(parents=True)
    old = [
        f"| {r.level_a} vs {r.level_b} | 8×8 | 40 | {50 + k}% | x | x | x | x | x |"
        for k, r in enumerate(bench_ai.VELOOP_ROWS)
    ]
    doc = tmp_path / "docs" / "BENCHMARKS.md"
    doc.parent.mkdir()
    doc.write_text(
        "# Speed\n\n<!-- bench:ai-veloop -->\n### Veloop AI strength\n\n| match |\n|---|\n"
        + "\n".join(old)
        + "\n\n_Measured on Old CPU, 2026-01-01 with `old command`._\n<!-- /bench:ai-veloop -->\n"
    )
    monkeypatch.setattr(bench_ai, "RESULTS", results)
    monkeypatch.setattr(bench_ai, "ROOT", tmp_path)
    argv = ["--game", "veloop", "--games", "2", "--jobs", "1", "--seed", "3", "--rows", "1", "--keep", "--write"]
    assert bench_ai.main(argv) == 0
    published = doc.read_text()
    table = [line for line in published.splitlines() if re.match(r"\| \d vs \d \|", line)]
    assert [line.split("|")[1].strip() for line in table] == ["2 vs 1", "3 vs 2", "4 vs 3", "5 vs 3", "5 vs 4"]
    assert table[0] not in old and "| 2 |" in table[0], "row 1 is measured afresh (2 games)"
    assert table[1:] == old[1:], "the other rows are kept as published"
    old_source = "as measured on Old CPU, 2026-01-01 with `old command`."
    assert f"Kept from an earlier run: 3 vs 2, 4 vs 3, 5 vs 3, 5 vs 4, {old_source}" in published
    assert "--rows 1 --keep --write`._" in published
    # Row 2 now, keeping row 1 from the run above and the rest from the old one.
    argv[argv.index("--rows") + 1] = "2"
    monkeypatch.setitem(ai.LEVELS, 3, replace(ai.LEVELS[3], iterations=8))
    assert bench_ai.main(argv) == 0
    published = doc.read_text()
    assert f"Kept from an earlier run: 4 vs 3, 5 vs 3, 5 vs 4, {old_source}" in published
    assert re.search(
        r"Kept from an earlier run: 2 vs 1, as measured on .+ with `.*--rows 1 --keep --write`\.", published
    )
    assert published.count("<!-- bench:ai-veloop -->") == 1
