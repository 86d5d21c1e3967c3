"""Settings for one run of the bot, read once from the environment (and `.env` for local runs).

Everything the process needs to know about its surroundings lives in one frozen value, so the
rest of the code never reads ``os.environ`` and tests can build a ``Settings`` by hand.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from dotenv import find_dotenv, load_dotenv

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"
DEFAULT_DATABASE_PATH = Path("data") / "veletas.sqlite3"
DEFAULT_CHALLENGE_MINUTES = 15.0
DEFAULT_AI_WORKERS = 1
DEFAULT_DRAWING_WORKERS = 1
DEFAULT_MAX_OPEN_CHALLENGES = 5
DEFAULT_AI_WORKER_MAX_MB = 400
DEFAULT_ANALYSIS_QUEUE = 8


class SettingsError(ValueError):
    """A setting is missing or malformed; the message is the one line the operator reads."""


@dataclass(frozen=True)
class Settings:
    token: str
    database_path: Path = DEFAULT_DATABASE_PATH
    # A PostgreSQL database (``postgresql://user:password@host/name``) instead of the SQLite file: for a bot
    # run as several shard processes. The heartbeat file stays beside ``database_path``.
    database_url: str | None = None
    # Gateway sharding: how many shards the bot has in all, and which of them this process runs (None: all
    # of them, or, without a count, as many as Discord recommends, in one process).
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    api_base: str = DEFAULT_API_BASE
    gateway_url: str = DEFAULT_GATEWAY_URL
    log_level: str = "INFO"
    dev_guild_id: int | None = None
    challenge_minutes: float = DEFAULT_CHALLENGE_MINUTES
    # Open challenges one member may have at once (each pings someone or asks the channel).
    max_open_challenges: int = DEFAULT_MAX_OPEN_CHALLENGES
    # Worker processes for the AI opponent; 0 (the default for hand-built settings) means no AI.
    ai_workers: int = 0
    # Worker processes drawing the boards (bot/render/workers.py); 0 (hand-built settings) draws in threads.
    drawing_workers: int = 0
    # A worker past this resident memory after a search is replaced by a fresh process.
    ai_worker_max_mb: float = DEFAULT_AI_WORKER_MAX_MB
    # Analyses waiting or running at once, all members together (one member: one at a time).
    analysis_queue: int = DEFAULT_ANALYSIS_QUEUE
    # Puzzle mining in the AI's worker pool (cogs/puzzle_mining.py); off for hand-built settings.
    puzzle_mining: bool = False
    heartbeat_seconds: float = 30.0
    # The board page as a Discord Activity: the application's OAuth2 client id and secret (developer portal,
    # OAuth2). Without both, board messages offer no "Play on the board" button.
    client_id: int | None = None
    client_secret: str = ""
    # The public HTTPS address the board page is served at (the Activity's URL mapping points there); with it, a
    # launch Discord refuses is answered with a personal link to the page.
    board_public_url: str = ""
    # The board page's server (bot/board): started when a port is set (0: any free one), on ``board_host``.
    board_port: int | None = None
    board_host: str = "127.0.0.1"
    # The key board session tokens are signed with (bot/board/sessions.py); None: a random one for this process
    # only. Processes that serve each other's pages (and the personal links) need the same one.
    board_secret: bytes | None = None

    @property
    def activity_configured(self) -> bool:
        """Whether board messages offer the board page as an Activity."""
        return self.client_id is not None and bool(self.client_secret)

    @property
    def database(self) -> str | Path:
        """Where the store lives: the PostgreSQL URL when one is set, else the SQLite file."""
        return self.database_url or self.database_path

    @property
    def heartbeat_path(self) -> Path:
        """Beside the database, so the container's one data volume holds it and no extra setting is needed."""
        return self.database_path.parent / "heartbeat"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, dotenv: bool = True) -> Settings:
        """Build settings from ``environ`` (the process environment by default).

        ``.env`` is loaded first when reading the real environment so local runs need no exports;
        values already set in the environment win, as a deployment's own settings should.
        """
        if environ is None:
            if dotenv:
                # From the working directory, where operators keep .env (not from this file's package).
                load_dotenv(find_dotenv(usecwd=True), override=False)
            environ = os.environ
        token = environ.get("DISCORD_TOKEN", "").strip()
        if not token:
            raise SettingsError("DISCORD_TOKEN is not set: put the bot token in the environment or in .env")
        level = environ.get("LOG_LEVEL", "INFO").strip().upper() or "INFO"
        if not isinstance(logging.getLevelName(level), int):
            raise SettingsError(f"LOG_LEVEL {level!r} is not a logging level (DEBUG, INFO, WARNING, ERROR)")
        shard_count, shard_ids = shards_from_env(environ)
        ai_workers = _count(environ, "AI_WORKERS", DEFAULT_AI_WORKERS)
        return cls(
            token=token,
            database_path=Path(environ.get("DATABASE_PATH", "").strip() or DEFAULT_DATABASE_PATH),
            database_url=database_url_from_env(environ),
            shard_count=shard_count,
            shard_ids=shard_ids,
            api_base=(environ.get("DISCORD_API_BASE", "").strip() or DEFAULT_API_BASE).rstrip("/"),
            gateway_url=environ.get("DISCORD_GATEWAY_URL", "").strip() or DEFAULT_GATEWAY_URL,
            log_level=level,
            dev_guild_id=_optional_id(environ, "DEV_GUILD_ID"),
            challenge_minutes=_positive_float(environ, "CHALLENGE_MINUTES", DEFAULT_CHALLENGE_MINUTES),
            ai_workers=ai_workers,
            drawing_workers=_count(environ, "DRAWING_WORKERS", DEFAULT_DRAWING_WORKERS),
            max_open_challenges=_positive_count(environ, "MAX_OPEN_CHALLENGES", DEFAULT_MAX_OPEN_CHALLENGES),
            ai_worker_max_mb=_positive_float(environ, "AI_WORKER_MAX_MB", DEFAULT_AI_WORKER_MAX_MB, "megabytes"),
            analysis_queue=_count(environ, "ANALYSIS_QUEUE", DEFAULT_ANALYSIS_QUEUE),
            client_id=_optional_id(environ, "DISCORD_CLIENT_ID"),
            client_secret=environ.get("DISCORD_CLIENT_SECRET", "").strip(),
            board_public_url=public_url_from_env(environ),
            board_port=_port(environ, "BOARD_PORT"),
            board_host=environ.get("BOARD_HOST", "").strip() or "127.0.0.1",
            board_secret=environ.get("BOARD_SECRET", "").strip().encode() or None,
            puzzle_mining=_switch(environ, "PUZZLE_MINING", ai_workers > 0),
        )


def public_url_from_env(environ: Mapping[str, str]) -> str:
    """BOARD_PUBLIC_URL: an https:// address (http:// only on loopback, for trying it out), without its last /."""
    raw = environ.get("BOARD_PUBLIC_URL", "").strip().rstrip("/")
    if not raw:
        return ""
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018 (a port that is no number raises here)
    except ValueError:
        parts = None
    # http:// only for this machine itself (the local table): the host is exactly 127.0.0.1 or localhost, with no
    # user part, so neither "http://127.0.0.1.example.org" nor "http://localhost@example.org" passes.
    loopback = (
        parts is not None
        and parts.scheme == "http"
        and parts.hostname in ("127.0.0.1", "localhost")
        and "@" not in parts.netloc
    )
    secure = parts is not None and parts.scheme == "https" and bool(parts.hostname)
    if not (secure or loopback) or any(c in raw for c in " ?#\"'<>\\"):
        raise SettingsError(f"BOARD_PUBLIC_URL must be an https:// address (as Discord reaches it), got {raw!r}")
    return raw


def database_url_from_env(environ: Mapping[str, str]) -> str | None:
    """DATABASE_URL: a PostgreSQL URL, or None (the SQLite file at DATABASE_PATH)."""
    raw = environ.get("DATABASE_URL", "").strip()
    if not raw:
        return None
    if not raw.startswith(("postgresql://", "postgres://")):
        raise SettingsError(
            "DATABASE_URL must be a PostgreSQL URL (postgresql://user:password@host:5432/name); "
            "for an SQLite file set DATABASE_PATH instead"
        )
    return raw


def shards_from_env(environ: Mapping[str, str]) -> tuple[int | None, tuple[int, ...] | None]:
    """SHARD_COUNT and SHARD_IDS: ``0,1``, or a range ``4-7`` (both ends included), or both mixed (``0,2-3``)."""
    count_text = environ.get("SHARD_COUNT", "").strip()
    ids_text = environ.get("SHARD_IDS", "").strip()
    if not count_text:
        if ids_text:
            raise SettingsError("SHARD_IDS needs SHARD_COUNT (how many shards the bot has in all)")
        return None, None
    if not count_text.isdigit() or int(count_text) < 1:
        raise SettingsError(f"SHARD_COUNT must be a whole number of shards (1 or more), got {count_text!r}")
    count = int(count_text)
    if not ids_text:
        return count, None
    ids: list[int] = []
    for part in ids_text.replace(" ", "").split(","):
        low, dash, high = part.partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise SettingsError(f"SHARD_IDS must list shard numbers or ranges (0,1 or 4-7), got {ids_text!r}")
        first, last = int(low), int(high) if dash else int(low)
        if first > last:
            raise SettingsError(f"SHARD_IDS range {part!r} runs backwards")
        ids.extend(range(first, last + 1))
    if any(shard >= count for shard in ids):
        raise SettingsError(
            f"SHARD_IDS {ids_text!r} names a shard past SHARD_COUNT {count} (shards are 0 to {count - 1})"
        )
    if len(set(ids)) != len(ids):
        raise SettingsError(f"SHARD_IDS {ids_text!r} names a shard twice")
    return count, tuple(sorted(ids))


def _port(environ: Mapping[str, str], key: str) -> int | None:
    """A TCP port (0: any free one), or None when unset."""
    raw = environ.get(key, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) > 65535:
        raise SettingsError(f"{key} must be a port number from 0 to 65535, not {raw!r}")
    return int(raw)


def _optional_id(environ: Mapping[str, str], key: str) -> int | None:
    raw = environ.get(key, "").strip()
    if not raw:
        return None
    if not raw.isdigit():
        raise SettingsError(f"{key} must be a Discord id (digits only), got {raw!r}")
    return int(raw)


def _positive_float(environ: Mapping[str, str], key: str, default: float, unit: str = "minutes") -> float:
    raw = environ.get(key, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{key} must be a number of {unit}, got {raw!r}") from None
    if value <= 0:
        raise SettingsError(f"{key} must be more than zero, got {raw!r}")
    return value


def _switch(environ: Mapping[str, str], key: str, default: bool) -> bool:
    raw = environ.get(key, "").strip().lower()
    if not raw:
        return default
    if raw not in ("on", "off"):
        raise SettingsError(f"{key} must be on or off, got {raw!r}")
    return raw == "on"


def _count(environ: Mapping[str, str], key: str, default: int) -> int:
    raw = environ.get(key, "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise SettingsError(f"{key} must be a whole number (0 or more), got {raw!r}")
    return int(raw)


def _positive_count(environ: Mapping[str, str], key: str, default: int) -> int:
    value = _count(environ, key, default)
    if value < 1:
        raise SettingsError(f"{key} must be 1 or more, got {environ.get(key, '').strip()!r}")
    return value
