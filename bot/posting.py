"""Watching a post the bot makes outside any interaction (a board to a game's channel) while Discord fails it.

discord.py retries a request Discord answers 500, 502, 504 or 524 by itself, sleeping 1, 3, 5, 7 and 9
seconds in between: five failures cost 25 seconds before the caller hears of any, and a board then arrives
up to 9 seconds after Discord would take it again. A watched post instead gives up at the first such
answer (``DiscordFailing``, an ``OSError`` as a dropped connection is) so that its caller retries on its own,
shorter schedule, and on any refused attempt (those and 429s, whose ``Retry-After`` discord.py honours) the
watcher's ``refused`` runs once, to show players a sign of life.

The hook is discord.py's ``http_trace`` (an ``aiohttp.TraceConfig``); a post is watched through a context
variable, so only the task that opened ``watched`` is affected, never other requests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import SimpleNamespace

import aiohttp

RETRIED_BY_DISCORD_PY = frozenset({500, 502, 504, 524})


class DiscordFailing(OSError):
    """Discord answered a watched post with a server error; the post was given up at once."""


@dataclass
class _Watch:
    refused: Callable[[], None]
    told: bool = False


_WATCH: ContextVar[_Watch | None] = ContextVar("veletas_post_watch", default=None)


@contextmanager
def watched(refused: Callable[[], None]) -> Iterator[None]:
    """Watch the requests made inside: ``refused`` runs at the first refused one; a server error ends them."""
    token = _WATCH.set(_Watch(refused))
    try:
        yield
    finally:
        _WATCH.reset(token)


def unwatched() -> None:
    """Leave the watch of the surrounding post (for work it starts, such as the sign of life itself)."""
    _WATCH.set(None)


async def _on_request_end(
    session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestEndParams
) -> None:
    watch = _WATCH.get()
    if watch is None:
        return
    status = params.response.status
    if (status == 429 or status >= 500) and not watch.told:
        watch.told = True
        watch.refused()
    if status in RETRIED_BY_DISCORD_PY:
        raise DiscordFailing(f"Discord answered {status} to {params.method} {params.url.path}")


def http_trace() -> aiohttp.TraceConfig:
    """The trace the bot's HTTP session runs with (``discord.Client(http_trace=...)``)."""
    trace = aiohttp.TraceConfig()
    trace.on_request_end.append(_on_request_end)
    return trace
