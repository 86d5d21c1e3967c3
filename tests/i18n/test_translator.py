"""The translator discord.py asks for every command, option and choice, for each of Discord's locales."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContext, TranslationContextLocation, locale_str

from bot.i18n import read_entries
from bot.i18n.commands import CatalogueTranslator, command_key, discord_locales

GROUP = app_commands.Group(name="veletas", description="Play Veletas")


@GROUP.command(name="move", description="Play your move")
@app_commands.describe(move="your move")
async def move(interaction: discord.Interaction[Any], move: str) -> None:  # pragma: no cover - never run
    """Play your move."""


VELOOP = app_commands.Group(name="veloop", description="Play Veloop")


@VELOOP.command(name="board", description="Show the board")
async def veloop_board(interaction: discord.Interaction[Any]) -> None:  # pragma: no cover - never run
    """Show the board."""


PARAMETER = app_commands.Parameter(move._params["move"], move)
SMALL = app_commands.Choice(name="small", value="small")


async def translated(locale: discord.Locale, location: TranslationContextLocation, data: Any) -> str | None:
    context = TranslationContext(location=location, data=data)
    return await CatalogueTranslator().translate(locale_str("x"), locale, context)  # type: ignore[arg-type]


async def test_both_spanish_locales_get_spanish_and_japanese_gets_japanese() -> None:
    for locale in (discord.Locale.spain_spanish, discord.Locale.latin_american_spanish):
        assert await translated(locale, TranslationContextLocation.command_name, move) == "mover"
        assert await translated(locale, TranslationContextLocation.parameter_name, PARAMETER) == "jugada"
        assert await translated(locale, TranslationContextLocation.choice_name, SMALL) == "pequeño (7×7)"
        assert await translated(locale, TranslationContextLocation.group_name, GROUP) == "veletas"
    assert await translated(discord.Locale.japanese, TranslationContextLocation.command_name, move) == "着手"
    description = await translated(discord.Locale.japanese, TranslationContextLocation.command_description, move)
    assert description == "このチャンネルの対局で手を指します。"


async def test_english_and_unknown_locales_keep_the_codes_own_words() -> None:
    for locale in (discord.Locale.american_english, discord.Locale.british_english, discord.Locale.french):
        assert await translated(locale, TranslationContextLocation.command_name, move) is None
        assert await translated(locale, TranslationContextLocation.choice_name, SMALL) is None


def test_keys_follow_the_command_tree() -> None:
    name = TranslationContext(location=TranslationContextLocation.command_name, data=move)
    option = TranslationContext(location=TranslationContextLocation.parameter_description, data=PARAMETER)
    assert command_key(name) == "commands.veletas.move.name"  # type: ignore[arg-type]
    assert command_key(option) == "commands.veletas.move.move.description"  # type: ignore[arg-type]
    assert sorted(str(locale) for locale in discord_locales("es")) == ["es-419", "es-ES"]
    assert [str(locale) for locale in discord_locales("ja")] == ["ja"]


async def test_a_games_command_is_translated_from_the_words_every_game_shares() -> None:
    """``commands.veloop.board.*`` is not in the catalogue: the translator falls back to ``commands.game.board.*``."""
    for locale, language in ((discord.Locale.spain_spanish, "es"), (discord.Locale.japanese, "ja")):
        entries = read_entries(language)
        assert "commands.veloop.board.description" not in entries
        shared = entries["commands.game.board.description"].forms[0]
        assert await translated(locale, TranslationContextLocation.command_description, veloop_board) == shared
        name = await translated(locale, TranslationContextLocation.command_name, veloop_board)
        assert name == entries["commands.game.board.name"].forms[0]
