"""The bot split over two shard processes on one PostgreSQL database, against the fake Discord's shards: the
server's shard answers its members, the other process hears nothing of it, and a deadline falls once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.client import ShardedVeletasBot, VeletasBot, make_bot
from bot.config import Settings
from bot.sandbox import FakeDiscord, Member
from bot.sandbox.runner import BotRunner
from bot.store import Store
from e2e.conftest import ManualClock
from e2e.test_clocks import start


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
