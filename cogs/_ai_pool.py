"""The AI opponent's machinery, free of discord.py: the worker function and the process pool that runs it.

Kept apart from the extension so a worker process imports only the rules and the AI, not
discord.py: workers start faster and hold less memory. Arguments and results are strings,
numbers and small frozen records of them, which pickle cheaply and cannot drag a live object
into another process.

The search is CPU-bound for up to a few seconds a turn, so it runs in worker processes and the
event loop only awaits the answer. A worker that crashes or runs past the level's hard cap is
killed, the pool is rebuilt, and the turn is asked again, so one bad search never stalls a game.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.pool
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from bot.ai import ANALYSIS_LEVEL, analyze, choose_move, choose_pie, choose_setup, level_of
from bot.rules import Game, Position

T = TypeVar("T")

log = logging.getLogger(__name__)


def think(turns: tuple[str, ...], variant: str, rules: str, level: int) -> str:
    """The AI's turn for the game these turns lead to: a setup turn, ``keep``/``swap``, or a move."""
    game = Game.replay(turns, variant=variant, rules=rules)
    if game.phase == "setup":
        return choose_setup(game, level)
    if game.phase == "pie":
        return choose_pie(game, level)
    return str(choose_move(game.position, level))


@dataclass(frozen=True)
class Verdict:
    """What the level-4 search thinks of a position, in values that cross a process boundary."""

    black: float  # Black's estimated chance of winning, 0 to 1
    best_move: str | None  # None only when the position is over
    to_move: str
    proven: str | None  # the colour that wins by force, when the search proved it
    iterations: int


def study(position: str, rules: str) -> Verdict:
    """Analyse a NOTATION.md position string as the level-4 player would search it."""
    found = analyze(Position.from_string(position, rules))
    best = str(found.best_move) if found.best_move is not None else None
    return Verdict(found.black, best, found.to_move, found.proven, found.iterations)


@runtime_checkable
class Analyst(Protocol):
    """An AI that can also judge a position (``/veletas analyze``), keeping the search off the event loop."""

    async def analyze(self, position: str, rules: str) -> Verdict: ...


# Beyond the level's own hard cap: process start-up on a busy machine, pickling, scheduling.
GRACE_SECONDS = 10.0
ATTEMPTS = 2

Worker = Callable[[tuple[str, ...], str, str, int], str]


class PooledAi:
    """An ``AiOpponent`` whose searches run in ``workers`` separate processes."""

    def __init__(self, workers: int, *, worker: Worker = think, grace: float = GRACE_SECONDS) -> None:
        self.workers = workers
        self.worker = worker
        self.grace = grace
        self._pool: multiprocessing.pool.Pool | None = None
        self.replaced = 0

    def _get_pool(self) -> multiprocessing.pool.Pool:
        if self._pool is None:
            # spawn, not fork: forking a process that runs an event loop and threads is unsafe.
            self._pool = multiprocessing.get_context("spawn").Pool(processes=self.workers)
        return self._pool

    async def choose_turn(self, game: Game, level: int) -> str:
        args = (game.turns, game.variant.name, game.rules, level)
        return await self._run(self.worker, args, level, what="turn")

    async def analyze(self, position: str, rules: str) -> Verdict:
        """The level-4 verdict on a position; a faulty position raises ValueError (the rules' words)."""
        return await self._run(study, (position, rules), ANALYSIS_LEVEL, what="analysis")

    async def _run(self, function: Callable[..., T], args: tuple[Any, ...], level: int, *, what: str) -> T:
        deadline = level_of(level).cap + self.grace
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return await asyncio.wait_for(self._ask(function, args), timeout=deadline)
            except TimeoutError:
                log.warning(
                    "AI worker silent for %.0f s (%s at level %d, attempt %d); replacing it",
                    deadline,
                    what,
                    level,
                    attempt,
                )
            self._replace()
        raise RuntimeError(f"the AI found no {what} in {ATTEMPTS} attempts")

    async def _ask(self, function: Callable[..., T], args: tuple[Any, ...]) -> T:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[T] = loop.create_future()

        def done(result: T) -> None:
            loop.call_soon_threadsafe(_settle, answer, result, None)

        def failed(error: BaseException) -> None:
            loop.call_soon_threadsafe(_settle, answer, None, error)

        self._get_pool().apply_async(function, args, callback=done, error_callback=failed)
        return await answer

    def _replace(self) -> None:
        """Kill every worker (a stuck one never returns by itself); the next turn starts a fresh pool."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate()
            self.replaced += 1

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate()
            pool.join()


def _settle(future: asyncio.Future[T], result: T | None, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)  # type: ignore[arg-type]
