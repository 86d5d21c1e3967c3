"""The board page's server, started with the bot: no commands, only the wiring of ``bot.board`` to the bot.

When ``BOARD_PORT`` is set (the local table always sets it), the aiohttp server of ``bot.board.server`` is
started as the bot loads and stopped as it unloads. Its turns take the same path as a slash command's
(``cogs.play.play_from_page``), and a puzzle's wrong turn is refuted by the AI as in Discord
(``cogs.puzzles.refutation``); names and languages are the bot's. ``BOARD_SECRET`` signs the session tokens:
unset, a random one for this process.
"""

from __future__ import annotations

import logging
import secrets

from aiohttp import web
from discord.ext import commands

from bot.board.context import BoardContext
from bot.board.server import start
from bot.client import VeletasBot
from cogs._names import name_of
from cogs.play import play_from_page
from cogs.puzzles import refutation

log = logging.getLogger(__name__)


class BoardServer(commands.Cog, name="Board"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot
        self.runner: web.AppRunner | None = None
        self.port: int | None = None
        self.context = BoardContext(
            store=bot.store,
            secret=bot.settings.board_secret or secrets.token_bytes(32),
            play=lambda game, user, text, version: play_from_page(bot, game, user, text, version),
            name_of=lambda user: name_of(bot, user),
            language_of=bot.user_languages.get,
            settings=bot.settings,
            clock=bot.store.now,
            refute=lambda user, state: refutation(bot, user, state),
        )

    async def cog_load(self) -> None:
        settings = self.bot.settings
        if settings.board_port is None:
            return
        try:
            self.runner, self.port = await start(self.context, settings.board_host, settings.board_port)
        except OSError as exc:  # the port is taken, the address is not this machine's: the bot plays on without
            log.error(
                "The board page cannot listen on %s:%d (%s); the bot runs without it",
                settings.board_host,
                settings.board_port,
                exc.strerror or exc,
            )
            return
        log.info("The board page is served at http://%s:%d/board/", settings.board_host, self.port)

    async def cog_unload(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None


async def setup(bot: VeletasBot) -> None:
    await bot.add_cog(BoardServer(bot))
