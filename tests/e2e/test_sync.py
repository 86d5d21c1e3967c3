"""Command sync: to DEV_GUILD_ID when set, globally otherwise, and only when the commands changed."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import discord
import pytest

from bot.client import SIZE_COLUMNS, VeletasBot, command_sizes
from bot.config import Settings
from bot.sandbox import limits
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.store import Store
from e2e.conftest import ManualClock, make_factory


def command_puts(fake: FakeDiscord) -> list[str]:
    return [r.path for r in fake.requests if r.method == "PUT" and r.path.endswith("/commands")]


async def test_dev_guild_gets_the_commands_and_global_scope_stays_empty(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, db_path: Path
) -> None:
    async def factory(fake: FakeDiscord) -> VeletasBot:
        store = await Store.open(db_path)
        settings = Settings(
            token=fake.token,
            database_path=db_path,
            api_base=fake.api_base,
            gateway_url=fake.gateway_url,
            dev_guild_id=fake.guild_id,
        )
        return VeletasBot(settings, store)

    await sandbox_runner.start(factory, sync=False)
    synced = {c["name"]: c for c in sandbox.commands(guild=True)}
    assert set(synced) == {"veletas", "veloop", "player", "settings", "tournament"}
    assert sandbox.commands() == []
    assert command_puts(sandbox) == [f"/applications/{sandbox.application_id}/guilds/{sandbox.guild_id}/commands"]
    subcommands = {o["name"] for o in synced["veletas"]["options"]}
    assert subcommands == {
        "challenge",
        "setup",
        "pie",
        "move",
        "board",
        "resign",
        "undo",
        "rules",
        "export",
        "games",
        "cancel",
        "analyze",
        "review",
        "puzzle",
        "leaderboard",
    }
    # Veloop has its own challenge and move; the rest is the same code as Veletas's, under /veloop.
    veloop = {o["name"] for o in synced["veloop"]["options"]}
    assert veloop == {
        "challenge",
        "move",
        "board",
        "resign",
        "undo",
        "rules",
        "export",
        "games",
        "leaderboard",
        "review",
        "puzzle",
    }
    # What is a member's own, whatever the game, is under /player, once.
    assert {o["name"] for o in synced["player"]["options"]} == {"profile", "history", "theme", "notify"}
    # The server's settings are a top-level command, so Discord offers it only to members with Manage Server.
    settings = synced["settings"]
    assert [o["type"] for o in settings["options"]] == [3, 3, 4, 3, 3]
    assert settings["default_member_permissions"] == str(discord.Permissions(manage_guild=True).value)


async def test_changed_commands_are_synced_again(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, db_path: Path, clock: ManualClock
) -> None:
    first = await sandbox_runner.start(make_factory(db_path, clock), sync=False)
    assert isinstance(first, VeletasBot) and first.synced is True
    key = f"command_sync:{sandbox.application_id}:global"
    assert await first.store.get_meta(key) == await first.command_hash()
    # A release that changes a command description: the stored digest no longer matches.
    await first.store.set_meta(key, "digest of an older release")
    second = await sandbox_runner.restart(make_factory(db_path, clock), sync=False)
    assert isinstance(second, VeletasBot) and second.synced is True
    assert len(command_puts(sandbox)) == 2


HEADROOM = 3600  # Discord refuses a command over 4,000: this leaves room for an option or a longer translation


async def test_the_whole_tree_in_every_language_is_accepted_as_discord_would(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, db_path: Path, clock: ManualClock
) -> None:
    """The bot syncs itself at start (the translator's payload, as discord.py sends it) and the fake, which
    refuses what Discord refuses (sizes, names, descriptions, counts), takes every command in every language."""
    bot = await sandbox_runner.start(make_factory(db_path, clock), sync=False)
    assert isinstance(bot, VeletasBot) and bot.synced is True
    assert sandbox.take_errors() == []
    stored = sandbox.commands()
    sent = await bot.command_payload()
    assert [c["name"] for c in stored] == [c["name"] for c in sent]
    for command in stored:
        assert set(command["name_localizations"]) == {"es-ES", "es-419", "ja"}, command["name"]
        assert set(command["description_localizations"]) == {"es-ES", "es-419", "ja"}, command["name"]
        assert limits.command_size(command) <= limits.MAX_COMMAND_SIZE


async def test_every_command_keeps_its_headroom_in_every_language(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, db_path: Path, clock: ManualClock
) -> None:
    bot = await sandbox_runner.start(make_factory(db_path, clock), sync=False)
    assert isinstance(bot, VeletasBot)
    sizes = command_sizes(sandbox.commands())
    assert set(sizes) == {c["name"] for c in sandbox.commands()}
    for name, by_language in sizes.items():
        assert set(by_language) == {"en", "es", "ja", "discord"}
        # Discord's own count takes each field at its longest localisation: never less than any one language's.
        assert by_language["discord"] >= max(by_language[language] for language in ("en", "es", "ja"))
        for language, size in by_language.items():
            assert size <= HEADROOM, f"/{name} is {size} characters in {language}"


@pytest.mark.slow
async def test_the_sizes_command_prints_the_sizes_of_what_the_bot_syncs(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, db_path: Path, clock: ManualClock
) -> None:
    """``python -m bot commands --sizes`` (the README's table) builds the tree offline: its numbers are those
    of the payload the running bot sends Discord."""
    await sandbox_runner.start(make_factory(db_path, clock), sync=False)
    expected = command_sizes(sandbox.commands())
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "commands",
        "--sizes",
        stdout=asyncio.subprocess.PIPE,
        cwd=Path(__file__).parents[2],
    )
    out, _ = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0
    lines = out.decode().splitlines()
    assert lines[0] == "| command | en | es | ja | discord |"
    printed = {}
    for line in lines[2:]:
        if not line.startswith("| `/"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        printed[cells[0].strip("`/")] = dict(
            zip(SIZE_COLUMNS, (int(c.replace(",", "")) for c in cells[1:]), strict=True)
        )
    assert printed == expected
    largest = max(row["discord"] for row in expected.values())
    assert lines[-1] == f"Largest: {largest:,} of Discord's {limits.MAX_COMMAND_SIZE:,}."
    # The README shows this table as printed: regenerate it there when a command changes.
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert "\n".join(lines) in readme, "README.md's command sizes differ from `python -m bot commands --sizes`"
