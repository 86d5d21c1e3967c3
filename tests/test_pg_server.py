"""The tests' throw-away PostgreSQL cluster cannot hold a run: a test's database is dropped even while a
connection the test left open holds the locks the drop needs, on the very event loop the drop blocks; a cluster
whose port another process took before the server bound it starts on another port."""

from __future__ import annotations

import socket

import asyncpg
import pg_server
import pytest
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


@pytest.mark.slow
def test_a_cluster_whose_port_was_taken_meanwhile_starts_on_another(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two test workers can be handed the same free port; the one whose server finds it taken tries a new one."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        busy = taken.getsockname()[1]
        ports = iter([busy])
        free = pg_server._free_port
        monkeypatch.setattr(pg_server, "_free_port", lambda: next(ports, None) or free())
        server, root = pg_server.start_cluster()
        try:
            assert server.port != busy
            assert pg_server.run_sync(_answer(server)) == 1
        finally:
            pg_server.stop_cluster(server, root)


async def _answer(server: PgServer) -> int:
    conn = await asyncpg.connect(server.url())
    try:
        return int(await conn.fetchval("SELECT 1"))
    finally:
        await conn.close()
