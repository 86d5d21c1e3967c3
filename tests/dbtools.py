"""Looking at (and tampering with) a store's database from outside the store, on either backend.

``raw(target)`` is a plain, blocking connection like ``sqlite3.connect``: ``execute(sql, params)``
with ``?`` placeholders gives a result with ``fetchone``/``fetchall``/``rowcount``; every statement
commits at once on PostgreSQL, and ``commit()`` (or leaving the ``with`` block) commits on SQLite. Errors
are the ``sqlite3`` module's classes on both (bot/db/postgres.py words PostgreSQL's as SQLite does).
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Coroutine, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import asyncpg

from bot.db import is_postgresql, sql
from bot.db.postgres import rowcount, translate_error

T = TypeVar("T")

Target = Path | str


class Result:
    def __init__(self, rows: list[tuple[Any, ...]], count: int) -> None:
        self._rows = rows
        self.rowcount = count

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return list(self._rows)

    def __iter__(self) -> Any:
        return iter(self._rows)


class PgRaw:
    """A blocking PostgreSQL connection on its own thread and event loop (usable from inside async tests)."""

    def __init__(self, url: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._conn: asyncpg.Connection[Any] = self._run(asyncpg.connect(url))

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=60)

    def execute(self, text: str, params: Sequence[Any] = ()) -> Result:
        query = sql.statement(text)
        head = text.lstrip().split(None, 1)[0].upper()
        try:
            if head in ("SELECT", "WITH", "VALUES", "EXPLAIN", "SHOW") or "RETURNING" in text.upper():
                records = self._run(self._conn.fetch(query, *params))
                return Result([tuple(r.values()) for r in records], len(records))
            tag = self._run(self._conn.execute(query, *params)) if params else self._run(self._conn.execute(query))
            return Result([], rowcount(tag))
        except asyncpg.PostgresError as exc:
            raise translate_error(exc) from exc

    def commit(self) -> None:
        """Every statement commits on its own here."""

    def close(self) -> None:
        self._run(self._conn.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def __enter__(self) -> PgRaw:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class SqliteRaw:
    """``sqlite3.connect`` that closes when its ``with`` block ends (and commits there, as sqlite3 does)."""

    def __init__(self, path: Path, isolation_level: str | None = "") -> None:
        self.con = sqlite3.connect(path, isolation_level=isolation_level)

    def execute(self, text: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self.con.execute(text, params)

    def commit(self) -> None:
        self.con.commit()

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> SqliteRaw:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if kind is None:
            self.con.commit()
        self.close()


def raw(target: Target, *, autocommit: bool = False) -> PgRaw | SqliteRaw:
    if is_postgresql(target):
        return PgRaw(str(target))
    return SqliteRaw(Path(target), None if autocommit else "")


def query(target: Target, text: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """The rows of one query, through a connection of its own."""
    with raw(target) as con:
        return [tuple(row) for row in con.execute(text, params).fetchall()]


def write(target: Target, text: str, params: Sequence[Any] = ()) -> int:
    """Run one statement and commit it; returns the rows it changed."""
    with raw(target) as con:
        return int(con.execute(text, params).rowcount)


def rows(target: Target, text: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """The rows of one query as dicts by column name."""
    if is_postgresql(target):
        con = PgRaw(str(target))
        try:
            return [dict(r.items()) for r in con._run(con._conn.fetch(sql.statement(text), *params))]
        finally:
            con.close()
    lite = sqlite3.connect(target)
    lite.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in lite.execute(text, params)]
    finally:
        lite.close()


def schema_version(target: Target) -> int:
    if is_postgresql(target):
        return int(query(target, "SELECT version FROM schema_version")[0][0])
    return int(query(target, "PRAGMA user_version")[0][0])


def tables(target: Target) -> list[str]:
    if is_postgresql(target):
        rows = query(target, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
    else:
        rows = query(target, "SELECT name FROM sqlite_master WHERE type = 'table'")
    return sorted(str(row[0]) for row in rows)


def columns(target: Target, table: str) -> list[str]:
    if is_postgresql(target):
        rows = query(
            target,
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = ? ORDER BY ordinal_position",
            (table,),
        )
        return [str(row[0]) for row in rows]
    return [str(row[1]) for row in query(target, f"PRAGMA table_info({table})")]


def snapshot(target: Target) -> list[str]:
    """Everything the database holds, as text, read through a separate connection (what survives a restart)."""
    if not is_postgresql(target):
        con = sqlite3.connect(target)
        try:
            return list(con.iterdump())
        finally:
            con.close()
    lines: list[str] = []
    with raw(target) as con:
        counts = con.execute(
            "SELECT table_name, count(*) FROM information_schema.columns WHERE table_schema = current_schema() "
            "GROUP BY table_name ORDER BY table_name"
        ).fetchall()
        for table, count in counts:
            order = ", ".join(str(i) for i in range(1, count + 1))
            for row in con.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall():
                lines.append(f"{table} {row!r}")
    return lines


def check_consistent(target: Target) -> None:
    """The invariants a crash must never break: a sound database, and every cached row equal to its move log."""
    if not is_postgresql(target):
        with raw(target) as con:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert con.execute("PRAGMA foreign_key_check").fetchall() == []
    with raw(target) as con:
        for game_id, ply, turns in con.execute("SELECT id, ply, turns FROM games").fetchall():
            log_rows = con.execute("SELECT ply, turn FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)).fetchall()
            assert [p for p, _ in log_rows] == list(range(1, ply + 1)), f"game {game_id}: log and ply disagree"
            assert " ".join(t for _, t in log_rows) == turns, f"game {game_id}: cached turns differ from the log"
