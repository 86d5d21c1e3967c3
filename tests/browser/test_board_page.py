"""The board page in Chromium, against a real local table: whole games played only by clicking, watched live,
mixed with slash commands, a premove, refusals, a dropped connection. Each member opens the page as on Discord
(``open_board``): "Play on the board" under the game's board on the table's page, the panel, and the real Embedded
App SDK in the page getting the member's session through the table's side of Discord; a game in a thread, where
the launch is refused, through the personal link the bot answers with."""

from __future__ import annotations

import json
import random
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser

from bot.rules.registry import find_game
from browser.driver import BoardPage, TableProcess, open_board, open_link


@pytest.fixture
def pages() -> Iterator[list[BoardPage]]:
    opened: list[BoardPage] = []
    yield opened
    for board in opened:
        board.close()
        assert not board.errors, f"the page threw: {board.errors}"
        assert not board.foreign, f"the page reached beyond its server: {board.foreign}"


def board_posts(table: TableProcess, channel: int, game_id: int) -> list[dict[str, Any]]:
    """The game's boards the bot posted in its channel, oldest first."""
    return [
        m
        for m in table.messages("carol", channel)
        if any(e.get("title", "").split(" · ")[0].endswith(f"#{game_id}") for e in m["embeds"])
    ]


def wait_posts(table: TableProcess, channel: int, game_id: int, count: int) -> list[dict[str, Any]]:
    """Polls the table until the bot has posted ``count`` boards of the game (posting follows the store)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        found = board_posts(table, channel, game_id)
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"{count} boards expected, {len(board_posts(table, channel, game_id))} posted")


def play_out(players: dict[str, BoardPage], watchers: list[BoardPage], rng: random.Random) -> int:
    """Click turns, each by whoever the page says is to act, to the end; every page must show every turn.
    Returns how many turns were clicked."""
    any_page = watchers[0]
    turns = 0
    while any_page.state()["status"] == "active":
        state = any_page.state()
        if not state["board"]["steps"] or state["board"]["steps"].get("moves") == {}:
            any_page.wait_version(state["version"] + 1)  # a forced pass: the bot plays it itself, at once
            continue
        board = next(b for b in players.values() if b.page.evaluate("() => window.__board.you.id") == state["turn"])
        board.play_turn(rng)
        version = board.version()
        for watcher in (*players.values(), *watchers):
            watcher.wait_version(version)
        turns += 1
        assert turns < 300
    return turns


def test_a_whole_veletas_game_by_clicking_watched_live(
    table: TableProcess, browser: Browser, pages: list[BoardPage]
) -> None:
    game_id, channel = table.start_game("alice", "bob", "veletas", where="here", variant="small")
    players = {name: open_board(browser, table, name, game_id, channel) for name in ("alice", "bob")}
    # Carol's browser speaks Japanese, and so does her page.
    carol = open_board(browser, table, "carol", game_id, channel, locale="ja-JP")
    pages.extend([*players.values(), carol])
    assert "観戦中" in carol.page.inner_text("#status")
    assert not carol.offered(), "a spectator is offered nothing"
    assert not carol.page.is_visible("#keyboard") and not players["bob"].page.is_visible("#keyboard")
    assert players["alice"].page.is_visible("#keyboard"), "the player to move may type a turn"
    # A spectator's clicks choose nothing and send nothing.
    requests: list[str] = []
    carol.tab.on("request", lambda request: requests.append(request.url))
    for square in ("d4", "d4", "c3"):
        carol.click_square(square)
    assert carol.page.evaluate("window.__board.picks.length") == 0 and not requests
    # In the panel, every square of the 7×7 board is a touch target of 44 px or more.
    sizes = players["alice"].page.eval_on_selector_all(
        "#board .sq",
        "cells => cells.map(c => Math.min(c.getBoundingClientRect().width, c.getBoundingClientRect().height))",
    )
    assert len(sizes) == 49 and min(sizes) >= 44, min(sizes)
    turns = play_out(players, [carol], random.Random(3))
    final = carol.state()
    assert final["ply"] == turns and final["status"] == "finished"
    assert final["result"]["winner"] in {p["id"] for p in final["players"]}
    assert "の勝ち" in carol.page.inner_text("#result")
    assert players["alice"].page.locator("#result .rating").count() == len(final["result"]["ratings"])
    # Each click's turn was posted in the channel as a slash command's is: one board per turn, the first included.
    posts = wait_posts(table, channel, game_id, turns + 1)
    assert "Game over" in json.dumps(posts[-1]["embeds"])


def test_a_whole_veloop_game_by_clicking_watched_live(
    table: TableProcess, browser: Browser, pages: list[BoardPage]
) -> None:
    game_id, channel = table.start_game("alice", "bob", "veloop", where="here", board="5")
    players = {name: open_board(browser, table, name, game_id, channel) for name in ("alice", "bob")}
    carol = open_board(browser, table, "carol", game_id, channel)
    pages.extend([*players.values(), carol])
    turns = play_out(players, [carol], random.Random(4))
    final = carol.state()
    assert turns >= 4 and final["ply"] >= turns
    assert final["status"] == "finished" and final["result"] is not None
    assert carol.page.inner_text("#result").strip()
    # The confined stones that ended it are marked on every page.
    confined = final["board"]["confined"]["black"] + final["board"]["confined"]["white"]
    if final["result"]["termination"] == "confinement":
        marked = carol.page.eval_on_selector_all("#board .sq.confined", "cs => cs.map(c => c.dataset.square)")
        assert sorted(marked) == sorted(confined) and marked


def test_a_mixed_game_refusals_and_a_dropped_connection(
    table: TableProcess, browser: Browser, pages: list[BoardPage]
) -> None:
    game_id, channel = table.start_game("alice", "bob", "veletas", where="here", variant="small")
    alice = open_board(browser, table, "alice", game_id, channel)
    bob = open_board(browser, table, "bob", game_id, channel)
    pages.extend([alice, bob])
    rng = random.Random(5)
    # Alice sets up by clicking; a click of Bob's while it is not his turn offers and sends nothing.
    assert not bob.offered()
    version = bob.version()
    bob.click_square("d4")
    assert bob.offered() == [] and bob.version() == version
    alice.play_turn(rng)
    # Bob answers with the slash command (once he has seen the board in the thread, as a member would): both pages
    # show it.
    state = bob.state()
    wait_posts(table, channel, game_id, state["ply"] + 1)
    steps = state["board"]["steps"]
    if state["phase"] == "pie":
        table.slash("bob", ["veletas", "pie"], channel, choice="keep")
    else:
        shooters = ",".join(steps["squares"][-steps["count"] :])
        table.slash("bob", ["veletas", "setup"], channel, **setup_options(shooters, steps))
    alice.wait_version(state["version"] + 1)
    bob.wait_version(state["version"] + 1)
    # An illegal turn typed on the page is refused in words, and changes nothing.
    while alice.state()["phase"] != "play" or alice.state()["turn"] != alice.page.evaluate("window.__board.you.id"):
        mover = alice if alice.state()["turn"] == alice.page.evaluate("window.__board.you.id") else bob
        mover.play_turn(rng)
        alice.wait_version(mover.version())
    version = alice.version()
    alice.page.fill("#typed", "a1-a2/a3")
    alice.page.press("#typed", "Enter")
    alice.page.wait_for_function("() => document.getElementById('notice').textContent.length > 0")
    assert alice.version() == version
    # A legal turn typed as in the notation is played like a click.
    moves = alice.state()["board"]["steps"]["moves"]
    shooter = sorted(moves)[-1]
    square = sorted(moves[shooter])[-1]
    typed = moves[shooter][square][0] if square == shooter else f"{shooter}-{square}/{moves[shooter][square][0]}"
    alice.page.fill("#typed", typed)
    alice.page.press("#typed", "Enter")
    alice.wait_version(version + 1)
    bob.wait_version(version + 1)
    assert bob.state()["last_turn"] == typed
    bob.play_turn(rng)
    alice.wait_version(bob.version())
    version = alice.version()
    # A click on a square the page does not offer starts nothing.
    empty = next(s for s in all_squares(7) if s not in alice.state()["board"]["cells"])
    alice.click_square(empty)
    assert alice.page.evaluate("window.__board.picks.length") == 0 and alice.version() == version
    # Alice's connection drops; Bob's turn comes by slash command meanwhile; her page recovers the position.
    alice.play_turn(rng)
    bob.wait_version(alice.version())
    alice.page.evaluate("() => { window.__board.fatal = false; window.__dropConnection(); }")
    moves = bob.state()["board"]["steps"]["moves"]
    shooter = sorted(moves)[0]
    square = sorted(moves[shooter])[0]
    target = moves[shooter][square][0]
    text = target if square == shooter else f"{shooter}-{square}/{target}"
    before = bob.version()
    wait_posts(table, channel, game_id, bob.state()["ply"] + 1)
    table.slash("bob", ["veletas", "move"], channel, move=text)
    bob.wait_version(before + 1)
    alice.wait_version(before + 1)
    assert alice.state()["last_turn"] == bob.state()["last_turn"]
    assert "turn" in alice.page.inner_text("#status").lower()
    # #general holds one game at a time: Alice resigns by command, and both pages show the game over.
    table.resign("alice", "veletas", channel)
    for board in (alice, bob):
        board.page.wait_for_function("() => window.__board.state.status === 'finished'")


def setup_options(shooters: str, steps: dict[str, Any]) -> dict[str, str]:
    options = {"shooters": shooters.replace(",", " ")}
    if steps["stone"]:
        options["stone"] = next(s for s in steps["stones"] if s not in shooters.split(","))
    return options


def all_squares(size: int) -> list[str]:
    return [f"{chr(97 + f)}{r + 1}" for r in range(size) for f in range(size)]


def test_a_non_player_and_a_forged_token_cannot_move(table: TableProcess, browser: Browser) -> None:
    game_id, _ = table.start_game("alice", "carol", "veloop", board="5")
    for token in (table.session("bob", game_id), table.session("alice", game_id)[:-3] + "AAA"):
        request = urllib.request.Request(
            table.board_url + "api/move",
            data=json.dumps({"turn": "c4<b2", "version": 1}).encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request)
        assert refused.value.code in (401, 403)
        assert json.loads(refused.value.read())["error"]
    page = browser.new_context().new_page()
    try:
        page.goto(table.board_url)
        page.wait_for_selector("body[data-ready='no-session']")
        assert "Discord" in page.inner_text("#status")
    finally:
        page.context.close()


def test_a_premove_in_a_live_game(table: TableProcess, browser: Browser, pages: list[BoardPage]) -> None:
    game_id, channel = table.start_game("alice", "bob", "veloop", where="here", board="5", time="5+3")
    alice = open_board(browser, table, "alice", game_id, channel)
    bob = open_board(browser, table, "bob", game_id, channel)
    pages.extend([alice, bob])
    game = find_game("veloop").new({"board": "5"})
    rng = random.Random(6)
    # 122: Black (Alice) plays one stone, then White (Bob) two. Bob queues his first while Alice thinks.
    alice_move = str(rng.choice(game.position.legal_moves()))  # type: ignore[attr-defined]
    after = game.play(alice_move)
    bob_move = str(after.position.legal_moves()[0])  # type: ignore[attr-defined]
    target, support = bob_move.split("<")
    bob.click_square(target)
    bob.click_square(support)
    bob.page.wait_for_selector("#premove-cancel")
    assert bob_move in bob.page.inner_text("#premove")
    version = alice.version()
    target, support = alice_move.split("<")
    alice.click_square(target)
    if alice.version() == version and alice.page.evaluate("window.__board.picks.length"):
        alice.click_square(support)
    # Bob's queued move is played the instant Alice's is stored: two turns, without Bob clicking again.
    alice.wait_version(version + 2)
    state = alice.state()
    assert state["last_turn"] == bob_move and state["ply"] == 2
    # The clocks tick on the page from the server's figures: Bob's runs (his second move of the turn).
    clock = bob.page.locator(".player[data-seat='second'] .clock")
    first = clock.inner_text()
    assert re.fullmatch(r"[45]:\d\d", first), first
    bob.page.wait_for_function(
        "t => document.querySelector(\".player[data-seat='second'] .clock\").textContent !== t", arg=first
    )
    bob.page.wait_for_function("() => !document.getElementById('premove-cancel')")
    table.resign("alice", "veloop", channel)  # #general is free again for the next game
    bob.page.wait_for_function("() => window.__board.state.status === 'finished'")


def test_a_game_in_a_thread_is_played_from_the_personal_link(
    table: TableProcess, browser: Browser, pages: list[BoardPage]
) -> None:
    game_id, thread = table.start_game("alice", "bob", "veloop", board="5")
    # In the game's thread the launch is refused (as Discord refuses it there): the bot answers Alice privately with
    # her personal link, of the table's own address, and the link opens the board page in the same panel.
    alice = open_board(browser, table, "alice", game_id, thread)
    assert alice.hands is not None
    answer = alice.hands.page.locator("#messages .msg.ephemeral").last.inner_text()
    assert "not in threads" in answer and "Only you can see this" in answer
    assert alice.page.url.startswith(f"{table.url}/board/#session=") and "frame_id" not in alice.page.url
    # Bob opens his personal link in a tab of its own, as any browser opens a link outside Discord.
    bob = open_link(browser, table, "bob", game_id)
    pages.extend([alice, bob])
    assert bob.page.url.startswith(table.board_url)
    players = {alice.page.evaluate("window.__board.you.id"): alice, bob.page.evaluate("window.__board.you.id"): bob}
    rng = random.Random(7)
    for _ in range(4):
        state = alice.state()
        players[state["turn"]].play_turn(rng)
        for board in players.values():
            board.wait_version(state["version"] + 1)
    # Each clicked turn was posted in the thread, after the first board.
    wait_posts(table, thread, game_id, alice.state()["ply"] + 1)
