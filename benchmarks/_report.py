"""Publishing measured figures: each benchmark writes its table here and into the README.

The README holds blocks between ``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->`` markers;
a benchmark run with ``--write`` replaces its own block, so every figure in the README was
produced by a command anyone can run, never typed by hand.
"""

from __future__ import annotations

import datetime
import os
import platform
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def machine() -> str:
    """One line about where the figures were measured."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {datetime.date.today().isoformat()}"


def publish(name: str, markdown: str, command: str) -> None:
    """Write results/NAME.md and splice it into the README between its markers (added at the end if absent)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    body = f"{markdown.rstrip()}\n\n_Measured on {machine()} with `{command}`._\n"
    (RESULTS / f"{name}.md").write_text(body)
    readme = ROOT / "README.md"
    text = readme.read_text() if readme.exists() else ""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{body}{end}"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _m: block, text) if pattern.search(text) else f"{text.rstrip()}\n\n{block}\n"
    readme.write_text(text)
