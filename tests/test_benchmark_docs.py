"""The measured figures live in docs/BENCHMARKS.md, each between its benchmark's markers, and the README's
speed summary is made from them: a benchmark's ``--write`` finds its block there and remakes the summary."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import _report

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = (
    "rules",
    "render",
    "bot",
    "bot-languages",
    "bot-postgresql",
    "tournaments",
    "ai",
    "ai-veloop",
    "ai-veloop-time",
    "ai-random",
    "local",
    "board",
    "clock",
    "ratings",
    "arena",
    "puzzles",
    "review",
)


def test_every_benchmark_block_is_in_the_benchmarks_doc_once() -> None:
    doc = (ROOT / _report.BENCHMARKS_DOC).read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in BLOCKS:
        assert doc.count(f"<!-- bench:{name} -->") == 1 and doc.count(f"<!-- /bench:{name} -->") == 1, name
        assert f"<!-- bench:{name} -->" not in readme, f"{name}'s table belongs in docs/BENCHMARKS.md"
    # Each benchmark script names its block when it publishes: every name it writes is one of the blocks.
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        text = script.read_text(encoding="utf-8")
        for name in re.findall(r'publish(?:_section)?\(\s*"([\w-]+)"', text):
            assert name in BLOCKS, f"{script.name} publishes {name!r}, which docs/BENCHMARKS.md has no block for"


def test_the_readme_summary_is_made_from_the_tables() -> None:
    doc = (ROOT / _report.BENCHMARKS_DOC).read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert _report.block(readme, "summary") == _report.summary(doc), (
        "README.md's speed summary is stale: run `python -m benchmarks._report`"
    )
    rows = [line for line in _report.summary(doc).splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == len(_report.SUMMARY) + 1, "every headline row found in its table"


def test_publishing_writes_the_doc_and_remakes_the_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "docs").mkdir()
    doc = tmp_path / _report.BENCHMARKS_DOC
    doc.write_text("# Speed\n\n<!-- bench:clock -->\nold\n<!-- /bench:clock -->\n\ntail\n")
    (tmp_path / "README.md").write_text("# Bot\n\n<!-- bench:summary -->\nold\n<!-- /bench:summary -->\n\nmore\n")
    table = (
        "| measure | result | × ref | target | met |\n|---|---|---|---|---|\n"
        "| lateness after the deadline, p50 | 1 ms | 0.1× | | yes |\n"
    )
    monkeypatch.setattr(_report, "machine", lambda: "Test CPU, 2026-01-02")
    _report.publish("clock", table, "python -m benchmarks.bench_clock --write", root=tmp_path)
    text = doc.read_text()
    assert text.startswith("# Speed\n") and text.endswith("\ntail\n") and "old" not in text
    assert (
        "| 1 ms |" in text
        and "_Measured on Test CPU, 2026-01-02 with `python -m benchmarks.bench_clock --write`._" in text
    )
    assert (tmp_path / "benchmarks" / "results" / "clock.md").read_text() in text
    readme = (tmp_path / "README.md").read_text()
    assert "| a deadline acted on late by, p50 / p99 / max | 1 ms | 0.1× | yes | 2026-01-02 |" in readme
    assert readme.endswith("\nmore\n") and "old" not in readme
