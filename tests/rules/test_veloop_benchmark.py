"""The rules benchmark's Veloop section runs and reports what it measured (its figures feed docs/BENCHMARKS.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_benchmark_prints_every_veloop_case_and_flags_the_issue_target() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_rules", "--game", "veloop", "--seconds", "0.03"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    lines = out.stdout.splitlines()
    assert lines[0].startswith("| game |")
    assert len(lines) == 2 + 5 + 1 + 1  # header, rule, five playout cases, perft, the reference
    assert "8×8, protocol 122" in lines[2] and "≥ 340" in lines[2]
    cells = [cell.strip() for cell in lines[2].split("|")]
    assert cells[6] in ("yes", "**no**")
    # the work done in one reference's time: the figure times the reference's milliseconds
    figure = float(cells[3].split()[0].replace(",", ""))
    reference = float(lines[-1].split("|")[3].split()[0])
    assert abs(float(cells[4].replace(",", "")) - figure * reference / 1000) <= 1 + figure * reference / 1000 * 0.01
    assert "perft depth 5 from the 8×8 start" in lines[-2] and "reference: a plain 800×800" in lines[-1]
