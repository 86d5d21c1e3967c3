"""The store's test fixtures, shared by every store test: a hand-moved clock, a fresh file, an open store.

Registered in ``tests/conftest.py``; the end-to-end tests bring their own ``clock`` and ``db_path``
(their conftest is closer, so theirs win there).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

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
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "veletas.sqlite3"


@pytest.fixture
async def store(db_path: Path, clock: Clock) -> AsyncIterator[Store]:
    s = await Store.open(db_path, clock=clock)
    try:
        yield s
    finally:
        await s.close()
