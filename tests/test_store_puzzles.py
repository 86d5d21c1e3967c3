"""Kept puzzles, on SQLite and PostgreSQL: a position once, read back whole, shown only where it may be."""

from __future__ import annotations

import pytest
from test_store import ALICE, started

from bot.puzzles.values import Puzzle
from bot.store import Store

GUILD = 1
OTHER_GUILD = 2


def puzzle(before: tuple[str, ...], guild: int | None, source: int | None = None) -> Puzzle:
    return Puzzle(
        game="veloop",
        settings={"board": "5", "protocol": "122"},
        before=before,
        solution=("c3", "d4", "e5"),
        goal="confine",
        rating=1720.5,
        tempting=3,
        source_game_id=source,
        guild_id=guild,
    )


async def test_a_puzzle_is_kept_once_and_read_back_whole(store: Store) -> None:
    info = await started(store)
    await store.resign(info.id, ALICE)
    mined = puzzle(("a1", "b2"), GUILD, info.id)
    assert await store.add_puzzles([mined, puzzle(("a1",), None)]) == 2
    assert await store.add_puzzles([mined]) == 0, "the same position is not kept twice"
    kept = await store.puzzles_for("veloop", GUILD)
    assert [p.before for p in kept] == [("a1", "b2"), ("a1",)]
    first = kept[0]
    assert first.id > 0 and first == await store.get_puzzle(first.id)
    assert (first.solution, first.goal, first.rating, first.tempting, first.source_game_id, first.guild_id) == (
        ("c3", "d4", "e5"),
        "confine",
        1720.5,
        3,
        info.id,
        GUILD,
    )
    assert dict(first.settings) == {"board": "5", "protocol": "122"}
    assert await store.get_puzzle(first.id + 100) is None


async def test_another_servers_puzzle_is_never_shown(store: Store) -> None:
    await store.add_puzzles([puzzle(("a1",), OTHER_GUILD), puzzle(("b1",), None)])
    assert [p.before for p in await store.puzzles_for("veloop", GUILD)] == [("b1",)]
    assert [p.before for p in await store.puzzles_for("veletas", OTHER_GUILD)] == []


@pytest.mark.parametrize("solution", [(), ("a1", "b2")])
def test_a_solution_ends_with_the_solvers_turn(solution: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        puzzle((), None).__class__(game="veloop", settings={}, before=(), solution=solution, goal="confine")
