"""``/veletas analyze``: the level-4 AI's verdict in worker processes, never a hint in a live game."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.i18n import words
from bot.rules import Position
from bot.sandbox.rest import DEFERRED_CHANNEL_MESSAGE
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from cogs._ai_pool import PooledAi
from cogs.analyze import LIVE_GAME, LIVE_POSITION, NO_ANALYST
from e2e.conftest import ManualClock, make_factory
from e2e.table import resign, start_game

SAMPLE = "7/1S5/2b4/3S3/4w2/5S1/7 b"


def best_move(answer: Message) -> str:
    found = re.search(r"Best move for (Black|White): \*\*`([^`]+)`\*\*", answer.embeds[0]["description"])
    assert found is not None, answer.embeds[0]["description"]
    return found.group(2)


@pytest.mark.slow
async def test_analysis_of_a_position_and_of_a_finished_game(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, bob: Member, db_path: Path, clock: ManualClock
) -> None:
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai_workers=1), sync=False)
    assert isinstance(bot, VeletasBot) and isinstance(bot.ai, PooledAi)
    user = sandbox.user(alice)
    none_here = await user.slash("veletas", "analyze")
    assert none_here.ephemeral and "No game has been played here yet" in none_here.content
    unreadable = await user.slash("veletas", "analyze", position="7/7 b")
    assert unreadable.ephemeral and unreadable.content.startswith("That is not a position I can read:")

    # The search takes about a second in a worker process: the answer is deferred, and the bot
    # meanwhile answers other players at once.
    asking = asyncio.create_task(user.slash("veletas", "analyze", position=SAMPLE))
    await sandbox.wait_until(lambda: any(i.response_type == DEFERRED_CHANNEL_MESSAGE for i in user.interactions))
    rules = await sandbox.user(bob).slash("veletas", "rules")
    assert rules.ephemeral and not asking.done()
    answer = await asking
    assert answer.ephemeral and answer.embeds[0]["title"] == "Analysis · Your position"
    assert re.search(r"\*\*(It is about even|Black is|White is|Black wins|White wins)", answer.text())
    position = Position.from_string(SAMPLE)
    assert best_move(answer) in {str(m) for m in position.legal_moves()}
    assert answer.files["board.png"].startswith(b"\x89PNG")

    # A game being played here is never analysed, not even by pasting its position.
    table = await start_game(sandbox, alice, bob, variant="small", where="here")
    await table.play_setup(random.Random(3))
    setup_turns = len(table.game.turns)
    first_move = str(table.game.position.legal_moves()[0])
    await table.turn(first_move)
    live = await table.first.slash("veletas", "analyze")
    assert live.ephemeral and live.content == words()(LIVE_GAME)
    pasted = await table.second.slash("veletas", "analyze", position=str(table.game.position))
    assert pasted.ephemeral and pasted.content == words()(LIVE_POSITION)
    side_room = sandbox.add_text_channel("side-room")
    elsewhere = (
        await sandbox.user(bob).in_channel(side_room).slash("veletas", "analyze", position=str(table.game.position))
    )
    assert elsewhere.ephemeral and elsewhere.content == words()(LIVE_POSITION), "a player's own game, pasted elsewhere"
    by_number = await table.second.slash("veletas", "analyze", game=table.game_id)
    assert by_number.ephemeral and f"Veletas #{table.game_id} is still being played" in by_number.content

    # Once it is over, the end and any turn of it can be looked at.
    await resign(sandbox, table.first)
    end = await table.second.slash("veletas", "analyze")
    assert end.embeds[0]["title"] == f"Analysis · Veletas #{table.game_id}, at the end"
    assert best_move(end) in {str(m) for m in table.game.position.legal_moves()}
    turn = setup_turns + 1
    before = await sandbox.user(alice).in_channel(side_room).slash("veletas", "analyze", game=table.game_id, turn=turn)
    assert before.embeds[0]["title"] == f"Analysis · Veletas #{table.game_id}, before turn {turn}"
    assert f"Played in the game: `{first_move}`" in before.text()
    too_far = await user.slash("veletas", "analyze", game=table.game_id, turn=999)
    assert too_far.ephemeral and f"has turns 1 to {len(table.game.turns)}: choose one" in too_far.content
    in_setup = await user.slash("veletas", "analyze", game=table.game_id, turn=1)
    assert in_setup.ephemeral and "part of the setup" in in_setup.content


async def test_analysis_without_the_ai_says_how_to_get_it(sandbox: FakeDiscord, bot: VeletasBot, alice: Member) -> None:
    answer = await sandbox.user(alice).slash("veletas", "analyze", position=SAMPLE)
    assert answer.ephemeral and answer.content == words()(NO_ANALYST)
