"""Which language to speak, and the slash commands in every language: the Discord side of ``bot.i18n``.

Not an extension. Private answers follow the member's own Discord language (``interaction.locale``);
public posts (boards, challenges) follow the server: the language its managers chose with
``/settings language:``, else the server's preferred locale in Discord. ``CatalogueTranslator``
gives discord.py every command, option and choice in Spanish and Japanese from the ``commands``
area of the catalogue (the English is the code's own); ``es-ES`` and ``es-419`` are both Spanish.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands

from bot.i18n import DEFAULT, LANGUAGES, Words, language_of, words

if TYPE_CHECKING:
    from bot.client import VeletasBot

_Location = app_commands.TranslationContextLocation


def private_words(interaction: discord.Interaction[Any]) -> Words:
    """The words of an answer only the member who acted sees: in their own Discord language."""
    return words(language_of(interaction.locale))


async def public_language(bot: VeletasBot, guild_id: int | None) -> str:
    """The language of a server's public posts: its managers' choice, else its preferred locale."""
    if guild_id is None:
        return DEFAULT
    chosen = bot.guild_languages.get(guild_id)
    if chosen is None:
        settings = await bot.store.get_guild_settings(guild_id)
        chosen = bot.guild_languages[guild_id] = settings.language or ""
    if chosen:
        return chosen
    guild = bot.get_guild(guild_id)
    return language_of(guild.preferred_locale) if guild is not None else DEFAULT


async def public_words(bot: VeletasBot, guild_id: int | None) -> Words:
    """The words of a message everyone in the server reads (boards, challenges, announcements)."""
    return words(await public_language(bot, guild_id))


def command_key(context: app_commands.TranslationContextTypes) -> str | None:
    """The catalogue key of a command's name, description, option or choice (``commands.veletas.move.name``)."""
    location, data = context.location, cast(Any, context.data)
    if location in (_Location.command_name, _Location.group_name):
        return f"commands.{data.qualified_name.replace(' ', '.')}.name"
    if location in (_Location.command_description, _Location.group_description):
        return f"commands.{data.qualified_name.replace(' ', '.')}.description"
    if location in (_Location.parameter_name, _Location.parameter_description):
        part = "name" if location is _Location.parameter_name else "description"
        return f"commands.{data.command.qualified_name.replace(' ', '.')}.{data.name}.{part}"
    if location is _Location.choice_name:
        return f"commands.choice.{data.value}"
    return None


class CatalogueTranslator(app_commands.Translator):
    """Every command, option and choice in each language of the catalogue, for Discord's clients to show."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        language = language_of(locale)
        if language == DEFAULT:
            return None  # the code's own English is the default Discord shows
        key = command_key(context)
        if key is None:
            return None
        w = words(language)
        return w(key) if key in w else None


def discord_locales(language: str) -> list[discord.Locale]:
    """The Discord locales a language of the catalogue is shown to (Spanish: es-ES and es-419)."""
    return [locale for locale in discord.Locale if language_of(locale) == language]


__all__ = [
    "LANGUAGES",
    "CatalogueTranslator",
    "command_key",
    "discord_locales",
    "private_words",
    "public_language",
    "public_words",
]
