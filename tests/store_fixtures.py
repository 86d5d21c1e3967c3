"""The store's test fixtures, shared by every store test: a hand-moved clock, a fresh database, an open store.

Every store test runs twice: on a fresh SQLite file (``db_path`` is its path) and on a fresh database of
the session's real PostgreSQL server (``db_path`` is its ``postgresql://`` URL: tests/pg_server.py).
A test about SQLite's file itself asks for ``sqlite_path`` instead. Registered in ``tests/conftest.py``;
the end-to-end tests bring their own ``clock`` and ``db_path`` (their conftest is closer, so theirs win
there).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlite_template import fresh_sqlite

from bot.store import Store

START = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)


class Clock:
    """A clock the test moves by hand, so expiry and clocks are tested without waiting."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += dt.timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "veletas.sqlite3"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where the store keeps everything: an SQLite file's path, or a fresh PostgreSQL database's URL."""
    if request.param == "postgresql":
        return str(request.getfixturevalue("pg_url"))
    return tmp_path / "data" / "veletas.sqlite3"


@pytest.fixture
async def store(db_path: Path | str, clock: Clock) -> AsyncIterator[Store]:
    if isinstance(db_path, Path):
        await fresh_sqlite(db_path)
    s = await Store.open(db_path, clock=clock)
    try:
        yield s
    finally:
        await s.close()
