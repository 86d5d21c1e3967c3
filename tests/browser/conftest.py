"""Fixtures for the browser tests: one local table process and one Chromium per module.

A missing Chromium fails these tests (it never skips them): ``scripts/test`` installs Debian's
package when it can, and says so in one line when it cannot.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from browser.driver import NoChromium, Player, TableProcess, chromium, chromium_path


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test here is ``slow``: it drives a real Chromium against a real local table process."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module")
def table() -> Iterator[TableProcess]:
    process = TableProcess()
    try:
        yield process
    finally:
        code = process.stop()
        assert code == 0, f"the local table exited with {code} on SIGTERM"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    try:
        chromium_path()
    except NoChromium as exc:
        pytest.fail(str(exc))
    with chromium() as launched:
        yield launched


@pytest.fixture
def player(table: TableProcess, browser: Browser) -> Iterator[Player]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    hands = Player(page, table.url)
    try:
        yield hands
    finally:
        context.close()
    assert not hands.errors, f"the page threw: {hands.errors}"
    assert not hands.foreign, f"the page reached beyond the table: {hands.foreign}"
