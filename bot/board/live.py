"""Live updates of the board page: one hub per process, told of every committed change to a game.

The store calls ``Hub.changed(game_id)`` after each commit that touches a game (``Store.game_listeners``); the
hub reads the game once and hands the new state to every page open on it, each through its own queue (a slow
page never holds up the others: its queue keeps only the newest state). A page that reconnects is simply sent
the current state again. The hub is this process's: several processes serving pages of one game each hear
only the changes made in their own process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

StateOf = Callable[[int], Awaitable[dict[str, Any] | None]]


class Watcher:
    """One open page: the newest message for it, waiting to be sent (older unsent ones are dropped)."""

    def __init__(self, game_id: int, user_id: int) -> None:
        self.game_id = game_id
        self.user_id = user_id
        self._newest: dict[str, Any] | None = None
        self._version = -1  # the newest version offered to this page
        self._notes: list[dict[str, Any]] = []
        self._wake = asyncio.Event()

    def offer(self, state: dict[str, Any]) -> None:
        """The game's state as now stored; kept only when it is newer than what this page has or will be sent
        (a change that bumps no version, a board posted, is not sent again)."""
        version = int(state.get("version", 0))
        if version > self._version:
            self._version = version
            self._newest = state
            self._wake.set()

    def note(self, message: dict[str, Any]) -> None:
        """A message for this page alone (its premove was cancelled): sent after any newer state."""
        self._notes.append(message)
        self._wake.set()

    async def next(self) -> list[dict[str, Any]]:
        await self._wake.wait()
        self._wake.clear()
        out: list[dict[str, Any]] = []
        if self._newest is not None:
            out.append({"type": "state", "state": self._newest})
            self._newest = None
        out += self._notes
        self._notes = []
        return out


class Hub:
    """Every open page by game; ``changed`` pushes a game's new state to them all."""

    def __init__(self) -> None:
        self.watchers: defaultdict[int, set[Watcher]] = defaultdict(set)
        self.state_of: StateOf | None = None
        # Run after every change has been pushed (the premoves waiting for it): set by the server.
        self.after_change: Callable[[int, dict[str, Any]], Awaitable[None]] | None = None
        self._pending: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self.pushed: list[tuple[int, int]] = []  # (game, version) as pushed, newest last: for measurements
        # Premoves: one queued turn per waiting player per game (game -> user -> turn text), kept in memory only.
        self.premoves: defaultdict[int, dict[int, str]] = defaultdict(dict)

    def watch(self, game_id: int, user_id: int) -> Watcher:
        watcher = Watcher(game_id, user_id)
        self.watchers[game_id].add(watcher)
        return watcher

    def leave(self, watcher: Watcher) -> None:
        watchers = self.watchers.get(watcher.game_id)
        if watchers is not None:
            watchers.discard(watcher)
            if not watchers:
                del self.watchers[watcher.game_id]

    def tell(self, game_id: int, user_id: int, message: dict[str, Any]) -> None:
        """A message for the pages ``user_id`` has open on ``game_id``."""
        for watcher in self.watchers.get(game_id, ()):
            if watcher.user_id == user_id:
                watcher.note(message)

    def changed(self, game_id: int) -> None:
        """A change to ``game_id`` was committed: push its state (once, however many changes come meanwhile)."""
        if self.state_of is None or (game_id not in self.watchers and not self.premoves.get(game_id)):
            return
        if game_id in self._pending:
            self._again.add(game_id)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._pending[game_id] = loop.create_task(self._push(game_id), name=f"board-live-{game_id}")

    async def _push(self, game_id: int) -> None:
        try:
            while True:
                self._again.discard(game_id)
                assert self.state_of is not None
                try:
                    state = await self.state_of(game_id)
                except Exception:
                    log.exception("Could not read game %d for its board pages", game_id)
                    return
                if state is not None:
                    for watcher in list(self.watchers.get(game_id, ())):
                        watcher.offer(state)
                    self.pushed.append((game_id, int(state["version"])))
                    del self.pushed[:-1000]
                    if self.after_change is not None:
                        try:
                            await self.after_change(game_id, state)
                        except Exception:
                            log.exception("After a change to game %d", game_id)
                if game_id not in self._again:
                    return
        finally:
            self._pending.pop(game_id, None)

    async def close(self) -> None:
        for task in list(self._pending.values()):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
