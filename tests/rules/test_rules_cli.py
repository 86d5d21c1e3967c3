"""python -m bot.rules: perft, play and replay for Veletas (the default game)."""

import random
import subprocess
import sys
from pathlib import Path

import pytest

from bot.rules import random_setup
from bot.rules.__main__ import main

SAMPLE = "10/10/3S6/6S3/2b7/4S1S3/1S8/5w1S2/2S7/10 b"


def test_perft_prints_the_count_in_each_edition(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", SAMPLE, "1"]) == 0
    assert capsys.readouterr().out == "5247\n"
    assert main(["perft", SAMPLE, "1", "--rules", "classic"]) == 0
    assert capsys.readouterr().out == "3764\n"


def test_perft_split_lists_each_first_move_and_the_total(capsys: pytest.CaptureFixture[str]) -> None:
    small = "7/7/3S3/7/7/7/S6 b"
    assert main(["perft", small, "2", "--split"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("total: ")
    total = int(lines[-1].split(": ")[1])
    assert total == sum(int(line.split(": ")[1]) for line in lines[:-1])
    assert main(["perft", small, "2"]) == 0
    assert capsys.readouterr().out == f"{total}\n"


def test_play_prints_each_position_and_its_claims(capsys: pytest.CaptureFixture[str]) -> None:
    start = "7/5S1/3S3/7/7/ww5/S1b4 b"
    assert main(["play", start, "B1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "b1: 7/5S1/3S3/7/7/ww5/Wbb4 w  [a1 claimed by white (groups: black 2, white 2)]"
    assert out[-1] == "claimed: black 0, white 1; not finished"


def test_an_illegal_move_exits_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", SAMPLE, "d4-g7/g2"]) == 1
    assert capsys.readouterr().err == "error: d4 is not a shooter\n"
    assert main(["perft", "nonsense", "1"]) == 1
    assert "a position is the ranks" in capsys.readouterr().err


def test_replay_validates_a_record_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(11)
    game = random_setup("medium", "classic", rng)
    while game.phase == "play":
        game = game.play(str(rng.choice(game.position.legal_moves())))
    record = tmp_path / "game.txt"
    record.write_text(game.to_record())
    assert main(["replay", str(record)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{len(game.turns)} turns, all legal (medium, classic rules, phase over)"
    assert out[1] == str(game.position)
    assert out[2].endswith(f"{game.winner} wins")
    broken = tmp_path / "broken.txt"
    lines = [("3. j1" if line.startswith("3. ") else line) for line in game.to_record().splitlines()]
    broken.write_text("\n".join(lines))
    assert main(["replay", str(broken)]) == 1
    assert capsys.readouterr().err.startswith("error: turn 3: j1 is not on the 9×9 board")
    assert main(["replay", str(tmp_path / "missing.txt")]) == 1


def test_the_module_runs_as_a_program() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bot.rules", "--game", "veletas", "perft", "7/7/3S3/7/7/7/7 b", "1"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == "460\n", "22 stationary shots plus 438 moving ones for a lone central shooter"
