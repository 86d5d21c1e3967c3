"""The fake gateway with the real discord.py client: resume, re-identify, close codes, compression."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import zlib
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest

from bot.endpoints import apply_endpoints, current_endpoints
from bot.sandbox import FakeDiscord, Member

from .conftest import ProbeBot

ROOT = Path(__file__).resolve().parents[2]


async def answer_pong(interaction: discord.Interaction[Any]) -> None:
    await interaction.response.send_message("pong")


async def still_answers(sandbox: FakeDiscord, probe: ProbeBot, member: Member) -> None:
    probe.script = answer_pong
    assert (await sandbox.user(member).slash("probe", text="ping")).content == "pong"


async def test_first_heartbeat_comes_before_identify_and_is_acknowledged(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    first = sandbox.gateway.connections[0]
    assert first.received_ops[:2] == [1, 2]
    assert first.sent_ops[:2] == [10, 11]
    assert 0 <= probe.latency < 5


async def test_bot_asks_for_zlib_stream_and_gets_it(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    connection = sandbox.gateway.connections[0]
    assert connection.query["compress"] == "zlib-stream" and connection.compressed
    await still_answers(sandbox, probe, alice)


async def test_reconnect_request_resumes_on_the_resume_url(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    session_id = probe.ws.session_id
    await sandbox.gateway.request_reconnect()
    resumed = await sandbox.wait_until(lambda: next((c for c in sandbox.gateway.connections if c.resumed), None))
    assert resumed.path == "/gateway-resume"
    assert 2 not in resumed.received_ops and 6 in resumed.received_ops
    assert probe.ws.session_id == session_id
    await still_answers(sandbox, probe, alice)


async def test_events_missed_while_disconnected_are_replayed_on_resume(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    await sandbox.gateway.drop_connection(4000)
    said = await sandbox.user(alice).say("did you get this?")
    seen = await sandbox.wait_until(lambda: next((m for m in probe.seen_messages if m.id == said.id), None))
    assert any(c.resumed for c in sandbox.gateway.connections)
    assert seen.author.id == alice.id
    assert seen.content == ""  # the probe bot did not ask for the message content intent


async def test_invalid_session_makes_the_bot_identify_again(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    old_session = probe.ws.session_id
    await sandbox.gateway.invalidate_session(resumable=False)
    await sandbox.wait_until(lambda: sum(c.identified for c in sandbox.gateway.connections) == 2)
    await sandbox.wait_until(lambda: probe.ws is not None and probe.ws.session_id not in (None, old_session))
    assert sandbox.gateway.connections[-1].path == "/gateway"
    await still_answers(sandbox, probe, alice)


async def test_revoked_token_closes_with_4004_and_stops_the_bot(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    sandbox.gateway.revoke_token()
    await sandbox.gateway.invalidate_session(resumable=False)
    error = await sandbox.runner.wait_stopped()
    assert isinstance(error, discord.ConnectionClosed) and error.code == 4004
    assert sandbox.gateway.connections[-1].close_code == 4004


async def test_disallowed_privileged_intents_close_with_4014() -> None:
    async with FakeDiscord(privileged_intents=0) as fake:
        with pytest.raises(discord.PrivilegedIntentsRequired):
            await fake.start_bot(lambda f: ProbeBot(intents=discord.Intents.default() | discord.Intents(members=True)))
        assert fake.gateway.connections[-1].close_code == 4014


async def test_wrong_token_is_refused_at_login() -> None:
    async with FakeDiscord() as fake:
        with pytest.raises(discord.LoginFailure):
            await fake.start_bot(_with_token("not-the-token"))
        assert [e.status for e in fake.take_errors()] == [401]


def _with_token(token: str) -> Any:
    class WrongTokenBot(ProbeBot):
        async def start(self, _: str, *, reconnect: bool = True) -> None:
            await super().start(token, reconnect=reconnect)

    return lambda fake: WrongTokenBot()


class RawGateway:
    """A bare websocket client, to check the wire format discord.py hides."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, compressed: bool) -> None:
        self.ws = ws
        self.inflate = zlib.decompressobj() if compressed else None

    async def receive(self) -> dict[str, Any]:
        msg = await self.ws.receive()
        if self.inflate is not None:
            assert msg.type is aiohttp.WSMsgType.BINARY
            assert msg.data.endswith(b"\x00\x00\xff\xff")
            return dict(json.loads(self.inflate.decompress(msg.data)))
        assert msg.type is aiohttp.WSMsgType.TEXT
        return dict(json.loads(msg.data))

    async def send(self, op: int, d: Any) -> None:
        await self.ws.send_str(json.dumps({"op": op, "d": d}))


async def test_zlib_stream_frames_share_one_compression_context(sandbox: FakeDiscord) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(sandbox.gateway_url + "?v=10&encoding=json&compress=zlib-stream") as ws,
    ):
        raw = RawGateway(ws, compressed=True)
        hello = await raw.receive()
        assert hello["op"] == 10 and hello["d"]["heartbeat_interval"] > 0
        await raw.send(1, None)
        assert (await raw.receive())["op"] == 11
        await raw.send(2, {"token": sandbox.token, "intents": 1, "properties": {}})
        ready = await raw.receive()
        assert ready["t"] == "READY" and ready["s"] == 1
        assert ready["d"]["resume_gateway_url"].startswith(sandbox.base_url.replace("http", "ws"))
        guild = await raw.receive()
        assert guild["t"] == "GUILD_CREATE" and guild["d"]["member_count"] == len(guild["d"]["members"])


async def test_uncompressed_gateway_sends_text_and_enforces_identify_first(sandbox: FakeDiscord) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(sandbox.gateway_url + "?v=10&encoding=json") as ws,
    ):
        raw = RawGateway(ws, compressed=False)
        assert (await raw.receive())["op"] == 10
        await raw.send(3, {"status": "online"})
        closing = await ws.receive()
        assert closing.type is aiohttp.WSMsgType.CLOSE and closing.data == 4003


@pytest.mark.parametrize(
    ("identify", "code"),
    [({"token": "wrong", "intents": 1}, 4004), ({"intents": 1 << 30}, 4013)],
)
async def test_bad_identify_close_codes(sandbox: FakeDiscord, identify: dict[str, Any], code: int) -> None:
    identify = {"token": sandbox.token, "properties": {}} | identify
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(sandbox.gateway_url + "?v=10&encoding=json") as ws,
    ):
        raw = RawGateway(ws, compressed=False)
        await raw.receive()
        await raw.send(2, identify)
        closing = await ws.receive()
        assert closing.data == code


async def test_old_api_version_is_closed_with_4012(sandbox: FakeDiscord) -> None:
    async with aiohttp.ClientSession() as session, session.ws_connect(sandbox.gateway_url + "?v=9&encoding=json") as ws:
        closing = await ws.receive()
        assert closing.data == 4012


async def test_a_channel_added_mid_test_is_announced_before_the_next_action(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    lobby = sandbox.add_text_channel("lobby")
    await sandbox.deny(lobby, "embed_links")
    cached: list[object] = []

    async def script(interaction: discord.Interaction[Any]) -> None:
        cached.append(probe.get_channel(lobby))
        await interaction.response.send_message("here")

    probe.script = script
    await sandbox.user(alice, channel_id=lobby).slash("probe", text="x")
    [channel] = cached
    assert isinstance(channel, discord.TextChannel) and channel.name == "lobby", "the bot's cache knows it"
    assert not channel.permissions_for(channel.guild.me).embed_links, "the overwrite came after the channel"


@pytest.mark.slow
async def test_an_idle_bot_sees_its_heartbeats_acknowledged_on_time(caplog: pytest.LogCaptureFixture) -> None:
    """discord.py measures each heartbeat from its send to its ACK and warns "Can't keep up" past 10 s. An ACK read
    before its keep-alive thread has noted the send is measured from the heartbeat before: a whole interval, so an
    idle bot of the local table (the fake in another process, as there) warned every 41 s. A short interval here:
    every latency must stay far below it."""
    fake = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).with_name("fake_process.py")),
        "250",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert fake.stdout is not None and fake.stdin is not None
    saved = current_endpoints()
    latencies: list[float] = []
    try:
        where = json.loads(await asyncio.wait_for(fake.stdout.readline(), 30))
        apply_endpoints(where["api_base"], where["gateway_url"])
        client = discord.Client(intents=discord.Intents.default(), enable_debug_events=True)
        enough = asyncio.Event()

        async def on_socket_raw_receive(text: str) -> None:
            if json.loads(text)["op"] == 11:  # read after discord.py has handled the ACK
                latencies.append(client.latency)
                if len(latencies) >= 12:
                    enough.set()

        client.event(on_socket_raw_receive)
        running = asyncio.create_task(client.start(where["token"]))
        try:
            with caplog.at_level("WARNING", logger="discord.gateway"):
                await asyncio.wait_for(enough.wait(), 30)
        finally:
            await client.close()
            await running
    finally:
        apply_endpoints(*saved)
        fake.stdin.close()
        await fake.wait()
    assert max(latencies) < 0.125, f"heartbeat latencies measured as {latencies} on a 0.25 s interval"
    assert not [r for r in caplog.records if "behind" in r.getMessage()]
