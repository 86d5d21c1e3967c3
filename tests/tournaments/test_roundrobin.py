"""Round robin: the FIDE Berger tables, everyone meets everyone, colours, rests, divisions, a 9-player event."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
import tourney_oracle as oracle
from hypothesis import given
from hypothesis import strategies as st

from bot.tournaments import (
    Player,
    Tournament,
    TournamentError,
    berger_table,
    divisions,
    next_round,
    round_robin_schedule,
    rounds_needed,
    seed_by_rating,
    standings,
)

# FIDE Handbook C.05 Annex 1, the Berger tables as published (white first).
FIDE_4 = ["1-4 2-3", "4-3 1-2", "2-4 3-1"]
FIDE_6 = ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"]
FIDE_8 = [
    "1-8 2-7 3-6 4-5",
    "8-5 6-4 7-3 1-2",
    "2-8 3-1 4-7 5-6",
    "8-6 7-5 1-4 2-3",
    "3-8 4-2 5-1 6-7",
    "8-7 1-6 2-5 3-4",
    "4-8 5-3 6-2 7-1",
]


def _text(table: tuple[tuple[tuple[int, int], ...], ...]) -> list[str]:
    return [" ".join(f"{a}-{b}" for a, b in rnd) for rnd in table]


@pytest.mark.parametrize(("n", "published"), [(4, FIDE_4), (6, FIDE_6), (8, FIDE_8)])
def test_berger_tables_are_fides_round_by_round_and_board_by_board(n: int, published: list[str]) -> None:
    assert _text(berger_table(n)) == published
    assert _text(berger_table(n - 1)) == published  # an odd field uses the next even table, n meaning a rest


def _players(n: int) -> list[Player]:
    return [Player(100 + i, 2000 - i, i + 1) for i in range(n)]


@given(st.integers(min_value=2, max_value=24), st.booleans())
def test_everyone_meets_everyone_once_per_cycle_with_colours_balanced(n: int, double: bool) -> None:
    schedule = round_robin_schedule(_players(n), double=double)
    assert len(schedule) == rounds_needed(n, double)
    ids = [100 + i for i in range(n)]
    meetings: Counter[frozenset[int]] = Counter()
    as_white: Counter[tuple[int, int]] = Counter()
    for rnd in schedule:
        seen = [p for g in rnd.games for p in (g.white, g.black)] + [b.player for b in rnd.byes]
        assert sorted(seen) == ids  # everyone exactly once a round: a game or the rest
        assert len(rnd.byes) == n % 2 and all(b.kind == "rest" for b in rnd.byes)
        for g in rnd.games:
            meetings[frozenset((g.white, g.black))] += 1
            as_white[(g.white, g.black)] += 1
    cycles = 2 if double else 1
    assert set(meetings) == {frozenset((a, b)) for a in ids for b in ids if a < b}
    assert set(meetings.values()) == {cycles}
    if double:  # the second cycle reverses every colour
        assert all(as_white[(a, b)] == 1 and as_white[(b, a)] == 1 for a in ids for b in ids if a != b)
    first_cycle = schedule[: rounds_needed(n)]
    for p in ids:
        whites = sum(1 for rnd in first_cycle for g in rnd.games if g.white == p)
        blacks = sum(1 for rnd in first_cycle for g in rnd.games if g.black == p)
        assert abs(whites - blacks) <= 1
    rests = Counter(b.player for rnd in schedule for b in rnd.byes)
    assert set(rests.values()) <= {cycles} and (len(rests) == n if n % 2 else not rests)


@given(st.integers(min_value=1, max_value=200), st.integers(min_value=2, max_value=20))
def test_divisions_are_few_even_and_snake_seeded(n: int, size: int) -> None:
    players = _players(n)
    groups = divisions(players, size)
    assert sorted(p.seed for g in groups for p in g) == list(range(1, n + 1))
    assert len(groups) == max(1, -(-n // size))
    assert all(len(g) <= size for g in groups)
    assert max(map(len, groups)) - min(map(len, groups)) <= 1
    # The top seeds are spread: each division's best seed is among the first len(groups).
    assert sorted(g[0].seed for g in groups if g) == list(range(1, len(groups) + 1))


def test_divisions_of_ten_into_three_snake() -> None:
    groups = divisions(_players(10), 4)
    assert [[p.seed for p in g] for g in groups] == [[1, 6, 7], [2, 5, 8], [3, 4, 9, 10]]


def test_a_nine_player_round_robin_to_the_end_with_independent_standings() -> None:
    rng = random.Random(9)
    players = seed_by_rating((700 + i, rng.randint(1000, 2000)) for i in range(9))
    t = Tournament("round_robin", players, rounds_needed(9))
    for _ in range(9):
        t = oracle.play_round(t.with_round(next_round(t)), rng, draw=0.3)
    with pytest.raises(TournamentError):
        next_round(t)
    table = standings(t)
    final = oracle.scores(t)
    sb = oracle.plain_sonneborn_berger(t)
    assert {s.player: s.points for s in table} == final
    assert sum(final.values()) == 36  # 9 * 8 / 2 games, a point each
    assert {s.player: s.tiebreaks[1] for s in table} == pytest.approx(sb)
    # Ranks: sorted by points, then head-to-head among the tied, then SB, then wins.
    for a, b in itertools.pairwise(table):
        assert (a.points, *a.tiebreaks) >= (b.points, *b.tiebreaks)
        assert (a.rank == b.rank) == ((a.points, *a.tiebreaks) == (b.points, *b.tiebreaks))
    for s in table:
        group = [x.player for x in table if x.points == s.points]
        if len(group) > 1:
            mutual = sum(
                oracle.POINTS[g.result][0 if g.white == s.player else 1]  # type: ignore[index]
                for rnd in t.rounds
                for g in rnd.games
                if s.player in (g.white, g.black) and {g.white, g.black} <= set(group)
            )
            assert s.tiebreaks[0] == mutual  # everyone met, so head-to-head counts


def test_a_withdrawn_player_forfeits_the_rest_of_the_table_without_moving_anyone() -> None:
    players = seed_by_rating((i, 1500) for i in range(1, 7))
    t = Tournament("round_robin", players, rounds_needed(6))
    t = t.with_round(next_round(t))
    for g in t.rounds[-1].games:
        t = t.record(g.white, "1-0")
    t = t.withdraw(players[0].id)
    rnd = next_round(t)
    plain = round_robin_schedule(players)[1]
    assert [(g.white, g.black) for g in rnd.games] == [(g.white, g.black) for g in plain.games]
    gone = players[0].id
    for g in rnd.games:
        expected = ("-+" if g.white == gone else "+-") if gone in (g.white, g.black) else None
        assert g.result == expected
