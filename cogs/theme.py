"""Each player's board theme: light, dark (for Discord's dark mode) or contrast (colour-blind safe).

The choice is stored per player, not per server, because it is about the screen and the eyes of
whoever looks: the private steps of a guided move, a board asked for privately and the public board of the games
the player challenges (a public board keeps its challenger's theme for the whole game) are drawn in it.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import render
from bot.client import VeletasBot
from bot.errors import UserError
from bot.i18n import Words
from bot.rules import Position
from bot.store.values import THEMES
from cogs._board import BOARD_FILE, DEFAULT_THEME, board_message
from cogs._send import Outgoing, respond
from cogs._veletas_game import render_position
from cogs._words import private_words

# A position in play on the standard board, so a theme is shown with stones, shooters and a claim.
SAMPLE_POSITION = "10/10/3S6/6S3/2b7/4S1S3/1S8/5w1S2/2S7/10 b"
CHOICES = [app_commands.Choice(name=render.THEMES[name].label, value=name) for name in THEMES]


@app_commands.guild_only()
class ThemeCog(commands.Cog, name="Theme"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    @app_commands.command()
    @app_commands.describe(choice="how your boards look; leave empty to see your current theme")
    @app_commands.choices(choice=CHOICES)
    async def theme(
        self, interaction: discord.Interaction[VeletasBot], choice: app_commands.Choice[str] | None = None
    ) -> None:
        """Choose how the boards drawn for you look: light, dark or high contrast."""
        user = interaction.user.id
        w = private_words(interaction)
        if choice is None:
            current = await self.bot.store.get_theme(user)
            chosen = current or DEFAULT_THEME
            key = "theme.current" if current else "theme.default"
            # The example names another theme: the image under the answer shows this one, titled by its description.
            example = next(name for name in THEMES if name != chosen)
            text = w(key, theme=w(f"theme.name.{chosen}"), example=w(f"theme.name.{example}"))
        else:
            chosen = choice.value
            await self.bot.store.set_theme(user, chosen)
            text = w("theme.chosen", theme=w(f"theme.name.{chosen}"))
        await respond(interaction, self._sample(interaction, chosen, text, w), ephemeral=True)

    async def _sample(self, interaction: discord.Interaction[VeletasBot], theme: str, text: str, w: Words) -> Outgoing:
        """The answer shows the theme on this channel's game when there is one, else on a sample position."""
        if interaction.channel_id is not None:
            try:
                info = await self.bot.store.game_in_channel(interaction.channel_id)
            except UserError:
                pass
            else:
                if info.status == "active":
                    out = await board_message(self.bot, info, viewer=interaction.user.id, w=w)
                    return Outgoing(content=text, embed=out.embed, files=out.files)
        png = await render_position(Position.from_string(SAMPLE_POSITION), theme=theme, w=w)
        embed = discord.Embed(title=w(f"commands.choice.{theme}"), colour=discord.Colour.dark_grey())
        embed.set_image(url=f"attachment://{BOARD_FILE}")
        return Outgoing(content=text, embed=embed, files=[(BOARD_FILE, png)])


async def setup(bot: VeletasBot) -> None:
    await bot.add_feature(ThemeCog(bot), group="player")
