"""bot.tournaments.dutch against py4swiss 0.3.1's own pieces run the same way (``fide2025.py4swiss_pairings``: its
bracket pairer and completion check, with the player records, quality criteria and brackets of the 2025 rules): the
same pairs, colours, board order and refusals; past round 1,
the very same calls into py4swiss's C++ bracket matching computer (every edge weight, in order) and the same answer
to every completion check; and the completion check itself on random graphs."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import takewhile
from typing import Any

import py4swiss.engines.dutch.bracket.bracket_matcher as bracket_matcher_module
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from py4swiss.engines.common import PairingError
from py4swiss.engines.dutch.bracket import BracketPairer, Brackets
from py4swiss.engines.dutch.validity_matcher import ValidityMatcher

from bot.tournaments import (
    Bye,
    ByeKind,
    Round,
    Tournament,
    TournamentError,
    dutch,
    fide2025,
    pair_swiss,
    seed_by_rating,
)
from bot.tournaments.swiss import parse_trf, to_trf

Outcome = list[tuple[int, int]] | str


@pytest.fixture(autouse=True)
def _engine_as_the_2025_rules_amend_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """py4swiss's bracket matcher weighs pairs by ``fide2025.QUALITY_CRITERIA``, as the bot's driver does."""
    monkeypatch.setattr(bracket_matcher_module, "QUALITY_CRITERIA", fide2025.QUALITY_CRITERIA)


def _outcome(engine: Any, text: str) -> Outcome:
    """(white, black) starting numbers in board order (black 0: the pairing-allocated bye), or the refusal."""
    try:
        return [(p.white, p.black) for p in engine(parse_trf(text))]
    except PairingError as exc:
        return f"refused: {exc}"


class _Recording:
    """One of py4swiss's C++ matching computers, with every call and answer written to a shared log."""

    def __init__(self, real: Any, log: list[tuple[Any, ...]]) -> None:
        self._real, self._log = real, log

    def add_vertex(self) -> None:
        self._log.append(("add_vertex",))
        self._real.add_vertex()

    def set_edge_weight(self, u: int, v: int, weight: Any) -> None:
        self._log.append(("set", u, v, str(weight)))
        self._real.set_edge_weight(u, v, weight)

    def compute_matching(self) -> None:
        self._log.append(("compute",))
        self._real.compute_matching()

    def get_matching(self) -> list[int]:
        matching: list[int] = self._real.get_matching()
        self._log.append(("matching", tuple(matching)))
        return matching

    def size(self) -> int:
        return int(self._real.size())


@contextmanager
def _recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Any, ...]]]:
    """Log every call into py4swiss's bracket matching computer, and every answer of the completion check.

    Its patches are undone on leaving, and only its own (the test's other patches stay)."""
    with pytest.MonkeyPatch.context() as own:
        yield from _recording(own)


def _recording(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Any, ...]]]:
    log: list[tuple[Any, ...]] = []
    real_cls = bracket_matcher_module.ComputerDutchOptimality

    def make(size: int, weight: Any) -> _Recording:
        log.append(("new", size, str(weight)))
        return _Recording(real_cls(size, weight), log)

    monkeypatch.setattr(bracket_matcher_module, "ComputerDutchOptimality", make)
    depth = [0]
    for cls in (ValidityMatcher, dutch.FastValidityMatcher):
        check = cls.__dict__["is_valid_matching"]

        def logged(self: Any, check: Any = check) -> bool:
            depth[0] += 1
            try:
                answer = bool(check(self))
            finally:
                depth[0] -= 1
            if depth[0] == 0:  # the fast check may ask py4swiss's own: log the answer the engine gets, once
                log.append(("completion possible", answer))
            return answer

        monkeypatch.setattr(cls, "is_valid_matching", logged)
    yield log


def _compare(text: str, monkeypatch: pytest.MonkeyPatch, calls: bool) -> Outcome:
    """Pair ``text`` both ways; the outcomes (and, if ``calls``, the computers' call logs) must be identical."""
    if not calls:
        mine = _outcome(dutch.pair, text)
        assert mine == _outcome(fide2025.py4swiss_pairings, text)
        return mine
    with _recorded(monkeypatch) as theirs_log:
        theirs = _outcome(fide2025.py4swiss_pairings, text)
    with _recorded(monkeypatch) as mine_log:
        mine = _outcome(dutch.pair, text)
    assert mine == theirs
    # Checked before any bracket: the last completion check before the first bracket's computer is the engine's own
    # (the ones before it, if any, chose who may get the bye).
    checks = list(takewhile(lambda entry: entry[0] != "new", theirs_log))
    assert checks[-1] == ("completion possible", not isinstance(theirs, str))
    assert mine_log == theirs_log
    return mine


def _result(rng: random.Random) -> str:
    x = rng.random()
    if x < 0.06:
        return rng.choice(["+-", "-+", "--"])  # forfeits: not played (no C1), a forfeit win bars the bye (C2)
    return "1/2-1/2" if x < 0.3 else ("1-0" if x < 0.65 else "0-1")


def _run(n: int, total: int, seed: int, first_white: bool, monkeypatch: pytest.MonkeyPatch, calls: bool = True) -> int:
    """A random Swiss (byes on request, withdrawals, late entries, no-shows, forfeits), every round paired
    both ways and compared. Returns how many rounds were compared."""
    rng = random.Random(seed)
    t = Tournament("swiss", seed_by_rating((i + 1, rng.randint(1000, 2400)) for i in range(n)), total, (), first_white)
    extra = 1000
    compared = 0
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
            for _ in range(rng.randint(1, 3)):
                extra += 1
                t = t.join_late(extra, rng.randint(1000, 2400))
        playing = [p for p in t.players if p.active_in(number) and p.id not in byes]
        if len(playing) < 2:
            break  # swiss.py answers 0 or 1 players itself, without an engine
        outcome = _compare(to_trf(t, byes), monkeypatch, calls and number > 1)
        compared += 1
        try:
            rnd = pair_swiss(t, byes)
        except TournamentError:
            assert isinstance(outcome, str)  # the engine refused, and so did pair_swiss
            break
        assert isinstance(outcome, list) and len(rnd.games) == len([o for o in outcome if o[1]])
        t = t.with_round(rnd)
        for g in rnd.games:
            t = t.record(g.white, _result(rng))  # type: ignore[arg-type]
        if rnd.games and rng.random() < 0.15:
            t = t.no_show(rng.choice(rnd.games).white)
    return compared


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    n=st.integers(min_value=4, max_value=36),
    total=st.integers(min_value=1, max_value=9),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    first_white=st.booleans(),
)
def test_random_tournaments_pair_exactly_as_py4swiss_does(
    n: int, total: int, seed: int, first_white: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _run(n, total, seed, first_white, monkeypatch) >= 1


def test_small_fields_run_out_of_pairings_and_both_refuse_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    # Four players, six rounds: after three rounds everyone has met everyone, so round 4 cannot be paired.
    refusals = 0
    for seed in range(12):
        rng = random.Random(seed)
        t = Tournament("swiss", seed_by_rating((i + 1, rng.randint(1000, 2400)) for i in range(4)), 6)
        for _ in range(6):
            outcome = _compare(to_trf(t), monkeypatch, calls=bool(t.rounds))
            if isinstance(outcome, str):
                refusals += 1
                with pytest.raises(TournamentError, match="cannot be paired"):
                    pair_swiss(t)
                break
            t = t.with_round(pair_swiss(t))
            for g in t.rounds[-1].games:
                t = t.record(g.white, "1-0" if rng.random() < 0.5 else "0-1")
    assert refusals == 12


@pytest.mark.slow
def test_a_hundred_player_five_round_swiss_makes_the_same_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    # Big score groups, several brackets, MDPs and exchanges; every C++ call compared from round 2 on.
    assert _run(100, 5, 7, True, monkeypatch) == 5


@pytest.mark.slow
@pytest.mark.parametrize("first_white", [True, False])
def test_round_one_is_paired_as_py4swiss_pairs_it_for_every_field_size(
    first_white: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes = [*range(2, 41), 61, 100, 127]
    for n in sizes:
        rng = random.Random(n)
        t = Tournament("swiss", seed_by_rating((i + 1, rng.randint(1000, 2400)) for i in range(n)), 7, (), first_white)
        outcome = _compare(to_trf(t), monkeypatch, calls=False)
        assert isinstance(outcome, list) and len(outcome) == (n + 1) // 2
        # Round 1 takes the direct route: no matching computer is made at all.
        with _recorded(monkeypatch) as log:
            dutch.pair(parse_trf(to_trf(t)))
        assert log == []


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    n=st.integers(min_value=3, max_value=60),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    first_white=st.booleans(),
)
def test_round_one_with_byes_on_request_is_paired_as_py4swiss_pairs_it(
    n: int, seed: int, first_white: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    t = Tournament("swiss", seed_by_rating((i + 1, rng.randint(1000, 2400)) for i in range(n)), 5, (), first_white)
    byes: dict[int, ByeKind] = {p.id: rng.choice(["half", "full", "zero"]) for p in t.players if rng.random() < 0.2}
    if n - len(byes) >= 2:
        _compare(to_trf(t, byes), monkeypatch, calls=False)


def test_the_bracket_pairer_is_py4swiss_s_with_only_the_matcher_changed() -> None:
    rng = random.Random(3)
    t = Tournament("swiss", seed_by_rating((i + 1, rng.randint(1000, 2400)) for i in range(12)), 5)
    t = t.with_round(pair_swiss(t))
    for g in t.rounds[-1].games:
        t = t.record(g.white, "1-0")
    trf = parse_trf(to_trf(t))
    players = sorted(fide2025.players_2025(trf), reverse=True)

    def fields(cls: type[BracketPairer], matcher: type[ValidityMatcher]) -> dict[str, Any]:
        brackets = Brackets(players, 2)
        return dict(vars(cls(brackets.get_current_bracket(), matcher(players, set()), True)))

    theirs = fields(BracketPairer, ValidityMatcher)
    mine = fields(dutch.FastBracketPairer, dutch.FastValidityMatcher)
    assert mine.keys() == theirs.keys()
    assert type(mine.pop("_bracket_matcher")) is dutch.FastBracketMatcher
    their_matcher = theirs.pop("_bracket_matcher")
    assert type(mine.pop("_validity_matcher")) is dutch.FastValidityMatcher
    theirs.pop("_validity_matcher")
    assert mine == theirs
    assert their_matcher.matching  # py4swiss matched the bracket on construction, as the fast one does


def test_swiss_rounds_carry_the_engine_s_pairs_in_board_order() -> None:
    # pair_swiss maps starting numbers back to players: the first board is the top pair, colours kept.
    rng = random.Random(11)
    t = Tournament("swiss", seed_by_rating((100 + i, rng.randint(1000, 2400)) for i in range(9)), 4)
    rnd = pair_swiss(t)
    numbers = {p.id: i + 1 for i, p in enumerate(t.seeded())}
    expected = [(p.white, p.black) for p in fide2025.py4swiss_pairings(parse_trf(to_trf(t)))]
    got = [(numbers[g.white], numbers[g.black]) for g in rnd.games] + [
        (numbers[b.player], 0) for b in rnd.byes if b.kind == "pairing"
    ]
    assert got == expected and rnd == Round(1, rnd.games, (Bye(rnd.byes[0].player, "pairing"),))


def _players_after(n: int, rounds: int, seed: int) -> list[Any]:
    """py4swiss's player records of a random ``n``-player Swiss after ``rounds`` rounds, ranked."""
    rng = random.Random(seed)
    t = Tournament("swiss", seed_by_rating((i + 1, rng.randint(1000, 2400)) for i in range(n)), rounds + 1)
    for _ in range(rounds):
        try:
            t = t.with_round(pair_swiss(t))
        except TournamentError:
            break
        for g in t.rounds[-1].games:
            t = t.record(g.white, _result(rng))  # type: ignore[arg-type]
    return sorted(fide2025.players_2025(parse_trf(to_trf(t))), reverse=True)


@settings(max_examples=120, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=24),
    rounds=st.integers(min_value=0, max_value=6),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_the_completion_check_answers_as_py4swiss_s_after_any_finalized_pairs(n: int, rounds: int, seed: int) -> None:
    # The fast check keeps the graph as a rule and proves "yes" by a perfect matching; it must agree with
    # py4swiss's ValidityMatcher (same players, same pairs finalized in the same order) at every step,
    # including pairs that may not meet and players finalized twice.
    players = _players_after(n, rounds, seed)
    rng = random.Random(seed ^ 0x5EED)
    theirs = ValidityMatcher(players, set())
    mine = dutch.FastValidityMatcher(players, set())
    assert mine.is_valid_matching() == theirs.is_valid_matching()
    for _ in range(rng.randint(0, n)):
        a, b = rng.sample(players, 2) if len(players) > 1 else (players[0], players[0])
        theirs.finalize_match(a, b)
        mine.finalize_match(a, b)
        for p, q in rng.sample([(p, q) for p in players for q in players if p != q], min(3, n * (n - 1))):
            assert mine.is_allowed_pair(p, q) == theirs.is_allowed_pair(p, q)
        assert mine.is_valid_matching() == theirs.is_valid_matching()


def test_the_completion_check_says_yes_and_no_like_py4swiss_and_mostly_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = [0]
    real_init = ValidityMatcher.__init__

    def counting(self: Any, *args: Any) -> None:
        asked[0] += 1
        real_init(self, *args)

    answers: dict[bool, int] = {True: 0, False: 0}
    for seed in range(40):
        players = _players_after(6 + seed % 10, 4, seed)
        rng = random.Random(seed)
        theirs = ValidityMatcher(players, set())
        monkeypatch.setattr(ValidityMatcher, "__init__", counting)
        mine = dutch.FastValidityMatcher(players, set())
        for _ in range(len(players) // 2):
            open_ = [p for p in players if all(p not in pair for pair in mine._finalized)]
            if len(open_) < 2:
                break
            a = open_[0]
            b = rng.choice([q for q in open_[1:] if mine.is_allowed_pair(a, q)] or open_[1:])
            theirs.finalize_match(a, b)
            mine.finalize_match(a, b)
            answer = mine.is_valid_matching()
            assert answer == theirs.is_valid_matching()
            answers[answer] += 1
        monkeypatch.undo()
    assert answers[True] > 50 and answers[False] > 5
    # A "no" is always py4swiss's own answer; a "yes" mostly comes with a perfect matching found here.
    assert answers[False] <= asked[0] < answers[False] + answers[True] // 4


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    n=st.integers(min_value=4, max_value=30),
    rounds=st.integers(min_value=1, max_value=4),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_the_bracket_graph_edits_as_py4swiss_s_in_any_order(
    n: int, rounds: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Any sequence of the matcher's edits, not only the pairer's: weights raised and lowered, edges removed,
    # pairs finalized (and a finalized pair's edge removed after, which zeroes py4swiss's shared maximum weight
    # in place), a weight lowered to zero, matchings asked for. The calls into the computer, the stored weights
    # and the matchings must be py4swiss's throughout.
    players = _players_after(n, rounds, seed)
    bracket = Brackets(players, rounds + 1).get_current_bracket()
    members = bracket.mdp_list + bracket.resident_list + bracket.lower_list
    if len(members) < 2:
        return
    rng = random.Random(seed)
    with _recorded(monkeypatch) as theirs_log:
        theirs = bracket_matcher_module.BracketMatcher(bracket, ValidityMatcher(players, set()))
    with _recorded(monkeypatch) as mine_log:
        mine = dutch.FastBracketMatcher(bracket, ValidityMatcher(players, set()))
    finalized: list[tuple[Any, Any]] = []
    for _ in range(rng.randint(1, 12)):
        step = rng.choice(["add", "increment", "remove", "finalize", "unfinalize", "drain", "match"])
        a = rng.choice(members)
        others = rng.sample(members, rng.randint(0, len(members)))
        value = rng.choice([-6, -1, 1, 2, len(members)])
        b = others[0] if others else members[-1]
        # "drain": lower a weight by all it holds, so that an edge becomes none by subtraction
        drain = -int(str(theirs._weights[members.index(a)][members.index(b)]), 2)
        for matcher, log in ((theirs, theirs_log), (mine, mine_log)):
            with _recorded(monkeypatch) as calls:
                matcher._computer = _Recording(matcher._computer, calls)
                if step == "add":
                    matcher.add_to_weights(a, others, value)
                elif step == "increment":
                    matcher.add_to_weights(a, others, 0, increment=True)
                elif step == "remove":
                    matcher.remove_weights(a, others)
                elif step == "finalize":
                    matcher.finalize_match(a, b)
                elif step == "drain" and 0 < -drain < 2**63:  # what py4swiss can subtract
                    matcher.add_to_weights(a, [b], drain)
                elif step == "unfinalize" and finalized:
                    matcher.remove_weight(*finalized[-1])
                elif step == "match":
                    matcher.update_matching()
                matcher._computer = matcher._computer._real
            log.extend(calls)
        if step == "finalize":
            finalized.append((a, b))
        assert mine_log == theirs_log
        assert [[str(w) for w in row] for row in mine._weights] == [[str(w) for w in row] for row in theirs._weights]
        assert str(mine._max_weight) == str(theirs._max_weight)
    mine.update_matching()
    theirs.update_matching()
    assert {p.id: mine.matching[p].id for p in members} == {p.id: theirs.matching[p].id for p in members}
