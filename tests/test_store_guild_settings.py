"""Server settings and the live games analysis must not give hints in, as the store keeps them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from dbtools import raw, schema_version

from bot.errors import UserError
from bot.store import Store
from bot.store.schema import MIGRATIONS
from bot.store.values import FOLLOW_SERVER, GuildSettings

GUILD, OTHER = 1, 2
ALICE, BOB, AI = 11, 22, 99


async def test_settings_default_to_on_and_are_kept_per_server(db_path: Path) -> None:
    async with await Store.open(db_path) as store:
        assert await store.get_guild_settings(GUILD) == GuildSettings(analysis=True)
        assert await store.set_guild_settings(GUILD, analysis=False) == GuildSettings(analysis=False)
        assert await store.set_guild_settings(GUILD) == GuildSettings(analysis=False), "None changes nothing"
    async with await Store.open(db_path) as store:
        assert (await store.get_guild_settings(GUILD)).analysis is False, "kept across a restart"
        assert (await store.get_guild_settings(OTHER)).analysis is True, "another server is not touched"
        await store.set_guild_settings(GUILD, analysis=True)
        assert (await store.get_guild_settings(GUILD)).analysis is True
    assert schema_version(db_path) == len(MIGRATIONS)
    with raw(db_path) as db, pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        db.execute("INSERT INTO guild_settings (guild_id, analysis, updated_at) VALUES (3, 2, 0)")


async def test_live_games_between_people_leave_out_ai_games_other_servers_and_challenges(db_path: Path) -> None:
    async with await Store.open(db_path) as store:

        async def game(guild: int, channel: int, opponent: int, ai_level: int | None, accept: bool) -> int:
            info = await store.create_challenge(
                guild_id=guild,
                channel_id=channel,
                challenger_id=ALICE,
                opponent_id=opponent,
                settings={"variant": "small", "rules": "current"},
                where="here",
                expires_at=None,
                ai_level=ai_level,
            )
            if accept:
                await store.accept_challenge(info.id, opponent, channel_id=channel)
            return info.id

        people = await game(GUILD, 100, BOB, None, True)
        await game(GUILD, 101, AI, 3, True)
        await game(GUILD, 102, BOB, None, False)
        await game(OTHER, 103, BOB, None, True)
        live = await store.live_games_between_people(GUILD)
        assert [info.id for info in live] == [people]


async def test_a_server_language_is_kept_until_it_follows_the_server_again(db_path: Path) -> None:
    async with await Store.open(db_path) as store:
        assert (await store.get_guild_settings(GUILD)).language is None, "by default: the server's own locale"
        chosen = await store.set_guild_settings(GUILD, language="ja")
        assert chosen.language == "ja" and chosen.analysis is True, "only the language changed"
        assert (await store.set_guild_settings(GUILD, analysis=False)).language == "ja", "None keeps it"
        with pytest.raises(UserError) as refused:
            await store.set_guild_settings(GUILD, language="klingon")
        assert refused.value.key == "refusal.no_language"
        assert (await store.get_guild_settings(GUILD)).language == "ja", "a refusal changes nothing"
    async with await Store.open(db_path) as store:
        assert (await store.get_guild_settings(GUILD)).language == "ja", "kept across a restart"
        assert (await store.get_guild_settings(OTHER)).language is None
        assert (await store.set_guild_settings(GUILD, language=FOLLOW_SERVER)).language is None
        assert (await store.get_guild_settings(GUILD)).language is None
