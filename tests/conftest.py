"""Shared test configuration: the fake Discord's fixtures, hypothesis without per-example deadlines, and a
watchdog that ends a run stuck in one test.

Deadlines are off because the machine running the suite is shared; speed is measured by the
benchmarks, not asserted by the tests.

pytest-timeout fails a test that runs past its limit by raising in it; a test stuck where that cannot
reach (a teardown waiting on a thread that never ends, after the one timeout has fired) would hold the
run until CI gives up, with nothing said. The watchdog gives each test its timeout and two minutes more,
then writes every thread's stack to the terminal and ends the process (under pytest-xdist: the worker's, and
xdist reports the worker lost with the test it was running).

In worker processes (pytest-xdist, as ``scripts/test`` runs the suite) a test marked ``serial`` runs alone: no
other worker runs a test meanwhile. Those tests time themselves against a limit (a hard cap on the AI's
thinking, a cost per call), so another test on the same cores would decide their outcome.
"""

import faulthandler
import os
from collections.abc import Generator, Iterator

import pytest
from hypothesis import HealthCheck, settings
from serial_lock import alone_if_serial

from bot.render import text

pytest_plugins = ["sandbox_plugin", "store_fixtures", "pg_server"]


settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


@pytest.fixture
def without_system_fonts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No system fonts (Noto) found: images drawn with the bundled DejaVu alone, as on a bare machine."""
    monkeypatch.setattr(text, "FONT_SEARCH", ())
    text.reset_fonts()
    yield
    monkeypatch.undo()
    text.reset_fonts()


WATCHDOG_GRACE = 120.0
_watchdog_fd: int | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _watchdog_fd
    _watchdog_fd = os.dup(2)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    marker = item.get_closest_marker("timeout")
    limit = float(marker.args[0]) if marker and marker.args else float(item.config.getini("timeout") or 300)
    with alone_if_serial(item):
        if _watchdog_fd is not None:
            faulthandler.dump_traceback_later(limit + WATCHDOG_GRACE, exit=True, file=_watchdog_fd)
        try:
            yield
        finally:
            faulthandler.cancel_dump_traceback_later()
