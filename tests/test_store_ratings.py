"""Ratings in the store, on real SQLite files: written with the game's end, exactly what Glicko-2 says, rebuildable."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from dbtools import raw
from store_fixtures import Clock
from test_store import ALICE, BOB, CAROL, CHANNEL, GUILD

from bot.ratings import GLOBAL_SCOPE, PoolKey, Rating, rate_game
from bot.rules import veloop
from bot.store import Store
from bot.store.values import GameInfo

SETTINGS = {"board": "5", "protocol": "alternating"}


async def game(
    store: Store,
    first: int,
    second: int,
    *,
    rated: bool = True,
    ai_level: int | None = None,
    channel: int = CHANNEL,
    opened: bool = True,
) -> GameInfo:
    """A started game; ``opened``: each player has made a first move, so a resignation or a flag decides it
    (before that it would be aborted, rating nobody)."""
    info = await store.create_challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger_id=first,
        opponent_id=second,
        where="here",
        expires_at=None,
        game="veloop",
        settings=SETTINGS,
        rated=rated,
        ai_level=ai_level,
    )
    info = await store.accept_challenge(info.id, second, channel_id=channel)
    return await open_game(store, info) if opened else info


async def open_game(store: Store, info: GameInfo) -> GameInfo:
    """Each player's first move (the first legal one): from here on the game is decided, not aborted."""
    for _ in range(2):
        actor = info.user_to_act
        assert actor is not None
        info = await store.play(info.id, actor, str(info.state.position.legal_moves()[0]))
    return info


def drawn_moves() -> tuple[str, ...]:
    """A 5×5 alternating game that ends drawn by passes (the players' moves only; passes are forced)."""
    for seed in range(200):
        rng = random.Random(seed)
        state = veloop.Game.new(5, "alternating")
        while state.phase == "play":
            state = state.play(rng.choice(state.position.legal_moves()))
        outcome = state.outcome
        if outcome is not None and outcome.winner is None:
            return state.turns
    raise AssertionError("no drawn game found")


async def play_out(store: Store, info: GameInfo, turns: tuple[str, ...]) -> GameInfo:
    for turn in turns:
        actor = info.user_to_act
        assert actor is not None
        info = await store.play(info.id, actor, turn)
    return info


def ratings_rows(path: Path) -> list[tuple[object, ...]]:
    with raw(path) as db:
        return list(db.execute("SELECT * FROM ratings ORDER BY scope, user_id"))


async def test_rated_games_change_ratings_exactly_as_glicko2_says_and_rebuild_gives_them_back(
    store: Store, db_path: Path, clock: Clock
) -> None:
    expected: dict[int, Rating] = {}
    results = [(ALICE, BOB, "resign-second"), (BOB, CAROL, "resign-first"), (CAROL, ALICE, "draw")]
    draw = drawn_moves()
    for number, (first, second, how) in enumerate(results):
        clock.advance(hours=1)
        info = await game(store, first, second, channel=CHANNEL + number, opened=how != "draw")
        if how == "draw":
            ended = await play_out(store, info, draw)
            assert ended.status == "finished" and ended.winner_id is None
            score = 0.5
        else:
            loser = second if how == "resign-second" else first
            ended = await store.resign(info.id, loser)
            score = 1.0 if loser == second else 0.0
        when = clock.now.timestamp()
        a, b = rate_game(expected.get(first, Rating()), expected.get(second, Rating()), score, when)
        expected[first], expected[second] = a, b
        changes = await store.rating_changes(info.id)
        assert {(c.scope, c.user_id) for c in changes} == {
            (GUILD, first),
            (GUILD, second),
            (GLOBAL_SCOPE, first),
            (GLOBAL_SCOPE, second),
        }
        mine = next(c for c in changes if c.scope == GUILD and c.user_id == first)
        assert mine.after == pytest.approx(a.value) and mine.text.startswith(f"{round(mine.before)} → ")
    page, total = await store.leaderboard(GUILD, "veloop", SETTINGS, offset=0, limit=10, established=False)
    assert total == 3
    assert [(user, round(r.value, 6), round(r.deviation, 6)) for user, r, _ in page] == sorted(
        ((user, round(r.value, 6), round(r.deviation, 6)) for user, r in expected.items()),
        key=lambda t: (-t[1], t[0]),
    )
    records = {user: record for user, _, record in page}
    assert records == {ALICE: (1, 0, 1), BOB: (0, 2, 0), CAROL: (1, 0, 1)}
    before = ratings_rows(db_path)
    assert await store.rebuild_ratings() == 3
    assert ratings_rows(db_path) == before, "recomputing from the stored games gives the stored values"


async def test_casual_and_ai_games_change_no_rating(store: Store, db_path: Path) -> None:
    casual = await game(store, ALICE, BOB, rated=False)
    await store.resign(casual.id, BOB)
    against_ai = await game(store, ALICE, CAROL, rated=True, ai_level=2, channel=CHANNEL + 1)
    assert not against_ai.rated, "a game against the AI is never rated"
    await store.resign(against_ai.id, ALICE)
    assert ratings_rows(db_path) == []
    assert await store.rating_changes(casual.id) == []
    assert await store.rebuild_ratings() == 0


async def live_game(store: Store, channel: int = CHANNEL) -> GameInfo:
    """A rated game between Alice and Bob with a minute each, started, nobody has moved yet."""
    from bot.clocks import TimeControl

    info = await store.create_challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger_id=ALICE,
        opponent_id=BOB,
        where="here",
        expires_at=None,
        game="veloop",
        settings=SETTINGS,
        rated=True,
        time_control=TimeControl.parse("1+0"),
    )
    return await store.accept_challenge(info.id, BOB, channel_id=channel)


async def test_a_time_forfeit_counts_as_a_loss(store: Store, clock: Clock) -> None:
    info = await open_game(store, await live_game(store))
    clock.advance(minutes=2)
    ended = await store.flag(info.id)
    assert ended is not None and ended.winner_id == BOB
    changes = {c.user_id: c for c in await store.rating_changes(info.id) if c.scope == GUILD}
    assert changes[BOB].after > changes[BOB].before and changes[ALICE].after < changes[ALICE].before


async def test_leaderboard_pages_and_hides_provisional_players(store: Store, clock: Clock) -> None:
    players = [100 + i for i in range(6)]
    for i, player in enumerate(players[1:]):
        clock.advance(hours=1)
        info = await game(store, players[0], player, channel=CHANNEL + i)
        await store.resign(info.id, player)
    first, total = await store.leaderboard(GUILD, "veloop", SETTINGS, offset=0, limit=4, established=False)
    second, _ = await store.leaderboard(GUILD, "veloop", SETTINGS, offset=4, limit=4, established=False)
    assert total == 6 and len(first) == 4 and len(second) == 2
    values = [r.value for _, r, _ in first + second]
    assert values == sorted(values, reverse=True) and first[0][0] == players[0]
    established, count = await store.leaderboard(GUILD, "veloop", SETTINGS, offset=0, limit=10, established=True)
    assert established == [] and count == 0, "everybody is still provisional after a few games"
    other = await store.leaderboard(GUILD + 1, "veloop", SETTINGS, offset=0, limit=10, established=False)
    assert other == ([], 0), "nothing of another server"
    assert PoolKey.of(GUILD, "veloop", SETTINGS).settings == "board=5,protocol=alternating"


async def test_the_rebuild_command_recomputes_the_stored_ratings(store: Store, db_path: Path) -> None:
    import os
    import subprocess
    import sys

    for number, loser in enumerate((BOB, ALICE, BOB)):
        info = await game(store, ALICE, BOB, channel=CHANNEL + number)
        await store.resign(info.id, loser)
    before = ratings_rows(db_path)
    with raw(db_path) as db:
        db.execute("UPDATE ratings SET value = 0")  # damaged by hand: the rebuild must restore it
    where = "DATABASE_URL" if isinstance(db_path, str) else "DATABASE_PATH"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_PATH", "DATABASE_URL")} | {where: str(db_path)}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "ratings", "rebuild"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "Ratings rebuilt from 3 rated games" in done.stdout
    assert ratings_rows(db_path) == before
    bad = subprocess.run([sys.executable, "-m", "bot", "ratings"], env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "usage" in bad.stderr


def rating_tables(path: Path | str) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    with raw(path) as db:
        return (
            list(db.execute("SELECT * FROM ratings ORDER BY scope, user_id")),
            list(db.execute("SELECT * FROM rating_changes ORDER BY game_id, scope, user_id")),
        )


async def test_games_of_one_player_ended_at_once_from_two_connections_rebuild_to_exactly_the_live_ratings(
    store: Store, db_path: Path | str, clock: Clock
) -> None:
    """Two processes end games of one player at the same moment; the one whose clock read earlier (or that read it
    before waiting for the write lock) commits second. The rebuild replays the order the updates committed."""
    import asyncio
    import datetime as dt

    def behind() -> dt.datetime:
        return clock.now - dt.timedelta(seconds=1)

    other = await Store.open(db_path, clock=behind)
    try:
        games = [await game(store, ALICE, 300 + i, channel=CHANNEL + i) for i in range(12)]
        first, second = games[0], games[1]
        await store.resign(first.id, 300)  # ends at T, rated first
        await other.resign(second.id, ALICE)  # ends at T - 1 s, rated second
        assert (await store.get_game(second.id)).ended_at < (await store.get_game(first.id)).ended_at
        rest = games[2:]
        for mine, theirs in zip(rest[::2], rest[1::2], strict=True):
            clock.advance(seconds=1)
            await asyncio.gather(store.resign(mine.id, ALICE), other.resign(theirs.id, theirs.opponent_id or 0))
    finally:
        await other.close()
    live = rating_tables(db_path)
    assert len(live[1]) == 12 * 4
    assert await store.rebuild_ratings() == 12
    assert rating_tables(db_path) == live, "the rebuild gives back exactly what the games wrote as they ended"
    history = await store.rating_history(GUILD, ALICE, "veloop", SETTINGS)
    page, _ = await store.leaderboard(GUILD, "veloop", SETTINGS, offset=0, limit=20, established=False)
    alice_now = next(r for user, r, _ in page if user == ALICE)
    assert len(history) == 12 and history[-1] == (alice_now.value, alice_now.deviation), "history ends where she is"


async def test_games_rated_before_the_commit_order_was_kept_are_numbered_by_end_time(
    db_path: Path | str, clock: Clock
) -> None:
    from bot.store.schema import MIGRATIONS

    numbering = next(i for i, steps in enumerate(MIGRATIONS) if any("rating_seq INTEGER" in step for step in steps))
    await (await Store.open(db_path, clock=clock, migrations=MIGRATIONS[:numbering])).close()
    with raw(db_path) as db:
        # Four finished rated games (ids 1..4) ended in the order 3, 1, 4; game 2 was a forfeit and rated nobody.
        for game_id, ended in ((1, 200.0), (2, 250.0), (3, 100.0), (4, 300.0)):
            db.execute(
                "INSERT INTO games (id, guild_id, channel_id, origin_channel_id, status, place, challenger_id, "
                "opponent_id, created_at, updated_at, rated, ended_at, game, settings) "
                "VALUES (?, ?, ?, ?, 'finished', 'here', ?, ?, 0, ?, 1, ?, 'veloop', ?)",
                (game_id, GUILD, CHANNEL + game_id, CHANNEL, ALICE, BOB, ended, ended, '{"board":"5"}'),
            )
            if game_id != 2:
                db.execute(
                    "INSERT INTO rating_changes (game_id, scope, user_id, before, before_dev, after, after_dev) "
                    "VALUES (?, ?, ?, 1500, 350, 1500, 300)",
                    (game_id, GUILD, ALICE),
                )
    async with await Store.open(db_path, clock=clock):
        pass
    with raw(db_path) as db:
        numbered = dict(db.execute("SELECT id, rating_seq FROM games ORDER BY id"))
    assert numbered == {1: 2, 2: None, 3: 1, 4: 3}


async def test_a_game_ended_before_both_players_moved_is_a_no_show_or_aborted_and_rates_nobody(
    store: Store, db_path: Path, clock: Clock
) -> None:
    rated = await game(store, ALICE, BOB, channel=CHANNEL)  # decided: both have moved
    await store.resign(rated.id, BOB)
    before = ratings_rows(db_path)
    # The second player's first-move window passes: a no-show, no winner, no rating change.
    info = await live_game(store, CHANNEL + 1)
    info = await store.play(info.id, ALICE, str(info.state.position.legal_moves()[0]))
    clock.advance(minutes=2)
    flagged = await store.flag(info.id)
    assert flagged is not None and flagged.status == "finished" and flagged.no_show and not flagged.aborted
    assert flagged.termination == "no-show" and flagged.winner_id is None
    assert (flagged.aborted_by, flagged.aborted_how) == (BOB, None)
    assert flagged.result == "No-show: white did not make a first move in time"
    outcome = flagged.outcome
    assert outcome is not None and outcome.winner is None and not outcome.is_draw and outcome.result_token == "*"
    assert await store.get_game(info.id) == flagged
    # A resignation before the opponent moved: aborted too.
    resigned = await store.resign((await game(store, BOB, ALICE, channel=CHANNEL + 2, opened=False)).id, BOB)
    assert resigned.aborted and resigned.winner_id is None
    assert (resigned.aborted_by, resigned.aborted_how) == (BOB, "resignation")
    for ended in (flagged, resigned):
        assert await store.rating_changes(ended.id) == []
        assert (await store.get_game(ended.id)).counts_for_nothing
    assert ratings_rows(db_path) == before, "a no-show or an aborted game changes no rating and no record"
    # The rebuild agrees: it rates the decided game only.
    assert await store.rebuild_ratings() == 1
    assert ratings_rows(db_path) == before
