"""Swiss by the FIDE Dutch system (py4swiss): hand-checked rounds, the TRF both ways, the engine's
absolute criteria over random events, and a 40-player, 7-round event with a drop, a no-show and a late entry."""

from __future__ import annotations

import random

import pytest
import tourney_oracle as oracle
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.tournaments import (
    Bye,
    Player,
    Round,
    Tournament,
    TournamentError,
    pair_swiss,
    parse_trf,
    seed_by_rating,
    standings,
    to_trf,
)


def _field(n: int) -> tuple[Player, ...]:
    # Player i+1 has seed i+1, so ids read as pairing numbers in the hand-checked rounds.
    return tuple(Player(i + 1, 2400 - 10 * i, i + 1) for i in range(n))


def _pairs(rnd: Round) -> list[tuple[int, int]]:
    return [(g.white, g.black) for g in rnd.games]


def test_round_one_is_top_half_against_bottom_half_with_alternating_colours() -> None:
    # C.04.3: S1 = 1..4 meets S2 = 5..8 in order; white1 gives 1 white, then boards alternate.
    rnd = pair_swiss(Tournament("swiss", _field(8), 5))
    assert _pairs(rnd) == [(1, 5), (6, 2), (3, 7), (8, 4)] and rnd.byes == ()
    rnd = pair_swiss(Tournament("swiss", _field(8), 5, first_white=False))
    assert _pairs(rnd) == [(5, 1), (2, 6), (7, 3), (4, 8)]
    # An odd field: the lowest-ranked player gets the pairing-allocated bye.
    rnd = pair_swiss(Tournament("swiss", _field(9), 5))
    assert _pairs(rnd) == [(1, 5), (6, 2), (3, 7), (8, 4)] and rnd.byes == (Bye(9, "pairing"),)


def test_round_two_by_hand_after_the_higher_seeds_all_win() -> None:
    t = Tournament("swiss", _field(8), 5)
    t = t.with_round(pair_swiss(t))
    for g in t.rounds[-1].games:
        t = t.record(g.white, "1-0" if g.white < g.black else "0-1")
    # Score 1: S1 {1,2}, S2 {3,4}. 1-3 and 2-4 would each leave a colour wish unmet (1 and 3 both had
    # white, 2 and 4 both black); C.04.3 C12 prefers the transposition 1-4, 2-3, where every wish is
    # met: 4 (had black) white against 1, 2 (had black) white against 3. Score 0 the same way: 5-8, 7-6.
    assert _pairs(pair_swiss(t)) == [(4, 1), (2, 3), (5, 8), (7, 6)]


def test_a_requested_bye_a_withdrawal_and_a_late_entry_leave_the_round_as_they_should() -> None:
    t = Tournament("swiss", _field(10), 6)
    t = oracle.play_round(t.with_round(pair_swiss(t)), random.Random(1))
    t = t.withdraw(4).join_late(11, 1000)
    assert t.player(11).joined == 2 and t.player(11).seed == 11
    assert Bye(11, "half") in t.rounds[0].byes
    rnd = pair_swiss(t, {7: "half"})
    assert Bye(7, "half") in rnd.byes
    in_games = {p for g in rnd.games for p in (g.white, g.black)}
    assert 4 not in in_games and 7 not in in_games and 11 in in_games
    # 10 - 1 withdrawn - 1 on a bye + 1 late entry = 9 to pair: four games and one pairing-allocated bye.
    assert len(in_games) == 8 and len([b for b in rnd.byes if b.kind == "pairing"]) == 1


def test_requests_the_rules_refuse() -> None:
    t = Tournament("swiss", _field(6), 3)
    with pytest.raises(TournamentError):
        pair_swiss(t, {1: "pairing"})  # only the engine gives the pairing-allocated bye
    t = t.with_round(pair_swiss(t))
    with pytest.raises(TournamentError):
        pair_swiss(t)  # round 1 has no results yet
    with pytest.raises(TournamentError):
        t.join_late(50, 1500)
    t = oracle.play_round(t, random.Random(2))
    with pytest.raises(TournamentError, match="late entries close"):
        oracle.play_round(t.with_round(pair_swiss(t)), random.Random(3)).join_late(50, 1500)


def test_the_trf_reads_back_through_py4swiss_line_for_line() -> None:
    rng = random.Random(5)
    t = Tournament("swiss", seed_by_rating((1000 + i, rng.randint(1200, 2400)) for i in range(11)), 5)
    for r in range(3):
        t = oracle.play_round(t.with_round(pair_swiss(t, {1004: "half"} if r == 1 else None)), rng)
    first = t.rounds[-1].games[0]
    t = t.withdraw(first.white)
    text = to_trf(t, {1002: "zero"}, name="Veletas open")
    parsed = parse_trf(text)  # py4swiss validates points and both sides of every game
    mine = [line for line in text.splitlines() if line.startswith("001")]
    assert [s.to_string().rstrip() for s in parsed.player_sections] == mine
    final = oracle.scores(t)
    numbers = {p.id: i + 1 for i, p in enumerate(t.seeded())}
    for section in parsed.player_sections:
        pid = int(section.name)
        assert section.starting_number == numbers[pid]
        assert section.fide_rating == t.player(pid).rating
        assert section.points_times_ten == round(final[pid] * 10)
        for r, result in enumerate(section.results[:3]):
            rnd = t.rounds[r]
            game = next((g for g in rnd.games if pid in (g.white, g.black)), None)
            if game is None:
                assert result.id == 0 and result.color.value == "-"
            else:
                assert result.id == numbers[game.black if game.white == pid else game.white]
                assert result.color.value == ("w" if game.white == pid else "b")
    by_id = {int(s.name): s for s in parsed.player_sections}
    assert [r.result.value for r in by_id[first.white].results[3:]] == ["Z"]  # withdrawn: out of round 4
    assert [r.result.value for r in by_id[1002].results[3:]] == ["Z"]
    assert [r.result.value for r in by_id[1004].results[1:2]] == ["H"]
    assert parsed.x_section.number_of_rounds == 5 and parsed.x_section.configuration.first_round_color
    assert parsed.tournament_section.tournament_name == "Veletas open"


def _check_round(t: Tournament, rnd: Round) -> None:
    """The Dutch system's absolute criteria, and the bookkeeping around them."""
    number = rnd.number
    active = {p.id for p in t.players if p.active_in(number)}
    seen = [p for g in rnd.games for p in (g.white, g.black)] + [b.player for b in rnd.byes]
    assert sorted(seen) == sorted(active)  # everyone who plays, exactly once
    played_before = {
        frozenset((g.white, g.black)) for r in t.rounds for g in r.games if g.result in ("1-0", "0-1", "1/2-1/2")
    }
    assert not [g for g in rnd.games if frozenset((g.white, g.black)) in played_before]  # C1: no rematch
    pab = [b.player for b in rnd.byes if b.kind == "pairing"]
    assert len(pab) == (len(active) - len([b for b in rnd.byes if b.kind != "pairing"])) % 2
    had_bye = {b.player for r in t.rounds for b in r.byes if b.kind == "pairing"}
    had_bye |= {g.white if g.result == "+-" else g.black for r in t.rounds for g in r.games if g.result in ("+-", "-+")}
    assert not set(pab) & had_bye  # C2: no second pairing bye or bye after a forfeit win
    colours: dict[int, list[str]] = {p: [] for p in active}
    for r in (*t.rounds, rnd):
        for g in r.games:
            if r is rnd or g.result in ("1-0", "0-1", "1/2-1/2"):
                if g.white in colours:
                    colours[g.white].append("w")
                if g.black in colours:
                    colours[g.black].append("b")
    for seq in colours.values():  # C3 (not the last round): no colour three times running, difference ≤ 2
        assert "www" not in "".join(seq) and "bbb" not in "".join(seq)
        assert abs(seq.count("w") - seq.count("b")) <= 2


@settings(max_examples=25)
@given(st.integers(min_value=2, max_value=26), st.integers(min_value=0, max_value=2**32 - 1))
def test_random_swiss_events_keep_the_absolute_criteria(n: int, seed: int) -> None:
    rng = random.Random(seed)
    rounds = max(1, min(5, (n - 1) // 2))
    t = Tournament("swiss", seed_by_rating((i + 1, rng.randint(1000, 2200)) for i in range(n)), rounds + 1)
    extra = 100
    for _ in range(rounds):
        active = [p.id for p in t.players if p.active_in(len(t.rounds) + 1)]
        byes = {}
        event = rng.random()
        if event < 0.15 and len(active) > 4:
            byes = {rng.choice(active): rng.choice(["half", "zero", "full"])}
        elif event < 0.3 and len(active) > 4:
            t = t.withdraw(rng.choice(active))
        elif event < 0.45 and len(t.rounds) <= t.total_rounds // 2:
            extra += 1
            t = t.join_late(extra, rng.randint(1000, 2200))
        try:
            rnd = pair_swiss(t, byes)  # type: ignore[arg-type]
        except TournamentError:
            assert not oracle.pairable(t, byes)  # refused only when no pairing exists at all
            break
        _check_round(t, rnd)
        t = t.with_round(rnd)
        if rnd.games and rng.random() < 0.2:
            t = t.no_show(rng.choice(rnd.games).black)
        t = oracle.play_round(t, rng)
    assert {s.player: s.points for s in standings(t)} == oracle.scores(t)


def test_a_forty_player_seven_round_swiss_with_a_drop_a_no_show_and_a_late_entry() -> None:
    rng = random.Random(40)
    t = Tournament("swiss", seed_by_rating((1000 + i, rng.randint(1100, 2300)) for i in range(40)), 7)
    dropped = no_show = opponent = None
    for number in range(1, 8):
        if number == 3:
            dropped = t.seeded()[5].id
            t = t.withdraw(dropped)  # leaves after round 2
        if number == 4:
            t = t.join_late(2000, 1900)  # before round 4 of 7: still allowed (3 ≤ 7 // 2)
        rnd = pair_swiss(t)
        _check_round(t, rnd)
        t = t.with_round(rnd)
        if number == 5:
            game = rnd.games[3]
            no_show, opponent = game.white, game.black
            t = t.no_show(no_show)
            assert t.rounds[-1].games[3].result == "-+"
        t = oracle.play_round(t, rng)
    assert dropped is not None and no_show is not None and opponent is not None
    with pytest.raises(TournamentError, match="late entries close"):
        t.join_late(2001, 1500)
    in_round = [{p for g in r.games for p in (g.white, g.black)} | {b.player for b in r.byes} for r in t.rounds]
    assert all(dropped not in players for players in in_round[2:])
    assert all(no_show not in players for players in in_round[5:])
    assert all(2000 not in players for players in in_round[:2]) and Bye(2000, "half") in t.rounds[2].byes
    assert all(2000 in players for players in in_round[3:])
    assert [len(p) for p in in_round] == [40, 40, 40, 40, 40, 39, 39]  # round 3: 39 paired and the late entry's ½ bye
    final = oracle.scores(t)
    table = standings(t)
    assert {s.player: s.points for s in table} == final
    assert [s.player for s in table][:1] == [max(final, key=lambda p: (final[p], *_tb(table, p)))]
    bh1, bh, sb = oracle.buchholz_cut1(t), oracle.buchholz(t), oracle.sonneborn_berger(t)
    for s in table:
        assert s.tiebreaks[:3] == pytest.approx((bh1[s.player], bh[s.player], sb[s.player])), s.player
    keys = [(s.points, *s.tiebreaks) for s in table]
    assert keys == sorted(keys, reverse=True)


def _tb(table: tuple[object, ...], pid: int) -> tuple[float, ...]:
    return next(s.tiebreaks for s in table if s.player == pid)  # type: ignore[attr-defined]


def test_no_shows_forfeit_and_withdraw_once() -> None:
    t = Tournament("swiss", _field(4), 3)
    t = t.with_round(pair_swiss(t))
    white, black = t.rounds[-1].games[0].white, t.rounds[-1].games[0].black
    t = t.no_show(black)
    assert t.rounds[-1].games[0].result == "+-" and t.player(black).left == 2
    t = t.no_show(black)  # said twice: nothing changes
    assert t.rounds[-1].games[0].result == "+-" and t.player(black).left == 2
    t = t.no_show(white)  # neither came
    assert t.rounds[-1].games[0].result == "--" and t.player(white).left == 2
    with pytest.raises(TournamentError):
        t.withdraw(white)
    with pytest.raises(TournamentError):
        t.record(99, "1-0")
    with pytest.raises(TournamentError):
        t.record(white, "2-0")  # type: ignore[arg-type]


def test_the_benchmark_breakdown_times_the_engine_steps_and_leaves_pairing_untouched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `python -m benchmarks.bench_tournaments --breakdown N` reports where pairing spends its time by
    # wrapping the engine's steps (py4swiss's and bot/tournaments/dutch.py's) for the length of one
    # measurement: the round must be the one the unwrapped engine gives, every wrapper must be gone
    # afterwards, and the steps must add up.
    import importlib
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))  # the repository, home of benchmarks/
    bench = importlib.import_module("benchmarks.bench_tournaments")

    def current() -> list[object]:
        found = []
        for module, cls, method, _ in bench._STEPS:
            owner = importlib.import_module(module)
            found.append((getattr(owner, cls) if cls else owner).__dict__[method])
        return found

    before = current()
    t = bench.field(40, 2, 9)
    rnd, total, steps = bench.breakdown(40, 2)
    assert current() == before
    assert rnd == pair_swiss(t)
    by_what = {s.what: s for s in steps}
    for what in (
        "bracket graph: set-up, one weight per profile pair",
        "bracket graph: weights (py4swiss)",
        "bracket: blossom re-matching (py4swiss, C++)",
        "completion checks: augmenting paths",
    ):
        assert by_what[what].calls > 0 and by_what[what].seconds > 0, what
    assert by_what["round 1: S1 against S2, directly"].calls == 0  # round 3 is paired by the engine
    assert by_what["TRF read back (py4swiss parser)"].calls == 1
    assert 0 < sum(s.seconds for s in steps) <= total + 1e-3
    assert pair_swiss(t) == rnd  # and still after the wrappers are gone
    _, _, first = bench.breakdown(40, 0)
    assert {s.what: s.calls for s in first}["round 1: S1 against S2, directly"] == 1


def test_the_exported_trf_carries_display_names_cut_to_the_name_field_and_the_engine_input_keeps_ids() -> None:
    rng = random.Random(8)
    t = Tournament("swiss", seed_by_rating((1000 + i, 1500 + i) for i in range(4)), 3)
    t = oracle.play_round(t.with_round(pair_swiss(t)), rng)
    long = "Wolfgang Amadeus Mozart von Salzburg und Wien"  # 45 characters
    names = {1000: "Zoë Ñúñez 山田", 1001: long, 1002: "two\nlines\tand\x00more"}  # 1003: none, the id stays
    text = to_trf(t, name="Open", names=names)
    parsed = parse_trf(text)
    by_number = {s.starting_number: s.name for s in parsed.player_sections}
    numbers = {p.id: i + 1 for i, p in enumerate(t.seeded())}
    assert by_number[numbers[1000]] == "Zoë Ñúñez 山田"
    assert by_number[numbers[1001]] == long[:33].rstrip()
    assert by_number[numbers[1002]] == "two lines and more"
    assert by_number[numbers[1003]] == "1003"
    for line in text.splitlines():
        if line.startswith("001"):
            assert line[48:52].strip().isdigit()  # the rating still starts at column 49: the name field is 33 wide
    # What the pairing engine is fed is unchanged: names only in the export.
    assert to_trf(t) == to_trf(t, names=None)
    assert all(s.name.isdigit() for s in parse_trf(to_trf(t)).player_sections)
