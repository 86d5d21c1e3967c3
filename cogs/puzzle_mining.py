"""Puzzle mining as the bot's background job: now and then, newly finished games searched in the AI's workers.

No commands. With ``PUZZLE_MINING`` on and an AI worker pool, every ``MINUTES`` a round
(``bot.puzzle_mining.mining_round``) searches a few newly finished games at the pool's lowest priority, only
while the pool is idle, and tops up with a self-play game when a server sees few puzzles of a game.
"""

from __future__ import annotations

import logging
import random

from discord.ext import commands, tasks

from bot.client import VeletasBot
from bot.puzzle_mining import mining_round
from cogs._ai_pool import PooledAi

log = logging.getLogger(__name__)

MINUTES = 10.0


class PuzzleMiningCog(commands.Cog, name="Puzzle mining"):
    """Runs the mining rounds while the bot is up."""

    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot
        self.rng = random.Random()

    async def cog_load(self) -> None:
        if self.bot.settings.puzzle_mining:
            self.mine_loop.start()

    async def cog_unload(self) -> None:
        self.mine_loop.cancel()

    @tasks.loop(minutes=MINUTES)
    async def mine_loop(self) -> None:
        pool = self.bot.ai
        if not isinstance(pool, PooledAi) or not pool.idle():
            return
        try:
            report = await mining_round(
                self.bot.store, pool, [guild.id for guild in self.bot.guilds], seed=self.rng.randrange(1 << 30)
            )
        except Exception:
            log.exception("Puzzle mining failed; trying again on the next round")
            return
        if report.games or report.self_play:
            log.info("Puzzle mining: %s", " ".join(report.lines()))

    @mine_loop.before_loop
    async def before_mining(self) -> None:
        await self.bot.wait_until_ready()


async def setup(bot: VeletasBot) -> None:
    await bot.add_cog(PuzzleMiningCog(bot))
