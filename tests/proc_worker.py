"""A second (third…) bot process for the multi-process tests: ``python tests/proc_worker.py MODE TARGET …``.

MODE ``race GAME_ID``: opens the store, then for every ``go VERSION`` line on stdin plays a legal turn of
the game for whoever is to act, as one seen at VERSION, and prints ``landed PLY`` or ``refused``.

MODE ``scheduler BASE SPEED SLOW``: runs the one scheduler on the store with a clock that runs SPEED times
faster than the wall clock from the epoch second BASE (so a one-minute clock falls in a second), and
flags each due game; prints ``took ROW GAME`` when its handler gets a row and ``flagged GAME`` when its
flag landed. SLOW (seconds) is spent inside the handler before flagging: a process killed then dies
holding rows it leased.

MODE ``resign BEHIND GAME_ID…``: opens the store with a clock BEHIND seconds slow, waits for a ``go`` line,
then has the opponent of each game's challenger resign it, in order, and prints ``done``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.errors import UserError
from bot.scheduler import Scheduler
from bot.store import Store
from bot.store.values import DueRow


def scaled_clock(base: float, speed: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(base + (time.time() - base) * speed, dt.UTC)


async def race(target: str, game_id: int) -> None:
    store = await Store.open(target)
    rng = random.Random()
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    try:
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            version = int(line.split()[1])
            info = await store.get_game(game_id)
            actor = info.user_to_act
            legal = [m for m in info.state.position.legal_moves() if not m.is_pass]  # type: ignore[attr-defined]
            try:
                played = await store.play(game_id, actor or 0, str(rng.choice(legal)), expected_version=version)
                print("landed", played.ply, flush=True)
            except UserError:
                print("refused", flush=True)
    finally:
        await store.close()


async def scheduler(target: str, base: float, speed: float, slow: float) -> None:
    store = await Store.open(target, clock=lambda: scaled_clock(base, speed))

    async def on_deadline(row: DueRow) -> None:
        print("took", row.id, row.game_id, flush=True)
        if slow:
            await asyncio.sleep(slow)
        ended = await store.flag(row.game_id, due_id=row.id)
        if ended is not None:
            print("flagged", ended.id, flush=True)

    # Leases and gaps are in the store's (fast) seconds; sleeps are real ones, so the loop looks often.
    runner = Scheduler(store, {"deadline": on_deadline}, tick=0.05, lease=60, batch=5, gap_allowed=1e9)
    print("ready", flush=True)
    try:
        await runner.run()
    finally:
        await store.close()


async def resign_all(target: str, behind: float, game_ids: list[int]) -> None:
    store = await Store.open(target, clock=lambda: dt.datetime.fromtimestamp(time.time() - behind, dt.UTC))
    print("ready", flush=True)
    try:
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        for game_id in game_ids:
            info = await store.get_game(game_id)
            await store.resign(game_id, info.opponent_id or 0)
        print("done", flush=True)
    finally:
        await store.close()


def main(argv: list[str]) -> None:
    mode, target = argv[1], argv[2]
    if mode == "race":
        asyncio.run(race(target, int(argv[3])))
    elif mode == "scheduler":
        asyncio.run(scheduler(target, float(argv[3]), float(argv[4]), float(argv[5])))
    elif mode == "resign":
        asyncio.run(resign_all(target, float(argv[3]), [int(arg) for arg in argv[4:]]))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv)
