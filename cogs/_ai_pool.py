"""The AI opponent's machinery, free of discord.py: the worker functions and the scheduler that runs them.

Kept apart from the extension so a worker process imports only the rules and the AI, not
discord.py: workers start faster and hold less memory. Arguments and results are strings,
numbers and small frozen records of them, which pickle cheaply and cannot drag a live object
into another process.

Searches are CPU-bound for up to several seconds, so they run in worker processes and the event
loop only awaits the answers. The scheduler in front of the workers keeps four promises:

- **The AI's own turns come first.** A game waits for them, so they jump every queued analysis.
  Analyses wait in a bounded queue, at most ``per_member`` in flight for one member and
  ``analysis_queue`` in all; past that ``reserve`` refuses at once instead of piling up work.
- **A deadline times the search, not the wait.** The clock starts when a worker takes the job
  (it says so), so a turn queued behind busy workers can never time out for being queued.
- **A stuck or crashed worker is replaced alone.** Every worker is its own process with its own
  pipe: killing one never touches another game's search. The job is then asked again.
- **Memory stays bounded.** After each job a worker reports its resident memory; past
  ``max_rss_mb`` (or after ``max_jobs`` jobs) it is retired and a fresh one takes its place.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from bot.ai import choose_turn, level_of
from bot.ai.review import POSITION_SECONDS, Evaluation, evaluate_position
from bot.ai.veletas import ANALYSIS_LEVEL, analyze
from bot.lifeline import die_with_parent, spared_ctrl_c
from bot.puzzles.mine import mine_finished, play_and_mine
from bot.puzzles.values import Puzzle
from bot.rules.analysis import read_position
from bot.rules.protocol import GameState
from bot.rules.registry import find_game

T = TypeVar("T")

log = logging.getLogger(__name__)


def think(game: str, turns: tuple[str, ...], settings: tuple[tuple[str, str], ...], level: int) -> str:
    """The AI's turn for the game these turns lead to, in any hosted game (a setup, ``keep``/``swap``, a move)."""
    return choose_turn(find_game(game).replay(turns, dict(settings)), level)


@dataclass(frozen=True)
class Verdict:
    """What the level-4 search thinks of a position, in values that cross a process boundary."""

    black: float  # Black's estimated chance of winning, 0 to 1
    best_move: str | None  # None only when the position is over
    to_move: str
    proven: str | None  # the colour that wins by force, when the search proved it
    iterations: int


def study(position: str, rules: str) -> Verdict:
    """Analyse a NOTATION.md position string as the level-4 player would search it (the games' boards only)."""
    found = analyze(read_position(position, rules))
    best = str(found.best_move) if found.best_move is not None else None
    return Verdict(found.black, best, found.to_move, found.proven, found.iterations)


class AnalysisRefused(Exception):
    """No room for another analysis: ``reason`` says whose limit (``member`` or ``full``), ``limit`` how many."""

    def __init__(self, reason: Literal["member", "full"], limit: int) -> None:
        super().__init__(f"analysis refused ({reason}, limit {limit})")
        self.reason: Literal["member", "full"] = reason
        self.limit = limit


@runtime_checkable
class Analyst(Protocol):
    """An AI that can also judge a position (``/veletas analyze``), keeping the search off the event loop."""

    def reserve(self, member: int) -> contextlib.AbstractContextManager[None]: ...

    async def analyze(self, position: str, rules: str) -> Verdict: ...


@runtime_checkable
class Refuter(Protocol):
    """An AI that can find the best answer in one position (a puzzle's refutation) as an analysis, not a turn."""

    def reserve(self, member: int) -> contextlib.AbstractContextManager[None]: ...

    async def best_turn(
        self, game: str, turns: tuple[str, ...], settings: tuple[tuple[str, str], ...]
    ) -> str | None: ...


@runtime_checkable
class Reviewer(Protocol):
    """An AI that can also review a finished game, one position a job, behind the AI's own turns."""

    def reserve(self, member: int) -> contextlib.AbstractContextManager[None]: ...

    async def review_positions(
        self, game: str, turns: tuple[str, ...], settings: tuple[tuple[str, str], ...]
    ) -> list[Evaluation]: ...


# Beyond the level's own hard cap: pickling, scheduling, a busy machine.
GRACE_SECONDS = 10.0
ATTEMPTS = 2
# A worker that has not even taken its job after this long (stuck starting up) is replaced.
START_SECONDS = 120.0
DEFAULT_ANALYSIS_QUEUE = 8
ANALYSES_PER_MEMBER = 1
DEFAULT_MAX_RSS_MB = 400
DEFAULT_MAX_JOBS = 1000

TURN, ANALYSIS = 0, 1
MINING = 2
"""Puzzle mining (bot/puzzle_mining.py): behind every AI turn and every analysis or review."""

Worker = Callable[[str, tuple[str, ...], tuple[tuple[str, str], ...], int], str]
Study = Callable[[str, str], Verdict]
Evaluate = Callable[[str, tuple[str, ...], tuple[tuple[str, str], ...], float, int | None], Evaluation]


def _resident_bytes() -> int:
    """This process's resident memory from /proc (Linux); 0 where there is no /proc, so nothing is recycled."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _serve(conn: multiprocessing.connection.Connection, parent: int) -> None:
    """A worker process: take a job, say it started, answer with the result (or error) and the memory in use."""
    # It dies with the bot (``parent``), even one killed with SIGKILL, which cannot stop its workers itself.
    die_with_parent(parent)
    # Ctrl-C in a terminal reaches the whole process group: the bot decides when workers stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        function, args = job
        conn.send(("start", None, 0))
        try:
            answer: tuple[str, Any, int] = ("ok", function(*args), 0)
        except Exception as exc:
            answer = ("error", exc, 0)
        try:
            conn.send((answer[0], answer[1], _resident_bytes()))
        except Exception as exc:  # an unpicklable result or error: say what it was instead
            conn.send(("error", RuntimeError(f"unpicklable answer: {exc!r}"), _resident_bytes()))


class _Process:
    """One worker process and the parent's end of its pipe."""

    def __init__(self) -> None:
        # spawn, not fork: forking a process that runs an event loop and threads is unsafe.
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        # Started from the event loop's thread, which lives as long as the bot (the parent-death signal is
        # tied to the thread that starts the process).
        self.process: BaseProcess = context.Process(
            target=_serve, args=(child, os.getpid()), name="veletas-ai", daemon=True
        )
        with spared_ctrl_c():
            self.process.start()
        child.close()
        self.jobs = 0

    @property
    def pid(self) -> int | None:
        return self.process.pid

    async def receive(self, timeout: float) -> tuple[str, Any, int]:
        """The worker's next message; TimeoutError after ``timeout`` s, EOFError if the worker died."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        fd = self.conn.fileno()

        def readable() -> None:
            if not ready.done():
                ready.set_result(None)

        loop.add_reader(fd, readable)
        try:
            await asyncio.wait_for(ready, timeout)
        finally:
            loop.remove_reader(fd)
        message: tuple[str, Any, int] = self.conn.recv()
        return message

    def kill(self) -> None:
        """Stop the process at once (a stuck search never returns by itself)."""
        with contextlib.suppress(OSError):
            self.conn.close()
        if self.process.is_alive():
            self.process.kill()

    def retire(self) -> None:
        """Ask the process to leave after its job, killing it if it does not."""
        with contextlib.suppress(OSError):
            self.conn.send(None)
        self.process.join(5)
        self.kill()
        self.process.join(5)


@dataclass
class _Job:
    function: Callable[..., Any]
    args: tuple[Any, ...]
    level: int
    what: str
    priority: int
    order: int
    future: asyncio.Future[Any]
    attempts: int = 0
    started: list[int] = field(default_factory=list)  # the pids that took it, for the logs


class PooledAi:
    """An ``AiOpponent`` (and ``Analyst``) whose searches run in ``workers`` separate processes."""

    def __init__(
        self,
        workers: int,
        *,
        worker: Worker = think,
        study: Study = study,
        evaluate: Evaluate = evaluate_position,
        review_seconds: float = POSITION_SECONDS,
        grace: float = GRACE_SECONDS,
        analysis_queue: int = DEFAULT_ANALYSIS_QUEUE,
        per_member: int = ANALYSES_PER_MEMBER,
        max_rss_mb: float = DEFAULT_MAX_RSS_MB,
        max_jobs: int = DEFAULT_MAX_JOBS,
    ) -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.workers = workers
        self.worker = worker
        self.study = study
        self.evaluate = evaluate
        self.review_seconds = review_seconds
        self.grace = grace
        self.analysis_queue = analysis_queue
        self.per_member = per_member
        self.max_rss = max_rss_mb * 1024 * 1024
        self.max_jobs = max_jobs
        self.replaced = 0  # workers killed because they hung or crashed
        self.recycled = 0  # workers retired because of their memory or job count
        self.pids: list[int] = []  # every worker process started, in order (for tests and logs)
        self._queue: asyncio.PriorityQueue[tuple[int, int, _Job]] | None = None
        self._slots: list[asyncio.Task[None]] = []
        self._processes: set[_Process] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._order = itertools.count()
        self._in_flight: dict[int, int] = {}
        self._busy = 0  # workers running a job now
        self._closed = False

    # -- what the bot asks ---------------------------------------------------------------------------

    async def choose_turn(self, game: GameState, level: int) -> str:
        args = (game.kind.name, game.turns, tuple(sorted(game.settings.items())), level)
        result: str = await self._run(self.worker, args, level, what="turn", priority=TURN)
        return result

    @contextlib.contextmanager
    def reserve(self, member: int) -> Iterator[None]:
        """Hold a place for one analysis by ``member``, or raise AnalysisRefused at once when there is none."""
        mine = self._in_flight.get(member, 0)
        if mine >= self.per_member:
            raise AnalysisRefused("member", self.per_member)
        if sum(self._in_flight.values()) >= self.analysis_queue:
            raise AnalysisRefused("full", self.analysis_queue)
        self._in_flight[member] = mine + 1
        try:
            yield
        finally:
            left = self._in_flight[member] - 1
            if left:
                self._in_flight[member] = left
            else:
                del self._in_flight[member]

    async def analyze(self, position: str, rules: str) -> Verdict:
        """The level-4 verdict on a position; a faulty position raises ValueError (the rules' words)."""
        result: Verdict = await self._run(
            self.study, (position, rules), ANALYSIS_LEVEL, what="analysis", priority=ANALYSIS
        )
        return result

    async def review_positions(
        self, game: str, turns: tuple[str, ...], settings: tuple[tuple[str, str], ...]
    ) -> list[Evaluation]:
        """The evaluation of every position of a game (``len(turns) + 1``), each a job of the analysis class.

        At most as many positions are queued at once as there are workers, so a review never holds more than
        one position per worker, and an AI turn asked meanwhile is the next job a worker takes.
        """
        found: list[Evaluation] = []
        for start in range(0, len(turns) + 1, self.workers):
            batch = [
                self._run(
                    self.evaluate,
                    (game, turns[:n], settings, self.review_seconds, None),
                    ANALYSIS_LEVEL,
                    what="review",
                    priority=ANALYSIS,
                )
                for n in range(start, min(start + self.workers, len(turns) + 1))
            ]
            found += await asyncio.gather(*batch)
        return found

    async def best_turn(self, game: str, turns: tuple[str, ...], settings: tuple[tuple[str, str], ...]) -> str | None:
        """The search's best move in the position these turns lead to (a puzzle's refutation): one job of the
        analysis class, behind the AI's own turns, searched as long as a reviewed position."""
        found: Evaluation = await self._run(
            self.evaluate,
            (game, turns, settings, self.review_seconds, None),
            ANALYSIS_LEVEL,
            what="refutation",
            priority=ANALYSIS,
        )
        return found.best

    def idle(self) -> bool:
        """Whether no worker is busy and nothing waits: the only moment the puzzle miner starts a job."""
        return self._busy == 0 and (self._queue is None or self._queue.empty())

    async def mine_game(
        self,
        game: str,
        settings: tuple[tuple[str, str], ...],
        turns: tuple[str, ...],
        status: str,
        game_id: int,
        guild_id: int,
        seconds: float,
    ) -> list[Puzzle]:
        """A finished game's puzzles (``bot.puzzles.mine.mine_finished``), at the lowest priority."""
        result: list[Puzzle] = await self._run(
            mine_finished,
            (game, settings, turns, status, game_id, guild_id, seconds),
            ANALYSIS_LEVEL,
            what="puzzle mining",
            priority=MINING,
        )
        return result

    async def mine_self_play(
        self, game: str, settings: tuple[tuple[str, str], ...], seed: int, seconds: float
    ) -> list[Puzzle]:
        """A self-play game played and searched for puzzles (``bot.puzzles.mine.play_and_mine``), lowest priority."""
        result: list[Puzzle] = await self._run(
            play_and_mine, (game, settings, seed, seconds), ANALYSIS_LEVEL, what="puzzle mining", priority=MINING
        )
        return result

    # -- the scheduler ---------------------------------------------------------------------------------

    async def _run(
        self, function: Callable[..., T], args: tuple[Any, ...], level: int, *, what: str, priority: int
    ) -> T:
        if self._closed:
            raise RuntimeError("the AI has been closed")
        queue = self._start()
        job = _Job(function, args, level, what, priority, next(self._order), asyncio.get_running_loop().create_future())
        queue.put_nowait((priority, job.order, job))
        result: T = await job.future
        return result

    def _start(self) -> asyncio.PriorityQueue[tuple[int, int, _Job]]:
        if self._queue is None:
            self._loop = asyncio.get_running_loop()
            self._queue = asyncio.PriorityQueue()
            self._slots = [
                asyncio.create_task(self._slot(self._queue), name=f"ai-worker-slot-{n}") for n in range(self.workers)
            ]
        return self._queue

    async def _slot(self, queue: asyncio.PriorityQueue[tuple[int, int, _Job]]) -> None:
        """One worker's life: take the most urgent job, run it, replace or recycle the process as needed."""
        process: _Process | None = None
        try:
            while True:
                _, _, job = await queue.get()
                if job.future.done():
                    continue  # its caller stopped waiting
                if process is None:
                    process = self._spawn()
                self._busy += 1
                try:
                    process = await self._serve(process, job, queue)
                finally:
                    self._busy -= 1
        finally:
            if process is not None:
                self._processes.discard(process)
                process.kill()

    def _spawn(self) -> _Process:
        process = _Process()
        self._processes.add(process)
        if process.pid is not None:
            self.pids.append(process.pid)
        return process

    async def _serve(
        self, process: _Process, job: _Job, queue: asyncio.PriorityQueue[tuple[int, int, _Job]]
    ) -> _Process | None:
        """Run ``job`` on ``process``; the process to keep for the next job (None: start a new one)."""
        job.attempts += 1
        deadline = level_of(job.level).cap + self.grace
        try:
            process.conn.send((job.function, job.args))
            kind, value, _ = await process.receive(START_SECONDS)
            # The clock starts now: the worker took the job, so only the search itself is timed.
            if process.pid is not None:
                job.started.append(process.pid)
            kind, value, resident = await process.receive(deadline)
        except TimeoutError:
            log.warning(
                "AI worker %s silent for %.0f s (%s at level %d, attempt %d); replacing that worker",
                process.pid,
                deadline,
                job.what,
                job.level,
                job.attempts,
            )
            await self._replace(process, job, queue)
            return None
        except (EOFError, OSError):
            log.warning(
                "AI worker %s died (%s at level %d, attempt %d)", process.pid, job.what, job.level, job.attempts
            )
            await self._replace(process, job, queue)
            return None
        if not job.future.done():
            if kind == "ok":
                job.future.set_result(value)
            else:
                job.future.set_exception(value)
        process.jobs += 1
        if resident > self.max_rss or process.jobs >= self.max_jobs:
            log.info("Recycling AI worker %s after %d job(s) at %.0f MB", process.pid, process.jobs, resident / 2**20)
            self.recycled += 1
            self._processes.discard(process)
            await asyncio.to_thread(process.retire)
            return None
        return process

    async def _replace(self, process: _Process, job: _Job, queue: asyncio.PriorityQueue[tuple[int, int, _Job]]) -> None:
        """Kill this one worker (no other), then ask the job again at the head of its class, or give up."""
        self.replaced += 1
        self._processes.discard(process)
        process.kill()
        await asyncio.to_thread(process.process.join, 5)
        if job.future.done():
            return
        if job.attempts < ATTEMPTS:
            queue.put_nowait((job.priority, job.order, job))
        else:
            job.future.set_exception(RuntimeError(f"the AI found no {job.what} in {ATTEMPTS} attempts"))

    def close(self) -> None:
        """Stop every worker; callers still waiting get an error. Safe to call from any thread, more than once."""
        self._closed = True
        for process in list(self._processes):
            process.kill()
        for process in list(self._processes):
            process.process.join(5)
        self._processes.clear()
        loop, slots = self._loop, self._slots
        self._slots = []
        if loop is not None and not loop.is_closed():
            for task in slots:
                loop.call_soon_threadsafe(task.cancel)
            queue = self._queue
            if queue is not None:
                loop.call_soon_threadsafe(_fail_waiting, queue)


def _fail_waiting(queue: asyncio.PriorityQueue[tuple[int, int, _Job]]) -> None:
    while not queue.empty():
        _, _, job = queue.get_nowait()
        if not job.future.done():
            job.future.set_exception(RuntimeError("the AI has been closed"))
