"""``python -m bot``: read the settings, open the store, run the bot until it is stopped.

``python -m bot layers [--write]`` draws the layers of the code (``bot/layers.py``).

``python -m bot puzzles mine [--games N] [--self-play N] [--game NAME] [--seconds S]`` searches finished
games (and self-play) for puzzles (``bot/puzzle_mining.py``).

``python -m bot health`` is the container health check: it succeeds while the running bot keeps
its heartbeat file fresh, which it only does while connected to the gateway.

Operators read the first line of output when something is wrong, so configuration problems and a
rejected token end the process with one clear line instead of a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import time
from pathlib import Path

from dotenv import find_dotenv, load_dotenv

from bot.config import DEFAULT_DATABASE_PATH, Settings, SettingsError, database_url_from_env
from bot.db import is_postgresql, redact

# The bot itself (discord.py, the store, the rules, the cogs) is imported by the commands that use it, not here:
# ``health`` runs every half minute in a container and needs none of it (a tenth of the time and memory).

log = logging.getLogger("bot")

REJECTED_TOKEN = "veletas-bot: Discord rejected DISCORD_TOKEN; copy a fresh token from the Developer Portal (Bot tab)"


async def run(settings: Settings) -> None:
    from bot.client import make_bot
    from bot.store import Store, StoreError

    try:
        store = await Store.open(settings.database)
    except OSError as exc:
        # A directory that cannot be created or a file that cannot be opened: say which, in one line.
        raise StoreError(f"cannot open the database at {redact(settings.database)}: {exc.strerror or exc}") from exc
    try:
        bot = make_bot(settings, store)
        # `docker stop` sends SIGTERM: close the connection and the store cleanly instead of dying mid-write.
        loop = asyncio.get_running_loop()
        closing: list[asyncio.Task[None]] = []
        loop.add_signal_handler(signal.SIGTERM, lambda: closing.append(loop.create_task(bot.close())))
        async with bot:
            await bot.start(settings.token)
    finally:
        await store.close()


def health() -> int:
    """0 when the heartbeat file was touched recently; Docker runs this from HEALTHCHECK.

    It needs no token: only where the data lives, which defaults like the bot's own setting.
    """
    settings = Settings(token="", database_path=Path(os.environ.get("DATABASE_PATH", "") or DEFAULT_DATABASE_PATH))
    path = settings.heartbeat_path
    try:
        age = time.time() - path.stat().st_mtime
    except OSError:
        print(f"unhealthy: no heartbeat at {path}", file=sys.stderr)
        return 1
    if age > settings.heartbeat_seconds * 3:
        print(f"unhealthy: last heartbeat {age:.0f} s ago", file=sys.stderr)
        return 1
    return 0


def token_configured() -> bool:
    """Whether DISCORD_TOKEN is set, in the environment or in ``.env``."""
    load_dotenv(find_dotenv(usecwd=True), override=False)
    return bool(os.environ.get("DISCORD_TOKEN", "").strip())


def ratings(args: list[str]) -> int:
    """``python -m bot ratings rebuild``: recompute every rating from the stored rated games, in one transaction."""
    if args != ["rebuild"]:
        print("veletas-bot: usage: python -m bot ratings rebuild", file=sys.stderr)
        return 2
    load_dotenv(find_dotenv(usecwd=True), override=False)
    try:
        path = database_target()
    except SettingsError as exc:
        print(f"veletas-bot: {exc}", file=sys.stderr)
        return 2
    if isinstance(path, Path) and not path.exists():
        print(f"veletas-bot: no database at {path} (check DATABASE_PATH)", file=sys.stderr)
        return 1

    from bot.store import Store, StoreError

    async def rebuild() -> int:
        store = await Store.open(path)
        try:
            return await store.rebuild_ratings()
        finally:
            await store.close()

    try:
        count = asyncio.run(rebuild())
    except StoreError as exc:
        print(f"veletas-bot: {exc} ({_check_setting(path)})", file=sys.stderr)
        return 1
    print(f"Ratings rebuilt from {count} rated game{'s' if count != 1 else ''} in {redact(path)}.")
    return 0


SWITCH_INTERVAL = 0.0005
"""Seconds a thread holding the GIL runs before it must hand over to one waiting (Python's default: 0.005).

Some work runs in threads of the bot's process: SQLite's (aiosqlite), the rarer images (replays, charts,
tournament sheets), and boards when ``DRAWING_WORKERS`` is 0. Each socket call of the event loop's thread
lets go of the GIL, and getting it back from such a thread waited up to the whole interval. When boards
were still drawn in threads, ``bench_bot`` on PostgreSQL answered at 50 moves/s with a p99 of 54 and 44 ms
with 0.5 ms, where the default gave 75 and 52 ms (two alternating runs each)."""

MIGRATE_USAGE = "usage: python -m bot migrate --to postgresql://user:password@host/name [--from FILE]"


def migrate(args: list[str]) -> int:
    """``python -m bot migrate --to URL``: copy the SQLite file (DATABASE_PATH, or --from) into an empty PostgreSQL."""
    options: dict[str, str] = {}
    rest = list(args)
    while rest:
        flag = rest.pop(0)
        if flag not in ("--to", "--from") or not rest or flag in options:
            print(f"veletas-bot: {MIGRATE_USAGE}", file=sys.stderr)
            return 2
        options[flag] = rest.pop(0)
    url = options.get("--to", "")
    if not is_postgresql(url):
        print(f"veletas-bot: --to must be a PostgreSQL URL; {MIGRATE_USAGE}", file=sys.stderr)
        return 2
    load_dotenv(find_dotenv(usecwd=True), override=False)
    source = Path(options.get("--from") or os.environ.get("DATABASE_PATH") or DEFAULT_DATABASE_PATH)
    print(f"Copying {source} into {redact(url)}")
    from bot.store import StoreError
    from bot.transfer import TransferRefused, copy_to_postgresql

    try:
        copied = asyncio.run(copy_to_postgresql(source, url, say=lambda line: print(f"  {line}", flush=True)))
    except (TransferRefused, StoreError) as exc:
        print(f"veletas-bot: {exc}", file=sys.stderr)
        return 1
    total = sum(c.rows for c in copied)
    print(f"Copied {total} rows in {len(copied)} tables; every table's count matches the file.")
    print(f"Run the bot on it with DATABASE_URL={redact(url)} (with its password).")
    return 0


def puzzles(args: list[str]) -> int:
    """``python -m bot puzzles mine ...``: search finished games (and self-play) for puzzles (bot/puzzle_mining.py)."""
    try:
        target = database_target()
    except SettingsError as exc:
        print(f"veletas-bot: {exc}", file=sys.stderr)
        return 2
    from bot.puzzle_mining import main as mine

    return mine(args, target)


def database_target() -> str | Path:
    """The database the commands work on: DATABASE_URL when set, else the SQLite file at DATABASE_PATH."""
    return database_url_from_env(os.environ) or Path(os.environ.get("DATABASE_PATH") or DEFAULT_DATABASE_PATH)


def _check_setting(target: str | Path) -> str:
    return "check DATABASE_URL" if is_postgresql(target) else "check DATABASE_PATH"


def command_sizes_table() -> int:
    """``commands --sizes``: each top-level command's size by Discord's registration limit, per language (Markdown)."""
    from bot.client import SIZE_COLUMNS, command_sizes, tree_payload
    from bot.sandbox.limits import MAX_COMMAND_SIZE

    sizes = command_sizes(asyncio.run(tree_payload()))
    print(f"| command | {' | '.join(SIZE_COLUMNS)} |")
    print("|---|" + "---:|" * len(SIZE_COLUMNS))
    for name, row in sizes.items():
        print(f"| `/{name}` | {' | '.join(f'{row[column]:,}' for column in SIZE_COLUMNS)} |")
    largest = max(row["discord"] for row in sizes.values())
    print(f"\nLargest: {largest:,} of Discord's {MAX_COMMAND_SIZE:,}.")
    return 0 if largest <= MAX_COMMAND_SIZE else 1


def main(argv: list[str]) -> int:
    if argv[1:] == ["health"]:
        return health()
    load_dotenv(find_dotenv(usecwd=True), override=False)
    from bot.rules.registry import GAMES_SETTING, load_configured

    try:
        load_configured()  # the games named in VELETAS_GAMES register themselves before anything starts
    except ImportError as exc:
        print(f"veletas-bot: {GAMES_SETTING}: {exc}", file=sys.stderr)
        return 2
    if argv[1:] == ["commands", "--sizes"]:
        return command_sizes_table()
    if argv[1:2] == ["layers"]:
        from bot.layers import main as layers

        return layers(argv[2:])
    if argv[1:2] == ["ratings"]:
        return ratings(argv[2:])
    if argv[1:2] == ["migrate"]:
        return migrate(argv[2:])
    if argv[1:2] == ["puzzles"]:
        return puzzles(argv[2:])
    if argv[1:2] == ["local"] or (argv[1:] == ["auto"] and not token_configured()):
        # No token: the local table, a fake Discord on this machine with a page to play on.
        from bot.local import main as local

        if argv[1:] == ["auto"]:
            print("veletas-bot: no DISCORD_TOKEN, so the local table starts (set DISCORD_TOKEN to run in Discord)")
        return local(argv[2:])
    if argv[1:] == ["auto"]:
        argv = argv[:1]
    import aiohttp
    import discord

    from bot.endpoints import apply_endpoints
    from bot.lifeline import PARENT_VARIABLE, die_with_parent
    from bot.store import StoreError

    parent = os.environ.pop(PARENT_VARIABLE, "")
    if parent.isdigit():
        die_with_parent(int(parent))  # before any worker starts: a killed parent must not leave the bot running
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        print(f"veletas-bot: {exc}", file=sys.stderr)
        return 2
    if argv[1:]:
        print(
            f"veletas-bot: unknown arguments {' '.join(argv[1:])!r} "
            "(expected nothing, 'local', 'auto', 'health', 'commands --sizes', 'layers [--write]', "
            "'ratings rebuild', 'migrate --to URL' or 'puzzles mine')",
            file=sys.stderr,
        )
        return 2
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)-8s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        apply_endpoints(api_base=settings.api_base, gateway_url=settings.gateway_url)
    except ValueError as exc:
        print(f"veletas-bot: {exc}", file=sys.stderr)
        return 2
    try:
        sys.setswitchinterval(SWITCH_INTERVAL)
        asyncio.run(run(settings))
    except discord.LoginFailure:
        print(REJECTED_TOKEN, file=sys.stderr)
        return 1
    except discord.ConnectionClosed as exc:
        if exc.code != 4004:
            raise
        print(REJECTED_TOKEN, file=sys.stderr)
        return 1
    except StoreError as exc:
        print(f"veletas-bot: {exc} ({_check_setting(settings.database)})", file=sys.stderr)
        return 1
    except (aiohttp.ClientError, OSError) as exc:
        # Discord (or the configured proxy) unreachable at login: the operator needs the address and the reason.
        print(f"veletas-bot: cannot reach Discord at {settings.api_base}: {exc}", file=sys.stderr)
        return 1
    except discord.PrivilegedIntentsRequired:
        print("veletas-bot: Discord refused the requested gateway intents", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        log.info("Stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
