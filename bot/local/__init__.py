"""The local table: the bot, a fake Discord and a web page that looks like a Discord channel, all on loopback.

``python -m bot local [--port N] [--members alice,bob,carol]`` (and ``scripts/run`` without a token):

* the fake Discord of ``bot/sandbox`` listens on a free port of 127.0.0.1, with one guild, #general
  and the members named, the first of them a server manager (Manage Server);
* the real bot runs exactly as in production: ``python -m bot`` in a child process (which dies with the
  table, however the table ends), with
  ``DISCORD_API_BASE`` and ``DISCORD_GATEWAY_URL`` pointed at the fake and the fake's token, so it
  logs in, syncs its commands and plays through the same code as in Discord. Its database is
  ``data/local.sqlite3`` under the working directory (never ``DATABASE_PATH``, which may name the
  real bot's data), started afresh each time because the fake's guild, channels and members live
  in memory and are new at every start;
* the page (``bot.local.page``) is served on 127.0.0.1:PORT and acts only through the fake's user
  injectors, the ones the end-to-end tests use;
* the bot's board page: the bot is given the fake application's OAuth2 client id and secret (so its boards
  offer "Play on the board") and a loopback port for its board server (``BOARD_PORT`` when set, else a free
  one; the start-up line says where: ``Board page at http://127.0.0.1:N/board/``), which the page serves
  under ``/board/`` too and opens in a panel as Discord opens an Activity. The table's own address is the bot's
  ``BOARD_PUBLIC_URL``, so a launch the fake refuses (in a thread) is answered with a personal link to the page,
  which the table opens in the same panel. ``BOARD_SECRET`` is passed on.

Time: Discord's deadlines (3 s to answer an interaction, 15 minutes of followups) are measured on
the fake's ``SimClock``, which is monotonic time plus whatever a test skipped ahead. Nothing here
skips ahead, so at the local table the clock is real time and a slow answer fails as in Discord.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
from pathlib import Path

from aiohttp import web

from bot.lifeline import PARENT_VARIABLE
from bot.local.page import Page
from bot.sandbox.server import FakeDiscord

log = logging.getLogger(__name__)

DEFAULT_PORT = 8765
DEFAULT_MEMBERS = ("alice", "bob", "carol")
LOCAL_DATABASE_PATH = Path("data") / "local.sqlite3"
TEN_YEARS = 10 * 365 * 24 * 3600.0
REQUESTS_KEPT = 500  # the fake records every REST call for tests; a long evening at the table keeps the newest


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bot local", description="Play with the bot without Discord.")
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"page port on 127.0.0.1 (default {DEFAULT_PORT}, 0: any free port)",
    )
    parser.add_argument("--members", default=",".join(DEFAULT_MEMBERS), help="comma-separated member names")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    try:
        args = parse(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    members = [m.strip().lower() for m in args.members.split(",") if m.strip()]
    if not members:
        print("veletas-bot: --members needs at least one name", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=os.environ.get("LOG_LEVEL", "WARNING").upper() if os.environ.get("LOG_LEVEL") else logging.WARNING,
        format="%(asctime)s %(levelname)-8s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        return asyncio.run(LocalTable(args.port, members).run())
    except KeyboardInterrupt:
        return 0


def board_port_for(environ: dict[str, str] | os._Environ[str]) -> int:
    """``BOARD_PORT`` when set, else a port free now on 127.0.0.1 (the bot binds it a moment later)."""
    raw = environ.get("BOARD_PORT", "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalTable:
    default_port = DEFAULT_PORT

    def __init__(self, port: int, members: list[str]) -> None:
        self.port = port
        self.members = members
        self.database = LOCAL_DATABASE_PATH
        self.board_port = 0

    async def run(self) -> int:
        fake = FakeDiscord(lifetime=TEN_YEARS, wait_timeout=60.0)
        await fake.start()
        added = [fake.add_member(name) for name in self.members]
        ready = asyncio.Event()
        self.board_port = board_port_for(os.environ)
        page = Page(fake, ready=ready, board_url=f"http://127.0.0.1:{self.board_port}")
        # Someone must be able to try /settings and /tournament create: the first member manages the server (the
        # page gives and takes Manage Server, and sets each member's language and the server's).
        await page.set_manager(added[0], True)
        runner = web.AppRunner(page.app(), access_log=None, handle_signals=False)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", self.port))  # loopback only: nothing outside this machine can reach the table
        except OSError as exc:
            if self.port != self.default_port:
                print(
                    f"veletas-bot: cannot listen on 127.0.0.1:{self.port}: {exc.strerror} (try --port)", file=sys.stderr
                )
                await fake.stop()
                return 1
            sock.bind(("127.0.0.1", 0))  # the usual port is taken (a second table?): any free one will do
        await web.SockSite(runner, sock).start()
        address = f"http://127.0.0.1:{sock.getsockname()[1]}"
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        bot = await self._start_bot(fake, address)
        trim = loop.create_task(self._trim(fake))
        try:
            connected = loop.create_task(
                fake.wait_until(
                    lambda: bool(fake.commands()) and fake.gateway.current is not None,
                    timeout=120,
                    what="the bot to connect",
                )
            )
            exited = loop.create_task(bot.wait())
            stopping = loop.create_task(stop.wait())
            await asyncio.wait({connected, exited, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if connected.done() and not connected.cancelled() and connected.exception() is None:
                ready.set()
                page._changed()
                print(f"Board page at http://127.0.0.1:{self.board_port}/board/", flush=True)
                print(f"Local table ready at {address} (members {', '.join(self.members)}; Ctrl+C stops)", flush=True)
                await asyncio.wait({exited, stopping}, return_when=asyncio.FIRST_COMPLETED)
            connected.cancel()
            stopping.cancel()
            if exited.done() and not stop.is_set():  # Ctrl+C reaches the bot too: that is no failure
                print(
                    f"veletas-bot: the bot stopped (exit code {bot.returncode}); the local table closes",
                    file=sys.stderr,
                )
                return 1
            return 0
        finally:
            trim.cancel()
            if bot.returncode is None:
                bot.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(bot.wait(), timeout=20)
                except TimeoutError:
                    bot.kill()
                    await bot.wait()
            await runner.cleanup()
            await fake.stop()

    async def _start_bot(self, fake: FakeDiscord, address: str) -> asyncio.subprocess.Process:
        """``python -m bot`` as deployed, pointed at the fake, on a fresh database; ``address`` is the table's page,
        which serves the board page under ``/board/``."""
        self.database.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{self.database}{suffix}").unlink()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DEV_GUILD"))}
        env |= {
            "DISCORD_TOKEN": fake.token,
            "DISCORD_API_BASE": fake.api_base,
            "DISCORD_GATEWAY_URL": fake.gateway_url,
            # The fake application's OAuth2 client: board messages offer "Play on the board" at the table, whose
            # page plays Discord's side of the Activity.
            "DISCORD_CLIENT_ID": str(fake.application_id),
            "DISCORD_CLIENT_SECRET": fake.client_secret,
            "BOARD_PORT": str(self.board_port),
            # The board page's public address is the table's own: where the fake refuses the launch (a game's
            # thread, as Discord does), the bot answers with a personal link there, which the page opens in its panel.
            "BOARD_PUBLIC_URL": address,
            "BOARD_HOST": "127.0.0.1",
            "DATABASE_PATH": str(self.database),
            "LOG_LEVEL": env.get("LOG_LEVEL", "WARNING"),
            # The bot dies with the table, even a table killed with SIGKILL, which cannot stop it (bot/lifeline.py);
            # started from the event loop's thread, which lives as long as the table.
            PARENT_VARIABLE: str(os.getpid()),
        }
        return await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", env=env)

    async def _trim(self, fake: FakeDiscord) -> None:
        while True:
            await asyncio.sleep(30)
            del fake.requests[:-REQUESTS_KEPT]
            del fake.errors[:-REQUESTS_KEPT]
