"""What the member injectors and the bot runner need of the fake Discord, as a protocol.

``users`` and ``runner`` are driven by the server but must not import it (the server builds them), so
they depend on this shape instead: the server satisfies it, and the imports run one way only,
``hub`` ← ``users``, ``runner`` ← ``server``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from bot.sandbox.gateway import Gateway
from bot.sandbox.rest import Rest
from bot.sandbox.state import SandboxState

T = TypeVar("T")


class FakeHub(Protocol):
    """The fake Discord as its injectors and runner see it."""

    @property
    def token(self) -> str: ...

    @property
    def api_base(self) -> str: ...

    @property
    def gateway_url(self) -> str: ...

    @property
    def guild_id(self) -> int: ...

    @property
    def state(self) -> SandboxState: ...

    @property
    def rest(self) -> Rest: ...

    @property
    def gateway(self) -> Gateway: ...

    async def settle(self) -> None:
        """Let the bot's pending work reach the fake before the next check."""
        ...

    async def wait_until(self, predicate: Callable[[], T | None], *, timeout: float | None = None, what: str = "") -> T:
        """Await the first truthy ``predicate()``."""
        ...
