"""A token Discord refuses stops the real ``python -m bot`` with one clear line, whichever door refuses it."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from bot.__main__ import REJECTED_TOKEN
from bot.sandbox.server import FakeDiscord

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
