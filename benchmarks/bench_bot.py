"""The bot under load: latency and throughput of moves, and memory with many stored games.

Run ``python -m benchmarks.bench_bot`` to print a markdown table, ``--write`` to publish it into
docs/BENCHMARKS.md through ``benchmarks._report.publish``. The bot runs exactly as deployed, ``python -m
bot`` in its own process, pointed at the fake Discord through ``DISCORD_API_BASE`` and
``DISCORD_GATEWAY_URL``; the fake and the simulated players run in this process on the same
machine, so their work competes with the bot's for the same cores:

(a) 100 games on the standard board; moves are offered at a fixed rate (50/s by default, Discord's
    ceiling for one bot) to games that are waiting for one; the latency is from the moment the
    fake sends INTERACTION_CREATE to the moment it has the bot's answer carrying the board image.
(b) the same games, each replying the moment its previous move was answered: the rate the bot
    sustains with every move committed to SQLite and answered with its image.
(c) a database with 10,000 stored games of which 1,000 are in play, opened by a fresh bot that
    then plays a move in 100 of them: the resident memory of the bot process.

``--deadline`` measures something else: whether every interaction gets its first answer within
Discord's 3 seconds when the bot is overloaded. 200 games (``--deadline-games``) receive about 50
interactions a second (``--deadline-rate``), half of them moves and half autocomplete requests
for the move being typed; the figure is how many of each were answered (a defer counts) within
3 s of their creation, as the fake Discord judges it. ``--bot-cpus 0`` pins the bot to one core,
``--profile FILE`` runs it under cProfile (its event loop thread) and prints where the time went;
the profiler roughly doubles the cost of small Python functions, so a profiled bot saturates
sooner. Each autocomplete goes to a random game, so most land on a position nobody typed on yet:
the worst case for the suggestion caches. The bot's CPU time per interaction and resident memory
are printed too: on a shared machine the share answered in time mostly says how busy the
machine was, not how much the bot costs.

``--locales en,es,ja`` measures (a) for each language in the same run, each phase in a fresh
process: the server's preferred locale and every member's locale are that language, so every board,
its image and its buttons are worded from that language's catalogue. ``--rounds`` (default 2) runs
the languages in turn, forwards then backwards, and pools each language's moves, so a machine whose
load drifts during the run weighs on every language alike. It publishes the p99 of each next to
English's, under ``bench:bot-languages``.

Moves are chosen by seeded random generators among the legal ones, so two runs do the same work.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import logging
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks._report import REFERENCE, reference_ms
from bot.lifeline import die_with_parent

ROOT = Path(__file__).resolve().parent.parent
FILES = "abcdefghijklmnopqrstuvwxyz"


def pss_mb(pid: int) -> float:
    """Proportional resident memory: pages shared with other processes (libraries, fonts) counted by their share."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no Pss in /proc/{pid}/smaps_rollup")


def rss_mb(pid: int) -> float:
    """Resident memory now (not the peak), from /proc: what the process holds once the work is done."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def cpu_seconds(pid: int) -> float:
    """CPU time the process (all its threads) has used so far, from /proc: user plus system."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def family(pid: int) -> list[int]:
    """The process and every process under it (the bot's drawing and AI workers; a server's backends)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(stat.parent.name))
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        queue.extend(children.get(current, []))
    return found


def over_family(pid: int, measure: Callable[[int], float]) -> float:
    """``measure`` summed over a process and every process under it, those alive now (see ``family``)."""
    total = 0.0
    for each in family(pid):
        try:
            total += measure(each)
        except (OSError, ValueError, RuntimeError):
            continue  # it ended between the listing and the reading
    return total


def setup_turn(game: Any, rng: random.Random) -> str:
    """A random legal setup turn or pie choice, as a player would type it."""
    if game.phase == "pie":
        return rng.choice(["keep", "swap"])
    shooters = sorted(rng.sample(game.setup_squares(), game.shooters_to_place))
    text = ",".join(shooters)
    if game.stone_to_place:
        size = game.position.size
        empty = [
            f"{FILES[f]}{r + 1}"
            for f in range(size)
            for r in range(size)
            if game.position.piece_at(f"{FILES[f]}{r + 1}") is None and f"{FILES[f]}{r + 1}" not in shooters
        ]
        text += "/" + rng.choice(empty)
    return text


@dataclass
class Seat:
    """One game being driven: its players (as fake members) and the rules' view of it."""

    first: Any
    second: Any
    game: Any
    busy: bool = False
    command: str = "veletas"  # the game's command group: veletas, or veloop
    # A move of this game went unanswered for Discord's 3 s: the game is left alone from then on, since
    # whether and when that move landed is unknown.
    stalled: bool = False

    def user(self) -> Any:
        return self.first if self.game.seat_to_act == "first" else self.second


@dataclass
class Load:
    latencies: list[float] = field(default_factory=list)
    refused: int = 0
    skipped: int = 0
    late: int = 0  # not answered within Discord's 3 s ("The application did not respond")


def bench_fake(validate: bool, lifetime: float, guild_shard: tuple[int, int] | None = None) -> Any:
    """The fake Discord, with a way of waiting that scales to a hundred users acting at once.

    The fake's own ``wait_until`` gives every waiting user a timer and re-checks it every 50 ms;
    with a hundred users that is the load generator's cost, not the bot's. Here the waiting
    conditions are checked together, once per loop turn in which something changed (plus a slow
    tick for conditions that depend on the clock or the bot), and only a waiter whose condition
    holds (or has failed, or timed out) is woken. ``settle`` is skipped: under load the fake is
    never idle, and slash commands need no settling.
    """
    from bot.sandbox.errors import SandboxTimeout
    from bot.sandbox.server import FakeDiscord

    @dataclass
    class Waiter:
        predicate: Any
        future: asyncio.Future[Any]
        deadline: float
        limit: float
        what: str

    class BenchFake(FakeDiscord):
        def __init__(self) -> None:
            super().__init__(validate=validate, lifetime=lifetime, wait_timeout=120, guild_shard=guild_shard)
            self._bench_waiters: list[Waiter] = []
            self._check_due = False
            self._ticker: asyncio.Task[None] | None = None

        async def start(self) -> None:
            await super().start()
            self._ticker = asyncio.create_task(self._tick())

        async def stop(self) -> None:
            if self._ticker is not None:
                self._ticker.cancel()
            await super().stop()
            for waiter in self._bench_waiters:
                waiter.future.cancel()
            self._bench_waiters = []

        async def _tick(self) -> None:
            while True:
                await asyncio.sleep(0.25)
                self.changed()

        def changed(self) -> None:
            super().changed()
            if not self._check_due and self._bench_waiters:
                self._check_due = True
                asyncio.get_running_loop().call_soon(self._check)

        def _check(self) -> None:
            self._check_due = False
            now = asyncio.get_running_loop().time()
            waiting = []
            for waiter in self._bench_waiters:
                if waiter.future.done():
                    continue  # its task was cancelled
                try:
                    result = waiter.predicate()
                except Exception as error:
                    waiter.future.set_exception(error)
                    continue
                if result:
                    waiter.future.set_result(result)
                elif now >= waiter.deadline:
                    waiter.future.set_exception(
                        SandboxTimeout(
                            f"timed out after {waiter.limit:.1f} s waiting for {waiter.what or waiter.predicate}"
                        )
                    )
                else:
                    waiting.append(waiter)
            self._bench_waiters = waiting

        async def wait_until(self, predicate: Any, *, timeout: float | None = None, what: str = "") -> Any:
            result = predicate()
            if result:
                return result
            loop = asyncio.get_running_loop()
            limit = timeout if timeout is not None else self.wait_timeout
            waiter = Waiter(predicate, loop.create_future(), loop.time() + limit, limit, what)
            self._bench_waiters.append(waiter)
            return await waiter.future

        async def settle(self) -> None:
            return None

    return BenchFake()


def random_move(position: Any, rng: random.Random) -> str:
    """A random legal move without listing them all: a shooter, where it goes (or not), then its shot."""
    while True:
        shooter = rng.choice(position.unclaimed())
        destinations = position.destinations(shooter)
        destination = rng.choice([shooter, *destinations])
        if destination == shooter:
            targets = position.targets(shooter)
            if targets:
                return str(rng.choice(targets))
            continue
        targets = position.targets(destination, vacated=shooter)
        return f"{shooter}-{destination}/{rng.choice(targets)}"


class BotProcess:
    """The bot as operators run it, ``python -m bot``, pointed at the fake through its two endpoint settings."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(
        cls,
        fake: Any,
        db_path: Path,
        *,
        profile: Path | None = None,
        cpus: set[int] | None = None,
        database_url: str | None = None,
        shard: tuple[int, int] | None = None,
    ) -> BotProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD"))}
        env |= {
            "PYTHONPATH": str(ROOT),
            "DISCORD_TOKEN": fake.token,
            "DISCORD_API_BASE": fake.api_base,
            "DISCORD_GATEWAY_URL": fake.gateway_url,
            "DATABASE_PATH": str(db_path),
            "LOG_LEVEL": "WARNING",
        }
        if database_url is not None:
            env["DATABASE_URL"] = database_url
        if shard is not None:
            env |= {"SHARD_COUNT": str(shard[1]), "SHARD_IDS": str(shard[0])}
        command = [sys.executable, "-m", "bot"]
        if profile is not None:
            command = [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "bot"]

        measuring = os.getpid()

        def pin() -> None:
            # The bot dies with the measuring process: one left behind would hold the parent's pipe open
            # (run_child would wait on it forever) and skew every later measurement.
            die_with_parent(measuring)
            if cpus:
                os.sched_setaffinity(0, cpus)

        process = await asyncio.create_subprocess_exec(
            *command, env=env, cwd=db_path.parent, preexec_fn=pin, stdout=asyncio.subprocess.DEVNULL
        )
        bot = cls(process)

        def connected() -> bool:
            if process.returncode is not None:
                raise RuntimeError(f"the bot exited with code {process.returncode} during start-up")
            session = fake.gateway.current if shard is None else fake.gateway.shards.get(shard)
            return bool(fake.commands() and session is not None and session.ws is not None)

        await fake.wait_until(connected, timeout=120, what="the bot to connect")
        return bot

    def rss_mb(self) -> float:
        """The bot's resident memory: its process and its workers' (drawing, AI), each counted whole."""
        return over_family(self.process.pid, rss_mb)

    def pss_mb(self) -> float:
        """The same with the pages its processes share (libraries, fonts) counted once: what the bot costs."""
        return over_family(self.process.pid, pss_mb)

    def cpu_seconds(self) -> float:
        """The bot's CPU time so far: its process and its workers'."""
        return over_family(self.process.pid, cpu_seconds)

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), timeout=30)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()


async def start_world(
    db_path: Path,
    games: int,
    validate: bool,
    *,
    profile: Path | None = None,
    cpus: set[int] | None = None,
    at_once: int | None = None,
    veloop_share: float = 0.0,
    database_url: str | None = None,
    shards: int = 1,
    locale: str = "en-US",
) -> tuple[list[Any], list[BotProcess], list[Seat]]:
    """The fakes, the bot and ``games`` games past their setup; ``at_once`` limits how many are set up together.

    ``veloop_share`` of the games (every k-th table) are Veloop games on the default 8×8 board and
    protocol 122; the others standard Veletas games. ``shards`` > 1 starts that many bot processes, one
    gateway shard each, on the PostgreSQL database ``database_url``, and splits the games evenly between
    as many servers, one per shard: process k serves the server of shard k, as Discord routes a server's
    events to the shard ``(guild_id >> 22) % shards`` only. Each server is a fake Discord of its own here
    (the fake holds one server); the processes share nothing but the database, as on Discord.
    """
    from bot.rules import Game
    from bot.rules import veloop as veloop_rules

    every = round(1 / veloop_share) if veloop_share > 0 else 0

    from bot.i18n import language_of, words

    accept = words(language_of(locale))("challenge.accept.label")
    fakes = [bench_fake(validate, 7200, None if shards == 1 else (shard, shards)) for shard in range(shards)]
    for fake in fakes:
        await fake.start()
        fake.state.preferred_locale = locale
    table_fakes = [fakes[i % shards] for i in range(games)]
    members = [table_fakes[i // 2].add_member(f"player{i}") for i in range(2 * games)]
    for member in members:
        member.locale = locale
    channels = [table_fakes[i].add_text_channel(f"table-{i}") for i in range(games)]
    if shards == 1:
        bots = [await BotProcess.start(fakes[0], db_path, profile=profile, cpus=cpus, database_url=database_url)]
    else:
        bots = [
            await BotProcess.start(fake, db_path, cpus=cpus, database_url=database_url, shard=(shard, shards))
            for shard, fake in enumerate(fakes)
        ]

    gate = asyncio.Semaphore(at_once or games)

    async def open_table(i: int) -> Seat:
        async with gate:
            return await _open_table(i)

    async def _open_table(i: int) -> Seat:
        first = table_fakes[i].user(members[2 * i], channel_id=channels[i])
        second = table_fakes[i].user(members[2 * i + 1], channel_id=channels[i])
        if every and i % every == every - 1:
            challenge = await first.slash("veloop", "challenge", opponent=members[2 * i + 1], where="here")
            await second.click(challenge, accept)
            return Seat(first, second, veloop_rules.Game.new(), command="veloop")
        challenge = await first.slash(
            "veletas", "challenge", opponent=members[2 * i + 1], variant="standard", where="here"
        )
        await second.click(challenge, accept)
        return Seat(first, second, Game.new("standard"))

    seats = list(await asyncio.gather(*(open_table(i) for i in range(games))))
    veletas_seats = [seat for seat in seats if seat.command == "veletas"]
    # A turn sent before its player could see the board is refused by design (the store's change stamp): every
    # game's first board must be out before anyone plays.
    for fake in fakes:
        await fake.wait_until(
            lambda fake=fake: all(
                any("board.png" in m.files for m in fake.messages(channel))
                for channel, at in zip(channels, table_fakes, strict=True)
                if at is fake
            ),
            what="every first board",
        )
    rng = random.Random(1)

    async def set_up(seat: Seat) -> None:
        async with gate:
            await _set_up(seat)

    async def _set_up(seat: Seat) -> None:
        while seat.game.phase in ("setup", "pie"):
            text = setup_turn(seat.game, rng)
            if seat.game.phase == "pie":
                answer = await seat.user().slash("veletas", "pie", choice=text)
            else:
                shooters, _, stone = text.partition("/")
                answer = await seat.user().slash("veletas", "setup", shooters=shooters.replace(",", " "), stone=stone)
            if answer.ephemeral or "board.png" not in answer.files:
                raise RuntimeError(f"the bot refused a setup turn the benchmark sent ({text}): {answer.content}")
            seat.game = seat.game.play(text)

    await asyncio.gather(*(set_up(seat) for seat in veletas_seats))
    return fakes, bots, seats


async def one_move(seat: Seat, rng: random.Random, load: Load) -> None:
    """Send one legal move as the player to act; record the time until the board image is back."""
    from bot.sandbox.errors import SandboxError

    if seat.game.phase != "play" or seat.stalled:
        load.skipped += 1
        return
    seat.busy = True
    try:
        if seat.command == "veloop":
            move = str(rng.choice([m for m in seat.game.position.legal_moves() if not m.is_pass]))
        else:
            move = random_move(seat.game.position, rng)
        started = time.perf_counter()
        try:
            answer = await seat.user().slash(seat.command, "move", move=move)
        except SandboxError:
            load.late += 1
            seat.stalled = True
            return
        elapsed = time.perf_counter() - started
        if answer.ephemeral or "board.png" not in answer.files:
            load.refused += 1
            return
        load.latencies.append(elapsed)
        seat.game = seat.game.play(move)
        # The bot plays a lone forced pass by itself (Veloop), on the same board.
        while seat.game.phase == "play" and seat.game.forced_turn is not None:
            seat.game = seat.game.play(seat.game.forced_turn)
    finally:
        seat.busy = False


async def offered_load(seats: list[Seat], rate: float, seconds: float) -> Load:
    """Open loop: a move every 1/rate seconds to the next game waiting for one, whatever the answers do."""
    rng = random.Random(2)
    load = Load()
    tasks: list[asyncio.Task[None]] = []
    loop = asyncio.get_running_loop()
    start = loop.time()
    turn = 0
    index = 0
    while (now := loop.time()) < start + seconds:
        due = start + turn / rate
        if due > now:
            await asyncio.sleep(due - now)
        turn += 1
        for _ in range(len(seats)):
            seat = seats[index % len(seats)]
            index += 1
            if not seat.busy and not seat.stalled and seat.game.phase == "play":
                seat.busy = True
                tasks.append(asyncio.create_task(one_move(seat, rng, load)))
                break
        else:
            load.skipped += 1
    await asyncio.gather(*tasks)
    return load


async def closed_loop(seats: list[Seat], seconds: float) -> tuple[Load, float]:
    """Every game answers its own board at once: the highest rate the bot keeps up with."""
    rng = random.Random(3)
    load = Load()
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds

    async def worker(seat: Seat) -> None:
        while loop.time() < end and seat.game.phase == "play" and not seat.stalled:
            await one_move(seat, rng, load)

    started = time.perf_counter()
    await asyncio.gather(*(worker(seat) for seat in seats))
    return load, len(load.latencies) / (time.perf_counter() - started)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Cluster:
    """A throw-away PostgreSQL server for the bot processes, with the durability of a real deployment (fsync,
    full page writes) and pg_stat_statements counting what they ask of it (tests/pg_server.py starts it)."""

    def __init__(self) -> None:
        sys.path.insert(0, str(ROOT / "tests"))
        from pg_server import start_cluster

        self.server, self.root = start_cluster(
            fsync="on",
            synchronous_commit="on",
            full_page_writes="on",
            shared_preload_libraries="pg_stat_statements",
        )
        self.url = self.server.url()

    def stop(self) -> None:
        from pg_server import stop_cluster

        stop_cluster(self.server, self.root)

    async def query(self, sql: str) -> list[Any]:
        import asyncpg

        conn = await asyncpg.connect(self.url)
        try:
            return list(await conn.fetch(sql))
        finally:
            await conn.close()

    def cpu_seconds(self) -> float:
        """CPU time of the server: its postmaster and every process it started (backends, WAL writer…)."""
        return over_family(self.server.process.pid, cpu_seconds)

    async def counters(self) -> dict[str, float]:
        """Statements, write transactions (those taking the whole write lock, and those taking one game's lock
        with the write lock shared: bot/db/postgres.py), their execution time, and commits, so far."""
        [row] = await self.query(
            "SELECT COALESCE(SUM(calls), 0) AS calls, COALESCE(SUM(total_exec_time), 0) AS ms, "
            "COALESCE(SUM(calls) FILTER (WHERE query LIKE '%pg_advisory_xact_lock_shared%'), 0) AS game_writes, "
            "COALESCE(SUM(calls) FILTER (WHERE query LIKE '%pg_advisory_xact_lock%' "
            "AND query NOT LIKE '%pg_advisory_xact_lock_shared%'), 0) AS writes "
            "FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'"
        )
        [db] = await self.query("SELECT xact_commit FROM pg_stat_database WHERE datname = 'postgres'")
        return {
            "statements": float(row["calls"]),
            "exec_ms": float(row["ms"]),
            "writes": float(row["writes"]),
            "game_writes": float(row["game_writes"]),
            "commits": float(db["xact_commit"]),
        }

    async def round_trip_ms(self, rounds: int = 2000) -> float:
        """The median time of one trivial statement from a client on this machine: a query's fixed cost."""
        import asyncpg

        conn = await asyncpg.connect(self.url)
        try:
            times = []
            for _ in range(rounds):
                started = time.perf_counter()
                await conn.fetchval("SELECT 1")
                times.append(time.perf_counter() - started)
        finally:
            await conn.close()
        return percentile(times, 0.5) * 1000


async def speed(
    games: int,
    rate: float,
    seconds: float,
    validate: bool,
    veloop_share: float,
    profile: Path | None = None,
    *,
    database: str = "sqlite",
    shards: int = 1,
    locale: str = "en-US",
    closed_phase: bool = True,
) -> dict[str, Any]:
    cluster = Cluster() if database == "postgresql" else None
    try:
        if cluster is not None:
            await cluster.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        with tempfile.TemporaryDirectory() as tmp:
            fakes, bots, seats = await start_world(
                Path(tmp) / "bench.sqlite3",
                games,
                validate,
                veloop_share=veloop_share,
                profile=profile,
                database_url=None if cluster is None else cluster.url,
                shards=shards,
                locale=locale,
            )
            costs: dict[str, float] = {}
            try:
                offered = await offered_load(seats, rate, seconds)
                bot_cpu = sum(bot.cpu_seconds() for bot in bots)
                # This process: the fake Discord and the simulated players, on the same cores as the bot.
                bench_cpu = cpu_seconds(os.getpid())
                if cluster is not None:
                    await cluster.query("SELECT pg_stat_statements_reset()")
                    db_before, db_cpu = await cluster.counters(), cluster.cpu_seconds()
                closed, throughput = await closed_loop(seats, seconds) if closed_phase else (Load(), 0.0)
                moves = max(1, len(closed.latencies))
                costs["bot_cpu_ms"] = (sum(bot.cpu_seconds() for bot in bots) - bot_cpu) / moves * 1000
                costs["bench_cpu_ms"] = (cpu_seconds(os.getpid()) - bench_cpu) / moves * 1000
                if cluster is not None:
                    after = await cluster.counters()
                    costs["db_cpu_ms"] = (cluster.cpu_seconds() - db_cpu) / moves * 1000
                    for key in ("statements", "exec_ms", "writes", "game_writes", "commits"):
                        costs[key] = (after[key] - db_before[key]) / moves
            finally:
                for bot in bots:
                    await bot.stop()
                for fake in fakes:
                    await fake.stop()
            # An answer that came after Discord's 3 s is refused (10062): the move was counted late already.
            unexpected = [e for fake in fakes for e in fake.errors if e.error_code != 10062]
            if unexpected:
                raise RuntimeError(f"the bot received error answers: {unexpected[:3]}")
        if cluster is not None:
            costs["round_trip_ms"] = await cluster.round_trip_ms()
    finally:
        if cluster is not None:
            cluster.stop()
    figures: dict[str, Any] = {
        "p50": percentile(offered.latencies, 0.50) * 1000,
        "p99": percentile(offered.latencies, 0.99) * 1000,
        "offered_moves": len(offered.latencies),
        "offered_refused": offered.refused,
        "achieved_rate": len(offered.latencies) / seconds,
        "throughput": throughput,
        "closed_p50": percentile(closed.latencies, 0.50) * 1000,
        "closed_p99": percentile(closed.latencies, 0.99) * 1000,
        "closed_refused": closed.refused,
        "offered_late": offered.late,
        "closed_late": closed.late,
        **costs,
    }
    if not closed_phase:
        figures["latencies"] = [round(value * 1000, 3) for value in offered.latencies]
    return figures


# --- answering within Discord's 3 seconds -----------------------------------------------------


@dataclass
class Answers:
    """First answers of one kind of interaction: how long each took, and how many never came in time."""

    first: list[float] = field(default_factory=list)
    late: int = 0
    refused: int = 0

    @property
    def sent(self) -> int:
        return len(self.first) + self.late

    def share_in_time(self) -> float:
        return len(self.first) / self.sent if self.sent else float("nan")


async def timed_interaction(user: Any, kind: int, options: dict[str, str], focused: str | None) -> Any:
    """Send one interaction; returns (seconds to its first answer, the interaction), or raises if it came late."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    interaction = await user._command(kind, ("veletas", "move"), options, focused=focused)
    return loop.time() - started, interaction


async def deadline_load(seats: list[Seat], rate: float, seconds: float) -> dict[str, Answers]:
    """Open loop at ``rate`` interactions/s: moves to games waiting for one, autocompletes to any game in play."""
    from bot.sandbox.errors import SandboxError
    from bot.sandbox.users import APPLICATION_COMMAND, AUTOCOMPLETE

    rng = random.Random(6)
    answers = {"move": Answers(), "autocomplete": Answers()}
    tasks: list[asyncio.Task[None]] = []
    loop = asyncio.get_running_loop()

    async def move(seat: Seat) -> None:
        seat.busy = True
        try:
            text = random_move(seat.game.position, rng)
            try:
                took, interaction = await timed_interaction(seat.user(), APPLICATION_COMMAND, {"move": text}, None)
            except SandboxError:
                answers["move"].late += 1
                return
            answers["move"].first.append(took)
            message = await seat.user()._outcome(interaction)
            if message.ephemeral:
                answers["move"].refused += 1
                return
            seat.game = seat.game.play(text)
        finally:
            seat.busy = False

    async def autocomplete(seat: Seat) -> None:
        typed = random_move(seat.game.position, rng)[: rng.choice((1, 2, 3, 5))]
        try:
            took, _ = await timed_interaction(seat.user(), AUTOCOMPLETE, {"move": typed}, "move")
        except SandboxError:
            answers["autocomplete"].late += 1
            return
        answers["autocomplete"].first.append(took)

    start = loop.time()
    sent = 0
    while (now := loop.time()) < start + seconds:
        due = start + sent / rate
        if due > now:
            await asyncio.sleep(due - now)
        sent += 1
        seat = rng.choice(seats)
        if seat.game.phase != "play":
            continue
        if sent % 2 or seat.busy:
            tasks.append(asyncio.create_task(autocomplete(seat)))
        else:
            seat.busy = True
            tasks.append(asyncio.create_task(move(seat)))
    await asyncio.gather(*tasks)
    return answers


async def deadline(
    games: int, rate: float, seconds: float, validate: bool, profile: Path | None, cpus: set[int] | None
) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        (fake,), (bot,), seats = await start_world(
            Path(tmp) / "bench.sqlite3", games, validate, profile=profile, cpus=cpus, at_once=10
        )
        try:
            cpu_before = bot.cpu_seconds()
            answers = await deadline_load(seats, rate, seconds)
            cpu = bot.cpu_seconds() - cpu_before
            rss = bot.rss_mb()
            # Boards of moves whose answer came too late are posted to their channels; give them a moment.
            await asyncio.sleep(2)
        finally:
            await bot.stop()
            await fake.stop()
        expired = sum(1 for e in fake.errors if e.error_code == 10062)
        deferred = sum(1 for i in fake.state.interactions.values() if i.response_type == 5)
    move, auto = answers["move"], answers["autocomplete"]
    return {
        "rate": (move.sent + auto.sent) / seconds,
        "moves": move.sent,
        "moves_in_time": move.share_in_time(),
        "move_p50": percentile(move.first, 0.50) * 1000,
        "move_p99": percentile(move.first, 0.99) * 1000,
        "autocompletes": auto.sent,
        "autocompletes_in_time": auto.share_in_time(),
        "auto_p50": percentile(auto.first, 0.50) * 1000,
        "auto_p99": percentile(auto.first, 0.99) * 1000,
        "refused": move.refused,
        "expired_answers": expired,
        "deferred": deferred,
        "cpu_ms": cpu / max(1, move.sent + auto.sent) * 1000,
        "cpu_share": cpu / seconds,
        "rss": rss,
    }


def deadline_table(figures: dict[str, float], args: argparse.Namespace) -> str:
    f = figures
    cores = f"pinned to cores {args.bot_cpus}" if args.bot_cpus else "on every core"
    return "\n".join(
        [
            "| interactions | sent | first answer within 3 s | first answer p50 / p99 |",
            "|---|---|---|---|",
            f"| moves | {f['moves']:.0f} | {f['moves_in_time']:.1%} | "
            f"{f['move_p50']:.0f} ms / {f['move_p99']:.0f} ms |",
            f"| autocomplete | {f['autocompletes']:.0f} | {f['autocompletes_in_time']:.1%} | "
            f"{f['auto_p50']:.0f} ms / {f['auto_p99']:.0f} ms |",
            "",
            f"{args.deadline_games} games, {f['rate']:.0f} interactions/s offered for {args.seconds:.0f} s, the bot "
            f"{cores}; {f['refused']:.0f} moves refused, {f['deferred']:.0f} answers deferred, "
            f"{f['expired_answers']:.0f} answers the fake refused as "
            f"too late (10062). The bot used {f['cpu_ms']:.1f} ms of CPU per interaction ({f['cpu_share']:.0%} of "
            f"a core) and held {f['rss']:.0f} MB.",
        ]
    )


def print_profile(path: Path, limit: int = 25) -> None:
    import pstats

    stats = pstats.Stats(str(path), stream=sys.stdout)
    stats.sort_stats("tottime").print_stats(limit)
    stats.sort_stats("cumulative").print_stats(limit)


# --- (c) memory -------------------------------------------------------------------------------


async def populate(db_path: Path, stored: int, active: int, ids_path: Path) -> None:
    """Fill a database through the store: games past their setup with a few moves; all but ``active`` resigned.

    The first games use the fake's members and channels listed in ``ids_path``, so the bot can be
    asked to move in them; the others use made-up ids, as games of people no longer around would.
    """
    from bot.rules import Game
    from bot.store import Store

    ids = json.loads(ids_path.read_text())
    players: list[int] = ids["players"]
    channels: list[int] = ids["channels"]
    rng = random.Random(4)
    store = await Store.open(db_path)
    try:
        for i in range(stored):
            if i < len(channels):
                first, second, channel = players[2 * i], players[2 * i + 1], channels[i]
            else:
                first, second, channel = 10_000 + 2 * i, 10_001 + 2 * i, 1_000_000 + i
            info = await store.create_challenge(
                guild_id=ids["guild"],
                channel_id=channel,
                challenger_id=first,
                opponent_id=second,
                settings={"variant": "standard", "rules": "current"},
                where="here",
                expires_at=dt.datetime.now(dt.UTC) + dt.timedelta(hours=1),
            )
            await store.accept_challenge(info.id, second, channel_id=channel)
            game = Game.new("standard")
            for turn in range(7):
                text = setup_turn(game, rng) if game.phase != "play" else str(rng.choice(game.position.legal_moves()))
                await store.play(info.id, first if game.seat_to_act == "first" else second, text)
                game = game.play(text)
                if turn >= 3 and game.phase != "play":
                    raise RuntimeError("setup takes three turns")
            if i >= active:
                await store.resign(info.id, first)
            # Their boards were posted as they were played: a stored game owes no announcement.
            last = await store.get_game(info.id)
            await store.mark_posted(info.id, last.version, 10**17 + i)
    finally:
        await store.close()


async def memory(db_path: Path, stored: int, active: int, probe: int, validate: bool) -> dict[str, float]:
    """A fresh bot process opens the populated database and plays one move in ``probe`` active games."""
    fake = bench_fake(validate, 3600)
    await fake.start()
    members = [fake.add_member(f"player{i}") for i in range(2 * probe)]
    channels = [fake.add_text_channel(f"table-{i}") for i in range(probe)]
    ids_path = db_path.with_suffix(".ids.json")
    ids_path.write_text(json.dumps({"guild": fake.guild_id, "players": [m.id for m in members], "channels": channels}))
    # Filling the database happens in another process, so none of its garbage is counted here.
    filler = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "benchmarks.bench_bot",
        "--phase",
        "populate",
        "--db",
        str(db_path),
        "--stored",
        str(stored),
        "--active",
        str(active),
        cwd=ROOT,
        stdout=asyncio.subprocess.DEVNULL,
    )
    if await filler.wait() != 0:
        raise RuntimeError("populating the database failed")
    from bot.store import Store

    reader = await Store.open(db_path)
    try:
        probes = [await reader.game_in_channel(channel) for channel in channels]
    finally:
        await reader.close()
    bot = await BotProcess.start(fake, db_path)
    at_start = bot.rss_mb()
    try:
        rng = random.Random(5)
        for i in range(probe):
            info = probes[i]
            member = members[2 * i] if info.user_to_act == members[2 * i].id else members[2 * i + 1]
            move = random_move(info.game.position, rng)
            answer = await fake.user(member, channel_id=channels[i]).slash("veletas", "move", move=move)
            if answer.ephemeral:
                raise RuntimeError(f"game {info.id}: the move was refused: {answer.content}")
        after, shared = bot.rss_mb(), bot.pss_mb()
        processes = len(family(bot.process.pid))
    finally:
        await bot.stop()
        await fake.stop()
    return {"rss_start": at_start, "rss": after, "pss": shared, "processes": processes}


def run_child(*args: str) -> dict[str, Any]:
    """Run a measure in a fresh interpreter so earlier phases cannot inflate its memory."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_bot", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the measuring process {' '.join(args)} failed with code {done.returncode}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def speed_mix(share: float) -> str:
    if share <= 0:
        return "Veletas on the standard board, current rules."
    return (
        f"(a) and (b) mix both games: {share:.0%} Veloop (8×8, protocol 122), the rest Veletas (standard board, "
        "current rules); (c) stores Veletas games."
    )


def table(
    speed_figures: dict[str, float],
    memory_figures: dict[str, float],
    args: argparse.Namespace,
    reference: tuple[float, float],
) -> str:
    def verdict(ok: bool) -> str:
        return "yes" if ok else "**no**"

    s, m = speed_figures, memory_figures
    ref = min(reference)
    rows = [
        "| measure | result | target | met |",
        "|---|---|---|---|",
        f"| (a) latency at {args.rate:.0f} moves/s offered over {args.games} games, p50 / p99 "
        f"(INTERACTION_CREATE → answer with board image) | {s['p50']:.0f} ms / {s['p99']:.0f} ms "
        f"({s['offered_moves']:.0f} moves, {s['achieved_rate']:.0f}/s served) | p99 ≤ 100 ms | "
        f"{verdict(s['p99'] <= 100)} |",
        f"| (b) sustained rate, each move committed and answered with its image | {s['throughput']:.0f} moves/s "
        f"(p50 {s['closed_p50']:.0f} ms, p99 {s['closed_p99']:.0f} ms) | ≥ 100 moves/s | "
        f"{verdict(s['throughput'] >= 100)} |",
        f"| (c) resident memory, {args.stored:,} stored games of which {args.active:,} active, after moves in "
        f"{args.probe} of them, the bot's {m['processes']:.0f} processes together (each counted whole) | "
        f"{m['rss']:.0f} MB ({m['pss']:.0f} MB counting pages they share once; {m['rss_start']:.0f} MB just after "
        f"start) | ≤ 200 MB | {verdict(m['rss'] <= 200)} |",
        f"| a move's CPU in (b): the bot's processes / this benchmark's (fake Discord and players) | "
        f"{s['bot_cpu_ms']:.1f} ms / {s['bench_cpu_ms']:.1f} ms | | |",
        f"| reference: {REFERENCE}, median before / after the load phases | {reference[0]:.1f} ms / "
        f"{reference[1]:.1f} ms | | |",
    ]
    ratios = (
        f"Against the reference (lower of the two): (a) p99 = {s['p99'] / ref:.1f}× it, (b) one move = "
        f"{1000 / max(s['throughput'], 1e-9) / ref:.2f}× it; a loaded machine raises the reference too."
    )
    note = (
        f"{speed_mix(args.veloop_share)} The bot runs as `python -m bot` in its own process; the fake Discord "
        f"and the simulated players run in another, on the same {os.cpu_count()} cores, so the CPU they use "
        f"(the benchmark's row) is CPU the bot does not get. Request bodies "
        f"{'validated' if args.validate else 'not validated'} against Discord's OpenAPI spec by the fake; "
        f"{args.seconds:.0f} s per load phase. The bot's CPU and memory are its process's and its workers' (the "
        "drawing worker, and multiprocessing's resource tracker), each process's resident set counted whole."
    )
    return "\n".join(rows) + "\n\n" + ratios + " " + note


def postgresql_table(
    one: dict[str, float],
    several: dict[str, float],
    lite: dict[str, float],
    args: argparse.Namespace,
    reference: tuple[float, float],
) -> str:
    """(a) and (b) on PostgreSQL with one process and with shard processes, a move's cost, and the plan from it."""

    def verdict(ok: bool) -> str:
        return "yes" if ok else "**no**"

    late = sum(f[key] for f in (one, several) for key in ("offered_late", "closed_late"))
    rows = [
        "| measure | PostgreSQL, one bot process | " + f"PostgreSQL, {args.shards} shard processes | "
        "SQLite file, same run | target | met (PostgreSQL) |",
        "|---|---|---|---|---|---|",
        f"| (a) latency at {args.rate:.0f} moves/s offered over {args.games} games, p50 / p99 | "
        f"{one['p50']:.0f} ms / {one['p99']:.0f} ms ({one['achieved_rate']:.0f}/s served) | "
        f"{several['p50']:.0f} ms / {several['p99']:.0f} ms ({several['achieved_rate']:.0f}/s served) | "
        f"{lite['p50']:.0f} ms / {lite['p99']:.0f} ms ({lite['achieved_rate']:.0f}/s served) | "
        f"p99 ≤ 100 ms | {verdict(max(one['p99'], several['p99']) <= 100)} |",
        f"| moves not answered within Discord's 3 s, (a) / (b) | {one['offered_late']:.0f} / "
        f"{one['closed_late']:.0f} | {several['offered_late']:.0f} / {several['closed_late']:.0f} | "
        f"{lite['offered_late']:.0f} / {lite['closed_late']:.0f} | 0 | {verdict(late == 0)} |",
        f"| (b) sustained rate, each move committed and answered with its image | "
        f"{one['throughput']:.0f} moves/s (p99 {one['closed_p99']:.0f} ms) | "
        f"{several['throughput']:.0f} moves/s (p99 {several['closed_p99']:.0f} ms) | "
        f"{lite['throughput']:.0f} moves/s (p99 {lite['closed_p99']:.0f} ms) | ≥ 100 moves/s | "
        f"{verdict(min(one['throughput'], several['throughput']) >= 100)} |",
        f"| a move's cost in (b): bot CPU (its processes and drawing workers), database CPU | "
        f"{one['bot_cpu_ms']:.1f} ms, {one['db_cpu_ms']:.2f} ms | {several['bot_cpu_ms']:.1f} ms, "
        f"{several['db_cpu_ms']:.2f} ms | {lite['bot_cpu_ms']:.1f} ms (SQLite in the bot's process) | | |",
        f"| a move's CPU in (b) in this benchmark's process (fake Discord and players), not the bot's | "
        f"{one['bench_cpu_ms']:.1f} ms | {several['bench_cpu_ms']:.1f} ms | {lite['bench_cpu_ms']:.1f} ms | | |",
        "| a move's queries in (b): statements (write transactions: whole-database + one game's), commits, SQL "
        f"time | {one['statements']:.1f} ({one['writes']:.2f} + {one['game_writes']:.2f}), {one['commits']:.1f}, "
        f"{one['exec_ms']:.2f} ms | {several['statements']:.1f} ({several['writes']:.2f} + "
        f"{several['game_writes']:.2f}), {several['commits']:.1f}, {several['exec_ms']:.2f} ms | | | |",
        f"| reference: {REFERENCE}, median before / after | {reference[0]:.1f} ms / {reference[1]:.1f} ms | | | | |",
    ]
    note = (
        "The SQLite column is the same load on the bot's default SQLite file, measured in the same run: "
        "the machine's state shows there as much as in the reference. "
        f"{speed_mix(args.veloop_share).split(';')[0]}. The bot runs as `python -m bot` with `DATABASE_URL` on a "
        "PostgreSQL 15 server of its own on this machine (fsync on; the bot's connections commit without "
        "waiting for the flush, as its SQLite file does); the "
        f"fake Discord and the players run in another process, all on the same {os.cpu_count()} cores. With "
        f"{args.shards} shard processes (`SHARD_COUNT={args.shards}`, one `SHARD_IDS` each) the games are split "
        f"evenly between {args.shards} servers, one owned by each shard, so each process answers its own share "
        "of the moves (each server a fake Discord of its own, in the same measuring process); the processes "
        "share the database and the scheduler's work, and on these cores they get no more CPU together than one "
        "process does, so that column shows what splitting costs, not how far it scales. Statements are what "
        "pg_stat_statements counted (BEGIN, the locks and COMMIT included); the database CPU is the "
        f"server's processes'. One statement's round trip from a client here: {one['round_trip_ms']:.3f} ms."
    )
    return "\n".join(rows) + "\n\n" + note + "\n\n" + plan(one, args.peak_moves_per_server)


def plan(cost: dict[str, float], per_server: float) -> str:
    """What 10,000 and 100,000 servers would need, from a move's measured cost (a plan on paper)."""
    bot_s, db_s = cost["bot_cpu_ms"] / 1000, cost["db_cpu_ms"] / 1000
    # A lock is held for at most every statement of the move's write transactions, counting each as a round trip
    # (an upper bound: bot/db/postgres.py sends a move's transaction in two messages).
    transactions = max(cost["writes"] + cost["game_writes"], 1e-9)
    per_write = cost["statements"] / transactions
    held_s = (per_write * cost["round_trip_ms"] + cost["exec_ms"] / transactions) / 1000
    lines = [
        f"**From these costs, on paper.** Assumed: {per_server:g} moves per second per server at the busiest hour "
        f"(one game in every {round(1 / (per_server * 30))} servers, a move every 30 s each); a process or a "
        "database core kept at half load, to absorb bursts; one gateway shard per 1,000 servers (what Discord "
        "recommends; it requires one per 2,500). A write transaction holds its lock about "
        f"{held_s * 1000:.2f} ms at most ({per_write:.0f} statements, counted as a round trip each here, though an "
        "ordinary move's transaction sends them in two messages). Per move, "
        f"{cost['game_writes']:.2f} of them lock only the move's game (the move, its board marked posted): those of "
        "different games go side by side, so they load no shared lock; "
        f"{cost['writes']:.2f} take the whole write lock (a game's end with its ratings, new challenges, the "
        "scheduler's rounds), which is what the last column adds up.",
        "",
        "| servers | moves/s at peak | gateway shards | bot processes, each with its drawing worker (CPU) | database "
        "| whole write lock busy |",
        "|---|---|---|---|---|---|",
    ]
    for servers in (10_000, 100_000):
        moves = servers * per_server
        shards = max(1, -(-servers // 1000))
        processes = max(1, int(-(-moves * bot_s // 0.5)))
        cores = moves * db_s / 0.5
        queries = moves * cost["statements"]
        busy = moves * cost["writes"] * held_s
        lines.append(
            f"| {servers:,} | {moves:,.0f} | {shards} | {processes} (of {shards // processes or 1}+ shards each) | "
            f"{max(1, round(cores + 0.49))} core(s), {queries:,.0f} statements/s | {busy:.0%} |"
        )
    lines.append("")
    lines.append(
        "A lock busy under about half the time leaves room; past that, whole-database writes wait on one another. "
        "A game's own lock is busy only while that game's move is written: a few milliseconds in every 30 s."
    )
    return "\n".join(lines)


LOCALES = {"en": "en-US", "es": "es-ES", "ja": "ja"}


def languages_table(
    figures: dict[str, dict[str, float]], args: argparse.Namespace, reference: tuple[float, float]
) -> str:
    """(a)'s latency per language, each p99 against English's in the same run (the target: within 10%)."""
    english = figures["en"]["p99"]
    rows = [
        "| language | p50 | p99 | p99 ÷ English's | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for language, s in figures.items():
        ratio = s["p99"] / english
        met = "" if language == "en" else ("yes" if ratio <= 1.10 else "**no**")
        target = "" if language == "en" else "≤ 1.10"
        figures_text = f"{s['p50']:.0f} ms | {s['p99']:.0f} ms | {ratio:.2f}"
        language_text = f"{language} ({LOCALES[language]}), {s['moves']:.0f} moves"
        rows.append(f"| {language_text} | {figures_text} | {target} | {met} |")
    rows.append(
        f"| reference: {REFERENCE}, median before / after | {reference[0]:.1f} ms / {reference[1]:.1f} ms | | | | |"
    )
    note = (
        f"(a) of the table above for each language in the same run, {args.rounds} rounds (the languages in turn, "
        f"forwards then backwards, each phase in a fresh bot process, each language's moves pooled): {args.rate:.0f} "
        f"moves/s offered over {args.games} games for {args.seconds:.0f} s, the move → answer with its board image "
        f"(drawn with that language's words). The server's preferred locale and every member's locale are the "
        f"language's, so boards, images, buttons and private answers are all worded from its catalogue. "
        f"{speed_mix(args.veloop_share)}"
    )
    return "\n".join(rows) + "\n\n" + note


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=100, help="concurrent games for (a) and (b) (default 100)")
    parser.add_argument("--rate", type=float, default=50.0, help="offered moves per second in (a) (default 50)")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each load phase (default 20)")
    parser.add_argument("--stored", type=int, default=10_000, help="stored games for (c) (default 10,000)")
    parser.add_argument("--active", type=int, default=1_000, help="of which in play (default 1,000)")
    parser.add_argument("--probe", type=int, default=100, help="active games that get a move in (c) (default 100)")
    parser.add_argument("--validate", action="store_true", help="let the fake check every body against the spec")
    parser.add_argument(
        "--veloop-share",
        type=float,
        default=0.5,
        help="share of the games in (a) and (b) that are Veloop (default 0.5)",
    )
    parser.add_argument("--write", action="store_true", help="publish the table into docs/BENCHMARKS.md")
    parser.add_argument("--deadline", action="store_true", help="measure answers within 3 s under overload instead")
    parser.add_argument("--deadline-games", type=int, default=200, help="games for --deadline (default 200)")
    parser.add_argument("--deadline-rate", type=float, default=50.0, help="interactions/s for --deadline (default 50)")
    parser.add_argument("--bot-cpus", type=str, default="", help="pin the bot process to these cores, e.g. 0")
    parser.add_argument(
        "--profile", type=Path, help="run the bot under cProfile into this file (the load phases, or with --deadline)"
    )
    parser.add_argument(
        "--database",
        choices=["sqlite", "postgresql"],
        default="sqlite",
        help="postgresql: (a) and (b) on a throw-away PostgreSQL server, with one bot process and with --shards "
        "shard processes, the cost of a move, and what 10,000 and 100,000 servers would need (bench:bot-postgresql)",
    )
    parser.add_argument("--shards", type=int, default=2, help="shard processes for --database postgresql (default 2)")
    parser.add_argument(
        "--peak-moves-per-server",
        type=float,
        default=0.01,
        help="the plan's assumption: moves per second per server at the busiest hour (default 0.01)",
    )
    parser.add_argument("--shard-processes", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument(
        "--locales", type=str, default="", help="measure (a) once per language, e.g. en,es,ja (English first)"
    )
    parser.add_argument("--rounds", type=int, default=2, help="with --locales: rounds over the languages (default 2)")
    parser.add_argument("--locale", type=str, default="en-US", help=argparse.SUPPRESS)
    parser.add_argument("--open-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--phase", choices=["speed", "populate", "memory"], help=argparse.SUPPRESS)
    parser.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR, stream=sys.stderr)

    profiling = args.phase is None and args.profile is not None and not args.deadline
    if args.phase == "speed" or profiling:
        # A speed phase; with --profile alone, the sustained-rate phase with the bot under cProfile, to see where
        # a move's time goes.
        figures = asyncio.run(
            speed(
                args.games,
                args.rate,
                args.seconds,
                args.validate,
                args.veloop_share,
                profile=args.profile if profiling else None,
                database=args.database,
                shards=args.shard_processes,
                locale=args.locale,
                closed_phase=not args.open_only,
            )
        )
        print(json.dumps(figures))
        if profiling:
            print_profile(args.profile)
        return 0
    if args.phase == "populate":
        asyncio.run(populate(args.db, args.stored, args.active, args.db.with_suffix(".ids.json")))
        return 0
    if args.phase == "memory":
        print(json.dumps(asyncio.run(memory(args.db, args.stored, args.active, args.probe, args.validate))))
        return 0

    if args.deadline:
        cpus = {int(c) for c in args.bot_cpus.split(",") if c.strip()} or None
        figures = asyncio.run(
            deadline(args.deadline_games, args.deadline_rate, args.seconds, args.validate, args.profile, cpus)
        )
        print(deadline_table(figures, args))
        if args.profile is not None:
            print_profile(args.profile)
        return 0

    common = ["--games", str(args.games), "--rate", str(args.rate), "--seconds", str(args.seconds)]
    common += ["--veloop-share", str(args.veloop_share)]
    validate = ["--validate"] if args.validate else []
    if args.locales:
        chosen = [language.strip() for language in args.locales.split(",") if language.strip()]
        if not chosen or chosen[0] != "en" or any(language not in LOCALES for language in chosen):
            parser.error(f"--locales takes languages among {', '.join(LOCALES)}, English first")
        before = reference_ms()
        pooled: dict[str, list[float]] = {language: [] for language in chosen}
        for round_number in range(args.rounds):
            for language in chosen if round_number % 2 == 0 else list(reversed(chosen)):
                phase = run_child("--phase", "speed", "--open-only", "--locale", LOCALES[language], *common, *validate)
                pooled[language].extend(float(value) for value in phase["latencies"])
        per_language = {
            language: {"p50": percentile(values, 0.50), "p99": percentile(values, 0.99), "moves": float(len(values))}
            for language, values in pooled.items()
        }
        markdown = languages_table(per_language, args, (before, reference_ms()))
        print(markdown)
        if args.write:
            from benchmarks._report import publish

            command = (
                f"python -m benchmarks.bench_bot --locales {','.join(chosen)} --games {args.games} "
                f"--rate {args.rate:g} --seconds {args.seconds:g} --write"
            )
            publish("bot-languages", markdown, command)
        return 0
    if args.database == "postgresql":
        before = reference_ms()
        on_pg = [*common, *validate, "--database", "postgresql"]
        one = run_child("--phase", "speed", *on_pg, "--shard-processes", "1")
        several = run_child("--phase", "speed", *on_pg, "--shard-processes", str(args.shards))
        lite = run_child("--phase", "speed", *common, *validate)  # the same load on the SQLite file, same run
        markdown = postgresql_table(one, several, lite, args, (before, reference_ms()))
        print(markdown)
        if args.write:
            from benchmarks._report import publish

            publish("bot-postgresql", markdown, "python -m benchmarks.bench_bot --database postgresql --write")
        return 0
    before = reference_ms()
    speed_figures = run_child("--phase", "speed", *common, *validate)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "stored.sqlite3"
        sizes = ["--stored", str(args.stored), "--active", str(args.active), "--probe", str(args.probe)]
        memory_figures = run_child("--phase", "memory", "--db", str(db), *sizes, *validate)
    markdown = table(speed_figures, memory_figures, args, (before, reference_ms()))
    print(markdown)
    if args.write:
        from benchmarks._report import publish

        publish("bot", markdown, "python -m benchmarks.bench_bot --write")
    return 0


if __name__ == "__main__":
    sys.exit(main())
