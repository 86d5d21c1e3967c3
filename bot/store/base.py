"""What every part of the store shares: the connection, the one write transaction at a time, the clock,
reading one game, and the small cache of rebuilt games.

One connection writes for the process (bot/db: aiosqlite for a file, asyncpg for a ``postgresql://``
URL; the SQL is written once, in SQLite's dialect, and translated there for PostgreSQL). A connection
has one open transaction at a time, so an asyncio lock keeps coroutines from interleaving statements;
reads outside transactions go to connections of their own (``concurrent_reads``) and see only what is
committed. Write transactions take the database's write lock (on PostgreSQL, a game's own writes take
it shared with that game's lock), so on either backend the checks a transaction makes hold until it
commits, whatever other processes do.

Games are loaded on demand, one row at a time; only a small LRU of rebuilt game states is kept in
memory so that replaying the log is not repeated on every move.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import sqlite3
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from bot.db import Busy, Connection, Database, Row, open_database, redact
from bot.errors import NoGameHere
from bot.ids import is_id
from bot.rules.protocol import GameState
from bot.store.errors import StoreBusy, StoreError
from bot.store.rows import COLUMNS, info_from_row, to_ts, with_state
from bot.store.schema import MIGRATIONS, migrate
from bot.store.values import GameInfo, NotifyPrefs

log = logging.getLogger(__name__)

DEFAULT_CACHE_SIZE = 512
"""Rebuilt games kept in memory: enough for every game being played at once on a busy server,
small enough that tens of thousands of stored games cost nothing until someone opens them."""

MAX_CACHED_THEMES = 50_000
"""Players whose theme (or lack of one) is remembered in memory: a few megabytes at most."""


def utcnow() -> dt.datetime:
    """The store's default clock; tests and the sandbox may pass their own to ``Store.open``."""
    return dt.datetime.now(dt.UTC)


class StoreBase:
    """The store's shared plumbing; ``bot.store.Store`` adds every part on top. Open with ``await Store.open(path)``."""

    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], dt.datetime] = utcnow,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        self._db = db
        self._clock = clock
        self._lock = asyncio.Lock()
        self._cache: OrderedDict[int, GameState] = OrderedDict()
        self._cache_size = cache_size
        # Themes are read for every board drawn and written only by /player theme in this process.
        self._themes: dict[int, str | None] = {}
        self._notify: dict[int, NotifyPrefs] = {}
        # Bumped by every change to players' preferences (here or heard from another process): a read that began
        # before a change may return what it read, but must not remember it over the newer value.
        self._prefs_changes = 0
        self._closed = False
        # Told, in the transaction that schedules something (a new deadline), when the earliest new row falls
        # due, so a scheduler sleeping past that moment looks again.
        self.on_scheduled: Callable[[float], None] | None = None
        # The gateway shards this process runs (shard count, shard ids), when the bot is split over several
        # processes: the sweeps of boards owed and AI turns owed take only the games of its own servers.
        self.shards: tuple[int, tuple[int, ...]] | None = None
        # This run's part of the tokens of the due rows it claims (``claim_due``), and how many claims it made.
        self._run = uuid.uuid4().hex[:12]
        self._claims = 0
        # Told a game's id after a committed change to it (a turn, a posted board...), in this process: the board
        # page's live updates (bot/board/live.py). A listener must be quick and must not raise.
        self.game_listeners: list[Callable[[int], None]] = []

    def _heard(self, message: str) -> None:
        """Another process (on PostgreSQL) changed what this one keeps in memory: ``prefs USER_ID``."""
        kind, _, value = message.partition(" ")
        if kind == "prefs" and value.isdigit():
            self._prefs_changes += 1
            self._themes.pop(int(value), None)
            self._notify.pop(int(value), None)

    @property
    def claimant(self) -> str:
        """Who this process is when it claims due rows: its gateway shards (all of them, unsharded). One process
        runs a set of shards at a time (Discord's rule), so claims an earlier run of the same left are over."""
        if self.shards is None:
            return "all"
        count, ids = self.shards
        return f"shards {','.join(map(str, ids))}/{count}"

    def owns_guild(self, guild_id: int) -> bool:
        """Whether this process runs the gateway shard of ``guild_id`` (always, unsharded): Discord's rule."""
        if self.shards is None:
            return True
        count, ids = self.shards
        return (guild_id >> 22) % count in ids

    @property
    def backend(self) -> str:
        """Which database holds the store: ``sqlite`` or ``postgresql``."""
        return self._db.backend

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        clock: Callable[[], dt.datetime] = utcnow,
        cache_size: int = DEFAULT_CACHE_SIZE,
        migrations: Sequence[Sequence[str]] = MIGRATIONS,
    ) -> Self:
        """Open and bring the schema up to date: an SQLite file (created with its directory if needed), or a
        PostgreSQL database named by a ``postgresql://`` URL (see bot/db)."""
        target = redact(path)
        try:
            db = await open_database(path)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot use {target} as the bot's database: {exc}") from exc
        try:
            await migrate(db, migrations)
        except sqlite3.DatabaseError as exc:
            await db.close()
            raise StoreError(f"cannot use {target} as the bot's database: {exc}") from exc
        except BaseException:
            await db.close()
            raise
        log.info("store open at %s", target)
        store = cls(db, clock=clock, cache_size=cache_size)
        await db.listen(store._heard)
        return store

    async def close(self) -> None:
        """Close the connection; SQLite then folds the WAL back into the main file. Safe to call twice."""
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            await self._db.close()
        self._cache.clear()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    # --- plumbing -------------------------------------------------------------------------------

    def now(self) -> float:
        """The store's clock, in seconds since the epoch (the scheduler compares due times with it)."""
        return self._now()

    def _now(self) -> float:
        return to_ts(self._clock())

    @asynccontextmanager
    async def _transaction(self, game: int | None = None) -> AsyncIterator[Connection]:
        """One write transaction, all or nothing. It takes the database's write lock up front (SQLite's
        BEGIN IMMEDIATE, PostgreSQL's advisory lock: bot/db), so a second process waits instead of
        failing half-way through, and nothing lands between this transaction's reads and its writes.

        A transaction given a ``game`` must write only that game's own rows (the game, its moves, its due
        rows) and read nothing else: on PostgreSQL it then waits only for that game's writers and for
        whole-database ones, so moves in different games do not queue behind one another.
        """
        async with self._lock:
            try:
                # Lazy: on PostgreSQL the BEGIN and its locks go with the first statement, so a lock wait that
                # runs out (Busy) can come from any statement up to the commit.
                await self._db.begin(game, lazy=True)
                try:
                    yield self._db
                except BaseException:
                    if self._db.in_transaction:
                        await self._db.rollback()
                    raise
                else:
                    await self._db.commit()
                    if game is not None:
                        self._game_changed(game)
            except Busy as exc:
                # Another process held the write lock for all of the timeout: nothing began, so nothing
                # changed, and the caller can say so and let the player try again.
                raise StoreBusy() from exc

    def _game_changed(self, game_id: int) -> None:
        """Tell the listeners that a change to ``game_id`` was committed."""
        for listener in self.game_listeners:
            try:
                listener(game_id)
            except Exception:
                log.exception("A listener of game %d's changes failed", game_id)

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        if self._db.concurrent_reads:
            # Reads have connections of their own (PostgreSQL's pool, an SQLite file's reader) and see only
            # what is committed.
            return list(await self._db.read(sql, params))
        async with self._lock:
            return list(await self._db.execute_fetchall(sql, params))

    async def _fetch_info(self, sql: str, params: Sequence[Any] = ()) -> list[GameInfo]:
        return [self._attach(info_from_row(row)) for row in await self._fetchall(sql, params)]

    def _attach(self, info: GameInfo) -> GameInfo:
        """Reuse a rebuilt game from the cache when it matches this snapshot's turns."""
        cached = self._cache.get(info.id)
        if (
            cached is not None
            and cached.turns == info.turns
            and cached.kind.name == info.kind.name
            and dict(cached.settings) == dict(info.settings)
        ):
            self._cache.move_to_end(info.id)
            return with_state(info, cached)
        if info.status == "active":
            info._replayed.remember = self._remember
        return info

    def _remember(self, game_id: int, game: GameState) -> None:
        self._cache[game_id] = game
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    # --- one game -------------------------------------------------------------------------------

    async def get_game(self, game_id: int) -> GameInfo:
        """One game or challenge by id, as last committed; ``NoGameHere`` when there is none."""
        if not is_id(game_id):
            raise NoGameHere("refusal.no_such_game")
        found = await self._fetch_info(f"SELECT {COLUMNS} FROM games WHERE id = ?", (game_id,))
        if not found:
            raise NoGameHere("refusal.no_such_game")
        return found[0]

    async def _peek(self, db: Connection, game_id: int) -> GameInfo:
        """Re-read a row inside the current transaction to explain why a conditional write touched nothing."""
        if not is_id(game_id):
            raise NoGameHere("refusal.no_such_game")
        rows = await db.execute_fetchall(f"SELECT {COLUMNS} FROM games WHERE id = ?", (game_id,))
        for row in rows:
            return info_from_row(row)
        raise NoGameHere("refusal.no_such_game")

    async def move_log(self, game_id: int) -> list[tuple[int, str, int]]:
        """The log as (ply, turn, user_id), oldest first: the source of truth ``rebuild`` replays."""
        rows = await self._fetchall("SELECT ply, turn, user_id FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))
        return [(int(r[0]), str(r[1]), int(r[2])) for r in rows]
