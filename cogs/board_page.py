"""The "Play on the board" button: the board page opened inside Discord as the application's Activity.

The click records which game the member launched from this channel (``bot.store.launches``), so the page, once
Discord opens it and the member is known (``bot.board.activity``), shows that game; then the interaction is
answered with LAUNCH_ACTIVITY. Discord opens Activities in text and voice channels and in direct messages, not
in threads (a game played in its own thread); where it refuses, the member gets a private answer instead: a
personal link to the board page when the bot has a public address for it (``BOARD_PUBLIC_URL``), else a word
on where the button works.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.board.sessions import SESSION_SECONDS, mint
from bot.errors import UserError
from cogs._board import PlayButton
from cogs._lookup import game_here
from cogs._words import private_words

if TYPE_CHECKING:
    from bot.client import VeletasBot

log = logging.getLogger(__name__)


class BoardPage(commands.Cog, name="Board page"):
    """Launching the board page for a game from its board message."""

    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    async def play_on_the_board(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        settings = self.bot.settings
        if not settings.activity_configured:
            raise UserError("board.play.off")
        info = await game_here(interaction, game_id, where="board")
        user_id = interaction.user.id
        await self.bot.store.record_launch(user_id, info.guild_id, info.channel_id, info.id)
        try:
            await interaction.response.launch_activity()
            return
        except discord.HTTPException as exc:
            # Not an answer yet: Discord refused the launch itself (a thread, Activities off), so the member is
            # answered privately instead.
            log.info("Discord refused to launch the board page in channel %s: %s", interaction.channel_id, exc)
        w = private_words(interaction)
        if settings.board_public_url and settings.board_secret:
            session = mint(settings.board_secret, user_id, info.id, self.bot.store.now())
            link = f"{settings.board_public_url}/board/#session={session}"
            text = w("board.play.link", url=link, count=SESSION_SECONDS // 3600)
        else:
            text = w("board.play.refused")
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot: VeletasBot) -> None:
    await bot.add_cog(BoardPage(bot))
    bot.add_dynamic_items(PlayButton)
