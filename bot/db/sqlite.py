"""The SQLite backend: a file in WAL mode, one aiosqlite connection writing and one reading, SQL passed through as
written."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import aiosqlite

from bot.db import BUSY_TIMEOUT_MS, Backend, Busy, Cursor, Row

log = logging.getLogger(__name__)

CHECKPOINT_EVERY = 200
"""Commits between two checkpoints of the WAL into the file (SQLite's own default is about every 1,000 pages)."""


class SQLiteDatabase:
    backend: Backend = "sqlite"

    def __init__(self, db: aiosqlite.Connection, target: str, reader: aiosqlite.Connection | None = None) -> None:
        self._db = db
        self.target = target
        self._commits = 0
        # A file has a second connection for reads outside transactions (``read``): in WAL mode it sees what is
        # committed, never waits for the writer, and runs in a thread of its own. In memory there is only one.
        self._reader = reader
        self.concurrent_reads = reader is not None
        # Rows are read by column name (or position).
        self._db.row_factory = sqlite3.Row
        if reader is not None:
            reader.row_factory = sqlite3.Row

    def _writing(self) -> sqlite3.Connection | None:
        """The connection itself while a write transaction is open on it, else None.

        A write transaction runs right here, on the caller's thread, not in aiosqlite's: once ``BEGIN
        IMMEDIATE`` holds the file's write lock (and WAL readers never block a writer) its statements and
        its commit have nothing to wait for and take microseconds, where a trip through the thread costs two
        turns of the event loop each, and the store holds its lock through all of them. What may wait goes
        through the thread: a ``BEGIN`` while another process writes, the checkpoints (``commit``), and
        everything outside a write transaction.
        """
        raw = self._db._conn
        return raw if raw.in_transaction else None

    async def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor:
        raw = self._writing()
        if raw is not None:
            return raw.execute(sql, parameters)
        return await self._db.execute(sql, parameters)

    async def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any:
        raw = self._writing()
        if raw is not None:
            return raw.executemany(sql, parameters)
        return await self._db.executemany(sql, parameters)

    async def execute_fetchall(self, sql: str, parameters: Sequence[Any] = (), /) -> Iterable[Row]:
        raw = self._writing()
        if raw is not None:
            return raw.execute(sql, parameters).fetchall()
        return list(await self._db.execute_fetchall(sql, parameters))

    async def read(self, sql: str, parameters: Sequence[Any] = (), /) -> Iterable[Row]:
        if self._reader is None:
            return await self.execute_fetchall(sql, parameters)
        return list(await self._reader.execute_fetchall(sql, parameters))

    async def notify(self, message: str, /) -> None:
        """One process per file: nobody else to tell."""

    async def listen(self, heard: Callable[[str], None]) -> None:
        """One process per file: nothing to hear."""

    @property
    def in_transaction(self) -> bool:
        return self._db.in_transaction

    async def queue(self, sql: str, parameters: Sequence[Any] = (), /) -> None:
        """Run now: inside a write transaction a statement takes microseconds here, with no round trip to save."""
        await self.execute(sql, parameters)

    async def begin(self, game: int | None = None, *, lazy: bool = False) -> None:
        """IMMEDIATE takes the write lock up front, so a second process waits (busy_timeout) instead of
        failing half-way through. The file has one writer at a time: a ``game``'s transaction is no different.

        Tried here first without waiting (the lock is free unless another process writes); only a busy
        file sends the wait to aiosqlite's thread, for as long as the connection's busy_timeout."""
        raw = self._db._conn
        waits = int(raw.execute("PRAGMA busy_timeout").fetchone()[0])
        raw.execute("PRAGMA busy_timeout = 0")
        try:
            raw.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
        finally:
            raw.execute(f"PRAGMA busy_timeout = {waits}")
        try:
            await self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise Busy() from exc
            raise

    async def commit(self) -> None:
        """Commit here (appending to the WAL needs no lock and no flush); every ``CHECKPOINT_EVERY`` commits,
        fold the WAL into the file in aiosqlite's thread, since that flushes to disk."""
        raw = self._db._conn
        if not raw.in_transaction:
            return
        raw.commit()
        self._commits += 1
        if self._commits % CHECKPOINT_EVERY == 0:
            # Read to its end: a statement left with a row to give would keep the next COMMIT from happening.
            await self._db.execute_fetchall("PRAGMA wal_checkpoint(PASSIVE)")

    async def rollback(self) -> None:
        self._db._conn.rollback()

    async def close(self) -> None:
        """SQLite then folds the WAL back into the main file (when the last connection closes: the writer)."""
        if self._reader is not None:
            await self._reader.close()
        await self._db.close()

    async def schema_version(self) -> int:
        rows = await self._db.execute_fetchall("PRAGMA user_version")
        return int(next(iter(rows))[0])

    async def set_schema_version(self, version: int) -> None:
        await self._db.execute(f"PRAGMA user_version = {int(version)}")

    def ddl(self, statement: str) -> str:
        return statement


async def connect_sqlite(path: str | Path) -> SQLiteDatabase:
    """Open (creating the file and its directory if needed) with the pragmas the store relies on."""
    target = str(path)
    if target != ":memory:":
        Path(target).parent.mkdir(parents=True, exist_ok=True)
    # isolation_level=None: transactions are begun and ended explicitly, never implicitly by sqlite3.
    # check_same_thread=False: inside a write transaction statements run on the caller's thread (``_writing``),
    # one at a time with aiosqlite's, never at once: the store holds its lock around every use.
    db = await aiosqlite.connect(target, isolation_level=None, check_same_thread=False)
    try:
        await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = await _enter_wal(db)
        if mode != "wal" and target != ":memory:":
            log.warning("SQLite refused WAL for %s (journal mode %s); concurrent readers will block", target, mode)
        # WAL with synchronous=NORMAL never corrupts and loses nothing when the process dies;
        # only a power cut can drop the last few commits.
        await db.execute("PRAGMA synchronous = NORMAL")
        await db.execute("PRAGMA foreign_keys = ON")
        # Commits run on the event loop's thread (SQLiteDatabase.commit): the checkpoint SQLite would run in
        # one of them now and then (and its flush) is run every CHECKPOINT_EVERY commits in the thread instead.
        await db.execute("PRAGMA wal_autocheckpoint = 0")
    except BaseException:
        await db.close()
        raise
    if target == ":memory:" or mode != "wal":
        return SQLiteDatabase(db, target)
    reader = await aiosqlite.connect(target, isolation_level=None)
    try:
        await reader.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await reader.execute("PRAGMA query_only = ON")
    except BaseException:
        await reader.close()
        await db.close()
        raise
    return SQLiteDatabase(db, target, reader)


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """SQLITE_BUSY (or LOCKED): another connection kept the lock longer than busy_timeout."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return int(code) & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "locked" in str(exc) or "busy" in str(exc)


async def _enter_wal(db: aiosqlite.Connection) -> str:
    """Switch to WAL; returns the journal mode SQLite settled on.

    Switching needs the file to itself for a moment, and SQLite answers "locked" at once (without
    its busy handler) while another process opening a fresh file holds it: that is waited out, up
    to ``BUSY_TIMEOUT_MS``, like any other busy moment.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            rows = await db.execute_fetchall("PRAGMA journal_mode = WAL")
            return str(next(iter(rows))[0])
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
            await asyncio.sleep(0.02)
