"""DATABASE_URL and the shard settings, read once from the environment: one clear line for every mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import Settings, SettingsError


def settings(**env: str) -> Settings:
    return Settings.from_env({"DISCORD_TOKEN": "t", **env})


def test_the_sqlite_file_is_the_default_and_a_postgresql_url_replaces_it() -> None:
    plain = settings()
    assert plain.database == Path("data") / "veletas.sqlite3" and plain.database_url is None
    assert (plain.shard_count, plain.shard_ids) == (None, None)
    url = "postgresql://bot:pw@db:5432/veletas"
    on_pg = settings(DATABASE_URL=url, DATABASE_PATH="/data/x.sqlite3")
    assert on_pg.database == url and on_pg.heartbeat_path == Path("/data/heartbeat")
    assert settings(DATABASE_URL="postgres://db/veletas").database == "postgres://db/veletas"


def test_a_database_url_that_is_not_postgresql_is_refused() -> None:
    with pytest.raises(SettingsError, match="DATABASE_URL must be a PostgreSQL URL"):
        settings(DATABASE_URL="sqlite:///data/veletas.sqlite3")


@pytest.mark.parametrize(
    ("ids", "expected"),
    [("", None), ("0", (0,)), ("3,1", (1, 3)), ("4-7", (4, 5, 6, 7)), ("0, 2-3", (0, 2, 3))],
)
def test_shard_ids_are_numbers_ranges_or_both(ids: str, expected: tuple[int, ...] | None) -> None:
    chosen = settings(SHARD_COUNT="8", SHARD_IDS=ids)
    assert (chosen.shard_count, chosen.shard_ids) == (8, expected)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SHARD_IDS": "0"}, "SHARD_IDS needs SHARD_COUNT"),
        ({"SHARD_COUNT": "0"}, "SHARD_COUNT must be a whole number"),
        ({"SHARD_COUNT": "two"}, "SHARD_COUNT must be a whole number"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "2"}, "past SHARD_COUNT 2"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "3-1"}, "runs backwards"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "1,1"}, "names a shard twice"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "a-b"}, "must list shard numbers or ranges"),
    ],
)
def test_bad_shard_settings_are_refused_in_one_line(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        settings(**env)
