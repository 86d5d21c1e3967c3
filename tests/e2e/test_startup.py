"""Starting the bot: settings from the environment, and one clear line when it cannot start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import DEFAULT_API_BASE, Settings, SettingsError

ROOT = Path(__file__).resolve().parents[2]


def run_bot(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD"))}
    clean["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        env={**clean, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_missing_token_exits_with_one_line(tmp_path: Path) -> None:
    done = run_bot({"DISCORD_TOKEN": ""}, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "veletas-bot: DISCORD_TOKEN is not set: put the bot token in the environment or in .env"
    ]


def test_dotenv_file_is_read_and_environment_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=from-file\nLOG_LEVEL=debug\nDEV_GUILD_ID=1234\n")
    monkeypatch.chdir(tmp_path)
    # setenv first, so that what load_dotenv adds is undone after the test too.
    keys = ("DISCORD_TOKEN", "DEV_GUILD_ID", "DATABASE_PATH", "DISCORD_API_BASE", "DISCORD_GATEWAY_URL")
    for key in (*keys, "CHALLENGE_MINUTES", "AI_WORKERS", "MAX_OPEN_CHALLENGES"):
        monkeypatch.setenv(key, "")
        monkeypatch.delenv(key)
    monkeypatch.setenv("LOG_LEVEL", "warning")
    settings = Settings.from_env()
    assert settings.token == "from-file"
    assert settings.dev_guild_id == 1234
    assert settings.log_level == "WARNING"
    assert settings.api_base == DEFAULT_API_BASE
    assert settings.database_path == Path("data") / "veletas.sqlite3"
    assert settings.challenge_minutes == 15
    assert settings.max_open_challenges == 5
    assert settings.ai_workers == 1, "the AI opponent is on unless AI_WORKERS=0"


@pytest.mark.parametrize(
    ("key", "value", "complaint"),
    [
        ("DEV_GUILD_ID", "my-server", "DEV_GUILD_ID must be a Discord id"),
        ("LOG_LEVEL", "loud", "LOG_LEVEL 'LOUD' is not a logging level"),
        ("CHALLENGE_MINUTES", "-5", "CHALLENGE_MINUTES must be more than zero"),
        ("AI_WORKERS", "two", "AI_WORKERS must be a whole number"),
        ("MAX_OPEN_CHALLENGES", "0", "MAX_OPEN_CHALLENGES must be 1 or more"),
        ("MAX_OPEN_CHALLENGES", "many", "MAX_OPEN_CHALLENGES must be a whole number"),
    ],
)
def test_malformed_settings_are_refused_by_name(key: str, value: str, complaint: str) -> None:
    with pytest.raises(SettingsError, match=complaint):
        Settings.from_env({"DISCORD_TOKEN": "t", key: value})


def test_bad_endpoint_exits_with_one_line(tmp_path: Path) -> None:
    done = run_bot({"DISCORD_TOKEN": "x", "DISCORD_API_BASE": "ftp://example.org/api"}, cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "DISCORD_API_BASE must be an http(s) URL" in lines[0]


def test_unreachable_discord_exits_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a loopback port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    api = f"http://127.0.0.1:{port}/api/v10"
    env = {"DISCORD_TOKEN": "x", "DISCORD_API_BASE": api, "DATABASE_PATH": str(tmp_path / "db.sqlite3")}
    done = run_bot(env, cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"veletas-bot: cannot reach Discord at {api}: ")
    assert "voice will NOT be supported" not in done.stderr


def test_health_check_follows_the_heartbeat_file(tmp_path: Path) -> None:
    env = {"DATABASE_PATH": str(tmp_path / "db" / "veletas.sqlite3")}
    assert run_bot(env, "health", cwd=tmp_path).returncode == 1
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "heartbeat").touch()
    assert run_bot(env, "health", cwd=tmp_path).returncode == 0
    stale = 3600
    os.utime(tmp_path / "db" / "heartbeat", (os.path.getmtime(tmp_path / "db" / "heartbeat") - stale,) * 2)
    assert run_bot(env, "health", cwd=tmp_path).returncode == 1


def test_the_health_check_loads_no_discord_no_store_and_no_rules(tmp_path: Path) -> None:
    """The container runs ``python -m bot health`` every half minute: it reads a file's age, nothing more."""
    heavy = "('discord', 'aiohttp', 'aiosqlite', 'asyncpg', 'PIL', 'bot.store', 'bot.rules', 'bot.client', 'cogs')"
    code = (
        "import sys; import bot.__main__ as m; m.main(['bot', 'health']); "
        f"print(sorted(n for n in sys.modules if n == n.split('.')[0] and n in {heavy} or n.startswith({heavy})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "DATABASE_PATH": str(tmp_path / "x.sqlite3")},
        check=False,
    )
    assert done.stdout.strip() == "[]", (done.stdout, done.stderr)


@pytest.mark.parametrize("problem", ["under a file", "not a database"])
def test_unusable_database_exits_with_one_line(tmp_path: Path, problem: str) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("this is a plain file, not SQLite, and not a directory\n" * 100)
    path = blocker / "veletas.sqlite3" if problem == "under a file" else blocker
    done = run_bot({"DISCORD_TOKEN": "x", "DATABASE_PATH": str(path)}, cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("veletas-bot: cannot "), done.stderr
    assert str(path) in lines[0] and lines[0].endswith("(check DATABASE_PATH)")
