"""pytest fixtures for end-to-end tests against the fake Discord.

Register with ``pytest_plugins = ["sandbox_plugin"]``. Fixtures:

``sandbox``
    A started ``FakeDiscord`` with members ``alice``, ``bob`` and ``carol``. At teardown it stops
    any bot, then fails the test if the bot received an error answer the test did not take.
``alice``, ``bob``
    Those members, to act as (``sandbox.user(alice)``) or to pass as user options.
``sandbox_bot``
    The bot built by ``sandbox_bot_factory`` (a fixture the project's conftest provides:
    ``FakeDiscord -> commands.Bot``), logged in, connected, with its command tree synced.
``sandbox_runner``
    The ``BotRunner`` behind ``sandbox_bot``: ``await sandbox_runner.restart(factory)`` stops the
    bot and starts a new one on the same fake, as a process restart would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.sandbox.runner import BotFactory, BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member


@pytest.fixture
async def sandbox() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord()
    await fake.start()
    for name in ("alice", "bob", "carol"):
        fake.add_member(name)
    try:
        yield fake
    finally:
        await fake.stop()
    fake.check()


@pytest.fixture
def alice(sandbox: FakeDiscord) -> Member:
    return sandbox.member("alice")


@pytest.fixture
def bob(sandbox: FakeDiscord) -> Member:
    return sandbox.member("bob")


@pytest.fixture
def sandbox_runner(sandbox: FakeDiscord) -> BotRunner:
    return sandbox.runner


@pytest.fixture
async def sandbox_bot(sandbox_runner: BotRunner, sandbox_bot_factory: BotFactory) -> Any:
    return await sandbox_runner.start(sandbox_bot_factory)
