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

Every fake checks each body against Discord's OpenAPI description; a body that passed once passes
again (the check is a pure function of the body and the description), so for the whole session the
fakes remember the bodies that passed and skip checking them again (``_remembered_valid_bodies``).
The command tree every bot syncs at start (about 90 kB, over a second to check) is the body this is for.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from bot.sandbox.runner import BotFactory, BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.spec import Operation, SpecValidator
from bot.sandbox.state import Member


@pytest.fixture(scope="session", autouse=True)
def _remembered_valid_bodies() -> Iterator[None]:
    """Skip checking a body that already passed against the same description (refusals are checked anew)."""
    check = SpecValidator.validate
    documents: dict[int, dict[str, Any]] = {}  # holds each description, so its id is never reused
    passed: set[tuple[int, Operation, bool, str]] = set()

    def remembering(self: SpecValidator, method: str, path: str, body: Any, *, multipart: bool = False) -> Operation:
        op = self.match(method, path)  # the check depends on the route, not on the ids in the path
        if op is None:
            return check(self, method, path, body, multipart=multipart)
        documents.setdefault(id(self.document), self.document)
        text = json.dumps(body, ensure_ascii=False, allow_nan=True)
        key = (id(self.document), op, multipart, hashlib.sha256(text.encode()).hexdigest())
        if key not in passed:
            check(self, method, path, body, multipart=multipart)
            passed.add(key)
        return op

    SpecValidator.validate = remembering  # type: ignore[method-assign]
    try:
        yield
    finally:
        SpecValidator.validate = check  # type: ignore[method-assign]


WAIT_CEILING = 30.0
"""How long ``wait_until`` and ``wait_for_message`` wait by default before failing the test (the fake's own default
is 10 s). A ceiling, not a pause: a wait ends as soon as its condition holds, and the tests run in worker
processes on cores shared with other tests, where a bot process or an AI search can take several times its
usual time."""


@pytest.fixture
async def sandbox() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord(wait_timeout=WAIT_CEILING)
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
