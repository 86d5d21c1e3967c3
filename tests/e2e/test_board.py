"""The board message as Discord shows it: the side bar in the colour to move, and the one ping it allows."""

from __future__ import annotations

import io
import os
import random
import signal
from pathlib import Path

import pytest
from PIL import Image

from bot import render
from bot.client import VeletasBot
from bot.render.theme import mix
from bot.render.workers import Drawing
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.conftest import ManualClock, make_factory
from e2e.table import random_setup_turn, resign, sent_body, start_game

# Discord's dark theme: the chat background, the embed card on it, and the older dark grey.
DARK_BACKGROUNDS = (0x313338, 0x2B2D31, 0x36393F)


def luminance(colour: int) -> float:
    """Relative luminance as WCAG defines it, for contrast between the side bar and what lies beside it."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = (colour >> 16) & 0xFF, (colour >> 8) & 0xFF, colour & 0xFF
    return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)


def contrast(a: int, b: int) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


async def test_black_to_move_shows_a_side_bar_visible_in_dark_mode(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob)
    await table.play_setup(random.Random(5))
    assert table.game.colour_to_act == "black"
    black = table.boards[-1].embeds[0]["color"]
    white = (await table.turn(str(table.game.position.legal_moves()[0]))).embeds[0]["color"]
    assert table.game.colour_to_act == "white"
    # WCAG asks 3:1 for graphics; a near-black bar melts into the dark theme.
    for background in DARK_BACKGROUNDS:
        assert contrast(black, background) >= 3.0, f"#{black:06x} on #{background:06x}"
    assert luminance(black) < luminance(white), "Black's bar is still the darker of the two"


async def test_the_board_lets_discord_ping_only_the_player_to_move(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob)
    board = await table.turn(random_setup_turn(table.game, random.Random(2)))
    waiting = table.user_to_act().member
    # The id goes out as discord.py sends any user snowflake, with nothing parsed from the text.
    allowed = sent_body(sandbox, board)["allowed_mentions"]
    assert (allowed["parse"], allowed["users"]) == ([], [waiting.id])
    assert f"<@{waiting.id}>, your turn" in board.content


@pytest.mark.slow
async def test_a_bot_with_a_drawing_worker_draws_every_board_there_and_the_same_board_as_in_its_own_process(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, bob: Member, db_path: Path, clock: ManualClock
) -> None:
    """As ``python -m bot`` runs (DRAWING_WORKERS=1): boards come from a worker process, byte for byte what the
    bot's own process would draw, and a worker killed mid-game costs no board."""
    bot = await sandbox_runner.start(make_factory(db_path, clock, drawing_workers=1), sync=False)
    assert isinstance(bot, VeletasBot)
    worker = await bot.drawers.draw(Drawing(os.getpid))  # type: ignore[arg-type]
    assert worker != os.getpid()
    table = await start_game(sandbox, alice, bob)
    await table.play_setup(random.Random(3))
    drawn = []
    original = bot.drawers.draw

    async def recording(drawing: Drawing) -> bytes:
        png = await original(drawing)
        drawn.append((drawing, png))
        return png

    bot.drawers.draw = recording  # type: ignore[method-assign]
    board = await table.turn(str(table.game.position.legal_moves()[0]))
    [(drawing, png)] = drawn
    assert board.files["board.png"] == png == drawing()
    bot.drawers.respawn_after = 0.0
    os.kill(int(worker), signal.SIGKILL)
    after = await table.turn(str(table.game.position.legal_moves()[0]))
    assert "board.png" in after.files and not after.ephemeral
    assert await bot.drawers.draw(Drawing(os.getpid)) not in (worker, os.getpid())  # type: ignore[arg-type]


async def test_the_board_after_the_last_setup_turn_marks_the_shooters_just_placed(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="medium")
    await table.play_setup(random.Random(4))
    assert table.game.phase == "play" and not table.game.moves
    look = render.THEMES["light"]
    placed = table.game.turns[-1].replace("/", ",").split(",")
    earlier = [
        sq for turn in table.game.turns[:-1] if turn not in ("keep", "swap") for sq in turn.replace("/", ",").split(",")
    ]
    step = await table.user_to_act().click(table.boards[-1], "Move")
    for where, png in (
        ("the board", table.boards[-1].files["board.png"]),
        ("the first Move step", step.files["board.png"]),
    ):
        im = Image.open(io.BytesIO(png)).convert("RGB")
        lay = render.layout(9, im.width)
        for square, marked in [*((sq, True) for sq in placed), *((sq, False) for sq in earlier)]:
            file, rank = ord(square[0]) - ord("a"), int(square[1:]) - 1
            plain = look.dark if (file + rank) % 2 == 0 else look.light
            x, y = lay.center(square)
            corner = im.getpixel((x + round(0.45 * lay.square), y - round(0.45 * lay.square)))
            expected = mix(plain, look.move, look.tint) if marked else plain
            assert corner == expected, f"{where}: {square} {'marked as the last turn' if marked else 'not marked'}"


async def test_the_board_command_in_a_finished_games_thread_shows_its_final_board(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="small", where="thread")
    final = await resign(sandbox, table.user_to_act())
    asked = await sandbox.user(alice, channel_id=table.channel_id).slash("veletas", "board")
    assert not asked.ephemeral, asked.content
    assert asked.embeds[0]["title"] == final.embeds[0]["title"] and "resigned" in asked.text()
    assert asked.files["board.png"] == final.files["board.png"], "the final position, as it ended"
    private = await sandbox.user(bob, channel_id=table.channel_id).slash("veletas", "board", private=True)
    assert private.ephemeral and "resigned" in private.text()
