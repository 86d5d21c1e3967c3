"""Bodies that break Discord's OpenAPI description are refused, whichever way they are sent."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import discord
import pytest
from discord.http import Route

from bot.sandbox import DiscordError, FakeDiscord, Member
from bot.sandbox.spec import SpecValidator, normalise_attachment_ids

from .conftest import ProbeBot


@pytest.fixture(scope="module")
def spec() -> SpecValidator:
    return SpecValidator()


def test_literal_segments_win_over_parameters(spec: SpecValidator) -> None:
    op = spec.match("PATCH", "/webhooks/1/token/messages/@original")
    assert op is not None and op.template.endswith("/messages/@original")


def test_a_well_formed_callback_passes(spec: SpecValidator) -> None:
    body = {
        "type": 4,
        "data": {
            "content": "Your move",
            "components": [{"type": 1, "components": [{"type": 2, "style": 3, "label": "Accept", "custom_id": "a"}]}],
            "attachments": [{"id": 0, "filename": "board.png"}],
        },
    }
    spec.validate("POST", "/interactions/1/token/callback", body)


def test_integer_attachment_ids_are_read_as_snowflakes() -> None:
    body = {"attachments": [{"id": 0}], "data": {"attachments": [{"id": 1}]}}
    assert normalise_attachment_ids(body) == {"attachments": [{"id": "0"}], "data": {"attachments": [{"id": "1"}]}}
    assert body["attachments"] == [{"id": 0}]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"type": 4, "data": {"content": 5}}, "content"),
        ({"type": 4, "data": {"embeds": [{"title": "t" * 257}]}}, "title"),
        ({"type": 8, "data": {"choices": [{"name": "", "value": "x"}]}}, "name"),
        ({"type": 9, "data": {"custom_id": "m", "title": "t", "components": []}}, "components"),
    ],
)
def test_malformed_callbacks_name_the_field(spec: SpecValidator, body: dict[str, object], field: str) -> None:
    with pytest.raises(DiscordError) as caught:
        spec.validate("POST", "/interactions/1/token/callback", body)
    assert caught.value.status == 400 and caught.value.code == 50035
    assert field in json.dumps(caught.value.errors)


def test_unknown_routes_are_not_found(spec: SpecValidator) -> None:
    with pytest.raises(DiscordError) as caught:
        spec.validate("POST", "/channels/1/teleport", {})
    assert caught.value.status == 404


async def test_discord_py_gets_an_http_exception_for_a_malformed_json_body(
    sandbox: FakeDiscord, probe: ProbeBot
) -> None:
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=sandbox.channel_id)
    with pytest.raises(discord.HTTPException) as caught:
        await probe.http.request(route, json={"content": "hi", "embeds": {"title": "not a list"}})
    assert caught.value.status == 400 and "embeds" in caught.value.text
    [error] = sandbox.take_errors()
    assert error.path == f"/channels/{sandbox.channel_id}/messages"
    assert sandbox.messages(sandbox.channel_id) == []


async def test_multipart_payload_json_is_validated(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    form = aiohttp.FormData(quote_fields=False)
    form.add_field("payload_json", json.dumps({"content": "board", "tts": "yes"}), content_type="application/json")
    form.add_field("files[0]", b"png", filename="board.png", content_type="application/octet-stream")
    headers = {"Authorization": f"Bot {sandbox.token}"}
    url = f"{sandbox.api_base}/channels/{sandbox.channel_id}/messages"
    async with aiohttp.ClientSession() as session, session.post(url, data=form, headers=headers) as response:
        assert response.status == 400
        assert "tts" in json.dumps(await response.json())
    assert [e.status for e in sandbox.take_errors()] == [400]


async def test_errors_left_unclaimed_fail_the_check(sandbox: FakeDiscord, probe: ProbeBot) -> None:
    with pytest.raises(discord.NotFound):
        await probe.http.request(Route("GET", "/channels/{channel_id}", channel_id=1))
    with pytest.raises(AssertionError, match=r"GET /channels/1 -> 404"):
        sandbox.check()
    sandbox.take_errors()
    sandbox.check()


def test_integer_snowflakes_as_discord_py_sends_them_pass(spec: SpecValidator) -> None:
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="Accept", style=discord.ButtonStyle.success, custom_id="a"))
    mentions = discord.AllowedMentions(everyone=False, roles=[discord.Object(5)], users=[discord.Object(2**60)])
    reference = discord.MessageReference(message_id=2**61, channel_id=2**59, guild_id=2**58)
    body: dict[str, Any] = {
        "content": "hi",
        "allowed_mentions": mentions.to_dict(),
        "components": view.to_components(),
        "message_reference": reference.to_dict(),
    }
    assert body["allowed_mentions"]["users"] == [2**60], "discord.py itself sends integers"
    spec.validate("POST", "/channels/1/messages", body)
    spec.validate("POST", "/webhooks/1/token", body)
    spec.validate("PATCH", "/webhooks/1/token/messages/@original", body)
    spec.validate("POST", "/interactions/1/token/callback", {"type": 4, "data": body})


@pytest.mark.parametrize(
    ("path", "body", "field", "reason"),
    [
        ("/webhooks/1/t", {"content": "x", "allowed_mentions": {"users": ["abc"]}}, "users", "is not snowflake"),
        ("/webhooks/1/t", {"content": "x", "allowed_mentions": {"users": [-5]}}, "users", "at least 0"),
        ("/webhooks/1/t", {"allowed_mentions": {"roles": [{"id": 1}]}}, "roles", "null or string or integer"),
        (
            "/webhooks/1/t",
            {"components": [{"type": 1, "components": [{"type": 2, "style": 9, "label": "A", "custom_id": "a"}]}]},
            "style",
            "Must be one of 1, 2, 3, 4, 5, 6.",
        ),
        ("/channels/1/messages", {"message_reference": {"message_id": "a1"}}, "message_id", "is not snowflake"),
    ],
)
def test_errors_name_the_offending_field_and_why(
    spec: SpecValidator, path: str, body: dict[str, object], field: str, reason: str
) -> None:
    with pytest.raises(DiscordError) as caught:
        spec.validate("POST", path, body)
    errors = caught.value.errors
    assert errors is not None
    # Discord nests the field path; the leaf under the named field carries the reason.
    node: object = errors
    keys: list[str] = []
    while isinstance(node, dict) and "_errors" not in node:
        [(key, node)] = node.items()
        keys.append(key)
    assert field in keys, keys
    assert isinstance(node, dict) and reason in node["_errors"][0]["message"]
    assert "components" not in keys or field == "style", "the error must not point at an innocent field"


async def test_the_probe_bot_may_ping_a_member_by_id(sandbox: FakeDiscord, probe: ProbeBot, alice: Member) -> None:
    async def script(interaction: discord.Interaction[Any]) -> None:
        only_alice = discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(alice.id)])
        await interaction.response.defer()
        await interaction.followup.send(f"{alice.mention}, your turn", allowed_mentions=only_alice)
        await interaction.followup.send(f"{alice.mention}, again", allowed_mentions=only_alice)

    probe.script = script
    message = await sandbox.user(alice).slash("probe", text="x")
    assert message.content == f"{alice.mention}, your turn"
    again = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "again" in m.content)
    assert again.id != message.id
    sent = [r for r in sandbox.requests if r.path.startswith("/webhooks/")]
    assert [(r.method, r.status) for r in sent] == [("POST", 200), ("POST", 200)], sent
    assert sent[0].body["allowed_mentions"]["users"] == [alice.id]
