"""A puzzle solved on the board page in Chromium, against a real local table: ``/veloop puzzle``, Solve on the board,
the member's own link opened, the solution clicked square by square (the defender's reply shown), solved and rated;
back in Discord the same button shows it solved. Nothing is posted publicly."""

from __future__ import annotations

import asyncio
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser
from puzzle_positions import veloop_two

from bot.local import LOCAL_DATABASE_PATH
from bot.store import Store
from bot.store.puzzle_play import Standing
from browser.driver import BoardPage, TableProcess

SOLVE = "Solve on the board"
LINK = re.compile(r"http://127\.0\.0\.1:[0-9]+/board/#puzzle=\S+")


def seed_and_standing(path: Path, member: int, seed: bool) -> Standing:
    """Keep the puzzle in the table's database (another process's, as a second bot process would), or read back."""

    async def work() -> Standing:
        store = await Store.open(path)
        try:
            if seed:
                assert await store.add_puzzles([veloop_two()]) == 1
            return await store.puzzle_standing(member, "veloop")
        finally:
            await store.close()

    with ThreadPoolExecutor(1) as thread:  # Playwright's own event loop runs in this one
        return thread.submit(asyncio.run, work()).result()


def puzzle_message(table: TableProcess, member: str, channel: int) -> dict[str, Any]:
    """The member's private puzzle message, once the bot has answered (a slow answer is deferred first)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        for message in reversed(table.messages(member, channel)):
            if message["ephemeral"] and message["embeds"] and message["components"]:
                return dict(message)
        time.sleep(0.05)
    raise AssertionError(f"no puzzle message: {table.messages(member, channel)}")


def click(table: TableProcess, member: str, channel: int, message: dict[str, Any], label: str) -> dict[str, Any]:
    """Press ``label`` on ``message`` and wait for the message's edit (its description changes)."""
    custom_id = next(
        b["custom_id"] for row in message["components"] for b in row.get("components", []) if b.get("label") == label
    )
    body = {"member": str(table.member_id(member)), "action": "click", "message": message["id"], "custom_id": custom_id}
    body["channel"] = str(channel)
    table.api("POST", "/api/act", body)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        now = next(m for m in table.messages(member, channel) if m["id"] == message["id"])
        if now["embeds"][0].get("description") != message["embeds"][0].get("description"):
            return dict(now)
        time.sleep(0.05)
    raise AssertionError(f"{label}: the puzzle's message was not edited")


def clicked_turn(board: BoardPage, turn: str) -> None:
    target, support = turn.split("<")
    assert target in board.offered()
    supports = board.state()["board"]["steps"]["moves"][target]
    board.click_square(target)
    if len(supports) > 1:
        assert sorted(board.offered()) == sorted(supports)
        board.click_square(support)


def test_a_puzzle_is_solved_by_clicking_on_the_board_page(table: TableProcess, browser: Browser) -> None:
    puzzle = veloop_two()
    alice = table.member_id("alice")
    database = table.directory / LOCAL_DATABASE_PATH
    seed_and_standing(database, alice, seed=True)
    channel = table.general()
    public_before = len(table.messages("bob", channel))
    table.slash("alice", ["veloop", "puzzle"], channel)
    shown = puzzle_message(table, "alice", channel)
    opened = click(table, "alice", channel, shown, SOLVE)
    found = LINK.search(opened["embeds"][0]["description"])
    assert found is not None, opened["embeds"][0]

    context = browser.new_context(viewport={"width": 420, "height": 860}, has_touch=True)
    page = context.new_page()
    board = BoardPage(page.main_frame, found[0].split("#", 1)[0])  # the table passes its /board/ through
    try:
        page.goto(found[0])
        page.wait_for_selector("body[data-ready='1']")
        assert page.inner_text("#status") == "Black to move: confine a stone in 2 turns"
        assert "Your puzzle rating: 1500?" in page.inner_text("#result")

        # Each turn clicked: its target, then its support among those the page offers (unless it is the only one).
        clicked_turn(board, puzzle.solution[0])
        board.wait_version(2)
        assert page.inner_text("#result .line") == f"Right: {puzzle.solution[0]}. The reply: {puzzle.solution[1]}."
        assert board.state()["last_turn"] == puzzle.solution[1]
        assert page.inner_text("#status") == "Black to move: confine a stone in 1 turn"

        clicked_turn(board, puzzle.solution[2])
        page.wait_for_selector("body[data-puzzle='solved']")
        assert page.inner_text("#status") == "Puzzle solved"
        lines = page.eval_on_selector_all("#result .line", "nodes => nodes.map(n => n.textContent)")
        assert lines[0] == f"Solved with {puzzle.solution[2]}!"
        assert re.fullmatch(r"Puzzle rating: 1500 → [0-9]+ \(\+[0-9]+\)", lines[1]), lines
        assert board.offered() == [] and page.is_hidden("#keyboard")
        assert not board.errors and not board.foreign, (board.errors, board.foreign)
    finally:
        context.close()

    # Rated by the store's puzzle path; back in Discord the button shows it solved; nothing public.
    standing = seed_and_standing(database, alice, seed=False)
    assert standing.streak == 1 and standing.rating.value > 1500
    ended = click(table, "alice", channel, opened, SOLVE)
    assert f"Solved on the board page with {puzzle.solution[2]}!" in ended["embeds"][0]["description"]
    assert len(table.messages("bob", channel)) == public_before
