"""A tournament as plain values: who plays, what each round held, and how results are recorded.

Everything here is frozen; every change returns a new value, so the storage layer can keep a
tournament as rows and rebuild the same value from them. Colours are chess words because the
pairing rules (FIDE) speak them: ``white`` is the player who moves first, which in Veletas means
the one who sets up first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

Format = Literal["round_robin", "double_round_robin", "swiss"]
"""Formats played in rounds; the elimination brackets live in ``elimination``."""

Result = Literal["1-0", "0-1", "1/2-1/2", "+-", "-+", "--"]
"""A game's result from white's side. ``+-``: white wins because black did not play (a no-show);
``-+`` the reverse; ``--`` neither came. Forfeits are games that were not played."""

RESULTS: tuple[Result, ...] = ("1-0", "0-1", "1/2-1/2", "+-", "-+", "--")

ByeKind = Literal["pairing", "half", "full", "zero", "rest"]
"""Why a player had no game in a round, and what it was worth.

``pairing``: the pairing-allocated bye of an odd Swiss round (1 point, at most once each);
``half``: a ½-point bye (asked for, or a late joiner's single bye, as on Lichess);
``full``: a 1-point bye the organiser grants; ``zero``: a known absence (0 points);
``rest``: the sit-out of an odd round robin (0 points, not a game, ignored by tie-breaks).
A player who is in neither a game nor a bye of a round (not yet joined, or withdrawn) was absent.
"""

BYE_POINTS: Mapping[ByeKind, float] = {"pairing": 1.0, "half": 0.5, "full": 1.0, "zero": 0.0, "rest": 0.0}


class TournamentError(ValueError):
    """A request the tournament's state does not allow; the message says why, the fields carry the data."""


@dataclass(frozen=True)
class Player:
    """One entrant. ``seed`` orders the field (1 = top; pairing number in Swiss, Berger number in round
    robin); ``joined`` is the first round the player can be paired in, ``left`` the first round after
    withdrawing (``None`` while still in)."""

    id: int
    rating: int
    seed: int
    joined: int = 1
    left: int | None = None

    def active_in(self, round_number: int) -> bool:
        return self.joined <= round_number and (self.left is None or round_number < self.left)


@dataclass(frozen=True)
class Game:
    """A pairing; ``result`` is ``None`` until it is recorded."""

    white: int
    black: int
    result: Result | None = None

    def points(self) -> tuple[float, float]:
        """(white's points, black's points); a forfeit scores like a win or a loss."""
        return {
            "1-0": (1.0, 0.0),
            "+-": (1.0, 0.0),
            "0-1": (0.0, 1.0),
            "-+": (0.0, 1.0),
            "1/2-1/2": (0.5, 0.5),
            "--": (0.0, 0.0),
            None: (0.0, 0.0),
        }[self.result]

    @property
    def played(self) -> bool:
        """Whether the game took place over the board (forfeits did not)."""
        return self.result in ("1-0", "0-1", "1/2-1/2")


@dataclass(frozen=True)
class Bye:
    player: int
    kind: ByeKind

    @property
    def points(self) -> float:
        return BYE_POINTS[self.kind]


@dataclass(frozen=True)
class Round:
    """One round: its games (board order) and its byes."""

    number: int
    games: tuple[Game, ...]
    byes: tuple[Bye, ...] = ()

    @property
    def finished(self) -> bool:
        return all(g.result is not None for g in self.games)

    def players(self) -> set[int]:
        return {p for g in self.games for p in (g.white, g.black)} | {b.player for b in self.byes}


@dataclass(frozen=True)
class Tournament:
    """A round-played tournament: its format, its field, the rounds so far and how many are planned."""

    format: Format
    players: tuple[Player, ...]
    total_rounds: int
    rounds: tuple[Round, ...] = ()
    first_white: bool = True
    """Whether the top seed has white in round 1 (TRF ``XXC white1``); the other boards alternate."""

    def __post_init__(self) -> None:
        ids = [p.id for p in self.players]
        if len(set(ids)) != len(ids):
            raise TournamentError("a player is entered twice")
        seeds = [p.seed for p in self.players]
        if len(set(seeds)) != len(seeds):
            raise TournamentError("two players share a seed")

    def player(self, player_id: int) -> Player:
        for p in self.players:
            if p.id == player_id:
                return p
        raise TournamentError(f"player {player_id} is not in this tournament")

    @property
    def current(self) -> Round | None:
        """The last round, finished or not."""
        return self.rounds[-1] if self.rounds else None

    def completed_rounds(self) -> tuple[Round, ...]:
        return tuple(r for r in self.rounds if r.finished)

    def seeded(self) -> tuple[Player, ...]:
        return tuple(sorted(self.players, key=lambda p: p.seed))

    def points(self) -> dict[int, float]:
        """Each player's score over every recorded result."""
        score = {p.id: 0.0 for p in self.players}
        for rnd in self.rounds:
            for g in rnd.games:
                w, b = g.points()
                score[g.white] += w
                score[g.black] += b
            for bye in rnd.byes:
                score[bye.player] += bye.points
        return score

    # ---- changes (each returns a new tournament) ----

    def with_round(self, rnd: Round) -> Tournament:
        """Append a freshly paired round; the previous one must be finished."""
        if self.rounds and not self.rounds[-1].finished:
            raise TournamentError(f"round {self.rounds[-1].number} is not finished")
        if rnd.number != len(self.rounds) + 1:
            raise TournamentError(f"the next round is {len(self.rounds) + 1}, not {rnd.number}")
        if rnd.number > self.total_rounds:
            raise TournamentError(f"the tournament has only {self.total_rounds} rounds")
        return replace(self, rounds=(*self.rounds, rnd))

    def record(self, player_id: int, result: Result) -> Tournament:
        """Record the result of ``player_id``'s game in the current round (``result`` from white's side)."""
        if result not in RESULTS:
            raise TournamentError(f"unknown result {result!r}")
        rnd = self.current
        if rnd is None:
            raise TournamentError("no round has been paired")
        games = list(rnd.games)
        for i, g in enumerate(games):
            if player_id in (g.white, g.black):
                games[i] = replace(g, result=result)
                return replace(self, rounds=(*self.rounds[:-1], replace(rnd, games=tuple(games))))
        raise TournamentError(f"player {player_id} has no game in round {rnd.number}")

    def withdraw(self, player_id: int) -> Tournament:
        """Take a player out from the next round on; results so far stay."""
        p = self.player(player_id)
        if p.left is not None:
            raise TournamentError(f"player {player_id} has already withdrawn")
        rnd = self.current
        after = (
            1
            if rnd is None
            else (rnd.number if not rnd.finished and player_id not in rnd.players() else rnd.number + 1)
        )
        return self._replace_player(replace(p, left=after))

    def no_show(self, player_id: int) -> Tournament:
        """The player did not come to the current round's game: a forfeit loss, and out of the tournament
        (Lichess: a no-show loses and is withdrawn)."""
        rnd = self.current
        if rnd is None:
            raise TournamentError("no round has been paired")
        game = next((g for g in rnd.games if player_id in (g.white, g.black)), None)
        if game is None:
            raise TournamentError(f"player {player_id} has no game in round {rnd.number}")
        own: Result = "-+" if game.white == player_id else "+-"
        if game.result in (own, "--"):
            result: Result = game.result  # already recorded
        elif game.result in ("+-", "-+"):
            result = "--"  # the other one did not come either
        else:
            result = own
        out = self.record(player_id, result)
        return out.withdraw(player_id) if out.player(player_id).left is None else out

    def join_late(self, player_id: int, rating: int) -> Tournament:
        """Add a player before the next round, Lichess style: allowed until more than half the rounds
        have started; the newcomer gets one ½-point bye for the last round missed (however many were
        missed) and the next free seed."""
        if any(p.id == player_id for p in self.players):
            raise TournamentError(f"player {player_id} is already entered")
        if self.rounds and not self.rounds[-1].finished:
            raise TournamentError(f"round {self.rounds[-1].number} is not finished")
        started = len(self.rounds)
        if started > self.total_rounds // 2:
            raise TournamentError(f"late entries close after round {self.total_rounds // 2}")
        seed = max((p.seed for p in self.players), default=0) + 1
        newcomer = Player(player_id, rating, seed, joined=started + 1)
        rounds = self.rounds
        if rounds:
            last = rounds[-1]
            rounds = (*rounds[:-1], replace(last, byes=(*last.byes, Bye(player_id, "half"))))
        return replace(self, players=(*self.players, newcomer), rounds=rounds)

    def _replace_player(self, new: Player) -> Tournament:
        return replace(self, players=tuple(new if p.id == new.id else p for p in self.players))


def seed_by_rating(entries: Iterable[tuple[int, int]]) -> tuple[Player, ...]:
    """Players from (id, rating) pairs, seeded by rating (highest first; ties by id, so it is stable)."""
    ordered = sorted(entries, key=lambda e: (-e[1], e[0]))
    return tuple(Player(pid, rating, i + 1) for i, (pid, rating) in enumerate(ordered))
