"""Command sync: to DEV_GUILD_ID when set, globally otherwise, and only when the commands changed."""

from __future__ import annotations

from pathlib import Path

from bot.client import VeletasBot
from bot.config import Settings
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
    assert [c["name"] for c in sandbox.commands(guild=True)] == ["veletas", "veloop", "tournament"]
    assert sandbox.commands() == []
    assert command_puts(sandbox) == [f"/applications/{sandbox.application_id}/guilds/{sandbox.guild_id}/commands"]
    subcommands = {o["name"] for o in sandbox.commands(guild=True)[0]["options"]}
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
        "theme",
        "analyze",
        "settings",
        "notify",
        "leaderboard",
        "profile",
        "history",
    }
    # Veloop has its own challenge and move; the rest is the same code as Veletas's, under /veloop.
    veloop = {o["name"] for o in sandbox.commands(guild=True)[1]["options"]}
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
        "profile",
        "history",
    }


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
