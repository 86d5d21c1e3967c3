"""The run command's two doors: no token opens the local table, a token means Discord as before."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import aiohttp

from bot.sandbox.server import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD"))}
    return env | {"PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1"}


async def test_no_token_opens_the_local_table_with_the_real_bot(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "auto", env=clean_env() | {"AI_WORKERS": "0"}, cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    try:
        lines = []
        while not any("ready at" in line for line in lines):
            line = (await asyncio.wait_for(process.stdout.readline(), timeout=90)).decode()
            assert line, f"the table ended early: {lines}"
            lines.append(line)
        assert "no DISCORD_TOKEN" in lines[0]
        found = re.search(r"Local table ready at (http://127\.0\.0\.1:\d+) ", lines[-1])
        assert found, lines
        async with aiohttp.ClientSession() as http:
            async with http.get(found.group(1) + "/api/state") as answer:
                state = await answer.json()
            async with http.get(found.group(1) + "/") as page:
                html = await page.text()
        assert state["ready"] is True
        assert [m["name"] for m in state["members"]] == ["alice", "bob", "carol"]
        assert ["veletas", "challenge"] in [c["path"] for c in state["commands"]], "the bot synced its own commands"
        assert "/static/app.js" in html and "http" not in html.replace("http-equiv", ""), "nothing from elsewhere"
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=30)
    assert code == 0
    database = tmp_path / "data" / "local.sqlite3"
    assert database.exists(), "the bot's database is data/local.sqlite3"
    assert not Path(f"{database}-wal").exists(), "the bot process was stopped cleanly, its store closed"


async def test_a_token_means_discord_as_before(sandbox: FakeDiscord, tmp_path: Path) -> None:
    env = clean_env() | {
        "DISCORD_TOKEN": sandbox.token,
        "DISCORD_API_BASE": sandbox.api_base,
        "DISCORD_GATEWAY_URL": sandbox.gateway_url,
        "DATABASE_PATH": str(tmp_path / "veletas.sqlite3"),
        "AI_WORKERS": "0",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "auto", env=env, cwd=tmp_path, stdout=asyncio.subprocess.PIPE
    )
    try:
        await sandbox.wait_until(
            lambda: sandbox.commands() and sandbox.gateway.current is not None, timeout=60, what="the bot to connect"
        )
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = await asyncio.wait_for(process.communicate(), timeout=30)
    assert process.returncode == 0
    assert b"local table" not in out
    assert (tmp_path / "veletas.sqlite3").exists() and not (tmp_path / "data").exists()
