"""Time as the fake Discord sees it: snowflakes and the interaction deadlines.

Deadlines (3 s to answer an interaction, 15 min of followups) are measured on a simulated clock so
tests can jump past them with ``advance()`` instead of waiting. The clock still runs with real
time, which means a bot that genuinely blocks for three seconds is caught too.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

DISCORD_EPOCH_MS = 1_420_070_400_000


class SimClock:
    """Monotonic seconds plus whatever the test skipped ahead."""

    def __init__(self) -> None:
        self._offset = 0.0

    def now(self) -> float:
        return time.monotonic() + self._offset

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self._offset += seconds


class Snowflakes:
    """Real time-based snowflakes, strictly increasing so ids also order messages."""

    def __init__(self, worker: int = 1, process: int = 1) -> None:
        self._prefix = ((worker & 0x1F) << 17) | ((process & 0x1F) << 12)
        self._last = 0

    def next(self) -> int:
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = (ms << 22) | self._prefix
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate

    def next_in_shard(self, shard: int, count: int) -> int:
        """The next id whose server would be gateway shard ``shard`` of ``count``.

        Discord's rule, ``(id >> 22) % count``, counts milliseconds: this is the first id of the next such
        millisecond (at most ``count`` - 1 ahead)."""
        first = self.next()
        ms = first >> 22
        if ms % count == shard:
            return first
        candidate = ((ms + (shard - ms) % count) << 22) | self._prefix
        self._last = candidate
        return candidate


def snowflake_time(snowflake: int) -> datetime:
    return datetime.fromtimestamp(((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000, tz=UTC)


def iso_timestamp(snowflake: int | None = None) -> str:
    """ISO 8601 the way Discord writes ``timestamp`` fields."""
    moment = snowflake_time(snowflake) if snowflake is not None else datetime.now(tz=UTC)
    return moment.isoformat()
