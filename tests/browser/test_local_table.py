"""The local table in a real browser: members play through the page as they would in Discord.

Each test adds its own members through the page, so the tests share one table process and one
Chromium without sharing games.
"""

from __future__ import annotations

import io
import random
import re
import urllib.request
from pathlib import Path

from e2e.table import random_setup_turn, split_setup
from PIL import Image, ImageChops, ImageStat

from bot.rules import Game
from browser.driver import Player, TableProcess


def listening_addresses(port: int) -> list[str]:
    """Local addresses of the sockets listening on ``port``, from the kernel's tables."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            address, hex_port = fields[1].rsplit(":", 1)
            if int(hex_port, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                found.append(address)
    return found


def test_the_table_listens_on_loopback_only(table: TableProcess) -> None:
    port = int(table.url.rsplit(":", 1)[1])
    assert listening_addresses(port) == ["0100007F"], "only 127.0.0.1, in the kernel's byte order"


def setup_text(turn: str) -> str:
    options = split_setup(turn)
    return "/veletas setup " + " ".join(f"{k}:{v}" for k, v in options.items())


def test_two_members_play_by_typing_and_clicking(player: Player) -> None:
    page = player.page
    player.open()
    player.add_member("ann")
    player.add_member("ben")
    player.act_as("ann")
    # Challenge by picking the command from the suggestions and filling its fields.
    player.command("veletas challenge", opponent="ben", variant="small")
    challenge = player.last_message("challenges")
    assert "@ann challenges @ben" in challenge.inner_text()
    player.act_as("ben")
    challenge.get_by_role("button", name="Accept").click()
    # The game gets its own thread, listed at the side: open it.
    player.open_channel("ann")
    player.wait_boards(1)
    game = Game.new("small")
    rng = random.Random(5)
    seats = {"first": "ann", "second": "ben"}
    boards = 1
    while game.phase in ("setup", "pie"):
        seat = game.seat_to_act
        assert seat is not None
        player.act_as(seats[seat])
        turn = random_setup_turn(game, rng)
        if game.phase == "pie":
            # The colour choice by clicking the board's button.
            page.locator("#messages .msg button.component", has_text="Keep colours").last.click()
            turn = "keep"
        else:
            player.type(setup_text(turn))  # the whole command line typed
        game = game.play(turn)
        boards += 1
        player.wait_boards(boards)

    # A refusal reaches only its member: the one who is not to move tries to move.
    mover = seats[game.seat_to_act or "first"]
    waiting = "ben" if mover == "ann" else "ann"
    player.act_as(waiting)
    move = str(game.position.legal_moves()[0])
    player.type(f"/veletas move move:{move}")
    refusal = player.last_message("Only you can see this")
    assert "turn" in refusal.inner_text()
    refusals = player.count("Only you can see this")
    player.act_as(mover)
    page.wait_for_function(
        "n => [...document.querySelectorAll('#messages .msg')]"
        ".filter(m => m.textContent.includes('Only you can see this')).length < n",
        arg=refusals,
    )

    # A move typed into the option field, with the bot's autocomplete suggestions on the way.
    page.fill("#composer", "/veletas mo")
    page.click("#suggestions li[data-command='veletas move']")
    field = page.locator("#options [data-option='move']")
    field.fill(move[:2])
    # The bot's own suggestions narrow to what was typed (the list first shows all shooters, on focus).
    page.wait_for_function(
        """p => {
            const items = [...document.querySelectorAll('#options .ac-list li')];
            return items.length > 0 && items.every(li => li.dataset.value.startsWith(p));
        }""",
        arg=move[:2],
    )
    offered = page.locator("#options .ac-list li").evaluate_all("items => items.map(li => li.dataset.value)")
    assert offered and all(value.startswith(move[:2]) for value in offered), offered
    field.fill(move)
    page.locator("#options .ac-list").evaluate("e => e.hidden = true")
    page.click("#send")
    game = game.play(move)
    boards += 1
    player.wait_boards(boards)

    # A move by clicking: Move, then the private menus, then Play.
    seat = game.seat_to_act
    assert seat is not None
    player.act_as(seats[seat])
    before = player.count("Veletas #")
    played, _ = player.play_by_clicking()
    game = game.play(played)
    assert f"You played {played}" in player.page.locator("#messages").inner_text()
    assert player.count("Veletas #") == before + 1

    # Old boards lose their buttons as the game moves on: the colour choice made long ago offers nothing now.
    page.wait_for_function(
        "() => ![...document.querySelectorAll('#messages .msg button.component')]"
        ".some(b => b.textContent.includes('Keep colours'))"
    )

    # To the end: clicking, with every fourth move typed.
    while game.seat_to_act is not None:
        player.act_as(seats[game.seat_to_act])
        if len(game.turns) % 4 == 0:
            move = str(game.position.legal_moves()[-1])
            shown = player.count("Veletas #")
            player.type(f"/veletas move move:{move}")
            player.wait_count("Veletas #", shown + 1)
        else:
            move, _ = player.play_by_clicking()
        game = game.play(move)
    final = player.last_message("Game over")
    assert "wins" in final.inner_text()


def test_the_ai_answers_and_its_board_is_on_screen(player: Player) -> None:
    page = player.page
    player.open()
    player.add_member("dora")
    player.command("veletas challenge", opponent="veletas-sandbox-bot", variant="small", level="1")
    player.open_channel("dora")
    first = player.wait_boards(1)
    game = Game.new("small")
    rng = random.Random(2)
    # Dora sets up, then the AI answers with a board of its own: wait until it is Dora's turn again.
    before = player.count("Veletas #")
    text = page.locator("#messages .msg").last.inner_text()
    if "@dora" in text.split("Turn")[0]:
        player.type(setup_text(random_setup_turn(game, rng)))
    player.wait_count("Veletas #", before + 2)
    assert "@veletas-sandbox-bot" in page.locator("#messages").inner_text()

    # The board on screen is the image the bot sent, pixel for pixel (scaled), and not blank.
    player.settled()
    src, screenshot = player.newest_board_shot()
    assert src
    with urllib.request.urlopen(player.url + src) as answer:
        sent = Image.open(io.BytesIO(answer.read())).convert("RGB")
    shown = Image.open(io.BytesIO(screenshot)).convert("RGB")
    assert shown.width >= 300, "a board big enough to play on"
    spread = ImageStat.Stat(shown).stddev
    assert max(spread) > 20, "not a blank image"
    difference = ImageStat.Stat(ImageChops.difference(sent.resize(shown.size), shown)).mean
    assert max(difference) < 12, f"the image on screen differs from the board sent: {difference}"
    assert first.get_attribute("src") != src, "the board moved on"


def test_a_whole_game_against_the_ai_by_clicking(player: Player) -> None:
    page = player.page
    player.open()
    player.add_member("eve")
    player.type("/veletas challenge opponent:veletas-sandbox-bot variant:small level:1 where:here")
    # The challenger sets up first, the AI chooses colours; after a swap Eve also makes the second setup.
    player.last_message("@eve, your turn")
    rng = random.Random(9)
    game = Game.new("small")
    first = random_setup_turn(game, rng)
    player.type(setup_text(first))
    after_pie = player.last_message(re.compile(r"Last turn\s*(keep|swap)"))
    choice = "swap" if "Last turn\nswap" in after_pie.inner_text() else "keep"
    game = game.play(first).play(choice)
    if "@eve (" in after_pie.inner_text().split("Players")[0]:
        player.type(setup_text(random_setup_turn(game, rng)))
    moves = 0
    while True:
        page.wait_for_function(
            """() => {
                const boards = [...document.querySelectorAll('#messages .msg:not(.ephemeral)')]
                    .filter(m => m.querySelector('img'));
                const last = boards.at(-1);
                const text = last?.textContent || '';
                const loaded = Boolean(last?.querySelector('img[data-loaded-at]'));
                const mine = text.includes('@eve, your turn') && text.includes('Move');
                return loaded && (text.includes('Game over') || mine);
            }""",
            timeout=60_000,  # the AI thinks in a worker process, on a machine shared with the rest of the suite
        )
        boards = page.locator("#messages .msg:not(.ephemeral)", has=page.locator("img"))
        if "Game over" in boards.last.inner_text():
            break
        player.play_by_clicking()
        moves += 1
    assert moves >= 3
    assert "wins" in boards.last.inner_text()
