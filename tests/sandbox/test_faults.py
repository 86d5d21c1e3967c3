"""Faults a test asks for: 429s with Retry-After that discord.py honours, and errors it cannot get past."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp
import discord
import pytest

from bot.sandbox import FakeDiscord

from .conftest import ProbeBot

MESSAGES = r"^/channels/\d+/messages$"


async def test_a_429_is_answered_with_discords_body_and_headers_and_discordpy_waits(
    sandbox: FakeDiscord, probe: ProbeBot
) -> None:
    sandbox.fail("POST", MESSAGES, 429, retry_after=0.3, times=1)
    channel = probe.get_channel(sandbox.channel_id)
    assert isinstance(channel, discord.TextChannel)
    started = time.monotonic()
    sent = await channel.send("after a rate limit")
    assert time.monotonic() - started >= 0.3
    posts = [r for r in sandbox.requests if r.method == "POST" and r.path.endswith("/messages")]
    assert [r.status for r in posts] == [429, 200]
    assert posts[0].response == {"message": "You are being rate limited.", "retry_after": 0.3, "global": False}
    assert sandbox.messages(sandbox.channel_id)[-1].id == sent.id
    assert sandbox.take_errors() == []  # asked-for faults are not the bot's errors


async def test_a_lasting_server_error_reaches_the_caller(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    fault = sandbox.fail("POST", MESSAGES, 403, code=50013, message="Missing Permissions", times=None)
    channel = probe.get_channel(sandbox.channel_id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.Forbidden) as caught:
        await channel.send("never")
    assert caught.value.code == 50013
    assert fault.hits == 1 and not sandbox.messages(sandbox.channel_id)
    sandbox.faults.remove(fault)
    await channel.send("now it works")
    assert sandbox.messages(sandbox.channel_id)[-1].content == "now it works"


async def test_faults_match_method_and_path_only(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    fault = sandbox.fail("PATCH", MESSAGES, 500, times=1)
    channel = probe.get_channel(sandbox.channel_id)
    assert isinstance(channel, discord.TextChannel)
    await channel.send("a POST is not a PATCH")
    assert fault.hits == 0 and not fault.spent


THREADS = r"^/channels/\d+/threads$"


@pytest.mark.slow
async def test_a_rate_limit_bucket_paces_discordpy_through_its_headers_and_answers_429_past_it(
    sandbox: FakeDiscord, probe: ProbeBot
) -> None:
    bucket = sandbox.rate_limit("POST", THREADS, limit=3, per=0.4)
    channel = probe.get_channel(sandbox.channel_id)
    assert isinstance(channel, discord.TextChannel)
    started = time.monotonic()
    for i in range(7):
        await channel.create_thread(name=f"t{i}", type=discord.ChannelType.public_thread)
    assert time.monotonic() - started >= 0.8, "two full buckets waited out"
    assert bucket.served == 7 and bucket.busiest <= 3
    made = [r for r in sandbox.requests if r.method == "POST" and r.path.endswith("/threads")]
    assert made[0].status == 201
    # Seven at once, as a client that ignores the headers would send them: the bucket refuses past three.
    await asyncio.sleep(0.45)
    answers = await asyncio.gather(*(raw_thread(sandbox, f"burst{i}") for i in range(5)))
    statuses = sorted(status for status, _, _ in answers)
    assert statuses == [201, 201, 201, 429, 429]
    _, body, headers = next(a for a in answers if a[0] == 429)
    assert body["retry_after"] > 0 and body["global"] is False
    assert headers["X-RateLimit-Remaining"] == "0" and int(headers["Retry-After"]) >= 1
    assert bucket.limited == 2


async def raw_thread(sandbox: FakeDiscord, name: str) -> tuple[int, dict[str, Any], dict[str, str]]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{sandbox.api_base}/channels/{sandbox.channel_id}/threads",
            json={"name": name, "type": 11},
            headers={"Authorization": f"Bot {sandbox.token}"},
        ) as answer,
    ):
        return answer.status, await answer.json(), dict(answer.headers)
