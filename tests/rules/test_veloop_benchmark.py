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
    assert len(lines) == 2 + 5 + 1  # header, rule, five playout cases, perft
    assert "8×8, protocol 122" in lines[2] and "≥ 340" in lines[2]
    assert lines[2].split("|")[5].strip() in ("yes", "**no**")
    assert "perft depth 5 from the 8×8 start" in lines[-1]
