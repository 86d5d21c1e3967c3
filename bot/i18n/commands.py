"""The slash commands in every language: the translator discord.py asks for each command, option and choice.

``CatalogueTranslator`` gives discord.py every command, option and choice in Spanish and Japanese from the
``commands`` area of the catalogue (the English is the code's own); ``es-ES`` and ``es-419`` are both
Spanish. The client sets it on its command tree before it loads the cogs; it lives with the catalogues,
so the client needs no cog to translate.
"""

from __future__ import annotations

from typing import Any, cast

import discord
from discord import app_commands

from bot.i18n import DEFAULT, language_of, words

_Location = app_commands.TranslationContextLocation


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


__all__ = ["CatalogueTranslator", "command_key", "discord_locales"]
