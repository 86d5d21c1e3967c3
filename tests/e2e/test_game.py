"""Whole games through Discord: challenge, setup, pie, moves, claims and the result."""

from __future__ import annotations

import random

import pytest

from bot.client import VeletasBot
from bot.rules import Game
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.table import pinged, start_game


@pytest.mark.parametrize(("rules", "where"), [("current", None), ("classic", "here")])
async def test_full_game_on_the_small_board(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, rules: str, where: str | None
) -> None:
    rng = random.Random(7)
    table = await start_game(sandbox, alice, bob, rules=rules, where=where)
    if where is None:
        thread = sandbox.thread(table.channel_id)
        assert thread["type"] == 11 and int(thread["parent_id"]) == sandbox.channel_id, "a public thread by default"
        assert thread["name"].lower() == f"veletas #{table.game_id}: alice vs bob"
        challenge = sandbox.messages(sandbox.channel_id)[0]
        assert f"<#{table.channel_id}>" in challenge.content and challenge.buttons == []
    else:
        assert table.channel_id == sandbox.channel_id
    first_board = table.boards[0]
    assert "board.png" in first_board.files and first_board.files["board.png"].startswith(b"\x89PNG")
    await table.play_setup(rng)
    if rules == "current":
        assert "pie" in table.game.turns[1] or table.game.turns[1] in ("keep", "swap")
    while table.game.phase == "play":
        move = rng.choice(table.game.position.legal_moves())
        board = await table.turn(str(move))
        assert not board.ephemeral, board.content
        if table.game.phase == "play":
            waiting = table.user_to_act().member
            # Only the player to move is pinged, and nobody else ever.
            assert pinged(sandbox, board) == [str(waiting.id)]
            assert f"<@{waiting.id}>" in board.content
            assert [b["label"] for b in board.buttons] == ["Move"]
    final = table.boards[-1]
    winner = table.game.winner_seat
    winner_member = alice if winner == "first" else bob
    assert f"<@{winner_member.id}> wins" in final.text()
    assert "claims" in final.text()
    record = final.files[f"veletas-{table.game_id}.txt"].decode()
    assert Game.from_record(record).turns == table.game.turns
    assert [b["label"] for b in final.buttons] == ["Rematch", "Review"]
    info = await bot.store.get_game(table.game_id)
    assert info.status == "finished" and info.winner_id == winner_member.id
    assert info.turns == table.game.turns
