"""Challenges that must never wedge, and noise one member must not be able to make.

Accepting spans Discord and the database (the thread, then the game): a busy database or a process
killed between the two must leave either a game in its thread or nothing, and a retry must work.
A board asked for again pings nobody, and challenges are limited per pair and per member.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import os
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import cast

import pytest

from bot.client import VeletasBot
from bot.crashpoints import CRASH_AFTER
from bot.i18n import words
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from cogs.challenge import BUSY_ACCEPT, ChallengeCog
from e2e.conftest import ManualClock, make_factory
from e2e.table import would_ping

ROOT = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def database_held(path: Path) -> AsyncIterator[None]:
    """Another process's write transaction on the bot's file: every write of the bot waits, then fails busy.

    The lock is taken off the event loop, so a write the bot is finishing just then can commit first.
    """
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        await asyncio.to_thread(other.execute, "BEGIN IMMEDIATE")
        yield
        other.execute("ROLLBACK")
    finally:
        other.close()


def game_row(path: Path, game_id: int) -> tuple[str, int]:
    with sqlite3.connect(path) as db:
        status, channel_id = db.execute("SELECT status, channel_id FROM games WHERE id = ?", (game_id,)).fetchone()
    return str(status), int(channel_id)


@pytest.fixture
async def quick_busy_bot(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, db_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> VeletasBot:
    """The bot with a short busy timeout, so a held database fails its writes in a fraction of a second."""
    monkeypatch.setattr("bot.db.sqlite.BUSY_TIMEOUT_MS", 300)
    bot = await sandbox_runner.start(make_factory(db_path, clock), sync=False)
    assert isinstance(bot, VeletasBot)
    return bot


async def busy_accept(sandbox: FakeDiscord, db_path: Path, challenge: Message, member: Member) -> Message:
    """Press Accept while the database is held; returns the private answer."""
    cursor = sandbox.cursor()
    async with database_held(db_path):
        await sandbox.user(member).click(challenge, "Accept")
        return await sandbox.wait_for_message(
            sandbox.channel_id, lambda m: m.ephemeral and m.visible_to == member.id, after=cursor
        )


# --- a busy database -----------------------------------------------------------------------------


async def test_a_busy_database_while_accepting_asks_to_retry_and_the_retry_plays_in_the_same_thread(
    sandbox: FakeDiscord, quick_busy_bot: VeletasBot, db_path: Path, alice: Member, bob: Member
) -> None:
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small")
    told = await busy_accept(sandbox, db_path, challenge, bob)
    assert told.content == words()(BUSY_ACCEPT), "a private word to try again, not an apology"
    assert game_row(db_path, 1)[0] == "challenge"
    assert [b["label"] for b in sandbox.message(challenge.id).buttons] == ["Accept", "Decline"]

    cursor = sandbox.cursor()
    await sandbox.user(bob).click(challenge, "Accept")
    [thread] = sandbox.threads(sandbox.channel_id)
    thread_id = int(thread["id"])
    board = await sandbox.wait_for_message(thread_id, lambda m: bool(m.embeds), after=cursor)
    assert thread_id == challenge.id, "the thread of the first attempt is the one used"
    assert f"<@{alice.id}>, your turn." in board.content
    assert game_row(db_path, 1) == ("active", thread_id)
    assert f"Accepted by <@{bob.id}>" in sandbox.message(challenge.id).content
    # No second thread was asked of Discord (it would refuse: 160004), and nothing else was refused.
    creates = [r for r in sandbox.requests if r.method == "POST" and r.path.endswith(f"/{challenge.id}/threads")]
    assert len(creates) == 1
    assert sandbox.take_errors() == []


async def test_a_retry_finds_the_thread_through_discord_when_it_was_archived_meanwhile(
    sandbox: FakeDiscord, quick_busy_bot: VeletasBot, db_path: Path, alice: Member, bob: Member
) -> None:
    """An archived thread leaves the client's cache: Discord's 160004 sends the bot to GET /channels/{id}."""
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small")
    await busy_accept(sandbox, db_path, challenge, bob)
    [thread] = sandbox.threads(sandbox.channel_id)
    thread_id = int(thread["id"])
    # A moderator archives it (or Discord does, after its inactivity time); every client hears THREAD_UPDATE.
    thread["thread_metadata"]["archived"] = True
    await sandbox.gateway.dispatch("THREAD_UPDATE", copy.deepcopy(thread))
    await sandbox.settle()
    assert quick_busy_bot.get_channel(thread_id) is None, "archived threads are not in discord.py's cache"

    cursor = sandbox.cursor()
    await sandbox.user(bob).click(challenge, "Accept")
    board = await sandbox.wait_for_message(thread_id, lambda m: bool(m.embeds), after=cursor)
    assert f"<@{alice.id}>, your turn." in board.content
    assert game_row(db_path, 1) == ("active", thread_id)
    assert not sandbox.thread(thread_id)["thread_metadata"]["archived"], "posting the board reopened it"
    assert [e.error_code for e in sandbox.take_errors()] == [160004]
    assert any(r.method == "GET" and r.path == f"/channels/{thread_id}" for r in sandbox.requests)


async def test_a_busy_accept_never_retried_takes_its_thread_away_when_the_challenge_expires(
    sandbox: FakeDiscord,
    quick_busy_bot: VeletasBot,
    db_path: Path,
    clock: ManualClock,
    alice: Member,
    bob: Member,
) -> None:
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small")
    await busy_accept(sandbox, db_path, challenge, bob)
    assert len(sandbox.threads(sandbox.channel_id)) == 1
    clock.advance(minutes=16)
    cog = cast(ChallengeCog, quick_busy_bot.get_cog("Challenges"))
    assert [info.id for info in await cog.expire_due()] == [1]
    await sandbox.wait_until(
        lambda: not sandbox.threads(sandbox.channel_id), what="the unused thread to go", timeout=30
    )
    assert "expired unanswered" in sandbox.message(challenge.id).content
    assert sandbox.message(challenge.id).buttons == []


async def test_a_busy_accept_then_a_withdrawal_leaves_no_thread(
    sandbox: FakeDiscord, quick_busy_bot: VeletasBot, db_path: Path, alice: Member, bob: Member
) -> None:
    challenge = await sandbox.user(alice).slash("veletas", "challenge", variant="small")
    await busy_accept(sandbox, db_path, challenge, bob)
    withdrawn = await sandbox.user(alice).click(challenge, "Withdraw")
    assert "Withdrawn by" in withdrawn.content
    await sandbox.wait_until(
        lambda: not sandbox.threads(sandbox.channel_id), what="the unused thread to go", timeout=30
    )
    assert game_row(db_path, 1)[0] == "cancelled"


async def test_without_manage_threads_the_unused_thread_is_archived_instead(
    sandbox: FakeDiscord, quick_busy_bot: VeletasBot, db_path: Path, alice: Member, bob: Member
) -> None:
    """The invite grants no Manage Threads, so Discord refuses the delete; the bot archives its own thread."""
    await sandbox.deny(sandbox.channel_id, "manage_threads")
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small")
    await busy_accept(sandbox, db_path, challenge, bob)
    await sandbox.user(bob).click(challenge, "Decline")
    [thread] = sandbox.threads(sandbox.channel_id)
    await sandbox.wait_until(lambda: thread["thread_metadata"]["archived"], what="the unused thread to be archived")
    assert [(e.method, e.error_code) for e in sandbox.take_errors()] == [("DELETE", 50013)]
    assert game_row(db_path, 1)[0] == "declined"


# --- the process killed between the thread and the game -------------------------------------------


def bot_env(sandbox: FakeDiscord, db_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD", "VELETAS_"))}
    return (
        env
        | {
            "PYTHONPATH": str(ROOT),
            "DISCORD_TOKEN": sandbox.token,
            "DISCORD_API_BASE": sandbox.api_base,
            "DISCORD_GATEWAY_URL": sandbox.gateway_url,
            "DATABASE_PATH": str(db_path),
            "LOG_LEVEL": "WARNING",
            "AI_WORKERS": "0",
        }
        | extra
    )


async def start_process(sandbox: FakeDiscord, tmp_path: Path, env: dict[str, str]) -> asyncio.subprocess.Process:
    """The real ``python -m bot``, once it has identified (a new gateway session, after any earlier one)."""
    before = sandbox.gateway.current
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", env=env, cwd=tmp_path)
    await sandbox.wait_until(
        lambda: sandbox.commands() and sandbox.gateway.current not in (None, before), timeout=60, what="the bot"
    )
    return process


async def stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), timeout=30)


async def killed(process: asyncio.subprocess.Process) -> None:
    code = await asyncio.wait_for(process.wait(), timeout=30)
    assert code == -signal.SIGKILL, f"the process should have killed itself at the crash point, not ended with {code}"


@pytest.mark.slow
async def test_killed_after_the_thread_is_made_a_member_challenge_is_accepted_on_the_next_press(
    sandbox: FakeDiscord, tmp_path: Path, alice: Member, bob: Member
) -> None:
    db_path = tmp_path / "data" / "veletas.sqlite3"
    process = await start_process(sandbox, tmp_path, bot_env(sandbox, db_path, **{CRASH_AFTER: "thread-created"}))
    try:
        challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small")
        await sandbox.user(bob).click(challenge, "Accept")
        await killed(process)
    finally:
        await stop(process)
    [thread] = sandbox.threads(sandbox.channel_id)
    thread_id = int(thread["id"])
    assert sandbox.messages(thread_id) == [] and game_row(db_path, 1)[0] == "challenge"

    process = await start_process(sandbox, tmp_path, bot_env(sandbox, db_path))
    try:
        cursor = sandbox.cursor()
        await sandbox.user(bob).click(sandbox.message(challenge.id), "Accept")
        board = await sandbox.wait_for_message(thread_id, lambda m: bool(m.embeds), after=cursor, timeout=30)
        assert f"<@{alice.id}>, your turn." in board.content
        assert game_row(db_path, 1) == ("active", thread_id)
        assert len(sandbox.threads(sandbox.channel_id)) == 1
        assert f"Accepted by <@{bob.id}>" in sandbox.message(challenge.id).content
    finally:
        await stop(process)
    assert sandbox.take_errors() == [], "no refused second thread (160004), nothing else refused"


@pytest.mark.slow
async def test_killed_after_the_game_is_stored_its_first_board_is_posted_after_the_restart(
    sandbox: FakeDiscord, tmp_path: Path, alice: Member, bob: Member
) -> None:
    db_path = tmp_path / "data" / "veletas.sqlite3"
    process = await start_process(sandbox, tmp_path, bot_env(sandbox, db_path, **{CRASH_AFTER: "game-accepted"}))
    try:
        challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small")
        await sandbox.user(bob).click(challenge, "Accept")
        await killed(process)
    finally:
        await stop(process)
    [thread] = sandbox.threads(sandbox.channel_id)
    thread_id = int(thread["id"])
    assert sandbox.messages(thread_id) == [] and game_row(db_path, 1) == ("active", thread_id)

    process = await start_process(sandbox, tmp_path, bot_env(sandbox, db_path))
    try:
        board = await sandbox.wait_for_message(thread_id, lambda m: bool(m.embeds), timeout=30)
        assert f"<@{alice.id}>, your turn." in board.content, "the first player is called to set up"
        await asyncio.sleep(0.5)
        assert len([m for m in sandbox.messages(thread_id) if m.embeds]) == 1, "posted once"
    finally:
        await stop(process)


@pytest.mark.slow
async def test_killed_after_the_thread_is_made_an_ai_challenge_starts_there_after_the_restart(
    sandbox: FakeDiscord, tmp_path: Path, alice: Member
) -> None:
    db_path = tmp_path / "data" / "veletas.sqlite3"
    env = bot_env(sandbox, db_path, AI_WORKERS="1")
    process = await start_process(sandbox, tmp_path, env | {CRASH_AFTER: "thread-created"})
    try:
        intro = await sandbox.user(alice).slash(
            "veletas", "challenge", opponent=sandbox.bot_member, variant="small", level=1
        )
        await killed(process)
    finally:
        await stop(process)
    [thread] = sandbox.threads(sandbox.channel_id)
    thread_id = int(thread["id"])
    assert thread_id == intro.id and sandbox.messages(thread_id) == []
    assert game_row(db_path, 1)[0] == "challenge", "cut short between the thread and the game"

    process = await start_process(sandbox, tmp_path, env)
    try:
        # At start-up the bot finds the thread and starts the game there, without anyone asking.
        board = await sandbox.wait_for_message(thread_id, lambda m: bool(m.embeds), timeout=60)
        assert f"<@{alice.id}>, your turn." in board.content
        assert game_row(db_path, 1) == ("active", thread_id)
        assert len(sandbox.threads(sandbox.channel_id)) == 1
    finally:
        await stop(process)
    assert sandbox.take_errors() == []


async def test_an_ai_challenge_cut_short_before_its_thread_is_withdrawn_at_start_up(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, db_path: Path, clock: ManualClock, alice: Member
) -> None:
    """With no thread to play in (or no AI any more), nothing may stay open: it is withdrawn and says so."""
    bot = await sandbox_runner.start(make_factory(db_path, clock), sync=False)
    assert isinstance(bot, VeletasBot)
    info = await bot.store.create_challenge(
        guild_id=sandbox.guild_id,
        channel_id=sandbox.channel_id,
        challenger_id=alice.id,
        opponent_id=sandbox.bot_member.id,
        settings={"variant": "small", "rules": "current"},
        where="thread",
        expires_at=None,
        ai_level=2,
    )
    await sandbox_runner.restart(make_factory(db_path, clock))
    await sandbox.wait_until(lambda: game_row(db_path, info.id)[0] == "cancelled", what="the withdrawal")
    assert sandbox.threads(sandbox.channel_id) == []


# --- noise ----------------------------------------------------------------------------------------


async def test_one_open_challenge_per_pair_however_often_it_is_asked(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    challenger = sandbox.user(alice)
    first = await challenger.slash("veletas", "challenge", opponent=bob)
    assert would_ping(sandbox, first) == [str(bob.id)]
    link = f"https://discord.com/channels/{sandbox.guild_id}/{sandbox.channel_id}/{first.id}"
    for _ in range(9):
        again = await challenger.slash("veletas", "challenge", opponent=bob, variant="medium")
        assert again.ephemeral and f"You already challenged <@{bob.id}> ({link})" in again.content
    # The other way round is the same pair.
    back = await sandbox.user(bob).slash("veletas", "challenge", opponent=alice, where="here")
    assert back.ephemeral and f"<@{alice.id}> has already challenged you ({link})" in back.content
    public = sandbox.messages(sandbox.channel_id, include_ephemeral=False)
    assert [m.id for m in public] == [first.id], "ten asks, one challenge, one ping"
    assert [str(bob.id)] == [u for m in public for u in would_ping(sandbox, m)]
    # Other pairs are free, and once the challenge is answered the pair is free again.
    assert not (await challenger.slash("veletas", "challenge", opponent=carol)).ephemeral
    await sandbox.user(bob).click(first, "Decline")
    assert not (await challenger.slash("veletas", "challenge", opponent=bob)).ephemeral


async def test_a_member_has_at_most_the_set_number_of_open_challenges(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, db_path: Path, clock: ManualClock, alice: Member, bob: Member
) -> None:
    carol = sandbox.member("carol")
    bot = await sandbox_runner.start(make_factory(db_path, clock, max_open_challenges=2), sync=False)
    assert isinstance(bot, VeletasBot)
    challenger = sandbox.user(alice)
    anyone = await challenger.slash("veletas", "challenge")
    to_bob = await challenger.slash("veletas", "challenge", opponent=bob)
    refused = await challenger.slash("veletas", "challenge", opponent=carol)
    assert refused.ephemeral and "You already have 2 open challenges" in refused.content
    for message in (anyone, to_bob):
        assert f"/{sandbox.channel_id}/{message.id}" in refused.content
    assert len(sandbox.messages(sandbox.channel_id, include_ephemeral=False)) == 2
    # Others have their own allowance; withdrawing one frees a place.
    assert not (await sandbox.user(bob).slash("veletas", "challenge", opponent=carol)).ephemeral
    await challenger.click(anyone, "Withdraw")
    assert not (await challenger.slash("veletas", "challenge", opponent=carol, where="here")).ephemeral
    # Expired challenges do not count.
    clock.advance(minutes=16)
    assert not (await challenger.slash("veletas", "challenge", variant="medium")).ephemeral


@pytest.mark.slow
@pytest.mark.parametrize("status", [500, 503])
async def test_an_accept_whose_first_board_discord_keeps_failing_gets_it_out_on_the_retry_schedule(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    db_path: Path,
    caplog: pytest.LogCaptureFixture,
    status: int,
) -> None:
    """The first board of a thread game is posted to the thread, outside the interaction. Five server errors
    used to take discord.py's 25 s of its own retries and then end in the apology, the board left for the next
    sweep; now the bot shows itself typing in the thread and posts the board on the retry schedule."""
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small", where="thread")
    failing = sandbox.fail("POST", r"^/channels/\d+/messages$", status, times=5)
    seen = len(sandbox.requests)
    with caplog.at_level(logging.ERROR):
        await sandbox.user(bob).click(challenge, "Accept")
        board = await sandbox.wait_for_message(
            predicate=lambda m: bool(m.embeds) and "Veletas #" in m.text(), after=challenge.id, timeout=30
        )
    assert failing.hits == 5
    assert f"Accepted by {bob.mention}" in sandbox.message(challenge.id).content
    posts = [r for r in sandbox.requests[seen:] if r.path == f"/channels/{board.channel_id}/messages"]
    typing = [r for r in sandbox.requests[seen:] if r.path == f"/channels/{board.channel_id}/typing"]
    assert typing and typing[0].at - posts[0].at < 0.5, "nothing showed the players the bot was at it"
    assert posts[-1].at - posts[0].at < 0.1 + 0.2 + 0.4 + 0.8 + 1.6 + 2.0
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert not [m for m in sandbox.messages(sandbox.channel_id) if m.ephemeral], "no apology, no refusal"
