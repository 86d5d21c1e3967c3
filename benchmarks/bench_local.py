"""The local table in a real browser: how soon the page is ready, and a click on Play until the new board shows.

Run ``python -m benchmarks.bench_local`` to print a markdown table, ``--write`` to publish it into
docs/BENCHMARKS.md through ``benchmarks._report.publish``. It drives the page exactly as the browser tests
do (``tests/browser/driver.py``): ``python -m bot local`` as a child process, Debian's Chromium
headless through Playwright. References measured in the same run: the page's two JSON calls
fetched without a browser (what readiness costs the server) and, for each move, the time until
the bot had answered the click (the rest is the board's upload, the live update and the image).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser.driver import Player, TableProcess, chromium  # noqa: E402
from e2e.table import random_setup_turn, split_setup  # noqa: E402

from bot.rules import Game  # noqa: E402

READY_TARGET_MS = 1000.0
CONFIRM_TARGET_MS = 500.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def fetch_ms(url: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(f"{url}/api/state") as answer:
        state = json.loads(answer.read())
    with urllib.request.urlopen(f"{url}/api/messages?member={state['members'][0]['id']}&channel={state['general']}"):
        pass
    return (time.perf_counter() - start) * 1000


def page_ready(table: TableProcess, loads: int) -> tuple[list[float], list[float]]:
    ready, reference = [], []
    with chromium() as browser:
        for _ in range(loads):
            context = browser.new_context()
            player = Player(context.new_page(), table.url)
            ready.append(player.open())
            context.close()
            reference.append(fetch_ms(table.url))
    return ready, reference


def confirm_to_board(table: TableProcess, moves: int, seed: int) -> tuple[list[float], list[float]]:
    """Two members play medium games by clicking; each Play click is timed until its board image has loaded."""
    rng = random.Random(seed)
    shown: list[float] = []
    answered: list[float] = []
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        player = Player(context.new_page(), table.url)
        player.open()
        round_no = 0
        while len(shown) < moves:
            round_no += 1
            names = {"first": f"p{round_no}a", "second": f"p{round_no}b"}
            for name in names.values():
                player.add_member(name)
            player.act_as(names["first"])
            player.command("veletas challenge", opponent=names["second"], variant="medium")
            challenge = player.last_message(f"@{names['first']} challenges")
            player.act_as(names["second"])
            challenge.get_by_role("button", name="Accept").click()
            player.open_channel(names["first"])
            boards = 1
            player.wait_boards(boards)
            game = Game.new("medium")
            while game.phase in ("setup", "pie"):
                seat = game.seat_to_act
                assert seat is not None
                player.act_as(names[seat])
                turn = random_setup_turn(game, rng)
                if game.phase == "pie":
                    turn = "keep"
                    player.page.locator("#messages .msg button.component", has_text="Keep colours").last.click()
                else:
                    options = split_setup(turn)
                    player.type("/veletas setup " + " ".join(f"{k}:{v}" for k, v in options.items()))
                game = game.play(turn)
                boards += 1
                player.wait_boards(boards)
            while game.seat_to_act is not None and len(shown) < moves:
                player.act_as(names[game.seat_to_act])
                move, elapsed = player.play_by_clicking()
                shown.append(elapsed)
                answered.append(_play_answer_ms(player))
                game = game.play(move)
            player.open_channel("general")
        context.close()
    return shown, answered


def _play_answer_ms(player: Player) -> float:
    """How long the Play click's request took: until the bot had answered the interaction."""
    return float(player.page.evaluate("window.__acts.filter(a => a.action === 'click').at(-1).ms"))


def table(ready: list[float], ready_ref: list[float], shown: list[float], answered: list[float]) -> str:
    def verdict(ok: bool) -> str:
        return "yes" if ok else "no"

    ready_p95 = percentile(ready, 0.95)
    shown_p95 = percentile(shown, 0.95)
    return "\n".join(
        [
            "| measure | result | target | met |",
            "|---|---|---|---|",
            f"| page ready after load (navigation start → table shown), p50 / p95 over {len(ready)} loads"
            f" | {statistics.median(ready):.0f} ms / {ready_p95:.0f} ms | ≤ 1000 ms"
            f" | {verdict(ready_p95 <= READY_TARGET_MS)} |",
            "|   reference: the page's two JSON calls without a browser, p50"
            f" | {statistics.median(ready_ref):.1f} ms |  |  |",
            f"| click on Play (confirm) → new board image visible, p50 / p95 over {len(shown)} moves"
            f" | {statistics.median(shown):.0f} ms / {shown_p95:.0f} ms | p95 ≤ 500 ms |"
            f" {verdict(shown_p95 <= CONFIRM_TARGET_MS)} |",
            f"|   reference: the same clicks until the bot answered the interaction, p50 / p95"
            f" | {statistics.median(answered):.0f} ms / {percentile(answered, 0.95):.0f} ms |  |  |",
            "",
            "Headless Debian Chromium through Playwright; the bot runs as `python -m bot` against the fake"
            " Discord, all on the same 2 cores. Moves are medium-board games between two members, each move"
            " made by clicking Move, the private menus and Play.",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--loads", type=int, default=20, help="page loads timed")
    parser.add_argument("--moves", type=int, default=40, help="moves timed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", action="store_true", help="publish the table into docs/BENCHMARKS.md")
    args = parser.parse_args(argv)
    process = TableProcess()
    try:
        ready, ready_ref = page_ready(process, args.loads)
        shown, answered = confirm_to_board(process, args.moves, args.seed)
    finally:
        process.stop()
    markdown = "### The local table in a browser\n\n" + table(ready, ready_ref, shown, answered)
    print(markdown)
    if args.write:
        from benchmarks._report import publish

        publish("local", markdown, "python -m benchmarks.bench_local --write")
    return 0


if __name__ == "__main__":
    sys.exit(main())
