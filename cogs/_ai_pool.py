"""The AI opponent's machinery, free of discord.py: the worker function and the process pool that runs it.

Kept apart from the extension so a worker process imports only the rules and the AI, not
discord.py: workers start faster and hold less memory. Arguments and results are strings and
ints, which pickle cheaply and cannot drag a live object into another process.

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

from bot.ai import choose_move, choose_pie, choose_setup, level_of
from bot.rules import Game

log = logging.getLogger(__name__)


def think(turns: tuple[str, ...], variant: str, rules: str, level: int) -> str:
    """The AI's turn for the game these turns lead to: a setup turn, ``keep``/``swap``, or a move."""
    game = Game.replay(turns, variant=variant, rules=rules)
    if game.phase == "setup":
        return choose_setup(game, level)
    if game.phase == "pie":
        return choose_pie(game, level)
    return str(choose_move(game.position, level))


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
        deadline = level_of(level).cap + self.grace
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return await asyncio.wait_for(self._ask(game, level), timeout=deadline)
            except TimeoutError:
                log.warning(
                    "AI worker silent for %.0f s (level %d, attempt %d); replacing it", deadline, level, attempt
                )
            self._replace()
        raise RuntimeError(f"the AI found no turn in {ATTEMPTS} attempts")

    async def _ask(self, game: Game, level: int) -> str:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str] = loop.create_future()

        def done(result: str) -> None:
            loop.call_soon_threadsafe(_settle, answer, result, None)

        def failed(error: BaseException) -> None:
            loop.call_soon_threadsafe(_settle, answer, None, error)

        self._get_pool().apply_async(
            self.worker,
            (game.turns, game.variant.name, game.rules, level),
            callback=done,
            error_callback=failed,
        )
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


def _settle(future: asyncio.Future[str], result: str | None, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        assert result is not None
        future.set_result(result)
