"""``/veletas settings``: a server's own choices for the bot, made by its managers.

One command with one option per setting (analysis, the default clock, the inactivity limit; later
the language), so new settings are new options of the same command. With no option it shows the
settings, privately. Discord only lets top-level commands carry default permissions, and every
command here lives in the ``/veletas`` group, so the Manage Server requirement is checked when
the command runs.
"""

from __future__ import annotations

import logging
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import VeletasBot
from bot.store import MAX_INACTIVITY_DAYS, GuildSettings
from cogs._clock_words import parse_time, time_suggestions
from cogs._options import MAX_TIME

log = logging.getLogger(__name__)


def describe(settings: GuildSettings) -> str:
    """Every setting on its own line, with how to change it."""
    analysis = "on" if settings.analysis else "off"
    return (
        f"**Analysis** (`/veletas analyze`): **{analysis}**. Change it with `/veletas settings analysis:on` "
        "or `analysis:off` (off during a tournament, say).\n"
        f"**Clock of new challenges** when their maker names none: **{settings.default_control().describe()}**. "
        "Change it with `/veletas settings time:3d` (or `10+5`, `48h+12h/96h`, `none`).\n"
        f"**Inactivity limit** of games without a clock: **{settings.inactivity_days} days**. "
        "Change it with `/veletas settings inactivity:21`.\n"
        f"**Challenges between members** that do not say: **{'rated' if settings.rated else 'casual'}**. "
        "Change it with `/veletas settings rated:no` (or `yes`)."
    )


@app_commands.guild_only()
class SettingsCog(commands.Cog, name="Settings"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    @app_commands.command(name="settings")
    @app_commands.checks.has_permissions(manage_guild=True)
    @app_commands.describe(
        analysis="whether members may use /veletas analyze in this server",
        time="the clock of challenges that name none: none, 3d, 10+5, 48h+12h/96h …",
        inactivity="days without a move after which a game with no clock ends (1 to 90, default 14)",
        rated="whether challenges that do not say are rated (default yes)",
    )
    async def settings_command(
        self,
        interaction: discord.Interaction[VeletasBot],
        analysis: Literal["on", "off"] | None = None,
        time: app_commands.Range[str, 1, MAX_TIME] | None = None,
        inactivity: app_commands.Range[int, 1, MAX_INACTIVITY_DAYS] | None = None,
        rated: Literal["yes", "no"] | None = None,
    ) -> None:
        """This server's settings for the bot (server managers only); with no option, shows them."""
        assert interaction.guild_id is not None
        if analysis is None and time is None and inactivity is None and rated is None:
            current = await self.bot.store.get_guild_settings(interaction.guild_id)
            text = f"This server's settings:\n{describe(current)}"
        else:
            before = await self.bot.store.get_guild_settings(interaction.guild_id)
            days = inactivity or before.inactivity_days
            control = None if time is None else parse_time(time, before.default_control(), inactivity_days=days)
            current = await self.bot.store.set_guild_settings(
                interaction.guild_id,
                analysis=None if analysis is None else analysis == "on",
                time_control=control,
                inactivity_days=inactivity,
                rated=None if rated is None else rated == "yes",
            )
            log.info(
                "Settings of guild %s changed by %s: analysis %s, time %s, inactivity %s",
                interaction.guild_id,
                interaction.user.id,
                analysis,
                time,
                inactivity,
            )
            text = f"Saved. This server's settings now:\n{describe(current)}"
        await interaction.response.send_message(text, ephemeral=True)

    @settings_command.autocomplete("time")
    async def time_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return time_suggestions(current)


async def setup(bot: VeletasBot) -> None:
    await bot.add_feature(SettingsCog(bot))
