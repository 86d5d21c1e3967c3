"""The real AI opponent: a whole game against it through Discord, and a pool that survives bad workers."""

from __future__ import annotations

import random
from functools import partial
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.rules import Game
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from cogs._ai_pool import PooledAi
from e2e.ai_workers import crashes_once, hangs_once
from e2e.conftest import ManualClock, make_factory
from e2e.table import Table, random_setup_turn
from e2e.test_ai_game import ai_has_played


async def test_a_game_against_the_real_ai(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai_workers=1), sync=False)
    assert isinstance(bot, VeletasBot) and isinstance(bot.ai, PooledAi)
    human = sandbox.user(alice)
    await human.slash("veletas", "challenge", opponent=sandbox.bot_member, variant="small", where="here", level=1)
    info = await bot.store.game_in_channel(sandbox.channel_id)
    table = Table(sandbox, human, human, sandbox.channel_id, Game.new("small"), info.id)
    rng = random.Random(8)
    while True:
        info = await bot.store.get_game(info.id)
        table.game = info.game
        if info.status != "active":
            break
        if info.user_to_act == sandbox.bot_member.id:
            await sandbox.wait_until(
                partial(ai_has_played, sandbox, db_path, info.id, info.ply), timeout=30, what="the AI's turn"
            )
            continue
        text = random_setup_turn(table.game, rng) if table.game.phase != "play" else None
        await table.turn(text or str(rng.choice(table.game.position.legal_moves())))
    assert info.status == "finished" and info.ai_level == 1
    await sandbox_runner.stop()
    assert bot.ai is None, "closing the bot stops the workers"


@pytest.mark.slow
@pytest.mark.parametrize("worker", [crashes_once, hangs_once])
async def test_a_bad_worker_is_replaced_and_the_turn_still_comes(
    worker: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VELETAS_AI_MARKER", str(tmp_path / "misbehaved"))
    pool = PooledAi(1, worker=worker, grace=1.0)  # type: ignore[arg-type]
    try:
        game = Game.new("small")
        turn = await pool.choose_turn(game, 1)
        assert game.play(turn).phase == "pie", "a legal setup turn for the first player"
        assert pool.replaced == 1 and (tmp_path / "misbehaved").exists()
    finally:
        pool.close()
