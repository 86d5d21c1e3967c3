"""Running a real discord.py bot against the fake, and restarting it in the middle of a test.

The bot is built by a factory the test supplies (so each start can open the same database
again, as a restarted process would), pointed at the fake through ``bot.endpoints``, and started
with ``Client.start`` in a task. Start-up is complete once its guild is available; readiness
(``on_ready``) is not awaited because discord.py holds it back for ``guild_ready_timeout``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from discord.ext import commands

from bot.endpoints import apply_endpoints, current_endpoints
from bot.sandbox.errors import SandboxError, SandboxTimeout
from bot.sandbox.hub import FakeHub

log = logging.getLogger(__name__)

BotFactory = Callable[[Any], "commands.Bot | Awaitable[commands.Bot]"]
"""Builds the bot under test from the fake Discord (a ``FakeDiscord``: it is what the factory is given)."""


class BotRunner:
    """Owns the bot task: start, stop, restart on the same fake."""

    def __init__(self, fake: FakeHub) -> None:
        self.fake = fake
        self.bot: commands.Bot | None = None
        self._task: asyncio.Task[None] | None = None
        self._saved = current_endpoints()

    async def start(self, factory: BotFactory, *, sync: bool = True, timeout: float = 15.0) -> commands.Bot:
        """Build the bot, log it in and connect it; with ``sync`` push its command tree like an operator would."""
        if self.bot is not None:
            raise SandboxError("a bot is already running; use restart()")
        apply_endpoints(self.fake.api_base, self.fake.gateway_url)
        made = factory(self.fake)
        bot: commands.Bot = await made if inspect.isawaitable(made) else made
        available = asyncio.Event()

        async def on_guild_available(guild: Any) -> None:
            if guild.id == self.fake.guild_id:
                available.set()

        bot.add_listener(on_guild_available, "on_guild_available")
        self.bot = bot
        self._task = asyncio.create_task(bot.start(self.fake.token), name="sandbox-bot")
        waiter = asyncio.create_task(available.wait())
        try:
            done, _ = await asyncio.wait({waiter, self._task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            bot.remove_listener(on_guild_available, "on_guild_available")
        if self._task in done:
            task, self._task, self.bot = self._task, None, None
            if not bot.is_closed():
                await bot.close()  # Client.start leaves its HTTP session open when login fails
            task.result()  # re-raise why the bot stopped (LoginFailure, PrivilegedIntentsRequired ...)
            raise SandboxError("the bot stopped during start-up")
        if not done:
            await self.stop()
            raise SandboxTimeout(f"the bot did not connect within {timeout:.0f} s")
        if sync:
            # A bot that builds its own payload (translations kept per process) syncs with it; any other the plain way.
            sync_commands = getattr(bot, "sync_commands", None)
            await (sync_commands() if sync_commands is not None else bot.tree.sync())
        log.info("bot %s is connected to the sandbox", bot.user)
        return bot

    async def wait_stopped(self, timeout: float = 10.0) -> BaseException | None:
        """Wait for the bot to stop by itself (a fatal close code, say) and return what it raised."""
        task = self._task
        if task is None:
            raise SandboxError("no bot is running")
        done, _ = await asyncio.wait({task}, timeout=timeout)
        if not done:
            raise SandboxTimeout(f"the bot was still running after {timeout:.0f} s")
        bot, self.bot, self._task = self.bot, None, None
        if bot is not None and not bot.is_closed():
            await bot.close()
        return None if task.cancelled() else task.exception()

    async def stop(self) -> None:
        """Close the bot the way a clean shutdown does and wait for its task to end."""
        bot, task = self.bot, self._task
        self.bot, self._task = None, None
        if bot is not None:
            await bot.close()
        if task is not None:
            try:
                await asyncio.wait_for(task, timeout=10)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def restart(self, factory: BotFactory, *, sync: bool = True) -> commands.Bot:
        """Stop the running bot and start a fresh one on the same fake Discord (same guild, messages, commands)."""
        await self.stop()
        return await self.start(factory, sync=sync)

    async def close(self) -> None:
        await self.stop()
        apply_endpoints(*self._saved)
