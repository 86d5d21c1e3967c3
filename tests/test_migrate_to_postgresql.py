"""``python -m bot migrate --to postgresql://…``: a populated SQLite file copied whole into an empty PostgreSQL
database, counted, and never over a database that holds anything."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from dbtools import columns, query, snapshot, tables
from store_fixtures import Clock
from test_store import ALICE, BOB, CAROL, GUILD, play_turns, some_turn
from test_store_clocks import veloop_game
from test_store_tournaments import DAVE, open_games, plan, tournament

from bot.clocks import TimeControl
from bot.store import Store

ROOT = Path(__file__).resolve().parent.parent


def _migrate(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_PATH", "DATABASE_URL")}
    return subprocess.run(
        [sys.executable, "-m", "bot", "migrate", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


async def _populate(path: Path, clock: Clock) -> list[int]:
    """A bot's life in a file: games in every state with their moves, rated results, clocks, settings."""
    rng = random.Random("migrate")
    store = await Store.open(path, clock=clock)
    ids: list[int] = []
    try:
        for number in range(6):
            channel = 7000 + number
            first, second = [(ALICE, BOB), (BOB, CAROL), (CAROL, ALICE)][number % 3]
            info = await store.create_challenge(
                guild_id=GUILD,
                channel_id=channel,
                challenger_id=first,
                opponent_id=second,
                where="here",
                expires_at=None,
                settings={"variant": "small", "rules": "current"},
                rated=True,
            )
            info = await store.accept_challenge(info.id, second, channel_id=channel)
            info = await play_turns(store, info, 4 + number, rng)
            if number % 2 == 0 and info.status == "active":
                info = await store.resign(info.id, second)
            ids.append(info.id)
        ids.append((await veloop_game(store, TimeControl.parse("10+5"), channel=7100)).id)  # a clock, due rows
        waiting = await store.create_challenge(
            guild_id=GUILD, channel_id=7200, challenger_id=ALICE, opponent_id=None, where="here",
            expires_at=clock.now.replace(year=2030),
        )  # fmt: skip
        ids.append(waiting.id)
        # A tournament in its first round: players, a round, pairings with their threads and games, the log.
        cup = await tournament(store, rounds=2)
        played, running = await open_games(store, cup.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
        await store.resign(played.id, BOB)
        ids += [played.id, running.id]
        await store.set_theme(ALICE, "dark")
        await store.set_notify(BOB, mode="dm")
        await store.set_guild_settings(GUILD, analysis=False, time_control=TimeControl.parse("5+3"))
        await store.mark_departed(GUILD, [CAROL])
        await store.set_meta("command-hash", "abc")
        await store.keep_alive(gap_allowed=90)
    finally:
        await store.close()
    return ids


@pytest.mark.slow
async def test_a_populated_file_is_copied_whole_and_the_copy_plays_on(
    sqlite_path: Path, pg_url: str, clock: Clock
) -> None:
    ids = await _populate(sqlite_path, clock)
    done = _migrate("--to", pg_url, "--from", str(sqlite_path))
    assert done.returncode == 0, done.stderr
    assert "every table's count matches the file" in done.stdout
    # Every row of every table, value for value (the same text on both sides: ids, times, settings JSON).
    lite_tables = set(tables(sqlite_path))
    assert lite_tables | {"schema_version"} == set(tables(pg_url))
    for table in sorted(lite_tables):
        order = ", ".join(str(i + 1) for i in range(len(columns(sqlite_path, table))))
        lite = query(sqlite_path, f"SELECT * FROM {table} ORDER BY {order}")
        pg = query(pg_url, f"SELECT * FROM {table} ORDER BY {order}")
        assert pg == lite, table
        assert f"{table}: {len(lite)} rows" in done.stdout
    assert query(pg_url, "SELECT COUNT(*) FROM rating_changes")[0][0] > 0, "rated games and their changes came"
    assert query(pg_url, "SELECT COUNT(*) FROM due")[0][0] > 0, "what falls due came"
    assert query(pg_url, "SELECT COUNT(*) FROM tournament_pairings WHERE result IS NOT NULL")[0][0] == 1
    assert query(pg_url, "SELECT COUNT(*) FROM tournament_players")[0][0] == 4, "the tournament came whole"
    lite_store = await Store.open(sqlite_path, clock=clock)
    pg_store = await Store.open(pg_url, clock=clock)
    try:
        for game_id in ids:
            assert await pg_store.get_game(game_id) == await lite_store.get_game(game_id)
            assert await pg_store.move_log(game_id) == await lite_store.move_log(game_id)
            assert await pg_store.rating_changes(game_id) == await lite_store.rating_changes(game_id)
        board = await lite_store.leaderboard(GUILD, "veletas", {"variant": "small", "rules": "current"},
                                             offset=0, limit=10, established=False)  # fmt: skip
        assert board[1] > 0
        assert board == await pg_store.leaderboard(
            GUILD, "veletas", {"variant": "small", "rules": "current"}, offset=0, limit=10, established=False
        )
        assert await pg_store.get_theme(ALICE) == "dark"
        assert await pg_store.get_guild_settings(GUILD) == await lite_store.get_guild_settings(GUILD)
        # The copy plays on: a new game gets a new id (after every copied one), and moves land.
        fresh = await pg_store.create_challenge(
            guild_id=GUILD, channel_id=7300, challenger_id=BOB, opponent_id=ALICE, where="here", expires_at=None,
            settings={"variant": "small", "rules": "current"},
        )  # fmt: skip
        assert fresh.id == max(ids) + 1
        live = await pg_store.accept_challenge(fresh.id, ALICE, channel_id=7300)
        actor = live.user_to_act
        assert actor is not None
        moved = await pg_store.play(live.id, actor, some_turn(live.game, random.Random(1)))
        assert moved.ply == 1
    finally:
        await lite_store.close()
        await pg_store.close()


async def test_a_target_that_holds_anything_is_refused_and_left_as_it_was(
    sqlite_path: Path, pg_url: str, clock: Clock
) -> None:
    await _populate(sqlite_path, clock)
    other = await Store.open(pg_url, clock=clock)
    await other.set_meta("owner", "another bot")
    await other.close()
    before = snapshot(pg_url)
    done = _migrate("--to", pg_url, "--from", str(sqlite_path))
    assert done.returncode == 1
    assert "is not empty: meta (1 rows)" in done.stderr and "Traceback" not in done.stderr
    assert snapshot(pg_url) == before


@pytest.mark.slow
async def test_wrong_arguments_and_a_missing_file_are_refused_in_one_line(tmp_path: Path, pg_url: str) -> None:
    bad = _migrate("--to", str(tmp_path / "x.sqlite3"))
    assert bad.returncode == 2 and "--to must be a PostgreSQL URL" in bad.stderr
    assert _migrate().returncode == 2
    missing = _migrate("--to", pg_url, "--from", str(tmp_path / "nothing.sqlite3"))
    assert missing.returncode == 1 and "there is no SQLite database at" in missing.stderr
    assert tables(pg_url) == [], "nothing was created"
    secret = _migrate("--to", "postgresql://bot:s3cret@127.0.0.1:1/veletas", "--from", str(tmp_path / "x.sqlite3"))
    assert secret.returncode == 1 and "s3cret" not in secret.stdout + secret.stderr
