"""Boards drawn in worker processes, so drawing never takes the bot's interpreter from its event loop.

A board is a few milliseconds of CPU, much of it Python holding the GIL. Drawn in a thread of the bot's
own process, it competes with the event loop for the GIL: under load that was more than half of the
process's time, and every socket call of the loop waited to get the GIL back. In a worker process it
costs the loop only sending a position and receiving the PNG.

What crosses to a worker is a ``Drawing``: a drawing function of ``bot.render`` (pickled by name) and
its arguments, which are positions, names, a theme and a language's catalogue (``Words`` pickles as its
language), never a live object of the bot. The PNG that comes back is the one the function draws in the
bot's own process, byte for byte.

``Drawers(0)`` draws in threads instead (the tests' in-process bots, tools). A worker that dies breaks
the pool: the boards it held are drawn again in a thread, and so is every board for ``respawn_after``
seconds, after which the next board starts a fresh pool (a worker that cannot start at all costs a try
every ``respawn_after`` seconds, never one per board).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from bot.lifeline import die_with_parent, spared_ctrl_c

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Drawing:
    """One picture to draw: ``function(*args, **kwargs)``, a function of ``bot.render`` returning the image's bytes."""

    function: Callable[..., bytes]
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def __call__(self) -> bytes:
        return self.function(*self.args, **self.kwargs)


def _draw(drawing: Drawing) -> bytes:
    return drawing()


def _start_worker(parent: int, languages: tuple[str, ...]) -> None:
    """A new worker's first steps: it dies with the bot (a bot killed with SIGKILL cannot stop it), leaves
    Ctrl+C to the bot (a terminal sends it to the whole process group; the bot stops its workers itself),
    then warms up."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _warm(languages)


def _warm(languages: tuple[str, ...]) -> None:
    """A new worker loads its fonts and sprites before its first board (see ``bot.render.warm``): every script's
    fonts, and the default theme's pieces (most boards are in it; another theme's first board takes a few ms
    more, and a worker that kept every theme warm held about 30 MB more)."""
    from bot.i18n import words
    from bot.render import DEFAULT_THEME, warm

    warm([words(language) for language in languages], themes=(DEFAULT_THEME,))


class Drawers:
    """``workers`` processes drawing boards (none: threads of this process)."""

    def __init__(self, workers: int, *, languages: Iterable[str] = (), respawn_after: float = 10.0) -> None:
        self.workers = workers
        self.respawn_after = respawn_after
        self._languages = tuple(languages)
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False
        self._broken_until = 0.0  # time.monotonic() before which boards are drawn in threads

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: a fresh interpreter, never a fork of a process with an event loop and threads running.
            # The workers start in the thread that submits, the event loop's, which lives as long as the bot
            # (their parent-death signal is tied to that thread).
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(os.getpid(), self._languages),
                # A worker is not retired after so many boards: its caches are bounded (bot/render/canvas.py),
                # and a fresh one would warm for a second or two while every board waited for it.
            )
        return self._pool

    def start(self) -> None:
        """Start the workers now (they warm up while the bot connects), rather than at the first board."""
        if self.workers and not self._closed:
            pool = self._executor()
            with spared_ctrl_c():  # the pool starts its workers as work is submitted
                for _ in range(self.workers):
                    pool.submit(int)

    async def draw(self, drawing: Drawing) -> bytes:
        """The drawing's bytes, from a worker process (or a thread, without workers or once closed)."""
        if not self.workers or self._closed or time.monotonic() < self._broken_until:
            return await asyncio.to_thread(drawing)
        pool = self._executor()
        try:
            with spared_ctrl_c():  # a fresh pool (after a broken one) starts its workers here
                pending = asyncio.get_running_loop().run_in_executor(pool, _draw, drawing)
            return await pending
        except BrokenProcessPool:
            # A worker died (killed, out of memory): boards are drawn here for a while, then in a new pool.
            if self._pool is pool:
                log.warning(
                    "A drawing worker died; drawing in threads for %.0f s, then in new workers", self.respawn_after
                )
                self._pool = None
                self._broken_until = time.monotonic() + self.respawn_after
                pool.shutdown(wait=False, cancel_futures=True)
            return await asyncio.to_thread(drawing)

    def close(self) -> None:
        """Stop the workers; a board asked for afterwards is drawn in a thread."""
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
