"""The store's one connection, to SQLite or to PostgreSQL, behind the few calls the store makes.

The store (bot/store/) writes SQL once, in SQLite's dialect with ``?`` placeholders, and reads rows by
column name (or position). ``open_database`` picks the backend from the target: a file path (or
``:memory:``) is SQLite through aiosqlite; a ``postgresql://`` (or ``postgres://``) URL is PostgreSQL
through asyncpg, whose statements go through ``bot.db.sql`` on their way (the one place where the two
dialects differ). Both give:

- ``execute`` (a cursor with ``rowcount``), ``executemany`` and ``execute_fetchall`` (rows by name or index);
- ``begin`` / ``commit`` / ``rollback``: ``begin`` opens a write transaction that holds the database's
  one write lock, so writers take turns exactly as SQLite's ``BEGIN IMMEDIATE`` makes them (on
  PostgreSQL, a transaction-level advisory lock; reads outside a transaction never wait for it).
  ``begin(game=id)`` opens one that writes only that game's own rows: on PostgreSQL it waits only for
  writers of the same game and for whole-database writers, so moves in different games land side by
  side; SQLite, one writer at a time, treats it as any other. If the lock stays taken longer than
  ``BUSY_TIMEOUT_MS`` nothing began and ``Busy`` is raised;
- ``schema_version`` / ``set_schema_version`` (SQLite's ``PRAGMA user_version``; on PostgreSQL a
  one-row table) and ``ddl`` (a migration statement as this backend runs it), so one list of
  migrations serves both;
- ``queue``: a write inside a transaction whose outcome nothing reads; PostgreSQL sends it together with
  the next statement or the commit (the simple query protocol, parameters written in as literals), so a
  move's transaction is two round trips, not seven;
- ``notify`` / ``listen``: what other processes must hear (PostgreSQL's NOTIFY, sent with the commit);
- errors as the ``sqlite3`` module's classes on both backends (``bot.db.postgres`` raises subclasses of
  them with SQLite's wording: ``UNIQUE constraint failed: games.channel_id``), so code written against
  SQLite's errors keeps working.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

BUSY_TIMEOUT_MS = 5000
"""How long a write waits for another connection's transaction before giving up."""

Backend = Literal["sqlite", "postgresql"]


class Busy(RuntimeError):
    """Another connection held the write lock for all of ``BUSY_TIMEOUT_MS``: nothing began."""


class Row(Protocol):
    """A result row: by column name (``row["id"]``) or by position (``row[0]``)."""

    def __getitem__(self, key: Any, /) -> Any: ...

    def keys(self) -> Any: ...


class Cursor(Protocol):
    """What ``execute`` gives back: how many rows the statement changed."""

    @property
    def rowcount(self) -> int: ...


class Connection(Protocol):
    """The calls the store makes inside and outside its transactions, on either backend."""

    backend: Backend

    async def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    async def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any: ...

    async def execute_fetchall(self, sql: str, parameters: Sequence[Any] = ..., /) -> Iterable[Row]: ...

    async def queue(self, sql: str, parameters: Sequence[Any] = ..., /) -> None:
        """A write whose outcome the transaction does not read. SQLite runs it at once; PostgreSQL sends it with
        the transaction's next statement or its commit, in one message, so an error it meets comes from there
        (and the whole transaction is rolled back, as for any error)."""

    async def notify(self, message: str, /) -> None:
        """Tell every other process on this database, once the current transaction commits (PostgreSQL's
        NOTIFY; nothing on SQLite, whose file serves one process)."""


class Database(Connection, Protocol):
    """A connection the store owns: its transactions, its schema version, its end."""

    target: str
    # Whether ``read`` may run while the connection is in another coroutine's transaction (PostgreSQL reads go
    # to a small pool of their own, an SQLite file's to a second connection); when False (SQLite in memory),
    # the caller must keep reads and transactions apart.
    concurrent_reads: bool

    async def read(self, sql: str, parameters: Sequence[Any] = ..., /) -> Iterable[Row]:
        """Rows of a read outside any transaction: what is committed now."""

    @property
    def in_transaction(self) -> bool: ...

    async def begin(self, game: int | None = None, *, lazy: bool = False) -> None:
        """``lazy``: PostgreSQL sends the BEGIN and its locks with the transaction's first statement (or its
        commit), one round trip fewer, and ``Busy`` may then come from that statement; SQLite begins at once."""

    async def commit(self) -> None: ...

    async def rollback(self) -> None: ...

    async def close(self) -> None: ...

    async def schema_version(self) -> int: ...

    async def set_schema_version(self, version: int) -> None: ...

    def ddl(self, statement: str) -> str: ...

    async def listen(self, heard: Callable[[str], None]) -> None:
        """Call ``heard`` with every message ``notify`` sends from any process (PostgreSQL's LISTEN)."""


def is_postgresql(target: str | Path) -> bool:
    """Whether ``target`` names a PostgreSQL database (a URL) rather than an SQLite file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


async def open_database(target: str | Path) -> Database:
    """Connect to ``target``: an SQLite file (created with its directory if missing) or a PostgreSQL URL."""
    if is_postgresql(target):
        from bot.db.postgres import READERS, connect_postgresql

        return await connect_postgresql(str(target), readers=READERS)
    from bot.db.sqlite import connect_sqlite

    return await connect_sqlite(target)


def redact(target: str | Path) -> str:
    """``target`` fit for a log line: a URL's password left out."""
    text = str(target)
    if not is_postgresql(text) or "@" not in text:
        return text
    scheme, rest = text.split("://", 1)
    credentials, host = rest.rsplit("@", 1)
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}@{host}" if user else f"{scheme}://{host}"
