"""Faults a test asks for: 429s with Retry-After that discord.py honours, and errors it cannot get past."""

from __future__ import annotations

import time

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
