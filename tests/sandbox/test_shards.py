"""Sharding in the fake Discord, as Discord does it: each shard its own session, a server's events only to the
shard ``(guild_id >> 22) % count``, a bad shard closed with 4010; and discord.py's sharded client on it."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import discord
import pytest
from discord.ext import commands

from bot.sandbox import FakeDiscord, Member

from .conftest import ProbeBot
from .test_gateway import RawGateway, answer_pong

GUILDS_AND_MESSAGES = 1 | 1 << 9


async def _identify(sandbox: FakeDiscord, session: aiohttp.ClientSession, shard: Any) -> tuple[RawGateway, Any]:
    ws = await session.ws_connect(sandbox.gateway_url + "?v=10&encoding=json")
    raw = RawGateway(ws, compressed=False)
    assert (await raw.receive())["op"] == 10
    await raw.send(2, {"token": sandbox.token, "intents": GUILDS_AND_MESSAGES, "properties": {}, "shard": shard})
    return raw, ws


async def _next_dispatch(raw: RawGateway, timeout: float) -> dict[str, Any] | None:
    try:
        return await asyncio.wait_for(raw.receive(), timeout)
    except TimeoutError:
        return None


async def test_a_servers_events_go_only_to_its_shard(sandbox: FakeDiscord, alice: Member) -> None:
    owner = (sandbox.state.guild_id >> 22) % 2
    async with aiohttp.ClientSession() as session:
        shards = [await _identify(sandbox, session, [shard, 2]) for shard in (0, 1)]
        readies = [await shards[shard][0].receive() for shard in (0, 1)]
        for shard, ready in enumerate(readies):
            assert ready["t"] == "READY" and ready["d"]["shard"] == [shard, 2]
            listed = [int(g["id"]) for g in ready["d"]["guilds"]]
            assert listed == ([sandbox.state.guild_id] if shard == owner else [])
        created = await shards[owner][0].receive()
        assert created["t"] == "GUILD_CREATE" and int(created["d"]["id"]) == sandbox.state.guild_id
        assert set(sandbox.gateway.shards) == {(0, 2), (1, 2)}
        assert sandbox.gateway.current is sandbox.gateway.shards[(owner, 2)]
        said = await sandbox.user(alice).say("which shard hears this?")
        heard = await _next_dispatch(shards[owner][0], 5)
        assert heard is not None and heard["t"] == "MESSAGE_CREATE" and int(heard["d"]["id"]) == said.id
        assert await _next_dispatch(shards[1 - owner][0], 0.3) is None, "the other shard hears nothing of it"
        for _, ws in shards:
            await ws.close()


@pytest.mark.parametrize("shard", [[2, 2], [0, 0], [-1, 2], [0], "0,2", [True, 2]])
async def test_a_bad_shard_closes_with_4010(sandbox: FakeDiscord, shard: Any) -> None:
    async with aiohttp.ClientSession() as session:
        _, ws = await _identify(sandbox, session, shard)
        closing = await ws.receive()
        assert closing.type is aiohttp.WSMsgType.CLOSE and closing.data == 4010
        await ws.close()


async def test_gateway_bot_recommends_the_configured_shard_count(sandbox: FakeDiscord) -> None:
    sandbox.gateway.recommended_shards = 3
    async with (
        aiohttp.ClientSession() as session,
        session.get(sandbox.base_url + "/api/v10/gateway/bot", headers={"Authorization": f"Bot {sandbox.token}"}) as r,
    ):
        assert r.status == 200
        assert (await r.json())["shards"] == 3


class ShardedProbe(ProbeBot, commands.AutoShardedBot):
    """The probe as a sharded client: discord.py's AutoShardedBot running two shards in one process."""


async def test_discord_pys_sharded_client_runs_both_shards_and_answers_on_the_owner() -> None:
    async with FakeDiscord() as fake:
        bot = await fake.start_bot(lambda f: ShardedProbe(shard_count=2))
        assert isinstance(bot, ShardedProbe)
        try:
            await fake.wait_until(lambda: len(fake.gateway.shards) == 2)
            assert sum(c.identified for c in fake.gateway.connections) == 2
            owner = (fake.state.guild_id >> 22) % 2
            guild = bot.get_guild(fake.state.guild_id)
            assert guild is not None and guild.shard_id == owner
            bot.script = answer_pong
            member = fake.add_member("Dana")
            assert (await fake.user(member).slash("probe", text="ping")).content == "pong"
            assert isinstance(bot, discord.AutoShardedClient) and set(bot.shards) == {0, 1}
        finally:
            await fake.runner.stop()


async def test_a_fake_can_hold_the_server_of_a_chosen_shard_and_fakes_of_several_never_share_an_id() -> None:
    """A benchmark splitting its games over shard processes runs one fake per shard: each server belongs to the
    shard asked for, its READY goes to that shard, and ids from the fakes never coincide (the database they
    share would take two channels with one id for one)."""
    fakes = [FakeDiscord(validate=False, guild_shard=(shard, 3)) for shard in range(3)]
    for fake in fakes:
        await fake.start()
    try:
        for shard, fake in enumerate(fakes):
            assert (fake.state.guild_id >> 22) % 3 == shard
        made = [fake.add_text_channel(f"c{i}") for i in range(200) for fake in fakes]
        made += [fake.add_member(f"m{i}").id for i in range(100) for fake in fakes]
        assert len(set(made)) == len(made)
        async with aiohttp.ClientSession() as session:
            raw, ws = await _identify(fakes[2], session, [2, 3])
            ready = await raw.receive()
            assert [int(g["id"]) for g in ready["d"]["guilds"]] == [fakes[2].state.guild_id]
            await ws.close()
    finally:
        for fake in fakes:
            await fake.stop()
