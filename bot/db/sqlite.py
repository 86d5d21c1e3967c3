"""The SQLite backend: one aiosqlite connection in WAL mode, SQL passed through as written."""

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


class SQLiteDatabase:
    backend: Backend = "sqlite"
    concurrent_reads = False  # one connection: a read in the middle of a transaction would see it

    def __init__(self, db: aiosqlite.Connection, target: str) -> None:
        self._db = db
        self.target = target
        # Rows are read by column name (or position).
        self._db.row_factory = sqlite3.Row

    async def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor:
        return await self._db.execute(sql, parameters)

    async def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any:
        return await self._db.executemany(sql, parameters)

    async def execute_fetchall(self, sql: str, parameters: Sequence[Any] = (), /) -> Iterable[Row]:
        return list(await self._db.execute_fetchall(sql, parameters))

    async def read(self, sql: str, parameters: Sequence[Any] = (), /) -> Iterable[Row]:
        return await self.execute_fetchall(sql, parameters)

    async def notify(self, message: str, /) -> None:
        """One process per file: nobody else to tell."""

    async def listen(self, heard: Callable[[str], None]) -> None:
        """One process per file: nothing to hear."""

    @property
    def in_transaction(self) -> bool:
        return self._db.in_transaction

    async def begin(self, game: int | None = None) -> None:
        """IMMEDIATE takes the write lock up front, so a second process waits (busy_timeout) instead of
        failing half-way through. The file has one writer at a time: a ``game``'s transaction is no different."""
        try:
            await self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise Busy() from exc
            raise

    async def commit(self) -> None:
        await self._db.commit()

    async def rollback(self) -> None:
        await self._db.rollback()

    async def close(self) -> None:
        """SQLite then folds the WAL back into the main file."""
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
    db = await aiosqlite.connect(target, isolation_level=None)
    try:
        await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = await _enter_wal(db)
        if mode != "wal" and target != ":memory:":
            log.warning("SQLite refused WAL for %s (journal mode %s); concurrent readers will block", target, mode)
        # WAL with synchronous=NORMAL never corrupts and loses nothing when the process dies;
        # only a power cut can drop the last few commits.
        await db.execute("PRAGMA synchronous = NORMAL")
        await db.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        await db.close()
        raise
    return SQLiteDatabase(db, target)


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
