"""Tournaments that survive the process dying at any step of opening a round, and organisers' bad input.

A round is stored whole before any thread exists; each pairing then gets its thread and its game, each step
recorded. Killed between any two steps, the bot finishes the round when it comes back: every pairing has one
thread and one game, no thread is left without a game, and no round is paired twice.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.crashpoints import CRASH_AFTER
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from bot.store.values import GameInfo
from cogs._delivery import sweep
from e2e.test_challenge_robust import bot_env, killed, start_process, stop
from e2e.tourney import Board, boards, round_open, rounds_stored


@pytest.mark.slow
@pytest.mark.parametrize(
    "point",
    [
        "tournament-round-planned",
        "tournament-round-saved",
        "tournament-thread-pending",
        "tournament-thread-created",
        "tournament-game-created",
    ],
)
async def test_killed_while_a_round_opens_the_restart_finishes_it_without_orphans_or_a_second_round(
    sandbox: FakeDiscord, tmp_path: Path, alice: Member, bob: Member, carol: Member, point: str
) -> None:
    db_path = tmp_path / "data" / "veletas.sqlite3"
    await sandbox.grant(alice, "manage_guild")
    dave = sandbox.add_member("dave")
    process = await start_process(sandbox, tmp_path, bot_env(sandbox, db_path, **{CRASH_AFTER: point}))
    try:
        announcement = await sandbox.user(alice).slash(
            "tournament", "create", name="Crash Cup", game="veloop", format="swiss", rounds=2, time="1d", settings="5"
        )
        for member in (alice, bob, carol, dave):
            await sandbox.user(member).click(announcement, "Join")
        assert "4: " in next(f["value"] for f in announcement.embeds[0]["fields"] if f["name"] == "Players")
        await sandbox.user(alice).slash("tournament", "start")
        await killed(process)
    finally:
        await stop(process)
    assert rounds_stored(db_path, 1) == (0 if point == "tournament-round-planned" else 1)
    process = await start_process(sandbox, tmp_path, bot_env(sandbox, db_path))
    try:

        def opened() -> bool:
            found = boards(db_path, 1, 1)
            return (
                bool(found)
                and all(b.state == "game" for b in found)
                and all(b.thread_id is not None and any(m.embeds for m in sandbox.messages(b.thread_id)) for b in found)
            )

        await sandbox.wait_until(opened, timeout=90, what="round 1 to be opened after the restart")
        await asyncio.sleep(0.5)
        found = boards(db_path, 1, 1)
        threads = sandbox.threads(sandbox.channel_id)
        assert len(found) == 2 and len(threads) == 2, "one thread per pairing, none left over"
        assert {int(t["id"]) for t in threads} == {b.thread_id for b in found}
        for b in found:
            assert b.thread_id is not None
            # The restarted bot's sweep for boards it owes runs while the round is being opened: still one board.
            assert len([m for m in sandbox.messages(b.thread_id) if m.embeds]) == 1, "one first board per game"
            # The intro (who plays whom) goes with that board, once, whatever step the process died after.
            intros = [m for m in sandbox.messages(b.thread_id) if "Crash Cup" in m.content and "round 1" in m.content]
            assert len(intros) == 1 and intros[0].embeds, [m.content for m in sandbox.messages(b.thread_id)]
            assert f"<@{b.white}>" in intros[0].content and f"<@{b.black}>" in intros[0].content
        assert rounds_stored(db_path, 1) == 1, "the round was not paired twice"
        pairings = [m for m in sandbox.messages(sandbox.channel_id) if m.embeds and "round 1 pairings" in m.text()]
        assert len(pairings) == 1
    finally:
        await stop(process)
    assert sandbox.take_errors() == []


@pytest.mark.slow
async def test_a_sweep_for_owed_boards_while_a_round_opens_leaves_one_board_per_game_and_still_calls_the_players(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    carol: Member,
    db_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A restarted bot sweeps for boards it owes while it finishes opening a round: here the sweep runs right
    after each game is stored, before its first board. The sweep leaves that board to the round's step, which
    posts it with the game's intro (a board posted by the sweep would go out without it)."""
    real = bot.store.start_pairing_game

    async def then_sweep(pairing_id: int) -> GameInfo:
        game = await real(pairing_id)
        await sweep(bot)
        assert game.id not in {g.id for g in await bot.store.unannounced_games()}, "owed to the round, with its intro"
        await sandbox.settle()
        assert not any(m.embeds for m in sandbox.messages(game.channel_id)), "the sweep posted no board"
        return game

    monkeypatch.setattr(bot.store, "start_pairing_game", then_sweep)
    await sandbox.grant(alice, "manage_guild")
    dave = sandbox.add_member("dave")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Sweep Cup", game="veloop", format="swiss", rounds=2, time="1d", settings="5"
    )
    for member in (alice, bob, carol, dave):
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(alice).slash("tournament", "start")
    found = await round_open(sandbox, db_path, 1, 1)
    assert len(found) == 2

    def called(b: Board) -> list[Message]:
        assert b.thread_id is not None
        both = (f"<@{b.white}>", f"<@{b.black}>")
        return [m for m in sandbox.messages(b.thread_id) if all(who in m.content for who in both)]

    await sandbox.wait_until(lambda: all(called(b) for b in found), what="both players of every game called")
    await sandbox.settle()
    for b in found:
        assert b.thread_id is not None
        assert len([m for m in sandbox.messages(b.thread_id) if m.embeds]) == 1, "one first board per game"
        assert len(called(b)) == 1, "both players are called once"
        assert called(b)[0].embeds, "by the intro that goes with the first board"
