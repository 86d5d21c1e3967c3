"""Mining puzzles into the store: ``python -m bot puzzles mine`` and the bot's mining job share this.

The search itself is ``bot.puzzles.mine`` (pure); here the finished games come from the store, in the
order they were created, through the miner's cursor (``Store.games_to_mine``: a game searched once is never
searched again), and what a game gives is kept with the cursor's mark in one transaction
(``Store.record_mined``). Self-play tops puzzles up: those belong to no server. How a game is searched is
the caller's (``Miner``): the command line in its own process, the bot in its worker pool.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from bot.puzzles.mine import SELF_PLAY, mine_finished, play_and_mine
from bot.puzzles.values import Puzzle
from bot.store import Store

log = logging.getLogger(__name__)

GAME_SECONDS = 20.0
"""How long one game's walk may take: past it the positions nearer the game's start are left unsearched."""

Miner = Callable[[str, tuple[tuple[str, str], ...], tuple[str, ...], str, int, int, float], Awaitable[list[Puzzle]]]
"""Searches one finished game: (game, settings, turns, status, game id, server, seconds) -> its puzzles."""
SelfPlayer = Callable[[str, tuple[tuple[str, str], ...], int, float], Awaitable[list[Puzzle]]]
"""Plays and searches one self-play game: (game, settings, seed, seconds) -> its puzzles."""


async def _in_thread(
    game: str,
    settings: tuple[tuple[str, str], ...],
    turns: tuple[str, ...],
    status: str,
    game_id: int,
    guild_id: int,
    seconds: float,
) -> list[Puzzle]:
    return await asyncio.to_thread(mine_finished, game, settings, turns, status, game_id, guild_id, seconds)


async def _self_play_in_thread(
    game: str, settings: tuple[tuple[str, str], ...], seed: int, seconds: float
) -> list[Puzzle]:
    return await asyncio.to_thread(play_and_mine, game, settings, seed, seconds)


@dataclass
class Report:
    """What a run did: games searched, self-play games played, puzzles found (by game and length), how many new."""

    games: int = 0
    self_play: int = 0
    found: Counter[tuple[str, int]] = field(default_factory=Counter)
    new: int = 0

    def add(self, puzzles: Sequence[Puzzle], new: int) -> None:
        for puzzle in puzzles:
            self.found[(puzzle.game, puzzle.solver_turns)] += 1
        self.new += new

    def lines(self) -> list[str]:
        total = sum(self.found.values())
        out = [
            f"Searched {self.games} finished game{'s' if self.games != 1 else ''} and "
            f"{self.self_play} self-play game{'s' if self.self_play != 1 else ''}: found {total} "
            f"puzzle{'s' if total != 1 else ''}, {self.new} of them new."
        ]
        for game in sorted({game for game, _ in self.found}):
            lengths = sorted((turns, count) for (name, turns), count in self.found.items() if name == game)
            parts = ", ".join(f"{count} in {turns} turn{'s' if turns != 1 else ''}" for turns, count in lengths)
            out.append(f"  {game}: {sum(count for _, count in lengths)} ({parts})")
        return out


async def mine_stored(
    store: Store,
    *,
    games: int,
    game: str | None = None,
    seconds: float | None = None,
    game_seconds: float = GAME_SECONDS,
    miner: Miner = _in_thread,
    report: Report | None = None,
    ready: Callable[[], bool] = lambda: True,
) -> Report:
    """Search up to ``games`` finished games not searched yet (oldest first), keeping what each gives.

    ``seconds`` bounds the run: no game is started past it, nor while ``ready`` says no (a busy worker pool).
    """
    report = report or Report()
    deadline = None if seconds is None else time.perf_counter() + seconds
    for info in await store.games_to_mine(games, game):
        if (deadline is not None and time.perf_counter() > deadline) or not ready():
            break
        settings = tuple(sorted(info.settings.items()))
        budget = game_seconds if deadline is None else max(0.0, min(game_seconds, deadline - time.perf_counter()))
        try:
            puzzles = await miner(info.kind.name, settings, info.turns, info.status, info.id, info.guild_id, budget)
        except Exception:
            # A game the search cannot take (a worker that died on it twice, say) is marked searched with nothing,
            # or it would come first again in every later run and hold every game behind it.
            log.exception("Searching game %d for puzzles failed; it is skipped from now on", info.id)
            puzzles = []
        new = await store.record_mined(info.id, puzzles)
        report.games += 1
        report.add(puzzles, new)
    return report


async def top_up(
    store: Store,
    *,
    count: int,
    game: str | None = None,
    seed: int,
    seconds: float | None = None,
    game_seconds: float = GAME_SECONDS,
    player: SelfPlayer = _self_play_in_thread,
    report: Report | None = None,
    choices: Sequence[tuple[str, Mapping[str, str]]] = SELF_PLAY,
    ready: Callable[[], bool] = lambda: True,
) -> Report:
    """Play and search ``count`` self-play games (of ``game``, or each game in turn), seeds drawn from ``seed``.

    The boards (``choices``) take turns, from one ``seed`` picks.
    """
    report = report or Report()
    deadline = None if seconds is None else time.perf_counter() + seconds
    options = [(name, settings) for name, settings in choices if game is None or name == game]
    rng = random.Random(seed)
    first = rng.randrange(len(options))  # a round of the job plays one game: not always the same board
    for number in range(count):
        if (deadline is not None and time.perf_counter() > deadline) or not ready():
            break
        name, settings = options[(first + number) % len(options)]
        budget = game_seconds if deadline is None else max(0.0, min(game_seconds, deadline - time.perf_counter()))
        puzzles = await player(name, tuple(sorted(settings.items())), rng.randrange(1 << 30), budget)
        new = await store.add_self_play_puzzles(puzzles)
        report.self_play += 1
        report.add(puzzles, new)
    return report


# --------------------------------------------------------------------------- the bot's job

JOB_GAMES = 3
"""Finished games one round of the bot's job searches at most."""
JOB_SECONDS = 3.0
"""How long one game's search may hold a worker in the bot's job (an AI turn asked meanwhile waits at most this)."""
TOP_UP_BELOW = 50
"""A server seeing fewer puzzles of a game than this gets one more self-play game searched per round."""
GAMES: tuple[str, ...] = ("veletas", "veloop")


class Pool(Protocol):
    """What the job needs of the AI's worker pool (``cogs._ai_pool.PooledAi``)."""

    def idle(self) -> bool: ...

    async def mine_game(
        self,
        game: str,
        settings: tuple[tuple[str, str], ...],
        turns: tuple[str, ...],
        status: str,
        game_id: int,
        guild_id: int,
        seconds: float,
    ) -> list[Puzzle]: ...

    async def mine_self_play(
        self, game: str, settings: tuple[tuple[str, str], ...], seed: int, seconds: float
    ) -> list[Puzzle]: ...


async def mining_round(store: Store, pool: Pool, guild_ids: Sequence[int], *, seed: int) -> Report:
    """One round of the bot's job: a few newly finished games, then self-play for a game some server is short of,
    on the settings most played in finished games of it (``SELF_PLAY``'s boards before any).

    Every search is a job of the pool's lowest priority, started only while the pool is idle, each held to
    ``JOB_SECONDS``: AI turns, analyses and reviews always go first.
    """
    report = await mine_stored(store, games=JOB_GAMES, game_seconds=JOB_SECONDS, miner=pool.mine_game, ready=pool.idle)
    for game in GAMES:
        short = False
        for guild_id in guild_ids:
            if await store.puzzle_count(game, guild_id) < TOP_UP_BELOW:
                short = True
                break
        if short:
            played = await store.settings_played(game)
            await top_up(
                store,
                count=1,
                game=game,
                choices=[(game, settings) for settings in played] or SELF_PLAY,
                seed=seed + GAMES.index(game),
                game_seconds=JOB_SECONDS,
                player=pool.mine_self_play,
                report=report,
                ready=pool.idle,
            )
    return report


# --------------------------------------------------------------------------- the command line

USAGE = "python -m bot puzzles mine [--database PATH|URL] [--games N] [--self-play N] [--game NAME] [--seconds S]"


def parser() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(prog="python -m bot puzzles mine", description="Mine puzzles into the database.")
    out.add_argument("--database", help="an SQLite file or a postgresql:// URL (default: DATABASE_URL, DATABASE_PATH)")
    out.add_argument("--games", type=int, default=50, help="finished games to search, oldest unsearched first")
    out.add_argument("--self-play", type=int, default=0, help="self-play games to play and search")
    out.add_argument("--game", choices=("veletas", "veloop"), help="only this game")
    out.add_argument("--seconds", type=float, default=None, help="stop starting new games after this long")
    out.add_argument("--seed", type=int, default=None, help="the self-play games' seed (default: random)")
    return out


def main(args: Sequence[str], database: str | Path) -> int:
    """``python -m bot puzzles mine ...``; ``database`` is the configured one (``--database`` overrides it)."""
    if list(args[:1]) != ["mine"]:
        print(f"veletas-bot: usage: {USAGE}", file=sys.stderr)
        return 2
    options = parser().parse_args(list(args[1:]))
    if options.games < 0 or options.self_play < 0:
        print("veletas-bot: --games and --self-play count games: 0 or more", file=sys.stderr)
        return 2
    target: str | Path = options.database or database
    if isinstance(target, str) and not target.startswith("postgres"):
        target = Path(target)
    if isinstance(target, Path) and not target.exists():
        print(f"veletas-bot: no database at {target} (check DATABASE_PATH or --database)", file=sys.stderr)
        return 1
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(1 << 30)
    started = time.perf_counter()
    cpu = time.process_time()

    async def run() -> Report:
        store = await Store.open(target)
        try:
            report = await mine_stored(store, games=options.games, game=options.game, seconds=options.seconds)
            left = None if options.seconds is None else max(0.0, options.seconds - (time.perf_counter() - started))
            return await top_up(
                store, count=options.self_play, game=options.game, seed=seed, seconds=left, report=report
            )
        finally:
            await store.close()

    from bot.store import StoreError

    try:
        report = asyncio.run(run())
    except StoreError as exc:
        print(f"veletas-bot: {exc}", file=sys.stderr)
        return 1
    for line in report.lines():
        print(line)
    print(
        f"Took {time.perf_counter() - started:.1f} s ({time.process_time() - cpu:.1f} s of this process's CPU; "
        "searches run in a thread of it)."
    )
    return 0
