"""Server managers' tools: ending a game or challenge that will never finish by itself.

Discord only lets top-level commands carry default permissions, and every command here lives in
the ``/veletas`` group, so the Manage Server requirement is checked when the command runs.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import VeletasBot
from bot.i18n import Words
from bot.store.values import GameInfo
from cogs._board import board_message
from cogs._delivery import after_board_posted
from cogs._lookup import game_here
from cogs._send import Outgoing, respond
from cogs._tables import table_for
from cogs._words import public_words
from cogs.challenge import headline

log = logging.getLogger(__name__)


@app_commands.guild_only()
class AdminCog(commands.Cog, name="Admin"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    @app_commands.command()
    @app_commands.checks.has_permissions(manage_guild=True)
    @app_commands.describe(game="the game number (shown on its board); default: the game in this channel")
    async def cancel(self, interaction: discord.Interaction[VeletasBot], game: int | None = None) -> None:
        """Cancel a game or challenge without a winner (server managers only)."""
        assert interaction.channel_id is not None and interaction.guild_id is not None
        if game is None:
            info = await self.bot.store.game_in_channel(interaction.channel_id)
        else:
            info = await game_here(interaction, game)
        cancelled = await self.bot.store.cancel_game(info.id)
        log.info("Game %d cancelled by %s", info.id, interaction.user.id)
        w = await public_words(self.bot, info.guild_id)
        note = w("admin.cancelled", who=interaction.user.mention, game=table_for(info).label(info))
        if info.status == "challenge":
            await respond(interaction, _plain(note))
            await self._close_challenge_message(cancelled, interaction.user.mention, w)
            return
        message_id, _ = await respond(interaction, board_message(self.bot, cancelled, note=note))
        await after_board_posted(self.bot, cancelled, message_id)

    async def _close_challenge_message(self, info: GameInfo, by: str, w: Words) -> None:
        """Strike the challenge and remove its buttons, so nobody presses Accept on a dead challenge."""
        if info.challenge_message_id is None:
            return
        channel = self.bot.get_partial_messageable(info.origin_channel_id)
        try:
            await channel.get_partial_message(info.challenge_message_id).edit(
                content=w("challenge.struck", headline=headline(w, info), verdict=w("admin.cancelled_by", who=by)),
                view=None,
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException:
            log.warning("Could not mark challenge %d as cancelled on its message", info.id)


async def _plain(text: str) -> Outgoing:
    return Outgoing(content=text)


async def setup(bot: VeletasBot) -> None:
    await bot.add_feature(AdminCog(bot))
