"""Several bot processes on one database (shard processes on PostgreSQL; on an SQLite file too): what must
happen once happens once, even when one of them is killed outright."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from dbtools import rows, write
from test_store_clocks import veloop_game

from bot.clocks import TimeControl
from bot.store import Store

ROOT = Path(__file__).resolve().parent.parent
WORKER = str(ROOT / "tests" / "proc_worker.py")


class Worker:
    """A worker process and a thread reading its output into a queue (no line is left in a pipe's buffer)."""

    def __init__(self, *args: object) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, WORKER, *map(str, args)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        first = self.next_line(60)
        assert first == "ready", f"a worker did not start: {first!r} {self.errors()}"

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.strip())

    def errors(self) -> str:
        if self.proc.poll() is None or self.proc.stderr is None:
            return ""
        return self.proc.stderr.read()

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def next_line(self, timeout: float) -> str:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return "silent"

    def lines_for(self, seconds: float) -> list[str]:
        """Everything printed in the next ``seconds``."""
        deadline = time.monotonic() + seconds
        out: list[str] = []
        while (left := deadline - time.monotonic()) > 0:
            try:
                out.append(self.lines.get(timeout=left))
            except queue.Empty:
                break
        return out

    def lines_until(self, done: Callable[[list[str]], bool], seconds: float) -> list[str]:
        """What it prints until ``done`` holds for the lines so far (or ``seconds`` have passed)."""
        deadline = time.monotonic() + seconds
        out: list[str] = []
        while not done(out) and (left := deadline - time.monotonic()) > 0:
            try:
                out.append(self.lines.get(timeout=left))
            except queue.Empty:
                break
        return out

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        self.proc.wait(timeout=30)


@pytest.mark.slow
async def test_two_processes_racing_moves_on_one_game_land_exactly_one_each_time(db_path: Path) -> None:
    store = await Store.open(db_path)
    info = await veloop_game(store, TimeControl.none())
    await store.close()
    workers = [Worker("race", db_path, info.id) for _ in range(2)]
    rounds = 25
    landed = refused = 0
    try:
        version = info.version
        for number in range(rounds):
            for worker in workers:  # both are told at once, for the same version of the game
                worker.send(f"go {version}")
            flat = [worker.next_line(30) for worker in workers]
            assert sorted(word.split()[0] for word in flat) == ["landed", "refused"], (number, flat)
            landed += 1
            refused += 1
            [ply] = [int(word.split()[1]) for word in flat if word.startswith("landed")]
            assert ply == number + 1
            version += 1
    finally:
        for worker in workers:
            worker.stop()
    assert (landed, refused) == (rounds, rounds)
    store = await Store.open(db_path)
    try:
        final = await store.get_game(info.id)
        assert final.ply == rounds and final.version == info.version + rounds
        assert [ply for ply, _, _ in await store.move_log(info.id)] == list(range(1, rounds + 1))
    finally:
        await store.close()


@pytest.mark.slow
async def test_games_of_one_player_ended_at_once_by_two_processes_rebuild_to_exactly_the_live_ratings(
    db_path: Path,
) -> None:
    """Two processes end games of one player at the same moment, one of them with a clock half a second slow (or
    one that read its clock before waiting for the write lock): the rebuild gives back exactly what they wrote."""
    from test_store import ALICE, CHANNEL
    from test_store_ratings import game, rating_tables

    store = await Store.open(db_path)
    games = [await game(store, ALICE, 400 + i, channel=CHANNEL + i) for i in range(16)]
    await store.close()
    workers = [
        Worker("resign", db_path, 0.0, *(g.id for g in games[0::2])),
        Worker("resign", db_path, 0.5, *(g.id for g in games[1::2])),
    ]
    try:
        for worker in workers:
            worker.send("go")
        assert [worker.next_line(60) for worker in workers] == ["done", "done"], [w.errors() for w in workers]
    finally:
        for worker in workers:
            worker.stop()
    live = rating_tables(db_path)
    assert len(live[1]) == 16 * 4
    store = await Store.open(db_path)
    try:
        assert await store.rebuild_ratings() == 16
    finally:
        await store.close()
    assert rating_tables(db_path) == live


@pytest.mark.slow
async def test_the_scheduler_fires_each_deadline_once_with_two_processes_and_one_killed(db_path: Path) -> None:
    """Two processes run the scheduler on one database; the slow one is SIGKILLed holding leased rows.

    Their clock runs 60 times faster than the wall clock, so a game's three-minute clock runs out in three
    seconds. Every game must end on time exactly once: one flag per game, its version bumped once.
    """
    base, speed = time.time(), 60.0

    def clock() -> dt.datetime:
        return dt.datetime.fromtimestamp(base + (time.time() - base) * speed, dt.UTC)

    store = await Store.open(db_path, clock=clock)
    games = []
    for number in range(24):
        control = TimeControl.parse(f"{3 + number % 3}+0")  # deadlines 3, 4 and 5 fast minutes away
        games.append(await veloop_game(store, control, channel=5000 + number, opened=True))
    await store.close()

    slow = Worker("scheduler", db_path, base, speed, 0.4)
    fast = Worker("scheduler", db_path, base, speed, 0)
    try:
        # Killed in the middle of its first row, with the rest of its batch leased.
        slow_lines = [slow.next_line(20)]
        assert slow_lines[0].startswith("took"), slow_lines
        time.sleep(0.1)
        slow.stop(signal.SIGKILL)
        assert slow.proc.returncode == -signal.SIGKILL
        slow_lines += slow.lines_for(0.2)
        # Until every game not flagged by the killed process is flagged (at most 5 fast minutes, plus a lease of
        # 60 fast seconds for the rows it died holding); a second flag of a game would bump its version twice,
        # which the rows below show whenever it happened.
        left = {g.id for g in games} - {int(line.split()[1]) for line in slow_lines if line.startswith("flagged")}
        fast_lines = fast.lines_until(
            lambda lines: left <= {int(line.split()[1]) for line in lines if line.startswith("flagged")},
            base + 60 - time.time(),
        )
    finally:
        slow.stop(signal.SIGKILL)
        fast.stop()
    killed_took = {int(line.split()[2]) for line in slow_lines if line.startswith("took")}
    killed_flagged = {int(line.split()[1]) for line in slow_lines if line.startswith("flagged")}
    assert killed_took - killed_flagged, "the killed process died holding rows it had leased"
    flags = Counter(int(line.split()[1]) for line in slow_lines + fast_lines if line.startswith("flagged"))
    assert max(flags.values()) == 1, f"a deadline fired twice: {flags}"
    stored = {row["id"]: row for row in rows(db_path, "SELECT id, status, termination, version FROM games")}
    for game in games:
        row = stored[game.id]
        assert (row["status"], row["termination"]) == ("finished", "time forfeit"), row
        assert row["version"] == game.version + 1, "each game was flagged by exactly one transaction"
    # The killed process's leased rows were taken over by the other once their lease ran out.
    assert (killed_took - killed_flagged) <= set(flags)
    assert rows(db_path, "SELECT COUNT(*) AS n FROM due") == [{"n": 0}]


@pytest.mark.slow
async def test_a_choice_made_in_one_process_reaches_what_another_remembers(pg_url: str) -> None:
    """Themes and notification choices are remembered in memory; on PostgreSQL a change made by one process
    (a player's shard) is heard by the others (LISTEN/NOTIFY), which forget what they remembered."""
    here, there = await Store.open(pg_url), await Store.open(pg_url)
    try:
        assert await here.get_theme(11) is None and (await here.get_notify(11)).mode == "ping"  # remembered
        await there.set_theme(11, "dark")
        await there.set_notify(11, mode="dm")
        deadline = time.monotonic() + 5
        while (await here.get_theme(11), (await here.get_notify(11)).mode) != ("dark", "dm"):
            assert time.monotonic() < deadline, "the other process never heard of the change"
            await asyncio.sleep(0.02)
        # Both notices delivered (the second may come after both values were read anew), then remembered again.
        await asyncio.sleep(0.5)
        assert await here.get_theme(11) == "dark"
        # A change that is rolled back is never heard of: what ``here`` remembers stays, even though the row
        # was meanwhile changed behind every store's back (a write no process announced).
        with contextlib.suppress(RuntimeError):
            async with there._transaction() as db:
                await db.notify("prefs 11")
                raise RuntimeError("rolled back")
        write(pg_url, "UPDATE player_prefs SET theme = 'light' WHERE user_id = 11")
        await asyncio.sleep(0.3)  # a window for a notice that must not come
        assert await here.get_theme(11) == "dark", "nothing was heard from the rolled-back transaction"
        async with there._transaction() as db:
            await db.notify("prefs 11")
        deadline = time.monotonic() + 5
        while await here.get_theme(11) != "light":
            assert time.monotonic() < deadline, "a committed notice is heard"
            await asyncio.sleep(0.02)
    finally:
        await here.close()
        await there.close()
