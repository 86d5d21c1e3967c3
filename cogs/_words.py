"""Which language to speak: the Discord side of ``bot.i18n``.

Not an extension. Private answers follow the member's own Discord language (``interaction.locale``);
public posts (boards, challenges) follow the server: the language its managers chose with
``/settings language:``, else the server's preferred locale in Discord. The commands' own translations
are ``bot.i18n.commands``'s, which the client sets before it loads the cogs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.i18n import DEFAULT, LANGUAGES, Words, language_of, words

if TYPE_CHECKING:
    from bot.client import VeletasBot


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


__all__ = [
    "LANGUAGES",
    "private_words",
    "public_language",
    "public_words",
]
