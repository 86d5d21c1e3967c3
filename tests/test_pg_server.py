"""The tests' throw-away PostgreSQL cluster cannot hold a run: a test's database is dropped even while a
connection the test left open holds the locks the drop needs, on the very event loop the drop blocks."""

from __future__ import annotations

import asyncpg
from pg_server import PgServer


async def test_a_database_is_dropped_though_a_connection_left_open_on_the_blocked_loop_holds_its_locks(
    pg_server: PgServer,
) -> None:
    url = pg_server.create_database()
    holder = await asyncpg.connect(url)
    transaction = holder.transaction()
    await transaction.start()
    await holder.execute("CREATE TABLE held (n integer)")
    await holder.execute("INSERT INTO held VALUES (1)")
    # The holder cannot commit: its loop is this one, which the synchronous drop blocks until it returns.
    pg_server.drop_database(url, lock_wait=0.5)
    schema = url.rsplit("=", 1)[1]
    admin = await asyncpg.connect(pg_server.url())
    try:
        assert await admin.fetchval("SELECT count(*) FROM pg_namespace WHERE nspname = $1", schema) == 0
    finally:
        await admin.close()
    try:
        await holder.execute("SELECT 1")
    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
        pass
    else:
        raise AssertionError("the connection holding the locks was still served after the drop")
    finally:
        await holder.close(timeout=2)
