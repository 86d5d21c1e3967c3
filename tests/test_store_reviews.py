"""Kept reviews, on SQLite and PostgreSQL: one per game, written once, read back for the same turns only."""

from __future__ import annotations

from pathlib import Path

from dbtools import raw
from test_store import ALICE, started

from bot.store import Store


async def test_a_review_is_kept_once_per_game_and_read_for_its_turns(store: Store, db_path: Path) -> None:
    info = await started(store)
    await store.resign(info.id, ALICE)
    assert await store.get_review(info.id, 0) is None
    await store.save_review(info.id, 0, '{"first": true}')
    await store.save_review(info.id, 0, '{"second": true}')  # a second press racing the first: the first stays
    assert await store.get_review(info.id, 0) == '{"first": true}'
    assert await store.get_review(info.id, 1) is None, "a review of other turns is not this game's"
    with raw(db_path) as db:
        rows = db.execute("SELECT game_id, turns FROM game_reviews").fetchall()
    assert [tuple(row) for row in rows] == [(info.id, 0)]
