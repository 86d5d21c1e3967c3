"""A test marked ``serial`` runs while no other test does, even in two worker processes (``tests/serial_lock.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

# Each test says it runs, then looks for a second one running for half a second (the window two workers would
# overlap in), then says it stopped. Two workers start one test each at once unless the lock holds one back.
PROBE = """
import os, time
from pathlib import Path

import pytest

FOLDER = Path(os.environ["PROBE_DIR"])


def _alone(name: str) -> None:
    mine = FOLDER / name
    mine.touch()
    try:
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            others = sorted(p.name for p in FOLDER.iterdir() if p != mine)
            assert not others, f"{name} ran while {others} ran"
            time.sleep(0.02)
    finally:
        mine.unlink()


@pytest.mark.serial
def test_timed() -> None:
    _alone("timed")


def test_plain() -> None:
    _alone("plain")
"""


def _run(tmp_path: Path, marker: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_probe.py").write_text(PROBE.replace("pytest.mark.serial", marker))
    (tmp_path / "conftest.py").write_text(
        "import pytest\nfrom serial_lock import alone_if_serial\n\n\n"
        "@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_protocol(item, nextitem):\n"
        "    with alone_if_serial(item):\n"
        "        yield\n\n\n"
        "def pytest_configure(config):\n"
        '    config.addinivalue_line("markers", "serial: alone")\n'
        '    config.addinivalue_line("markers", "other: not serial")\n'
    )
    running = tmp_path / "running"
    running.mkdir()
    # The run's own xdist variables left out, and only xdist loaded (no other plugin to import three times).
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    env.update(PROBE_DIR=str(running), PYTHONPATH=str(HERE), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "xdist",
            "-n",
            "2",
            "--dist",
            "worksteal",
            "-p",
            "no:cacheprovider",
            "-q",
            str(tmp_path),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_a_serial_test_runs_alone_in_two_workers(tmp_path: Path) -> None:
    done = _run(tmp_path, "pytest.mark.serial")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


@pytest.mark.slow
def test_without_the_mark_the_two_workers_overlap(tmp_path: Path) -> None:
    """The probe itself sees two tests at once when nothing holds one back."""
    done = _run(tmp_path, "pytest.mark.other")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "ran while" in done.stdout
