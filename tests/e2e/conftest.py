"""End-to-end fixtures: the real bot, on a real SQLite file, against the fake Discord.

``players`` drives a game the way people would: it knows whose turn it is from the rules, and
acts as that member with slash commands in the game's channel or thread.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from sandbox_plugin import alice, bob, sandbox, sandbox_runner  # noqa: F401  (fixtures)
from sqlite_template import fresh_sqlite

from bot.client import AiOpponent, VeletasBot, make_bot
from bot.config import Settings
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from bot.store import Store


class ManualClock:
    """Wall time that a test can move forward, shared by the bot and its store (challenge deadlines)."""

    def __init__(self) -> None:
        self.offset = dt.timedelta()

    def __call__(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC) + self.offset

    def advance(self, minutes: float) -> None:
        self.offset += dt.timedelta(minutes=minutes)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "veletas.sqlite3"


Factory = Callable[[FakeDiscord], Awaitable[VeletasBot]]


def make_factory(db_path: Path, clock: ManualClock, *, ai: AiOpponent | None = None, **settings: Any) -> Factory:
    """Bots on one database file and clock; ``settings`` overrides fields of their ``Settings``."""

    async def factory(fake: FakeDiscord) -> VeletasBot:
        await fresh_sqlite(db_path)
        store = await Store.open(db_path, clock=clock)
        config = Settings(
            token=fake.token,
            database_path=db_path,
            api_base=fake.api_base,
            gateway_url=fake.gateway_url,
            log_level="DEBUG",
        )
        config = dataclasses.replace(config, **settings)
        return make_bot(config, store, ai=ai, clock=clock)

    return factory


@pytest.fixture
def factory(db_path: Path, clock: ManualClock) -> Factory:
    return make_factory(db_path, clock)


@pytest.fixture
async def bot(sandbox_runner: BotRunner, factory: Factory) -> VeletasBot:  # noqa: F811
    """The bot, started the way production starts it: it syncs its own commands (no extra sync)."""
    started = await sandbox_runner.start(factory, sync=False)
    assert isinstance(started, VeletasBot)
    return started


@pytest.fixture
def carol(sandbox: FakeDiscord) -> Member:  # noqa: F811
    return sandbox.member("carol")
