"""A round's recap owed in the store, on SQLite and PostgreSQL: owed in the transaction of the round's last result
(with the ``posts`` step made due), once only (a result corrected later owes none), done once posted or with the
end, and the migration owing none for rounds already over."""

from __future__ import annotations

from pathlib import Path

from dbtools import raw
from test_store import ALICE, BOB, CAROL
from test_store_tournaments import DAVE, open_games, plan, tournament

from bot.store import Store
from bot.store.schema import MIGRATIONS
from bot.store.values import RoundPlan


def recap_states(db_path: Path, tid: int) -> dict[int, str]:
    with raw(db_path) as db:
        rows = db.execute("SELECT number, recap FROM tournament_rounds WHERE tournament_id = ?", (tid,)).fetchall()
    return {int(n): str(state) for n, state in rows}


def posts_due(db_path: Path, tid: int) -> bool:
    with raw(db_path) as db:
        return bool(db.execute("SELECT 1 FROM due WHERE tournament_id = ? AND key = 'posts'", (tid,)).fetchall())


def drop_posts(db_path: Path, tid: int) -> None:
    with raw(db_path) as db:
        db.execute("DELETE FROM due WHERE tournament_id = ? AND key = 'posts'", (tid,))


async def test_a_recap_is_owed_with_the_rounds_last_result_once_and_done_once_posted(
    store: Store, db_path: Path
) -> None:
    t = await tournament(store)
    first, second = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    await store.posts_delivered(t.id, "start")
    await store.posts_delivered(t.id, "round", 1)
    drop_posts(db_path, t.id)
    await store.resign(first.id, BOB)
    assert recap_states(db_path, t.id) == {1: "waiting"} and not posts_due(db_path, t.id), "a game still runs"
    await store.resign(second.id, DAVE)
    assert recap_states(db_path, t.id) == {1: "owed"}
    assert posts_due(db_path, t.id), "the posts step falls due with the last result"
    assert [r.recap for r in (await store.snapshot(t.id)).rounds] == ["owed"]
    # A restart finds it owed.
    drop_posts(db_path, t.id)
    await store.owe_posts(t.id)
    assert posts_due(db_path, t.id)
    await store.recap_posted(t.id, 1)
    assert recap_states(db_path, t.id) == {1: "done"}
    # The organiser corrects a result of the round: no second recap.
    drop_posts(db_path, t.id)
    pairing = (await store.snapshot(t.id)).round_pairings(1)[0]
    await store.set_result(t.id, pairing.id, "0-1", actor_id=ALICE)
    assert recap_states(db_path, t.id) == {1: "done"} and not posts_due(db_path, t.id)
    await store.owe_posts(t.id)
    assert not posts_due(db_path, t.id), "nothing owed"


async def test_the_last_rounds_recap_is_done_with_the_end(store: Store, db_path: Path) -> None:
    t = await tournament(store, rounds=1)
    first, second = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    await store.resign(first.id, BOB)
    await store.resign(second.id, CAROL)
    assert recap_states(db_path, t.id) == {1: "owed"}
    await store.set_tournament_status(t.id, "finished", actor_id=0, allowed=("running",))
    await store.posts_delivered(t.id, "end")
    assert recap_states(db_path, t.id) == {1: "done"}


async def test_a_round_of_forfeits_owes_its_recap_at_once_and_a_new_round_waits(store: Store, db_path: Path) -> None:
    t = await tournament(store)
    forfeits = RoundPlan(1, ((ALICE, BOB, None, "+-"), (CAROL, DAVE, None, "--")), (), (), 60)
    assert await store.save_round(t.id, forfeits, due_id=None)
    assert recap_states(db_path, t.id) == {1: "owed"}
    await open_games(store, t.id, plan(2, (ALICE, CAROL), (BOB, DAVE)))
    assert recap_states(db_path, t.id) == {1: "owed", 2: "waiting"}


async def test_the_migration_owes_no_recap_for_a_round_already_over(store: Store, db_path: Path) -> None:
    """The migration's statements run on rounds as they stood before it (every recap 'waiting'): a round over is
    done, a round still played waits for its last result."""
    [migration] = [m for m in MIGRATIONS if any("ADD COLUMN recap" in s for s in m)]
    t = await tournament(store)
    first, second = await open_games(store, t.id, plan(1, (ALICE, BOB), (CAROL, DAVE)))
    await store.resign(first.id, BOB)
    await store.resign(second.id, DAVE)
    (third,) = (await open_games(store, t.id, plan(2, (ALICE, CAROL), (BOB, DAVE))))[:1]
    await store.resign(third.id, CAROL)
    with raw(db_path) as db:
        db.execute("UPDATE tournament_rounds SET recap = 'waiting'")
        for statement in migration[1:]:
            db.execute(statement)
    assert recap_states(db_path, t.id) == {1: "done", 2: "waiting"}
