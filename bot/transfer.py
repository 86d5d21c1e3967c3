"""Moving a bot from its SQLite file to PostgreSQL: ``python -m bot migrate --to postgresql://…``.

Every table of the file is copied whole (games, moves, ratings, tournaments, settings: whatever the
schema holds, so a table added by a later migration comes along without a change here), parents before
the tables that refer to them, in one PostgreSQL transaction that holds the store's write lock:

1. both sides are brought to this bot's schema first (``Store.open``), so their tables match;
2. a target that holds any row is refused before anything is written: a copy never overwrites;
3. rows go over by COPY, in batches, as they are read from the file;
4. identity columns continue after the highest copied id (a new game never reuses a copied id);
5. every table's row count is checked against the file's before the commit: on any difference, or any
   error, the transaction is rolled back and the target stays empty.

The SQLite file is only read (and migrated to the current schema, as the bot would on start-up).
It sits above both the store and its connection (``bot.db``), which knows no store.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import aiosqlite
import asyncpg

from bot.db import redact
from bot.db.postgres import PostgresDatabase, connect_postgresql, sync_identities
from bot.store import Store

log = logging.getLogger(__name__)

BATCH = 5000


class TransferRefused(RuntimeError):
    """The copy cannot be made (a non-empty target, a missing file, counts that differ); nothing was written."""


@dataclass(frozen=True)
class Copied:
    table: str
    rows: int


def _ordered(tables: list[str], parents: dict[str, set[str]]) -> list[str]:
    """Tables with every table a foreign key points to before the table that points to it."""
    done: list[str] = []
    seen: set[str] = set()

    def visit(table: str, path: tuple[str, ...]) -> None:
        if table in seen or table in path:
            return
        for parent in sorted(parents.get(table, ())):
            if parent != table:
                visit(parent, (*path, table))
        seen.add(table)
        done.append(table)

    for table in sorted(tables):
        visit(table, ())
    return done


async def _source_tables(source: aiosqlite.Connection) -> list[str]:
    rows = await source.execute_fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    )
    tables = [str(row[0]) for row in rows]
    parents: dict[str, set[str]] = {}
    for table in tables:
        keys = await source.execute_fetchall(f'PRAGMA foreign_key_list("{table}")')
        parents[table] = {str(key[2]) for key in keys}
    return _ordered(tables, parents)


async def _target_rows(target: PostgresDatabase) -> dict[str, int]:
    """How many rows each table of the target's schema holds (none before the first start)."""
    tables = await target.raw.fetch(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
        "AND table_type = 'BASE TABLE' AND table_name <> 'schema_version'"
    )
    counts: dict[str, int] = {}
    for row in tables:
        name = str(row["table_name"])
        counts[name] = int(await target.raw.fetchval(f'SELECT COUNT(*) FROM "{name}"'))
    return counts


async def copy_to_postgresql(
    source_path: Path, url: str, *, say: Callable[[str], None] = lambda line: None
) -> list[Copied]:
    """Copy every row of the SQLite file at ``source_path`` into the empty PostgreSQL database at ``url``."""
    if not source_path.exists():
        raise TransferRefused(f"there is no SQLite database at {source_path}")
    target = await connect_postgresql(url)
    try:
        filled = {table: count for table, count in (await _target_rows(target)).items() if count}
    finally:
        await target.close()
    if filled:
        listed = ", ".join(f"{table} ({count} rows)" for table, count in sorted(filled.items()))
        raise TransferRefused(f"{redact(url)} is not empty: {listed}; the copy goes into an empty database only")
    # Both at this bot's schema, so every table and column matches on the two sides.
    await (await Store.open(source_path)).close()
    await (await Store.open(url)).close()

    source = await aiosqlite.connect(source_path)
    target = await connect_postgresql(url)
    copied: list[Copied] = []
    try:
        await target.begin()
        try:
            if any((await _target_rows(target)).values()):
                raise TransferRefused(f"{redact(url)} was written to while the copy began; nothing was copied")
            for table in await _source_tables(source):
                cursor = await source.execute(f'SELECT * FROM "{table}"')
                columns = [str(d[0]) for d in cursor.description]
                count = 0
                while records := [tuple(r) for r in await cursor.fetchmany(BATCH)]:
                    await target.raw.copy_records_to_table(table, records=records, columns=columns)
                    count += len(records)
                await cursor.close()
                stored = int(await target.raw.fetchval(f'SELECT COUNT(*) FROM "{table}"'))
                expected = int(next(iter(await source.execute_fetchall(f'SELECT COUNT(*) FROM "{table}"')))[0])
                if not stored == count == expected:
                    raise TransferRefused(
                        f"{table}: {expected} rows in the file but {stored} in PostgreSQL; nothing was copied"
                    )
                copied.append(Copied(table, count))
                say(f"{table}: {count} rows")
            await sync_identities(target.raw)
            await target.commit()
        except BaseException:
            if target.in_transaction:
                await target.rollback()
            raise
    except (sqlite3.Error, asyncpg.PostgresError) as exc:
        raise TransferRefused(f"the copy failed and was rolled back: {exc}") from exc
    finally:
        await source.close()
        await target.close()
    log.info("copied %s into %s", source_path, redact(url))
    return copied
