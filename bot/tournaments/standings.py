"""Standings with tie-breaks, and their CSV export.

Buchholz, Buchholz cut-1 and Sonneborn-Berger come from tiebreak-core under its ``fide-2026``
ruleset, which applies FIDE C.07 Article 16 to unplayed rounds (byes, forfeits, a withdrawn
player's missing rounds, a late joiner's missed ones) the way FIDE's own worked examples do.
Head-to-head and wins are small enough to compute here.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from tiebreak_core import GameRecord, PlayerTiebreakData, rank_standings_strict

from bot.tournaments.model import Bye, Game, Tournament

Tiebreak = Literal["buchholz_cut1", "buchholz", "sonneborn_berger", "head_to_head", "wins"]

TIEBREAK_LABELS: Mapping[Tiebreak, str] = {
    "buchholz_cut1": "Buchholz cut 1",
    "buchholz": "Buchholz",
    "sonneborn_berger": "Sonneborn-Berger",
    "head_to_head": "head-to-head",
    "wins": "wins",
}

SWISS_TIEBREAKS: tuple[Tiebreak, ...] = ("buchholz_cut1", "buchholz", "sonneborn_berger", "head_to_head", "wins")
ROUND_ROBIN_TIEBREAKS: tuple[Tiebreak, ...] = ("head_to_head", "sonneborn_berger", "wins")
_LIBRARY: tuple[Tiebreak, ...] = ("buchholz_cut1", "buchholz", "sonneborn_berger")
_BYE_KIND = {"pairing": "pairing_bye", "full": "requested_bye", "half": "requested_bye", "zero": "requested_bye"}


@dataclass(frozen=True)
class Standing:
    rank: int
    """Shared by players equal on points and every tie-break."""
    player: int
    points: float
    tiebreaks: tuple[float, ...]


def tiebreak_records(t: Tournament) -> dict[int, PlayerTiebreakData]:
    """The finished rounds in tiebreak-core's terms: one record per player per round.

    A round a player sat out without a bye (before joining, after withdrawing) is a zero-point
    requested bye, which is how FIDE C.07 §16.1 counts a withdrawn player's missing rounds; a
    round-robin rest is no round at all for that player.
    """
    rating = {p.id: p.rating for p in t.players}
    games: dict[int, list[GameRecord]] = {p.id: [] for p in t.players}
    for rnd in t.completed_rounds():
        seen: set[int] = set()
        for g in rnd.games:
            seen.update((g.white, g.black))
            wp, bp = g.points()
            for me, opp, pts, colour in ((g.white, g.black, wp, "white"), (g.black, g.white, bp, "black")):
                kind = "played" if g.played else ("forfeit_win" if pts == 1.0 else "forfeit_loss")
                games[me].append(GameRecord(opp, rating[opp], pts, colour, rnd.number, kind=kind))
        for bye in rnd.byes:
            seen.add(bye.player)
            if bye.kind != "rest":
                games[bye.player].append(_bye_record(bye, rnd.number))
        for pid, record in games.items():
            if pid not in seen:
                record.append(GameRecord(-1, 0, 0.0, "white", rnd.number, kind="requested_bye"))
    # Points over the finished rounds only: a result already in for an unfinished round waits for the rest.
    return {
        pid: PlayerTiebreakData(pid, rating[pid], sum(g.score for g in record), record) for pid, record in games.items()
    }


def _bye_record(bye: Bye, number: int) -> GameRecord:
    return GameRecord(-1, 0, bye.points, "white", number, kind=_BYE_KIND[bye.kind])


def _games(t: Tournament) -> list[Game]:
    return [g for rnd in t.completed_rounds() for g in rnd.games]


def head_to_head(t: Tournament, group: Sequence[int]) -> dict[int, float]:
    """Points each player of ``group`` scored against the others of it, forfeits included.

    Counted only when every two of them have met (FIDE C.07 §6's condition for a tied group);
    otherwise all get 0 and the next tie-break decides.
    """
    members = set(group)
    score = dict.fromkeys(group, 0.0)
    met: set[frozenset[int]] = set()
    for g in _games(t):
        if g.white in members and g.black in members and g.result != "--":
            wp, bp = g.points()
            score[g.white] += wp
            score[g.black] += bp
            met.add(frozenset((g.white, g.black)))
    n = len(members)
    if len(met) < n * (n - 1) // 2:
        return dict.fromkeys(group, 0.0)
    return score


def wins(t: Tournament) -> dict[int, float]:
    """Games won over the board (forfeit wins and byes are not wins here, as FIDE C.07 §7.2's WON)."""
    out = {p.id: 0.0 for p in t.players}
    for g in _games(t):
        if g.result == "1-0":
            out[g.white] += 1
        elif g.result == "0-1":
            out[g.black] += 1
    return out


def standings(t: Tournament, tiebreaks: Sequence[Tiebreak] | None = None) -> tuple[Standing, ...]:
    """Everyone ranked by points over the finished rounds, then by ``tiebreaks`` in order (the Swiss
    or round-robin defaults when omitted). Equal on all of them, players share a rank."""
    if tiebreaks is None:
        tiebreaks = SWISS_TIEBREAKS if t.format == "swiss" else ROUND_ROBIN_TIEBREAKS
    records = tiebreak_records(t)
    points = {pid: r.points for pid, r in records.items()}
    library: dict[int, Mapping[str, float]] = {}
    wanted = [c for c in tiebreaks if c in _LIBRARY]
    done = len(t.completed_rounds())
    if wanted and done:
        mode = "swiss" if t.format == "swiss" else "round_robin"
        result = rank_standings_strict(records, wanted, total_rounds=done, ruleset="fide-2026", mode=mode)
        library = {r.player_id: r.values for r in result.players}
    won = wins(t) if "wins" in tiebreaks else {}
    keys: dict[int, list[float]] = {pid: [points[pid]] for pid in records}
    for crit in tiebreaks:
        if crit == "head_to_head":
            groups: dict[tuple[float, ...], list[int]] = {}
            for pid, key in keys.items():
                groups.setdefault(tuple(key), []).append(pid)
            for members in groups.values():
                h2h = head_to_head(t, members) if len(members) > 1 else {members[0]: 0.0}
                for pid in members:
                    keys[pid].append(h2h[pid])
        elif crit == "wins":
            for pid in keys:
                keys[pid].append(won[pid])
        else:
            for pid in keys:
                keys[pid].append(float(library[pid][crit]) if library else 0.0)
    seed = {p.id: p.seed for p in t.players}
    order = sorted(keys, key=lambda pid: ([-x for x in keys[pid]], seed[pid]))
    out: list[Standing] = []
    for i, pid in enumerate(order):
        rank = out[-1].rank if out and keys[order[i - 1]] == keys[pid] else i + 1
        out.append(Standing(rank, pid, points[pid], tuple(keys[pid][1:])))
    return tuple(out)


def standings_csv(
    table: Sequence[Standing], tiebreaks: Sequence[Tiebreak], names: Mapping[int, str] | None = None
) -> str:
    """The standings as CSV text: rank, player, name, points, then one column per tie-break."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["rank", "player", "name", "points", *(TIEBREAK_LABELS[c] for c in tiebreaks)])
    for s in table:
        name = csv_name((names or {}).get(s.player, ""))
        writer.writerow([s.rank, s.player, name, csv_number(s.points), *(csv_number(v) for v in s.tiebreaks)])
    return buf.getvalue()


def csv_number(x: float) -> str:
    return f"{x:g}"


def csv_name(name: str) -> str:
    """A member's name as a CSV cell a spreadsheet shows as text: one starting like a formula (``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return) gets a leading apostrophe, so opening the export runs nothing."""
    return "'" + name if name[:1] in ("=", "+", "-", "@", "\t", "\r") else name
