"""A bot process killed outright (SIGKILL: no cleanup, no finally) must lose nothing it confirmed
and leave a database (an SQLite file, or PostgreSQL) whose every game still agrees with its move log."""

from __future__ import annotations

import datetime as dt
import os
import random
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from dbtools import raw
from test_store import check_consistent, play_turns

from bot.store import Store

pytestmark = [
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL"),
    pytest.mark.slow,  # a writing process killed, again and again
]

ROOT = Path(__file__).resolve().parent.parent

# Keeps three games going at once, printing "game_id ply" after every committed turn.
_BUSY_WRITER = textwrap.dedent(
    """
    import asyncio, datetime as dt, random, sys
    sys.path.insert(0, {tests!r})
    from bot.store import Store
    from test_store import some_turn

    async def main() -> None:
        store = await Store.open({path!r})
        rng = random.Random({seed!r})
        channel = 1
        games = []
        while True:
            while len(games) < 3:
                channel += 1
                info = await store.create_challenge(
                    guild_id=1, channel_id=channel, challenger_id=11, opponent_id=22, settings={{"variant": "small",
                    "rules": rng.choice(["current", "classic"])}}, where="here", expires_at=None)
                games.append(await store.accept_challenge(info.id, 22, channel_id=channel))
                print(info.id, 0, flush=True)
            i = rng.randrange(len(games))
            info = games[i]
            info = await store.play(info.id, info.user_to_act, some_turn(info.game, rng))
            print(info.id, info.ply, flush=True)
            if info.status == "active":
                games[i] = info
            else:
                games.pop(i)

    asyncio.run(main())
    """
)

# Stops inside a write transaction, after the games row has changed but before the log has.
_HALF_WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from bot.store import Store

    async def main() -> None:
        store = await Store.open({path!r})
        async with store._transaction() as db:
            await db.execute("UPDATE games SET ply = ply + 1, turns = turns || ' a1' WHERE id = {game_id}")
            print("inside", flush=True)
            await asyncio.Event().wait()

    asyncio.run(main())
    """
)


def _spawn(script: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.parametrize("seed", [1, 2])
async def test_killed_while_writing_loses_nothing_it_confirmed(db_path: Path, seed: int) -> None:
    path = db_path
    proc = _spawn(_BUSY_WRITER.format(tests=str(ROOT / "tests"), path=str(path), seed=seed))
    confirmed: dict[int, int] = {}
    lines = 40 + 13 * seed
    assert proc.stdout is not None
    try:
        for _ in range(lines):
            line = proc.stdout.readline()
            assert line, f"the writer died on its own: {proc.stderr.read() if proc.stderr else ''}"
            game_id, ply = map(int, line.split())
            confirmed[game_id] = ply
    finally:
        _kill(proc)
    # What it confirmed between our last read and the kill is confirmed too (a busy machine reads late).
    for line in proc.stdout:
        if line.endswith("\n"):
            game_id, ply = map(int, line.split())
            confirmed[game_id] = ply

    check_consistent(path)
    store = await Store.open(path)
    try:
        for game_id, ply in confirmed.items():
            stored = await store.get_game(game_id)
            # Everything confirmed is there; at most the one turn in flight went further.
            assert ply <= stored.ply <= ply + 1, f"game {game_id}: confirmed {ply}, stored {stored.ply}"
            assert stored.game.turns == stored.turns
        live = [g for g in await store.live_games(1)]
        assert live, "the writer keeps three games in play"
        after = await play_turns(store, live[0], 1, random.Random(seed))
        assert after.ply == live[0].ply + 1
    finally:
        await store.close()
    check_consistent(path)


async def test_a_transaction_cut_short_leaves_no_trace(db_path: Path) -> None:
    path = db_path
    store = await Store.open(path)
    info = await store.create_challenge(
        guild_id=1,
        channel_id=2,
        challenger_id=11,
        opponent_id=22,
        settings={"variant": "small", "rules": "current"},
        where="here",
        expires_at=dt.datetime.now(dt.UTC) + dt.timedelta(minutes=15),
    )
    info = await store.accept_challenge(info.id, 22, channel_id=2)
    await store.close()

    proc = _spawn(_HALF_WRITER.format(path=str(path), game_id=info.id))
    assert proc.stdout is not None
    try:
        assert proc.stdout.readline().strip() == "inside"
    finally:
        _kill(proc)

    check_consistent(path)
    store = await Store.open(path)
    try:
        assert await store.get_game(info.id) == info
    finally:
        await store.close()


# Plays rated 5×5 Veloop games among four members, one after another, printing each finished game's id.
_RATED_WRITER = textwrap.dedent(
    """
    import asyncio, random
    from bot.store import Store

    async def main() -> None:
        store = await Store.open({path!r})
        rng = random.Random({seed!r})
        channel = 1
        while True:
            channel += 1
            first, second = rng.sample([11, 22, 33, 44], 2)
            info = await store.create_challenge(
                guild_id=1, channel_id=channel, challenger_id=first, opponent_id=second, where="here",
                expires_at=None, game="veloop", settings={{"board": "5", "protocol": "alternating"}}, rated=True)
            info = await store.accept_challenge(info.id, second, channel_id=channel)
            while info.status == "active":
                if rng.random() < 0.05 and info.state.both_have_played:  # before that: aborted, unrated
                    info = await store.resign(info.id, info.user_to_act)
                    break
                legal = [m for m in info.state.position.legal_moves()]
                info = await store.play(info.id, info.user_to_act, str(rng.choice(legal)))
            print(info.id, flush=True)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("seed", [3, 4])
async def test_killed_while_rating_games_leaves_every_rating_whole(db_path: Path, seed: int) -> None:
    """A game's end and its rating changes land together: after a kill at any moment, every finished rated
    game has its changes, none is there without its game, and the ratings are exactly what a rebuild gives."""
    path = db_path
    proc = _spawn(_RATED_WRITER.format(path=str(path), seed=seed))
    finished: list[int] = []
    assert proc.stdout is not None
    try:
        for _ in range(6 + seed):
            line = proc.stdout.readline()
            assert line, f"the writer died on its own: {proc.stderr.read() if proc.stderr else ''}"
            finished.append(int(line))
    finally:
        _kill(proc)

    check_consistent(path)
    with raw(path) as db:
        ended = {int(r[0]) for r in db.execute("SELECT id FROM games WHERE status = 'finished' AND rated = 1")}
        changed = {
            int(r[0]): int(r[1]) for r in db.execute("SELECT game_id, COUNT(*) FROM rating_changes GROUP BY game_id")
        }
        before = list(db.execute("SELECT * FROM ratings ORDER BY scope, game, settings, user_id"))
    assert set(finished) <= ended, "every game confirmed finished is stored finished"
    assert set(changed) == ended and set(changed.values()) == {4}, "two players, two pools, for every game"
    store = await Store.open(path)
    try:
        assert await store.rebuild_ratings() == len(ended)
    finally:
        await store.close()
    with raw(path) as db:
        after = list(db.execute("SELECT * FROM ratings ORDER BY scope, game, settings, user_id"))
    assert after == before, "the stored ratings are exactly those the stored games give"
