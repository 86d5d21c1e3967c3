"""Players' board themes in the store: what a player would see drawn wrongly if it broke."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from dbtools import raw, schema_version

from bot import render
from bot.errors import UserError
from bot.store import Store
from bot.store.schema import MIGRATIONS
from bot.store.values import THEMES

ALICE = 11
BOB = 22


def test_every_theme_a_player_may_choose_is_one_the_renderer_draws() -> None:
    assert set(THEMES) == set(render.THEMES)


async def test_a_chosen_theme_is_kept_across_a_restart(db_path: Path) -> None:
    async with await Store.open(db_path) as store:
        assert await store.get_theme(ALICE) is None, "nobody has a theme before choosing one"
        await store.set_theme(ALICE, "dark")
        assert await store.get_theme(ALICE) == "dark", "a new choice shows at once, not after a restart"
        await store.set_theme(BOB, "contrast")
        await store.set_theme(ALICE, "contrast")
    async with await Store.open(db_path) as store:
        assert await store.get_theme(ALICE) == "contrast", "the latest choice wins"
        assert await store.get_themes([ALICE, BOB, 99, ALICE]) == {ALICE: "contrast", BOB: "contrast"}
        assert await store.get_themes([]) == {}


async def test_an_unknown_theme_is_refused_and_changes_nothing(db_path: Path) -> None:
    async with await Store.open(db_path) as store:
        await store.set_theme(ALICE, "dark")
        with pytest.raises(UserError, match="choose one of light, dark, contrast"):
            await store.set_theme(ALICE, "neon")
        assert await store.get_theme(ALICE) == "dark"


async def test_a_database_from_before_themes_gains_them_and_keeps_its_games(db_path: Path) -> None:
    async with await Store.open(db_path, migrations=MIGRATIONS[:1]):
        pass
    # A challenge as that schema wrote it (today's store would write columns the old schema lacks).
    assert schema_version(db_path) == 1
    with raw(db_path) as con:
        game_id = con.execute(
            "INSERT INTO games (guild_id, channel_id, origin_channel_id, status, variant, rules, place, "
            "challenger_id, opponent_id, created_at, updated_at) "
            "VALUES (1, 2, 2, 'challenge', 'small', 'current', 'here', ?, ?, 0, 0) RETURNING id",
            (ALICE, BOB),
        ).fetchone()[0]
    async with await Store.open(db_path) as store:
        assert (await store.get_game(game_id)).challenger_id == ALICE
        await store.set_theme(BOB, "light")
        assert await store.get_theme(BOB) == "light"
    assert schema_version(db_path) == len(MIGRATIONS)


@pytest.mark.parametrize("which", ["notify", "theme"])
async def test_a_read_that_began_before_a_choice_does_not_hide_the_choice(store: Store, which: str) -> None:
    """A read of a player's preferences in flight while they choose (the scheduler reading a notify mode as the
    player runs /player notify) returns what it read, but the choice is what every later read sees."""
    original = store._fetchall
    table = "notify_prefs" if which == "notify" else "player_prefs"
    held = asyncio.Event()
    release = asyncio.Event()
    calls = 0

    async def first_read_slow(sql: str, params: Sequence[Any] = ()) -> Any:
        nonlocal calls
        rows = await original(sql, params)
        if table in sql:
            calls += 1
            if calls == 1:  # the read that began before the choice comes back after it
                held.set()
                await release.wait()
        return rows

    store._fetchall = first_read_slow  # type: ignore[method-assign]
    if which == "notify":
        early = asyncio.create_task(store.get_notify(ALICE))
        await held.wait()
        await store.set_notify(ALICE, mode="dm")
        release.set()
        assert (await early).mode == "ping"
        assert (await store.get_notify(ALICE)).mode == "dm"
    else:
        early_theme = asyncio.create_task(store.get_theme(ALICE))
        await held.wait()
        await store.set_theme(ALICE, "contrast")
        release.set()
        assert await early_theme is None
        assert await store.get_theme(ALICE) == "contrast"
