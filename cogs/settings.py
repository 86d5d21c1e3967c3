"""``/veletas settings``: a server's own choices for the bot, made by its managers.

One command with one option per setting, so later settings (time-control defaults, language) are
new options of the same command. With no option it shows the settings, privately. Discord only
lets top-level commands carry default permissions, and every command here lives in the
``/veletas`` group, so the Manage Server requirement is checked when the command runs.
"""

from __future__ import annotations

import logging
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import VeletasBot
from bot.store import GuildSettings

log = logging.getLogger(__name__)


def describe(settings: GuildSettings) -> str:
    """Every setting on its own line, with how to change it."""
    analysis = "on" if settings.analysis else "off"
    return (
        f"**Analysis** (`/veletas analyze`): **{analysis}**. Change it with `/veletas settings analysis:on` "
        "or `analysis:off` (off during a tournament, say)."
    )


@app_commands.guild_only()
class SettingsCog(commands.Cog, name="Settings"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    @app_commands.command(name="settings")
    @app_commands.checks.has_permissions(manage_guild=True)
    @app_commands.describe(analysis="whether members may use /veletas analyze in this server")
    async def settings_command(
        self, interaction: discord.Interaction[VeletasBot], analysis: Literal["on", "off"] | None = None
    ) -> None:
        """This server's settings for the bot (server managers only); with no option, shows them."""
        assert interaction.guild_id is not None
        if analysis is None:
            current = await self.bot.store.get_guild_settings(interaction.guild_id)
            text = f"This server's settings:\n{describe(current)}"
        else:
            current = await self.bot.store.set_guild_settings(interaction.guild_id, analysis=analysis == "on")
            log.info("Analysis turned %s in guild %s by %s", analysis, interaction.guild_id, interaction.user.id)
            text = f"Saved. This server's settings now:\n{describe(current)}"
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot: VeletasBot) -> None:
    await bot.add_feature(SettingsCog(bot))
