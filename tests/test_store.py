"""The store against real databases (an SQLite file, a PostgreSQL server): what players would lose or see wrongly
if it broke. Every test here runs on both (tests/store_fixtures.py); ``sqlite_path`` marks one about SQLite's file."""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import socket
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from dbtools import check_consistent, raw, schema_version, snapshot, tables
from store_fixtures import START, Clock

from bot.errors import (
    ChallengeClosed,
    ChallengeExists,
    ChannelBusy,
    GameFinished,
    InvalidMove,
    NoGameHere,
    NotAParticipant,
    NotYourTurn,
    RaceLost,
    TooManyChallenges,
    UndoRefused,
    UserError,
)
from bot.rules import Game, IllegalMove
from bot.rules.common import square_name
from bot.store import Store, StoreError
from bot.store.schema import MIGRATIONS
from bot.store.values import GameInfo

GUILD = 1000
CHANNEL = 2000
THREAD = 2001
ALICE = 11  # challenger: the first player
BOB = 22
CAROL = 33


# --- helpers shared with test_store_crash.py --------------------------------------------------


def some_turn(game: Game, rng: random.Random) -> str:
    """A legal turn for whoever is to act, chosen at random: setup, pie choice or move."""
    if game.phase == "pie":
        return rng.choice(["keep", "swap"])
    if game.phase == "setup":
        size = game.variant.size
        every_square = [square_name(f, r) for f in range(size) for r in range(size)]
        for _ in range(200):
            candidates = list(game.setup_squares())
            rng.shuffle(candidates)
            chosen: list[str] = []
            for square in candidates:
                # Mutually apart, so the classic edition's spacing holds among the new shooters too.
                if all(not _touching(square, other) for other in chosen):
                    chosen.append(square)
                if len(chosen) == game.shooters_to_place:
                    break
            text = ",".join(chosen)
            if game.stone_to_place:
                taken = set(game.position.pieces()) | set(chosen)
                text += "/" + rng.choice([s for s in every_square if s not in taken])
            try:
                game.play(text)
            except IllegalMove:
                continue
            return text
        raise AssertionError(f"no legal setup turn found for {game.turns}")
    return str(rng.choice(game.position.legal_moves()))


def _touching(a: str, b: str) -> bool:
    return abs(ord(a[0]) - ord(b[0])) <= 1 and abs(int(a[1:]) - int(b[1:])) <= 1


async def challenge(
    store: Store,
    *,
    opponent: int | None = BOB,
    where: str = "here",
    channel: int = CHANNEL,
    variant: str = "small",
    rules: str = "current",
    minutes: float = 15,
) -> GameInfo:
    return await store.create_challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger_id=ALICE,
        opponent_id=opponent,
        settings={"variant": variant, "rules": rules},
        where="here" if where == "here" else "thread",
        expires_at=START + dt.timedelta(minutes=minutes),
    )


async def started(store: Store, *, variant: str = "small", rules: str = "current", channel: int = CHANNEL) -> GameInfo:
    info = await challenge(store, variant=variant, rules=rules, channel=channel)
    return await store.accept_challenge(info.id, BOB, channel_id=channel)


async def play_turns(store: Store, info: GameInfo, count: int, rng: random.Random) -> GameInfo:
    for _ in range(count):
        actor = info.user_to_act
        assert actor is not None
        info = await store.play(info.id, actor, some_turn(info.game, rng))
    return info


async def refused(
    path: Path, action: Callable[[], Awaitable[object]], error: type[UserError], match: str | None = None
) -> UserError:
    """Run an action that must be refused, and prove the refusal wrote nothing at all."""
    before = snapshot(path)
    with pytest.raises(error, match=match) as caught:
        await action()
    assert snapshot(path) == before, f"a refused action ({error.__name__}) changed the database"
    return caught.value


# --- opening, migrations ----------------------------------------------------------------------


async def test_open_creates_the_directory_and_a_current_schema(sqlite_path: Path, clock: Clock) -> None:
    await (await Store.open(sqlite_path, clock=clock)).close()
    assert sqlite_path.exists()
    con = sqlite3.connect(sqlite_path)
    try:
        assert con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        found = {row[1]: row[5] for row in con.execute("PRAGMA table_list") if row[0] == "main"}
        assert {"games", "moves", "meta"} <= set(found)
        assert all(found[name] == 1 for name in ("games", "moves", "meta")), "tables must be STRICT"
    finally:
        con.close()


async def test_a_postgresql_database_gets_the_same_schema_with_64_bit_ids(pg_url: str, clock: Clock) -> None:
    s = await Store.open(pg_url, clock=clock)
    try:
        assert s.backend == "postgresql"
        # Discord ids need all 64 bits, and times their fractions of a second.
        snowflake, moment = 1_300_000_000_000_000_000, 1_767_268_800.123456
        await s.set_guild_settings(snowflake, analysis=False)
        assert (await s.get_guild_settings(snowflake)).analysis is False
    finally:
        await s.close()
    assert schema_version(pg_url) == len(MIGRATIONS)
    assert {"games", "moves", "meta", "due", "ratings", "rating_changes", "schema_version"} <= set(tables(pg_url))
    with raw(pg_url) as con:
        types = dict(
            con.execute(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'games'"
            ).fetchall()
        )
        assert types["guild_id"] == "bigint" and types["created_at"] == "double precision"
        con.execute("UPDATE guild_settings SET updated_at = ?", (moment,))
        assert con.execute("SELECT updated_at FROM guild_settings").fetchone()[0] == moment


async def test_the_schema_itself_forbids_two_games_in_one_channel(store: Store, db_path: Path) -> None:
    """Even a writer that skipped the store's checks could not put a second game in a busy channel."""
    await started(store)
    with raw(db_path, autocommit=True) as con:
        con.execute("PRAGMA foreign_keys = ON") if store.backend == "sqlite" else None
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            con.execute(
                "INSERT INTO games (guild_id, channel_id, origin_channel_id, status, place, "
                "challenger_id, opponent_id, created_at, updated_at) "
                "VALUES (?, ?, ?, 'active', 'here', ?, ?, 0, 0)",
                (GUILD, CHANNEL, CHANNEL, CAROL, BOB),
            )
        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
            con.execute("INSERT INTO moves (game_id, ply, turn, user_id, played_at) VALUES (999, 1, 'c3', 1, 0)")


async def test_reopening_runs_no_migration_twice_and_keeps_data(db_path: Path, clock: Clock) -> None:
    first = await Store.open(db_path, clock=clock)
    await first.set_meta("command-hash", "abc")
    await first.close()
    again = await Store.open(db_path, clock=clock)
    try:
        assert await again.get_meta("command-hash") == "abc"
    finally:
        await again.close()


async def test_two_processes_opening_a_fresh_file_at_once_both_succeed(db_path: Path, clock: Clock) -> None:
    a, b = await asyncio.gather(Store.open(db_path, clock=clock), Store.open(db_path, clock=clock))
    try:
        await a.set_meta("k", "from a")
        assert await b.get_meta("k") == "from a"
    finally:
        await a.close()
        await b.close()
    assert schema_version(db_path) == len(MIGRATIONS)


async def test_a_failing_migration_is_rolled_back_whole(db_path: Path, clock: Clock) -> None:
    s = await Store.open(db_path, clock=clock)
    await s.set_meta("keep", "me")
    await s.close()
    before = snapshot(db_path)
    broken = (*MIGRATIONS, ("CREATE TABLE half_done (x INTEGER) STRICT", "CREATE TABLE broken ("))
    with pytest.raises(StoreError, match=f"migration {len(MIGRATIONS) + 1} failed"):
        await Store.open(db_path, clock=clock, migrations=broken)
    assert snapshot(db_path) == before
    assert schema_version(db_path) == len(MIGRATIONS)
    assert "half_done" not in tables(db_path)


async def test_a_later_migration_applies_on_top_of_existing_data(db_path: Path, clock: Clock) -> None:
    s = await Store.open(db_path, clock=clock)
    info = await challenge(s)
    await s.close()
    extended = (*MIGRATIONS, ("CREATE TABLE later_feature (user_id INTEGER PRIMARY KEY, elo REAL NOT NULL) STRICT",))
    s = await Store.open(db_path, clock=clock, migrations=extended)
    try:
        assert (await s.get_game(info.id)) == info
    finally:
        await s.close()
    assert schema_version(db_path) == len(MIGRATIONS) + 1
    assert "later_feature" in tables(db_path)


async def test_a_database_from_a_newer_bot_is_not_touched(db_path: Path, clock: Clock) -> None:
    if isinstance(db_path, Path):
        db_path.parent.mkdir(parents=True)
        with raw(db_path) as con:
            con.execute("PRAGMA user_version = 99")
    else:
        with raw(db_path) as con:
            con.execute("CREATE TABLE schema_version (version BIGINT NOT NULL)")
            con.execute("INSERT INTO schema_version (version) VALUES (99)")
    with pytest.raises(StoreError, match="newer"):
        await Store.open(db_path, clock=clock)
    assert schema_version(db_path) == 99
    assert tables(db_path) == ([] if isinstance(db_path, Path) else ["schema_version"])


async def test_a_file_that_is_not_a_database_is_refused_in_one_clear_error(sqlite_path: Path, clock: Clock) -> None:
    sqlite_path.parent.mkdir(parents=True)
    sqlite_path.write_bytes(b"these are not the pages you are looking for" * 100)
    with pytest.raises(StoreError, match=r"cannot use .* as the bot.s database"):
        await Store.open(sqlite_path, clock=clock)


async def test_a_server_that_cannot_be_reached_is_refused_in_one_clear_error_without_the_password(
    clock: Clock,
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    with pytest.raises(
        StoreError, match=r"cannot use postgresql://bot@127\.0\.0\.1:\d+/veletas as the bot.s database"
    ) as caught:
        await Store.open(f"postgresql://bot:secret@127.0.0.1:{port}/veletas", clock=clock)
    assert "secret" not in str(caught.value)


async def test_closing_twice_is_harmless(db_path: Path, clock: Clock) -> None:
    s = await Store.open(db_path, clock=clock)
    await s.close()
    await s.close()
    if isinstance(db_path, Path):
        assert not Path(f"{db_path}-wal").exists(), "a clean close folds the WAL back into the file"


async def test_meta_values_are_stored_and_overwritten(store: Store) -> None:
    assert await store.get_meta("command-hash") is None
    await store.set_meta("command-hash", "one")
    await store.set_meta("command-hash", "two")
    assert await store.get_meta("command-hash") == "two"


# --- challenges -------------------------------------------------------------------------------


async def test_a_here_challenge_occupies_the_channel(store: Store, db_path: Path) -> None:
    first = await challenge(store)
    assert first.status == "challenge" and first.channel_id == CHANNEL and first.origin_channel_id == CHANNEL
    err = await refused(db_path, lambda: challenge(store, opponent=CAROL), ChannelBusy)
    assert "challenge is already waiting" in str(err)
    # A thread challenge will be played elsewhere, so it may still be issued from here.
    elsewhere = await challenge(store, opponent=CAROL, where="thread")
    assert elsewhere.where == "thread"


async def test_an_active_game_occupies_its_channel_until_it_ends(store: Store, db_path: Path) -> None:
    info = await started(store)
    await refused(db_path, lambda: challenge(store, opponent=CAROL), ChannelBusy, "already being played")
    await store.resign(info.id, ALICE)
    again = await challenge(store, opponent=CAROL)
    assert again.status == "challenge"


async def test_two_processes_claiming_one_channel_get_it_once(db_path: Path, clock: Clock) -> None:
    a = await Store.open(db_path, clock=clock)
    b = await Store.open(db_path, clock=clock)
    try:
        outcomes = await asyncio.gather(challenge(a), challenge(b, opponent=CAROL), return_exceptions=True)
        assert sum(isinstance(o, GameInfo) for o in outcomes) == 1
        assert sum(isinstance(o, ChannelBusy) for o in outcomes) == 1
    finally:
        await a.close()
        await b.close()


async def test_an_in_memory_store_works_for_quick_local_runs(clock: Clock) -> None:
    s = await Store.open(":memory:", clock=clock)
    try:
        info = await started(s)
        assert (await s.game_in_channel(CHANNEL)).id == info.id
    finally:
        await s.close()


async def test_a_thread_challenge_moves_into_its_thread_when_accepted(store: Store) -> None:
    info = await challenge(store, where="thread")
    with pytest.raises(NoGameHere):
        await store.game_in_channel(CHANNEL)
    accepted = await store.accept_challenge(info.id, BOB, channel_id=THREAD)
    assert accepted.status == "active"
    assert accepted.channel_id == THREAD and accepted.origin_channel_id == CHANNEL
    assert (await store.game_in_channel(THREAD)).id == info.id
    with pytest.raises(NoGameHere):
        await store.game_in_channel(CHANNEL)
    # The origin channel stays free for a game played there.
    # The channel is free again (Carol, who still has Alice's thread challenge open, is not asked twice).
    assert (await challenge(store, opponent=None)).status == "challenge"


async def test_accepting_into_a_channel_that_has_a_game_is_refused(store: Store, db_path: Path) -> None:
    await started(store, channel=THREAD)
    info = await challenge(store, where="thread", opponent=CAROL)
    await refused(db_path, lambda: store.accept_challenge(info.id, CAROL, channel_id=THREAD), ChannelBusy)
    assert (await store.get_game(info.id)).status == "challenge"


async def test_only_the_challenged_player_answers_a_challenge(store: Store, db_path: Path) -> None:
    info = await challenge(store)
    err = await refused(db_path, lambda: store.accept_challenge(info.id, CAROL, channel_id=CHANNEL), NotAParticipant)
    # The store speaks no Discord: no mention in its words (the cog names the member).
    assert "<@" not in str(err) and "another member" in str(err)
    await refused(db_path, lambda: store.decline_challenge(info.id, ALICE), NotAParticipant)
    accepted = await store.accept_challenge(info.id, BOB, channel_id=CHANNEL)
    assert accepted.participants == (ALICE, BOB)
    assert accepted.user_for_seat("first") == ALICE and accepted.user_for_seat("second") == BOB
    assert accepted.user_to_act == ALICE


async def test_an_open_challenge_is_taken_by_anyone_but_the_challenger(store: Store, db_path: Path) -> None:
    info = await challenge(store, opponent=None)
    assert info.opponent_id is None and info.participants == (ALICE,)
    await refused(db_path, lambda: store.accept_challenge(info.id, ALICE, channel_id=CHANNEL), NotAParticipant)
    taken = await store.accept_challenge(info.id, CAROL, channel_id=CHANNEL)
    assert taken.opponent_id == CAROL and taken.status == "active"


async def test_a_double_accept_applies_once(store: Store, db_path: Path) -> None:
    info = await challenge(store, opponent=None)
    outcomes = await asyncio.gather(
        store.accept_challenge(info.id, BOB, channel_id=CHANNEL),
        store.accept_challenge(info.id, CAROL, channel_id=CHANNEL),
        return_exceptions=True,
    )
    winners = [o for o in outcomes if isinstance(o, GameInfo)]
    losers = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(winners) == 1 and len(losers) == 1
    assert isinstance(losers[0], ChallengeClosed)
    assert (await store.get_game(info.id)).opponent_id == winners[0].opponent_id
    err = await refused(db_path, lambda: store.accept_challenge(info.id, BOB, channel_id=CHANNEL), ChallengeClosed)
    assert "already accepted" in str(err)


async def test_accept_and_decline_racing_apply_once(store: Store) -> None:
    info = await challenge(store)
    outcomes = await asyncio.gather(
        store.decline_challenge(info.id, BOB),
        store.accept_challenge(info.id, BOB, channel_id=CHANNEL),
        return_exceptions=True,
    )
    assert sum(isinstance(o, GameInfo) for o in outcomes) == 1
    assert sum(isinstance(o, ChallengeClosed) for o in outcomes) == 1
    assert (await store.get_game(info.id)).status in ("declined", "active")


async def test_a_declined_challenge_frees_the_channel(store: Store, db_path: Path) -> None:
    info = await challenge(store)
    declined = await store.decline_challenge(info.id, BOB)
    assert declined.status == "declined"
    await refused(
        db_path, lambda: store.accept_challenge(info.id, BOB, channel_id=CHANNEL), ChallengeClosed, "declined"
    )
    # The channel is free again (Carol, who still has Alice's thread challenge open, is not asked twice).
    assert (await challenge(store, opponent=None)).status == "challenge"


async def test_challenges_expire_and_cannot_be_accepted_late(store: Store, db_path: Path, clock: Clock) -> None:
    soon = await challenge(store, minutes=5)
    later = await challenge(store, minutes=30, where="thread", opponent=CAROL)
    clock.advance(minutes=10)
    # Late, but not yet swept: refused without writing anything.
    await refused(db_path, lambda: store.accept_challenge(soon.id, BOB, channel_id=CHANNEL), ChallengeClosed, "expired")
    expired = await store.expire_challenges(clock.now)
    assert [i.id for i in expired] == [soon.id] and expired[0].status == "expired"
    assert await store.expire_challenges(clock.now) == []
    assert (await store.get_game(later.id)).status == "challenge"
    # The channel is free again (Carol, who still has Alice's thread challenge open, is not asked twice).
    assert (await challenge(store, opponent=None)).status == "challenge"


async def test_one_open_challenge_per_pair_and_a_cap_per_member(store: Store, db_path: Path, clock: Clock) -> None:
    def make(challenger: int, opponent: int | None, *, ai_level: int | None = None) -> Awaitable[GameInfo]:
        return store.create_challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger_id=challenger,
            opponent_id=opponent,
            settings={"variant": "small", "rules": "current"},
            where="thread",
            expires_at=START + dt.timedelta(minutes=15),
            ai_level=ai_level,
            max_open=2,
        )

    first = await make(ALICE, BOB)
    for challenger, opponent in ((ALICE, BOB), (BOB, ALICE)):
        err = await refused(db_path, lambda c=challenger, o=opponent: make(c, o), ChallengeExists)
        assert isinstance(err, ChallengeExists) and err.existing.game_id == first.id and err.challenger_id == ALICE
        assert "<@" not in str(err)
    await make(ALICE, None)  # an open challenge counts towards the cap
    err = await refused(db_path, lambda: make(ALICE, CAROL), TooManyChallenges)
    assert isinstance(err, TooManyChallenges) and err.limit == 2 and len(err.open_challenges) == 2
    await make(ALICE, 99, ai_level=3)  # a challenge to the AI counts for neither
    await make(BOB, CAROL)  # others have their own allowance
    clock.advance(minutes=16)  # expired, even before the sweep, counts no more
    await make(ALICE, BOB)
    await make(ALICE, CAROL)


async def test_cancelling_ends_a_game_and_frees_the_channel(store: Store, db_path: Path) -> None:
    info = await started(store)
    cancelled = await store.cancel_game(info.id)
    assert cancelled.status == "cancelled" and cancelled.winner_id is None
    await refused(db_path, lambda: store.cancel_game(info.id), GameFinished)
    await refused(db_path, lambda: store.play(info.id, ALICE, "keep"), GameFinished, "cancelled")
    with pytest.raises(NoGameHere):
        await store.game_in_channel(CHANNEL)
    assert (await store.latest_game_in_channel(CHANNEL)).id == info.id


async def test_message_ids_survive_a_restart(db_path: Path, clock: Clock) -> None:
    s = await Store.open(db_path, clock=clock)
    info = await started(s)
    await s.set_challenge_message(info.id, 555)
    await s.set_board_message(info.id, 777)
    await s.close()
    s = await Store.open(db_path, clock=clock)
    try:
        again = await s.game_in_channel(CHANNEL)
        assert (again.challenge_message_id, again.board_message_id) == (555, 777)
        with pytest.raises(NoGameHere):
            await s.set_board_message(info.id + 100, 1)
    finally:
        await s.close()


async def test_live_games_lists_only_games_in_play_in_that_server(store: Store) -> None:
    a = await started(store, channel=1)
    b = await started(store, channel=2)
    await challenge(store, channel=3, opponent=None)
    await store.cancel_game((await started(store, channel=4)).id)
    other = await store.create_challenge(
        guild_id=GUILD + 1,
        channel_id=5,
        challenger_id=ALICE,
        opponent_id=BOB,
        settings={"variant": "small", "rules": "current"},
        where="here",
        expires_at=None,
    )
    await store.accept_challenge(other.id, BOB, channel_id=5)
    assert {g.id for g in await store.live_games(GUILD)} == {a.id, b.id}


async def test_unknown_ids_and_empty_channels_are_refused_clearly(store: Store) -> None:
    with pytest.raises(NoGameHere, match="does not exist"):
        await store.get_game(12345)
    with pytest.raises(NoGameHere, match="No game is being played here") as caught:
        await store.game_in_channel(CHANNEL)
    assert caught.value.channel_empty and "/" not in str(caught.value), "the store names no command"
    with pytest.raises(NoGameHere):
        await store.latest_game_in_channel(CHANNEL)
    with pytest.raises(UserError, match="yourself"):
        await challenge(store, opponent=ALICE)


# --- playing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["current", "classic"])
async def test_a_whole_game_is_stored_and_survives_a_restart(db_path: Path, clock: Clock, rules: str) -> None:
    rng = random.Random(f"whole-{rules}")
    s = await Store.open(db_path, clock=clock)
    info = await started(s, rules=rules)
    while info.status == "active":
        info = await play_turns(s, info, 1, rng)
    assert info.status == "finished"
    game = info.game
    assert game.phase == "over" and game.winner is not None
    assert info.winner_id == info.user_for_colour(game.winner)
    assert info.result == f"{game.winner.capitalize()} wins by claims"
    assert info.user_to_act is None
    log_turns = [turn for _, turn, _ in await s.move_log(info.id)]
    assert tuple(log_turns) == info.turns == game.turns
    await s.close()
    check_consistent(db_path)

    s = await Store.open(db_path, clock=clock)
    try:
        again = await s.latest_game_in_channel(CHANNEL)
        assert again == info
        assert again.game.position == game.position
        with pytest.raises(GameFinished, match="wins by claims"):
            await s.play(info.id, ALICE, "a1")
    finally:
        await s.close()


async def test_a_game_goes_on_after_a_restart(db_path: Path, clock: Clock) -> None:
    rng = random.Random("restart")
    s = await Store.open(db_path, clock=clock)
    info = await play_turns(s, await started(s), 5, rng)
    await s.close()
    s = await Store.open(db_path, clock=clock)
    try:
        resumed = await s.game_in_channel(CHANNEL)
        assert resumed.turns == info.turns and resumed.game.position == info.game.position
        after = await play_turns(s, resumed, 1, rng)
        assert after.ply == info.ply + 1
    finally:
        await s.close()
    check_consistent(db_path)


async def test_turns_are_stored_in_canonical_form(store: Store) -> None:
    info = await play_turns(store, await started(store), 3, random.Random("canon"))
    moves = info.game.position.legal_moves()
    move = next(m for m in moves if not m.is_stationary)
    sloppy = f" {move.shooter}-{move.destination}X{move.target} ".upper()
    played = await store.play(info.id, info.user_to_act or 0, sloppy)
    assert played.turns[-1] == str(move)
    assert (await store.move_log(info.id))[-1][1] == str(move)


async def test_refusals_while_playing_change_nothing(store: Store, db_path: Path) -> None:
    info = await started(store)
    turn = await refused(db_path, lambda: store.play(info.id, BOB, "c3/d7"), NotYourTurn, "other player's turn")
    assert isinstance(turn, NotYourTurn) and turn.waiting == ALICE, "whose turn it is, for the cogs to word"
    await refused(db_path, lambda: store.play(info.id, CAROL, "c3/d7"), NotAParticipant)
    await refused(db_path, lambda: store.play(info.id + 1, ALICE, "c3/d7"), NoGameHere)
    bad = await refused(db_path, lambda: store.play(info.id, ALICE, "zz9"), InvalidMove)
    with pytest.raises(IllegalMove) as rules_says:
        info.game.play("zz9")
    assert (bad.key, bad.data) == (rules_says.value.key, rules_says.value.data), "the rules' own reason, as data"
    example = info.game.setup_example()
    assert example is not None, "a setup turn is due, so the refusal shows one that is legal here"
    shooters, stone = example
    written = ",".join(shooters) + (f"/{stone}" if stone else "")
    assert str(bad) == f"`zz9` is not a square: expected squares like {written}.", "worded by the catalogue"
    await refused(db_path, lambda: store.play(info.id, ALICE, "keep"), InvalidMove)
    await refused(db_path, lambda: store.play(info.id, ALICE, "c3/d7", expected_ply=4), RaceLost)
    pending = await challenge(store, channel=CHANNEL + 5)
    await refused(db_path, lambda: store.play(pending.id, ALICE, "c3/d7"), NoGameHere, "not started")
    await refused(db_path, lambda: store.resign(info.id, CAROL), NotAParticipant)
    await refused(db_path, lambda: store.request_undo(info.id, ALICE), UndoRefused)
    await refused(db_path, lambda: store.answer_undo(info.id, BOB, True), UndoRefused)


async def test_two_simultaneous_moves_land_once(store: Store) -> None:
    rng = random.Random("race")
    info = await play_turns(store, await started(store), 4, rng)
    actor = info.user_to_act
    assert actor is not None
    first, second = some_turn(info.game, rng), some_turn(info.game, rng)
    outcomes = await asyncio.gather(
        store.play(info.id, actor, first, expected_ply=info.ply),
        store.play(info.id, actor, second, expected_ply=info.ply),
        return_exceptions=True,
    )
    landed = [o for o in outcomes if isinstance(o, GameInfo)]
    lost = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(landed) == 1 and len(lost) == 1 and isinstance(lost[0], RaceLost)
    assert "a moment before you" in str(lost[0])
    now = await store.get_game(info.id)
    assert now.ply == info.ply + 1 and len(await store.move_log(info.id)) == info.ply + 1


async def test_a_double_click_without_a_ply_still_lands_once(store: Store) -> None:
    rng = random.Random("double")
    info = await play_turns(store, await started(store), 4, rng)
    actor = info.user_to_act
    assert actor is not None
    turn = some_turn(info.game, rng)
    outcomes = await asyncio.gather(
        store.play(info.id, actor, turn), store.play(info.id, actor, turn), return_exceptions=True
    )
    assert sum(isinstance(o, GameInfo) for o in outcomes) == 1
    assert sum(isinstance(o, UserError) for o in outcomes) == 1
    assert (await store.get_game(info.id)).ply == info.ply + 1


async def test_two_processes_racing_on_one_game_land_once(db_path: Path, clock: Clock) -> None:
    rng = random.Random("two-processes")
    a = await Store.open(db_path, clock=clock)
    b = await Store.open(db_path, clock=clock)
    try:
        info = await play_turns(a, await started(a), 4, rng)
        actor = info.user_to_act
        assert actor is not None
        outcomes = await asyncio.gather(
            a.play(info.id, actor, some_turn(info.game, rng)),
            b.play(info.id, actor, some_turn(info.game, rng)),
            return_exceptions=True,
        )
        assert sum(isinstance(o, GameInfo) for o in outcomes) == 1
        assert sum(isinstance(o, UserError) for o in outcomes) == 1
    finally:
        await a.close()
        await b.close()
    check_consistent(db_path)


async def test_resigning_ends_the_game_for_the_opponent(store: Store, db_path: Path) -> None:
    info = await play_turns(store, await started(store), 4, random.Random("resign"))
    colour = info.colour_of_user(BOB)
    assert colour is not None
    resigned = await store.resign(info.id, BOB)
    assert resigned.status == "finished" and resigned.winner_id == ALICE
    assert resigned.result == f"{colour.capitalize()} resigned"
    await refused(db_path, lambda: store.resign(info.id, ALICE), GameFinished, "resigned")
    assert (await store.get_game(info.id)) == resigned


async def test_resigning_before_colours_are_chosen_names_the_seat(store: Store) -> None:
    # Before the pie choice the second player has not played yet: the resignation aborts the game.
    info = await started(store)
    resigned = await store.resign(info.id, ALICE)
    assert resigned.result == "Aborted: the first player resigned before both players had moved"
    assert resigned.winner_id is None and resigned.aborted_by == ALICE and resigned.aborted_how == "resignation"


async def test_undo_takes_back_the_last_move_when_the_opponent_agrees(store: Store, db_path: Path) -> None:
    rng = random.Random("undo")
    info = await play_turns(store, await started(store), 4, rng)
    mover = info.user_to_act
    assert mover is not None
    other = BOB if mover == ALICE else ALICE
    before = info
    info = await store.play(info.id, mover, some_turn(info.game, rng))
    await refused(db_path, lambda: store.request_undo(info.id, other), UndoRefused, "your own last move")
    await refused(db_path, lambda: store.request_undo(info.id, CAROL), NotAParticipant)
    asked = await store.request_undo(info.id, mover)
    assert asked.undo_requested_by == mover
    await refused(db_path, lambda: store.request_undo(info.id, mover), UndoRefused, "already waiting")
    await refused(db_path, lambda: store.answer_undo(info.id, mover, True), UndoRefused, "opponent has to answer")
    undone = await store.answer_undo(info.id, other, True)
    assert undone.ply == before.ply and undone.turns == before.turns
    assert undone.undo_requested_by is None and undone.user_to_act == mover
    assert undone.game.position == before.game.position
    assert len(await store.move_log(info.id)) == before.ply
    check_consistent(db_path)


async def test_a_declined_undo_keeps_the_move(store: Store) -> None:
    rng = random.Random("undo-declined")
    info = await play_turns(store, await started(store), 5, rng)
    last_mover = (await store.move_log(info.id))[-1][2]
    await store.request_undo(info.id, last_mover)
    other = BOB if last_mover == ALICE else ALICE
    kept = await store.answer_undo(info.id, other, False)
    assert kept.ply == info.ply and kept.undo_requested_by is None
    # Answering twice, or playing on, is possible only once the request is gone.
    with pytest.raises(UndoRefused, match="Nobody"):
        await store.answer_undo(info.id, other, True)


async def test_playing_on_withdraws_a_pending_undo(store: Store) -> None:
    rng = random.Random("undo-ignored")
    info = await play_turns(store, await started(store), 5, rng)
    last_mover = (await store.move_log(info.id))[-1][2]
    await store.request_undo(info.id, last_mover)
    actor = info.user_to_act
    assert actor is not None and actor != last_mover
    moved = await store.play(info.id, actor, some_turn(info.game, rng))
    assert moved.undo_requested_by is None
    with pytest.raises(UndoRefused):
        await store.answer_undo(info.id, actor, True)


async def test_rebuild_restores_a_damaged_cache_from_the_log(store: Store, db_path: Path) -> None:
    info = await play_turns(store, await started(store), 6, random.Random("rebuild"))
    with raw(db_path) as con:
        con.execute("UPDATE games SET ply = 1, turns = 'garbage' WHERE id = ?", (info.id,))
    rebuilt = await store.rebuild(info.id)
    assert rebuilt.ply == info.ply and rebuilt.turns == info.turns
    assert rebuilt.game.position == info.game.position
    check_consistent(db_path)


async def test_rebuild_refuses_a_log_that_does_not_replay_and_changes_nothing(store: Store, db_path: Path) -> None:
    info = await play_turns(store, await started(store), 3, random.Random("bad-log"))
    with raw(db_path) as con:
        con.execute("UPDATE moves SET turn = 'swap' WHERE game_id = ? AND ply = 1", (info.id,))
    before = snapshot(db_path)
    with pytest.raises(StoreError, match=f"game {info.id}: its move log does not replay"):
        await store.rebuild(info.id)
    assert snapshot(db_path) == before


async def test_rebuild_finishes_a_game_whose_log_is_won(store: Store, db_path: Path) -> None:
    rng = random.Random("rebuild-won")
    info = await started(store)
    while info.status == "active":
        info = await play_turns(store, info, 1, rng)
    with raw(db_path) as con:
        con.execute("UPDATE games SET status = 'active', winner_id = NULL, result = NULL WHERE id = ?", (info.id,))
    rebuilt = await store.rebuild(info.id)
    assert (rebuilt.status, rebuilt.winner_id, rebuilt.result) == (info.status, info.winner_id, info.result)


async def test_a_snapshot_knows_who_plays_which_colour(store: Store) -> None:
    info = await started(store, rules="current")
    assert info.user_for_colour("black") is None and info.colour_of_user(ALICE) is None
    rng = random.Random("colours")
    while info.game.phase != "play":
        info = await play_turns(store, info, 1, rng)
    first_colour = info.game.first_player_colour
    assert first_colour is not None
    assert info.user_for_colour(first_colour) == ALICE
    assert info.colour_of_user(BOB) != first_colour
    assert info.seat_of_user(CAROL) is None


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
async def test_random_actions_by_anyone_keep_rows_and_log_in_step(store: Store, db_path: Path, seed: int) -> None:
    """Players and passers-by doing anything in any order: what lands is consistent, what is refused is unwritten."""
    rng = random.Random(seed)
    info = await started(store, rules=rng.choice(["current", "classic"]))
    people = (ALICE, BOB, CAROL)
    landed = refusals = 0
    for _ in range(60):
        info = await store.get_game(info.id)
        if info.status != "active":
            break
        user = rng.choice(people)
        roll = rng.random()
        action: Awaitable[GameInfo]
        if roll < 0.45 and info.user_to_act is not None:
            action = store.play(info.id, info.user_to_act, some_turn(info.game, rng))
        elif roll < 0.6:
            action = store.play(info.id, user, some_turn(info.game, rng))
        elif roll < 0.7:
            action = store.play(info.id, user, rng.choice(["a1-a1/a1", "k11", "swap", "x"]))
        elif roll < 0.82:
            action = store.request_undo(info.id, user)
        elif roll < 0.97:
            action = store.answer_undo(info.id, user, rng.random() < 0.7)
        else:
            action = store.resign(info.id, user)
        before = snapshot(db_path)
        try:
            await action
        except UserError:
            refusals += 1
            assert snapshot(db_path) == before
        else:
            landed += 1
            check_consistent(db_path)
    assert landed > 5 and refusals > 5
    final = await store.get_game(info.id)
    assert final.turns == tuple(t for _, t, _ in await store.move_log(info.id))
    assert final.game.turns == final.turns


async def test_a_game_is_replayed_once_and_then_reused_after_a_restart(db_path: Path, clock: Clock) -> None:
    """Autocomplete reads the game on every keystroke: replaying the whole log each time would lag."""
    s = await Store.open(db_path, clock=clock)
    info = await play_turns(s, await started(s), 4, random.Random("reuse"))
    await s.close()
    s = await Store.open(db_path, clock=clock)
    try:
        replayed = (await s.game_in_channel(CHANNEL)).game
        assert replayed.turns == info.turns
        second = await s.game_in_channel(CHANNEL)
        assert second.game is replayed
        moved = await play_turns(s, second, 1, random.Random("reuse-2"))
        assert (await s.get_game(info.id)).game is moved.game
    finally:
        await s.close()


# --- versions, announcements, stamps ------------------------------------------------------------


async def test_every_change_bumps_a_version_that_never_repeats(store: Store) -> None:
    rng = random.Random("versions")
    info = await play_turns(store, await started(store), 4, rng)
    seen = [info.version]
    mover = info.user_to_act
    assert mover is not None
    other = BOB if mover == ALICE else ALICE
    first = some_turn(info.game, rng)
    info = await store.play(info.id, mover, first)
    seen.append(info.version)
    info = await store.request_undo(info.id, mover)
    seen.append(info.version)
    info = await store.answer_undo(info.id, other, True)
    seen.append(info.version)
    info = await store.play(info.id, mover, first)
    seen.append(info.version)
    await store.request_undo(info.id, mover)
    info = await store.answer_undo(info.id, other, False)
    seen.append(info.version)
    info = await store.resign(info.id, other)
    seen.append(info.version)
    assert seen == sorted(seen) and len(set(seen)) == len(seen), seen
    assert (await store.get_game(info.id)).version == info.version, "the snapshot agrees with the row"


async def test_a_move_chosen_before_an_undo_and_replay_at_the_same_ply_is_refused(store: Store, db_path: Path) -> None:
    rng = random.Random("replay")
    info = await play_turns(store, await started(store), 4, rng)
    mover = info.user_to_act
    assert mover is not None
    other = BOB if mover == ALICE else ALICE
    moves = [str(m) for m in info.game.position.legal_moves()[:2]]
    played = await store.play(info.id, mover, moves[0])
    stale_version = played.version  # the opponent (or the AI) starts thinking about this position
    await store.request_undo(info.id, mover)
    await store.answer_undo(info.id, other, True)
    replayed = await store.play(info.id, mover, moves[1])
    assert replayed.ply == played.ply, "same ply, another position"
    answer = str(played.game.position.legal_moves()[0])
    await refused(
        db_path, lambda: store.play(info.id, other, answer, expected_version=stale_version), RaceLost, "a moment before"
    )


async def test_a_turn_sent_before_the_last_change_is_refused(store: Store, db_path: Path) -> None:
    rng = random.Random("stamps")
    info = await play_turns(store, await started(store), 4, rng)
    mover = info.user_to_act
    assert mover is not None
    other = BOB if mover == ALICE else ALICE
    played = await store.play(info.id, mover, some_turn(info.game, rng), stamp=5000)
    assert played.changed_stamp == 5000
    answer = some_turn(played.game, rng)
    await refused(db_path, lambda: store.play(info.id, other, answer, stamp=4999), RaceLost, "moved on after you sent")
    # The first board of a change moves the stamp to its message: a turn sent before the players saw it is refused.
    await store.mark_posted(info.id, played.version, 6000)
    await refused(db_path, lambda: store.play(info.id, other, answer, stamp=5999), RaceLost, "moved on")
    # Posting the same board again (/veletas board) is not a change.
    await store.mark_posted(info.id, played.version, 7000)
    assert (await store.get_game(info.id)).changed_stamp == 6000
    answered = await store.play(info.id, other, answer, stamp=6500)
    assert answered.ply == played.ply + 1 and answered.changed_stamp == 6500


async def test_changes_no_board_shows_are_listed_until_posted(store: Store) -> None:
    rng = random.Random("announce")
    quiet = await started(store)
    # A game just accepted owes its first board; once posted, it owes nothing.
    assert [g.id for g in await store.unannounced_games()] == [quiet.id] and quiet.unannounced
    await store.mark_posted(quiet.id, quiet.version, 50)
    quiet = await store.get_game(quiet.id)
    assert await store.unannounced_games() == []
    info = await play_turns(store, await started(store, channel=CHANNEL + 1), 2, rng)
    assert [g.id for g in await store.unannounced_games()] == [info.id]
    assert info.unannounced and not quiet.unannounced
    await store.mark_posted(info.id, info.version - 1, 100)  # an older board changes nothing
    assert [g.id for g in await store.unannounced_games()] == [info.id]
    await store.mark_posted(info.id, info.version, 101)
    assert await store.unannounced_games() == []
    after = await store.get_game(info.id)
    assert after.board_message_id == 101 and after.posted_version == info.version
    # An undo request is a change, but it has no board: nothing to announce.
    last_mover = (await store.move_log(info.id))[-1][2]
    await store.request_undo(info.id, last_mover)
    assert await store.unannounced_games() == []
    # A channel that refuses for good is given up: not listed again.
    info = await play_turns(store, await store.get_game(info.id), 1, rng)
    await store.give_up_posting(info.id, info.board_version)
    assert await store.unannounced_games() == []


async def test_games_stored_before_versions_existed_have_nothing_to_announce(db_path: Path, clock: Clock) -> None:
    rng = random.Random("upgrade")
    await (await Store.open(db_path, clock=clock, migrations=MIGRATIONS[:2])).close()
    # A game played by the bot before versions existed, written as that schema wrote it.
    game = Game.new("small")
    with raw(db_path) as con:
        con.execute(
            "INSERT INTO games (id, guild_id, channel_id, origin_channel_id, status, variant, rules, place, "
            "challenger_id, opponent_id, created_at, updated_at) "
            "VALUES (1, ?, ?, ?, 'active', 'small', 'current', 'here', ?, ?, 0, 0)",
            (GUILD, CHANNEL, CHANNEL, ALICE, BOB),
        )
        for ply in range(1, 4):
            text = some_turn(game, rng)
            actor = ALICE if game.seat_to_act == "first" else BOB
            game = game.play(text)
            con.execute("INSERT INTO moves VALUES (1, ?, ?, ?, 0)", (ply, text, actor))
        con.execute("UPDATE games SET ply = 3, turns = ? WHERE id = 1", (" ".join(game.turns),))
    info_id = 1
    s = await Store.open(db_path, clock=clock)
    try:
        upgraded = await s.get_game(info_id)
        assert upgraded.ply == 3 and upgraded.version == 0 and not upgraded.unannounced
        assert await s.unannounced_games() == []
        moved = await s.play(info_id, upgraded.user_to_act or 0, some_turn(upgraded.game, rng))
        assert moved.version == 1 and moved.unannounced
    finally:
        await s.close()
    check_consistent(db_path)
