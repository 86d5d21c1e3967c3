"""Tests marked ``serial`` run alone under pytest-xdist: no other worker runs a test meanwhile.

Such a test times itself against a limit (a hard cap on the AI's thinking, a cost per call), so another test on
the same cores would decide its outcome. ``tests/conftest.py`` wraps every test in ``alone_if_serial``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def _flock(path: Path, mode: int) -> Iterator[None]:
    with open(path, "a+b") as file:
        fcntl.flock(file, mode)
        try:
            yield
        finally:
            fcntl.flock(file, fcntl.LOCK_UN)


@contextlib.contextmanager
def alone_if_serial(item: pytest.Item) -> Iterator[None]:
    """Under pytest-xdist: a ``serial`` test holds the run's lock exclusively, every other test holds it shared.

    A second lock, the turnstile, gives a waiting serial test precedence: it holds the turnstile while it waits, and
    every test passes through the turnstile before it takes its shared hold, so the other workers cannot keep the
    lock shared between them forever. The files live in the temporary directory, named after xdist's run id.
    """
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run:
        yield
        return
    folder = Path(tempfile.gettempdir())
    gate = folder / f"veletas-tests-{run}.gate"
    lock = folder / f"veletas-tests-{run}.lock"
    if item.get_closest_marker("serial"):
        with _flock(gate, fcntl.LOCK_EX), _flock(lock, fcntl.LOCK_EX):
            yield
        return
    with _flock(gate, fcntl.LOCK_SH):
        pass
    with _flock(lock, fcntl.LOCK_SH):
        yield
