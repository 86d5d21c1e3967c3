"""Shared test configuration: the fake Discord's fixtures, and hypothesis without per-example deadlines.

Deadlines are off because the machine running the suite is shared; speed is measured by the
benchmarks, not asserted by the tests.
"""

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

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
