"""The README's run command as a newcomer meets it: a fresh clone, a fresh virtual environment, no token.

``scripts/run`` installs the product without the dev extra, so anything the product imports that only the
dev extra brings (or anything it reads from ``tests/``) ends the newcomer's first command in a traceback,
which no other test can see: they all run in the dev environment, from the repository itself.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

ROOT = Path(__file__).resolve().parents[1]


def fresh_clone(target: Path) -> Path:
    """The repository's files as a clone has them: tracked (and new, not ignored) files, no .venv, .env or data."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if not source.is_file():  # removed in the work tree, not yet in the index
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name)
    return target


def newcomer_env(venv: Path) -> dict[str, str]:
    """The environment of a shell with no token and no virtual environment active."""
    dropped = ("DISCORD_", "DATABASE_", "DEV_GUILD", "VIRTUAL_ENV", "PYTHON", "VELETAS_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    path = env.get("PATH", "").split(os.pathsep)
    env["PATH"] = os.pathsep.join(p for p in path if Path(sys.prefix) not in Path(p).parents)  # not the dev venv
    return env | {"VELETAS_VENV": str(venv), "PYTHONUNBUFFERED": "1"}


def family_alive(session: int) -> list[int]:
    """Processes still running (not zombies) in the session the run command started."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[3]) == session and fields[0] != "Z":  # fields: state, ppid, pgrp, session
            alive.append(int(entry.name))
    return alive


@pytest.mark.slow
@pytest.mark.timeout(900)
async def test_scripts_run_without_a_token_serves_the_local_table_from_a_fresh_environment(tmp_path: Path) -> None:
    clone = fresh_clone(tmp_path / "clone")
    venv = tmp_path / "venv"
    process = await asyncio.create_subprocess_exec(
        "bash", str(clone / "scripts" / "run"),
        cwd=clone, env=newcomer_env(venv), start_new_session=True,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    assert process.stdout is not None
    lines: list[str] = []
    try:
        while not any("ready at" in line for line in lines):
            line = (await asyncio.wait_for(process.stdout.readline(), timeout=600)).decode()
            assert line, "scripts/run ended before the table was ready:\n" + "".join(lines)
            lines.append(line)
        found = re.search(r"Local table ready at (http://127\.0\.0\.1:\d+) ", lines[-1])
        assert found, lines
        address = found.group(1)
        assert (venv / "bin" / "python").exists(), "scripts/run installed into VELETAS_VENV"
        installed = subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
            capture_output=True, text=True, check=True,
        ).stdout.lower()  # fmt: skip
        assert "pytest" not in installed and "playwright" not in installed, "installed without the dev extra"
        async with aiohttp.ClientSession() as http:
            async with http.get(address + "/") as page:
                assert page.status == 200
                html = await page.text()
            async with http.get(address + "/static/app.js") as script:
                assert script.status == 200
                assert "/api/state" in await script.text()
            async with http.get(address + "/api/state") as answer:
                assert answer.status == 200
                state = await answer.json()
        assert "/static/app.js" in html
        assert state["ready"] is True
        assert [m["name"] for m in state["members"]] == ["alice", "bob", "carol"]
        assert ["veletas", "challenge"] in [c["path"] for c in state["commands"]], "the bot synced its commands"
    finally:
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGINT)  # Ctrl+C: the terminal signals the whole foreground group
        rest, _ = await asyncio.wait_for(process.communicate(), timeout=60)
        lines.append(rest.decode())
        # A failed start must not leave a table behind.
        for pid in family_alive(process.pid):
            os.kill(pid, signal.SIGKILL)
    output = "".join(lines)
    assert process.returncode == 0, output
    assert "Traceback" not in output, output
    assert (clone / "data" / "local.sqlite3").exists()
    assert not Path(f"{clone / 'data' / 'local.sqlite3'}-wal").exists(), "the bot was stopped cleanly"
    assert family_alive(process.pid) == [], "Ctrl+C stopped every process the run command started"
