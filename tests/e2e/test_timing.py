"""Discord's 3 seconds: slow work is deferred first, and a refusal after the deferral stays private."""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any

import pytest

from bot import render
from bot.client import VeletasBot
from bot.errors import NotYourTurn
from bot.sandbox.rest import DEFERRED_CHANNEL_MESSAGE
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import EPHEMERAL, Member
from e2e.table import Table, start_game


async def ready(fake: FakeDiscord, alice: Member, bob: Member) -> Table:
    table = await start_game(fake, alice, bob)
    await table.play_setup(random.Random(12))
    return table


@pytest.mark.slow
async def test_slow_rendering_is_deferred_then_delivered(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await ready(sandbox, alice, bob)
    gate = threading.Event()
    draw = render.board_png

    def slow_board(*args: Any, **kwargs: Any) -> bytes:
        gate.wait(timeout=30)
        return draw(*args, **kwargs)

    monkeypatch.setattr(render, "board_png", slow_board)
    mover = table.user_to_act()
    move = str(table.game.position.legal_moves()[0])
    task = asyncio.create_task(mover.slash("veletas", "move", move=move))
    await sandbox.wait_until(lambda: any(i.response_type == DEFERRED_CHANNEL_MESSAGE for i in mover.interactions))
    gate.set()
    board = await task
    assert not board.ephemeral and not board.loading
    assert board.files["board.png"].startswith(b"\x89PNG") and f"`{move}`" in board.text()


@pytest.mark.slow
async def test_a_refusal_after_deferring_is_still_private(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await ready(sandbox, alice, bob)
    gate = asyncio.Event()

    async def slow_refusal(*args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        raise NotYourTurn(None)

    monkeypatch.setattr(bot.store, "play", slow_refusal)
    mover = table.user_to_act()
    cursor = sandbox.cursor()
    task = asyncio.create_task(mover.slash("veletas", "move", move=str(table.game.position.legal_moves()[0])))
    await sandbox.wait_until(lambda: any(i.response_type == DEFERRED_CHANNEL_MESSAGE for i in mover.interactions))
    mover_token = mover.interactions[-1].token
    gate.set()
    placeholder = await task
    assert placeholder.deleted, "the public 'thinking...' message does not stay behind"
    # The refusal goes out as an ephemeral followup. (It is read from the request: the fake files a
    # followup sent after the placeholder was deleted into that deleted placeholder.)
    request = await sandbox.wait_for_request(
        lambda r: r.method == "POST" and "/webhooks/" in r.path and mover_token in r.path
    )
    assert request.body["content"] == "It is not your turn."
    assert request.body["flags"] & EPHEMERAL
    assert [m for m in sandbox.messages(table.channel_id, include_ephemeral=False) if m.id > cursor] == []
