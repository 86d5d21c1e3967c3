"""A plain second computation of scores and tie-breaks, for checking bot.tournaments.standings.

It shares nothing with the package but the input values: it walks the rounds itself and applies
FIDE C.07 (2026 edition) as its text reads, written out once here:

- every round of a player is one element: a played game, a forfeit (won or lost), a bye, or an
  absence (before joining, after withdrawing: a zero-point requested bye, §16.1);
- a player's *adjusted* score (what opponents see, §16.3) is the real score, except that each
  requested bye (½ or 0 points) after which the player never played again counts ½;
- Buchholz (§8.1): the adjusted scores of the opponents met over the board; every other round
  counts a dummy (§16.4): for a forfeit, the lower of the player's own score and the scheduled
  opponent's adjusted score; for a bye or absence, the lower of the own score and ½ × rounds;
- cut-1 (§14.1, §16.5): drop the lowest element, but if any element comes from a *voluntarily
  unplayed round* (a ½/0 requested bye, an absence or a forfeit loss), drop the lowest of those;
- Sonneborn-Berger (§9.1): the same elements, each times the points the player scored that round.
- A round-robin rest is no round at all for that player.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.tournaments import Tournament

Entry = tuple[str, int | None, float]
"""(what, opponent, points): played / forfeit_win / forfeit_loss / bye_pab (the pairing-allocated bye) /
bye_full (a granted 1-point bye) / bye_vur (a ½ or 0 bye, or an absence)."""

POINTS = {
    "1-0": (1.0, 0.0),
    "0-1": (0.0, 1.0),
    "1/2-1/2": (0.5, 0.5),
    "+-": (1.0, 0.0),
    "-+": (0.0, 1.0),
    "--": (0.0, 0.0),
}


def entries(t: Tournament) -> dict[int, list[Entry]]:
    rows: dict[int, list[Entry]] = {p.id: [] for p in t.players}
    for rnd in t.rounds:
        assert all(g.result for g in rnd.games)
        here: set[int] = set()
        for g in rnd.games:
            assert g.result is not None
            w, b = POINTS[g.result]
            here |= {g.white, g.black}
            if g.result in ("1-0", "0-1", "1/2-1/2"):
                rows[g.white].append(("played", g.black, w))
                rows[g.black].append(("played", g.white, b))
            else:
                rows[g.white].append(("forfeit_win" if w else "forfeit_loss", g.black, w))
                rows[g.black].append(("forfeit_win" if b else "forfeit_loss", g.white, b))
        for bye in rnd.byes:
            here.add(bye.player)
            if bye.kind == "rest":
                continue
            pts = {"pairing": 1.0, "full": 1.0, "half": 0.5, "zero": 0.0}[bye.kind]
            what = "bye_pab" if bye.kind == "pairing" else "bye_full" if pts == 1.0 else "bye_vur"
            rows[bye.player].append((what, None, pts))
        for pid in rows:
            if pid not in here:
                rows[pid].append(("bye_vur", None, 0.0))
    return rows


def scores(t: Tournament) -> dict[int, float]:
    return {pid: sum(e[2] for e in row) for pid, row in entries(t).items()}


def adjusted(row: list[Entry]) -> float:
    total = 0.0
    for i, (what, _opp, pts) in enumerate(row):
        returned = any(w in ("played", "forfeit_win", "bye_pab") for w, _, _ in row[i + 1 :])
        total += 0.5 if what == "bye_vur" and not returned else pts
    return total


@dataclass
class Element:
    value: float
    points: float
    vur: bool


def elements(t: Tournament) -> dict[int, list[Element]]:
    rows = entries(t)
    adj = {pid: adjusted(row) for pid, row in rows.items()}
    own = {pid: sum(e[2] for e in row) for pid, row in rows.items()}
    rounds = len(t.rounds)
    out: dict[int, list[Element]] = {}
    for pid, row in rows.items():
        els = []
        for what, opp, pts in row:
            if what == "played":
                assert opp is not None
                value = adj[opp]
            elif what in ("forfeit_win", "forfeit_loss"):
                assert opp is not None
                value = min(own[pid], adj[opp])
            else:
                value = min(own[pid], 0.5 * rounds)
            els.append(Element(value, pts, what in ("bye_vur", "forfeit_loss")))
        out[pid] = els
    return out


def buchholz(t: Tournament) -> dict[int, float]:
    return {pid: sum(e.value for e in els) for pid, els in elements(t).items()}


def buchholz_cut1(t: Tournament) -> dict[int, float]:
    out = {}
    for pid, els in elements(t).items():
        total = sum(e.value for e in els)
        if len(els) >= 2:
            vur = [e.value for e in els if e.vur]
            total -= min(vur) if vur else min(e.value for e in els)
        out[pid] = total
    return out


def sonneborn_berger(t: Tournament) -> dict[int, float]:
    return {pid: sum(e.value * e.points for e in els) for pid, els in elements(t).items()}


def plain_sonneborn_berger(t: Tournament) -> dict[int, float]:
    """SB of a tournament in which every game was played: opponents' final scores times the points."""
    final = scores(t)
    out = dict.fromkeys(final, 0.0)
    for rnd in t.rounds:
        for g in rnd.games:
            assert g.result is not None
            w, b = POINTS[g.result]
            out[g.white] += final[g.black] * w
            out[g.black] += final[g.white] * b
    return out


def play_round(t: Tournament, rng: random.Random, draw: float = 0.2) -> Tournament:
    """Record a result for every game of the current round: the higher rating wins more often."""
    rnd = t.rounds[-1]
    rating = {p.id: p.rating for p in t.players}
    for g in rnd.games:
        if g.result is not None:
            continue
        x = rng.random()
        p_white = 1 / (1 + 10 ** ((rating[g.black] - rating[g.white]) / 400))
        result = "1/2-1/2" if x < draw else ("1-0" if rng.random() < p_white else "0-1")
        t = t.record(g.white, result)  # type: ignore[arg-type]
    return t


def pairable(t: Tournament, byes: dict[int, str]) -> bool:
    """Whether the next round can be paired at all under the Dutch system's absolute criteria: no two
    players meet twice over the board, two who must have the same colour do not meet, and the
    pairing-allocated bye (if the count is odd) goes to a player who has not yet scored a point without
    playing: no pairing bye, no full-point bye, no forfeit win (FIDE C.04.1 as in force since 1 July
    2025). Brute force, for small fields."""
    number = len(t.rounds) + 1
    pool = sorted(p.id for p in t.players if p.active_in(number) and p.id not in byes)
    assert len(pool) <= 16, "brute force is for small fields"
    met = {frozenset((g.white, g.black)) for r in t.rounds for g in r.games if g.result in ("1-0", "0-1", "1/2-1/2")}
    had = {b.player for r in t.rounds for b in r.byes if b.kind in ("pairing", "full")}
    had |= {g.white if g.result == "+-" else g.black for r in t.rounds for g in r.games if g.result in ("+-", "-+")}

    # C3: two players who must have the same colour (a colour difference beyond one, or the same colour in their
    # last two games) do not meet. Its exception for topscorers in the last round is left out: this answer is
    # only asked when the engine refused, and a stricter one can only excuse a refusal in a last round.
    colours: dict[int, list[str]] = {}
    for r in t.rounds:
        for g in r.games:
            if g.result in ("1-0", "0-1", "1/2-1/2"):
                colours.setdefault(g.white, []).append("w")
                colours.setdefault(g.black, []).append("b")

    def must_have(player: int) -> str | None:
        seen = colours.get(player, [])
        difference = seen.count("w") - seen.count("b")
        if difference > 1 or seen[-2:] == ["w", "w"]:
            return "b"
        if difference < -1 or seen[-2:] == ["b", "b"]:
            return "w"
        return None

    def may_meet(a: int, b: int) -> bool:
        return frozenset((a, b)) not in met and (must_have(a) is None or must_have(a) != must_have(b))

    def match(rest: list[int]) -> bool:
        if not rest:
            return True
        first, others = rest[0], rest[1:]
        return any(may_meet(first, o) and match([x for x in others if x != o]) for o in others)

    if len(pool) % 2 == 0:
        return match(pool)
    return any(p not in had and match([x for x in pool if x != p]) for p in pool)
