"""Arena tournaments as pure values: who is paired next from the waiting pool, what each game scores, and the
leaderboard.

An arena lasts a fixed time. A player whose game ends goes back to the waiting pool and is paired again as soon
as possible; games that started before the end are played out, nobody is paired after it.

Pairing (``pair_waiting``): the waiting players are ranked by score, then rating, then id (highest first). The
top unpaired player meets the next unpaired one in that order who is not a rematch; a rematch is two players
of whom one's last game was against the other. A player with nobody acceptable stays waiting. Only when nobody
else is playing (so nobody can come free to meet them) are the players left over paired in rank order even if
that repeats their last game, so a pool of two who just met is not left idle for good. Colours go to the
player who has had white less often (white minus black games); on equal balance, to the one whose last game
was with black; then to the higher ranked.

Scoring (``game_points``), as on Lichess: a win is 2 points, a draw 1, a loss 0. A player whose two previous
games were both wins is on a streak (on fire): the game scores double (win 4, draw 2), and the streak lasts as
long as the wins do. Berserk halves the player's own starting time and removes the increment (``berserk_clock``);
a berserked win scores one point more (not doubled) if the player made at least ``BERSERK_MIN_MOVES`` moves of
their own in it.

The leaderboard (``leaderboard``) orders by points, then performance (the opponents' average rating plus 500
times wins minus losses over games), then rating, then id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

Outcome = Literal["win", "draw", "loss"]
"""A game's result from one player's side."""

WIN_POINTS = 2
DRAW_POINTS = 1
BERSERK_BONUS = 1
BERSERK_MIN_MOVES = 7
"""A berserked win earns its extra point only if the player made at least this many moves of their own."""
STREAK_LENGTH = 2
"""Wins in a row after which games score double."""


@dataclass(frozen=True)
class Waiting:
    """A player in the waiting pool: their score and rating, their last opponent (None before their first game),
    their colour balance (white games minus black games) and their last colour."""

    player: int
    score: int
    rating: int
    last_opponent: int | None = None
    colour_balance: int = 0
    last_white: bool | None = None


@dataclass(frozen=True)
class ArenaGame:
    """A finished arena game from one player's side, in the order the player's games ended."""

    opponent: int
    outcome: Outcome
    berserk: bool = False
    moves: int = 0
    """The moves the player made in it."""


@dataclass(frozen=True)
class Scored:
    """A game with what it earned: ``fire`` whether it was played on a streak, ``bonus`` the berserk point won."""

    game: ArenaGame
    points: int
    fire: bool
    bonus: bool


@dataclass(frozen=True)
class ArenaStanding:
    """A line of the leaderboard."""

    rank: int
    player: int
    points: int
    games: int
    wins: int
    draws: int
    losses: int
    berserks: int
    """Berserk wins that earned their point."""
    fire: bool
    """On a streak now: the next game scores double."""
    performance: int
    sheet: tuple[Scored, ...]


def ranked(waiting: Iterable[Waiting]) -> list[Waiting]:
    """The pool in pairing order: score, then rating, then id (highest first; the id makes it stable)."""
    return sorted(waiting, key=lambda w: (-w.score, -w.rating, w.player))


def is_rematch(a: Waiting, b: Waiting) -> bool:
    """Whether pairing ``a`` with ``b`` would repeat the last game of one of them."""
    return a.last_opponent == b.player or b.last_opponent == a.player


def colours(a: Waiting, b: Waiting) -> tuple[int, int]:
    """(white, black) for two players, ``a`` ranked above ``b``."""
    if a.colour_balance != b.colour_balance:
        return (a.player, b.player) if a.colour_balance < b.colour_balance else (b.player, a.player)
    if a.last_white != b.last_white:
        # The one whose last game was with black (or who has no game yet, against one who had white) takes white.
        a_white_due = a.last_white is False or (a.last_white is None and b.last_white is True)
        return (a.player, b.player) if a_white_due else (b.player, a.player)
    return a.player, b.player


def pair_waiting(waiting: Sequence[Waiting], *, others_playing: bool) -> list[tuple[int, int]]:
    """The games to start now, as (white, black), in rank order; see the module for the rule.

    ``others_playing``: whether anyone of the arena is in a game (and so may come free); then no rematch is made.
    """
    order = ranked(waiting)
    if len({w.player for w in order}) != len(order):
        raise ValueError("a player is waiting twice")
    taken: set[int] = set()
    games: list[tuple[Waiting, Waiting]] = []
    for i, a in enumerate(order):
        if a.player in taken:
            continue
        for b in order[i + 1 :]:
            if b.player not in taken and not is_rematch(a, b):
                taken.update((a.player, b.player))
                games.append((a, b))
                break
    left = [w for w in order if w.player not in taken]
    if not others_playing and len(left) > 1:
        # Nobody can come free: before repeating a game, try trading partners with a game already made.
        left = _trade(left, games)
        while len(left) > 1:
            games.append((left[0], left[1]))
            left = left[2:]
    games.sort(key=lambda g: order.index(g[0]))
    return [colours(a, b) for a, b in games]


def _trade(left: list[Waiting], games: list[tuple[Waiting, Waiting]]) -> list[Waiting]:
    """Players left over (each pair of them a rematch) take the partners of a game made already when both new
    games avoid a rematch; returns who is still left."""
    changed = True
    while changed and len(left) > 1:
        changed = False
        for x_index, x in enumerate(left):
            for y in left[x_index + 1 :]:
                for g_index, (a, b) in enumerate(games):
                    for p, q in ((a, b), (b, a)):
                        if not is_rematch(x, p) and not is_rematch(y, q):
                            games[g_index] = _in_rank(x, p)
                            games.append(_in_rank(y, q))
                            left = [w for w in left if w.player not in (x.player, y.player)]
                            changed = True
                            break
                    if changed:
                        break
                if changed:
                    break
            if changed:
                break
    return left


def _in_rank(a: Waiting, b: Waiting) -> tuple[Waiting, Waiting]:
    order = ranked((a, b))
    return order[0], order[1]


def on_fire(previous: Sequence[Outcome]) -> bool:
    """Whether the next game is played on a streak: the player's last two games were both wins."""
    return len(previous) >= STREAK_LENGTH and all(o == "win" for o in previous[-STREAK_LENGTH:])


def game_points(previous: Sequence[Outcome], game: ArenaGame) -> Scored:
    """What ``game`` earns a player whose earlier games ended ``previous`` (oldest first)."""
    fire = on_fire(previous)
    base = {"win": WIN_POINTS, "draw": DRAW_POINTS, "loss": 0}[game.outcome]
    bonus = game.berserk and game.outcome == "win" and game.moves >= BERSERK_MIN_MOVES
    return Scored(game, base * (2 if fire else 1) + (BERSERK_BONUS if bonus else 0), fire, bonus)


def score_sheet(games: Sequence[ArenaGame]) -> tuple[Scored, ...]:
    """A player's games, each with its points."""
    out: list[Scored] = []
    for i, game in enumerate(games):
        out.append(game_points([g.outcome for g in games[:i]], game))
    return tuple(out)


def performance(games: Sequence[ArenaGame], ratings: Mapping[int, int]) -> int:
    """The opponents' average rating plus 500 times (wins - losses) over games; 0 without a game."""
    if not games:
        return 0
    average = sum(ratings.get(g.opponent, 0) for g in games) / len(games)
    wins = sum(g.outcome == "win" for g in games)
    losses = sum(g.outcome == "loss" for g in games)
    return round(average + 500 * (wins - losses) / len(games))


def leaderboard(games: Mapping[int, Sequence[ArenaGame]], ratings: Mapping[int, int]) -> list[ArenaStanding]:
    """Every player of ``ratings`` ranked: points, performance, rating, id. Equal points and performance share
    a rank."""
    lines: list[ArenaStanding] = []
    for player in ratings:
        own = list(games.get(player, ()))
        sheet = score_sheet(own)
        lines.append(
            ArenaStanding(
                rank=0,
                player=player,
                points=sum(s.points for s in sheet),
                games=len(own),
                wins=sum(g.outcome == "win" for g in own),
                draws=sum(g.outcome == "draw" for g in own),
                losses=sum(g.outcome == "loss" for g in own),
                berserks=sum(s.bonus for s in sheet),
                fire=on_fire([g.outcome for g in own]),
                performance=performance(own, ratings),
                sheet=sheet,
            )
        )
    lines.sort(key=lambda s: (-s.points, -s.performance, -ratings[s.player], s.player))
    out: list[ArenaStanding] = []
    for i, line in enumerate(lines):
        same = out and (out[-1].points, out[-1].performance) == (line.points, line.performance)
        out.append(replace(line, rank=out[-1].rank if same else i + 1))
    return out


def berserk_clock(start: float, increment: float) -> tuple[float, float]:
    """A berserking player's own (start, increment): half the time, no increment."""
    return start / 2, 0.0


def may_berserk(start: float, own_moves: int) -> bool:
    """Whether a player may still go berserk: before their first move, on a clock that starts with time."""
    return start > 0 and own_moves == 0
