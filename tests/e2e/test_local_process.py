"""The run command's two doors: no token opens the local table, a token means Discord as before."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import aiohttp
import pytest

from bot.sandbox.server import FakeDiscord
from e2e.processes import command_line, family, still_running

pytestmark = pytest.mark.slow  # the real run command's processes, started and killed

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
        # The real table refuses another site's request and a rebound name (tests/e2e/test_local_page.py has the rest).
        async with aiohttp.ClientSession() as http:
            forged = {"Content-Type": "text/plain", "Origin": "http://evil.example"}
            async with http.post(found.group(1) + "/api/act", data=b'{"action": "say"}', headers=forged) as answer:
                assert answer.status == 403
            async with http.get(found.group(1) + "/api/state", headers={"Host": "evil.example"}) as answer:
                assert answer.status == 421
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


async def test_a_killed_table_takes_its_bot_and_workers_along(tmp_path: Path) -> None:
    """The table's bot is its child: killed with SIGKILL, the table cannot stop it, so it must go by itself."""
    env = clean_env() | {"AI_WORKERS": "1", "DRAWING_WORKERS": "1"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "local", "--port", "0", env=env, cwd=tmp_path, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    loop = asyncio.get_running_loop()
    members: dict[int, int] = {}
    lines: dict[int, str] = {}
    try:
        line = ""
        while "ready at" not in line:
            line = (await asyncio.wait_for(process.stdout.readline(), timeout=90)).decode()
            assert line, "the table ended early"
        # A process just forked shows its parent's command line until it runs its own: look until they settle.
        settle = loop.time() + 10
        while True:
            members = family(process.pid)
            lines = {pid: command_line(pid) for pid in members}
            bots = [pid for pid, text in lines.items() if text.rstrip().endswith("-m bot")]
            if (len(bots) == 1 and any("resource_tracker" in t for t in lines.values())) or loop.time() > settle:
                break
            await asyncio.sleep(0.05)  # polling the kernel's process table: there is nothing to await
        assert len(bots) == 1 and any("spawn_main" in t for t in lines.values()), lines
    finally:
        process.kill()
        # Not process.wait() first: asyncio reports the exit only once the stdout pipe closes, and a bot left
        # behind holds it open.
        deadline = loop.time() + 5
        while still_running(members) and loop.time() < deadline:
            await asyncio.sleep(0.05)  # polling the kernel's process table: there is nothing to await
        left = {pid: lines[pid] for pid in still_running(members)}
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        await asyncio.wait_for(process.wait(), timeout=10)
    assert left == {}, "these outlived the killed table"
