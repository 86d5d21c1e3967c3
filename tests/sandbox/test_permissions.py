"""Channel permission overwrites: what discord.py sees of them and what the fake refuses because of them."""

from __future__ import annotations

import io
from typing import Any

import discord
import pytest
from discord.ext import commands

from bot.sandbox import FakeDiscord, InjectionRefused, Member
from bot.sandbox.runner import BotRunner

from .conftest import ProbeBot


def channel_of(bot: commands.Bot, channel_id: int) -> discord.TextChannel:
    channel = bot.get_channel(channel_id)
    assert isinstance(channel, discord.TextChannel)
    return channel


def bot_may(bot: commands.Bot, channel_id: int) -> discord.Permissions:
    channel = channel_of(bot, channel_id)
    return channel.permissions_for(channel.guild.me)


async def test_overwrites_set_before_start_arrive_in_guild_create(
    sandbox: FakeDiscord, sandbox_runner: BotRunner
) -> None:
    await sandbox.deny(sandbox.channel_id, "create_public_threads", "attach_files")
    bot = await sandbox_runner.start(lambda fake: ProbeBot())
    may = bot_may(bot, sandbox.channel_id)
    assert not may.create_public_threads and not may.attach_files
    assert may.send_messages and may.embed_links
    overwrite = channel_of(bot, sandbox.channel_id).overwrites_for(
        channel_of(bot, sandbox.channel_id).guild.me.top_role
    )
    assert overwrite.create_public_threads is False and overwrite.send_messages is None


async def test_a_thread_where_the_bot_may_not_start_one_is_missing_permissions(
    sandbox: FakeDiscord, probe: ProbeBot
) -> None:
    channel = channel_of(probe, sandbox.channel_id)
    message = await channel.send("start here")
    await sandbox.deny(sandbox.channel_id, "create_public_threads")
    await sandbox.wait_until(lambda: not bot_may(probe, sandbox.channel_id).create_public_threads)
    assert not sandbox.permissions_in(sandbox.channel_id).create_public_threads
    with pytest.raises(discord.Forbidden) as caught:
        await message.create_thread(name="game")
    assert caught.value.status == 403 and caught.value.code == 50013 and caught.value.text == "Missing Permissions"
    assert [e.error_code for e in sandbox.take_errors()] == [50013]
    assert sandbox.threads() == [] and "thread" not in sandbox.message(message.id).data
    await sandbox.allow(sandbox.channel_id, "create_public_threads")
    thread = await message.create_thread(name="game")
    assert [t["id"] for t in sandbox.threads()] == [str(thread.id)]


async def test_private_threads_need_their_own_permission(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    await sandbox.deny(sandbox.channel_id, "create_private_threads")
    channel = channel_of(probe, sandbox.channel_id)
    with pytest.raises(discord.Forbidden):
        await channel.create_thread(name="secret", type=discord.ChannelType.private_thread)
    public = await channel.create_thread(name="open", type=discord.ChannelType.public_thread)
    assert [t["name"] for t in sandbox.threads()] == [public.name]
    assert [e.error_code for e in sandbox.take_errors()] == [50013]


async def test_files_and_embeds_need_their_permissions(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    await sandbox.deny(sandbox.channel_id, "attach_files", "embed_links")
    channel = channel_of(probe, sandbox.channel_id)
    with pytest.raises(discord.Forbidden):
        await channel.send("board", file=discord.File(io.BytesIO(b"png"), filename="board.png"))
    with pytest.raises(discord.Forbidden):
        await channel.send(embed=discord.Embed(title="Board"))
    plain = await channel.send("text is still fine")
    with pytest.raises(discord.Forbidden):
        await plain.edit(embed=discord.Embed(title="Board"))
    assert [m.content for m in sandbox.messages(sandbox.channel_id)] == ["text is still fine"]
    assert [e.error_code for e in sandbox.take_errors()] == [50013, 50013, 50013]


async def test_without_send_messages_nothing_can_be_posted(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    await sandbox.deny(sandbox.channel_id, "send_messages")
    await sandbox.wait_until(lambda: not bot_may(probe, sandbox.channel_id).send_messages)
    # Discord denies what depends on posting along with it, and discord.py computes the same.
    assert not bot_may(probe, sandbox.channel_id).attach_files
    assert not sandbox.permissions_in(sandbox.channel_id).embed_links
    with pytest.raises(discord.Forbidden):
        await channel_of(probe, sandbox.channel_id).send("hello")
    assert sandbox.messages(sandbox.channel_id) == []
    assert [e.error_code for e in sandbox.take_errors()] == [50013]


async def test_threads_follow_their_parent_and_need_send_messages_in_threads(
    sandbox: FakeDiscord, probe: ProbeBot
) -> None:
    channel = channel_of(probe, sandbox.channel_id)
    thread = await channel.create_thread(name="game", type=discord.ChannelType.public_thread)
    await sandbox.deny(sandbox.channel_id, "send_messages_in_threads")
    with pytest.raises(discord.Forbidden):
        await thread.send("in the thread")
    await channel.send("in the channel")
    assert [m.content for m in sandbox.messages()] == ["in the channel"]
    assert [e.error_code for e in sandbox.take_errors()] == [50013]


async def test_a_hidden_channel_is_missing_access(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    hidden = sandbox.add_text_channel("staff")
    await sandbox.deny(hidden, "view_channel", target=sandbox.guild_id)
    with pytest.raises(discord.Forbidden) as caught:
        await probe.get_partial_messageable(hidden).send("hello")
    assert caught.value.code == 50001
    assert [e.error_code for e in sandbox.take_errors()] == [50001]


async def test_interactions_carry_the_channel_permissions_and_answers_still_work(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    await sandbox.deny(sandbox.channel_id, "create_public_threads", "send_messages")
    await sandbox.deny(sandbox.channel_id, "attach_files", target=alice)
    seen: list[tuple[discord.Permissions, discord.Permissions]] = []

    async def script(interaction: discord.Interaction[Any]) -> None:
        seen.append((interaction.app_permissions, interaction.permissions))
        await interaction.response.send_message("answers are not channel posts")

    probe.script = script
    answer = await sandbox.user(alice).slash("probe", text="x")
    assert answer.content == "answers are not channel posts"
    [(app, user)] = seen
    assert not app.create_public_threads and not app.send_messages and app.manage_threads
    assert not user.attach_files and user.send_messages


async def test_permission_names_are_checked(sandbox: FakeDiscord) -> None:
    with pytest.raises(ValueError, match="unknown permission"):
        await sandbox.deny(sandbox.channel_id, "create_threads")
    await sandbox.deny(sandbox.channel_id, "CREATE_PUBLIC_THREADS")
    assert not sandbox.permissions_in(sandbox.channel_id).create_public_threads
    await sandbox.allow(sandbox.channel_id, "create_public_threads")
    assert sandbox.state.channels[sandbox.channel_id]["permission_overwrites"] == [
        {"id": str(sandbox.state.bot_role_id), "type": 0, "allow": str(1 << 35), "deny": "0"}
    ]


async def test_a_granted_role_reaches_discord_py_and_the_interaction(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, bob: Member
) -> None:
    intents = discord.Intents.default()
    intents.members = True
    probe = await sandbox_runner.start(lambda fake: ProbeBot(intents=intents))
    assert isinstance(probe, ProbeBot)
    role_id = await sandbox.grant(alice, "manage_guild")
    guild = probe.get_guild(sandbox.guild_id)
    assert guild is not None

    def alice_managed() -> bool:
        member = guild.get_member(alice.id)
        return member is not None and member.guild_permissions.manage_guild

    await sandbox.wait_until(alice_managed, what="discord.py to see alice's new role")
    member = guild.get_member(alice.id)
    assert member is not None and [r.id for r in member.roles] == [sandbox.guild_id, role_id]
    assert member.roles[1].name == "Server managers"
    seen: dict[int, bool] = {}

    async def script(interaction: discord.Interaction[Any]) -> None:
        seen[interaction.user.id] = interaction.permissions.manage_guild
        await interaction.response.send_message("ok", ephemeral=True)

    probe.script = script
    await sandbox.user(alice).slash("probe", text="x")
    await sandbox.user(bob).slash("probe", text="x")
    assert seen == {alice.id: True, bob.id: False}


async def test_members_act_only_where_the_client_lets_them(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member, bob: Member
) -> None:
    hidden = sandbox.add_text_channel("staff")
    await sandbox.deny(hidden, "view_channel", target=alice)
    await sandbox.deny(sandbox.channel_id, "use_application_commands", "send_messages", target=alice)
    with pytest.raises(InjectionRefused, match="cannot see"):
        await sandbox.user(alice, channel_id=hidden).slash("probe", text="x")
    with pytest.raises(InjectionRefused, match="application commands"):
        await sandbox.user(alice).slash("probe", text="x")
    with pytest.raises(InjectionRefused, match="may not send"):
        await sandbox.user(alice).say("hello")
    # Bob is not concerned by alice's overwrites.
    await sandbox.user(bob).say("hello")
    assert [m.content for m in sandbox.messages()] == ["hello"]


async def test_archived_threads_reopen_on_a_message_and_locked_ones_need_manage_threads(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    channel = channel_of(probe, sandbox.channel_id)
    thread = await channel.create_thread(name="game", type=discord.ChannelType.public_thread)
    await thread.edit(archived=True)
    await thread.send("still playing")
    assert sandbox.thread(thread.id)["thread_metadata"]["archived"] is False

    def reopened() -> bool:
        cached = probe.get_channel(thread.id)
        return isinstance(cached, discord.Thread) and not cached.archived

    await sandbox.wait_until(reopened, what="discord.py to see the thread unarchived")

    await thread.edit(locked=True)
    await thread.send("moderators may still write")
    with pytest.raises(InjectionRefused, match="locked"):
        await sandbox.user(alice).in_channel(thread.id).say("let me in")
    await sandbox.deny(sandbox.channel_id, "manage_threads")
    with pytest.raises(discord.HTTPException) as caught:
        await thread.send("not any more")
    assert caught.value.code == 160005
    assert [e.error_code for e in sandbox.take_errors()] == [160005]
    assert [m.content for m in sandbox.messages(thread.id)] == ["still playing", "moderators may still write"]


async def test_the_bot_hears_nothing_from_a_channel_it_cannot_see(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, bob: Member
) -> None:
    intents = discord.Intents.default()
    intents.message_content = True
    probe = await sandbox_runner.start(lambda fake: ProbeBot(intents=intents))
    assert isinstance(probe, ProbeBot)
    hidden = sandbox.add_text_channel("staff")
    await sandbox.deny(hidden, "view_channel")
    await sandbox.user(bob, channel_id=hidden).say("secret")
    await sandbox.user(bob).say("public")
    await sandbox.wait_until(lambda: probe.seen_messages, what="the public message to reach the bot")
    assert [m.content for m in probe.seen_messages] == ["public"]


async def test_commands_with_default_member_permissions_are_offered_only_to_those_who_have_them(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member, bob: Member
) -> None:
    # As if the bot had synced /admin with @app_commands.default_permissions(manage_guild=True).
    [admin] = [c for c in sandbox.commands() if c["name"] == "admin"]
    admin["default_member_permissions"] = str(discord.Permissions(manage_guild=True).value)
    with pytest.raises(InjectionRefused, match=r"needs \['manage_guild'\]"):
        await sandbox.user(alice).slash("admin", "ping")
    await sandbox.grant(alice, "manage_guild")
    answer = await sandbox.user(alice).slash("admin", "ping")
    assert answer.content == "pong"
    admin["default_member_permissions"] = "0"
    with pytest.raises(InjectionRefused, match="administrator"):
        await sandbox.user(alice).slash("admin", "ping")
    await sandbox.grant(bob, "administrator")
    assert (await sandbox.user(bob).slash("admin", "ping")).content == "pong"
