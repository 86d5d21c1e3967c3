"""Glicko-2 ratings: pure arithmetic on values, as Glickman's paper "Example of the Glicko-2 system" states it.

The ``glicko2-py`` library supplies the scale conversions and the paper's g and E (steps 1 to 3).
Step 5, the new volatility, is ours (``_volatility``): the library's ``update_rating`` ends its
Illinois iteration with σ′ = e^(B/2), where the paper's step 5 says e^(A/2); the difference is below
5e-7 points a game but it adds up over a player's games. Steps 3 to 7 around it are written here
(``_update``) as the paper writes them.

Why per game, not per day: every game is its own rating period for its two players, as Lichess
does. A player sees their new rating at the end of the game that produced it, no batch job has to
run at midnight, and two processes never disagree about which period a game belongs to. Glicko-2's
own answer to inactivity (the deviation grows while a player does not play) is kept: before a
game each player's deviation grows as if one empty rating period had passed for every whole day
(86,400 s, rounded down) since their previous rated game, φ² + n·σ², capped at the starting
deviation (350); there is no lower bound. Only a rated game applies it: the deviation stored and
shown is the one after the player's last game.

Everything here is a function of the stored games in the order their ratings were written, so the
store can recompute every rating from scratch (``rebuild``) and get exactly the values it kept.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from glicko2.math.algorithm import E, g
from glicko2.math.conversions import mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi

START_RATING: Final = 1500.0
START_DEVIATION: Final = 350.0
START_VOLATILITY: Final = 0.06
TAU: Final = 0.5
"""Glickman's suggested system constant (0.3 to 1.2): how much a surprise may change volatility."""
PROVISIONAL_DEVIATION: Final = 110.0
"""Above this deviation a rating is shown as provisional ("1520?"), as Lichess marks it."""
DAY: Final = 86_400.0
EPSILON: Final = 0.000_001
"""The convergence tolerance of step 5's iteration, the paper's ε."""

GLOBAL_SCOPE: Final = 0
"""The scope of the pool that spans every server (server ids are never 0)."""


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's standing in one pool, on the familiar display scale (1500 ± 350)."""

    value: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY
    games: int = 0
    last_played: float | None = None  # seconds since the epoch of the last rated game's end

    @property
    def provisional(self) -> bool:
        return self.deviation > PROVISIONAL_DEVIATION

    @property
    def shown(self) -> str:
        """The rating as players read it: rounded, with "?" while provisional."""
        return f"{round(self.value)}{'?' if self.provisional else ''}"

    def aged(self, now: float) -> Rating:
        """The rating as it stands at ``now``: the deviation grown for each whole idle day, never past the start."""
        if self.last_played is None or now <= self.last_played:
            return self
        days = math.floor((now - self.last_played) / DAY)
        if days <= 0:
            return self
        phi = rd_to_phi(self.deviation)
        grown = phi_to_rd(math.sqrt(phi * phi + days * self.volatility * self.volatility))
        return Rating(self.value, min(grown, START_DEVIATION), self.volatility, self.games, self.last_played)


@dataclass(frozen=True, slots=True)
class PoolKey:
    """Which ratings a game counts for: a server (or ``GLOBAL_SCOPE``), a game, and its rated settings.

    ``settings`` is a canonical text of the settings that change the game (Veletas: variant and
    rules edition; Veloop: board and protocol), e.g. ``variant=standard,rules=current``.
    """

    scope: int
    game: str
    settings: str

    @classmethod
    def of(cls, scope: int, game: str, settings: Mapping[str, str]) -> PoolKey:
        return cls(scope, game, ",".join(f"{k}={settings[k]}" for k in sorted(settings)))


def pools_for(guild_id: int, game: str, settings: Mapping[str, str]) -> tuple[PoolKey, PoolKey]:
    """The two pools a rated game counts in: its server's and the global one."""
    return PoolKey.of(guild_id, game, settings), PoolKey.of(GLOBAL_SCOPE, game, settings)


def _glicko(rating: Rating) -> tuple[float, float]:
    return rating_to_mu(rating.value), rd_to_phi(rating.deviation)


def _from_glicko(mu: float, phi: float, sigma: float, games: int, when: float) -> Rating:
    return Rating(mu_to_rating(mu), phi_to_rd(phi), sigma, games, when)


def _volatility(sigma: float, phi: float, v: float, delta: float) -> float:
    """Glicko-2's step 5: the new volatility σ′ by the Illinois algorithm, exactly as the paper states it."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (TAU * TAU)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        big_b = a - k * TAU
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(10_000):
        if abs(big_b - big_a) <= EPSILON:
            return math.exp(big_a / 2.0)
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    raise ArithmeticError(f"Glicko-2's volatility did not converge (σ={sigma}, φ={phi}, v={v}, Δ={delta})")


def _update(
    mu: float, phi: float, sigma: float, opponents: list[tuple[float, float, float]]
) -> tuple[float, float, float]:
    """One rating period on the Glicko-2 scale (steps 3 to 7): the new μ, φ and σ after games against
    ``opponents`` (each μⱼ, φⱼ and the score); with none, only the deviation grows (step 6)."""
    if not opponents:
        return mu, math.sqrt(phi * phi + sigma * sigma), sigma
    v = 1.0 / sum(g(phi_j) ** 2 * E(mu, mu_j, phi_j) * (1.0 - E(mu, mu_j, phi_j)) for mu_j, phi_j, _ in opponents)
    improvement = sum(g(phi_j) * (score - E(mu, mu_j, phi_j)) for mu_j, phi_j, score in opponents)
    new_sigma = _volatility(sigma, phi, v, v * improvement)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    return mu + new_phi * new_phi * improvement, new_phi, new_sigma


def rate_game(first: Rating, second: Rating, first_score: float, when: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one game that ended at ``when``: ``first_score`` is 1 (first won), ½ or 0.

    Each side is updated against the other's rating from before the game, both aged to ``when``.
    """
    if first_score not in (0.0, 0.5, 1.0):
        raise ValueError(f"a game's score is 1, 0.5 or 0, not {first_score!r}")
    a, b = first.aged(when), second.aged(when)
    mu_a, phi_a = _glicko(a)
    mu_b, phi_b = _glicko(b)
    new_a = _update(mu_a, phi_a, a.volatility, [(mu_b, phi_b, first_score)])
    new_b = _update(mu_b, phi_b, b.volatility, [(mu_a, phi_a, 1.0 - first_score)])
    return (
        _from_glicko(*new_a, a.games + 1, when),
        _from_glicko(*new_b, b.games + 1, when),
    )


def rate_period(rating: Rating, results: Iterable[tuple[Rating, float]]) -> Rating:
    """One Glicko-2 rating period with several games, as Glickman's paper states it (kept for checking)."""
    mu, phi = _glicko(rating)
    opponents = [(*_glicko(opponent), score) for opponent, score in results]
    new = _update(mu, phi, rating.volatility, opponents)
    return _from_glicko(*new, rating.games + len(opponents), rating.last_played or 0.0)


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A finished rated game as the ratings see it: where it counts, who sat first and second, the score."""

    game_id: int
    pools: tuple[PoolKey, ...]
    first: int
    second: int
    first_score: float
    ended_at: float


@dataclass(frozen=True, slots=True)
class Change:
    """What one game did to one player's rating in one pool: before and after, for the end-of-game board."""

    pool: PoolKey
    player: int
    before: Rating
    after: Rating

    @property
    def delta(self) -> int:
        return round(self.after.value) - round(self.before.value)

    @property
    def text(self) -> str:
        """``1523 → 1538 (+15)``; the sign is always written, as players expect to read it."""
        return f"{round(self.before.value)} → {round(self.after.value)} ({self.delta:+d})"


def apply_game(table: dict[tuple[PoolKey, int], Rating], game: RatedGame) -> list[Change]:
    """Rate one game into ``table`` (pool and player → rating), returning the changes, pool by pool."""
    if game.first == game.second:
        raise ValueError(f"game {game.game_id}: a player cannot be rated against themself")
    changes: list[Change] = []
    for pool in game.pools:
        first_before = table.get((pool, game.first), Rating())
        second_before = table.get((pool, game.second), Rating())
        first_after, second_after = rate_game(first_before, second_before, game.first_score, game.ended_at)
        table[(pool, game.first)] = first_after
        table[(pool, game.second)] = second_after
        changes.append(Change(pool, game.first, first_before, first_after))
        changes.append(Change(pool, game.second, second_before, second_after))
    return changes


def rebuild(games: Iterable[RatedGame]) -> dict[tuple[PoolKey, int], Rating]:
    """Every rating from scratch, from the rated games in the order they were rated (the store's ``rating_seq``).

    Not re-sorted by end time: two processes can end games at nearly the same moment and write their
    ratings in the other order, and the values depend on the order they were written in.
    """
    table: dict[tuple[PoolKey, int], Rating] = {}
    for game in games:
        apply_game(table, game)
    return table
