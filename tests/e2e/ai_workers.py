"""Misbehaving AI workers for the pool tests; top-level so that spawned worker processes can import them.

Each misbehaves once, while the marker file named by VELETAS_AI_MARKER does not exist yet, then
thinks normally: the pool must get past the bad worker and still answer.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from bot.ai.review import Evaluation
from cogs._ai_pool import think


def _first_time() -> bool:
    marker = Path(os.environ["VELETAS_AI_MARKER"])
    if marker.exists():
        return False
    marker.touch()
    return True


Args = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...], int]


def crashes_once(*args: *Args) -> str:
    if _first_time():
        os._exit(3)
    return think(*args)


def hangs_once(*args: *Args) -> str:
    if _first_time():
        time.sleep(3600)
    return think(*args)


def hangs_once_at_level_1(*args: *Args) -> str:
    """Hangs the first level-1 search only: searches at other levels (other games) run normally."""
    if args[-1] == 1 and _first_time():
        time.sleep(3600)
    return think(*args)


def answers_at_once(*args: *Args) -> str:
    """A turn found at once: what matters to the review tests is when it is served, not what it is."""
    return "pass"


def slow_evaluation(
    game: str, turns: tuple[str, ...], settings: tuple[tuple[str, str], ...], seconds: float, seed: int | None
) -> Evaluation:
    """A review's position judged in a fixed 0.2 s, whatever the position."""
    time.sleep(0.2)
    return Evaluation(0.5, None)
