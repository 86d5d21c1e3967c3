"""``/player``: what belongs to a member rather than to one game: their profile and history (of every game
unless they name one), and, added by their own features, their board theme and how they are notified.

Under each game's command these would be repeated for every game, and Discord counts every top-level
command's names, descriptions and choices against one limit; here they are written once.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import VeletasBot
from cogs._lookup import user_named
from cogs._records import history_message, profile_message
from cogs._send import respond
from cogs._tables import TABLES, Table, offer_games, table_for
from cogs._words import private_words

GROUP = "player"
Game = str
"""A registered game's name: the ``game`` option's choices are set when a bot sets the cog up (``offer_games``)."""


def tables_asked(game: str | None) -> list[Table]:
    """The game named, else every game."""
    return [table_for(game)] if game is not None else list(TABLES.values())


@app_commands.guild_only()
class PlayerCog(commands.Cog, name="Player"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    @app_commands.command()
    @app_commands.describe(member="whose profile (default: yours)", game="one game only (default: every game)")
    async def profile(
        self,
        interaction: discord.Interaction[VeletasBot],
        member: discord.Member | discord.User | None = None,
        game: Game | None = None,
    ) -> None:
        """A member's ratings, record, streak and recent games in this server, with a chart (yours by default)."""
        assert interaction.guild_id is not None
        target = user_named(member or interaction.user).id
        w = private_words(interaction)
        work = profile_message(self.bot, interaction.guild_id, tables_asked(game), target, interaction.user.id, w)
        await respond(interaction, work, ephemeral=True)

    @app_commands.command()
    @app_commands.describe(
        member="whose games (default: yours)",
        against="only the games against this member",
        game="one game only (default: every game)",
    )
    async def history(
        self,
        interaction: discord.Interaction[VeletasBot],
        member: discord.Member | discord.User | None = None,
        against: discord.Member | discord.User | None = None,
        game: Game | None = None,
    ) -> None:
        """A member's past games in this server, and the record of any of them (yours by default)."""
        assert interaction.guild_id is not None
        target = user_named(member or interaction.user).id
        rival = None if against is None else user_named(against).id
        w = private_words(interaction)
        work = history_message(self.bot, interaction.guild_id, tables_asked(game), target, rival, w)
        await respond(interaction, work, ephemeral=True)


async def setup(bot: VeletasBot) -> None:
    cog = PlayerCog(bot)
    offer_games(cog)
    await bot.add_feature(cog, group=GROUP, description="Profiles and past games; your board theme and notifications")
