"""``/settings``: a server's own choices for the bot, made by its managers.

One top-level command with one option per setting (analysis, the default clock, the inactivity limit,
whether challenges are rated, the language of public posts), so new settings are new options of the
same command. With no option it shows the settings, privately, in the manager's own language. Being
top-level, it carries Manage Server as its default permission (Discord allows that on top-level
commands only), so members without it are not offered the command; a server can change that in its
integration settings, so the permission is checked again when the command runs.
"""

from __future__ import annotations

import logging
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import VeletasBot
from bot.i18n import LANGUAGE_NAMES, Words, language_of
from bot.store.values import FOLLOW_SERVER, MAX_INACTIVITY_DAYS, GuildSettings
from cogs._clock_words import describe_control, parse_time, time_suggestions
from cogs._options import MAX_TIME
from cogs._words import private_words

log = logging.getLogger(__name__)


def describe(w: Words, settings: GuildSettings, server_locale: str) -> str:
    """Every setting on its own line, with how to change it, in ``w``'s language."""
    effective = settings.language or language_of(server_locale)
    if settings.language is None:
        language = w("settings.language_auto", language=LANGUAGE_NAMES[effective])
    else:
        language = LANGUAGE_NAMES[settings.language]
    # The example changes something: another language than the one in use.
    example = next(name for code, name in LANGUAGE_NAMES.items() if code != effective)
    return "\n".join(
        (
            w("settings.analysis", state=w("settings.on" if settings.analysis else "settings.off")),
            w("settings.time", clock=describe_control(w, settings.default_control())),
            w("settings.inactivity", count=settings.inactivity_days),
            w("settings.rated", state=w("settings.rated_yes" if settings.rated else "settings.rated_no")),
            w("settings.language", language=language, example=example),
        )
    )


class SettingsCog(commands.Cog, name="Settings"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    @app_commands.command(name="settings")
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.checks.has_permissions(manage_guild=True)
    @app_commands.describe(
        analysis="whether members may use /veletas analyze in this server",
        time="the clock of challenges that name none: none, 3d, 10+5, 48h+12h/96h …",
        inactivity="days without a move after which a game with no clock ends (1 to 90, default 14)",
        rated="whether challenges that do not say are rated (default yes)",
        language="the language of the bot's public posts here (auto: the server's language in Discord)",
    )
    @app_commands.choices(
        language=[
            app_commands.Choice(name="auto: the server's language in Discord", value=FOLLOW_SERVER),
            *(app_commands.Choice(name=name, value=code) for code, name in LANGUAGE_NAMES.items()),
        ]
    )
    async def settings_command(
        self,
        interaction: discord.Interaction[VeletasBot],
        analysis: Literal["on", "off"] | None = None,
        time: app_commands.Range[str, 1, MAX_TIME] | None = None,
        inactivity: app_commands.Range[int, 1, MAX_INACTIVITY_DAYS] | None = None,
        rated: Literal["yes", "no"] | None = None,
        language: str | None = None,
    ) -> None:
        """This server's settings for the bot (server managers only); with no option, shows them."""
        assert interaction.guild_id is not None
        w = private_words(interaction)
        server_locale = str(interaction.guild_locale or "")
        if analysis is None and time is None and inactivity is None and rated is None and language is None:
            current = await self.bot.store.get_guild_settings(interaction.guild_id)
            text = w("settings.shown", settings=describe(w, current, server_locale))
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
                language=language,
            )
            self.bot.guild_languages[interaction.guild_id] = current.language or ""
            log.info(
                "Settings of guild %s changed by %s: analysis %s, time %s, inactivity %s, rated %s, language %s",
                interaction.guild_id,
                interaction.user.id,
                analysis,
                time,
                inactivity,
                rated,
                language,
            )
            text = w("settings.saved", settings=describe(w, current, server_locale))
        await interaction.response.send_message(text, ephemeral=True)

    @settings_command.autocomplete("time")
    async def time_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return time_suggestions(current, private_words(interaction))


async def setup(bot: VeletasBot) -> None:
    # A top-level command of its own, not under a game's group: it is the server's, for every game.
    await bot.add_cog(SettingsCog(bot))
