"""Each Discord limit the fake enforces, hit through the real discord.py client."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import aiohttp
import discord
import pytest
from discord.http import Route

from bot.sandbox import FakeDiscord, Member, SandboxError, limits
from bot.sandbox.errors import DiscordError

from .conftest import ProbeBot


def messages_route(channel_id: int) -> Route:
    return Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)


def button(custom_id: str) -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": custom_id[:10], "custom_id": custom_id}


async def refused(probe: ProbeBot, sandbox: FakeDiscord, body: dict[str, Any]) -> discord.HTTPException:
    with pytest.raises(discord.HTTPException) as caught:
        await probe.http.request(messages_route(sandbox.channel_id), json=body)
    assert len(sandbox.take_errors()) == 1
    return caught.value


async def test_content_longer_than_2000_characters_is_refused(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    error = await refused(probe, sandbox, {"content": "x" * 2001})
    assert (error.status, error.code) == (400, 50035)
    assert "2000" in error.text
    await probe.http.request(messages_route(sandbox.channel_id), json={"content": "x" * 2000})
    assert len(sandbox.messages(sandbox.channel_id)[-1].content) == 2000


async def test_six_action_rows_are_refused(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    rows = [{"type": 1, "components": [button(f"b{i}")]} for i in range(6)]
    error = await refused(probe, sandbox, {"content": "rows", "components": rows})
    assert error.status == 400


async def test_six_buttons_in_a_row_are_refused(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    row = {"type": 1, "components": [button(f"b{i}") for i in range(6)]}
    error = await refused(probe, sandbox, {"content": "wide", "components": [row]})
    assert error.status == 400
    five = {"type": 1, "components": [button(f"b{i}") for i in range(5)]}
    await probe.http.request(messages_route(sandbox.channel_id), json={"content": "ok", "components": [five] * 1})
    assert len(sandbox.messages(sandbox.channel_id)[-1].buttons) == 5


async def test_custom_id_longer_than_100_characters_is_refused(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    row = {"type": 1, "components": [button("c" * 101)]}
    error = await refused(probe, sandbox, {"content": "long id", "components": [row]})
    assert error.status == 400 and "custom_id" in error.text


async def test_duplicate_custom_ids_are_refused(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    row = {"type": 1, "components": [button("same"), button("same")]}
    error = await refused(probe, sandbox, {"content": "twins", "components": [row]})
    assert "duplicated" in error.text


async def test_select_with_26_options_is_refused(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    async def script(interaction: discord.Interaction[Any]) -> None:
        view = discord.ui.View()
        options = [discord.SelectOption(label=f"square {i}", value=str(i)) for i in range(26)]
        view.add_item(discord.ui.Select(custom_id="squares", options=options))
        try:
            await interaction.response.send_message("pick", view=view)
        except discord.HTTPException as error:
            await interaction.response.send_message(f"refused {error.status}", ephemeral=True)

    probe.script = script
    answer = await sandbox.user(alice).slash("probe", text="x")
    assert answer.content == "refused 400" and answer.ephemeral
    assert "options" in str(sandbox.take_errors()[0].response)


async def test_file_over_10_mib_is_refused_with_413(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    channel = probe.get_channel(sandbox.channel_id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as caught:
        await channel.send(file=discord.File(io.BytesIO(b"\0" * (10 * 1024 * 1024 + 1)), "huge.bin"))
    assert caught.value.status == 413
    sandbox.take_errors()
    exact = await channel.send(file=discord.File(io.BytesIO(b"\0" * (10 * 1024 * 1024)), "max.bin"))
    assert sandbox.message(exact.id).files["max.bin"] == b"\0" * (10 * 1024 * 1024)


async def test_26_autocomplete_choices_are_refused(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    probe.autocomplete_answer = [discord.app_commands.Choice(name=f"c{i}", value=f"c{i}") for i in range(26)]
    pending = asyncio.create_task(sandbox.user(alice).autocomplete("probe", text="c"))
    failed = await sandbox.wait_for_request(lambda r: r.path.endswith("/callback") and r.status == 400)
    assert "choices" in str(failed.response)
    sandbox.take_errors()
    sandbox.clock.advance(3.1)
    with pytest.raises(SandboxError, match="did not answer"):
        await pending


async def test_25_autocomplete_choices_are_delivered(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    probe.autocomplete_answer = [discord.app_commands.Choice(name=f"c{i}", value=f"c{i}") for i in range(25)]
    choices = await sandbox.user(alice).autocomplete("probe", text="c")
    assert [c["value"] for c in choices] == [f"c{i}" for i in range(25)]


@pytest.mark.parametrize(
    ("name", "value", "field"),
    [
        ("n" * 101, "v", "data.choices.0.name"),
        ("", "v", "data.choices.0.name"),
        ("n", "v" * 101, "data.choices.0.value"),
    ],
)
async def test_autocomplete_choice_names_and_values_over_100_are_refused(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member, name: str, value: str, field: str
) -> None:
    probe.autocomplete_answer = [discord.app_commands.Choice(name=name, value=value)]
    pending = asyncio.create_task(sandbox.user(alice).autocomplete("probe", text="c"))
    failed = await sandbox.wait_for_request(lambda r: r.path.endswith("/callback") and r.status == 400)
    assert isinstance(failed.response, dict) and field in error_paths(failed.response["errors"])
    sandbox.take_errors()
    sandbox.clock.advance(3.1)
    with pytest.raises(SandboxError, match="did not answer"):
        await pending


async def test_autocomplete_choices_of_100_characters_are_delivered(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    probe.autocomplete_answer = [discord.app_commands.Choice(name="n" * 100, value="v" * 100)]
    choices = await sandbox.user(alice).autocomplete("probe", text="c")
    assert choices == [{"name": "n" * 100, "value": "v" * 100}]


async def test_answer_after_three_seconds_is_unknown_interaction(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    codes: list[int] = []

    async def script(interaction: discord.Interaction[Any]) -> None:
        sandbox.clock.advance(3.01)
        try:
            await interaction.response.send_message("too late")
        except discord.NotFound as error:
            codes.append(error.code)

    probe.script = script
    with pytest.raises(SandboxError, match="did not answer 'probe' from alice within Discord's 3 s"):
        await sandbox.user(alice).slash("probe", text="slow")
    assert codes == [10062]
    assert [e.error_code for e in sandbox.take_errors()] == [10062]


async def test_defer_keeps_the_interaction_alive_past_three_seconds(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    async def script(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(thinking=True)
        sandbox.clock.advance(60)
        await interaction.followup.send("thought hard")

    probe.script = script
    answer = await sandbox.user(alice).slash("probe", text="deep")
    assert answer.content == "thought hard" and not answer.loading


async def test_followup_after_fifteen_minutes_is_refused(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    codes: list[int] = []

    async def script(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("first")
        sandbox.clock.advance(15 * 60 + 1)
        try:
            await interaction.followup.send("much later")
        except discord.HTTPException as error:
            codes.append(error.code)
        await interaction.client.http.send_message(sandbox.channel_id, params=_params("channel still works"))

    probe.script = script
    first = await sandbox.user(alice).slash("probe", text="x")
    assert first.content == "first"
    await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.content == "channel still works")
    assert codes == [50027]
    assert [e.status for e in sandbox.take_errors()] == [401]


def _params(content: str) -> Any:
    from discord.http import handle_message_parameters

    return handle_message_parameters(content=content)


async def test_only_one_initial_response_per_interaction(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    async def script(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("once")

    probe.script = script
    u = sandbox.user(alice)
    await u.slash("probe", text="x")
    interaction = u.interactions[-1]
    url = f"{sandbox.api_base}/interactions/{interaction.id}/{interaction.token}/callback"
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, json={"type": 4, "data": {"content": "twice"}}) as r,
    ):
        assert r.status == 400
        assert (await r.json())["code"] == 40060
    assert [e.error_code for e in sandbox.take_errors()] == [40060]
    assert [m.content for m in sandbox.messages(sandbox.channel_id)] == ["once"]


async def test_parse_users_with_a_users_list_is_refused(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    error = await refused(
        probe, sandbox, {"content": alice.mention, "allowed_mentions": {"parse": ["users"], "users": [str(alice.id)]}}
    )
    assert error.status == 400 and "In allowed_mentions" in error.text and "mutually exclusive" in error.text
    # discord.py's own AllowedMentions never builds that body: a users list leaves "users" out of parse.
    only_alice = discord.AllowedMentions(users=[discord.Object(alice.id)])
    channel = probe.get_channel(sandbox.channel_id)
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send(alice.mention, allowed_mentions=only_alice)
    assert sandbox.message(sent.id).content == alice.mention


async def test_empty_answers_and_followups_are_refused(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    codes: list[int] = []

    async def script(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer()
        try:
            await interaction.followup.send(embeds=[])
        except discord.HTTPException as error:
            codes.append(error.code)
        await interaction.followup.send("something to read")

    probe.script = script
    answer = await sandbox.user(alice).slash("probe", text="x")
    assert answer.content == "something to read"
    assert codes == [50006]
    assert [e.error_code for e in sandbox.take_errors()] == [50006]
    with pytest.raises(discord.HTTPException) as caught:
        await probe.http.request(messages_route(sandbox.channel_id), json={"content": ""})
    assert caught.value.code == 50006
    sandbox.take_errors()


def error_paths(errors: dict[str, Any], prefix: str = "") -> set[str]:
    """The dotted field paths of Discord's nested form errors."""
    paths: set[str] = set()
    for key, value in errors.items():
        if key == "_errors":
            paths.add(prefix.rstrip("."))
        elif isinstance(value, dict):
            paths |= error_paths(value, f"{prefix}{key}.")
    return paths


EMBED_LIMITS = [
    ({"title": "t" * 257}, {"title": "t" * 256}, "embeds.0.title"),
    ({"description": "d" * 4097}, {"description": "d" * 4096}, "embeds.0.description"),
    (
        {"fields": [{"name": "n", "value": "v"}] * 26},
        {"fields": [{"name": "n", "value": "v"}] * 25},
        "embeds.0.fields",
    ),
    (
        {"fields": [{"name": "n", "value": "v"}, {"name": "n" * 257, "value": "v"}]},
        {"fields": [{"name": "n", "value": "v"}, {"name": "n" * 256, "value": "v"}]},
        "embeds.0.fields.1.name",
    ),
    (
        {"fields": [{"name": "n", "value": "v" * 1025}]},
        {"fields": [{"name": "n", "value": "v" * 1024}]},
        "embeds.0.fields.0.value",
    ),
    ({"footer": {"text": "f" * 2049}}, {"footer": {"text": "f" * 2048}}, "embeds.0.footer.text"),
    ({"author": {"name": "a" * 257}}, {"author": {"name": "a" * 256}}, "embeds.0.author.name"),
]


@pytest.mark.parametrize(("over", "at", "field"), EMBED_LIMITS)
async def test_each_embed_limit_is_enforced(
    sandbox: FakeDiscord, probe: ProbeBot, over: dict[str, Any], at: dict[str, Any], field: str
) -> None:
    error = await refused(probe, sandbox, {"embeds": [{"title": "first"}, over]})
    assert (error.status, error.code) == (400, 50035)
    assert f"In {field.replace('embeds.0', 'embeds.1')}:" in error.text, error.text
    await probe.http.request(messages_route(sandbox.channel_id), json={"embeds": [at]})
    posted = sandbox.messages(sandbox.channel_id)[-1].embeds[0]
    assert {key: posted[key] for key in at} == at


@pytest.mark.parametrize(("over", "at", "field"), EMBED_LIMITS)
def test_each_embed_limit_holds_without_the_spec_check(over: dict[str, Any], at: dict[str, Any], field: str) -> None:
    """limits.py refuses on its own, so the try-it mode without the OpenAPI description is as strict."""
    with pytest.raises(DiscordError) as caught:
        limits.check_message({"embeds": [over]})
    assert caught.value.status == 400 and error_paths(caught.value.errors or {}) == {field}
    limits.check_message({"embeds": [at]})


async def test_embeds_over_6000_characters_in_total_are_refused(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    two = [{"title": "t" * 200, "description": "d" * 2800}, {"description": "d" * 3001}]
    error = await refused(probe, sandbox, {"embeds": two})
    assert "6000" in error.text
    two[1]["description"] = "d" * 3000
    await probe.http.request(messages_route(sandbox.channel_id), json={"embeds": two})
    assert len(sandbox.messages(sandbox.channel_id)[-1].embeds) == 2


async def test_eleven_embeds_are_refused(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    error = await refused(probe, sandbox, {"embeds": [{"title": str(i)} for i in range(11)]})
    assert error.status == 400 and "In embeds:" in error.text
    await probe.http.request(messages_route(sandbox.channel_id), json={"embeds": [{"title": "x"}] * 10})
    assert len(sandbox.messages(sandbox.channel_id)[-1].embeds) == 10
