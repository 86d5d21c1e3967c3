"""Glicko-2 ratings: pure arithmetic on values, from the ``glicko2-py`` library's own update function.

Why per game, not per day: every game is its own rating period for its two players, as Lichess
does. A player sees their new rating at the end of the game that produced it, no batch job has to
run at midnight, and two processes never disagree about which period a game belongs to. Glicko-2's
own answer to inactivity (the deviation grows while a player does not play) is kept: before a
game each player's deviation grows by one period's volatility for every whole day since their
previous rated game, capped at the starting deviation.

Everything here is a function of the stored games in the order they ended, so the store can
recompute every rating from scratch (``rebuild``) and get exactly the values it kept.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from glicko2.math.algorithm import update_rating
from glicko2.math.conversions import mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi

START_RATING: Final = 1500.0
START_DEVIATION: Final = 350.0
START_VOLATILITY: Final = 0.06
TAU: Final = 0.5
"""Glickman's suggested system constant (0.3 to 1.2): how much a surprise may change volatility."""
PROVISIONAL_DEVIATION: Final = 110.0
"""Above this deviation a rating is shown as provisional ("1520?"), as Lichess marks it."""
DAY: Final = 86_400.0

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


def rate_game(first: Rating, second: Rating, first_score: float, when: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one game that ended at ``when``: ``first_score`` is 1 (first won), ½ or 0.

    Each side is updated against the other's rating from before the game, both aged to ``when``.
    """
    if first_score not in (0.0, 0.5, 1.0):
        raise ValueError(f"a game's score is 1, 0.5 or 0, not {first_score!r}")
    a, b = first.aged(when), second.aged(when)
    mu_a, phi_a = _glicko(a)
    mu_b, phi_b = _glicko(b)
    new_a = update_rating(mu_a, phi_a, a.volatility, [(mu_b, phi_b, first_score)], TAU)
    new_b = update_rating(mu_b, phi_b, b.volatility, [(mu_a, phi_a, 1.0 - first_score)], TAU)
    return (
        _from_glicko(new_a.mu, new_a.phi, new_a.sigma, a.games + 1, when),
        _from_glicko(new_b.mu, new_b.phi, new_b.sigma, b.games + 1, when),
    )


def rate_period(rating: Rating, results: Iterable[tuple[Rating, float]]) -> Rating:
    """One Glicko-2 rating period with several games, as Glickman's paper states it (kept for checking)."""
    mu, phi = _glicko(rating)
    opponents = [(*_glicko(opponent), score) for opponent, score in results]
    new = update_rating(mu, phi, rating.volatility, opponents, TAU)
    return _from_glicko(new.mu, new.phi, new.sigma, rating.games + len(opponents), rating.last_played or 0.0)


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
    """Every rating from scratch, from the rated games in the order they ended (ties by game id)."""
    table: dict[tuple[PoolKey, int], Rating] = {}
    for game in sorted(games, key=lambda g: (g.ended_at, g.game_id)):
        apply_game(table, game)
    return table
