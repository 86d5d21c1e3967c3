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
    assert rebuild(games) == incremental


# --- Glickman's paper, written out independently: the values the bot's ratings must equal ----------------------

PAPER_SCALE = 173.7178
PAPER_TAU = 0.5
PAPER_EPSILON = 0.000001


def paper_period(
    r: float, rd: float, sigma: float, games: list[tuple[float, float, float]]
) -> tuple[float, float, float]:
    """One rating period, step by step as "Example of the Glicko-2 system" (Glickman) states it, on the display scale.

    ``games``: each opponent's rating, deviation and the score against them.
    """
    # Step 2: to the Glicko-2 scale.
    mu, phi = (r - 1500) / PAPER_SCALE, rd / PAPER_SCALE
    opponents = [((rj - 1500) / PAPER_SCALE, rdj / PAPER_SCALE, s) for rj, rdj, s in games]

    def g_of(p: float) -> float:
        return 1 / math.sqrt(1 + 3 * p**2 / math.pi**2)

    def e_of(m: float, mj: float, pj: float) -> float:
        return 1 / (1 + math.exp(-g_of(pj) * (m - mj)))

    # Step 3: v. Step 4: Δ.
    v = 1 / sum(g_of(pj) ** 2 * e_of(mu, mj, pj) * (1 - e_of(mu, mj, pj)) for mj, pj, _ in opponents)
    delta = v * sum(g_of(pj) * (s - e_of(mu, mj, pj)) for mj, pj, s in opponents)
    # Step 5: the new volatility, by the Illinois algorithm.
    a = math.log(sigma**2)

    def f(x: float) -> float:
        return (
            math.exp(x) * (delta**2 - phi**2 - v - math.exp(x)) / (2 * (phi**2 + v + math.exp(x)) ** 2)
            - (x - a) / PAPER_TAU**2
        )

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * PAPER_TAU) < 0:
            k = k + 1
        big_b = a - k * PAPER_TAU
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > PAPER_EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2)
    # Step 6: the pre-period deviation. Step 7: the new deviation and rating.
    phi_star = math.sqrt(phi**2 + new_sigma**2)
    new_phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    new_mu = mu + new_phi**2 * sum(g_of(pj) * (s - e_of(mu, mj, pj)) for mj, pj, s in opponents)
    # Step 8: back to the display scale.
    return PAPER_SCALE * new_mu + 1500, PAPER_SCALE * new_phi, new_sigma


def paper_idle(rd: float, sigma: float, last: float | None, now: float) -> float:
    """The deviation after idle time, as README.md states the model: one empty Glicko-2 period (step 6 alone)
    per whole day since the last rated game, never above 350."""
    if last is None or now <= last:
        return rd
    periods = int((now - last) // 86_400)
    phi = rd / PAPER_SCALE
    for _ in range(periods):
        phi = math.sqrt(phi**2 + sigma**2)
    return min(PAPER_SCALE * phi, 350.0)


def test_the_papers_worked_example_to_its_printed_digits() -> None:
    r, rd, sigma = paper_period(1500, 200, 0.06, [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)])
    # The paper prints μ′ = −0.2069 (r′ = 1464.06), φ′ = 0.8722 (RD′ = 151.52), σ′ = 0.05999 (rounded as it goes).
    assert round((r - 1500) / PAPER_SCALE, 4) == -0.2069 and abs(r - 1464.06) < 0.01
    assert round(rd / PAPER_SCALE, 4) == 0.8722 and round(rd, 2) == 151.52
    assert abs(sigma - 0.05999) < 1e-5
    ours = rate_period(
        Rating(1500, 200, 0.06), [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    )
    assert abs(ours.value - r) < 1e-9 and abs(ours.deviation - rd) < 1e-9 and abs(ours.volatility - sigma) < 1e-12


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_long_sequences_of_games_equal_the_paper_to_a_millionth_of_a_point(seed: int) -> None:
    """Eight players, 300 games each run, with idle gaps from none to a year: every rating, deviation and volatility
    the bot computes equals the paper's (and README's idle model) to 1e-6, however long the sequence."""
    rng = random.Random(seed)
    ours: dict[int, Rating] = {}
    paper: dict[int, tuple[float, float, float, float | None]] = {}
    when = 0.0
    worst = 0.0
    for _ in range(300):
        first, second = rng.sample(range(8), 2)
        when += rng.choice((0.0, 30.0, 3_600.0, 86_399.0, 86_400.0, 2.5 * 86_400, 40 * 86_400.0, 365 * 86_400.0))
        score = rng.choice((0.0, 0.5, 1.0))
        a, b = rate_game(ours.get(first, Rating()), ours.get(second, Rating()), score, when)
        ours[first], ours[second] = a, b
        before = {}
        for player in (first, second):
            r, rd, sigma, last = paper.get(player, (1500.0, 350.0, 0.06, None))
            before[player] = (r, paper_idle(rd, sigma, last, when), sigma)
        for player, other, s in ((first, second, score), (second, first, 1 - score)):
            r, rd, sigma = before[player]
            new = paper_period(r, rd, sigma, [(before[other][0], before[other][1], s)])
            paper[player] = (*new, when)
        for player in (first, second):
            mine, theirs = ours[player], paper[player]
            worst = max(worst, abs(mine.value - theirs[0]), abs(mine.deviation - theirs[1]))
            assert abs(mine.volatility - theirs[2]) < 1e-9
    assert worst < 1e-6, f"the bot's ratings drift {worst:.2e} points from the paper"


def test_idle_days_follow_the_stated_model_exactly() -> None:
    """Whole days only (a day less one second is none), each one empty period, capped at 350, no lower bound."""
    for rd, sigma, idle in (
        (60.0, 0.06, 7.9 * DAY),
        (45.0, 0.04, 86_399.0),
        (30.0, 0.09, 3 * DAY),
        (200.0, 0.06, 900 * DAY),
    ):
        settled = Rating(1600, rd, sigma, games=40, last_played=1_000.0)
        assert settled.aged(1_000.0 + idle).deviation == pytest.approx(
            paper_idle(rd, sigma, 1_000.0, 1_000.0 + idle), abs=1e-9
        )
    assert Rating(1600, 30.0, 0.06, last_played=0.0).aged(0.0).deviation == 30.0
