"""The Veloop benchmark runs and reports what it measured (its figures feed the README)."""

from __future__ import annotations

from benchmarks import bench_veloop


def test_the_benchmark_table_names_every_case_and_flags_the_issue_target() -> None:
    figures = bench_veloop.measure(seconds=0.01, rounds=1)
    assert len(figures) == len(bench_veloop.PLAYOUT_CASES) + 1
    assert all(f.figure > 0 for f in figures)
    text = bench_veloop.table(figures)
    lines = text.splitlines()
    assert lines[0].startswith("| Veloop |") and len(lines) == len(figures) + 2
    assert "8×8, protocol 122" in lines[2] and "≥ 340" in lines[2]
    assert "perft(7) from the 8×8 start, protocol 122 (131,086 leaves)" in lines[-1]
