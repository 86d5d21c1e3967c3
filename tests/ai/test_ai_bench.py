"""The strength benchmark plays its rows and prints the table docs/BENCHMARKS.md shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_one_row_smoke_run_prints_a_complete_table() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_ai", "--games", "2", "--rows", "1", "--jobs", "1", "--seed", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    lines = out.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| match |"))
    row = [cell.strip() for cell in lines[header + 2].split("|")]
    assert row[1:4] == ["2 vs 1", "medium", "2"]
    assert row[4].endswith("%")
    assert row[8] == "≥ 65%"
    assert row[9] in ("yes", "likely", "**no**")
    assert any("2 games (every setup played once with each colour)" in line for line in lines)
    assert "2 vs 1 on medium: " in out.stderr
