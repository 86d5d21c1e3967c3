"""Elimination brackets: standard seeding, byes to the top seeds, and whole brackets played out for every
field from 2 to 64, single and double (with and without the bracket reset), best-of-N matches."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.tournaments import (
    BYE,
    Bracket,
    BracketState,
    Player,
    TournamentError,
    double_elimination,
    match_winner,
    resolve,
    seed_by_rating,
    seed_order,
    single_elimination,
)


def _field(n: int) -> list[Player]:
    return [Player(i + 1, 2000 - i, i + 1) for i in range(n)]  # id == seed


def test_seed_order_is_the_standard_one() -> None:
    assert seed_order(2) == (1, 2)
    assert seed_order(4) == (1, 4, 2, 3)
    assert seed_order(8) == (1, 8, 4, 5, 2, 7, 3, 6)
    assert seed_order(16) == (1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11)
    with pytest.raises(TournamentError):
        seed_order(6)


def play_out(bracket: Bracket, rng: random.Random) -> tuple[BracketState, dict[str, int], list[set[int]]]:
    """Play every ready match with a random winner until the champion is known; returns the final
    state, the winners and who played in each stage."""
    winners: dict[str, int] = {}
    stages: dict[int, list[int]] = {}
    state = resolve(bracket, winners)
    while state.champion is None:
        ready = state.ready()
        assert ready, "a bracket without a champion always has a match to play"
        for m in ready:
            assert isinstance(m.a, int) and isinstance(m.b, int)
            winners[m.match.id] = rng.choice((m.a, m.b))
            stages.setdefault(m.match.stage, []).extend((m.a, m.b))
        state = resolve(bracket, winners)
    for players in stages.values():
        assert len(players) == len(set(players))  # nobody plays twice in a stage
    return state, winners, [set(p) for p in stages.values()]


@pytest.mark.parametrize("n", range(2, 65))
def test_every_field_from_2_to_64_single_and_double(n: int) -> None:
    for seed in range(3):
        check_single(n, seed)
        check_double(n, True, seed)
        check_double(n, False, seed)


@given(st.integers(min_value=2, max_value=64), st.integers(min_value=0, max_value=2**32 - 1))
def test_single_elimination_random_results(n: int, seed: int) -> None:
    check_single(n, seed)


@given(st.integers(min_value=2, max_value=64), st.booleans(), st.integers(min_value=0, max_value=2**32 - 1))
def test_double_elimination_random_results(n: int, reset: bool, seed: int) -> None:
    check_double(n, reset, seed)


def check_single(n: int, seed: int) -> None:
    bracket = single_elimination(_field(n))
    size = bracket.size
    assert size >= n > size // 2 or n == size
    state, _winners, _stages = play_out(bracket, random.Random(seed))
    first = [m for m in state.matches if m.match.round == 1]
    walkovers = {m.winner for m in first if BYE in (m.a, m.b)}
    assert walkovers == set(range(1, size - n + 1))  # the byes go to the top seeds, one each
    assert all(not (m.a == BYE and m.b == BYE) for m in first)  # and two byes never meet
    out = state.eliminated()
    assert set(out) == set(range(1, n + 1)) - {state.champion}  # everyone else out exactly once
    losses = state.losses()
    assert losses[state.champion] == 0 and all(losses[p] == 1 for p in out)
    assert sum(1 for m in state.matches if m.played) == n - 1
    placements = state.placements()
    assert sorted(p for _, p in placements) == list(range(1, n + 1))
    assert placements[0] == (1, state.champion) and placements[1][0] == 2


def check_double(n: int, reset: bool, seed: int) -> None:
    bracket = double_elimination(_field(n), reset=reset)
    state, winners, _stages = play_out(bracket, random.Random(seed))
    champion = state.champion
    assert champion is not None
    losses = state.losses()
    out = state.eliminated()
    assert set(out) == set(range(1, n + 1)) - {champion}
    assert losses[champion] <= 1
    gf = next(m for m in state.matches if m.match.id == "GF")
    wb_champion = gf.a
    if reset:
        assert all(losses[p] == 2 for p in out)  # with the reset, out means exactly two losses
    else:
        # Without it, the grand final's loser may be the winners'-bracket champion, out on one loss.
        assert all(losses[p] == 2 or (p == wb_champion and winners["GF"] != p) for p in out)
        assert all(losses[p] in (1, 2) for p in out)
    # Nobody loses in the winners' bracket and goes out there: the first loss always drops.
    for m in state.matches:
        if m.played and m.match.part == "winners":
            assert m.loser not in out or out[m.loser].part != "winners"
    assert sum(1 for m in state.matches if m.played) in (2 * n - 2, 2 * n - 1)
    placements = state.placements()
    assert sorted(p for _, p in placements) == list(range(1, n + 1))


def test_thirteen_player_double_elimination_with_the_reset() -> None:
    rng = random.Random(13)
    players = seed_by_rating((500 + i, rng.randint(1000, 2000)) for i in range(13))
    bracket = double_elimination(players, reset=True)
    assert bracket.size == 16
    assert [m.id for m in bracket.matches if m.part == "winners" and m.round == 1][:2] == ["W1-1", "W1-2"]
    counts = Counter(m.part for m in bracket.matches)
    assert counts == {"winners": 15, "losers": 14, "final": 1, "reset": 1}
    state, _winners, _ = play_out(bracket, rng)
    top3 = [p.id for p in players[:3]]
    first = {m.winner for m in state.matches if m.match.round == 1 and m.match.part == "winners" and not m.played}
    assert first == set(top3)  # 16 - 13 = 3 byes, to seeds 1-3
    losses = state.losses()
    assert sorted(losses.values()).count(2) == 12 and losses[state.champion] <= 1
    places = dict((p, place) for place, p in state.placements())
    assert places[state.champion] == 1 and sorted(places.values())[:2] == [1, 2]
    # The losers'-bracket final's loser is third, alone.
    lb_final = next(m for m in state.matches if m.match.id == "L6-1")
    assert places[lb_final.loser] == 3 and list(places.values()).count(3) == 1  # type: ignore[index]


def test_the_reset_is_played_only_when_the_losers_bracket_champion_wins_the_first_final() -> None:
    bracket = double_elimination(_field(2), reset=True)
    state = resolve(bracket, {"W1-1": 1, "GF": 1})
    assert state.champion == 1 and not state.matches[-1].played
    with pytest.raises(TournamentError):
        resolve(bracket, {"W1-1": 1, "GF": 1, "GF2": 2})
    state = resolve(bracket, {"W1-1": 1, "GF": 2})
    assert state.champion is None and state.ready()[0].match.id == "GF2"
    state = resolve(bracket, {"W1-1": 1, "GF": 2, "GF2": 2})
    assert state.champion == 2 and state.losses() == {1: 2, 2: 1}


def test_bad_results_are_refused() -> None:
    bracket = single_elimination(_field(5))
    with pytest.raises(TournamentError):
        resolve(bracket, {"W9-9": 1})
    with pytest.raises(TournamentError):
        resolve(bracket, {"W1-2": 1})  # seed 1 is not in the 4 v 5 match
    with pytest.raises(TournamentError):
        resolve(bracket, {"W1-1": 1})  # seed 1 has a bye: that match is not played
    with pytest.raises(TournamentError):
        single_elimination(_field(1))
    with pytest.raises(TournamentError):
        single_elimination(_field(4), best_of=2)


def test_best_of_three_and_five() -> None:
    assert match_winner(1, 2, [1], 3) is None
    assert match_winner(1, 2, [1, 2], 3) is None
    assert match_winner(1, 2, [1, 2, 2], 3) == 2
    assert match_winner(1, 2, [1, 1], 3) == 1
    assert match_winner(1, 2, [2, 2, 1, 1], 5) is None
    assert match_winner(1, 2, [2, 2, 1, 2], 5) == 2
    assert match_winner(1, 2, [2, 2, 2], 5) == 2
    assert match_winner(1, 2, [1], 1) == 1
    with pytest.raises(TournamentError):
        match_winner(1, 2, [3], 3)
    with pytest.raises(TournamentError):
        match_winner(1, 2, [1, 1, 2, 2], 3)
    assert single_elimination(_field(4), best_of=5).best_of == 5
