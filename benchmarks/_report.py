"""Publishing measured figures: each benchmark writes its table here and into the README.

The README holds blocks between ``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->`` markers;
a benchmark run with ``--write`` replaces its own block, so every figure in the README was
produced by a command anyone can run, never typed by hand.
"""

from __future__ import annotations

import datetime
import io
import os
import platform
import re
import statistics
import time
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


REFERENCE = "a plain 800×800 RGB PNG encode (Pillow, default settings)"


def reference_ms(rounds: int = 30) -> float:
    """The house yardstick, measured in the same run as the figures beside it: the median time of
    encoding a plain 800×800 RGB image to PNG. A slow day slows it too, so a figure divided by it
    (a ratio) stays comparable across days and machines where the absolute one does not.
    """
    from PIL import Image

    image = Image.new("RGB", (800, 800))
    pixels = image.load()
    assert pixels is not None
    for y in range(0, 800, 8):  # some structure, so the encoder works as on a real picture
        for x in range(0, 800, 8):
            pixels[x, y] = ((x * 7) % 256, (y * 5) % 256, (x + y) % 256)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        image.save(io.BytesIO(), format="PNG")
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)
