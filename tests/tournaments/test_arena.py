"""Arena pairing and scoring (bot.tournaments.arena): properties over random pools, and Lichess's own examples."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from bot.tournaments.arena import (
    ArenaGame,
    Outcome,
    Waiting,
    berserk_clock,
    game_points,
    is_rematch,
    leaderboard,
    may_berserk,
    on_fire,
    pair_waiting,
    score_sheet,
)


@st.composite
def pools(draw: st.DrawFn) -> list[Waiting]:
    ids = draw(st.lists(st.integers(1, 60), min_size=0, max_size=16, unique=True))
    out = []
    for pid in ids:
        out.append(
            Waiting(
                player=pid,
                score=draw(st.integers(0, 20)),
                rating=draw(st.integers(1000, 2000)),
                last_opponent=draw(st.none() | st.sampled_from([*ids, 99])),
                colour_balance=draw(st.integers(-3, 3)),
                last_white=draw(st.none() | st.booleans()),
            )
        )
    return out


@given(pools(), st.booleans())
def test_a_pairing_takes_waiting_players_each_at_most_once(pool: list[Waiting], others_playing: bool) -> None:
    games = pair_waiting(pool, others_playing=others_playing)
    seated = [p for g in games for p in g]
    assert len(seated) == len(set(seated))
    assert set(seated) <= {w.player for w in pool}
    assert all(w != b for w, b in games)


@given(pools())
def test_no_rematch_while_someone_may_come_free(pool: list[Waiting]) -> None:
    by_id = {w.player: w for w in pool}
    for white, black in pair_waiting(pool, others_playing=True):
        assert not is_rematch(by_id[white], by_id[black])


@given(pools(), st.booleans())
def test_nobody_is_left_waiting_who_could_be_paired(pool: list[Waiting], others_playing: bool) -> None:
    games = pair_waiting(pool, others_playing=others_playing)
    seated = {p for g in games for p in g}
    left = [w for w in pool if w.player not in seated]
    if others_playing:
        # Whoever is left could only repeat a game.
        assert all(is_rematch(a, b) for a, b in itertools.combinations(left, 2))
    else:
        assert len(left) <= 1


@given(pools())
def test_a_rematch_only_when_no_pairing_of_the_pool_avoids_it(pool: list[Waiting]) -> None:
    """With nobody else playing, a rematch is made only if every way of seating as many players repeats a game."""
    by_id = {w.player: w for w in pool}
    games = pair_waiting(pool, others_playing=False)
    rematches = sum(is_rematch(by_id[w], by_id[b]) for w, b in games)
    if rematches and len(pool) <= 8:
        assert _fewest_rematches(pool) >= 1


def _fewest_rematches(pool: list[Waiting]) -> int:
    if len(pool) < 2:
        return 0
    first, rest = pool[0], pool[1:]
    best = None
    for i, other in enumerate(rest):
        count = int(is_rematch(first, other)) + _fewest_rematches(rest[:i] + rest[i + 1 :])
        best = count if best is None else min(best, count)
    if len(pool) % 2 == 1:
        best = min(best or 0, _fewest_rematches(rest))
    return best or 0


def test_the_top_two_meet_unless_they_just_did() -> None:
    pool = [Waiting(1, 10, 1500), Waiting(2, 8, 1900), Waiting(3, 8, 1400), Waiting(4, 0, 1200)]
    assert sorted(map(sorted, pair_waiting(pool, others_playing=True))) == [[1, 2], [3, 4]]
    pool[0] = Waiting(1, 10, 1500, last_opponent=2)
    assert sorted(map(sorted, pair_waiting(pool, others_playing=True))) == [[1, 3], [2, 4]]


def test_two_who_just_met_wait_while_others_play_and_meet_again_when_nobody_else_can_come() -> None:
    pool = [Waiting(1, 2, 1500, last_opponent=2), Waiting(2, 0, 1500, last_opponent=1)]
    assert pair_waiting(pool, others_playing=True) == []
    assert len(pair_waiting(pool, others_playing=False)) == 1


def test_a_rematch_is_traded_away_when_nobody_else_plays() -> None:
    # 1 and 2 meet first in rank order; 3 and 4 just met each other; trading partners avoids both rematches.
    pool = [
        Waiting(1, 9, 1500),
        Waiting(2, 8, 1500),
        Waiting(3, 7, 1500, last_opponent=4),
        Waiting(4, 6, 1500, last_opponent=3),
    ]
    games = pair_waiting(pool, others_playing=False)
    by_id = {w.player: w for w in pool}
    assert len(games) == 2
    assert not any(is_rematch(by_id[w], by_id[b]) for w, b in games)


def test_white_goes_to_who_had_it_less() -> None:
    assert pair_waiting([Waiting(1, 5, 1500, colour_balance=1), Waiting(2, 0, 1500)], others_playing=True) == [(2, 1)]
    assert pair_waiting(
        [Waiting(1, 5, 1500, last_white=True), Waiting(2, 0, 1500, last_white=False)], others_playing=True
    ) == [(2, 1)]
    assert pair_waiting([Waiting(1, 5, 1500), Waiting(2, 0, 1500)], others_playing=True) == [(1, 2)]


def _games(outcomes: str) -> list[ArenaGame]:
    word: dict[str, Outcome] = {"W": "win", "D": "draw", "L": "loss"}
    return [ArenaGame(opponent=100 + i, outcome=word[o]) for i, o in enumerate(outcomes)]


def test_lichess_example_two_wins_then_a_draw_is_six_points() -> None:
    assert [s.points for s in score_sheet(_games("WWD"))] == [2, 2, 2]


def test_the_streak_doubles_until_a_game_is_not_won() -> None:
    sheet = score_sheet(_games("WWWWLWWDW"))
    assert [s.points for s in sheet] == [2, 2, 4, 4, 0, 2, 2, 2, 2]
    assert [s.fire for s in sheet] == [False, False, True, True, True, False, False, True, False]


@given(st.lists(st.sampled_from("WDL"), max_size=30).map("".join))
def test_points_are_base_points_doubled_exactly_after_two_wins(outcomes: str) -> None:
    sheet = score_sheet(_games(outcomes))
    for i, s in enumerate(sheet):
        base = {"W": 2, "D": 1, "L": 0}[outcomes[i]]
        assert s.points == base * (2 if outcomes[max(0, i - 2) : i] == "WW" else 1)
    assert on_fire([g.outcome for g in _games(outcomes)]) == outcomes.endswith("WW")


def test_berserk_adds_a_point_to_a_win_of_enough_moves_not_doubled() -> None:
    won = ArenaGame(1, "win", berserk=True, moves=7)
    assert game_points([], won).points == 3
    assert game_points(["win", "win"], won).points == 5
    assert game_points([], ArenaGame(1, "win", berserk=True, moves=6)).points == 2
    assert game_points([], ArenaGame(1, "draw", berserk=True, moves=30)).points == 1
    assert game_points([], ArenaGame(1, "win", berserk=False, moves=30)).points == 2


def test_berserk_halves_the_time_and_drops_the_increment_only_before_the_first_move() -> None:
    assert berserk_clock(300, 3) == (150, 0)
    assert may_berserk(300, 0)
    assert not may_berserk(300, 1)


def test_leaderboard_orders_by_points_then_performance_and_marks_the_streak() -> None:
    ratings = {1: 1500, 2: 1500, 3: 1600, 4: 1400}
    games = {
        1: [ArenaGame(2, "win"), ArenaGame(3, "win")],
        2: [ArenaGame(1, "loss"), ArenaGame(4, "win", berserk=True, moves=9)],
        3: [ArenaGame(4, "draw"), ArenaGame(1, "loss")],
        4: [ArenaGame(3, "draw"), ArenaGame(2, "loss")],
    }
    board = leaderboard(games, ratings)
    assert [(s.player, s.points) for s in board] == [(1, 4), (2, 3), (4, 1), (3, 1)]
    assert board[0].fire and not board[1].fire
    assert board[1].berserks == 1
    # 3 and 4 have a point each: 3's opponents averaged 1450 and 4's 1550, both with one loss in two games.
    assert board[2].performance == 1300 and board[3].performance == 1200
    assert [s.player for s in leaderboard(games, {**ratings, 3: 1300})][2:] == [3, 4]
