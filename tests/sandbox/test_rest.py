"""Wire details of the REST side that discord.py depends on, and restarting a bot mid-test."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import discord
from discord.ext import commands

from bot.sandbox import FakeDiscord, Member
from bot.sandbox.clock import snowflake_time

from .conftest import ProbeBot


async def test_json_answers_are_exactly_application_json(sandbox: FakeDiscord) -> None:
    headers = {"Authorization": f"Bot {sandbox.token}"}
    async with aiohttp.ClientSession() as session, session.get(f"{sandbox.api_base}/users/@me", headers=headers) as r:
        assert r.headers["Content-Type"] == "application/json"
        me = await r.json()
    assert me["id"] == str(sandbox.application_id) and me["bot"] is True


async def test_bot_routes_need_the_token_but_callbacks_do_not(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    async with aiohttp.ClientSession() as session, session.get(f"{sandbox.api_base}/users/@me") as r:
        assert r.status == 401
    assert [e.status for e in sandbox.take_errors()] == [401]

    async def script(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("hi")

    probe.script = script
    message = await sandbox.user(alice).slash("probe", text="x")
    callback = next(r for r in sandbox.requests if r.path.endswith("/callback"))
    assert not callback.authorized and callback.query == {"with_response": "1"}
    assert callback.response["interaction"]["response_message_id"] == str(message.id)
    assert callback.response["resource"]["message"]["id"] == str(message.id)


async def test_snowflakes_are_time_based_strings(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    channel = probe.get_channel(sandbox.channel_id)
    assert isinstance(channel, discord.TextChannel)
    first, second = await channel.send("one"), await channel.send("two")
    assert first.id < second.id
    assert abs(snowflake_time(first.id) - datetime.now(UTC)) < timedelta(seconds=5)
    posted = next(r for r in sandbox.requests if r.method == "POST" and r.path.endswith("/messages"))
    assert isinstance(posted.response["id"], str) and isinstance(posted.response["author"]["id"], str)


class Rematch(discord.ui.View):
    """A persistent view: it must survive a restart because the bot re-registers it."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Rematch", custom_id="demo:rematch")
    async def rematch(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Rematch]) -> None:
        await interaction.response.send_message(f"rematch by {interaction.user.name}", ephemeral=True)


class PersistentBot(ProbeBot):
    async def setup_hook(self) -> None:
        await super().setup_hook()
        self.add_view(Rematch())


def persistent(fake: FakeDiscord) -> commands.Bot:
    return PersistentBot()


async def test_restart_keeps_discord_and_a_persistent_view_still_works(sandbox: FakeDiscord, alice: Member) -> None:
    first = await sandbox.start_bot(persistent)
    channel = first.get_channel(sandbox.channel_id)
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("game over", view=Rematch())

    second = await sandbox.restart_bot(persistent)
    assert first.is_closed() and second is not first and not second.is_closed()
    assert [c["name"] for c in sandbox.commands()] == ["probe", "admin"]
    answer = await sandbox.user(alice).click(sandbox.message(sent.id), "Rematch")
    assert answer.content == "rematch by alice" and answer.ephemeral


async def test_the_fake_stops_by_itself_after_its_lifetime() -> None:
    fake = FakeDiscord(lifetime=0.05)
    await fake.start()
    url = fake.api_base + "/gateway"
    await fake.wait_until(lambda: not fake.running, timeout=5, what="the fake to expire")
    async with aiohttp.ClientSession() as session:
        try:
            async with session.get(url) as response:
                reachable = response.status < 500
        except aiohttp.ClientConnectionError:
            reachable = False
    assert not reachable


async def test_original_response_can_be_read_edited_and_deleted(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    steps: list[str] = []

    async def script(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer()
        edited = await interaction.edit_original_response(content="edited in place")
        steps.append(edited.content)
        fetched = await interaction.original_response()
        steps.append(fetched.content)
        extra = await interaction.followup.send("to be removed", wait=True)
        await extra.delete()
        await interaction.delete_original_response()
        steps.append("deleted")

    probe.script = script
    answer = await sandbox.user(alice).slash("probe", text="x")
    assert answer.content == "edited in place"
    await sandbox.wait_until(lambda: steps == ["edited in place", "edited in place", "deleted"])
    assert sandbox.messages(sandbox.channel_id) == []
    assert answer.deleted
