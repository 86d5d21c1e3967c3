"""What a stored tournament means to the engine: the engine's values built from the store's rows, the next
round planned, the standings and the final places.

Discord-free and SQL-free: the store hands a ``TournamentSnapshot`` in, this module hands plans and tables
out, and the cog says them. Pairing is CPU work (a Swiss round of 40 players takes a good fraction of a
second), so the bot calls ``plan_next`` off the event loop.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import cast

from bot.clocks import DAY, MINUTE, TimeControl
from bot.errors import UserError
from bot.store.values import Entrant, GameInfo, Pairing, RoundPlan, TournamentInfo, TournamentSnapshot
from bot.tournaments import (
    ROUND_ROBIN_TIEBREAKS,
    SWISS_TIEBREAKS,
    Bracket,
    BracketState,
    Bye,
    ByeKind,
    Crosstable,
    Game,
    Player,
    Result,
    Round,
    Standing,
    Tiebreak,
    Tournament,
    TournamentError,
    crosstable,
    crosstable_csv,
    divisions,
    double_elimination,
    match_winner,
    next_round,
    resolve,
    rounds_needed,
    single_elimination,
    standings,
    standings_csv,
    to_trf,
)
from bot.tournaments.recap import PLAYED, Recap, RecapGame, round_recap
from bot.tournaments.standings import TIEBREAK_LABELS, csv_name

ROUND_FORMATS = ("swiss", "round_robin", "double_round_robin")
_RELATIVE = re.compile(r"(?:in\s+)?(\d+)\s*(m|min|minutes?|h|hours?|d|days?)")
_STAMP = re.compile(r"<t:(\d+)(?::[a-zA-Z])?>|(\d{9,11})")
WHITE_WINS = ("1-0", "+-")
BLACK_WINS = ("0-1", "-+")


@dataclass(frozen=True)
class Finished:
    """Every round is played (or the bracket has its champion): the tournament is over."""


def division_sizes(info: TournamentInfo, players: int) -> list[int]:
    """How a round robin's field splits: the fewest divisions of at most ``division_size``, sizes within one."""
    size = info.division_size
    if size is None or players <= size:
        return [players]
    count = -(-players // size)
    return [players // count + (1 if i < players % count else 0) for i in range(count)]


def planned_rounds(info: TournamentInfo, players: int) -> int | None:
    """The rounds a format plays with this many players (a Swiss: as the organiser chose; a bracket: unknown);
    a round robin in divisions lasts as long as its biggest division's table."""
    if info.format == "swiss":
        return info.rounds
    if info.format in ("round_robin", "double_round_robin"):
        double = info.format == "double_round_robin"
        return max(rounds_needed(n, double=double) for n in division_sizes(info, players))
    return None


def seeded_players(snap: TournamentSnapshot) -> tuple[Entrant, ...]:
    """The entrants the pairings know: seeded, and not waiting for their late entry to be paired."""
    return tuple(e for e in snap.players if e.seed is not None and not e.late)


def engine_tournament(snap: TournamentSnapshot) -> Tournament:
    """A round-played tournament as the engine's value, from its rows (a round robin in divisions: the first)."""
    return groups(snap)[0][1]


def _players(snap: TournamentSnapshot) -> tuple[Player, ...]:
    return tuple(
        Player(e.user_id, e.rating, cast(int, e.seed), e.joined_round, e.left_round) for e in seeded_players(snap)
    )


def groups(snap: TournamentSnapshot) -> list[tuple[str | None, Tournament]]:
    """The engine's values of a round-played tournament: one, or one per division of a big round robin
    (``divisions`` deals the seeds in a snake, so the divisions are even; each plays its own Berger table,
    numbered from 1, for as many rounds as it needs). Labels are None when there is a single group."""
    info = snap.info
    if info.format not in ROUND_FORMATS:
        raise TournamentError(f"a {info.format} tournament is played as a bracket")
    players = _players(snap)
    double = info.format == "double_round_robin"
    if info.format == "swiss" or info.division_size is None or len(players) <= info.division_size:
        parts: tuple[tuple[Player, ...], ...] = (players,)
    else:
        parts = divisions(players, info.division_size)
    out: list[tuple[str | None, Tournament]] = []
    for number, part in enumerate(parts, start=1):
        ids = {p.id for p in part}
        if len(parts) > 1:
            part = tuple(replace(p, seed=i) for i, p in enumerate(sorted(part, key=lambda p: p.seed), start=1))
        if info.format == "swiss":
            total = info.rounds or max(len(snap.rounds), 1)
        else:
            total = rounds_needed(len(part), double=double)
        rounds = []
        for row in snap.rounds[:total]:
            games = tuple(
                Game(p.white, p.black, cast("Result | None", p.result))
                for p in snap.round_pairings(row.number)
                if p.white in ids
            )
            byes = tuple(Bye(pid, cast(ByeKind, kind)) for n, pid, kind in snap.byes if n == row.number and pid in ids)
            rounds.append(Round(row.number, games, byes))
        label = f"Division {number}" if len(parts) > 1 else None
        out.append((label, Tournament(info.format, part, total, tuple(rounds))))  # type: ignore[arg-type]
    return out


def bracket_of(snap: TournamentSnapshot) -> Bracket:
    players = tuple(
        Player(e.user_id, e.rating, cast(int, e.seed), e.joined_round, e.left_round) for e in seeded_players(snap)
    )
    if snap.info.format == "double_elimination":
        return double_elimination(players, best_of=snap.info.best_of)
    return single_elimination(players, best_of=snap.info.best_of)


def match_games(pairings: tuple[Pairing, ...], match_id: str) -> list[Pairing]:
    return [p for p in pairings if p.match == match_id]


def game_winner(p: Pairing, a: int) -> int | None:
    """Who won one game of a bracket match: a draw is replayed (nobody); both absent counts for the ``a`` side."""
    if p.result in WHITE_WINS:
        return p.white
    if p.result in BLACK_WINS:
        return p.black
    if p.result == "--":
        return a
    return None


def bracket_state(snap: TournamentSnapshot) -> BracketState:
    """The bracket after the games played so far (each match's winner by its best-of-N games)."""
    bracket = bracket_of(snap)
    winners: dict[str, int] = {}
    state = resolve(bracket, winners)
    # Matches resolve in bracket order; a later match's players depend on earlier winners, so grow the map.
    for _ in range(len(bracket.matches) + 1):
        changed = False
        for m in state.matches:
            if m.match.id in winners or not m.ready:
                continue
            a, b = cast(int, m.a), cast(int, m.b)
            played = [w for p in match_games(snap.pairings, m.match.id) if (w := game_winner(p, a)) is not None]
            won = match_winner(a, b, played, bracket.best_of)
            if won is not None:
                winners[m.match.id] = won
                changed = True
        if not changed:
            break
        state = resolve(bracket, winners)
    return state


def plan_next(snap: TournamentSnapshot) -> RoundPlan | Finished | None:
    """The next round to store, ``Finished`` when there is none, or None while the current round is still on or
    a result is disputed and not yet decided (the decision makes the ``advance`` step due again)."""
    if any(p.result is None for p in snap.pairings) or snap.open_disputes:
        return None
    number = len(snap.rounds) + 1
    minutes = snap.info.round_minutes
    if snap.info.is_elimination:
        return _plan_bracket(snap, number, minutes)
    if snap.info.format != "swiss":
        return _plan_round_robin(snap, number, minutes)
    t = engine_tournament(snap)
    if len(t.rounds) >= t.total_rounds:
        return Finished()
    seeds: list[tuple[int, int]] = []
    before = {(b.player, rnd.number) for rnd in t.rounds for b in rnd.byes}
    for e in sorted((e for e in snap.players if e.late), key=lambda e: (e.joined_round, e.user_id)):
        if e.left_round is not None:
            continue
        t = t.join_late(e.user_id, e.rating)
        seeds.append((e.user_id, t.player(e.user_id).seed))
    active = [p for p in t.players if p.active_in(number)]
    if not active:
        return Finished()
    # Players a no-show paused sit this round out, absent (0 points), until they rejoin (as Lichess's Swiss does).
    paused = {e.user_id for e in snap.players if e.absent and e.left_round is None}
    absent: dict[int, ByeKind] = {p.id: "zero" for p in active if p.id in paused}
    rnd = next_round(t, absent)
    late_byes = tuple(
        (r.number, b.player, b.kind) for r in t.rounds for b in r.byes if (b.player, r.number) not in before
    )
    games = tuple((g.white, g.black, None, g.result) for g in rnd.games)
    byes = late_byes + tuple((number, b.player, b.kind) for b in rnd.byes)
    return RoundPlan(number, games, byes, tuple(seeds), minutes)


def _plan_round_robin(snap: TournamentSnapshot, number: int, minutes: int) -> RoundPlan | Finished:
    games: list[tuple[int, int, str | None, str | None]] = []
    byes: list[tuple[int, int, str]] = []
    for label, t in groups(snap):
        if len(t.rounds) >= t.total_rounds:
            continue  # this division has played its whole table
        rnd = next_round(t)
        games += [(g.white, g.black, label, g.result) for g in rnd.games]
        byes += [(number, b.player, b.kind) for b in rnd.byes]
    if not games and not byes:
        return Finished()
    return RoundPlan(number, tuple(games), tuple(byes), (), minutes)


def _plan_bracket(snap: TournamentSnapshot, number: int, minutes: int) -> RoundPlan | Finished:
    state = bracket_state(snap)
    if state.champion is not None:
        return Finished()
    gone = {e.user_id for e in snap.players if e.left_round is not None}
    games: list[tuple[int, int, str | None, str | None]] = []
    for m in state.ready():
        a, b = cast(int, m.a), cast(int, m.b)
        count = len(match_games(snap.pairings, m.match.id))
        white, black = (a, b) if count % 2 == 0 else (b, a)
        result: str | None = None
        if white in gone or black in gone:
            result = "--" if white in gone and black in gone else ("-+" if white in gone else "+-")
        games.append((white, black, m.match.id, result))
    if not games:
        return Finished()
    return RoundPlan(number, tuple(games), (), (), minutes)


def tiebreaks_of(info: TournamentInfo) -> tuple[Tiebreak, ...]:
    return SWISS_TIEBREAKS if info.format == "swiss" else ROUND_ROBIN_TIEBREAKS


def tiebreak_labels(info: TournamentInfo) -> tuple[str, ...]:
    return tuple(TIEBREAK_LABELS[c] for c in tiebreaks_of(info))


def table(snap: TournamentSnapshot) -> tuple[Standing, ...]:
    """The standings over the finished rounds, with the format's tie-breaks (the first division's, if several)."""
    return tables(snap)[0][1]


def tables(snap: TournamentSnapshot) -> list[tuple[str | None, tuple[Standing, ...]]]:
    """The standings of each group (one, or each division of a round robin)."""
    return [(label, standings(t, tiebreaks_of(snap.info))) for label, t in groups(snap)]


def names(snap: TournamentSnapshot) -> dict[int, str]:
    return {e.user_id: e.name for e in snap.players}


def csv_text(snap: TournamentSnapshot) -> str:
    if snap.info.is_elimination:
        lines = ["place,player,name"]
        known = names(snap)
        for place, pid in bracket_state(snap).placements():
            name = known.get(pid, "").replace('"', '""')
            lines.append(f'{place},{pid},"{name}"')
        return "\n".join(lines) + "\n"
    parts = tables(snap)
    if len(parts) == 1:
        return standings_csv(parts[0][1], tiebreaks_of(snap.info), names(snap))
    out: list[str] = []
    for i, (_, rows) in enumerate(parts):
        lines = standings_csv(rows, tiebreaks_of(snap.info), names(snap)).splitlines()
        if i == 0:
            out.append(f"division,{lines[0]}")
        out += [f"{i + 1},{line}" for line in lines[1:]]
    return "\n".join(out) + "\n"


def crosstables(snap: TournamentSnapshot) -> list[tuple[str | None, Crosstable]]:
    """The crosstable of each group (one, or each division of a round robin), rows in standings order."""
    return [(label, crosstable(t, standings(t, tiebreaks_of(snap.info)))) for label, t in groups(snap)]


def crosstable_text(snap: TournamentSnapshot) -> str:
    """The crosstables as CSV (see ``crosstable_csv``), with the players' display names."""
    return crosstable_csv([c for _, c in crosstables(snap)], tiebreaks_of(snap.info), names(snap))


DISPUTE_COLUMNS = (
    "round",
    "board",
    "white",
    "black",
    "disputed_by",
    "reason",
    "result",
    "disputed_at",
    "decided_by",
    "decision",
    "decided_at",
)


def disputes_text(snap: TournamentSnapshot) -> str:
    """Every dispute of the tournament as CSV, in the order they were made: the board (its round, number and the
    players' Discord ids), who disputed it, the reason, the result as it stood and when (UTC); and, once taken, who
    decided, the decision and when (empty while open). A reason starting like a formula is kept as text."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(DISPUTE_COLUMNS)
    pairings = {p.id: p for p in snap.pairings}
    for d in snap.disputes:
        p = pairings.get(d.pairing_id)
        writer.writerow(
            [
                d.round,
                d.board,
                p.white if p else "",
                p.black if p else "",
                d.user_id,
                csv_name(d.reason),
                d.result,
                _utc(d.opened_at),
                "" if d.decided_by is None else d.decided_by,
                d.decision or "",
                "" if d.decided_at is None else _utc(d.decided_at),
            ]
        )
    return buf.getvalue()


def _utc(at: float) -> str:
    return dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def trf_text(snap: TournamentSnapshot) -> str:
    """The Swiss as TRF, over its finished rounds, with the players' display names."""
    t = engine_tournament(snap)
    finished = tuple(r for r in t.rounds if r.finished)
    return to_trf(Tournament(t.format, t.players, t.total_rounds, finished), name=snap.info.name, names=names(snap))


def places(snap: TournamentSnapshot) -> list[tuple[int, int]]:
    """(place, player) at the end: the bracket's placements, or the standings' ranks."""
    if snap.info.is_elimination:
        return bracket_state(snap).placements()
    return [(s.rank, s.player) for s in table(snap)]


def division_places(snap: TournamentSnapshot) -> list[tuple[str | None, list[tuple[int, int]]]]:
    """(label, places) per group: one for most tournaments, one per division of a big round robin."""
    if snap.info.is_elimination:
        return [(None, places(snap))]
    return [(label, [(s.rank, s.player) for s in rows]) for label, rows in tables(snap)]


def rounds_done(snap: TournamentSnapshot) -> int:
    """Rounds whose every result is in."""
    return sum(1 for r in snap.rounds if all(p.result is not None for p in snap.round_pairings(r.number)))


def match_scores(snap: TournamentSnapshot, state: BracketState) -> dict[str, tuple[int, int]]:
    """Games won by each side of every best-of-N match begun (for the bracket image)."""
    out: dict[str, tuple[int, int]] = {}
    for m in state.matches:
        if not isinstance(m.a, int) or not isinstance(m.b, int):
            continue
        winners = [w for p in match_games(snap.pairings, m.match.id) if (w := game_winner(p, m.a)) is not None]
        if winners:
            out[m.match.id] = (winners.count(m.a), winners.count(m.b))
    return out


# --- a round's recap ------------------------------------------------------------------------------


def last_round(snap: TournamentSnapshot, number: int) -> bool:
    """Whether round ``number`` is the tournament's last: none after it and none to come (the tournament finished,
    a Swiss's rounds all played, a round robin's table done, a bracket's champion known). Its recap goes with the
    end's posts."""
    if any(r.number > number for r in snap.rounds):
        return False
    info = snap.info
    if info.status == "finished" or info.end_owed:
        return True
    if info.is_elimination:
        return bracket_state(snap).champion is not None
    total = planned_rounds(info, len(seeded_players(snap)))
    return total is not None and number >= total


def recap_games(snap: TournamentSnapshot, number: int) -> list[Pairing]:
    """The pairings of round ``number`` played on a board (a game and its result; forfeits are none)."""
    return [p for p in snap.round_pairings(number) if p.game_id is not None and p.result in PLAYED]


def round_recap_of(snap: TournamentSnapshot, number: int, games: Mapping[int, GameInfo]) -> Recap | None:
    """Round ``number``'s recap from its stored games (``games`` by id; see ``recap_games``), by the ratings the
    players entered with; None when none was played on a board."""
    played = [
        RecapGame(p.board, p.white, p.black, str(p.result), info.kind.name, dict(info.settings), info.turns)
        for p in recap_games(snap, number)
        if (info := games.get(cast(int, p.game_id))) is not None
    ]
    return round_recap(number, played, {e.user_id: e.rating for e in snap.players})


# --- what the organiser chose, and what follows from it ------------------------------------------


def parse_start(text: str, now: float) -> float:
    """A start time as the organiser wrote it: a delay, a UTC date and time, or a Discord timestamp."""
    cleaned = text.strip().lower()
    if (m := _RELATIVE.fullmatch(cleaned)) is not None:
        unit = {"m": MINUTE, "h": 3600.0, "d": DAY}[m.group(2)[0]]
        return now + int(m.group(1)) * unit
    if (m := _STAMP.fullmatch(cleaned)) is not None:
        return float(m.group(1) or m.group(2))
    try:
        moment = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UserError("tournament.bad_start", text=f"`{text[:40]}`") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()


def default_round_minutes(control: TimeControl) -> int:
    """Long enough for a game to finish on its clock: a live game's two banks with 40 increments, and a margin;
    correspondence rounds a week (days per move: two weeks)."""
    if control.is_live:
        return math.ceil((2 * control.start + 80 * control.increment) / MINUTE) + 10
    if control.family == "days":
        return 14 * 24 * 60
    return 7 * 24 * 60


def swiss_rounds(players: int) -> int:
    """A Swiss's rounds when the organiser chose none: enough to find a winner, fewer than the field."""
    return max(1, min(players - 1, math.ceil(math.log2(max(players, 2))) + 1))


def rounds_at_start(info: TournamentInfo, players: int) -> int | None:
    """The rounds a tournament starting with this many players plays (a Swiss without a number: ``swiss_rounds``)."""
    if info.format == "swiss":
        return info.rounds or swiss_rounds(players)
    return planned_rounds(info, players)
