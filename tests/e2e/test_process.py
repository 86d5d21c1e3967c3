"""The real ``python -m bot`` process: it plays, stops cleanly on SIGTERM, and a refused token ends it in one line."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from bot.__main__ import REJECTED_TOKEN
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.processes import command_line, family, still_running

pytestmark = pytest.mark.slow  # the real bot process, started, killed and stopped

ROOT = Path(__file__).resolve().parents[2]


async def run_bot(fake: FakeDiscord, token: str, tmp_path: Path) -> tuple[int, list[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD"))}
    env |= {
        "PYTHONPATH": str(ROOT),
        "DISCORD_TOKEN": token,
        "DISCORD_API_BASE": fake.api_base,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "DATABASE_PATH": str(tmp_path / "veletas.sqlite3"),
        "LOG_LEVEL": "ERROR",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", env=env, cwd=tmp_path, stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, err.decode().strip().splitlines()


@pytest.mark.parametrize("door", ["rest", "gateway"])
async def test_rejected_token_exits_with_one_line(sandbox: FakeDiscord, tmp_path: Path, door: str) -> None:
    if door == "rest":
        token = "not-the-token"
    else:
        token = sandbox.token
        sandbox.gateway.revoke_token()
    code, lines = await run_bot(sandbox, token, tmp_path)
    sandbox.take_errors()
    assert code == 1
    assert lines == [REJECTED_TOKEN]


async def test_the_real_process_plays_and_stops_cleanly(
    sandbox: FakeDiscord, tmp_path: Path, alice: Member, bob: Member
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD"))}
    env |= {
        "PYTHONPATH": str(ROOT),
        "DISCORD_TOKEN": sandbox.token,
        "DISCORD_API_BASE": sandbox.api_base,
        "DISCORD_GATEWAY_URL": sandbox.gateway_url,
        "DATABASE_PATH": str(tmp_path / "data" / "veletas.sqlite3"),
        "LOG_LEVEL": "WARNING",
    }
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", env=env, cwd=tmp_path)
    try:
        await sandbox.wait_until(
            lambda: sandbox.commands() and sandbox.gateway.current is not None, timeout=60, what="the bot to connect"
        )
        challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, where="here")
        assert f"<@{bob.id}>" in challenge.content and [b["label"] for b in challenge.buttons] == ["Accept", "Decline"]
        # Once ready, the bot keeps the heartbeat file the container health check reads.
        heartbeat = tmp_path / "data" / "heartbeat"
        await sandbox.wait_until(heartbeat.exists, timeout=20, what="the heartbeat file")
        health = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", "health", env=env, cwd=tmp_path)
        assert await health.wait() == 0
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=30)
    assert code == 0, "SIGTERM (docker stop) closes the bot and its store cleanly"
    assert (tmp_path / "data" / "veletas.sqlite3").exists()
    assert not (tmp_path / "data" / "veletas.sqlite3-wal").exists(), "the store was closed, its log folded back"


async def test_the_real_process_plays_its_ai(sandbox: FakeDiscord, tmp_path: Path, alice: Member) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD"))}
    env |= {
        "PYTHONPATH": str(ROOT),
        "DISCORD_TOKEN": sandbox.token,
        "DISCORD_API_BASE": sandbox.api_base,
        "DISCORD_GATEWAY_URL": sandbox.gateway_url,
        "DATABASE_PATH": str(tmp_path / "veletas.sqlite3"),
        "LOG_LEVEL": "WARNING",
        "AI_WORKERS": "1",
    }
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", env=env, cwd=tmp_path)
    try:
        await sandbox.wait_until(
            lambda: sandbox.commands() and sandbox.gateway.current is not None, timeout=60, what="the bot to connect"
        )
        human = sandbox.user(alice)
        await human.slash("veletas", "challenge", opponent=sandbox.bot_member, variant="small", where="here", level=1)
        cursor = sandbox.cursor()
        await human.slash("veletas", "setup", shooters="d4", stone="a1")
        # The AI, in a worker process of the real bot, chooses colours and sets up until it is Alice's turn.
        board = await sandbox.wait_for_message(
            sandbox.channel_id,
            lambda m: m.interaction_id is None and f"<@{alice.id}>, your turn." in m.content,
            after=cursor,
            timeout=60,
        )
        assert board.files["board.png"].startswith(b"\x89PNG")
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=30)
    assert code == 0


async def test_a_killed_bot_leaves_no_process_behind(sandbox: FakeDiscord, tmp_path: Path, alice: Member) -> None:
    """SIGKILL gives the bot no chance to stop its workers: they (and multiprocessing's resource tracker) go anyway."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD"))}
    env |= {
        "PYTHONPATH": str(ROOT),
        "DISCORD_TOKEN": sandbox.token,
        "DISCORD_API_BASE": sandbox.api_base,
        "DISCORD_GATEWAY_URL": sandbox.gateway_url,
        "DATABASE_PATH": str(tmp_path / "veletas.sqlite3"),
        "LOG_LEVEL": "WARNING",
        "AI_WORKERS": "1",
        "DRAWING_WORKERS": "2",
    }
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", env=env, cwd=tmp_path)
    try:
        await sandbox.wait_until(
            lambda: sandbox.commands() and sandbox.gateway.current is not None, timeout=60, what="the bot to connect"
        )
        human = sandbox.user(alice)
        await human.slash("veletas", "challenge", opponent=sandbox.bot_member, variant="small", where="here", level=1)
        cursor = sandbox.cursor()
        await human.slash("veletas", "setup", shooters="d4", stone="a1")
        # The AI's turns came from its worker process and the boards from the drawing workers.
        await sandbox.wait_for_message(
            sandbox.channel_id,
            lambda m: m.interaction_id is None and f"<@{alice.id}>, your turn." in m.content,
            after=cursor,
            timeout=60,
        )
        # A process just forked shows its parent's command line until it runs its own: look until they settle.
        loop = asyncio.get_running_loop()
        settle = loop.time() + 10
        while True:
            workers = family(process.pid)
            lines = {pid: command_line(pid) for pid in workers}
            shape = [sum(kind in line for line in lines.values()) for kind in ("spawn_main", "resource_tracker")]
            if (shape == [3, 1] and len(lines) == 4) or loop.time() > settle:
                break
            await asyncio.sleep(0.05)  # polling the kernel's process table: there is nothing to await
        assert shape == [3, 1] and len(lines) == 4, f"2 drawing workers, 1 AI worker, the resource tracker: {lines}"
    finally:
        process.kill()
        await process.wait()
    deadline = loop.time() + 5
    while still_running(workers) and loop.time() < deadline:
        await asyncio.sleep(0.05)  # polling the kernel's process table: there is nothing to await
    left = {pid: lines[pid] for pid in still_running(workers)}
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == {}, "these outlived the killed bot"
