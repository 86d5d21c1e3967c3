"""Publishing measured figures: each benchmark writes its table here, into docs/BENCHMARKS.md and the README's summary.

docs/BENCHMARKS.md holds blocks between ``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->`` markers; a
benchmark run with ``--write`` replaces its own block, then the README's ``<!-- bench:summary -->`` block
is made again from the headline rows of those tables (``SUMMARY``). So every figure in the docs was
produced by a command anyone can run, never typed by hand; ``python -m benchmarks._report`` remakes the
summary alone.
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
BENCHMARKS_DOC = Path("docs") / "BENCHMARKS.md"
"""Where the full tables live, relative to the repository's root."""


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


def splice(text: str, name: str, body: str) -> str:
    """The text with ``body`` between NAME's markers (the block added at the end when absent)."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{body}{end}"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    return pattern.sub(lambda _m: block, text) if pattern.search(text) else f"{text.rstrip()}\n\n{block}\n"


def block(text: str, name: str) -> str | None:
    """What NAME's markers hold in the text, or None."""
    match = re.search(
        re.escape(f"<!-- bench:{name} -->") + r"\n(.*?)" + re.escape(f"<!-- /bench:{name} -->"), text, re.S
    )
    return match.group(1) if match else None


def publish(name: str, markdown: str, command: str, root: Path = ROOT) -> None:
    """Write results/NAME.md, splice it into docs/BENCHMARKS.md between its markers and remake the README's summary."""
    results = root / "benchmarks" / "results"
    results.mkdir(parents=True, exist_ok=True)
    body = f"{markdown.rstrip()}\n\n_Measured on {machine()} with `{command}`._\n"
    (results / f"{name}.md").write_text(body)
    doc = root / BENCHMARKS_DOC
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(splice(doc.read_text() if doc.exists() else "", name, body))
    refresh_summary(root)


# The README's summary: (benchmark block, a text its row holds, what the summary calls it, and for a table
# whose ratio is said in its prose rather than a column, the pattern that finds it there).
SUMMARY: tuple[tuple[str, str, str, str], ...] = (
    ("render", "| Veletas board_png, standard midgame, dark |", "a board image (Veletas, standard, dark)", ""),
    ("bot", "| (a) latency", "a move answered with its board, p50 / p99, at 50 moves/s", r"\(a\) p99 = ([\d.]+×)"),
    (
        "bot",
        "| (b) sustained rate",
        "moves per second the bot sustains (× reference: one move's time)",
        r"\(b\) one move = ([\d.]+×)",
    ),
    ("rules", "| legal moves listed", "Veletas legal moves listed (× reference: moves in one reference's time)", ""),
    ("clock", "| lateness after the deadline", "a deadline acted on late by, p50 / p99 / max", ""),
    ("ratings", "| a leaderboard page", "a leaderboard page, p50 / p99", ""),
    (
        "tournaments",
        "| pair round 2 of a 500-player Swiss",
        "pairing round 2 of a 500-player Swiss (× reference: sorting 500 tuples)",
        "",
    ),
    ("local", "| click on Play", "the local table: a click to the new board, p50 / p95", ""),
    (
        "board",
        "| move stored → spectator's page redrawn",
        "the board page: a move stored → every open page redrawn, p50 / p95, 50 games open"
        " (× reference: one state request)",
        r"\(([\d.]+×) for the update\)",
    ),
    ("board", "| clicks for a", "the board page: clicks for a 13-turn 7×7 Veletas game", ""),
    (
        "arena",
        "| a game's end to each player's next pairing stored",
        "a 200-player arena: a game's end to each player's next pairing, p50 / p95 / max",
        "",
    ),
    (
        "arena",
        "| a game's end to each player's next game stored",
        "a 200-player arena: a game's end to each player's next game, p50 / p95 / max",
        "",
    ),
    (
        "ai-random",
        "| veletas | small | current |",
        "AI level 2's score against a random mover, Veletas small board",
        "",
    ),
    ("ai-random", "| veloop | 5×5 | 122 |", "AI level 2's score against a random mover, Veloop 5×5", ""),
    (
        "puzzles",
        "| all | all stored games |",
        "puzzles mined per CPU-minute from stored games (× reference: CPU time a puzzle)",
        "",
    ),
    (
        "review",
        "| a 60-turn game reviewed: Veletas standard",
        "a 60-turn Veletas game (standard board) reviewed: worker CPU (wall)",
        "",
    ),
)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def summary(doc: str) -> str:
    """The README's few headline figures, read from the tables of docs/BENCHMARKS.md."""
    lines = [
        "| measure | figure | × reference | target met | measured |",
        "|---|---|---|---|---|",
    ]
    for name, row_text, label, ratio_pattern in SUMMARY:
        text = block(doc, name)
        if text is None:
            continue
        table = [line for line in text.splitlines() if line.startswith("|")]
        header = _cells(table[0])
        row = next((_cells(line) for line in table if row_text in line), None)
        if row is None:
            continue
        cell = dict(zip(header, row, strict=False))
        figure = next(cell[h] for h in header if h in ("figure", "result", "measured", "time"))
        ratio = next((cell[h] for h in header if h.startswith("×") or h == "per reference"), "")
        if ratio_pattern and (found := re.search(ratio_pattern, text)):
            ratio = found.group(1)
        date = re.search(r"(\d{4}-\d{2}-\d{2}) with `", text)
        lines.append(f"| {label} | {figure} | {ratio} | {cell.get('met', '')} | {date.group(1) if date else ''} |")
    lines += [
        "",
        f"*× reference* divides a time by {REFERENCE} (unless the row names another), measured in the same "
        "run: the machine is shared, so the milliseconds move with its load and the ratios much less. "
        "Every table, with the machine and the command that measured it: [docs/BENCHMARKS.md](docs/BENCHMARKS.md).",
    ]
    return "\n".join(lines) + "\n"


def refresh_summary(root: Path = ROOT) -> None:
    """Remake the README's summary block from docs/BENCHMARKS.md (nothing when the README has no such block)."""
    readme, doc = root / "README.md", root / BENCHMARKS_DOC
    if not readme.exists() or not doc.exists():
        return
    text = readme.read_text()
    if block(text, "summary") is not None:
        readme.write_text(splice(text, "summary", summary(doc.read_text())))


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


if __name__ == "__main__":
    refresh_summary()
    print(f"Remade the README's summary from {BENCHMARKS_DOC}")
