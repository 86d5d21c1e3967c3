"""Swiss pairings by the FIDE Dutch system (C.04.3 as in force since 1 July 2025), through py4swiss's engine.

The tournament is written as a TRF(x) report (the format FIDE pairing programs exchange, as
javafo's manual defines it), py4swiss reads it and its Dutch engine pairs the next round (driven by
``bot.tournaments.dutch``, which gives exactly the engine's result, sooner), and the pairs come back
as games with colours. Players who are not to be paired in the next round (a requested bye, not yet
joined, withdrawn) already carry an entry for that round in the report, which is how TRF tells an
engine to leave them out.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Mapping

from py4swiss.engines.common import PairingError
from py4swiss.trf import ParsedTrf, TrfLine
from py4swiss.trf.codes import PlayerCode, TeamCode, TournamentCode, XCode
from py4swiss.trf.sections import PlayerSection, TeamSection, TournamentSection, XSection

from bot.tournaments import dutch
from bot.tournaments.model import Bye, ByeKind, Game, Player, Round, Tournament, TournamentError
from bot.tournaments.roundrobin import pair_round_robin

_GAME_CODES: Mapping[str, tuple[str, str]] = {
    # result -> (white's TRF code, black's TRF code)
    "1-0": ("1", "0"),
    "0-1": ("0", "1"),
    "1/2-1/2": ("=", "="),
    "+-": ("+", "-"),
    "-+": ("-", "+"),
    "--": ("-", "-"),
}
_BYE_CODES: Mapping[ByeKind, str] = {"pairing": "U", "half": "H", "full": "F", "zero": "Z", "rest": "Z"}
TRF_NAME = 33
"""Characters of TRF's name field (columns 15 to 47)."""
_REQUESTABLE: tuple[ByeKind, ...] = ("half", "full", "zero")


def pairing_numbers(t: Tournament) -> dict[int, int]:
    """Player id -> TRF starting number (1..n in seed order)."""
    return {p.id: i + 1 for i, p in enumerate(t.seeded())}


def _entries(t: Tournament, upcoming: Mapping[int, ByeKind]) -> dict[int, list[tuple[int, str, str]]]:
    """Each player's (opponent number, colour, code) per round, plus the next round for those left out."""
    numbers = pairing_numbers(t)
    rows: dict[int, list[tuple[int, str, str]]] = {p.id: [] for p in t.players}
    for rnd in t.rounds:
        if not rnd.finished:
            raise TournamentError(f"round {rnd.number} is not finished")
        seen: set[int] = set()
        for g in rnd.games:
            assert g.result is not None
            wc, bc = _GAME_CODES[g.result]
            rows[g.white].append((numbers[g.black], "w", wc))
            rows[g.black].append((numbers[g.white], "b", bc))
            seen.update((g.white, g.black))
        for bye in rnd.byes:
            rows[bye.player].append((0, "-", _BYE_CODES[bye.kind]))
            seen.add(bye.player)
        for pid, row in rows.items():
            if pid not in seen:
                row.append((0, "-", "Z"))
    nxt = len(t.rounds) + 1
    if nxt <= t.total_rounds:
        for p in t.players:
            if p.id in upcoming:
                rows[p.id].append((0, "-", _BYE_CODES[upcoming[p.id]]))
            elif not p.active_in(nxt):
                rows[p.id].append((0, "-", "Z"))
    return rows


_CODE_POINTS = {"1": 1.0, "+": 1.0, "U": 1.0, "F": 1.0, "=": 0.5, "H": 0.5}


def trf_name(name: str) -> str:
    """A display name as TRF's fixed-width name field holds it: control characters and line breaks as
    spaces, runs of spaces as one, at most 33 characters."""
    cleaned = "".join(" " if unicodedata.category(ch).startswith("C") else ch for ch in name)
    return " ".join(cleaned.split())[:TRF_NAME]


def to_trf(
    t: Tournament,
    upcoming: Mapping[int, ByeKind] | None = None,
    name: str = "",
    names: Mapping[int, str] | None = None,
) -> str:
    """The tournament as TRF(x) text: the ``012`` name line, one ``001`` line per player and the
    ``XXR`` (rounds) and ``XXC`` (first colour) lines that the Dutch engines read.

    ``upcoming`` lists byes already granted for the next round; those players, and anyone not active in
    it, get their next-round entry now, so an engine leaves them out. Without ``names`` the name field
    holds the player ids, which is all the pairing needs; the export passes the display names (cut by
    ``trf_name``; a player without one keeps the id), and the Discord ids go in the CSV.
    """
    upcoming = upcoming or {}
    rows = _entries(t, upcoming)
    numbers = pairing_numbers(t)
    points = {pid: sum(_CODE_POINTS.get(code, 0.0) for _, _, code in row) for pid, row in rows.items()}
    order = sorted(t.players, key=lambda p: (-points[p.id], numbers[p.id]))
    rank = {p.id: i + 1 for i, p in enumerate(order)}
    lines = [f"012 {name}".rstrip()] if name else []
    for p in t.seeded():
        # Fixed columns (javafo's TRF manual): number at 4, name at 14, rating at 48, points at 80, rank at 85.
        shown = (trf_name(names.get(p.id, "")) if names else "") or str(p.id)
        head = f"001 {numbers[p.id]:4d}{'':6}{shown:<33.33} {p.rating:4d}{'':28}{points[p.id]:4.1f} {rank[p.id]:4d}"
        results = "".join(
            f"  {opp:04d} {colour} {code}" if opp == 0 else f"  {opp:4d} {colour} {code}"
            for opp, colour, code in rows[p.id]
        )
        lines.append(head + results)
    lines.append(f"XXR {t.total_rounds}")
    lines.append(f"XXC {'white1' if t.first_white else 'black1'}")
    return "\n".join(lines) + "\n"


def parse_trf(text: str) -> ParsedTrf:
    """py4swiss's own reading of TRF text (its ``TrfParser`` reads only files; this is the same steps on a string)."""
    by_code: dict[object, list[TrfLine]] = defaultdict(list)
    for i, raw in enumerate(text.splitlines()):
        line = raw.strip()
        if line and not line.startswith("#"):
            parsed = TrfLine(i, line)
            by_code[parsed.code_type].append(parsed)
    trf = ParsedTrf(
        player_sections=[PlayerSection.from_string(str(x)) for x in by_code[PlayerCode]],
        team_sections=[TeamSection.from_string(str(x)) for x in by_code[TeamCode]],
        tournament_section=TournamentSection.from_lines(by_code[TournamentCode]),
        x_section=XSection.from_lines(by_code[XCode]),
    )
    trf.validate_contents()
    return trf


def pair_swiss(t: Tournament, byes: Mapping[int, ByeKind] | None = None) -> Round:
    """The next Swiss round by the FIDE Dutch system: games in board order with colours, and byes.

    ``byes`` are the byes granted for this round (``half``, ``full`` or ``zero``); the engine gives the
    pairing-allocated bye (``pairing``, 1 point) when the field is odd, never to a player who already scored a win
    without playing (a pairing-allocated or full-point bye, a forfeit win).
    Raises ``TournamentError`` if the last round is unfinished or the round cannot be paired.
    """
    if t.format != "swiss":
        raise TournamentError(f"a {t.format} tournament is not a Swiss")
    byes = dict(byes or {})
    number = len(t.rounds) + 1
    if number > t.total_rounds:
        raise TournamentError("every round has been played")
    for pid, kind in byes.items():
        if kind not in _REQUESTABLE:
            raise TournamentError(f"a {kind} bye cannot be granted")
        if not t.player(pid).active_in(number):
            raise TournamentError(f"player {pid} does not play round {number}")
    active = [p for p in t.players if p.active_in(number) and p.id not in byes]
    granted = tuple(Bye(pid, kind) for pid, kind in sorted(byes.items()))
    if not active:
        return Round(number, (), granted)
    if len(active) == 1:
        return Round(number, (), (*granted, Bye(active[0].id, "pairing")))
    trf = parse_trf(to_trf(t, byes))
    try:
        pairs = dutch.pair(trf)
    except PairingError as exc:
        raise TournamentError(f"round {number} cannot be paired") from exc
    by_number: dict[int, Player] = {i + 1: p for i, p in enumerate(t.seeded())}
    games: list[Game] = []
    extra: list[Bye] = []
    for pair in pairs:
        if pair.black == 0:
            extra.append(Bye(by_number[pair.white].id, "pairing"))
        else:
            games.append(Game(by_number[pair.white].id, by_number[pair.black].id))
    return Round(number, tuple(games), (*granted, *extra))


def next_round(t: Tournament, byes: Mapping[int, ByeKind] | None = None) -> Round:
    """The next round of any round-played format (Swiss by the Dutch system, round robin by Berger)."""
    if t.format == "swiss":
        return pair_swiss(t, byes)
    if byes:
        raise TournamentError("a round robin has no byes on request")
    return pair_round_robin(t)
