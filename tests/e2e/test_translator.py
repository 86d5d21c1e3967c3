"""Slash commands in every language: the translator's payload as the fake Discord, as strict as Discord, accepts it."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from bot.client import VeletasBot
from bot.i18n import words
from bot.sandbox.server import FakeDiscord

SPANISH = ("es-ES", "es-419")
SHOWN = {*SPANISH, "ja"}


def walk(command: dict[str, Any], path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every command, sub-command and option of a synced command, and each option's choices."""
    here = f"{path} {command['name']}".strip()
    found = [(here, command)]
    for option in command.get("options") or []:
        found += walk(option, here)
    for choice in command.get("choices") or []:
        found.append((f"{here}={choice['value']}", choice))
    return found


async def test_every_command_option_and_choice_has_spanish_and_japanese(sandbox: FakeDiscord, bot: VeletasBot) -> None:
    items = [item for command in sandbox.commands() for item in walk(command)]
    assert len(items) > 120
    for path, item in items:
        names = item.get("name_localizations") or {}
        assert set(names) == SHOWN, path
        assert names["es-ES"] == names["es-419"], path
        if "=" not in path:
            descriptions = item.get("description_localizations") or {}
            assert set(descriptions) == SHOWN, path
            assert descriptions["es-ES"] == descriptions["es-419"], path
            assert descriptions["ja"] != item["description"], path
    veletas = next(c for c in sandbox.commands() if c["name"] == "veletas")
    subs = {o["name"]: o for o in veletas["options"]}
    assert subs["move"]["name_localizations"] == {"es-ES": "mover", "es-419": "mover", "ja": "着手"}
    assert subs["challenge"]["name_localizations"]["es-ES"] == "desafiar"
    assert subs["resign"]["name_localizations"]["ja"] == "投了"
    variant = next(o for o in subs["challenge"]["options"] if o["name"] == "variant")
    small = next(c for c in variant["choices"] if c["value"] == "small")
    assert small["name_localizations"]["es-419"] == "pequeño (7×7)"


async def test_a_spanish_member_runs_the_command_by_its_english_name_as_discord_sends_it(
    sandbox: FakeDiscord, bot: VeletasBot
) -> None:
    """Discord sends the default (English) names in interactions whatever the member's language."""
    member = sandbox.member("alice")
    member.locale = "es-419"
    answer = await sandbox.user(member).slash("veletas", "rules")
    assert "tirador" in answer.text()


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("name_localizations", {"es-ES": "Mover"}, "Command name is invalid"),
        ("name_localizations", {"es-ES": "dos palabras"}, "Command name is invalid"),
        ("name_localizations", {"es-ES": "x" * 33}, "32 or fewer"),
        ("name_localizations", {"es": "mover"}, "Invalid locale"),
        ("description_localizations", {"ja": "あ" * 101}, "100 or fewer"),
        ("description_localizations", {"klingon": "nuqneH"}, "Invalid locale"),
    ],
)
async def test_the_fake_refuses_localisations_discord_refuses(
    sandbox: FakeDiscord, field: str, value: dict[str, str], reason: str
) -> None:
    body = [{"name": "probe", "description": "a probe", "type": 1, field: value}]
    url = f"{sandbox.api_base}/applications/{sandbox.application_id}/commands"
    headers = {"Authorization": f"Bot {sandbox.token}"}
    async with aiohttp.ClientSession() as session, session.put(url, json=body, headers=headers) as r:
        assert r.status == 400
        assert reason in str(await r.json())
    sandbox.take_errors()


async def test_sibling_options_must_differ_in_every_locale(sandbox: FakeDiscord) -> None:
    options = [
        {"name": "first", "description": "a", "type": 3, "name_localizations": {"ja": "同じ"}},
        {"name": "second", "description": "b", "type": 3, "name_localizations": {"ja": "同じ"}},
    ]
    body = [{"name": "probe", "description": "a probe", "type": 1, "options": options}]
    url = f"{sandbox.api_base}/applications/{sandbox.application_id}/commands"
    headers = {"Authorization": f"Bot {sandbox.token}"}
    async with aiohttp.ClientSession() as session, session.put(url, json=body, headers=headers) as r:
        assert r.status == 400
        assert "unique" in str(await r.json())
    sandbox.take_errors()


async def test_the_english_catalogue_of_commands_is_the_codes_own(sandbox: FakeDiscord, bot: VeletasBot) -> None:
    """The commands area's English is what the code declares, so Spanish and Japanese translate the real text."""
    english = words("en")
    checked = 0
    for command in sandbox.commands():
        for path, item in walk(command):
            if "=" in path:
                value = path.split("=", 1)[1]
                assert english(f"commands.choice.{value}") == item["name"], path
            else:
                key = "commands." + path.replace(" ", ".")
                assert english(f"{key}.name") == item["name"], path
                assert english(f"{key}.description") == item["description"], path
            checked += 1
    assert checked > 120
