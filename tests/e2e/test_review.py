"""The AI's review of a finished game end to end: the Review button and ``/veletas review`` / ``/veloop review``
post one image, a game in play is refused privately, and a second review reuses the kept one."""

from __future__ import annotations

import asyncio
import io
import random
import sqlite3
from pathlib import Path

import pytest
from PIL import Image

from bot.ai.review import Evaluation
from bot.client import VeletasBot
from bot.i18n import words
from bot.rules.registry import find_game
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from cogs._ai_pool import PooledAi
from cogs.analyze import LIVE_GAME, TURNED_OFF
from cogs.review import REPLAY_FILE, REVIEW_FILE
from e2e.ai_workers import answers_at_once, slow_evaluation
from e2e.conftest import ManualClock, make_factory
from e2e.table import resign, start_game
from e2e.test_veloop import start_veloop


def kept_reviews(db_path: Path) -> list[tuple[int, int]]:
    with sqlite3.connect(db_path) as db:
        return [(int(a), int(b)) for a, b in db.execute("SELECT game_id, turns FROM game_reviews")]


def counting(pool: PooledAi) -> list[int]:
    """Count the positions the pool is asked to evaluate (one list entry per review, its position count)."""
    asked: list[int] = []
    original = pool.review_positions

    async def review_positions(
        game: str, turns: tuple[str, ...], settings: tuple[tuple[str, str], ...]
    ) -> list[Evaluation]:
        asked.append(len(turns) + 1)
        return await original(game, turns, settings)

    pool.review_positions = review_positions  # type: ignore[method-assign]
    return asked


async def test_the_review_button_and_command_post_one_image_once_searched(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, bob: Member, db_path: Path, clock: ManualClock
) -> None:
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai_workers=1), sync=False)
    assert isinstance(bot, VeletasBot) and isinstance(bot.ai, PooledAi)
    bot.ai.review_seconds = 0.05
    asked = counting(bot.ai)
    table = await start_veloop(sandbox, alice, bob, board="5", protocol="alternating")
    rng = random.Random(5)
    for _ in range(4):
        await table.move(str(rng.choice(table.game.position.legal_moves())))

    # In play: refused privately, whoever asks, and nothing is searched or kept.
    live = await table.first.slash("veloop", "review")
    assert live.ephemeral and live.content == words()(LIVE_GAME)
    numbered = await sandbox.user(bob).slash("veloop", "review", game=table.game_id)
    assert numbered.ephemeral and f"#{table.game_id} is still being played" in numbered.content
    assert asked == [] and kept_reviews(db_path) == []

    final = await resign(sandbox, table.first, group="veloop")
    assert [b["label"] for b in final.buttons] == ["Rematch", "Review"]
    before = len(sandbox.messages(table.channel_id, include_ephemeral=False))
    posted = await table.second.click(final, "Review")
    assert not posted.ephemeral and posted.channel_id == table.channel_id
    assert f"Veloop (Square) #{table.game_id} (4 turns)" in posted.content
    assert list(posted.files) == [REVIEW_FILE, REPLAY_FILE]
    replay = Image.open(io.BytesIO(posted.files[REPLAY_FILE]))
    assert replay.format == "GIF" and replay.n_frames == 5, "the start and a frame a turn"
    image = Image.open(io.BytesIO(posted.files[REVIEW_FILE]))
    assert image.format == "PNG" and image.width == 800
    assert len(sandbox.messages(table.channel_id, include_ephemeral=False)) == before + 1, "one message"
    assert asked == [5], "every position of the game, the start included, searched once"
    assert kept_reviews(db_path) == [(table.game_id, 4)]

    # Asked again, by the command here: the same picture from the kept review, nothing searched.
    again = await table.first.slash("veloop", "review")
    assert not again.ephemeral and again.files[REVIEW_FILE] == posted.files[REVIEW_FILE]
    assert asked == [5]

    # The option offers the member's finished games of this game, narrowed by what is typed.
    offered = await table.first.autocomplete("veloop", "review", game="")
    assert offered == [{"name": f"Veloop (Square) #{table.game_id}", "value": table.game_id}]
    assert await table.first.autocomplete("veloop", "review", game=str(table.game_id + 1)) == []
    assert await table.first.autocomplete("veletas", "review", game="") == [], "a Veletas review offers Veletas games"

    # From another channel: private, so the review lands only where the game was played.
    side_room = sandbox.add_text_channel("side-room")
    elsewhere = await sandbox.user(alice).in_channel(side_room).slash("veletas", "review", game=table.game_id)
    assert elsewhere.ephemeral and REVIEW_FILE in elsewhere.files
    assert sandbox.messages(side_room, include_ephemeral=False) == []
    assert asked == [5]


async def test_a_veletas_game_is_reviewed_by_its_own_command_unless_analysis_is_off(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    bob: Member,
    carol: Member,
    db_path: Path,
    clock: ManualClock,
) -> None:
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai_workers=1), sync=False)
    assert isinstance(bot, VeletasBot) and isinstance(bot.ai, PooledAi)
    bot.ai.review_seconds = 0.05
    asked = counting(bot.ai)
    table = await start_game(sandbox, alice, bob, variant="small", where="here")
    await table.play_setup(random.Random(3))
    await table.turn(str(table.game.position.legal_moves()[0]))
    await resign(sandbox, table.first)
    await sandbox.grant(carol, "manage_guild")
    await sandbox.user(carol).slash("settings", analysis="off")
    off = await table.first.slash("veletas", "review")
    assert off.ephemeral and off.content == words()(TURNED_OFF) and asked == []
    await sandbox.user(carol).slash("settings", analysis="on")
    posted = await table.first.slash("veletas", "review")
    assert not posted.ephemeral and f"Veletas #{table.game_id}" in posted.content
    assert Image.open(io.BytesIO(posted.files[REVIEW_FILE])).format == "PNG"
    assert asked == [len(table.game.turns) + 1]


@pytest.mark.slow
async def test_an_ai_turn_asked_during_a_review_is_served_before_the_rest_of_it() -> None:
    """Positions are analysis jobs queued a worker's worth at a time: a turn asked meanwhile waits for one position
    at most, not for the whole game."""
    pool = PooledAi(1, worker=answers_at_once, evaluate=slow_evaluation)
    try:
        turns = ("b4<c2", "c5<b3", "d4<b3", "a4<c3", "b5<c3", "a5<c4")
        review = asyncio.create_task(pool.review_positions("veloop", turns, (("board", "5"),)))
        # Until the worker has taken the review's first position (its process is started for it).
        deadline = asyncio.get_running_loop().time() + 30
        while not pool.pids:
            assert asyncio.get_running_loop().time() < deadline, "the review never started"
            await asyncio.sleep(0.01)
        await pool.choose_turn(find_game("veloop").new({"board": "5"}), 1)
        assert not review.done(), "the turn did not wait for the seven positions"
        assert len(await review) == len(turns) + 1
    finally:
        pool.close()
