"""Glicko-2 ratings: the paper's example, the per-game period, ageing, pools and an exact rebuild."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings import (
    DAY,
    GLOBAL_SCOPE,
    START_DEVIATION,
    PoolKey,
    RatedGame,
    Rating,
    apply_game,
    pools_for,
    rate_game,
    rate_period,
    rebuild,
)


def test_glickmans_worked_example_is_reproduced() -> None:
    """Glickman, "Example of the Glicko-2 system": 1500/200 beats 1400/30, loses to 1550/100 and 1700/300."""
    player = Rating(1500, 200, 0.06)
    after = rate_period(player, [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)])
    assert after.value == pytest.approx(1464.05, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.059996, abs=1e-6)


def test_one_game_between_newcomers_moves_both_by_the_same_amount() -> None:
    winner, loser = rate_game(Rating(), Rating(), 1.0, when=1000.0)
    # Two 1500 ± 350 players: the textbook first result is about ±162.
    assert winner.value == pytest.approx(1662.31, abs=0.01) and loser.value == pytest.approx(1337.69, abs=0.01)
    assert winner.deviation == loser.deviation < START_DEVIATION
    assert winner.games == loser.games == 1 and winner.last_played == 1000.0
    drawn = rate_game(Rating(), Rating(), 0.5, when=1000.0)
    assert drawn[0].value == pytest.approx(1500) and drawn[1].value == pytest.approx(1500)


rating_values = st.builds(
    Rating,
    value=st.floats(800, 2600),
    deviation=st.floats(40, 350),
    volatility=st.floats(0.03, 0.09),
)


@settings(max_examples=200, deadline=None)
@given(first=rating_values, second=rating_values, score=st.sampled_from([0.0, 0.5, 1.0]))
def test_a_winner_never_loses_points_and_a_loser_never_gains(first: Rating, second: Rating, score: float) -> None:
    a, b = rate_game(first, second, score, when=0.0)
    if score == 1.0:
        assert a.value > first.value and b.value < second.value
    elif score == 0.0:
        assert a.value < first.value and b.value > second.value
    else:  # a draw pulls the two towards each other
        assert (a.value - first.value) * (second.value - first.value) >= -1e-9
    # A game is information: neither deviation ends above its one-period growth (Glicko-2's step 6).
    for before, after in ((first, a), (second, b)):
        assert after.deviation < math.hypot(before.deviation, after.volatility * 173.7178) + 1e-9
    # Swapping the seats gives the same numbers.
    b2, a2 = rate_game(second, first, 1.0 - score, when=0.0)
    assert (a2, b2) == (a, b)


def test_idle_days_widen_the_deviation_up_to_the_start_and_no_further() -> None:
    settled = Rating(1700, 60, 0.06, games=30, last_played=0.0)
    assert settled.aged(DAY - 1) == settled  # less than a day: unchanged
    week = settled.aged(7 * DAY)
    expected = math.sqrt((60 / 173.7178) ** 2 + 7 * 0.06**2) * 173.7178
    assert week.deviation == pytest.approx(expected) and week.value == 1700
    assert settled.aged(100_000 * DAY).deviation == START_DEVIATION
    assert not settled.provisional and settled.shown == "1700"
    assert Rating(1520.4).shown == "1520?"


def test_pools_are_per_server_and_global_and_ignore_setting_order() -> None:
    server, everywhere = pools_for(42, "veletas", {"variant": "standard", "rules": "current"})
    assert server == PoolKey(42, "veletas", "rules=current,variant=standard")
    assert everywhere.scope == GLOBAL_SCOPE and everywhere.settings == server.settings
    assert PoolKey.of(42, "veletas", {"rules": "current", "variant": "standard"}) == server


def test_changes_read_as_players_expect() -> None:
    table: dict[tuple[PoolKey, int], Rating] = {}
    pools = pools_for(7, "veloop", {"board": "8", "protocol": "122"})
    changes = apply_game(table, RatedGame(1, pools, first=10, second=20, first_score=0.0, ended_at=5.0))
    assert [(c.pool.scope, c.player) for c in changes] == [(7, 10), (7, 20), (0, 10), (0, 20)]
    assert changes[0].text == "1500 → 1338 (-162)" and changes[1].text == "1500 → 1662 (+162)"
    with pytest.raises(ValueError, match="themself"):
        apply_game(table, RatedGame(2, pools, first=10, second=10, first_score=1.0, ended_at=6.0))
    with pytest.raises(ValueError, match="score"):
        rate_game(Rating(), Rating(), 2.0, when=0.0)


def test_rebuilding_from_the_games_gives_exactly_the_incremental_values() -> None:
    rng = random.Random(5)
    pools = [pools_for(g, "veletas", {"variant": v, "rules": "current"}) for g in (1, 2) for v in ("standard", "small")]
    games = []
    incremental: dict[tuple[PoolKey, int], Rating] = {}
    when = 0.0
    for game_id in range(1, 400):
        first, second = rng.sample(range(12), 2)
        when += rng.choice((60.0, 3 * DAY, 0.0))
        game = RatedGame(game_id, rng.choice(pools), first, second, rng.choice((0.0, 0.5, 1.0)), when)
        games.append(game)
        apply_game(incremental, game)
    rng.shuffle(games)  # the stored order does not matter: rebuild sorts by end time, then id
    assert rebuild(games) == incremental
