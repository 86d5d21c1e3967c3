"""Single and double elimination brackets: standard seeding, byes to the top seeds, best-of-N matches.

A bracket is a fixed list of matches whose two sides name where their players come from (a seed,
the winner of a match, or its loser). The state of a bracket is never stored: ``resolve`` rebuilds
it from the bracket and the winners recorded so far, so storage keeps only match results.

The field is padded to the next power of two with byes; seeds follow the standard order
(1 v N, then 1's winner meets the 4/5 winner, ...), so the byes fall to the top seeds and two byes
never meet. A side whose source produced nobody (a bye, or the loser of a walkover) is empty, and a
match with one empty side is a walkover: the player goes through and nobody loses.

Double elimination: each winners'-bracket round drops its losers into the losers' bracket, whose
rounds alternate between halving its own field and taking in the next drop (in reversed order every
other round, so a dropped player does not meet the opponent they just left); the winners' champion
meets the losers' champion in the grand final, and with ``reset`` a second final is played if the
losers' champion wins the first, so every player but the champion goes out with exactly two losses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.tournaments.model import Player, TournamentError

BYE: Literal["bye"] = "bye"
Occupant = int | Literal["bye"] | None
"""A match side: a player id, ``"bye"`` (nobody will come), or ``None`` (not known yet)."""

Part = Literal["winners", "losers", "final", "reset"]


@dataclass(frozen=True)
class Source:
    """Where a match side's player comes from: seed ``ref``, or the winner/loser of match ``ref``."""

    kind: Literal["seed", "winner", "loser"]
    ref: int | str


@dataclass(frozen=True)
class Match:
    """One match of a bracket. ``stage`` orders play: a match's sources are all in earlier stages, and
    players going out in a later stage place higher."""

    id: str
    part: Part
    round: int
    stage: int
    a: Source
    b: Source


@dataclass(frozen=True)
class Bracket:
    players: tuple[int, ...]
    """Player ids in seed order (seed 1 first)."""
    matches: tuple[Match, ...]
    double: bool = False
    reset: bool = False
    best_of: int = 1

    @property
    def size(self) -> int:
        """The field padded to a power of two."""
        return _padded(len(self.players))


def _padded(n: int) -> int:
    size = 1
    while size < n:
        size *= 2
    return size


def seed_order(size: int) -> tuple[int, ...]:
    """The standard bracket order of seeds 1..size (a power of two), top to bottom: for 8,
    1 8 4 5 2 7 3 6 — so 1 v 8, 4 v 5, 2 v 7, 3 v 6, and 1 and 2 can meet only in the final."""
    if size < 1 or size & (size - 1):
        raise TournamentError("a bracket's size is a power of two")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [x for s in order for x in (s, total - s)]
    return tuple(order)


def _seeded_ids(players: Sequence[Player]) -> tuple[int, ...]:
    if len(players) < 2:
        raise TournamentError("an elimination bracket needs at least two players")
    return tuple(p.id for p in sorted(players, key=lambda p: p.seed))


def _winners_bracket(size: int) -> list[Match]:
    order = seed_order(size)
    rounds = size.bit_length() - 1
    matches: list[Match] = []
    for r in range(1, rounds + 1):
        for i in range(size >> r):
            if r == 1:
                a, b = Source("seed", order[2 * i]), Source("seed", order[2 * i + 1])
            else:
                a, b = Source("winner", f"W{r - 1}-{2 * i + 1}"), Source("winner", f"W{r - 1}-{2 * i + 2}")
            matches.append(Match(f"W{r}-{i + 1}", "winners", r, r, a, b))
    return matches


def single_elimination(players: Sequence[Player], best_of: int = 1) -> Bracket:
    """A knockout bracket seeded by ``Player.seed`` (use ``seed_by_rating`` to seed by rating)."""
    _check_best_of(best_of)
    ids = _seeded_ids(players)
    return Bracket(ids, tuple(_winners_bracket(_padded(len(ids)))), best_of=best_of)


def double_elimination(players: Sequence[Player], reset: bool = True, best_of: int = 1) -> Bracket:
    """A double-elimination bracket: winners' and losers' brackets, a grand final and, with ``reset``,
    the second final when the losers'-bracket champion wins the first."""
    _check_best_of(best_of)
    ids = _seeded_ids(players)
    size = _padded(len(ids))
    k = size.bit_length() - 1
    matches = _winners_bracket(size)
    lb_champion = Source("loser", f"W{k}-1")
    if k >= 2:
        # Losers' round 1: the winners' round-1 losers, in pairs.
        for i in range(size // 4):
            matches.append(
                Match(
                    f"L1-{i + 1}",
                    "losers",
                    1,
                    2,
                    Source("loser", f"W1-{2 * i + 1}"),
                    Source("loser", f"W1-{2 * i + 2}"),
                )
            )
        t = 1
        for j in range(2, k + 1):
            count = size >> j
            t += 1  # a drop round: the previous losers' round's winners meet winners' round j's losers
            for i in range(count):
                dropped = count - i if j % 2 == 0 else i + 1
                matches.append(
                    Match(
                        f"L{t}-{i + 1}",
                        "losers",
                        t,
                        t + 1,
                        Source("winner", f"L{t - 1}-{i + 1}"),
                        Source("loser", f"W{j}-{dropped}"),
                    )
                )
            if j < k:
                t += 1  # a halving round inside the losers' bracket
                for i in range(count // 2):
                    matches.append(
                        Match(
                            f"L{t}-{i + 1}",
                            "losers",
                            t,
                            t + 1,
                            Source("winner", f"L{t - 1}-{2 * i + 1}"),
                            Source("winner", f"L{t - 1}-{2 * i + 2}"),
                        )
                    )
        lb_champion = Source("winner", f"L{t}-1")
        final_stage = t + 2
    else:
        final_stage = 2
    matches.append(Match("GF", "final", 1, final_stage, Source("winner", f"W{k}-1"), lb_champion))
    if reset:
        matches.append(Match("GF2", "reset", 2, final_stage + 1, Source("winner", "GF"), Source("loser", "GF")))
    matches.sort(key=lambda m: (m.stage, m.part != "winners", m.round))
    return Bracket(ids, tuple(matches), double=True, reset=reset, best_of=best_of)


def _check_best_of(best_of: int) -> None:
    if best_of < 1 or best_of % 2 == 0:
        raise TournamentError("a match is best of an odd number of games")


def match_winner(a: int, b: int, game_winners: Sequence[int], best_of: int) -> int | None:
    """Who has won a best-of-``best_of`` match after these games (each entry is a game's winner; a
    drawn game is not listed, it is replayed), or ``None`` while neither has the majority."""
    need = best_of // 2 + 1
    for w in game_winners:
        if w not in (a, b):
            raise TournamentError(f"player {w} is not in this match")
    wins_a = sum(1 for w in game_winners if w == a)
    wins_b = len(game_winners) - wins_a
    if wins_a >= need and wins_b >= need:
        raise TournamentError("both players cannot have won the match")
    return a if wins_a >= need else b if wins_b >= need else None


@dataclass(frozen=True)
class MatchState:
    match: Match
    a: Occupant
    b: Occupant
    winner: Occupant
    loser: Occupant
    played: bool
    """Whether two players met (walkovers and an unneeded second final were not played)."""

    @property
    def ready(self) -> bool:
        """Both players known and no winner yet: the match can be played now."""
        return isinstance(self.a, int) and isinstance(self.b, int) and self.winner is None


@dataclass(frozen=True)
class BracketState:
    bracket: Bracket
    matches: tuple[MatchState, ...]

    def ready(self) -> tuple[MatchState, ...]:
        return tuple(m for m in self.matches if m.ready)

    @property
    def champion(self) -> int | None:
        last = self.matches[-1].winner
        return last if isinstance(last, int) else None

    def losses(self) -> dict[int, int]:
        out = dict.fromkeys(self.bracket.players, 0)
        for m in self.matches:
            if m.played and isinstance(m.loser, int):
                out[m.loser] += 1
        return out

    def eliminated(self) -> dict[int, Match]:
        """Player -> the match that put them out (the one whose loser goes nowhere)."""
        forwarded = {m.match.b.ref for m in self.matches if m.match.b.kind == "loser"}
        forwarded |= {m.match.a.ref for m in self.matches if m.match.a.kind == "loser"}
        return {
            m.loser: m.match
            for m in self.matches
            if isinstance(m.loser, int) and m.winner is not None and m.match.id not in forwarded
        }

    def placements(self) -> list[tuple[int, int]]:
        """(place, player) once decided: the champion 1st, then by how late each went out; players out
        in the same stage share a place (two semi-final losers are both 3rd)."""
        out = self.eliminated()
        placed: list[tuple[int, int]] = []
        if self.champion is not None:
            placed.append((1, self.champion))
        by_stage = sorted({m.stage for m in out.values()}, reverse=True)
        above = 1
        for stage in by_stage:
            group = sorted((p for p, m in out.items() if m.stage == stage), key=self.bracket.players.index)
            placed += [(above + 1, p) for p in group]
            above += len(group)
        return placed


def resolve(bracket: Bracket, winners: Mapping[str, int]) -> BracketState:
    """The bracket's state after the recorded match winners (match id -> winner's id)."""
    known = {m.id for m in bracket.matches}
    for mid in winners:
        if mid not in known:
            raise TournamentError(f"there is no match {mid}")
    states: dict[str, MatchState] = {}

    def occupant(src: Source) -> Occupant:
        if src.kind == "seed":
            assert isinstance(src.ref, int)
            return bracket.players[src.ref - 1] if src.ref <= len(bracket.players) else BYE
        state = states[str(src.ref)]
        return state.winner if src.kind == "winner" else state.loser

    for m in bracket.matches:
        a, b = occupant(m.a), occupant(m.b)
        winner: Occupant = None
        loser: Occupant = None
        played = False
        if m.part == "reset" and a is not None and b is not None and states["GF"].a == a:
            winner, loser = a, b  # the winners'-bracket champion won the first final: no second one
        elif a == BYE and b == BYE:
            winner = loser = BYE
        elif a == BYE or b == BYE:
            if a is not None and b is not None:
                winner, loser = (b if a == BYE else a), BYE
        elif a is not None and b is not None and m.id in winners:
            w = winners[m.id]
            if w not in (a, b):
                raise TournamentError(f"player {w} is not in match {m.id}")
            winner, loser, played = w, (b if w == a else a), True
        if m.id in winners and not played:
            raise TournamentError(f"match {m.id} is not being played")
        states[m.id] = MatchState(m, a, b, winner, loser, played)
    return BracketState(bracket, tuple(states[m.id] for m in bracket.matches))
