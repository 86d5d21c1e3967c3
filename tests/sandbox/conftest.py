"""Sandbox fixtures, plus a small probe bot whose command answers each test scripts itself.

The fixtures are imported rather than listed in ``pytest_plugins``, which pytest only honours in
the top-level conftest; once that registers ``sandbox_plugin`` these imports shadow it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands
from sandbox_plugin import alice, bob, sandbox, sandbox_bot, sandbox_runner

from bot.sandbox import FakeDiscord

__all__ = ["alice", "bob", "sandbox", "sandbox_bot", "sandbox_runner"]

Script = Callable[[discord.Interaction[Any]], Awaitable[None]]


class ProbeBot(commands.Bot):
    """``/probe`` runs whatever ``script`` the test set; failures are kept in ``failures``."""

    def __init__(self, intents: discord.Intents | None = None, **options: Any) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned, intents=intents or discord.Intents.default(), **options
        )
        self.script: Script | None = None
        self.failures: list[BaseException] = []
        self.seen_messages: list[discord.Message] = []
        self.autocomplete_answer: list[app_commands.Choice[str]] = []

    async def setup_hook(self) -> None:
        @self.tree.command(description="Run the test's script")
        @app_commands.describe(
            text="free text", count="a number", mode="one of two", who="a member", short="at most 10 characters"
        )
        @app_commands.choices(
            mode=[app_commands.Choice(name="fast", value="fast"), app_commands.Choice(name="slow", value="slow")]
        )
        async def probe(
            interaction: discord.Interaction[Any],
            text: str,
            count: app_commands.Range[int, 1, 9] | None = None,
            mode: str | None = None,
            who: discord.Member | None = None,
            short: app_commands.Range[str, 1, 10] | None = None,
        ) -> None:
            assert self.script is not None, "the test did not set a script"
            try:
                await self.script(interaction)
            except Exception as error:
                self.failures.append(error)
                raise

        @probe.autocomplete("text")
        async def probe_text(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
            return self.autocomplete_answer

        @probe.autocomplete("short")
        async def probe_short(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
            return [app_commands.Choice(name=f"{len(current)} typed", value="ok")]

        admin = app_commands.Group(name="admin", description="Nested commands")

        @admin.command(description="A sub-command")
        async def ping(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("pong", ephemeral=True)

        self.tree.add_command(admin)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py waits 5 s before every IDENTIFY after the first; the tests need not."""

    async def on_message(self, message: discord.Message) -> None:
        self.seen_messages.append(message)


def run(bot: commands.Bot) -> ProbeBot:
    assert isinstance(bot, ProbeBot)
    return bot


@pytest.fixture
def sandbox_bot_factory() -> Callable[[FakeDiscord], commands.Bot]:
    return lambda fake: ProbeBot()


@pytest.fixture
async def probe(sandbox_bot: commands.Bot) -> ProbeBot:
    return run(sandbox_bot)
