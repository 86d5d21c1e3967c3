"""Tournaments in the store, on real SQLite files: rounds stored whole and once, each pairing's result written in
the transaction that ends its game (every way a game ends), no-shows, late entries, refusals, the migration."""

from __future__ import annotations

import random
import re
import sqlite3
from pathlib import Path

import pytest
from dbtools import raw, tables
from store_fixtures import Clock
from test_store import ALICE, BOB, CAROL, CHANNEL, GUILD
from test_store_ratings import drawn_moves, play_out

from bot.clocks import TimeControl
from bot.db import is_postgresql
from bot.errors import UserError
from bot.rules import veloop
from bot.store import Store
from bot.store.schema import MIGRATIONS
from bot.store.values import DueRow, GameInfo, RoundPlan, TournamentInfo

DAVE = 1004
THREADS = iter(range(900_000, 999_999))
SETTINGS = {"board": "5", "protocol": "alternating"}


async def tournament(
    store: Store,
    players: tuple[int, ...] = (ALICE, BOB, CAROL, DAVE),
    *,
    format: str = "swiss",
    rounds: int | None = 3,
    rated: bool = False,
    start: bool = True,
) -> TournamentInfo:
    info = await store.create_tournament(
        guild_id=GUILD,
        channel_id=CHANNEL,
        organiser_id=ALICE,
        name="Test Open",
        game="veloop",
        settings=SETTINGS,
        format=format,  # type: ignore[arg-type]
        rounds=rounds,
        best_of=1,
        time_control=TimeControl.days(1),
        rated=rated,
        max_players=None,
        starts_at=None,
        checkin_minutes=0,
        round_minutes=60,
    )
    for player in players:
        await store.join_tournament(info.id, player, f"player {player}")
    if start:
        info = await store.start_tournament(info.id, actor_id=ALICE, rounds_for=lambda n: rounds)
        [row] = [r for r in await store.claim_due(store.now(), lease=60, limit=10) if r.key == "advance"]
        await store.drop_due(row.id)  # the bot's step that pairs round 1; these tests pair by hand
    return info


async def open_games(store: Store, tid: int, plan: RoundPlan) -> list[GameInfo]:
    assert await store.save_round(tid, plan, due_id=None)
    snap = await store.snapshot(tid)
    games = []
    for pairing in snap.round_pairings(plan.number):
        if pairing.result is not None:
            continue
        await store.pairing_thread_pending(pairing.id)
        await store.pairing_thread(pairing.id, next(THREADS))
        games.append(await store.start_pairing_game(pairing.id))
    return games


def plan(number: int, *games: tuple[int, int]) -> RoundPlan:
    return RoundPlan(number, tuple((w, b, None, None) for w, b in games), (), (), 60)


async def result_of(store: Store, tid: int, game_id: int) -> str | None:
    snap = await store.snapshot(tid)
    return next(p.result for p in snap.pairings if p.game_id == game_id)


async def advance_due(db_path: Path, tid: int) -> bool:
    with raw(db_path) as db:
        return bool(db.execute("SELECT 1 FROM due WHERE tournament_id = ? AND key = 'advance'", (tid,)).fetchall())


async def test_a_round_is_stored_whole_once_and_its_games_start_with_the_tournaments_settings(
    store: Store, db_path: Path
) -> None:
    t = await tournament(store)
    games = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    assert not await store.save_round(t.id, plan(1, (ALICE, CAROL), (BOB, DAVE)), due_id=None), "never twice"
    snap = await store.snapshot(t.id)
    assert [(p.white, p.black) for p in snap.pairings] == [(ALICE, BOB), (CAROL, DAVE)]
    assert all(p.state == "game" for p in snap.pairings)
    first = games[0]
    assert first.status == "active" and first.challenger_id == ALICE and first.opponent_id == BOB
    assert dict(first.settings) == SETTINGS and first.time_control == TimeControl.days(1)
    assert first.clock is not None and first.clock.running == "first"
    again = await store.start_pairing_game(snap.pairings[0].id)
    assert again.id == first.id, "a second call returns the game already made"
    with raw(db_path) as db:
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2
        keys = {r[0] for r in db.execute("SELECT key FROM due WHERE tournament_id = ?", (t.id,))}
    assert {"play:1", "deadline:1"} <= keys


async def test_every_way_a_game_ends_writes_its_pairings_result_in_the_same_transaction(
    store: Store, db_path: Path, clock: Clock
) -> None:
    t = await tournament(store, (ALICE, BOB, CAROL, DAVE, 1005, 1006, 1007, 1008, 1009, 1010), rounds=1)
    pairs = [(ALICE, BOB), (CAROL, DAVE), (1005, 1006), (1007, 1008), (1009, 1010)]
    resigned, drawn, flagged, cancelled, adjudicated = await open_games(store, t.id, plan(1, *pairs))
    await store.resign(resigned.id, BOB)
    assert await result_of(store, t.id, resigned.id) == "1-0"
    finished = await play_out(store, drawn, drawn_moves())
    assert finished.status == "finished" and finished.winner_id is None
    assert await result_of(store, t.id, drawn.id) == "1/2-1/2", "a draw on the board (two passes)"
    move = str(veloop.Game.new(5, "alternating").position.legal_moves()[0])
    await store.play(flagged.id, 1005, move)  # 1005 moved; 1006 never answers within the day
    await store.play(adjudicated.id, 1009, move)
    clock.advance(minutes=30)
    await store.play(adjudicated.id, 1010, str(veloop.Game.new(5, "alternating").play(move).position.legal_moves()[0]))
    await store.cancel_game(cancelled.id)
    assert await result_of(store, t.id, cancelled.id) == "--"
    clock.advance(hours=20)
    assert await store.adjudicate(adjudicated.id) is not None
    assert await result_of(store, t.id, adjudicated.id) == "0-1", "1009's clock ran 20 h, 1010's is untouched"
    assert not await advance_due(db_path, t.id), "one game still runs"
    clock.advance(hours=5)
    assert await store.flag(flagged.id) is not None
    assert (await store.get_game(flagged.id)).termination == "no-show", "1006's first-move window (a day) passed"
    assert await result_of(store, t.id, flagged.id) == "+-", "a no-show: a forfeit, not a game"
    entrants = {e.user_id: e for e in await store.entrants(t.id)}
    assert entrants[1006].absent and entrants[1006].absent_notice, "paused, and owed a private notice"
    assert entrants[1006].left_round is None, "a no-show is not a withdrawal"
    assert not entrants[1005].absent and entrants[1005].left_round is None
    assert await advance_due(db_path, t.id), "the round's last result makes the next step fall due"


async def test_a_game_played_to_its_end_on_the_board_scores_its_winner(store: Store) -> None:
    t = await tournament(store, rounds=1)
    first, _ = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    rng = random.Random(3)
    info = first
    while info.status == "active":
        actor = info.user_to_act
        assert actor is not None
        info = await store.play(info.id, actor, str(rng.choice(info.state.position.legal_moves())))  # type: ignore[attr-defined]
    expected = "1/2-1/2" if info.winner_id is None else "1-0" if info.winner_id == ALICE else "0-1"
    assert info.termination in ("confinement", "passes")
    assert await result_of(store, t.id, first.id) == expected


async def test_a_failure_in_the_pairing_write_leaves_the_game_running(store: Store, db_path: Path) -> None:
    t = await tournament(store, rounds=1)
    game, _ = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    with raw(db_path) as db:
        if is_postgresql(db_path):
            db.execute(
                "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS "
                "$$ BEGIN RAISE EXCEPTION 'refused' USING ERRCODE = 'integrity_constraint_violation'; END $$"
            )
            db.execute(
                "CREATE TRIGGER no_results BEFORE UPDATE OF result ON tournament_pairings "
                "FOR EACH ROW EXECUTE FUNCTION refuse()"
            )
        else:
            db.execute(
                "CREATE TRIGGER no_results BEFORE UPDATE OF result ON tournament_pairings "
                "BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
    with pytest.raises(sqlite3.IntegrityError):
        await store.resign(game.id, BOB)
    assert (await store.get_game(game.id)).status == "active", "the game did not end without its pairing's result"
    assert await result_of(store, t.id, game.id) is None


async def test_a_rated_tournament_rates_its_games_but_not_a_no_show(store: Store, clock: Clock) -> None:
    t = await tournament(store, rated=True, rounds=1)
    played, absent = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    await store.resign(played.id, BOB)
    assert len(await store.rating_changes(played.id)) == 4
    clock.advance(days=1, minutes=1)
    opened = await store.flag(absent.id)
    assert opened is not None and opened.awaiting_claim and opened.claimant == DAVE, "Dave may claim it for a day"
    assert await result_of(store, t.id, absent.id) is None
    clock.advance(days=1)
    await store.flag(absent.id)
    assert await store.rating_changes(absent.id) == []
    assert await result_of(store, t.id, absent.id) == "--", "neither moved nor claimed: a double no-show, both lose"
    entrants = {e.user_id: e for e in await store.entrants(t.id)}
    assert entrants[CAROL].absent and entrants[DAVE].absent
    # The rebuild rates what the games rated as they ended: the played game, not the no-show.
    assert await store.rebuild_ratings() == 1
    assert await store.rating_changes(absent.id) == [] and len(await store.rating_changes(played.id)) == 4


async def test_late_entries_until_half_the_rounds_and_only_in_a_swiss(store: Store) -> None:
    t = await tournament(store, (ALICE, BOB, CAROL, DAVE, 1009), rounds=4)
    await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    info, late = await store.join_tournament(t.id, 1005, "late")
    assert late and info.id == t.id
    entry = next(e for e in await store.entrants(t.id) if e.user_id == 1005)
    assert entry.late and entry.joined_round == 2 and entry.seed is None
    with pytest.raises(UserError, match="already entered"):
        await store.join_tournament(t.id, 1005, "late")
    for number in (2, 3):
        assert await store.save_round(t.id, plan(number), due_id=None) or number == 2
    with pytest.raises(UserError, match="half the rounds"):
        await store.join_tournament(t.id, 1006, "too late")
    rr = await store.create_tournament(
        guild_id=GUILD,
        channel_id=CHANNEL + 1,
        organiser_id=ALICE,
        name="RR",
        game="veloop",
        settings=SETTINGS,
        format="round_robin",
        rounds=None,
        best_of=1,
        time_control=TimeControl.days(1),
        rated=False,
        max_players=2,
        starts_at=None,
        checkin_minutes=0,
        round_minutes=60,
    )
    await store.join_tournament(rr.id, ALICE, "a")
    await store.join_tournament(rr.id, BOB, "b")
    with pytest.raises(UserError, match="full"):
        await store.join_tournament(rr.id, CAROL, "c")
    await store.start_tournament(rr.id, actor_id=ALICE, rounds_for=lambda n: 1)
    with pytest.raises(UserError, match="only a Swiss"):
        await store.join_tournament(rr.id, CAROL, "c")


async def test_bad_starts_are_refused_and_change_nothing(store: Store, clock: Clock, db_path: Path) -> None:
    empty = await tournament(store, (), start=False)
    with pytest.raises(UserError, match="at least 2 players; 0 are entered"):
        await store.start_tournament(empty.id, actor_id=ALICE, rounds_for=lambda n: 3)
    assert (await store.tournament(empty.id)).status == "signup"
    await store.set_tournament_status(empty.id, "cancelled", actor_id=ALICE, allowed=("signup",))
    small = await tournament(store, (ALICE, BOB, CAROL), start=False, rounds=5)
    with pytest.raises(UserError, match="5 rounds need at least 6 players; 3 are entered"):
        await store.start_tournament(small.id, actor_id=ALICE, rounds_for=lambda n: 5)
    assert (await store.tournament(small.id)).status == "signup"
    with pytest.raises(UserError, match="already passed"):
        await store.create_tournament(
            guild_id=GUILD,
            channel_id=CHANNEL + 5,
            organiser_id=ALICE,
            name="Past",
            game="veloop",
            settings=SETTINGS,
            format="swiss",
            rounds=3,
            best_of=1,
            time_control=TimeControl.days(1),
            rated=False,
            max_players=None,
            starts_at=store.now() - 60,
            checkin_minutes=0,
            round_minutes=60,
        )
    with raw(db_path) as db:
        assert db.execute("SELECT COUNT(*) FROM tournaments").fetchone()[0] == 2


async def test_a_withdrawal_keeps_past_results_and_a_round_is_paired_again_only_before_any_turn(store: Store) -> None:
    t = await tournament(store)
    first, _ = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    await store.repair_round(t.id, 1, actor_id=ALICE)
    snap = await store.snapshot(t.id)
    assert snap.rounds == () and snap.pairings == ()
    with pytest.raises(UserError, match="does not exist"):
        await store.get_game(first.id)
    first, _ = await open_games(store, t.id, plan(1, (ALICE, CAROL), (BOB, DAVE)))
    move = str(veloop.Game.new(5, "alternating").position.legal_moves()[0])
    await store.play(first.id, ALICE, move)
    with pytest.raises(UserError, match="already begun"):
        await store.repair_round(t.id, 1, actor_id=ALICE)
    await store.resign(first.id, CAROL)
    await store.leave_tournament(t.id, CAROL)
    entry = next(e for e in await store.entrants(t.id) if e.user_id == CAROL)
    assert entry.left_round == 2, "withdrawn from the next round; round 1's result stays"
    assert await result_of(store, t.id, first.id) == "1-0"
    log = await store.tournament_log(t.id)
    assert [a for _, _, a, _ in log] == ["create", "start", "repair"]


async def test_the_migration_keeps_every_due_row_of_the_previous_schema(db_path: Path, clock: Clock) -> None:
    mine = next(i for i, m in enumerate(MIGRATIONS) if any("CREATE TABLE tournaments" in s for s in m))
    old = await Store.open(db_path, clock=clock, migrations=MIGRATIONS[:mine])
    # Today's store reads columns added after that schema: they are there while it writes, gone again before
    # the migration (which adds them back in their own step).
    later_columns = ("aborted_by INTEGER", "aborted_how TEXT", "clock_bare TEXT")
    with raw(db_path) as db:
        for column in later_columns:
            db.execute(f"ALTER TABLE games ADD COLUMN {column}")
    challenge = await old.create_challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=BOB,
        where="here",
        expires_at=clock() + __import__("datetime").timedelta(minutes=15),
        game="veloop",
        settings=SETTINGS,
    )
    game = await old.create_challenge(
        guild_id=GUILD,
        channel_id=CHANNEL + 1,
        challenger_id=CAROL,
        opponent_id=DAVE,
        where="here",
        expires_at=None,
        game="veloop",
        settings=SETTINGS,
        time_control=TimeControl.days(2),
    )
    await old.accept_challenge(game.id, DAVE, channel_id=CHANNEL + 1)
    await old.close()
    with raw(db_path) as db:
        for column in later_columns:
            db.execute(f"ALTER TABLE games DROP COLUMN {column.split()[0]}")
    with raw(db_path) as db:
        before = sorted(db.execute("SELECT id, kind, game_id, key, due_at FROM due"))
    assert {r[1] for r in before} == {"expiry", "deadline", "reminder"}
    new = await Store.open(db_path, clock=clock)
    try:
        with raw(db_path) as db:
            after = sorted(db.execute("SELECT id, kind, game_id, key, due_at FROM due"))
        assert after == before
        assert {"tournaments", "tournament_players", "tournament_pairings", "tournament_rounds"} <= set(tables(db_path))
        clock.advance(minutes=16)
        due = await new.claim_due(new.now(), lease=60, limit=10)
        assert [(r.kind, r.game_id, r.tournament_id) for r in due] == [("expiry", challenge.id, None)]
        # The rebuilt table takes new rows after the copied ones (on PostgreSQL its identity moved past them).
        later = await new.create_challenge(
            guild_id=GUILD,
            channel_id=CHANNEL + 2,
            challenger_id=ALICE,
            opponent_id=CAROL,
            where="here",
            expires_at=clock() + __import__("datetime").timedelta(minutes=15),
            game="veloop",
            settings=SETTINGS,
        )
        with raw(db_path) as db:
            ids = sorted(r[0] for r in db.execute("SELECT id FROM due WHERE game_id = ?", (later.id,)))
        assert ids and min(ids) > max(r[0] for r in before)
    finally:
        await new.close()


async def test_a_round_paired_before_a_withdrawal_landed_is_not_stored_and_is_paired_again(
    store: Store, db_path: Path
) -> None:
    t = await tournament(store)
    await store.leave_tournament(t.id, DAVE)  # before round 1: out from round 1
    assert not await store.save_round(t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)), due_id=None)
    assert (await store.snapshot(t.id)).rounds == ()
    assert await advance_due(db_path, t.id), "the round is paired again, without the player who left"


async def test_withdrawing_during_a_round_counts_a_bye_in_it_as_played(store: Store) -> None:
    t = await tournament(store, (ALICE, BOB, CAROL), rounds=2)
    bye = RoundPlan(1, ((ALICE, BOB, None, None),), ((1, CAROL, "pairing"),), (), 60)
    await open_games(store, t.id, bye)
    await store.leave_tournament(t.id, CAROL)
    await store.leave_tournament(t.id, ALICE)
    left = {e.user_id: e.left_round for e in await store.entrants(t.id)}
    assert left == {ALICE: 2, BOB: None, CAROL: 2}, "the bye and the game of round 1 both stay theirs"


async def create_named(store: Store, name: str, channel: int = CHANNEL) -> TournamentInfo:
    return await store.create_tournament(
        guild_id=GUILD,
        channel_id=channel,
        organiser_id=ALICE,
        name=name,
        game="veloop",
        settings=SETTINGS,
        format="swiss",
        rounds=3,
        best_of=1,
        time_control=TimeControl.days(1),
        rated=False,
        max_players=None,
        starts_at=None,
        checkin_minutes=0,
        round_minutes=60,
    )


@pytest.mark.parametrize(
    ("name", "refusal"),
    [
        ("Spring\x00Open", "control characters or line breaks (U+0000 is one)"),
        ("Spring\nOpen", "control characters or line breaks (U+000A is one)"),
        ("Spring\u2028Open", "control characters or line breaks (U+2028 is one)"),
        ("\u200b\u200b\u200b", "no visible character"),
        (" \u200d\ufeff\u2060 ", "no visible character"),
        ("\u3164\u3164", "no visible character"),
        ("\u0301", "no visible character"),
    ],
)
async def test_a_tournament_name_with_a_control_character_or_nothing_visible_is_refused_alike_on_both_databases(
    store: Store, db_path: Path, name: str, refusal: str
) -> None:
    with pytest.raises(UserError, match=re.escape(refusal)):
        await create_named(store, name)
    with raw(db_path) as db:
        assert db.execute("SELECT COUNT(*) FROM tournaments").fetchone()[0] == 0
        assert db.execute("SELECT COUNT(*) FROM tournament_log").fetchone()[0] == 0
    # A name that shows something is kept, joiners and marks of direction included (an emoji, Arabic).
    kept = await create_named(store, " 👩\u200d👩\u200d👧 كأس **Cup** ")
    assert kept.name == "👩\u200d👩\u200d👧 كأس **Cup**"


async def test_a_members_display_name_is_kept_without_what_no_name_may_hold(store: Store) -> None:
    info = await create_named(store, "Names")
    await store.join_tournament(info.id, ALICE, "Al\x00ice\n")
    await store.join_tournament(info.id, BOB, "\u200b\u200b")
    names = {e.user_id: e.name for e in await store.entrants(info.id)}
    assert names == {ALICE: "Alice", BOB: f"…{str(BOB)[-4:]}"}


async def play_row(store: Store, tid: int, *, lease: float, owner: str = "") -> DueRow:
    taken = await store.claim_due(store.now(), lease=lease, limit=10, owner=owner)
    [row] = [r for r in taken if r.key == "play:1"]
    return row


async def test_a_step_held_by_one_process_is_not_taken_over_and_a_lapsed_claim_loses_its_writes(
    store: Store, db_path: Path | str, clock: Clock
) -> None:
    """Two processes on one database: the one holding a round's ``play`` step keeps it while it renews its lease;
    once it stops renewing (it died) the other takes it over, and the first's writes for it then tell it it lost."""
    info = await tournament(store)
    assert await store.save_round(info.id, plan(1, (ALICE, BOB), (CAROL, DAVE)), due_id=None)
    first, second = [p.id for p in (await store.snapshot(info.id)).round_pairings(1)]
    other = await Store.open(db_path, clock=clock)
    try:
        mine = await play_row(store, info.id, lease=60)
        assert await store.pairing_thread_pending(first, claim=mine.claim)
        clock.advance(seconds=50)
        assert await store.renew_claim(mine.claim, lease=60)
        clock.advance(seconds=50)  # 100 s after the claim, 40 s into the renewed lease
        others = await other.claim_due(other.now(), lease=60, limit=10)
        assert mine.id not in {r.id for r in others}, "held: not taken over"
        assert await store.pairing_thread(first, 777_001, claim=mine.claim)
        clock.advance(seconds=61)  # no renewal: the lease runs out, as when the holder dies
        theirs = await play_row(other, info.id, lease=60)
        assert theirs.id == mine.id and theirs.token != mine.token
        assert not await store.renew_claim(mine.claim, lease=60)
        assert not await store.pairing_thread_pending(second, claim=mine.claim), "lost: no thread asked for"
        assert await other.pairing_thread_pending(second, claim=theirs.claim)
        assert not await store.pairing_thread(second, 777_002, claim=mine.claim), "lost: its thread is not kept"
        assert await other.pairing_thread(second, 777_003, claim=theirs.claim)
        assert not await other.pairing_thread(first, 777_004), "the pairing has its thread already"
        assert await other.pairing_thread(first, 777_001), "the same thread again: not lost"
        assert not await store.finish_opening(info.id, 1, mine.id, mine.claim)
        threads = {p.id: p.thread_id for p in (await store.snapshot(info.id)).round_pairings(1)}
        assert threads == {first: 777_001, second: 777_003}
    finally:
        await other.close()


async def test_a_restart_takes_back_at_once_the_steps_its_earlier_run_held_and_leaves_other_processes_steps(
    store: Store, db_path: Path | str, clock: Clock
) -> None:
    info = await tournament(store)
    assert await store.save_round(info.id, plan(1, (ALICE, BOB), (CAROL, DAVE)), due_id=None)
    taken = await store.claim_due(store.now(), lease=60, limit=10, owner="shards 0/2")
    assert {r.key for r in taken} >= {"play:1", "posts"}
    await store.close()
    restarted = await Store.open(db_path, clock=clock)
    try:
        assert await restarted.release_claims("shards 1/2") == 0, "another process's claims are not this one's"
        assert await restarted.claim_due(restarted.now(), lease=60, limit=10) == []
        assert await restarted.release_claims("shards 0/2") == len(taken)
        again = await restarted.claim_due(restarted.now(), lease=60, limit=10, owner="shards 0/2")
        assert {r.id for r in again} == {r.id for r in taken}
        assert await restarted.release_claims("shards 0/2") == 0, "its own run's claims stay"
    finally:
        await restarted.close()


async def finished_in(store: Store, name: str, channel: int) -> TournamentInfo:
    """A tournament in ``channel``, started and finished at once (its end stamped with the store's clock)."""
    info = await create_named(store, name, channel)
    for player in (ALICE, BOB):
        await store.join_tournament(info.id, player, f"player {player}")
    await store.start_tournament(info.id, actor_id=ALICE, rounds_for=lambda n: 1)
    return await store.set_tournament_status(info.id, "finished", actor_id=0, allowed=("running",))


async def test_a_channels_tournament_is_the_one_running_there_else_the_one_that_finished_there_last(
    store: Store, clock: Clock
) -> None:
    assert await store.tournament_in_channel(GUILD, CHANNEL) is None
    older = await finished_in(store, "Older", CHANNEL)
    clock.advance(days=3)
    newer = await finished_in(store, "Newer", CHANNEL)
    assert newer.ended_at is not None and older.ended_at is not None and newer.ended_at > older.ended_at
    elsewhere = await finished_in(store, "Elsewhere", CHANNEL + 1)
    clock.advance(days=1)
    found = await store.tournament_in_channel(GUILD, CHANNEL)
    assert found is not None and found.id == newer.id, "the one that finished here last, not the latest made"
    assert await store.tournament_in_channel(GUILD + 1, CHANNEL) is None, "another server's channel id: nothing"
    cancelled = await create_named(store, "Called off", CHANNEL)
    await store.set_tournament_status(cancelled.id, "cancelled", actor_id=ALICE, allowed=("signup",))
    found = await store.tournament_in_channel(GUILD, CHANNEL)
    assert found is not None and found.id == newer.id, "a cancelled one is passed over"
    signing_up = await create_named(store, "Next", CHANNEL)
    found = await store.tournament_in_channel(GUILD, CHANNEL)
    assert found is not None and found.id == signing_up.id, "one signing up comes before any finished"
    assert (await store.tournament_in_channel(GUILD, CHANNEL + 1)) == elsewhere


async def test_finished_tournaments_are_those_ended_since_a_moment_the_latest_end_first(
    store: Store, clock: Clock
) -> None:
    first = await finished_in(store, "First", CHANNEL)
    clock.advance(days=200)
    second = await finished_in(store, "Second", CHANNEL + 1)
    clock.advance(days=200)
    third = await finished_in(store, "Third", CHANNEL)
    await create_named(store, "Open", CHANNEL + 2)  # signing up: not finished
    assert [t.id for t in await store.finished_tournaments(GUILD, since=0)] == [third.id, second.id, first.id]
    assert second.ended_at is not None
    since = second.ended_at
    assert [t.id for t in await store.finished_tournaments(GUILD, since=since)] == [third.id, second.id]
    assert [t.id for t in await store.finished_tournaments(GUILD, since=since + 1)] == [third.id]
    assert [t.id for t in await store.finished_tournaments(GUILD, since=0, limit=1)] == [third.id]
    assert await store.finished_tournaments(GUILD + 1, since=0) == []


async def with_checkin(store: Store) -> TournamentInfo:
    """A tournament starting in 30 minutes with a 10-minute check-in, four entrants."""
    info = await store.create_tournament(
        guild_id=GUILD,
        channel_id=CHANNEL,
        organiser_id=ALICE,
        name="Checked",
        game="veloop",
        settings=SETTINGS,
        format="swiss",
        rounds=1,
        best_of=1,
        time_control=TimeControl.days(1),
        rated=False,
        max_players=None,
        starts_at=store.now() + 30 * 60,
        checkin_minutes=10,
        round_minutes=60,
    )
    for player in (ALICE, BOB, CAROL, DAVE):
        await store.join_tournament(info.id, player, f"player {player}")
    return info


async def test_check_in_reminders_are_owed_halfway_to_those_not_checked_in_and_drop_notices_at_the_start(
    store: Store, clock: Clock, db_path: Path | str
) -> None:
    info = await with_checkin(store)
    with raw(db_path) as db:
        due = dict(db.execute("SELECT key, due_at FROM due WHERE tournament_id = ?", (info.id,)).fetchall())
    assert info.starts_at is not None and due["remind"] == info.starts_at - 5 * 60 == info.checkin_reminder_at
    clock.advance(minutes=21)
    await store.check_in(info.id, ALICE)
    clock.advance(minutes=4)
    [row] = [r for r in await store.claim_due(store.now(), lease=60, limit=10) if r.key == "remind"]
    assert await store.owe_checkin_reminders(info.id, row.id) == 3
    assert [(n.kind, n.user_id) for n in await store.owed_notices(info.id)] == [
        ("reminder", BOB),
        ("reminder", CAROL),
        ("reminder", DAVE),
    ]
    with raw(db_path) as db:
        keys = {r[0] for r in db.execute("SELECT key FROM due WHERE tournament_id = ?", (info.id,)).fetchall()}
    assert "remind" not in keys and "notices" in keys, "the step is done in the transaction that owes its notices"
    await store.notices_sent(info.id, "reminder", [BOB])
    await store.check_in(info.id, BOB)
    await store.check_in(info.id, CAROL)  # checked in since: no longer owed a reminder
    assert [(n.kind, n.user_id) for n in await store.owed_notices(info.id)] == [("reminder", DAVE)]
    await store.start_tournament(info.id, actor_id=0, rounds_for=lambda n: 1)
    # Dave is dropped: his reminder is moot, his drop notice owed with the name he had (his entry is gone).
    notices = await store.owed_notices(info.id)
    assert [(n.kind, n.user_id, n.name) for n in notices] == [("dropped", DAVE, f"player {DAVE}")]
    assert {e.user_id for e in await store.entrants(info.id)} == {ALICE, BOB, CAROL}
    await store.notices_sent(info.id, "dropped", [DAVE])
    assert await store.owed_notices(info.id) == []
    with raw(db_path) as db:
        kept = db.execute(
            "SELECT kind, user_id, sent FROM tournament_notices WHERE tournament_id = ? ORDER BY kind, user_id",
            (info.id,),
        ).fetchall()
    assert [tuple(r) for r in kept] == [("dropped", DAVE, 1), ("reminder", BOB, 1)], "unsent reminders go at the start"


async def test_a_reminder_falling_due_after_the_start_owes_nothing(store: Store, clock: Clock) -> None:
    info = await with_checkin(store)
    clock.advance(minutes=21)
    for player in (ALICE, BOB):
        await store.check_in(info.id, player)
    await store.start_tournament(info.id, actor_id=ALICE, rounds_for=lambda n: 1)
    assert [(n.kind, n.user_id) for n in await store.owed_notices(info.id)] == [("dropped", CAROL), ("dropped", DAVE)]
    clock.advance(minutes=10)
    taken = await store.claim_due(store.now(), lease=60, limit=10)
    assert "remind" not in {r.key for r in taken}, "the start removed the reminder step"
    # A reminder step left over from before (a run that died holding it) owes nothing once the tournament runs.
    assert await store.owe_checkin_reminders(info.id, 0) == 0
    assert {n.kind for n in await store.owed_notices(info.id)} == {"dropped"}


async def test_a_no_show_pauses_the_player_for_the_next_round_until_they_rejoin(store: Store, clock: Clock) -> None:
    from bot.tournament_flow import plan_next

    t = await tournament(store, (ALICE, BOB, CAROL, DAVE, 1005, 1006), rounds=3)
    played, missed, third = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE), (1005, 1006)))
    await store.resign(played.id, BOB)
    await store.resign(third.id, 1006)
    move = str(veloop.Game.new(5, "alternating").position.legal_moves()[0])
    await store.play(missed.id, CAROL, move)
    with pytest.raises(UserError) as refused:
        await store.rejoin_tournament(t.id, DAVE)
    assert refused.value.key == "tournament.refusal.not_absent", "not absent yet: nothing to rejoin"
    clock.advance(days=1, minutes=1)
    assert await store.flag(missed.id) is not None
    snap = await store.snapshot(t.id)
    nxt = plan_next(snap)
    assert isinstance(nxt, RoundPlan)
    assert (2, DAVE, "zero") in nxt.byes, "paused: an absence instead of a game"
    assert all(DAVE not in (w, b) for w, b, _, _ in nxt.games)
    with pytest.raises(UserError) as refused:
        await store.rejoin_tournament(t.id, CAROL)
    assert refused.value.key == "tournament.refusal.not_absent", "Carol came: she is not paused"
    await store.rejoin_tournament(t.id, DAVE)
    entrant = next(e for e in await store.entrants(t.id) if e.user_id == DAVE)
    assert not entrant.absent and not entrant.absent_notice and entrant.left_round is None
    again = plan_next(await store.snapshot(t.id))
    assert isinstance(again, RoundPlan) and any(DAVE in (w, b) for w, b, _, _ in again.games), "back in the pairings"
    assert ("rejoin", str(DAVE)) in [(a, d) for _, _, a, d in await store.tournament_log(t.id)]


async def test_a_pairings_direct_messages_are_owed_from_its_intro_until_sent(store: Store) -> None:
    t = await tournament(store, rounds=1)
    await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    first, second = (await store.snapshot(t.id)).round_pairings(1)
    assert not first.dms_owed
    await store.intro_posted(first.id)
    assert (await store.pairing(first.id)).dms_owed, "owed from the intro on"
    await store.intro_posted(second.id)
    await store.pairing_dms_sent(second.id)
    assert not await store.finish_opening(t.id, 1, None), "the round's opening waits for the owed messages"
    await store.pairing_dms_sent(first.id)
    await store.intro_posted(first.id)  # said twice (a retry): owes nothing again
    assert not (await store.pairing(first.id)).dms_owed
    assert await store.finish_opening(t.id, 1, None)


def due_of(db_path: Path, game_id: int) -> list[tuple[str, str, float]]:
    with raw(db_path) as db:
        rows = db.execute("SELECT kind, key, due_at FROM due WHERE game_id = ? ORDER BY due_at", (game_id,))
        return [(str(r[0]), str(r[1]), float(r[2])) for r in rows]


async def test_the_second_side_claims_a_game_whose_first_side_did_not_come(
    store: Store, db_path: Path, clock: Clock
) -> None:
    from bot.errors import RaceLost

    t = await tournament(store, rated=True, rounds=1)
    missed, other = await open_games(store, t.id, plan(1, (CAROL, DAVE), (ALICE, BOB)))
    with pytest.raises(UserError) as refused:
        await store.claim_no_show(missed.id, DAVE)
    assert refused.value.key == "refusal.nothing_to_claim", "Carol's window still runs"
    started = store.now()
    clock.advance(days=1, seconds=1)
    opened = await store.flag(missed.id)
    assert opened is not None and opened.status == "active" and opened.version == missed.version + 1
    assert (opened.aborted_by, opened.claimant) == (CAROL, DAVE)
    assert opened.claim_deadline == pytest.approx(started + 2 * 86400)
    assert due_of(db_path, missed.id) == [("deadline", "claim", pytest.approx(started + 2 * 86400))], (
        "the second window is the game's due row, written with the first one's expiry"
    )
    assert await store.get_game(missed.id) == opened
    assert await store.flag(missed.id) is None, "within Dave's window nothing more happens"
    for who, key in ((CAROL, "refusal.claim_absent"), (ALICE, "refusal.claim_not_yours")):
        with pytest.raises(UserError) as refused:
            await store.claim_no_show(missed.id, who, expected_version=opened.version)
        assert refused.value.key == key
    with pytest.raises(RaceLost):
        await store.claim_no_show(missed.id, DAVE, expected_version=missed.version)
    with pytest.raises(UserError) as refused:
        await store.claim_no_show(other.id, BOB)
    assert refused.value.key == "refusal.nothing_to_claim"
    assert await store.get_game(missed.id) == opened and await result_of(store, t.id, missed.id) is None

    clock.advance(hours=23)
    claimed = await store.claim_no_show(missed.id, DAVE, expected_version=opened.version)
    assert claimed.status == "finished" and claimed.termination == "no-show" and claimed.no_show
    assert (claimed.aborted_by, claimed.winner_id, claimed.absent) == (CAROL, None, (CAROL,))
    assert claimed.result == "No-show: black did not make a first move in time", "Veloop's first seat plays black"
    assert await store.get_game(missed.id) == claimed
    assert due_of(db_path, missed.id) == []
    assert await result_of(store, t.id, missed.id) == "-+", "a forfeit win for Dave (black)"
    entrants = {e.user_id: e for e in await store.entrants(t.id)}
    assert entrants[CAROL].absent and not entrants[DAVE].absent, "only the absent side is paused"
    assert await store.rating_changes(missed.id) == [], "a forfeit rates nobody"
    with pytest.raises(UserError) as refused:
        await store.claim_no_show(missed.id, DAVE)
    assert refused.value.key == "refusal.game_over_result", "claimed once"


async def test_a_claim_after_the_second_window_is_refused_and_the_game_is_a_double_no_show(
    store: Store, clock: Clock
) -> None:
    t = await tournament(store, rounds=1)
    missed, _ = await open_games(store, t.id, plan(1, (CAROL, DAVE), (ALICE, BOB)))
    clock.advance(days=1, seconds=1)
    opened = await store.flag(missed.id)
    assert opened is not None and opened.awaiting_claim
    clock.advance(days=1)
    with pytest.raises(UserError) as refused:
        await store.claim_no_show(missed.id, DAVE, expected_version=opened.version)
    assert refused.value.key == "refusal.claim_too_late"
    assert await store.get_game(missed.id) == opened, "a late claim changes nothing"
    ended = await store.flag(missed.id)
    assert ended is not None and ended.no_show and ended.aborted_by is None and set(ended.absent) == {CAROL, DAVE}
    assert ended.result == "Double no-show: neither player made a first move in time"
    assert await result_of(store, t.id, missed.id) == "--"
    entrants = {e.user_id: e for e in await store.entrants(t.id)}
    assert entrants[CAROL].absent and entrants[DAVE].absent
    with pytest.raises(UserError) as refused:
        await store.claim_no_show(missed.id, DAVE)
    assert refused.value.key == "refusal.claim_too_late"


async def test_a_finished_tournament_keeps_the_steps_that_still_owe_people_something(store: Store) -> None:
    """Finishing ends a tournament's round steps, but not what it still owes: its check-in notices (the drop
    notice of a member dropped at the start) and a dispute's post to the organisers."""
    t = await tournament(store)
    for key in ("notices", "dispute:7", "deadline:1", "play:1"):
        await store.schedule_tournament(t.id, key)
    await store.set_tournament_status(t.id, "finished", actor_id=0, allowed=("running",))
    left = sorted(
        {r.key for r in await store.claim_due(store.now() + 1, lease=60, limit=20) if r.tournament_id == t.id}
    )
    assert left == ["dispute:7", "notices", "posts"]
