"""How long a player may think: an iteration count when seeded, the clock otherwise, and always a hard cap.

A seeded search must play the same move on any machine under any load, so with a seed only
the iteration count decides when to stop; the clock then only guards the hard cap. Without
a seed the player simply uses its time, which makes it stronger on a faster machine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

MEDIUM = 9


@dataclass(frozen=True)
class Level:
    """One playing level: its thinking time, the iterations that stand for it under a seed, its hard cap."""

    number: int
    seconds: float
    iterations: int
    cap: float


class Budget:
    """A stop condition checked once per iteration."""

    __slots__ = ("deadline", "iterations", "start")

    def __init__(self, iterations: int, seconds: float) -> None:
        self.start = time.perf_counter()
        self.iterations = iterations
        self.deadline = self.start + seconds

    @classmethod
    def for_level(
        cls,
        level: Level,
        *,
        seeded: bool,
        time_limit: float | None,
        size: int = MEDIUM,
        reference: int = MEDIUM,
        power: float = 1.5,
    ) -> Budget:
        """The budget of one decision on a ``size`` board.

        Iteration counts are set for the ``reference`` board (Veletas's medium board by default);
        an iteration costs more on a bigger board (more moves per node, longer playouts), so the
        count shrinks with the square count, to the given ``power``, to keep the thinking time
        near the level's seconds.
        """
        cap = level.cap if time_limit is None else time_limit
        if seeded:
            scale = (reference * reference / (size * size)) ** power
            return cls(max(1, round(level.iterations * scale)), cap)
        return cls(1 << 62, min(level.seconds, cap))

    def spent(self, done: int) -> bool:
        return done >= self.iterations or time.perf_counter() >= self.deadline

    def remaining(self) -> float:
        return self.deadline - time.perf_counter()
