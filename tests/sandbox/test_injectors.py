"""Fake users: what they can send, what they are refused, and what they see afterwards."""

from __future__ import annotations

import io
from typing import Any

import discord
import pytest

from bot.sandbox import FakeDiscord, InjectionRefused, Member

from .conftest import ProbeBot

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


async def send(content: str, **kwargs: Any) -> Any:
    async def script(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(content, **kwargs)

    return script


@pytest.mark.parametrize(
    ("path", "options", "reason"),
    [
        (("nosuch",), {}, "never synced"),
        (("probe",), {}, "missing required option"),
        (("probe",), {"text": "x", "mode": "medium"}, "not one of"),
        (("probe",), {"text": "x", "count": 10}, "between 1 and 9"),
        (("probe",), {"text": "x", "count": "3"}, "takes a number"),
        (("probe",), {"text": "x", "colour": "red"}, "no option"),
        (("admin",), {}, "needs a sub-command"),
        (("admin", "pong"), {}, "not a sub-command"),
    ],
)
async def test_commands_a_client_could_not_send_are_refused(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member, path: tuple[str, ...], options: dict[str, Any], reason: str
) -> None:
    with pytest.raises(InjectionRefused, match=reason):
        await sandbox.user(alice).slash(*path, **options)
    assert sandbox.state.interactions == {}


async def test_a_command_in_the_tree_but_never_synced_is_refused(sandbox: FakeDiscord, alice: Member) -> None:
    await sandbox.start_bot(lambda fake: ProbeBot(), sync=False)
    with pytest.raises(InjectionRefused, match="never synced"):
        await sandbox.user(alice).slash("probe", text="x")


async def test_options_arrive_as_discord_py_parses_them(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member, bob: Member
) -> None:
    seen: dict[str, Any] = {}

    async def script(interaction: discord.Interaction[Any]) -> None:
        seen.update(interaction.namespace.__dict__)
        await interaction.response.send_message("ok")

    probe.script = script
    await sandbox.user(alice).slash("probe", text="hello", count=3, mode="fast", who=bob)
    assert seen["text"] == "hello" and seen["count"] == 3 and seen["mode"] == "fast"
    assert isinstance(seen["who"], discord.Member) and seen["who"].id == bob.id and seen["who"].name == "bob"


async def test_sub_command_answers_privately(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    answer = await sandbox.user(alice).slash("admin", "ping")
    assert answer.content == "pong" and answer.ephemeral
    assert all(m.id != answer.id for m in probe.seen_messages)


async def test_autocomplete_needs_an_autocompleted_option(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    with pytest.raises(InjectionRefused, match="no autocomplete"):
        await sandbox.user(alice).autocomplete("probe", mode="fa")
    probe.autocomplete_answer = [discord.app_commands.Choice(name="d4-g7/g2", value="d4-g7/g2")]
    assert await sandbox.user(alice).autocomplete("probe", text="d4") == [{"name": "d4-g7/g2", "value": "d4-g7/g2"}]


class Buttons(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.clicks: list[int] = []

    @discord.ui.button(label="Go")
    async def go(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Buttons]) -> None:
        self.clicks.append(interaction.user.id)
        await interaction.response.edit_message(content=f"clicked by {interaction.user.name}")

    @discord.ui.button(label="Off", disabled=True)
    async def off(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Buttons]) -> None:
        await interaction.response.defer()


async def test_buttons_click_and_refuse(sandbox: FakeDiscord, probe: ProbeBot, alice: Member, bob: Member) -> None:
    view = Buttons()
    probe.script = await send("choose", view=view)
    message = await sandbox.user(alice).slash("probe", text="x")
    with pytest.raises(InjectionRefused, match="no button 'Stop'"):
        await sandbox.user(alice).click(message, "Stop")
    with pytest.raises(InjectionRefused, match="disabled"):
        await sandbox.user(alice).click(message, "Off")
    after = await sandbox.user(bob).click(message, "Go")
    assert after is message and message.content == "clicked by bob" and message.history[0]["content"] == "choose"
    assert view.clicks == [bob.id]


async def test_someone_elses_ephemeral_message_cannot_be_clicked(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member, bob: Member
) -> None:
    view = Buttons()
    probe.script = await send("just for you", view=view, ephemeral=True)
    private = await sandbox.user(alice).slash("probe", text="x")
    with pytest.raises(InjectionRefused, match="ephemeral"):
        await sandbox.user(bob).click(private, "Go")
    await sandbox.user(alice).click(private, "Go")
    assert private.content == "clicked by alice" and view.clicks == [alice.id]


class Picker(discord.ui.View):
    @discord.ui.select(
        placeholder="Piece",
        options=[discord.SelectOption(label=f"Shooter on {sq}", value=sq) for sq in ("d4", "g7")],
        max_values=2,
    )
    async def piece(self, interaction: discord.Interaction[Any], select: discord.ui.Select[Picker]) -> None:
        await interaction.response.edit_message(content="picked " + ",".join(select.values), view=None)


async def test_select_menu_values_and_refusals(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    probe.script = await send("which?", view=Picker())
    message = await sandbox.user(alice).slash("probe", text="x")
    with pytest.raises(InjectionRefused, match="no option 'a1'"):
        await sandbox.user(alice).select(message, "a1")
    with pytest.raises(InjectionRefused, match=r"takes 1\.\.2 values"):
        await sandbox.user(alice).select(message, "d4", "g7", "d4")
    after = await sandbox.user(alice).select(message, "Shooter on g7", "d4", menu="Piece")
    assert after.content == "picked g7,d4" and after.components == []


class MoveModal(discord.ui.Modal, title="Your move"):
    move: discord.ui.TextInput[MoveModal] = discord.ui.TextInput(label="Move", min_length=2, max_length=9)
    note: discord.ui.TextInput[MoveModal] = discord.ui.TextInput(label="Note", required=False)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(f"played {self.move.value} ({self.note.value or '-'})")


async def test_modal_fields_are_checked_like_the_client_does(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    async def script(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_modal(MoveModal())

    probe.script = script
    u = sandbox.user(alice)
    modal = await u.slash_modal("probe", text="x")
    assert [f.label for f in modal.fields] == ["Move", "Note"]
    with pytest.raises(InjectionRefused, match="'Move' is required"):
        await u.submit(modal, Note="hi")
    with pytest.raises(InjectionRefused, match="at most 9"):
        await u.submit(modal, Move="d4-g7/g2xx")
    answer = await u.submit(modal, Move="d4-g7/g2")
    assert answer.content == "played d4-g7/g2 (-)"


async def test_files_and_embeds_reach_the_test(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    async def script(interaction: discord.Interaction[Any]) -> None:
        embed = discord.Embed(title="Board").set_image(url="attachment://board.png")
        await interaction.response.send_message(embed=embed, file=discord.File(io.BytesIO(PNG), "board.png"))
        sent = await interaction.original_response()
        assert await sent.attachments[0].read() == PNG

    probe.script = script
    message = await sandbox.user(alice).slash("probe", text="x")
    assert message.files == {"board.png": PNG}
    assert message.embeds[0]["image"]["url"] == message.attachments[0].url
    request = next(r for r in sandbox.requests if r.path.endswith("/callback"))
    assert request.files == {"board.png": PNG} and request.body["data"]["attachments"][0]["id"] == 0
    assert probe.failures == []


async def test_ephemeral_defer_then_followup_finishes_the_thinking_message(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    async def script(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send("done thinking")
        await interaction.followup.send("and one more")

    probe.script = script
    answer = await sandbox.user(alice).slash("probe", text="x")
    assert answer.content == "done thinking" and answer.ephemeral and not answer.loading
    extra = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.content == "and one more")
    assert not extra.ephemeral


async def test_followup_after_the_thinking_message_was_deleted_is_a_new_message(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    async def script(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.delete_original_response()
        await interaction.followup.send("only you can see this", ephemeral=True)

    probe.script = script
    placeholder = await sandbox.user(alice).slash("probe", text="x")
    assert placeholder.deleted and placeholder.content == "" and not placeholder.edited
    private = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.content == "only you can see this")
    assert private.id != placeholder.id and private.ephemeral and not private.loading
    assert private.visible_to == alice.id
    assert [m.content for m in sandbox.messages(sandbox.channel_id)] == ["only you can see this"]


async def test_only_the_first_followup_fills_the_thinking_message(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    async def script(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.edit_original_response(content="edited in place")
        await interaction.followup.send("a second message")

    probe.script = script
    answer = await sandbox.user(alice).slash("probe", text="x")
    assert answer.content == "edited in place" and not answer.loading
    second = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.content == "a second message")
    assert second.id != answer.id and sandbox.message(answer.id).content == "edited in place"


async def test_threads_from_a_message_and_standalone(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    threads: list[discord.Thread] = []

    async def script(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("game on")
        original = await interaction.original_response()
        threads.append(await original.create_thread(name="Veletas #1"))
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)
        threads.append(await channel.create_thread(name="Veletas #2", type=discord.ChannelType.public_thread))

    probe.script = script
    message = await sandbox.user(alice).slash("probe", text="x")
    await sandbox.wait_until(lambda: len(threads) == 2)
    from_message, standalone = threads
    assert from_message.id == message.id and message.data["thread"]["name"] == "Veletas #1"
    assert [t["name"] for t in sandbox.threads(sandbox.channel_id)] == ["Veletas #1", "Veletas #2"]
    await sandbox.wait_until(lambda: probe.get_channel(standalone.id) is not None)

    where: list[Any] = []

    async def in_thread(interaction: discord.Interaction[Any]) -> None:
        where.append(interaction.channel)
        await interaction.response.send_message("inside")

    probe.script = in_thread
    inside = await sandbox.user(alice).in_channel(standalone.id).slash("probe", text="x")
    assert inside.channel_id == standalone.id
    assert isinstance(where[0], discord.Thread) and where[0].parent_id == sandbox.channel_id

    await where[0].delete()
    assert [t["name"] for t in sandbox.threads()] == ["Veletas #1"] and inside.deleted
    await sandbox.wait_until(lambda: probe.get_channel(standalone.id) is None)


async def test_edits_keep_history_and_reach_the_gateway(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    channel = probe.get_channel(sandbox.channel_id)
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("draft")
    await sent.edit(content="final")
    message = sandbox.message(sent.id)
    assert message.content == "final" and message.edited and message.history[0]["content"] == "draft"
    session = sandbox.gateway.current
    assert session is not None
    updates = [e for (_, e, d) in session.backlog if e == "MESSAGE_UPDATE" and d["id"] == str(sent.id)]
    assert len(updates) == 1


class Quiet(discord.ui.View):
    @discord.ui.button(label="Later")
    async def later(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Quiet]) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content="updated after a silent defer", view=None)


async def test_deferred_update_then_edit_of_the_clicked_message(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    probe.script = await send("waiting", view=Quiet())
    message = await sandbox.user(alice).slash("probe", text="x")
    after = await sandbox.user(alice).click(message, "Later")
    assert after is message
    await sandbox.wait_until(lambda: message.content == "updated after a silent defer")
    assert message.components == []
    callback = [r for r in sandbox.requests if r.path.endswith("/callback")][-1]
    assert callback.body == {"type": 6}


class Invite(discord.ui.View):
    @discord.ui.select(cls=discord.ui.UserSelect, placeholder="Opponent")
    async def opponent(self, interaction: discord.Interaction[Any], select: discord.ui.UserSelect[Invite]) -> None:
        chosen = select.values[0]
        await interaction.response.edit_message(content=f"invited {chosen.name} ({type(chosen).__name__})", view=None)


async def test_user_select_resolves_members(sandbox: FakeDiscord, probe: ProbeBot, alice: Member, bob: Member) -> None:
    probe.script = await send("who?", view=Invite())
    message = await sandbox.user(alice).slash("probe", text="x")
    after = await sandbox.user(alice).select(message, bob)
    assert after.content == "invited bob (Member)"


async def test_guild_commands_are_synced_and_used(sandbox: FakeDiscord, alice: Member) -> None:
    class GuildBot(ProbeBot):
        async def setup_hook(self) -> None:
            await super().setup_hook()
            guild = discord.Object(sandbox.guild_id)
            self.tree.copy_global_to(guild=guild)
            self.tree.clear_commands(guild=None)
            await self.tree.sync()
            await self.tree.sync(guild=guild)

    bot = await sandbox.start_bot(lambda fake: GuildBot(), sync=False)
    assert sandbox.commands() == []
    assert sorted(c["name"] for c in sandbox.commands(guild=True)) == ["admin", "probe"]
    assert isinstance(bot, ProbeBot)
    bot.script = await send("from a guild command")
    assert (await sandbox.user(alice).slash("probe", text="x")).content == "from a guild command"


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"text": "x", "short": "x" * 11}, "1..10 characters"),
        ({"text": "x" * 6001}, "at most 6000 characters"),
    ],
)
async def test_values_longer_than_the_client_allows_are_refused(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member, options: dict[str, Any], reason: str
) -> None:
    with pytest.raises(InjectionRefused, match=reason):
        await sandbox.user(alice).slash("probe", **options)
    assert sandbox.state.interactions == {}


async def test_unchecked_sends_what_a_stale_client_could(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    seen: dict[str, Any] = {}

    async def script(interaction: discord.Interaction[Any]) -> None:
        seen.update(interaction.namespace.__dict__)
        await interaction.response.send_message("ok")

    probe.script = script
    await sandbox.user(alice).slash("probe", text="x" * 6000, mode="medium", count=99, short="y" * 6000, unchecked=True)
    assert seen == {"text": "x" * 6000, "mode": "medium", "count": 99, "short": "y" * 6000}


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"text": "x" * 6001}, "at most 6000 characters"),
        ({"text": "x", "short": "y" * 6001}, "at most 6000 characters"),
        ({"text": "x", "count": "3"}, "takes a number"),
        ({"text": "x", "colour": "red"}, "no option"),
        ({"count": 3}, "missing required option"),
    ],
)
async def test_unchecked_still_refuses_what_discord_refuses(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member, options: dict[str, Any], reason: str
) -> None:
    with pytest.raises(InjectionRefused, match=reason):
        await sandbox.user(alice).slash("probe", unchecked=True, **options)
    assert sandbox.state.interactions == {}


async def test_typing_stops_at_max_length_unless_unchecked(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    user = sandbox.user(alice)
    assert await user.autocomplete("probe", short="x" * 10) == [{"name": "10 typed", "value": "ok"}]
    with pytest.raises(InjectionRefused, match="at most 10 characters"):
        await user.autocomplete("probe", short="x" * 11)
    assert await user.autocomplete("probe", short="x" * 6000, unchecked=True) == [{"name": "6000 typed", "value": "ok"}]
    with pytest.raises(InjectionRefused, match="at most 6000 characters"):
        await user.autocomplete("probe", short="x" * 6001, unchecked=True)
