"""Shared test configuration: the fake Discord's fixtures, and hypothesis without per-example deadlines.

Deadlines are off because the machine running the suite is shared; speed is measured by the
benchmarks, not asserted by the tests.
"""

from hypothesis import HealthCheck, settings

pytest_plugins = ["sandbox_plugin", "store_fixtures", "pg_server"]

settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")
