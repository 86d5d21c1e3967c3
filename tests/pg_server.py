"""A real PostgreSQL server for the tests: a throw-away cluster per test session, a fresh schema per test.

The cluster lives in a temporary directory on a free loopback port, started from the server binaries
on this machine (Debian's ``postgresql-15``, which ``scripts/test`` installs when they are missing).
PostgreSQL refuses to run as root, so as root the cluster belongs to the ``postgres`` system user the
Debian package creates. Durability is switched off (fsync, synchronous commit): the tests kill client
processes, never this server, so what they check does not depend on it, and each test's fresh database
costs a few milliseconds instead of a disk flush.

Missing binaries fail the tests that need them with a message saying what to install: never a skip.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import pytest

T = TypeVar("T")

MISSING = (
    "PostgreSQL's server binaries (initdb, postgres) were not found. scripts/test installs them as root "
    "(apt-get install postgresql-15); elsewhere install Debian's postgresql-15 or put a PostgreSQL bin "
    "directory on PATH (or in PG_BIN)."
)


ADMIN_TIMEOUT = 60.0


def run_sync(coro: Coroutine[Any, Any, T], timeout: float = ADMIN_TIMEOUT) -> T:
    """Run a coroutine to its end from anywhere (also from inside a running event loop): on a thread of its own.

    The thread is a daemon and the wait is bounded: an administrative statement that never returns fails the
    test that needed it instead of holding the whole session (and its exit) forever.
    """
    done: concurrent.futures.Future[T] = concurrent.futures.Future()

    def work() -> None:
        try:
            done.set_result(asyncio.run(coro))
        except BaseException as exc:  # handed to the waiting thread as it is
            done.set_exception(exc)

    threading.Thread(target=work, name="pg-admin", daemon=True).start()
    try:
        return done.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        raise TimeoutError(f"a PostgreSQL administrative statement took more than {timeout:.0f} s") from None


def _bin_dir() -> Path | None:
    wanted = os.environ.get("PG_BIN")
    candidates = [Path(wanted)] if wanted else []
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(os.path.realpath(on_path)).parent)
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True)
    candidates += [Path(p) for p in versions]
    for folder in candidates:
        if (folder / "initdb").exists() and (folder / "postgres").exists():
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    """A running cluster: where to reach it, and a fresh database on demand."""

    host: str
    port: int
    process: subprocess.Popen[bytes]
    _counter: itertools.count[int]

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@{self.host}:{self.port}/{database}"

    def create_database(self) -> str:
        """A new empty database of its own, as a schema (a database would cost half a second); returns its URL.

        The URL sets the connection's ``search_path`` to the schema, so everything the store creates and
        reads is there, exactly as in a database of its own.
        """
        name = f"t{next(self._counter)}"
        run_sync(self._admin(f'CREATE SCHEMA "{name}"'))
        return f"{self.url()}?search_path={name}"

    def drop_database(self, url: str, *, lock_wait: float = 5.0) -> None:
        """Drop a test's schema. A connection the test left open (holding a lock the drop needs) is ended
        after ``lock_wait`` seconds rather than waited for: each session has its cluster to itself."""
        name = url.rsplit("=", 1)[1]
        run_sync(self._drop(name, lock_wait))

    async def _drop(self, name: str, lock_wait: float) -> None:
        conn = await asyncpg.connect(self.url())
        try:
            await conn.execute(f"SET lock_timeout = '{int(lock_wait * 1000)}ms'")
            try:
                await conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
            except asyncpg.LockNotAvailableError:
                await conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'"
                )
                await conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        finally:
            await conn.close()

    async def _data_directory(self) -> str:
        """The data directory of the server answering on this port (is it this cluster?)."""
        conn = await asyncpg.connect(self.url(), timeout=5)
        try:
            return str(await conn.fetchval("SHOW data_directory"))
        finally:
            await conn.close()

    async def _admin(self, statement: str) -> None:
        conn = await asyncpg.connect(self.url())
        try:
            await conn.execute(statement)
        finally:
            await conn.close()


class ClusterError(RuntimeError):
    """The throw-away cluster could not be started; the message says why and what to install."""


def start_cluster(**extra: str) -> tuple[PgServer, Path]:
    """Start a throw-away cluster (``extra``: more server settings); returns it and its directory to remove.

    Also used by ``benchmarks/bench_bot.py --database postgresql``.
    """
    bin_dir = _bin_dir()
    if bin_dir is None:
        raise ClusterError(MISSING)
    root = Path(tempfile.mkdtemp(prefix="veletas-pg-"))
    data = root / "data"
    user: pwd.struct_passwd | None = None
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            raise ClusterError("as root, PostgreSQL needs a non-root user: create the 'postgres' user") from None
        os.chown(root, user.pw_uid, user.pw_gid)
    as_user: dict[str, Any] = {} if user is None else {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    init = subprocess.run(
        [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "-N"],
        capture_output=True,
        cwd=root,
        check=False,
        timeout=120,
        **as_user,
    )
    if init.returncode != 0:
        raise ClusterError(f"initdb failed: {init.stderr.decode(errors='replace')}")
    # A free port is free when asked, not when the server binds it: another process (a second test worker
    # starting its own cluster) may take it in between, and the server exits. A new port is tried then.
    for attempt in range(1, PORT_ATTEMPTS + 1):
        try:
            return _serve(bin_dir, root, data, as_user, extra)
        except _PortTaken:
            if attempt == PORT_ATTEMPTS:
                raise ClusterError(f"PostgreSQL found its port taken {PORT_ATTEMPTS} times in a row") from None
    raise AssertionError("unreachable")


PORT_ATTEMPTS = 5


class _PortTaken(Exception):
    """The server could not bind the port it was given."""


def _serve(
    bin_dir: Path, root: Path, data: Path, as_user: dict[str, Any], extra: dict[str, str]
) -> tuple[PgServer, Path]:
    port = _free_port()
    settings = {
        "listen_addresses": "127.0.0.1",
        "port": str(port),
        "unix_socket_directories": str(root),
        "fsync": "off",
        "synchronous_commit": "off",
        "full_page_writes": "off",
        "max_connections": "200",
        "shared_buffers": "64MB",
        **extra,
    }
    args = [str(bin_dir / "postgres"), "-D", str(data)]
    for key, value in settings.items():
        args += ["-c", f"{key}={value}"]
    log = open(root / "server.log", "wb")  # noqa: SIM115 - the server writes to it until the session ends
    process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=root, **as_user)
    server = PgServer("127.0.0.1", port, process, itertools.count(1))
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            text = (root / "server.log").read_text(errors="replace")
            if "could not bind" in text or "Address already in use" in text:
                raise _PortTaken
            raise ClusterError(f"PostgreSQL did not start: {text[-2000:]}")
        try:
            found = run_sync(server._data_directory())
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            if time.monotonic() > deadline:
                process.kill()
                process.wait()
                text = (root / "server.log").read_text(errors="replace")
                raise ClusterError(f"PostgreSQL did not start ({exc}): {text[-2000:]}") from exc
            time.sleep(0.05)
            continue
        if Path(found).resolve() == data.resolve():
            return server, root
        # Another cluster (another worker's) answers on this port: this one cannot bind it.
        process.kill()
        process.wait()
        raise _PortTaken


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    try:
        server, root = start_cluster()
    except ClusterError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield server
    finally:
        stop_cluster(server, root)


def stop_cluster(server: PgServer, root: Path) -> None:
    """Stop the cluster this session started (its own child process) and remove its directory."""
    server.process.terminate()
    try:
        server.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """A fresh, empty database of the session's cluster, dropped after the test."""
    url = pg_server.create_database()
    try:
        yield url
    finally:
        pg_server.drop_database(url)
