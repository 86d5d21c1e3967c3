"""py4swiss's FIDE Dutch engine, driven so that a 500-player round pairs in about a second, with the same result.

``pair(trf)`` returns exactly what ``py4swiss.engines.DutchEngine.generate_pairings(trf)`` returns (the same
pairs, colours and board order, or the same ``PairingError``). It runs py4swiss 0.3.1's own engine: its
player records, score brackets, bracket pairer (every D.1-D.3 step), colour rules (E.1-E.5), board order,
and its C++ blossom matching computers, fed the same weights through the same calls in the same order.
What it replaces, and why the result cannot change:

1. **Building a bracket's graph** (``BracketMatcher._set_up_computer``, which calls ``_get_weight`` for every
   pair of the bracket: 124,750 pairs in a 500-player round, each building its weight out of fifteen criteria
   in multi-word ``DynamicUint`` arithmetic; more than half of the CPU time). A pair's weight is a function of
   the bracket and of a few fields of each player -- role, score, colour preference (side and strength),
   colour difference, two same colours running, the floats of the last two rounds, bye received,
   topscorer -- provided the two may meet at all (C1: not met before, C3, no forbidden pair). So the weight of
   each ordered pair of such *profiles* is computed once, by py4swiss's own ``_get_weight`` on the first pair
   of players that has them, and every pair with the same two profiles gets a copy of it. Each edge is still
   handed to the C++ computer one by one, in py4swiss's order, so its state is the one py4swiss builds.
   ``tests/tournaments/test_swiss.py`` checks every weight of every bracket against ``_get_weight``.

2. **Building the completion graph** (``ValidityMatcher._set_up_computer``): the same 0/1 edges through the
   same calls, the C3 part of the check looked up per pair of profiles instead of recomputed.

3. **Round 1** (no player to be paired has played, so nobody has a score, colour, float, opponent or bye;
   no accelerations, no forbidden pairs): every pair weighs the same, no exchange can improve on the
   original S1/S2 split (D.2), and the transpositions (D.1) give S1's i-th player S2's i-th player; in an
   odd field the last player is left over for the pairing-allocated bye (C.2 allows anyone: nobody had one).
   py4swiss reaches this after ~250 incremental blossom runs over the 500-vertex graph (about 5 s); here the
   pairs are taken directly, and py4swiss's colour rules and board order finish the round as they do there.
   The property tests in ``tests/tournaments/test_swiss.py`` compare this with the unmodified engine on
   fields of every size from 2 to 120 and with byes, so a wrong claim shows as a failing test.

Everything else -- the D.x weight edits and the incremental re-matchings of rounds 2 and later -- is
py4swiss's code running unchanged. The module depends on py4swiss internals, which is why py4swiss is pinned
(pyproject.toml); the tests fail if a new release changes what they rely on.
"""

from __future__ import annotations

from typing import Any

from py4swiss.dynamicuint import DynamicUint
from py4swiss.engines import DutchEngine
from py4swiss.engines.common import ColorPreferenceStrength, Pairing, PairingError
from py4swiss.engines.dutch.bracket import Bracket, BracketPairer, Brackets
from py4swiss.engines.dutch.bracket.bracket_matcher import BracketMatcher
from py4swiss.engines.dutch.criteria.absolute import C2
from py4swiss.engines.dutch.player import Player, get_player_infos_from_trf
from py4swiss.engines.dutch.validity_matcher import ValidityMatcher
from py4swiss.trf import ParsedTrf

_ABSOLUTE = ColorPreferenceStrength.ABSOLUTE

Profile = tuple[Any, ...]


def profile(player: Player) -> Profile:
    """Every field of a player that a pair's weight, or C3, reads (besides the bracket and the player's id)."""
    pref = player.color_preference
    return (
        player.role,
        player.points_with_acceleration,
        pref.side,
        pref.strength,
        player.color_difference,
        player.color_double,
        player.float_1,
        player.float_2,
        player.bye_received,
        player.top_scorer,
    )


def _c3_tag(player: Player) -> object:
    """What C3 looks at: a non-topscorer's absolute colour preference side, else ``None`` (meets anyone)."""
    pref = player.color_preference
    return pref.side if pref.strength == _ABSOLUTE and not player.top_scorer else None


# C3 forbids a pair exactly when both tags are the same side (a tag is a side, or None for "no objection"):
# py4swiss's C3.evaluate(p1, p2) is `topscorer or sides differ or either preference is not absolute`.


class FastValidityMatcher(ValidityMatcher):  # type: ignore[misc]  # py4swiss ships no type information
    """py4swiss's completion graph: the same vertices and 0/1 edges through the same calls, in a tighter loop."""

    def _set_up_computer(self) -> None:
        computer = self._computer
        players = self._players
        n = len(players)
        for _ in range(self._len):
            computer.add_vertex()
        ids = [p.id for p in players]
        opponents = [p.opponents for p in players]
        tags = [_c3_tag(p) for p in players]
        forbidden = self._forbidden_pairs
        set_edge = computer.set_edge_weight
        for i in range(n):
            id1, tag1 = ids[i], tags[i]
            for j in range(i + 1, n):
                # is_allowed_pair: not a forbidden pair, C1 (not met before), C3.
                allowed = not (
                    (forbidden and ((id1, ids[j]) in forbidden or (ids[j], id1) in forbidden))
                    or id1 in opponents[j]
                    or (tag1 is not None and tag1 == tags[j])
                )
                set_edge(i, j, int(allowed))
        if n % 2 == 1:
            for i, player in enumerate(players):
                set_edge(i, n, int(C2.evaluate(player, player)))

    def finalize_match(self, player_1: Player, player_2: Player) -> None:
        """ValidityMatcher.finalize_match: the same calls, in the same order."""
        i = self._index_dict[player_1]
        j = self._index_dict[player_2]
        set_edge = self._computer.set_edge_weight
        for k in range(self._len):
            set_edge(i, k, 0)
            set_edge(j, k, 0)
        set_edge(i, j, 1)


class FastBracketMatcher(BracketMatcher):  # type: ignore[misc]  # py4swiss ships no type information
    """py4swiss's bracket graph, each pair's weight computed once per pair of player profiles."""

    def _set_up_computer(self) -> None:
        computer = self._computer
        players = self._player_list
        n = len(players)
        for _ in range(n):
            computer.add_vertex()
        zero = self._zero_weight
        # Players with the same profile get numbered alike; the roles were set for this bracket already.
        numbered: dict[Profile, int] = {}
        kinds = [numbered.setdefault(profile(p), len(numbered)) for p in players]
        known: list[list[DynamicUint | None]] = [[None] * len(numbered) for _ in numbered]
        ids = [p.id for p in players]
        opponents = [p.opponents for p in players]
        tags = [_c3_tag(p) for p in players]
        forbidden = self._validity_matcher._forbidden_pairs
        weights = self._weights
        set_edge = computer.set_edge_weight
        get_weight = super()._get_weight
        for i in range(n):
            id1, tag1, row, cached = ids[i], tags[i], weights[i], known[kinds[i]]
            for j in range(i + 1, n):
                if (
                    (forbidden and ((id1, ids[j]) in forbidden or (ids[j], id1) in forbidden))
                    or id1 in opponents[j]
                    or (tag1 is not None and tag1 == tags[j])
                ):
                    # Not allowed to meet: py4swiss's zero weight. A zero weight is never edited in place
                    # (_remove_weight and add_to_weight leave zero weights alone), so one object serves all.
                    weight = zero
                else:
                    same = cached[kinds[j]]
                    if same is None:
                        same = cached[kinds[j]] = get_weight(players[i], players[j])
                    # A fresh copy per edge, as py4swiss makes: _remove_weight later edits a stored weight in place.
                    weight = DynamicUint(same)
                row[j] = weight
                weights[j][i] = weight
                set_edge(i, j, weight)

    def finalize_match(self, player_1: Player, player_2: Player) -> None:
        """BracketMatcher.finalize_match: the same removals and calls, in the same order."""
        i, j = self._index_dict[player_1], self._index_dict[player_2]
        weights = self._weights
        row_i, row_j = weights[i], weights[j]
        set_edge = self._computer.set_edge_weight
        for k in range(self._len):
            weight = row_i[k]
            if weight:
                weight &= 0
                set_edge(i, k, weight)
            weight = row_j[k]
            if weight:
                weight &= 0
                set_edge(j, k, weight)
        self._set_weight(i, j, self._max_weight)


class FastBracketPairer(BracketPairer):  # type: ignore[misc]  # py4swiss ships no type information
    """py4swiss's bracket pairer (all of its D.1-D.3 steps) on a ``FastBracketMatcher``."""

    def __init__(self, state: Bracket, validity_matcher: ValidityMatcher, initial_color: bool) -> None:
        # The fields BracketPairer.__init__ sets, with the quicker matcher; a test compares the two field by field.
        self._bracket = state
        self._validity_matcher = validity_matcher
        self._initial_color = initial_color
        self._num = len(state.mdp_list) + len(state.resident_list) + len(state.lower_list)
        self._bracket_matcher = FastBracketMatcher(state, validity_matcher)
        self._heterogeneous_s1: list[Player] = []
        self._heterogeneous_s2: list[Player] = []
        self._homogeneous_s1: list[Player] = []
        self._homogeneous_s2: list[Player] = []
        self._exchanges = 0


def _first_round(players: list[Player], initial_color: bool) -> list[tuple[Player, Player]]:
    """Round 1's pairs, ranked players in: S1's i-th against S2's i-th, the odd one out left for the bye."""
    half = len(players) // 2
    pairs = [FastBracketPairer._get_player_pair(players[i], players[half + i], initial_color) for i in range(half)]
    if len(players) % 2:
        pairs.append((players[-1], players[-1]))
    return pairs


def _is_first_round(trf: ParsedTrf, round_number: int, players: list[Player]) -> bool:
    return (
        round_number == 1
        and len(players) >= 2
        and not trf.x_section.forbidden_pairs
        and not any(trf.x_section.accelerations.values())
    )


def pair(trf: ParsedTrf) -> list[Pairing]:
    """The next round of ``trf`` by the Dutch system: ``DutchEngine.generate_pairings(trf)``, sooner."""
    round_number = min(len(section.results) for section in trf.player_sections) + 1
    initial_color = trf.x_section.configuration.first_round_color
    players = get_player_infos_from_trf(trf)
    players.sort(reverse=True)

    if _is_first_round(trf, round_number, players):
        player_pairs = _first_round(players, initial_color)
    else:
        validity_matcher = FastValidityMatcher(players, trf.x_section.forbidden_pairs)
        brackets = Brackets(players, round_number)
        if not validity_matcher.is_valid_matching():
            raise PairingError("Round can not be paired")
        player_pairs = []
        while not brackets.is_finished():
            pairer = FastBracketPairer(brackets.get_current_bracket(), validity_matcher, initial_color)
            bracket_pairs = DutchEngine._get_bracket_pairs(pairer)
            if bracket_pairs is None:
                brackets.collapse()
            else:
                brackets.apply_bracket_pairings(bracket_pairs)
                player_pairs.extend(bracket_pairs)

    player_pairs.sort(key=DutchEngine._get_player_pair_score, reverse=True)
    return [DutchEngine._get_pairing(pair) for pair in player_pairs]
