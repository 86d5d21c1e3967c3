"""Members playing puzzles, on SQLite and PostgreSQL: rated first attempts (both ratings moved by Glicko-2 in one
transaction), unrated replays, streaks, the server's daily puzzle, the next puzzle, and what a server may never see."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from dbtools import raw
from puzzle_positions import VELETAS, legal, margin, veletas_one, veloop_more, veloop_one, veloop_two, wrong_first
from store_fixtures import Clock
from test_store import ALICE, BOB, started

from bot.errors import UserError
from bot.puzzles.play import Step, judge, replay
from bot.puzzles.values import Puzzle
from bot.ratings import Rating, rate_game
from bot.rules.protocol import IllegalMove
from bot.store import Store
from bot.store.puzzle_play import Standing

GUILD = 1
OTHER_GUILD = 2
CHANNEL = 10


async def kept(store: Store, *puzzles: Puzzle) -> list[Puzzle]:
    """The puzzles kept, with their ids, in the order given."""
    assert await store.add_puzzles(puzzles) == len(puzzles)
    found = {p.key: p for p in await store.puzzles_for(puzzles[0].game, GUILD)}
    found.update({p.key: p for p in await store.puzzles_for(puzzles[0].game, OTHER_GUILD)})
    return [found[p.key] for p in puzzles]


async def test_a_first_attempt_moves_both_ratings_by_glicko2_and_a_replay_moves_nothing(
    store: Store, clock: Clock
) -> None:
    (puzzle,) = await kept(store, veloop_two(rating=1650.0, deviation=80.0, volatility=0.059))
    attempt = await store.start_attempt(ALICE, GUILD, CHANNEL, puzzle.id)
    assert attempt.rated and attempt.status == "open" and attempt.turns == ()
    right = await store.play_puzzle_turn(attempt.id, ALICE, "b5<c3")
    assert right.step.verdict == "right" and right.attempt.turns == ("b5<c3", "d1<e3"), "the reply is played at once"
    assert right.before is None and right.standing.rating == Rating(), "nothing is rated before the end"
    clock.advance(seconds=30)
    solved = await store.play_puzzle_turn(attempt.id, ALICE, "b3<c5")
    mine, theirs = rate_game(Rating(), Rating(1650.0, 80.0, 0.059, 0), 1.0, store.now())
    assert solved.step.verdict == "solved" and solved.attempt.status == "solved"
    assert solved.before == Rating() and solved.standing.rating == mine and mine.value > 1500
    assert (solved.standing.streak, solved.standing.best_streak) == (1, 1)
    assert await store.puzzle_standing(ALICE, "veloop") == solved.standing
    again = await store.get_puzzle(puzzle.id)
    assert again is not None
    assert (again.rating, again.deviation, again.volatility, again.plays) == (
        theirs.value,
        theirs.deviation,
        theirs.volatility,
        1,
    )
    assert again.rating < 1650.0, "solved: the puzzle is the loser"

    # The same puzzle again: played the same way, rated nothing, streak untouched.
    replay = await store.start_attempt(ALICE, GUILD, CHANNEL, puzzle.id)
    assert not replay.rated and replay.id != attempt.id
    failed = await store.play_puzzle_turn(replay.id, ALICE, wrong_first(puzzle))
    assert failed.step.verdict == "wrong" and failed.step.expected == "b5<c3" and failed.before is None
    assert await store.puzzle_standing(ALICE, "veloop") == solved.standing
    assert await store.get_puzzle(puzzle.id) == again


async def test_a_wrong_turn_is_a_rated_loss_and_streaks_count_and_reset(store: Store) -> None:
    first, second = await kept(store, veloop_one(), veloop_two())
    one = await store.start_attempt(BOB, GUILD, CHANNEL, first.id)
    assert (await store.play_puzzle_turn(one.id, BOB, "e3<d1")).standing.streak == 1
    two = await store.start_attempt(BOB, GUILD, CHANNEL, second.id)
    before = await store.puzzle_standing(BOB, "veloop")
    lost = await store.play_puzzle_turn(two.id, BOB, wrong_first(second))
    assert lost.step.verdict == "wrong" and lost.attempt.status == "failed"
    mine, _ = rate_game(before.rating, Rating(1500.0, 350.0, 0.06, 0), 0.0, store.now())
    assert lost.standing.rating == mine and mine.value < before.rating.value
    assert (lost.standing.streak, lost.standing.best_streak) == (0, 1)
    with pytest.raises(UserError) as over:
        await store.play_puzzle_turn(two.id, BOB, "b5<c3")
    assert over.value.key == "puzzle.over"


async def test_an_illegal_turn_or_someone_elses_attempt_changes_nothing(store: Store, db_path: Path) -> None:
    (puzzle,) = await kept(store, veletas_one())
    attempt = await store.start_attempt(ALICE, GUILD, CHANNEL, puzzle.id)
    with raw(db_path) as db:
        before = [tuple(r) for r in db.execute("SELECT * FROM puzzle_attempts").fetchall()]
    with pytest.raises(IllegalMove):
        await store.play_puzzle_turn(attempt.id, ALICE, "a1-a2/a3")
    with pytest.raises(UserError) as theirs:
        await store.play_puzzle_turn(attempt.id, BOB, "e4-g6/f7")
    assert theirs.value.key == "puzzle.not_yours"
    with raw(db_path) as db:
        assert [tuple(r) for r in db.execute("SELECT * FROM puzzle_attempts").fetchall()] == before
        assert db.execute("SELECT COUNT(*) FROM puzzle_ratings").fetchone()[0] == 0
    assert (await store.play_puzzle_turn(attempt.id, ALICE, "e4-g6/f7")).step.verdict == "solved"


async def test_the_daily_puzzle_stays_all_day_and_changes_the_next(store: Store, clock: Clock) -> None:
    puzzles = await kept(store, veloop_one(), veloop_two(), veloop_more(0))
    day = dt.date(2026, 1, 1)
    today = await store.daily_puzzle(GUILD, "veloop", day)
    assert today is not None and today.id in {p.id for p in puzzles}
    for _ in range(3):
        assert await store.daily_puzzle(GUILD, "veloop", day) == today
    tomorrow = await store.daily_puzzle(GUILD, "veloop", day + dt.timedelta(days=1))
    assert tomorrow is not None and tomorrow.id != today.id, "a puzzle not shown before comes first"
    assert await store.daily_puzzle(GUILD, "veletas", day) is None, "no Veletas puzzle kept"


async def test_another_servers_puzzle_and_one_of_a_game_in_play_are_never_chosen(store: Store) -> None:
    info = await started(store)
    theirs, live, shared = await kept(
        store,
        veloop_one(guild_id=OTHER_GUILD),
        veloop_two(guild_id=GUILD, source_game_id=info.id),
        veloop_more(0),
    )
    for day in range(5):
        chosen = await store.daily_puzzle(GUILD, "veloop", dt.date(2026, 1, 1) + dt.timedelta(days=day))
        assert chosen is not None and chosen.id == shared.id
    assert (await store.next_puzzle(ALICE, GUILD, "veloop")) == shared
    for refused in (theirs, live):
        with pytest.raises(UserError) as unavailable:
            await store.start_attempt(ALICE, GUILD, CHANNEL, refused.id)
        assert unavailable.value.key == "puzzle.unavailable"
    await store.resign(info.id, ALICE)
    assert await store.start_attempt(ALICE, GUILD, CHANNEL, live.id), "its game over, the puzzle may be played"


async def test_the_next_puzzle_is_untried_and_nearest_the_members_rating(store: Store) -> None:
    easy, hard, middling = await kept(
        store,
        veloop_one(rating=1200.0),
        veloop_two(rating=1900.0),
        veloop_more(0, rating=1550.0),
    )
    assert await store.next_puzzle(ALICE, GUILD, "veloop") == middling
    attempt = await store.start_attempt(ALICE, GUILD, CHANNEL, middling.id)
    assert await store.next_puzzle(ALICE, GUILD, "veloop") in (easy, hard)
    other = await store.start_attempt(ALICE, GUILD, CHANNEL, easy.id)
    assert (await store.get_attempt(attempt.id)) is not None
    abandoned = await store.get_attempt(attempt.id)
    assert abandoned is not None and abandoned.status == "abandoned", "one open attempt per member and game"
    assert (await store.open_attempt(ALICE, "veloop")) == other
    assert await store.next_puzzle(ALICE, GUILD, "veloop") == hard
    # Left before its first turn, a puzzle is still rated when taken up again; left after a turn, it is not.
    assert (await store.start_attempt(ALICE, GUILD, CHANNEL, middling.id)).rated
    await store.play_puzzle_turn(
        (await store.start_attempt(ALICE, GUILD, CHANNEL, hard.id)).id, ALICE, hard.solution[0]
    )
    await store.start_attempt(ALICE, GUILD, CHANNEL, easy.id)
    assert not (await store.start_attempt(ALICE, GUILD, CHANNEL, hard.id)).rated


async def test_the_leaderboard_lists_this_servers_members_with_enough_rated_attempts(store: Store) -> None:
    puzzles = await kept(store, veloop_one(), veloop_more(0), veloop_more(1))
    for user in (ALICE, BOB):
        for puzzle in puzzles:
            attempt = await store.start_attempt(user, GUILD if user == ALICE else OTHER_GUILD, CHANNEL, puzzle.id)
            await store.play_puzzle_turn(attempt.id, user, puzzle.solution[0])
    page, total = await store.puzzle_leaderboard(GUILD, "veloop", offset=0, limit=10, minimum=1)
    assert total == 1 and [user for user, _ in page] == [ALICE], "Bob played in another server"
    assert page[0][1] == await store.puzzle_standing(ALICE, "veloop")
    assert (await store.puzzle_leaderboard(GUILD, "veloop", offset=0, limit=10))[1] == 0, "fewer than five"


async def test_a_daily_puzzle_whose_game_is_in_play_again_gives_way_to_another(store: Store, db_path: Path) -> None:
    info = await started(store)
    await store.resign(info.id, ALICE)
    sourced, other = await kept(store, veloop_one(guild_id=GUILD, source_game_id=info.id), veloop_more(1))
    begun = await store.start_attempt(BOB, GUILD, CHANNEL, sourced.id)
    day = dt.date(2026, 1, 1)
    for _ in range(40):
        chosen = await store.daily_puzzle(GUILD, "veloop", day)
        if chosen == sourced:
            break
        day += dt.timedelta(days=1)
    assert chosen == sourced
    with raw(db_path) as db:  # as an undo or an organiser's decision would leave it
        db.execute("UPDATE games SET status = 'active' WHERE id = ?", (info.id,))
        db.commit()
    assert await store.daily_puzzle(GUILD, "veloop", day) == other
    assert await store.next_puzzle(BOB, GUILD, "veloop") == other
    with pytest.raises(UserError) as unavailable:
        await store.play_puzzle_turn(begun.id, BOB, sourced.solution[0])
    assert unavailable.value.key == "puzzle.unavailable", "an attempt begun before cannot go on either"
    assert await store.puzzle_standing(BOB, "veloop") == Standing(Rating()), "nothing rated"


def test_another_last_turn_that_gains_as_much_is_right_and_one_that_gains_less_is_wrong() -> None:
    """A claim three turns make on this small board (so no mined puzzle): the solution's one, and the two others."""
    before = (
        "d4/d7", "keep", "c5,e4/f1", "c5-e7/f6", "e7-e2/d2", "d4-g4/f3", "g4-g7/g5", "e2-a6/a3", "e4-b7/c7",
        "a6-c4/f4", "c4-b5/b2", "b5-d5/d4", "d5-b5/d5", "b5-c6/a6", "c6-e6/f7",
    )  # fmt: skip
    puzzle = Puzzle(game="veletas", settings=VELETAS, before=before, solution=("g6",), goal="claim")
    start = replay(puzzle)
    base = margin(start, "black")
    claiming = [turn for turn in legal(start) if margin(start.play(turn), "black") > base]
    assert sorted(claiming) == ["e6-e4/g6", "e6-f5/g6", "g6"]
    for turn in claiming:
        assert judge(puzzle, (), turn) == Step("solved", turn)
    quiet = next(turn for turn in legal(start) if turn not in claiming)
    assert judge(puzzle, (), quiet) == Step("wrong", quiet, expected="g6")
    with pytest.raises(IllegalMove):
        judge(puzzle, (), "a1-a2/a3")
