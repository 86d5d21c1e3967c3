"""The bot as an opponent: with ``AI_WORKERS`` above 0, challenging the bot starts a game against its AI.

The extension owns the worker pool (``cogs._ai_pool``), so unloading it, or closing the bot,
stops the worker processes.
"""

from __future__ import annotations

import asyncio
import logging

from discord.ext import commands

from bot.client import VeletasBot
from cogs._ai_pool import PooledAi

log = logging.getLogger(__name__)


class AiCog(commands.Cog, name="AI"):
    """Owns the worker pool, so unloading the feature (or closing the bot) stops the workers."""

    def __init__(self, bot: VeletasBot, opponent: PooledAi | None) -> None:
        self.bot = bot
        self.opponent = opponent

    async def cog_unload(self) -> None:
        if self.opponent is not None:
            if self.bot.ai is self.opponent:
                self.bot.ai = None
            await asyncio.to_thread(self.opponent.close)


async def setup(bot: VeletasBot) -> None:
    opponent: PooledAi | None = None
    # An opponent given to the bot directly (tests, other deployments) wins over the pool.
    if bot.ai is None and bot.settings.ai_workers > 0:
        opponent = PooledAi(
            bot.settings.ai_workers,
            analysis_queue=bot.settings.analysis_queue,
            max_rss_mb=bot.settings.ai_worker_max_mb,
        )
        bot.ai = opponent
        log.info("AI opponent ready with %d worker process(es)", bot.settings.ai_workers)
    await bot.add_feature(AiCog(bot, opponent))
