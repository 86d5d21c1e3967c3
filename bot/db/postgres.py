"""The PostgreSQL backend: one asyncpg connection per process, the store's SQL translated by ``bot.db.sql``.

Writers take turns on one transaction-level advisory lock (``WRITE_LOCK``), which makes a write
transaction here what ``BEGIN IMMEDIATE`` makes it in SQLite: nothing another process writes can land
between a transaction's reads and its writes, so every check the store makes inside a transaction
holds until its commit, on either backend, for any number of processes. A transaction that writes one
game's own rows and reads nothing else (a move that does not end the game, a board marked posted)
takes that lock shared, plus the game's own lock (``GAME_LOCKS``, the game's id) exclusive: such
transactions of different games run side by side, those of one game take turns, and a whole-database
writer still has everything to itself, since it waits for every shared holder and they for it. Reads
outside a transaction take no lock and never wait. A transaction that cannot get its locks within
``BUSY_TIMEOUT_MS`` (``lock_timeout``) begins nothing and raises ``Busy``.

The schema version lives in the one-row table ``schema_version`` (SQLite keeps it in ``PRAGMA
user_version``), read and written inside the migration's own transaction.

What other processes must hear goes by NOTIFY on ``NOTIFY_CHANNEL``, sent inside the transaction that
makes it true, so it is delivered when (and only if) that transaction commits.

Errors come out as subclasses of the ``sqlite3`` module's classes, worded as SQLite words them where the
store reads the wording (``UNIQUE constraint failed: games.channel_id``), so the store's handlers
serve both backends.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import asyncpg

from bot.db import BUSY_TIMEOUT_MS, Backend, Busy, Row, sql

WRITE_LOCK = 0x5645_4C45  # "VELE": the advisory lock every write transaction holds
GAME_LOCKS = 0x4741  # "GA": with a game's id (modulo 2**31), the lock of one game's writers (two-key lock space)
NOTIFY_CHANNEL = "veletas_due"


class IntegrityError(sqlite3.IntegrityError):
    """A constraint refused a write on PostgreSQL (unique, foreign key, check, not null)."""


class OperationalError(sqlite3.OperationalError):
    """PostgreSQL could not run a statement (a lock wait ran out, the server went away)."""


class DatabaseError(sqlite3.DatabaseError):
    """Any other error PostgreSQL reported."""


class PgCursor:
    """What ``execute`` returns: the count PostgreSQL's command tag gives (``UPDATE 3`` is 3)."""

    __slots__ = ("rowcount",)

    def __init__(self, rowcount: int) -> None:
        self.rowcount = rowcount


def rowcount(tag: str) -> int:
    last = tag.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else -1


def _key_columns(detail: str | None) -> str:
    match = re.match(r"Key \((.*?)\)=", detail or "")
    return "" if match is None else match.group(1)


def translate_error(exc: asyncpg.PostgresError) -> sqlite3.Error:
    """The ``sqlite3`` error (with SQLite's wording where the store reads it) for a PostgreSQL error."""
    table = getattr(exc, "table_name", None) or ""
    constraint = getattr(exc, "constraint_name", None) or ""
    if isinstance(exc, asyncpg.UniqueViolationError):
        columns = ", ".join(f"{table}.{column.strip()}" for column in _key_columns(exc.detail).split(","))
        return IntegrityError(f"UNIQUE constraint failed: {columns} ({constraint}: {exc})")
    if isinstance(exc, asyncpg.ForeignKeyViolationError):
        return IntegrityError(f"FOREIGN KEY constraint failed ({constraint}: {exc})")
    if isinstance(exc, asyncpg.CheckViolationError):
        return IntegrityError(f"CHECK constraint failed: {constraint} ({exc})")
    if isinstance(exc, asyncpg.NotNullViolationError):
        column = getattr(exc, "column_name", None) or ""
        return IntegrityError(f"NOT NULL constraint failed: {table}.{column} ({exc})")
    if isinstance(exc, asyncpg.IntegrityConstraintViolationError):
        return IntegrityError(str(exc))
    if isinstance(exc, asyncpg.LockNotAvailableError | asyncpg.QueryCanceledError):
        return OperationalError(f"database is locked ({exc})")
    return DatabaseError(str(exc))


def _number(text: str) -> int | float:
    """numeric (what SUM of integers gives) as SQLite would give it: an int when whole, else a float."""
    try:
        return int(text)
    except ValueError:
        return float(text)


class PostgresDatabase:
    backend: Backend = "postgresql"
    concurrent_reads = True

    def __init__(self, conn: asyncpg.Connection[Any], target: str, readers: asyncpg.Pool[Any] | None = None) -> None:
        self._conn = conn
        self.target = target
        # Reads outside transactions go to a few connections of their own, so a read never waits for a
        # write transaction of this process (nor for its lock); they see what is committed.
        self._readers = readers
        # Statements of the open transaction not sent yet (its BEGIN and locks, queued writes), as text with
        # their parameters written in: they go in one message with the next statement or the COMMIT.
        self._pending: list[str] = []
        self._open = False  # a transaction is open here (even if its BEGIN is still pending)
        self._pending_begin = False

    @property
    def raw(self) -> asyncpg.Connection[Any]:
        """The asyncpg connection itself, for what only PostgreSQL has (LISTEN, COPY); inside a transaction,
        only one begun with ``lazy=False``."""
        return self._conn

    async def _send(self, last: str | None = None) -> str:
        """Send what is pending (and ``last``) as one simple-protocol message; ``last``'s command tag.

        If the message holds the transaction's BEGIN and its lock wait ran out, nothing began: ``Busy``."""
        script = self._pending if last is None else [*self._pending, last]
        began, self._pending, self._pending_begin = self._pending_begin, [], False
        if not script:
            return ""
        try:
            return await self._conn.execute(";\n".join(script))
        except (asyncpg.LockNotAvailableError, asyncpg.QueryCanceledError) as exc:
            if began:
                raise Busy() from exc
            raise translate_error(exc) from exc
        except asyncpg.PostgresError as exc:
            raise translate_error(exc) from exc

    def _inlined(self, text: str, parameters: Sequence[Any]) -> str | None:
        try:
            return sql.inline(text, parameters)
        except TypeError:
            return None  # a parameter only asyncpg can encode: sent on its own
        except ValueError as exc:
            raise DatabaseError(str(exc)) from exc

    async def execute(self, text: str, parameters: Sequence[Any] = (), /) -> PgCursor:
        if self._pending:
            inlined = self._inlined(text, parameters)
            if inlined is not None:
                return PgCursor(rowcount(await self._send(inlined)))
            await self._send()
        try:
            if parameters:
                tag = await self._conn.execute(sql.statement(text), *parameters)
            else:
                tag = await self._conn.execute(sql.statement(text))
        except asyncpg.PostgresError as exc:
            raise translate_error(exc) from exc
        return PgCursor(rowcount(tag))

    async def queue(self, text: str, parameters: Sequence[Any] = (), /) -> None:
        if not self._open:
            await self.execute(text, parameters)
            return
        inlined = self._inlined(text, parameters)
        if inlined is None:
            await self.execute(text, parameters)
        else:
            self._pending.append(inlined)

    async def executemany(self, text: str, parameters: Iterable[Sequence[Any]], /) -> None:
        rows = [tuple(row) for row in parameters]
        if not rows:
            return
        await self._send()
        try:
            await self._conn.executemany(sql.statement(text), rows)
        except asyncpg.PostgresError as exc:
            raise translate_error(exc) from exc

    async def execute_fetchall(self, text: str, parameters: Sequence[Any] = (), /) -> Iterable[Row]:
        await self._send()
        try:
            rows: list[Row] = await self._conn.fetch(sql.statement(text), *parameters)
        except asyncpg.PostgresError as exc:
            raise translate_error(exc) from exc
        return rows

    async def read(self, text: str, parameters: Sequence[Any] = (), /) -> Iterable[Row]:
        if self._readers is None:
            return await self.execute_fetchall(text, parameters)
        try:
            rows: list[Row] = await self._readers.fetch(sql.statement(text), *parameters)
        except asyncpg.PostgresError as exc:
            raise translate_error(exc) from exc
        return rows

    async def notify(self, message: str, /) -> None:
        await self.queue("SELECT pg_notify(?, ?)", (NOTIFY_CHANNEL, message))

    async def listen(self, heard: Callable[[str], None]) -> None:
        def deliver(connection: Any, pid: int, channel: str, payload: object) -> None:
            heard(str(payload))

        await self._conn.add_listener(NOTIFY_CHANNEL, deliver)

    @property
    def in_transaction(self) -> bool:
        return self._open or self._conn.is_in_transaction()

    async def begin(self, game: int | None = None, *, lazy: bool = False) -> None:
        """Open a write transaction and take its locks; ``lazy``: in the same message as its first statement
        (or its commit), so ``Busy`` may come from that statement instead."""
        if game is None:
            lock = f"pg_advisory_xact_lock({WRITE_LOCK})"
        else:
            key = int(game) % 2**31
            lock = f"pg_advisory_xact_lock_shared({WRITE_LOCK}), pg_advisory_xact_lock({GAME_LOCKS}, {key})"
        self._pending = ["BEGIN", f"SELECT {lock}"]
        self._pending_begin = self._open = True
        if lazy:
            return
        try:
            await self._send()
        except BaseException:
            await self.rollback()
            raise

    async def commit(self) -> None:
        """Send what is pending with the COMMIT. If any of it fails (a queued write surfaces its error here), the
        transaction is rolled back before the error is raised, and nothing of it is kept."""
        try:
            await self._send("COMMIT")
        except BaseException:
            self._open = False
            if not self._conn.is_closed() and self._conn.is_in_transaction():
                await self._conn.execute("ROLLBACK")
            raise
        self._open = False

    async def rollback(self) -> None:
        sent = not self._pending_begin
        self._pending, self._pending_begin, self._open = [], False, False
        if self._conn.is_closed() or not (sent or self._conn.is_in_transaction()):
            return
        await self._conn.execute("ROLLBACK")

    async def close(self) -> None:
        if self._readers is not None:
            await self._readers.close()
        await self._conn.close()

    async def schema_version(self) -> int:
        """The schema version; inside a (migration's) transaction, creates its table (at 0) the first time, and
        the functions migrations may call (``sql.SQLITE_FUNCTIONS``)."""
        if not self.in_transaction:
            return int(await self._conn.fetchval("SELECT version FROM schema_version"))
        await self._send()
        await self._conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL); "
            "INSERT INTO schema_version (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM schema_version); "
            + sql.SQLITE_FUNCTIONS
        )
        value = await self._conn.fetchval("SELECT version FROM schema_version")
        return int(value)

    async def set_schema_version(self, version: int) -> None:
        # A migration that rebuilt a table copied its rows with their ids; the identity must move past them,
        # as SQLite's rowid does by itself, or the next insert would take an id that is already there.
        await self._send()
        await sync_identities(self._conn)
        await self._conn.execute("UPDATE schema_version SET version = $1", int(version))

    def ddl(self, statement: str) -> str:
        return sql.ddl(statement)


async def sync_identities(conn: asyncpg.Connection[Any]) -> None:
    """Set every identity column's next value past the largest id its table holds."""
    identities = await conn.fetch(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND is_identity = 'YES'"
    )
    for row in identities:
        table, column = str(row["table_name"]), str(row["column_name"])
        await conn.execute(
            f"SELECT setval(pg_get_serial_sequence('\"{table}\"', '{column}'), "
            f'COALESCE((SELECT MAX("{column}") FROM "{table}"), 0) + 1, false)'
        )


READERS = 3
"""Connections for reads outside transactions, besides the one for writes: a process holds READERS + 1."""


async def _prepare(conn: asyncpg.Connection[Any]) -> None:
    await conn.set_type_codec("numeric", encoder=str, decoder=_number, schema="pg_catalog", format="text")


async def _keep(conn: asyncpg.Connection[Any]) -> None:
    """A reader goes back to the pool as it is: it runs single reads outside transactions and changes nothing
    of its session, so asyncpg's default reset (a round trip to the server after every read) has nothing to undo."""


async def connect_postgresql(url: str, *, readers: int = 0) -> PostgresDatabase:
    """Connect to ``url`` (and open ``readers`` connections for reads); OperationalError (a ``sqlite3`` one, as
    the store expects) when the server cannot be used."""
    settings = {
        "lock_timeout": f"{BUSY_TIMEOUT_MS}ms",
        "application_name": "veletas-bot",
        # As SQLite's WAL with synchronous=NORMAL (bot/db/sqlite.py): a commit does not wait for its disk
        # flush (about 4 ms here, inside the write lock). Nothing is ever half-written, and nothing
        # committed is lost when the bot's process dies; a crash of the database server or the machine
        # can drop the last fraction of a second of commits (wal_writer_delay).
        "synchronous_commit": "off",
        # Parameters written into statements as literals (bot/db/sql.py ``literal``) rely on it.
        "standard_conforming_strings": "on",
    }
    try:
        conn: asyncpg.Connection[Any] = await asyncpg.connect(url, server_settings=settings)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise OperationalError(f"cannot connect to PostgreSQL: {exc}") from exc
    await _prepare(conn)
    pool = None
    if readers:
        try:
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=readers, server_settings=settings, init=_prepare, reset=_keep
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            await conn.close()
            raise OperationalError(f"cannot connect to PostgreSQL: {exc}") from exc
    return PostgresDatabase(conn, url, pool)
