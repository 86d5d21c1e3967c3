"""Clocks in the store and the one scheduler, on real SQLite files and a clock moved by hand."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

import pytest
from dbtools import raw
from store_fixtures import Clock
from test_store import ALICE, BOB, CAROL, CHANNEL, GUILD, snapshot

from bot.clocks import DAY, HOUR, MINUTE, TimeControl
from bot.db.postgres import PostgresDatabase
from bot.errors import TimeIsUp
from bot.rules import veloop
from bot.scheduler import Scheduler
from bot.store import Store
from bot.store.values import DueRow, GameInfo


async def veloop_game(store: Store, control: TimeControl, *, channel: int = CHANNEL, opened: bool = False) -> GameInfo:
    """A Veloop game (no setup: moves from the first turn) between Alice (Black) and Bob, with ``control``.

    ``opened``: each player has made a first move at once (no time spent), so the game's end by time or
    resignation decides it; before that it would be aborted.
    """
    info = await store.create_challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger_id=ALICE,
        opponent_id=BOB,
        where="here",
        expires_at=None,
        game="veloop",
        settings={"board": "8", "protocol": "alternating"},
        time_control=control,
    )
    info = await store.accept_challenge(info.id, BOB, channel_id=channel)
    if opened:
        for player in (ALICE, BOB):
            info = await store.play(info.id, player, move(info))
    return info


def move(info: GameInfo, index: int = 0) -> str:
    state = info.state
    assert isinstance(state, veloop.Game)
    return str([m for m in state.position.legal_moves() if not m.is_pass][index])


def due_rows(path: Path) -> list[tuple[str, int, str, float]]:
    with raw(path) as db:
        return [
            (str(r[0]), int(r[1]), str(r[2]), float(r[3]))
            for r in db.execute("SELECT kind, game_id, key, due_at FROM due ORDER BY due_at")
        ]


async def test_accepting_starts_the_clock_and_schedules_the_deadline_and_reminders(
    store: Store, db_path: Path, clock: Clock
) -> None:
    info = await veloop_game(store, TimeControl.days(2))
    start = clock.now.timestamp()
    assert info.clock is not None and info.clock.running == "first" and info.clock.since == start
    assert info.time_control == TimeControl.days(2)
    # Black's first move is due within its window (a day), a reminder an hour before; its two days wait.
    assert info.clock.awaiting_first_turn and info.clock.left("first", start + DAY - 1) == 2 * DAY
    assert due_rows(db_path) == [
        ("reminder", info.id, str(int(HOUR)), start + DAY - HOUR),
        ("deadline", info.id, "", start + DAY),
    ]
    opened = await veloop_game(store, TimeControl.days(2), channel=CHANNEL + 1, opened=True)
    # Once both have moved, Black has two days; reminders at 24 h and at 1 h left, then the deadline itself.
    assert [r for r in due_rows(db_path) if r[1] == opened.id] == [
        ("reminder", opened.id, str(int(24 * HOUR)), start + DAY),
        ("reminder", opened.id, str(int(HOUR)), start + 2 * DAY - HOUR),
        ("deadline", opened.id, "", start + 2 * DAY),
    ]


async def test_a_move_charges_the_mover_and_hands_the_clock_over(store: Store, db_path: Path, clock: Clock) -> None:
    info = await veloop_game(store, TimeControl.parse("5+3"), opened=True)
    clock.advance(seconds=10)
    moved = await store.play(info.id, ALICE, move(info))
    assert moved.clock is not None
    assert moved.clock.first == pytest.approx(5 * MINUTE - 10 + 3), "10 s spent, 3 s increment"
    assert moved.clock.running == "second" and moved.clock.second == 5 * MINUTE
    now = clock.now.timestamp()
    # A live game gets no reminders; one deadline, White's, replaces Black's.
    assert due_rows(db_path) == [("deadline", info.id, "", now + 5 * MINUTE)]
    again = await store.get_game(info.id)
    assert again.clock == moved.clock, "the clock read back is the clock written"


async def test_time_running_out_loses_the_game_and_a_late_move_is_refused(
    store: Store, db_path: Path, clock: Clock
) -> None:
    info = await veloop_game(store, TimeControl.parse("1+0"), opened=True)
    clock.advance(seconds=59)
    assert await store.flag(info.id) is None, "a second is left"
    assert (await store.get_game(info.id)).status == "active"
    clock.advance(seconds=2)
    before = snapshot(db_path)
    with pytest.raises(TimeIsUp):
        await store.play(info.id, ALICE, move(info))
    assert snapshot(db_path) == before, "a late move changes nothing"
    ended = await store.flag(info.id)
    assert ended is not None and ended.status == "finished" and ended.termination == "time forfeit"
    assert ended.winner_id == BOB and ended.result == "Black lost on time"
    outcome = ended.outcome
    assert outcome is not None and outcome.winner == "white" and outcome.result_token == "0-1"
    assert due_rows(db_path) == [], "nothing is left to fall due"
    stored = await store.get_game(info.id)
    assert stored.version == info.version + 1 and stored.unannounced, "the final board is owed"
    assert await store.flag(info.id) is None, "flagging twice ends nothing twice"


async def test_a_casual_game_ends_after_the_inactivity_limit(store: Store, clock: Clock) -> None:
    info = await veloop_game(store, TimeControl.none(3), opened=True)
    clock.advance(days=2, hours=23)
    assert await store.flag(info.id) is None
    clock.advance(hours=2)
    ended = await store.flag(info.id)
    assert ended is not None and ended.result == "Black lost on time (no move for 3 days)"


async def test_a_stale_deadline_row_is_dropped_and_the_newer_one_stands(
    store: Store, db_path: Path, clock: Clock
) -> None:
    info = await veloop_game(store, TimeControl.parse("1+0"))
    clock.advance(seconds=61)
    [row] = await store.claim_due(clock.now.timestamp(), lease=30, limit=10)
    # White's time was given back meanwhile (a move could have landed): the row no longer tells the truth.
    await store.keep_alive(gap_allowed=1e9)
    with raw(db_path) as db:
        db.execute("UPDATE games SET clock_since = clock_since + 120 WHERE id = ?", (info.id,))
    assert await store.flag(info.id, due_id=row.id) is None
    assert all(r[0] != "deadline" or r[3] != row.due_at for r in due_rows(db_path))


async def test_undo_gives_the_turn_back_with_both_clocks_as_they_were(store: Store, clock: Clock) -> None:
    info = await veloop_game(store, TimeControl.parse("10+0"), opened=True)
    clock.advance(seconds=30)
    moved = await store.play(info.id, ALICE, move(info))
    asked = await store.request_undo(moved.id, ALICE)
    clock.advance(seconds=5)
    undone = await store.answer_undo(asked.id, BOB, True)
    assert undone.clock is not None and undone.clock.running == "first"
    assert undone.clock.since == clock.now.timestamp()
    assert undone.clock.first == 10 * MINUTE - 30, "Black's 30 s before the move stay spent"
    assert undone.clock.second == 10 * MINUTE, "White's bank is as it was before the move taken back"
    assert (await store.get_game(info.id)).clock == undone.clock


async def test_take_backs_keep_no_increment(store: Store, clock: Clock) -> None:
    """Five take-backs under 1+10, each move after 7 s: the increments go with the moves, the 35 s stay spent."""
    info = await veloop_game(store, TimeControl.parse("1+10"), opened=True)
    for _ in range(5):
        clock.advance(seconds=7)
        moved = await store.play(info.id, ALICE, move(info))
        assert moved.clock is not None and moved.clock.first > (info.clock.first if info.clock else 0)
        asked = await store.request_undo(moved.id, ALICE)
        clock.advance(seconds=4)
        info = await store.answer_undo(asked.id, BOB, True)
    assert info.clock is not None and info.ply == 2
    assert (info.clock.first, info.clock.second) == (60.0 - 35.0, 60.0)
    assert info.clock.deadline() == clock.now.timestamp() + 25.0


async def test_a_last_second_move_taken_back_gets_no_fresh_allowance(store: Store, db_path: Path, clock: Clock) -> None:
    info = await veloop_game(store, TimeControl.days(3), opened=True)
    clock.advance(days=3, seconds=-1)
    moved = await store.play(info.id, ALICE, move(info))
    asked = await store.request_undo(moved.id, ALICE)
    clock.advance(hours=5)
    undone = await store.answer_undo(asked.id, BOB, True)
    assert undone.clock is not None and (undone.clock.first, undone.clock.second) == (1.0, 3 * DAY)
    now = clock.now.timestamp()
    assert due_rows(db_path) == [("deadline", info.id, "", now + 1.0)], "one second left: no reminders, a deadline"
    clock.advance(seconds=1)
    flagged = await store.flag(info.id)
    assert flagged is not None and flagged.winner_id == BOB


async def test_a_take_back_is_refused_once_time_ran_out_and_the_flag_falls(
    store: Store, db_path: Path, clock: Clock
) -> None:
    info = await veloop_game(store, TimeControl.parse("1+0"), opened=True)
    clock.advance(seconds=30)
    moved = await store.play(info.id, ALICE, move(info))
    asked = await store.request_undo(moved.id, ALICE)
    clock.advance(seconds=61)  # White's minute ran out while the request waited
    before = snapshot(db_path)
    with pytest.raises(TimeIsUp) as refused:
        await store.answer_undo(asked.id, BOB, True)
    assert refused.value.key == "refusal.undo_time_is_up"
    assert snapshot(db_path) == before, "nothing changed"
    flagged = await store.flag(info.id)
    assert flagged is not None and flagged.winner_id == ALICE and flagged.termination == "time forfeit"
    assert flagged.clock is not None and flagged.clock.second <= 0.0 and flagged.ply == 3

    second = await veloop_game(store, TimeControl.parse("1+0"), channel=CHANNEL + 1)
    played = await store.play(second.id, ALICE, move(second))
    clock.advance(seconds=60)  # White's time is up before Black asks
    with pytest.raises(TimeIsUp):
        await store.request_undo(played.id, ALICE)


async def test_a_take_back_against_the_ai_restores_the_clocks_and_is_refused_after_the_flag(
    store: Store, clock: Clock
) -> None:
    created = await store.create_challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=CAROL,
        where="here",
        expires_at=None,
        game="veloop",
        settings={"board": "8", "protocol": "alternating"},
        time_control=TimeControl.parse("2+5"),
        ai_level=1,
    )
    info = await store.accept_challenge(created.id, CAROL, channel_id=CHANNEL)
    # Each side's first move is free (made within its window): the clocks start with the second.
    info = await store.play(info.id, CAROL, move(await store.play(info.id, ALICE, move(info))))
    clock.advance(seconds=20)
    mine = await store.play(info.id, ALICE, move(info))
    clock.advance(seconds=3)
    reply = await store.play(info.id, CAROL, move(mine))
    clock.advance(seconds=9)
    undone = await store.take_back_against_ai(reply.id, ALICE, CAROL)
    assert undone.ply == 2 and undone.clock is not None
    assert (undone.clock.first, undone.clock.second, undone.clock.running) == (100.0, 120.0, "first")
    mine = await store.play(info.id, ALICE, move(undone))
    reply = await store.play(info.id, CAROL, move(mine))
    clock.advance(seconds=200)
    with pytest.raises(TimeIsUp):
        await store.take_back_against_ai(reply.id, ALICE, CAROL)


async def test_resigning_stops_the_clock_and_clears_what_was_due(store: Store, db_path: Path) -> None:
    info = await veloop_game(store, TimeControl.days(1))
    assert due_rows(db_path)
    resigned = await store.resign(info.id, ALICE)
    assert resigned.clock is not None and resigned.clock.running is None
    assert due_rows(db_path) == []


async def test_downtime_is_given_back_to_every_clock(store: Store, db_path: Path, clock: Clock) -> None:
    assert await store.keep_alive(gap_allowed=90) == 0
    info = await veloop_game(store, TimeControl.days(1))
    deadline = info.clock.deadline() if info.clock else None
    assert deadline is not None
    clock.advance(seconds=60)
    assert await store.keep_alive(gap_allowed=90) == 0, "a minute between heartbeats is not downtime"
    clock.advance(days=2)  # the bot was down past the deadline
    given = await store.keep_alive(gap_allowed=90)
    assert given == pytest.approx(2 * DAY)
    assert await store.flag(info.id) is None, "nobody loses on time because the bot was away"
    moved = await store.get_game(info.id)
    assert moved.clock is not None and moved.clock.deadline() == pytest.approx(deadline + 2 * DAY)
    assert [r[3] for r in due_rows(db_path) if r[0] == "deadline"] == [pytest.approx(deadline + 2 * DAY)]


async def test_downtime_is_given_back_to_a_window_to_claim_a_game_too(
    store: Store, db_path: Path, clock: Clock
) -> None:
    assert await store.keep_alive(gap_allowed=90) == 0
    info = await veloop_game(store, TimeControl.days(1))
    clock.advance(days=1, seconds=1)
    assert await store.keep_alive(gap_allowed=10 * DAY) == 0, "the bot was running all along"
    opened = await store.flag(info.id)  # the first side's day passes: the second side has a day to claim the game
    assert opened is not None and opened.awaiting_claim and opened.claim_deadline is not None
    until = opened.claim_deadline
    assert [(r[0], r[3]) for r in due_rows(db_path)] == [("deadline", pytest.approx(until))]
    clock.advance(days=2)  # the bot was down past the end of that window
    assert await store.keep_alive(gap_allowed=90) == pytest.approx(2 * DAY)
    moved = await store.get_game(info.id)
    assert moved.claim_deadline == pytest.approx(until + 2 * DAY), "the window is moved on with the clock"
    assert [(r[0], r[3]) for r in due_rows(db_path)] == [("deadline", pytest.approx(until + 2 * DAY))]
    assert await store.flag(info.id) is None, "nobody is a no-show because the bot was away"
    claimant = moved.claimant
    assert claimant is not None
    claimed = await store.claim_no_show(info.id, claimant, expected_version=moved.version)
    assert claimed.no_show and claimed.aborted_by == opened.aborted_by


async def test_claimed_rows_wait_for_their_lease_and_the_plan_uses_the_index(
    store: Store, db_path: Path, clock: Clock
) -> None:
    info = await veloop_game(store, TimeControl.parse("1+0"))
    clock.advance(seconds=61)
    now = clock.now.timestamp()
    [row] = await store.claim_due(now, lease=30, limit=10)
    assert row.kind == "deadline" and row.game_id == info.id
    assert await store.claim_due(now + 29, lease=30, limit=10) == [], "leased to its taker"
    [again] = await store.claim_due(now + 31, lease=30, limit=10)
    assert again.id == row.id, "a taker that died leaves the row to the next one"
    with raw(db_path) as db:
        for sql in (
            "SELECT due_at FROM due ORDER BY due_at LIMIT 1",
            "SELECT id, kind, game_id, key, due_at FROM due WHERE due_at <= 1 ORDER BY due_at LIMIT 5",
        ):
            if store.backend == "sqlite":
                plan = " ".join(str(r[-1]) for r in db.execute(f"EXPLAIN QUERY PLAN {sql}"))
                # Down the index in due order (a search, or a scan that LIMIT stops at once), never a sort.
                assert "INDEX due_by_time" in plan and "TEMP B-TREE" not in plan, plan
            else:
                # A handful of rows is read fastest by a plain scan: asked not to scan, PostgreSQL must have
                # an index that gives the rows in due order, without a sort.
                db.execute("SET enable_seqscan = off")
                plan = " ".join(str(r[0]) for r in db.execute(f"EXPLAIN {sql}"))
                assert "due_by_time" in plan and "Sort" not in plan, plan


async def test_a_reminder_is_taken_once(store: Store, clock: Clock) -> None:
    info = await veloop_game(store, TimeControl.days(2), opened=True)
    clock.advance(days=1, seconds=1)
    rows = await store.claim_due(clock.now.timestamp(), lease=30, limit=10)
    [reminder] = [r for r in rows if r.kind == "reminder"]
    taken = await store.take_reminder(reminder.id)
    assert taken is not None and taken[0].id == info.id and taken[1] == 24 * HOUR
    assert await store.take_reminder(reminder.id) is None


async def test_the_scheduler_acts_once_on_each_row_even_with_two_of_them(store: Store, clock: Clock) -> None:
    games = [await veloop_game(store, TimeControl.parse("1+0"), channel=CHANNEL + i, opened=True) for i in range(6)]
    acted: list[int] = []

    async def on_deadline(row: DueRow) -> None:
        ended = await store.flag(row.game_id, due_id=row.id)
        if ended is not None:
            acted.append(ended.id)

    async def on_reminder(row: DueRow) -> None:
        raise AssertionError("live games have no reminders")

    handlers = {"deadline": on_deadline, "reminder": on_reminder}
    first, second = Scheduler(store, handlers, batch=2), Scheduler(store, handlers, batch=2)
    assert await first.run_due() == 0, "nothing is due yet"
    clock.advance(seconds=61)
    await asyncio.gather(first.run_due(), second.run_due())
    assert sorted(acted) == sorted(g.id for g in games), "every game flagged exactly once"
    assert [(await store.get_game(g.id)).termination for g in games] == ["time forfeit"] * len(games)
    assert await store.next_due_at() is None


async def test_the_scheduler_loop_wakes_for_what_falls_due(store: Store, clock: Clock) -> None:
    woke = asyncio.Event()
    acted: list[int] = []

    async def on_deadline(row: DueRow) -> None:
        acted.append(row.game_id)
        await store.flag(row.game_id, due_id=row.id)
        woke.set()

    scheduler = Scheduler(store, {"deadline": on_deadline}, tick=0.05)
    task = asyncio.create_task(scheduler.run())
    try:
        info = await veloop_game(store, TimeControl.parse("1+0"))
        await asyncio.sleep(0.2)  # four of the loop's looks (tick 0.05 s) in which nothing may fire
        assert acted == [], "not due yet"
        clock.advance(seconds=31)  # the first side's 30-second window; the second side's claim window runs to 60 s
        scheduler.wake()
        await asyncio.wait_for(woke.wait(), timeout=5)
        assert acted == [info.id]
    finally:
        task.cancel()


async def test_the_scheduler_looks_again_only_for_a_row_due_before_it_would_look_anyway(
    store: Store, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every move reschedules its game's deadline; one that falls due after the loop's next look wakes nobody."""
    looks = 0
    claim = store.claim_due

    async def counted(now: float, *, lease: float, limit: int, owner: str = "") -> list[DueRow]:
        nonlocal looks
        looks += 1
        return await claim(now, lease=lease, limit=limit, owner=owner)

    monkeypatch.setattr(store, "claim_due", counted)
    scheduler = Scheduler(store, {}, tick=3600)
    task = asyncio.create_task(scheduler.run())
    try:
        await asyncio.sleep(0.2)  # a window for a second look, which must not come
        assert looks == 1, "one look at start, then asleep for the tick"
        slow = await veloop_game(store, TimeControl.parse("3d"), channel=CHANNEL + 1)
        await store.play(slow.id, ALICE, move(slow))
        await asyncio.sleep(0.2)  # a window for a look the move must not cause
        assert looks == 1, "deadlines days away are not looked at before the next tick"
        await veloop_game(store, TimeControl.parse("1+0"))
        await asyncio.sleep(0.2)  # the one look it wakes for, and a window for a third, which must not come
        assert looks == 2, "a deadline a minute away wakes the loop"
    finally:
        task.cancel()


async def test_challenge_expiry_is_a_due_row_of_the_one_scheduler(store: Store, db_path: Path, clock: Clock) -> None:
    deadline = clock.now + dt.timedelta(minutes=15)
    made = [
        await store.create_challenge(
            guild_id=GUILD,
            channel_id=CHANNEL + i,
            challenger_id=ALICE,
            opponent_id=(None, BOB, CAROL)[i],
            where="here",
            expires_at=deadline,
        )
        for i in range(3)
    ]
    assert due_rows(db_path) == [("expiry", info.id, "", deadline.timestamp()) for info in made]
    await store.accept_challenge(made[1].id, BOB, channel_id=CHANNEL + 1)
    await store.decline_challenge(made[2].id, CAROL)
    assert [r[:2] for r in due_rows(db_path) if r[0] == "expiry"] == [("expiry", made[0].id)]
    assert await store.expire_challenge(made[0].id) is None, "not due yet"
    clock.advance(minutes=16)
    expired = await store.expire_challenge(made[0].id)
    assert expired is not None and expired.status == "expired"
    assert [r for r in due_rows(db_path) if r[0] == "expiry"] == []


async def test_on_postgresql_a_move_with_its_deadline_is_two_messages_and_its_board_posted_one(
    pg_url: str, clock: Clock
) -> None:
    """The writes a move makes whose outcome nothing reads (its deadline and reminders, its row in ``moves``) go
    with the COMMIT; the BEGIN and the locks go with the game's conditional UPDATE. Every row still lands."""
    store = await Store.open(pg_url, clock=clock)
    try:
        info = await veloop_game(store, TimeControl.days(2))
        db = store._db
        assert isinstance(db, PostgresDatabase)
        sent: list[str] = []
        db.raw.add_query_logger(lambda record: sent.append(record.query))
        clock.advance(seconds=30)
        moved = await store.play(info.id, ALICE, move(info))
        await asyncio.sleep(0.05)  # asyncpg calls its query loggers soon after, not at once
        assert len(sent) == 2, sent
        await store.mark_posted(info.id, moved.version, 123456789)
        await asyncio.sleep(0.05)
        assert len(sent) == 3 and "UPDATE games SET board_message_id" in sent[2] and sent[2].endswith("COMMIT")
        again = await store.get_game(info.id)
        assert again.ply == moved.ply and again.board_message_id == 123456789
        rows = await db.read("SELECT kind, due_at FROM due WHERE game_id = ? ORDER BY due_at", (info.id,))
        assert moved.clock is not None
        assert [r["kind"] for r in rows][-1] == "deadline" and rows[-1]["due_at"] == moved.clock.deadline()
        assert len(rows) > 1, "the reminders before the deadline"
        [played] = await db.read("SELECT turn, user_id FROM moves WHERE game_id = ?", (info.id,))
        assert (played["turn"], played["user_id"]) == (moved.turns[-1], ALICE)
    finally:
        await store.close()


async def test_a_resignation_after_the_opponents_time_ran_out_is_refused_and_the_flag_falls(
    store: Store, db_path: Path, clock: Clock
) -> None:
    info = await veloop_game(store, TimeControl.parse("1+0"), opened=True)
    clock.advance(seconds=61)  # Black's minute is up; the scheduler has not acted yet
    before = snapshot(db_path)
    with pytest.raises(TimeIsUp) as refused:
        await store.resign(info.id, BOB)  # White would hand Black a game Black has already lost
    assert refused.value.key == "refusal.resign_time_is_up" and snapshot(db_path) == before
    flagged = await store.flag(info.id)
    assert flagged is not None and flagged.winner_id == BOB and flagged.termination == "time forfeit"
