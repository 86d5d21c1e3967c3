"""The fake's OAuth2 for an Activity and its LAUNCH_ACTIVITY callback, over real HTTP and discord.py."""

from __future__ import annotations

import base64
from typing import Any

import aiohttp
import discord
import pytest

from bot.sandbox import FakeDiscord, Member
from bot.sandbox.oauth import TOKEN_SECONDS

from .conftest import ProbeBot

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


async def exchange(sandbox: FakeDiscord, form: dict[str, str], **kwargs: Any) -> tuple[int, dict[str, Any]]:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{sandbox.api_base}/oauth2/token", data=form, **kwargs) as answer,
    ):
        return answer.status, await answer.json()


async def me(sandbox: FakeDiscord, authorization: str) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": authorization}
    async with aiohttp.ClientSession() as http, http.get(f"{sandbox.api_base}/users/@me", headers=headers) as answer:
        return answer.status, await answer.json()


def good_form(sandbox: FakeDiscord, code: str) -> dict[str, str]:
    return {
        "client_id": str(sandbox.application_id),
        "client_secret": sandbox.client_secret,
        "grant_type": "authorization_code",
        "code": code,
    }


async def test_a_code_becomes_a_token_that_names_its_member(sandbox: FakeDiscord, alice: Member) -> None:
    status, token = await exchange(sandbox, good_form(sandbox, sandbox.authorize(alice)))
    assert status == 200 and token["token_type"] == "Bearer" and token["scope"] == "identify"
    status, user = await me(sandbox, f"Bearer {token['access_token']}")
    assert status == 200 and user["id"] == str(alice.id) and user["username"] == "alice"
    # The bot's own token still reads the bot's user there.
    status, bot_user = await me(sandbox, f"Bot {sandbox.token}")
    assert status == 200 and bot_user["id"] == str(sandbox.application_id)
    sandbox.clock.advance(TOKEN_SECONDS + 1)
    assert (await me(sandbox, f"Bearer {token['access_token']}"))[0] == 401, "an expired token"
    assert (await me(sandbox, "Bearer made-up"))[0] == 401
    assert sandbox.take_errors() == [], "a page's bad token is not the bot's mistake"


async def test_client_credentials_may_come_as_basic_auth(sandbox: FakeDiscord, alice: Member) -> None:
    form = {"grant_type": "authorization_code", "code": sandbox.authorize(alice)}
    credentials = base64.b64encode(f"{sandbox.application_id}:{sandbox.client_secret}".encode()).decode()
    assert (await exchange(sandbox, form, headers={"Authorization": f"Basic {credentials}"}))[0] == 200


@pytest.mark.parametrize(
    ("change", "status", "error"),
    [
        ({"client_secret": "wrong"}, 401, "invalid_client"),
        ({"client_id": "1"}, 401, "invalid_client"),
        ({"grant_type": "client_credentials"}, 400, "unsupported_grant_type"),
        ({"code": "made-up"}, 400, "invalid_grant"),
    ],
)
async def test_a_bad_exchange_is_refused_the_oauth2_way(
    sandbox: FakeDiscord, alice: Member, change: dict[str, str], status: int, error: str
) -> None:
    code = sandbox.authorize(alice)
    answer = await exchange(sandbox, good_form(sandbox, code) | change)
    assert answer[0] == status and answer[1]["error"] == error
    assert code in sandbox.state.oauth.codes or change.get("code") is None, "a refused code stays unused"


async def test_the_token_endpoint_takes_forms_only(sandbox: FakeDiscord, alice: Member) -> None:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{sandbox.api_base}/oauth2/token", json=good_form(sandbox, sandbox.authorize(alice))) as answer,
    ):
        assert answer.status == 400 and (await answer.json())["error"] == "invalid_request"


async def test_launch_activity_is_a_first_answer_only_and_recorded(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    outcomes: list[str] = []

    async def script(interaction: discord.Interaction[Any]) -> None:
        answer = await interaction.response.launch_activity()
        outcomes.append(str(answer.activity_id))

    probe.script = script
    assert await sandbox.user(alice).run_command("probe", text="x") is None
    await sandbox.wait_until(lambda: len(outcomes) == 1)
    (launch,) = sandbox.activity_launches(alice)
    assert outcomes[0] == launch.instance_id and launch.channel_id == sandbox.channel_id
    assert sandbox.state.interactions[launch.interaction_id].response_type == 12
    # A second answer to the same interaction is refused, as Discord refuses it.

    async def twice(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("first")
        try:
            await interaction.response.launch_activity()
        except discord.InteractionResponded:
            outcomes.append("refused by discord.py")

    probe.script = twice
    await sandbox.user(alice).slash("probe", text="x")
    assert outcomes[-1] == "refused by discord.py" and len(sandbox.activity_launches()) == 1


async def test_launch_activity_is_refused_without_activities(
    sandbox: FakeDiscord, probe: ProbeBot, alice: Member
) -> None:
    sandbox.set_activities(False)
    refused: list[int] = []

    async def script(interaction: discord.Interaction[Any]) -> None:
        try:
            await interaction.response.launch_activity()
        except discord.HTTPException as exc:
            refused.append(exc.code)
            await interaction.response.send_message("no Activity", ephemeral=True)

    probe.script = script
    answer = await sandbox.user(alice).slash("probe", text="x")
    assert refused == [50035] and answer.ephemeral and sandbox.activity_launches() == []
    assert [e.error_code for e in sandbox.take_errors()] == [50035]
    assert not sandbox.state.application_json()["flags"] & (1 << 17)
