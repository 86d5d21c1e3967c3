"""The explanation of a round says only what is true of the data: on random Swiss events (byes on request,
withdrawals, late entries, no-shows, forfeits), each claim is checked against the tournament itself and against
py4swiss's own reading of the TRF the round was paired from."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.tournaments import ByeKind, Tournament, TournamentError, pair_swiss, round_robin_schedule, seed_by_rating
from bot.tournaments.elimination import single_elimination
from bot.tournaments.explain import (
    BoardWhy,
    ByeWhy,
    before,
    explain_bracket,
    explain_round_robin,
    explain_swiss,
)
from bot.tournaments.fide2025 import players_2025
from bot.tournaments.swiss import pairing_numbers, parse_trf, to_trf

_SIDES = {1: "white", -1: "black", 0: None}
_STRENGTHS = {3: "absolute", 2: "strong", 1: "mild", 0: "none"}


def _result(rng: random.Random) -> str:
    x = rng.random()
    if x < 0.08:
        return rng.choice(["+-", "-+", "--"])
    return "1/2-1/2" if x < 0.3 else ("1-0" if x < 0.65 else "0-1")


def _event(n: int, total: int, seed: int) -> tuple[Tournament, dict[int, dict[int, ByeKind]]]:
    """A random Swiss, and the byes granted for each round (what the TRF of that round carried)."""
    rng = random.Random(seed)
    t = Tournament(
        "swiss", seed_by_rating((i + 1, rng.randint(1000, 2400)) for i in range(n)), total, (), bool(seed % 2)
    )
    granted: dict[int, dict[int, ByeKind]] = {}
    extra = 1000
    while len(t.rounds) < total:
        number = len(t.rounds) + 1
        active = [p.id for p in t.players if p.active_in(number)]
        byes: dict[int, ByeKind] = {}
        for pid in active:
            if rng.random() < 0.08 and len(active) - len(byes) > 3:
                byes[pid] = rng.choice(["half", "full", "zero"])
        if rng.random() < 0.2 and len(active) - len(byes) > 3 and number > 1:
            t = t.withdraw(rng.choice([p for p in active if p not in byes] or active))
            byes = {p: k for p, k in byes.items() if t.player(p).active_in(number)}
        if rng.random() < 0.25 and number - 1 <= total // 2:
            for _ in range(rng.randint(1, 2)):
                extra += 1
                t = t.join_late(extra, rng.randint(1000, 2400))
        if len([p for p in t.players if p.active_in(number) and p.id not in byes]) < 2:
            break
        try:
            rnd = pair_swiss(t, byes)
        except TournamentError:
            break
        granted[number] = byes
        t = t.with_round(rnd)
        for g in rnd.games:
            t = t.record(g.white, _result(rng))  # type: ignore[arg-type]
        if rnd.games and rng.random() < 0.15:
            t = t.no_show(rng.choice(rnd.games).white)
    return t, granted


def _engine_view(t: Tournament, number: int, byes: dict[int, ByeKind]) -> dict[int, Any]:
    """py4swiss's player records for the pairing of round ``number``, by player id."""
    prior = before(t, number)
    numbers = {n: pid for pid, n in pairing_numbers(prior).items()}
    return {numbers[p.id]: p for p in players_2025(parse_trf(to_trf(prior, byes)))}


def _scores(t: Tournament, number: int) -> dict[int, float]:
    score = {p.id: 0.0 for p in t.players}
    for rnd in t.rounds[: number - 1]:
        for g in rnd.games:
            w, b = g.points()
            score[g.white] += w
            score[g.black] += b
        for bye in rnd.byes:
            score[bye.player] += bye.points
    return score


def _check_colours(b: BoardWhy, engine: dict[int, Any], first_white: bool) -> None:
    """The colour rule said gives these colours, by the FIDE rules read on py4swiss's records."""
    assert b.colour is not None, "every board's colours follow from one of E.1-E.5"
    w, k = engine[b.white], engine[b.black]
    for why, rec in ((b.white_preference, w), (b.black_preference, k)):
        assert why.side == _SIDES[int(rec.color_preference.side)]
        assert why.strength == _STRENGTHS[int(rec.color_preference.strength)]
        assert why.difference == rec.color_difference
    got = {b.white: "white", b.black: "black"}
    pref = {b.white: b.white_preference, b.black: b.black_preference}
    other = b.black if b.colour.player == b.white else b.white
    rule, p = b.colour.rule, b.colour.player
    order = ["none", "mild", "strong", "absolute"]
    if rule == "both":
        assert b.white_preference.side == "white" and b.black_preference.side == "black"
    elif rule == "stronger":
        assert order.index(pref[p].strength) > order.index(pref[other].strength)
        assert got[p] == pref[p].side
    elif rule == "difference":
        assert pref[p].strength == pref[other].strength == "absolute"
        assert abs(pref[p].difference) > abs(pref[other].difference) and got[p] == pref[p].side
    elif rule == "alternate":
        pairs = list(zip(reversed(engine[p].colors), reversed(engine[other].colors), strict=False))
        last = next(x for x, y in pairs if x != y)
        assert got[p] == ("black" if last else "white")
    else:
        higher, lower = engine[p], engine[other]
        assert (higher.points_with_acceleration, -higher.number) > (lower.points_with_acceleration, -lower.number)
        if rule == "rank":
            assert pref[p].side is not None and got[p] == pref[p].side
        else:
            assert b.colour.number == higher.number
            odd_gets = "white" if first_white else "black"
            assert (got[p] == odd_gets) == (higher.number % 2 == 1)
    if rule in ("stronger", "difference", "alternate", "rank", "number"):
        assert not (pref[b.white].side == "white" and pref[b.black].side == "black"), "E.1 would have decided"


def _can_complete(players: list[int], may_meet: Any) -> bool:
    if not players:
        return True
    head, rest = players[0], players[1:]
    return any(may_meet(head, q) and _can_complete([r for r in rest if r != q], may_meet) for q in rest)


def _check_bye(bye: ByeWhy, t: Tournament, number: int, engine: dict[int, Any]) -> None:
    score = _scores(t, number)
    rnd, prior = t.rounds[number - 1], before(t, number)
    assert bye.score == score[bye.player]
    if bye.kind != "pairing":
        return
    paired = [p for g in rnd.games for p in (g.white, g.black)] + [bye.player]
    unplayed_win = {b.player for r in prior.rounds for b in r.byes if b.kind in ("pairing", "full")}
    unplayed_win |= {g.white for r in prior.rounds for g in r.games if g.result == "+-"}
    unplayed_win |= {g.black for r in prior.rounds for g in r.games if g.result == "-+"}
    assert bye.player not in unplayed_win, "the receiver had not yet scored a point without playing"
    lower = [p for p in paired if score[p] < bye.score and p not in unplayed_win]
    assert bye.lower_eligible == len(lower)
    assert bye.lower_excluded == len([p for p in paired if score[p] < bye.score and p in unplayed_win])
    assert bye.score_reason == ("completion" if lower else "lowest")

    def may_meet(a: int, b: int) -> bool:
        ea, eb = engine[a], engine[b]
        if eb.id in ea.opponents:
            return False
        sa, sb = ea.color_preference, eb.color_preference
        both_absolute = int(sa.strength) == 3 and int(sb.strength) == 3
        return not (both_absolute and sa.side == sb.side and not (ea.top_scorer or eb.top_scorer))

    if lower and len(paired) <= 14:
        for p in lower:
            assert not _can_complete([q for q in paired if q != p], may_meet)
    played = {p: sum(1 for r in prior.rounds for g in r.games if g.played and p in (g.white, g.black)) for p in paired}
    unplayed = {p: len(prior.rounds) - played[p] for p in paired}
    assert bye.unplayed == unplayed[bye.player]
    peers = [p for p in paired if score[p] == bye.score and p != bye.player and p not in unplayed_win]
    if bye.group_reason == "only":
        assert not peers
    elif bye.group_reason == "fewest_unplayed":
        assert peers and all(unplayed[bye.player] < unplayed[p] for p in peers)
    elif bye.group_reason == "rank":
        tied = [p for p in peers if unplayed[p] == unplayed[bye.player]]
        assert tied and all(unplayed[bye.player] <= unplayed[p] for p in peers)
        assert all(engine[bye.player].number > engine[p].number for p in tied)


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(min_value=3, max_value=13),
    total=st.integers(min_value=1, max_value=7),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_every_claim_of_a_swiss_round_is_true_of_the_data(n: int, total: int, seed: int) -> None:
    t, granted = _event(n, total, seed)
    for number in range(1, len(t.rounds) + 1):
        why = explain_swiss(t, number)
        score = _scores(t, number)
        engine = _engine_view(t, number, granted[number])
        in_games = [p for g in t.rounds[number - 1].games for p in (g.white, g.black)]
        met = {p.id: set() for p in t.players}
        for r in t.rounds[: number - 1]:
            for g in r.games:
                met[g.white].add(g.black)
                met[g.black].add(g.white)
        for b, g in zip(why.boards, t.rounds[number - 1].games, strict=True):
            assert (b.white, b.black) == (g.white, g.black)
            assert b.white_score == score[g.white] and b.black_score == score[g.black]
            assert b.group == max(score[g.white], score[g.black])
            if score[g.white] == score[g.black]:
                assert b.moved is None
            else:
                f = b.moved
                assert f is not None and f.high > f.low
                assert (score[f.down], score[f.up]) == (f.high, f.low) and {f.down, f.up} == {g.white, g.black}
                group = [p for p in in_games if score[p] == f.high]
                if f.reason == "odd":
                    assert len(group) % 2 == 1
                elif f.reason == "met":
                    assert all(p in met[f.down] for p in group if p != f.down)
                elif f.reason == "colours":
                    unmet = [p for p in group if p != f.down and p not in met[f.down]]
                    assert unmet and all(
                        b2.strength == "absolute" and b2.side == b.white_preference.side
                        if f.down == b.white
                        else b2.strength == "absolute" and b2.side == b.black_preference.side
                        for b2 in (explain_pref(t, number, p) for p in unmet)
                    )
            _check_colours(b, engine, t.first_white)
        assert [b.player for b in why.byes] == [b.player for b in t.rounds[number - 1].byes]
        for bye in why.byes:
            _check_bye(bye, t, number, engine)


def explain_pref(t: Tournament, number: int, pid: int) -> Any:
    from bot.tournaments.explain import colours_played, preference

    return preference(colours_played(before(t, number))[pid])


def test_an_odd_field_s_bye_goes_to_the_lowest_score_and_says_so() -> None:
    players = seed_by_rating((i, 2000 - i) for i in range(1, 6))
    t = Tournament("swiss", players, 3)
    t = t.with_round(pair_swiss(t))
    for g in t.rounds[0].games:
        t = t.record(g.white, "1-0")
    t = t.with_round(pair_swiss(t))
    why = explain_swiss(t, 2)
    (bye,) = why.byes
    assert bye.kind == "pairing" and bye.score == 0.0 and bye.score_reason == "lowest"
    assert bye.player != t.rounds[0].byes[0].player  # the first bye's receiver is not eligible again
    # 3 and 2 lost round 1; pairing 3 with the player who floats down from 1 point leaves 2 the bye
    assert (bye.player, bye.lower_excluded, bye.group_reason) == (2, 0, "rest")
    first = explain_swiss(t, 1)
    assert all(b.moved is None for b in first.boards)
    assert [b.colour.rule for b in first.boards if b.colour] == ["number", "number"]


def test_round_robin_and_bracket_say_their_table_and_seeds() -> None:
    players = seed_by_rating((i, 2000 - i) for i in range(1, 6))
    rounds = round_robin_schedule(players)
    t = Tournament("round_robin", players, len(rounds), rounds[:3])
    why = explain_round_robin(t, 3)
    assert (why.table_size, why.table_round) == (6, 3)
    assert [(w, b) for _, w, b in why.boards] == [(g.white, g.black) for g in rounds[2].games]
    assert why.rests == tuple(b.player for b in rounds[2].byes) and not why.reversed
    double = round_robin_schedule(players, double=True)
    back = explain_round_robin(Tournament("double_round_robin", players, len(double), double[:7]), 7)
    assert (back.table_round, back.reversed) == (2, True)
    assert [(w, b) for _, w, b in back.boards] == [(b, w) for _, w, b in explain_round_robin(t, 2).boards]
    bracket = single_elimination(players)
    first = [m.id for m in bracket.matches if m.a.kind == "seed" and m.b.kind == "seed"]
    for m in explain_bracket(bracket, first):
        assert m.a.kind == m.b.kind == "seed"
        assert int(m.a.ref) + int(m.b.ref) == 9  # 5 players in a bracket of 8: 1 v 8 (a bye), 4 v 5, ...
