"""The bot split over two shard processes on one PostgreSQL database, against the fake Discord's shards: the
server's shard answers its members, the other process hears nothing of it, a deadline falls once, and a tournament
round that takes longer to open than the scheduler's lease is opened by one process only."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from dbtools import raw

from bot.client import ShardedVeletasBot, VeletasBot, make_bot
from bot.config import Settings
from bot.sandbox import FakeDiscord, Member
from bot.sandbox.runner import BotRunner
from bot.store import Store
from e2e.conftest import ManualClock
from e2e.test_clocks import both_move, start

pytestmark = pytest.mark.slow  # several shard processes of the real bot


async def test_two_shard_processes_share_one_database_and_a_deadline_falls_once(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    bob: Member,
    clock: ManualClock,
    pg_url: str,
    tmp_path: Path,
) -> None:
    owner = (sandbox.state.guild_id >> 22) % 2

    async def shard_process(shard: int) -> VeletasBot:
        settings = Settings(
            token=sandbox.token,
            database_path=tmp_path / f"shard-{shard}" / "unused.sqlite3",
            database_url=pg_url,
            api_base=sandbox.api_base,
            gateway_url=sandbox.gateway_url,
            shard_count=2,
            shard_ids=(shard,),
        )
        return make_bot(settings, await Store.open(settings.database, clock=clock), clock=clock)

    main = await sandbox_runner.start(lambda fake: shard_process(owner), sync=False)
    other = await shard_process(1 - owner)
    assert isinstance(main, ShardedVeletasBot) and isinstance(other, ShardedVeletasBot)
    await other.login(sandbox.token)
    running = asyncio.create_task(other.connect())
    try:
        await sandbox.wait_until(lambda: other.is_ready() or None, what="the second shard process")
        assert set(sandbox.gateway.shards) == {(0, 2), (1, 2)}
        assert main.get_guild(sandbox.state.guild_id) is not None, "the server is on the first process's shard"
        assert list(other.guilds) == [], "and the other process hears nothing of it"
        assert main.store.owns_guild(sandbox.state.guild_id) and not other.store.owns_guild(sandbox.state.guild_id)

        _, game_id = await start(sandbox, alice, bob, "1+0")
        await both_move(sandbox, alice, bob)  # a flag now decides the game (before, it would abort it)
        cursor = sandbox.cursor()
        clock.advance(1.05)
        main.scheduler.wake()
        other.scheduler.wake()
        await sandbox.wait_for_message(
            sandbox.channel_id, lambda m: bool(m.embeds) and "lost on time" in m.text(), after=cursor
        )
        await asyncio.sleep(1.0)  # long enough for a second flag to show, were there one
        endings = [m for m in sandbox.messages(sandbox.channel_id) if m.embeds and "lost on time" in m.text()]
        assert len(endings) == 1, "one board says the game was lost on time, whichever process flagged it"
        info = await other.store.get_game(game_id)
        assert info.status == "finished" and info.termination == "time forfeit"
        assert main.scheduler.acted + other.scheduler.acted == 1
        assert (tmp_path / f"shard-{owner}" / "heartbeat").exists(), "each process keeps its own heartbeat"
    finally:
        await other.close()
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        await other.store.close()


async def test_a_round_slower_to_open_than_the_lease_is_opened_by_one_of_two_processes_and_each_player_called_once(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    bob: Member,
    carol: Member,
    clock: ManualClock,
    pg_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner = (sandbox.state.guild_id >> 22) % 2

    async def shard_process(shard: int) -> VeletasBot:
        settings = Settings(
            token=sandbox.token,
            database_path=tmp_path / f"shard-{shard}" / "unused.sqlite3",
            database_url=pg_url,
            api_base=sandbox.api_base,
            gateway_url=sandbox.gateway_url,
            shard_count=2,
            shard_ids=(shard,),
        )
        return make_bot(settings, await Store.open(settings.database, clock=clock), clock=clock)

    main = await sandbox_runner.start(lambda fake: shard_process(owner), sync=False)
    other = await shard_process(1 - owner)
    await other.login(sandbox.token)
    running = asyncio.create_task(other.connect())
    try:
        await sandbox.wait_until(lambda: other.is_ready() or None, what="the second shard process")
        for process in (main, other):
            # A lease of a second, and both schedulers looking often: a step running longer is taken over
            # within moments unless it is held for as long as it runs.
            process.scheduler.lease = 1.0
            process.scheduler.tick = 0.1
            process.scheduler.wake()
            cog = process.get_cog("Tournaments")
            real = cog.create_thread  # type: ignore[union-attr]

            async def slow(channel: object, name: str, real: object = real) -> object:
                await asyncio.sleep(1.5)  # Discord slow to make each thread: the round takes three leases to open
                return await real(channel, name)  # type: ignore[operator]

            monkeypatch.setattr(cog, "create_thread", slow)
        await sandbox.grant(alice, "manage_guild")
        dave = sandbox.add_member("dave")
        announcement = await sandbox.user(alice).slash(
            "tournament", "create", name="Shard Cup", game="veloop", format="swiss", rounds=2, time="1d", settings="5"
        )
        for member in (alice, bob, carol, dave):
            await sandbox.user(member).click(announcement, "Join")
        await sandbox.user(alice).slash("tournament", "start")

        db = raw(pg_url)

        def opened() -> list[tuple[int, int, int]] | None:
            """(white, black, thread) of round 1's games once both are on their boards and its step is done."""
            found = db.execute(
                "SELECT white, black, thread_id FROM tournament_pairings WHERE tournament_id = 1 AND round = 1 "
                "AND state = 'game'"
            ).fetchall()
            step = db.execute("SELECT 1 FROM due WHERE tournament_id = 1 AND key = 'play:1'").fetchall()
            if len(found) != 2 or step or not all(any(m.embeds for m in sandbox.messages(t)) for _, _, t in found):
                return None
            return [(int(w), int(b), int(t)) for w, b, t in found]

        try:
            found = await sandbox.wait_until(opened, timeout=60, what="round 1 opened")
        finally:
            db.close()
        await sandbox.settle()
        made = [r for r in sandbox.requests if r.method == "POST" and re.search(r"/channels/\d+/threads$", r.path)]
        assert len(made) == 2, "one thread asked for per pairing, by one process"
        threads = sandbox.threads(sandbox.channel_id)
        assert {int(t["id"]) for t in threads} == {thread for _, _, thread in found}
        for white, black, thread in found:
            called = [m for m in sandbox.messages(thread) if f"<@{white}>" in m.content and f"<@{black}>" in m.content]
            assert len(called) == 1 and called[0].embeds, "each player called once, with the first board"
            assert len([m for m in sandbox.messages(thread) if m.embeds]) == 1, "one first board per game"
    finally:
        await other.close()
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        await other.store.close()
