"""Why a round was paired as it was: each board's score group, float and colours, and each bye's reason, as values.

Computed from the tournament as the pairing saw it (the rounds before, the players active then) and the round as
it was paired; nothing here pairs anything. Every claim is a fact of that data, so an organiser can check it:

- a Swiss board (FIDE Dutch, C.04.3 as in force since 1 July 2025): its score group (the higher of the two
  scores before the round); a float when the scores differ (who moved down, and why: the group had an odd number
  of players to pair, the one moved down had already met everyone else of its group, or every player of the
  group it had not met wanted the same colour absolutely -- else it let the rest of the round be paired); and
  which colour rule (E.1-E.5) gave the colours, with each side's colour preference (A.6: absolute, strong, mild);
- a pairing-allocated bye: the receiver's score is the lowest an eligible player had, or lower eligible players
  could not take it and leave a round that can be completed; how many lower-scored players had already scored
  a point without playing (not eligible, C.04.1 4); and within the score: the fewest unplayed games (2025 C9),
  else the lowest rank, else the others of that score were needed to pair the rest best;
- a round robin: the Berger table's size and round; an elimination bracket: where each side came from (a seed,
  or a match's winner or loser).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from bot.tournaments.elimination import Bracket, Source
from bot.tournaments.model import Bye, ByeKind, Round, Tournament, TournamentError

Side = Literal["white", "black"]
Strength = Literal["absolute", "strong", "mild", "none"]
ColourRule = Literal["both", "stronger", "difference", "alternate", "rank", "number"]
"""E.1 both preferences granted; E.2 the stronger preference (``difference``: both absolute, the wider colour
difference); E.3 alternation from the last round the two had different colours; E.4 the higher rank's preference;
E.5 the higher rank's pairing number (odd: the first round's colour of the top seed)."""
FloatReason = Literal["odd", "met", "colours", "rest"]
ByeScoreReason = Literal["lowest", "completion"]
ByeGroupReason = Literal["only", "fewest_unplayed", "rank", "rest"]

_STRENGTH_ORDER: Mapping[Strength, int] = {"none": 0, "mild": 1, "strong": 2, "absolute": 3}
_UNPLAYED_WIN_BYES: tuple[ByeKind, ...] = ("pairing", "full")


@dataclass(frozen=True)
class Preference:
    """A player's colour preference before the round (A.6): the colour and how strongly; ``side`` is None for a
    player with no game played yet. ``difference`` is whites minus blacks over played games."""

    side: Side | None
    strength: Strength
    difference: int


@dataclass(frozen=True)
class ColourWhy:
    """The first colour rule that decided the board. ``player`` is whose preference was granted (``stronger``,
    ``difference``, ``rank``) or the higher-ranked player (``alternate``, ``number``, ``both``)."""

    rule: ColourRule
    player: int
    number: int | None = None
    """For ``number``: the higher-ranked player's pairing number."""


@dataclass(frozen=True)
class FloatWhy:
    """A pairing across score groups: ``down`` moved from ``high`` to meet ``up`` at ``low``."""

    down: int
    up: int
    high: float
    low: float
    reason: FloatReason


@dataclass(frozen=True)
class BoardWhy:
    board: int
    white: int
    black: int
    white_score: float
    black_score: float
    white_preference: Preference
    black_preference: Preference
    colour: ColourWhy | None
    """None when no colour rule gives these colours (a board set by the organiser)."""
    moved: FloatWhy | None
    """The float, when the two scores differ."""

    @property
    def group(self) -> float:
        """The score group the board was paired in: the higher of its two scores."""
        return max(self.white_score, self.black_score)


@dataclass(frozen=True)
class ByeWhy:
    """A bye. For the pairing-allocated bye: ``score_reason``, ``lower_eligible`` (eligible players with a lower
    score, who could not take it and leave a round that can be completed), ``lower_excluded`` (lower-scored players
    who had already scored a point without playing), ``group_reason`` within the score and the receiver's
    ``unplayed`` games so far. Other byes were granted (asked for, a late entry) and carry only their kind."""

    player: int
    kind: ByeKind
    score: float
    score_reason: ByeScoreReason | None = None
    lower_eligible: int = 0
    lower_excluded: int = 0
    group_reason: ByeGroupReason | None = None
    unplayed: int = 0


@dataclass(frozen=True)
class SwissWhy:
    number: int
    boards: tuple[BoardWhy, ...]
    byes: tuple[ByeWhy, ...]


@dataclass(frozen=True)
class BergerWhy:
    """A round robin's round: row ``table_round`` of the Berger table for ``table_size`` (the field, made even with
    a rest for an odd one); its boards and rests are the table's."""

    number: int
    table_size: int
    table_round: int
    boards: tuple[tuple[int, int, int], ...]
    rests: tuple[int, ...]
    reversed: bool = False
    """A double round robin's second cycle: the table again with the sides reversed."""


@dataclass(frozen=True)
class SideWhy:
    """Where a bracket match's side came from: ``seed`` N, or the ``winner``/``loser`` of match ``ref``."""

    kind: Literal["seed", "winner", "loser"]
    ref: int | str


@dataclass(frozen=True)
class MatchWhy:
    match: str
    a: SideWhy
    b: SideWhy


def before(t: Tournament, number: int) -> Tournament:
    """The tournament as the pairing of round ``number`` saw it: the rounds before it."""
    if not 1 <= number <= len(t.rounds):
        raise TournamentError(f"round {number} has not been paired")
    return Tournament(t.format, t.players, t.total_rounds, t.rounds[: number - 1], t.first_white)


def colours_played(t: Tournament) -> dict[int, list[Side]]:
    """Each player's colours in the games played over the board, in order (forfeits and byes are no games)."""
    out: dict[int, list[Side]] = {p.id: [] for p in t.players}
    for rnd in t.rounds:
        for g in rnd.games:
            if g.played:
                out[g.white].append("white")
                out[g.black].append("black")
    return out


def preference(colours: list[Side]) -> Preference:
    """A.6: absolute beyond a colour difference of ±1 or after the same colour twice running; strong at ±1; mild
    at 0 (the other colour than the last game's); none before any game."""
    difference = colours.count("white") - colours.count("black")
    if difference:
        side: Side | None = "black" if difference > 0 else "white"
    elif colours:
        side = "white" if colours[-1] == "black" else "black"
    else:
        side = None
    if abs(difference) > 1 or (len(colours) > 1 and colours[-1] == colours[-2]):
        return Preference(side, "absolute", difference)
    if abs(difference) == 1:
        return Preference(side, "strong", difference)
    return Preference(side, "mild" if side else "none", difference)


def unplayed_win(t: Tournament) -> set[int]:
    """Players who already scored a win without playing (a pairing-allocated or full-point bye, a forfeit win):
    not eligible for the pairing-allocated bye."""
    out: set[int] = set()
    for rnd in t.rounds:
        out |= {b.player for b in rnd.byes if b.kind in _UNPLAYED_WIN_BYES}
        for g in rnd.games:
            if g.result == "+-":
                out.add(g.white)
            elif g.result == "-+":
                out.add(g.black)
    return out


def pairing_numbers(prior: Tournament, rnd: Round) -> dict[int, int]:
    """The pairing numbers the colour rules read (as ``fide2025`` numbers them): 1, 2, ... in seed order over the
    players paired in this round or in an earlier one, so a player not yet joined shifts nobody."""
    taking_part = {p for g in rnd.games for p in (g.white, g.black)} | {
        b.player for b in rnd.byes if b.kind == "pairing"
    }
    for r in prior.rounds:
        taking_part |= {p for g in r.games for p in (g.white, g.black)}
        taking_part |= {b.player for b in r.byes if b.kind == "pairing"}
    ordered = [p.id for p in prior.seeded() if p.id in taking_part]
    return {pid: i + 1 for i, pid in enumerate(ordered)}


def colour_rule(
    first: tuple[int, Preference, list[Side]],
    second: tuple[int, Preference, list[Side]],
    first_number: int,
    first_white: bool,
) -> tuple[ColourWhy, Side]:
    """E.1-E.5 in order for a pair whose ``first`` is the higher-ranked: the rule that decides, and the colour it
    gives ``first``."""
    (a, pa, ca), (b, pb, cb) = first, second
    if pa.side and pb.side and pa.side != pb.side:
        return ColourWhy("both", a), pa.side
    if pa.strength != pb.strength:
        if _STRENGTH_ORDER[pa.strength] > _STRENGTH_ORDER[pb.strength]:
            assert pa.side is not None
            return ColourWhy("stronger", a), pa.side
        assert pb.side is not None
        return ColourWhy("stronger", b), _other(pb.side)
    if pa.strength == "absolute" and abs(pa.difference) != abs(pb.difference):
        if abs(pa.difference) > abs(pb.difference):
            assert pa.side is not None
            return ColourWhy("difference", a), pa.side
        assert pb.side is not None
        return ColourWhy("difference", b), _other(pb.side)
    for x, y in zip(reversed(ca), reversed(cb), strict=False):
        if x != y:
            return ColourWhy("alternate", a), _other(x)
    if pa.side:
        return ColourWhy("rank", a), pa.side
    odd = first_number % 2 == 1
    initial: Side = "white" if first_white else "black"
    return ColourWhy("number", a, first_number), initial if odd else _other(initial)


def _other(side: Side) -> Side:
    return "black" if side == "white" else "white"


def explain_swiss(t: Tournament, number: int) -> SwissWhy:
    """Why round ``number`` of a Swiss was paired as it was (see the module's docstring)."""
    if t.format != "swiss":
        raise TournamentError(f"a {t.format} tournament is not a Swiss")
    prior = before(t, number)
    rnd = t.rounds[number - 1]
    score = prior.points()
    colours = colours_played(prior)
    prefs = {pid: preference(c) for pid, c in colours.items()}
    numbers = pairing_numbers(prior, rnd)
    seed = {p.id: p.seed for p in t.players}
    met: dict[int, set[int]] = {p.id: set() for p in t.players}
    for r in prior.rounds:
        for g in r.games:
            met[g.white].add(g.black)
            met[g.black].add(g.white)
    in_games = [p for g in rnd.games for p in (g.white, g.black)]

    def rank(pid: int) -> tuple[float, int]:
        return (-score[pid], numbers.get(pid, seed[pid] + len(t.players)))

    boards: list[BoardWhy] = []
    for board, g in enumerate(rnd.games, start=1):
        high, low = sorted((g.white, g.black), key=rank)
        first = (high, prefs[high], colours[high])
        second = (low, prefs[low], colours[low])
        why, side = colour_rule(first, second, numbers.get(high, 0), t.first_white)
        given: Side = "white" if high == g.white else "black"
        float_ = None
        if score[g.white] != score[g.black]:
            float_ = FloatWhy(high, low, score[high], score[low], _float_reason(high, score, in_games, met, prefs))
        boards.append(
            BoardWhy(
                board,
                g.white,
                g.black,
                score[g.white],
                score[g.black],
                prefs[g.white],
                prefs[g.black],
                why if side == given else None,
                float_,
            )
        )
    return SwissWhy(number, tuple(boards), tuple(_bye_why(prior, rnd, b, score, rank) for b in rnd.byes))


def _float_reason(
    down: int,
    score: Mapping[int, float],
    in_games: list[int],
    met: Mapping[int, set[int]],
    prefs: Mapping[int, Preference],
) -> FloatReason:
    group = [p for p in in_games if score[p] == score[down]]
    if len(group) % 2 == 1:
        return "odd"
    others = [p for p in group if p != down]
    unmet = [p for p in others if p not in met[down]]
    if not unmet:
        return "met"
    mine = prefs[down]
    if mine.strength == "absolute" and all(
        prefs[p].strength == "absolute" and prefs[p].side == mine.side for p in unmet
    ):
        return "colours"
    return "rest"


def _bye_why(
    prior: Tournament,
    rnd: Round,
    bye: Bye,
    score: Mapping[int, float],
    rank: Callable[[int], tuple[float, int]],
) -> ByeWhy:
    own = score[bye.player]
    if bye.kind != "pairing":
        return ByeWhy(bye.player, bye.kind, own)
    paired = [p for g in rnd.games for p in (g.white, g.black)] + [bye.player]
    excluded = unplayed_win(prior)
    eligible = [p for p in paired if p not in excluded]
    lower_eligible = sum(1 for p in eligible if score[p] < own)
    lower_excluded = sum(1 for p in paired if p in excluded and score[p] < own)
    played = {pid: len(c) for pid, c in colours_played(prior).items()}
    unplayed = {p: len(prior.rounds) - played[p] for p in paired}
    peers = [p for p in eligible if score[p] == own and p != bye.player]
    group_reason: ByeGroupReason
    if not peers:
        group_reason = "only"
    elif all(unplayed[bye.player] < unplayed[p] for p in peers):
        group_reason = "fewest_unplayed"
    elif all(unplayed[bye.player] <= unplayed[p] for p in peers) and all(
        rank(bye.player) > rank(p) for p in peers if unplayed[p] == unplayed[bye.player]
    ):
        group_reason = "rank"
    else:
        group_reason = "rest"
    return ByeWhy(
        bye.player,
        bye.kind,
        own,
        "completion" if lower_eligible else "lowest",
        lower_eligible,
        lower_excluded,
        group_reason,
        unplayed[bye.player],
    )


def explain_round_robin(t: Tournament, number: int) -> BergerWhy:
    """A round robin's round: its Berger table (size, row, whether the sides are reversed in a double round robin's
    second cycle) and the boards and rests as the table gave them."""
    if t.format == "swiss":
        raise TournamentError("a Swiss is not a round robin")
    rnd = t.rounds[number - 1] if 1 <= number <= len(t.rounds) else None
    if rnd is None:
        raise TournamentError(f"round {number} has not been paired")
    size = len(t.players) + len(t.players) % 2
    per_cycle = max(size - 1, 1)
    boards = tuple((i, g.white, g.black) for i, g in enumerate(rnd.games, start=1))
    rests = tuple(b.player for b in rnd.byes if b.kind == "rest")
    return BergerWhy(number, size, (number - 1) % per_cycle + 1, boards, rests, number > per_cycle)


def explain_bracket(bracket: Bracket, match_ids: list[str]) -> tuple[MatchWhy, ...]:
    """Where each named match's two sides came from in the bracket (seeds, or earlier matches' winners/losers)."""
    by_id = {m.id: m for m in bracket.matches}

    def side(src: Source) -> SideWhy:
        return SideWhy(src.kind, src.ref)

    return tuple(MatchWhy(mid, side(by_id[mid].a), side(by_id[mid].b)) for mid in match_ids if mid in by_id)
