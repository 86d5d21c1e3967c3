"""Result disputes in the store, on SQLite and PostgreSQL: who may dispute, once, within the window; the reason as
kept; the next round held while one is open; the organiser's decision closing it in the result's transaction."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path

import pytest
from dbtools import raw
from store_fixtures import Clock
from test_store import ALICE, BOB, CAROL
from test_store_tournaments import DAVE, advance_due, open_games, plan, tournament

from bot.clocks import TimeControl
from bot.errors import UserError
from bot.i18n import words
from bot.store import Store
from bot.store.values import MAX_DISPUTE_REASON, SLOW_DISPUTE_WINDOW, Dispute, RoundPlan, dispute_window
from bot.tournament_flow import DISPUTE_COLUMNS, Finished, disputes_text, plan_next
from cogs.tournament.disputes import dispute_lines


def disputes_stored(db_path: Path) -> int:
    with raw(db_path) as db:
        return int(db.execute("SELECT COUNT(*) FROM tournament_disputes").fetchall()[0][0])


async def refused(key: str, action: object) -> None:
    with pytest.raises(UserError) as caught:
        await action  # type: ignore[misc]
    assert caught.value.key == key, caught.value.key


async def test_only_a_player_disputes_a_finished_game_once_within_its_window(
    store: Store, db_path: Path, clock: Clock
) -> None:
    t = await tournament(store, rounds=2)
    first, second = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    await refused("dispute.refusal.not_over", store.open_dispute(first.id, ALICE, "too early"))
    await store.resign(first.id, BOB)
    await store.resign(second.id, DAVE)
    await refused("dispute.refusal.not_player", store.open_dispute(first.id, CAROL, "not mine"))
    await refused("dispute.refusal.not_player", store.check_dispute(first.id, CAROL))
    await refused("dispute.refusal.not_tournament", store.open_dispute(999_999, ALICE, "no game"))
    assert disputes_stored(db_path) == 0
    assert await store.disputable(first.id)
    clock.advance(seconds=SLOW_DISPUTE_WINDOW - 1)
    await store.check_dispute(first.id, BOB)
    dispute = await store.open_dispute(first.id, BOB, "  I clicked\nthe wrong  button  ")
    assert (dispute.round, dispute.board, dispute.user_id, dispute.result) == (1, 1, BOB, "1-0")
    assert dispute.reason == "I clicked the wrong button" and dispute.is_open
    assert not await store.disputable(first.id), "the board no longer offers it"
    with raw(db_path) as db:
        owed = db.execute("SELECT key FROM due WHERE tournament_id = ? AND key LIKE 'dispute:%'", (t.id,)).fetchall()
    assert [r[0] for r in owed] == [f"dispute:{dispute.id}"], "the organisers' post is owed with the dispute"
    await refused("dispute.refusal.already", store.open_dispute(first.id, ALICE, "me too"))
    await refused("dispute.refusal.already", store.check_dispute(first.id, BOB))
    clock.advance(seconds=2)
    await refused("dispute.refusal.too_late", store.open_dispute(second.id, DAVE, "late"))
    assert disputes_stored(db_path) == 1
    assert [(a, d) for _, _, a, d in await store.tournament_log(t.id) if a == "dispute"] == [("dispute", "1.1 1-0")]


async def test_a_reason_is_kept_on_one_line_in_any_script_and_refused_empty_or_too_long(store: Store) -> None:
    t = await tournament(store, rounds=2)
    first, second = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    await store.resign(first.id, BOB)
    await refused("dispute.refusal.no_reason", store.open_dispute(first.id, BOB, " \n\u200b\t"))
    await refused("dispute.refusal.reason_long", store.open_dispute(first.id, BOB, "x" * 301))
    kept = await store.open_dispute(first.id, BOB, "間違えて\r\n投了しました **@everyone** \x00")
    assert kept.reason == "間違えて 投了しました **@everyone**"
    await store.resign(second.id, DAVE)
    longest = await store.open_dispute(second.id, CAROL, "é" * MAX_DISPUTE_REASON)
    assert len(longest.reason) == MAX_DISPUTE_REASON


async def test_an_open_dispute_holds_the_next_round_and_the_decision_closes_it_and_makes_it_due(
    store: Store, db_path: Path, clock: Clock
) -> None:
    t = await tournament(store, rounds=2)
    first, second = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    await store.resign(first.id, BOB)
    await store.open_dispute(first.id, BOB, "a mouse slip")
    await store.resign(second.id, DAVE)
    snap = await store.snapshot(t.id)
    assert [d.user_id for d in snap.open_disputes] == [BOB]
    assert plan_next(snap) is None, "the round waits for the dispute"
    with raw(db_path) as db:
        db.execute("DELETE FROM due WHERE tournament_id = ?", (t.id,))
    clock.advance(minutes=5)
    await store.set_result(t.id, snap.pairings[0].id, "1/2-1/2", actor_id=ALICE)
    assert await advance_due(db_path, t.id), "the decision makes the next step due"
    snap = await store.snapshot(t.id)
    assert snap.open_disputes == ()
    [decided] = snap.disputes
    assert (decided.decided_by, decided.decision, decided.result) == (ALICE, "1/2-1/2", "1-0")
    assert decided.decided_at == pytest.approx(decided.opened_at + 300)
    assert plan_next(snap) is not None, "round 2 is paired now"
    assert [(a, d) for _, _, a, d in await store.tournament_log(t.id) if a in ("result", "decision")] == [
        ("result", "1.1 1/2-1/2"),
        ("decision", "1.1 1/2-1/2"),
    ]
    # A later correction of the same board is a result, not a second decision.
    await store.set_result(t.id, snap.pairings[0].id, "1-0", actor_id=CAROL)
    [still] = await store.disputes(t.id)
    assert (still.decided_by, still.decision) == (ALICE, "1/2-1/2")


async def ratings_table(db_path: Path) -> list[tuple[object, ...]]:
    """Every rating and rating change, rounded (a rebuild adds the same numbers in the same order)."""
    with raw(db_path) as db:
        rows = db.execute(
            "SELECT scope, user_id, value, deviation, games, wins, losses, draws FROM ratings ORDER BY scope, user_id"
        ).fetchall()
        changes = db.execute(
            "SELECT game_id, scope, user_id, before, after FROM rating_changes ORDER BY game_id, scope, user_id"
        ).fetchall()
    rounded = [tuple(round(v, 6) if isinstance(v, float) else v for v in r) for r in rows]
    return rounded + [("change", *(round(v, 6) if isinstance(v, float) else v for v in r)) for r in changes]


async def test_ratings_follow_the_decided_result_in_its_transaction_as_a_full_rebuild_would_rate_them(
    store: Store, db_path: Path, clock: Clock
) -> None:
    t = await tournament(store, rated=True, rounds=2)
    first, second = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    await store.resign(first.id, BOB)
    clock.advance(minutes=1)
    await store.resign(second.id, DAVE)
    await store.open_dispute(first.id, BOB, "my opponent's friend moved for them")
    snap = await store.snapshot(t.id)
    third, fourth = await open_games(store, t.id, plan(2, (BOB, CAROL), (DAVE, ALICE)))
    clock.advance(minutes=1)
    await store.resign(third.id, CAROL)  # a later game of the same pool: its rating follows the decision too
    before = {c.user_id: c for c in await store.rating_changes(first.id) if c.scope == 0}
    assert before[ALICE].after > before[ALICE].before and before[BOB].after < before[BOB].before
    later = {c.user_id: c.after for c in await store.rating_changes(third.id) if c.scope == 0}

    await store.set_result(t.id, snap.pairings[0].id, "0-1", actor_id=ALICE)
    assert (await store.get_game(first.id)).winner_id == BOB
    after = {c.user_id: c for c in await store.rating_changes(first.id) if c.scope == 0}
    assert after[ALICE].after < after[ALICE].before and after[BOB].after > after[BOB].before
    assert {c.user_id: c.after for c in await store.rating_changes(third.id) if c.scope == 0} != later
    [(_, _, record)] = await store.player_ratings(0, BOB, "veloop")
    assert record == (2, 0, 0), "Bob won both his games now"
    decided = await ratings_table(db_path)
    await store.rebuild_ratings()
    assert await ratings_table(db_path) == decided, "the decision rated the pools as a rebuild does"

    # A forfeit decision takes the game out of the ratings (a forfeit rates nobody).
    await store.set_result(t.id, snap.pairings[0].id, "+-", actor_id=ALICE)
    assert await store.rating_changes(first.id) == []
    [(_, _, record)] = await store.player_ratings(0, BOB, "veloop")
    assert record == (1, 0, 0)
    forfeited = await ratings_table(db_path)
    await store.rebuild_ratings()
    assert await ratings_table(db_path) == forfeited
    assert fourth.status == "active"


async def test_a_dispute_of_the_last_round_holds_the_end_until_it_is_decided(store: Store) -> None:
    t = await tournament(store, rounds=1)
    first, second = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    await store.resign(first.id, BOB)
    await store.resign(second.id, DAVE)
    assert isinstance(plan_next(await store.snapshot(t.id)), Finished), "undisputed, the event would end now"
    await store.open_dispute(second.id, CAROL, "the result is right but I want it checked")
    snap = await store.snapshot(t.id)
    assert plan_next(snap) is None, "no end (and no podium) while the dispute is open"
    await store.set_result(t.id, snap.pairings[1].id, "1-0", actor_id=ALICE)
    assert isinstance(plan_next(await store.snapshot(t.id)), Finished), "the same result confirms it"


@pytest.mark.parametrize(
    ("control", "window"),
    [("5+3", 15 * 60), ("180+0", 15 * 60), ("1d", 86_400), ("48h+12h/96h", 86_400), ("none", 86_400)],
)
def test_the_window_is_minutes_for_a_live_clock_and_a_day_for_correspondence(control: str, window: float) -> None:
    assert dispute_window(TimeControl.parse(control)) == window


@pytest.mark.parametrize("format", ["round_robin", "single_elimination", "double_elimination"])
async def test_every_format_waits_for_an_open_dispute(store: Store, format: str) -> None:
    t = await tournament(store, format=format, rounds=None)
    first = plan_next(await store.snapshot(t.id))
    assert isinstance(first, RoundPlan)
    games = await open_games(store, t.id, first)
    for game in games:
        await store.resign(game.id, game.opponent_id)  # type: ignore[arg-type]
    snap = await store.snapshot(t.id)
    undisputed = plan_next(snap)
    assert undisputed is not None
    await store.open_dispute(games[0].id, games[0].challenger_id, "please check")
    snap = await store.snapshot(t.id)
    assert plan_next(snap) is None
    pairing = next(p for p in snap.pairings if p.game_id == games[0].id)
    await store.set_result(t.id, pairing.id, "1-0", actor_id=ALICE)
    assert plan_next(await store.snapshot(t.id)) == undisputed


async def test_the_disputes_export_keeps_a_reason_written_like_a_formula_as_text(store: Store, clock: Clock) -> None:
    t = await tournament(store, rounds=2)
    first, second = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    await store.resign(first.id, BOB)
    await store.resign(second.id, DAVE)
    await store.open_dispute(first.id, BOB, '=HYPERLINK("http://example.com", "x")')
    await store.open_dispute(second.id, CAROL, "fine, just checking")
    clock.advance(minutes=2)
    snap = await store.snapshot(t.id)
    await store.set_result(t.id, snap.pairings[1].id, "1-0", actor_id=ALICE)
    rows = list(csv.reader(io.StringIO(disputes_text(await store.snapshot(t.id)))))
    assert rows == [
        list(DISPUTE_COLUMNS),
        [
            "1", "1", str(ALICE), str(BOB), str(BOB), '\'=HYPERLINK("http://example.com", "x")', "1-0",
            "2026-01-01T12:00:00Z", "", "", "",
        ],
        [
            "1", "2", str(CAROL), str(DAVE), str(CAROL), "fine, just checking", "1-0",
            "2026-01-01T12:00:00Z", str(ALICE), "1-0", "2026-01-01T12:02:00Z",
        ],
    ]  # fmt: skip


async def test_info_lists_the_latest_disputes_that_fit_its_message_and_counts_the_rest(store: Store) -> None:
    t = await tournament(store, rounds=2)
    snap = await store.snapshot(t.id)
    # Reasons of markdown alone: escaped, each shown character takes two.
    many = tuple(Dispute(i, t.id, i, 1, i, ALICE, "*" * 300, "1-0", 1.8e9) for i in range(1, 9))
    w = words("en")
    lines = dispute_lines(w, replace(snap, disputes=many), room=1000)
    assert len("\n".join(lines)) <= 1000
    assert lines[0] == "The next round waits for 8 open disputes."
    shown = [line for line in lines if line.startswith("⚖️")]
    assert 1 <= len(shown) < 5 and lines[1] == f"…and {8 - len(shown)} earlier disputes."
    assert shown[-1].startswith("⚖️ Round 1, board 8:") and "\\*" * 99 + "…" in shown[-1]
    roomy = dispute_lines(w, replace(snap, disputes=many[:2]))
    assert len(roomy) == 3 and roomy[0] == "The next round waits for 2 open disputes."
    assert roomy[1].startswith("⚖️ Round 1, board 1: <@11> disputed") and roomy[2].startswith("⚖️ Round 1, board 2:")
