"""py4swiss's FIDE Dutch engine, amended to the 2025 rules and driven so that 500 players pair in under two seconds.

py4swiss 0.3.1 implements the Dutch system as it stood before 1 July 2025. What changed reaches its engine through
``bot.tournaments.fide2025``: the player records it is given (``players_2025``: who may get the pairing-allocated
bye, which unplayed rounds count as floats, the pairing numbers that decide colours), the quality criteria it
weighs pairs by (``QUALITY_CRITERIA``, with the 2025 C7 and C9) and the way brackets follow one another
(``pair_brackets``: no collapsed last scoregroup; a bracket whose best pairing would leave the round incomplete is
paired again with every remaining player in view). ``pair(trf)`` returns exactly what
``fide2025.py4swiss_pairings(trf)`` returns -- py4swiss's own bracket pairer and completion check run that way (the
same pairs, colours and board order, or the same ``PairingError``). It runs py4swiss 0.3.1's own engine: its
player records, score brackets, bracket pairer (every D.1-D.3 step), colour rules (E.1-E.5), board order,
and its C++ blossom matching computer for the brackets, fed the same weights through the same calls in the
same order -- so no question of ties between equally good matchings arises: the computer that breaks them is
py4swiss's, in the state py4swiss puts it in. What this module replaces, and why the result cannot change:

1. **Building a bracket's graph** (``BracketMatcher._set_up_computer``, which calls ``_get_weight`` for every
   pair of the bracket: 124,750 pairs in a 500-player round, each building its weight out of fifteen criteria
   in multi-word ``DynamicUint`` arithmetic; more than half of py4swiss's time). A pair's weight is a function
   of the bracket and of a few fields of each player -- role, score, colour preference (side and strength),
   whether the colour difference is beyond ±1, two same colours running, the floats of the last two rounds,
   bye received, topscorer -- provided the two may meet at all (C1: not met before, C3, no forbidden pair).
   So the weight of each ordered pair of such *profiles* is computed once, by py4swiss's own ``_get_weight``
   on the first two players that have them, and every pair with the same two profiles shares it.
   Each edge is still handed to the C++ computer one by one, in py4swiss's order.

2. **The bracket graph's later edits** (``add_to_weights``, ``remove_weights``, ``finalize_match``,
   ``update_matching``): py4swiss's steps, the same values and the same calls, in tighter loops. Whether a stored
   weight is an edge (not zero) -- which py4swiss asks the weight before every edit, at the cost of a call into
   C++ -- is kept beside it as a plain flag; removed edges get py4swiss's zero weight stored instead of being
   zeroed in place, so edges with the same weight can share one object (see ``FastBracketMatcher``).

3. **The completion check** (``ValidityMatcher``, C.04.3 A.9: can the rest of the round still be paired?).
   py4swiss reads nothing of that computer but one yes or no -- whether its graph has a perfect matching --
   so any exact method gives the same answer. A yes is proved here by a perfect matching, repaired from the
   previous check's by augmenting paths; a no, or a case the search cannot settle, is left to py4swiss's own
   ``ValidityMatcher``, built afresh with the same pairs finalized in the same order.

4. **Round 1** (no player to be paired has played, so nobody has a score, colour, float, opponent or bye;
   no accelerations, no forbidden pairs): every pair weighs the same, so no exchange improves on the original
   S1/S2 split (D.2) and the transpositions (D.1) give S1's i-th player S2's i-th player; in an odd field the
   last player is left over for the pairing-allocated bye (C2 allows anyone: nobody had one). py4swiss gets
   there after ~250 incremental blossom runs over the 500-vertex graph (about 5 s of C++); here the pairs are
   taken directly, and py4swiss's colour rules and board order finish the round as they do there.

``tests/tournaments/test_swiss_fast.py`` holds the proof obligations to the letter: on random events (byes,
withdrawals, late entries, no-shows, forfeits, fields that run out of pairings) the outcome is py4swiss's,
every call into the bracket computer (each edge weight, in order) and every completion answer is the one
py4swiss makes; the completion check agrees with py4swiss's after any sequence of finalized pairs; and
round 1 is py4swiss's for every field from 2 to 40 players and for 61, 100 and 127, in both first colours,
and with byes on request. ``python -m benchmarks.bench_tournaments`` checks it again on 100, 200 and 500
players. The module relies on py4swiss internals, which is one more reason py4swiss is pinned.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from itertools import repeat
from typing import Any, cast

from py4swiss.dynamicuint import DynamicUint
from py4swiss.engines import DutchEngine
from py4swiss.engines.common import ColorPreferenceStrength, Pairing
from py4swiss.engines.dutch.bracket import Bracket, BracketPairer
from py4swiss.engines.dutch.bracket.bracket_matcher import BracketMatcher
from py4swiss.engines.dutch.criteria.absolute import C2
from py4swiss.engines.dutch.player import Player
from py4swiss.engines.dutch.validity_matcher import ValidityMatcher
from py4swiss.trf import ParsedTrf

from bot.tournaments import fide2025

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
        abs(player.color_difference) > 1,  # C8 asks only this of the colour difference
        player.color_double,
        player.float_1,
        player.float_2,
        player.bye_received,
        player.top_scorer,
        getattr(player, "bye_rank", 0),  # the 2025 C9 (fide2025)
        getattr(player, "bye_score", None),
    )


def _c3_tag(player: Player) -> object:
    """What C3 looks at: a non-topscorer's absolute colour preference side, else ``None`` (meets anyone)."""
    pref = player.color_preference
    return pref.side if pref.strength == _ABSOLUTE and not player.top_scorer else None


# C3 forbids a pair exactly when both tags are the same side (a tag is a side, or None for "no objection"):
# py4swiss's C3.evaluate(p1, p2) is `topscorer or sides differ or either preference is not absolute`.


class FastValidityMatcher(ValidityMatcher):  # type: ignore[misc]  # py4swiss ships no type information
    """py4swiss's completion check (C.04.3 A.9: can the round still be completed?), answered without its computer
    whenever a perfect matching can be shown.

    py4swiss keeps a graph with an edge for each pair that may meet (C1, C3, forbidden pairs) and, for an odd
    field, one to a bye vertex for each player who may get the bye (C2); ``finalize_match`` leaves a paired
    player only the edge to the partner, and ``is_valid_matching`` asks its C++ computer for a maximum matching of
    that graph and says whether it covers every vertex. Nothing else of that computer is ever read, so the answer
    is a fact about the graph -- *it has a perfect matching* -- and any exact method gives the same one. Here the
    same graph is kept as a rule (``_edge``), and the matching found by the last check is repaired by augmenting
    paths: a perfect matching found that way proves the answer is yes. When no path turns up (the search does not
    shrink odd cycles, so it may miss one), the answer comes from py4swiss's own ``ValidityMatcher``, built afresh
    with the same pairs finalized in the same order: a no, or a doubtful case, is always py4swiss's word.
    """

    def __init__(self, players: list[Player], forbidden_pairs: set[tuple[int, int]]) -> None:
        self._players = players
        self._forbidden_pairs = forbidden_pairs
        self._len = len(players) + len(players) % 2
        self._index_dict = {player: i for i, player in enumerate(players)}
        self._ids = [p.id for p in players]
        self._opponents = [p.opponents for p in players]
        self._tags = [_c3_tag(p) for p in players]
        # The bye vertex (odd fields) is number len(players): its edges are C2, one per player.
        self._may_get_bye = [bool(C2.evaluate(p, p)) for p in players]
        self._fixed: dict[int, int] = {}
        self._finalized: list[tuple[Player, Player]] = []
        self._mate: list[int | None] = [None] * self._len

    def _edge(self, a: int, b: int) -> bool:
        """Whether py4swiss's completion graph has the edge a-b (a != b) now."""
        fixed = self._fixed
        if a in fixed or b in fixed:
            return fixed.get(a) == b and fixed.get(b) == a
        return self._open_edge(a, b)

    def _open_edge(self, a: int, b: int) -> bool:
        """The edge a-b between two players not finalized yet (a != b): is_allowed_pair, or C2 for the bye vertex."""
        n = len(self._players)
        if a == n or b == n:
            return self._may_get_bye[a if b == n else b]
        if a > b:
            a, b = b, a
        ids, forbidden = self._ids, self._forbidden_pairs
        tag = self._tags[a]
        # is_allowed_pair(players[a], players[b]) for a < b, as py4swiss's set-up asks it.
        return not (
            (forbidden and ((ids[a], ids[b]) in forbidden or (ids[b], ids[a]) in forbidden))
            or ids[a] in self._opponents[b]
            or (tag is not None and tag == self._tags[b])
        )

    def finalize_match(self, player_1: Player, player_2: Player) -> None:
        i, j = self._index_dict[player_1], self._index_dict[player_2]
        self._finalized.append((player_1, player_2))
        self._fixed[i] = j
        self._fixed[j] = i

    def _augment(self, u: int, open_: list[int], seen: set[int], depth: int) -> bool:
        """Match the free, not finalized vertex ``u`` along an alternating path among the vertices not finalized
        (Kuhn's search, a free neighbour first; odd cycles are not shrunk). ``seen`` holds every vertex already
        on the path or tried, so the path is simple and the result a matching."""
        mate, edge = self._mate, self._open_edge
        for v in open_:
            if mate[v] is None and v not in seen and edge(u, v):
                mate[u], mate[v] = v, u
                return True
        if depth > 50:
            return False
        for v in open_:
            if v in seen or not edge(u, v):
                continue
            seen.add(v)
            w = mate[v]
            if w is None or w in seen:
                continue
            seen.add(w)
            if self._augment(w, open_, seen, depth + 1):
                mate[u], mate[v] = v, u
                return True
        return False

    def _perfect_matching_found(self) -> bool:
        """Repair the last perfect matching into one of the graph as it is now; whether that worked."""
        mate, fixed = self._mate, self._fixed
        for i, j in fixed.items():
            if fixed.get(j) != i or i == j:
                return False  # a finalized vertex left without its partner: leave that graph to py4swiss
        for v in range(self._len):  # drop the pairs that are no longer edges
            w = mate[v]
            if w is not None and not self._edge(v, w):
                mate[v] = None
                if mate[w] == v:
                    mate[w] = None
        for i, j in fixed.items():  # a finalized pair is matched to itself
            mate[i] = j
        open_ = [v for v in range(self._len) if v not in fixed]
        free = [v for v in open_ if mate[v] is None]
        if not all(mate[v] is not None or self._augment(v, open_, {v}, 0) for v in free):
            return False
        # The certificate, checked: every vertex matched, both ways, along an edge of the graph.
        return all(
            (w := mate[v]) is not None and w != v and mate[w] == v and self._edge(v, w) for v in range(self._len)
        )

    def is_valid_matching(self) -> bool:
        if self._perfect_matching_found():
            return True
        self._mate = [None] * self._len  # start afresh next time
        exact = ValidityMatcher(self._players, self._forbidden_pairs)
        for player_1, player_2 in self._finalized:
            exact.finalize_match(player_1, player_2)
        return bool(exact.is_valid_matching())


class _Matching(Mapping[Player, Player]):
    """A bracket's matching as py4swiss's ``update_matching`` holds it -- each player's partner (itself if
    unmatched), in vertex order -- read from the computer's answer when asked instead of built whole each time."""

    def __init__(self, players: list[Player], mates: list[int], index_by_id: dict[int, int]) -> None:
        self._players, self._mates, self._index_by_id = players, mates, index_by_id

    def __getitem__(self, player: Player) -> Player:
        return self._players[self._mates[self._index_by_id[player.id]]]

    def __iter__(self) -> Iterator[Player]:
        return iter(self._players)

    def __len__(self) -> int:
        return len(self._players)


class FastBracketMatcher(BracketMatcher):  # type: ignore[misc]  # py4swiss ships no type information
    """py4swiss's bracket graph, each pair's weight computed once per pair of player profiles.

    py4swiss asks a stored weight whether it is zero (no edge) before each edit; that question costs as much as
    the edit's call into the computer, so here the answer is kept beside the weight (``_alive``), set whenever a
    weight is stored. A stored weight is never edited in place here: an edge's removal stores py4swiss's zero
    weight instead of zeroing the object in place, which py4swiss does -- the same values, since the two ends of
    an edge share one object there and both are replaced here. That lets every edge with the same pair of
    profiles share one weight object, where py4swiss makes a copy per edge. The one object py4swiss shares
    beyond an edge's two ends is its ``_max_weight``, stored for every finalized pair: should py4swiss ever zero
    it in place (it does not, in any step of its pairer), so is it here, and every answer re-read.
    """

    def _get_max_weight(self) -> DynamicUint:
        """BracketMatcher._get_max_weight with the 2025 quality criteria (``fide2025.QUALITY_CRITERIA``)."""
        weight = DynamicUint(1)
        weight.shift_grow(2)  # the bye preferences of the penultimate and last pairing brackets
        for criterion in fide2025.QUALITY_CRITERIA:
            weight.shift_grow(criterion.get_shift(self._bracket))
        weight.shift_grow(3 * self._bracket.bracket_bits)  # the transpositions
        weight.shift_grow(2)  # the matching routine's margin
        weight >>= 1
        weight -= (weight & 0) | 1  # every bit set
        return weight

    def _get_weight(self, player_1: Player, player_2: Player) -> DynamicUint:
        """BracketMatcher._get_weight with the 2025 quality criteria (``fide2025.QUALITY_CRITERIA``)."""
        weight = DynamicUint(self._zero_weight)
        if not self._validity_matcher.is_allowed_pair(player_1, player_2):
            return weight
        if self._bracket.penultimate_pairing_bracket or self._bracket.last_pairing_bracket:
            weight |= 1 + player_1.bye_received + player_2.bye_received
        for criterion in fide2025.QUALITY_CRITERIA:
            weight <<= criterion.get_shift(self._bracket)
            weight += criterion.get_weight(player_1, player_2, self._zero_weight, self._bracket)
        weight <<= 3 * self._bracket.bracket_bits + 1
        return weight

    def _set_up_computer(self) -> None:
        computer = self._computer
        players = self._player_list
        n = len(players)
        # Vertex numbers by player id: the same as py4swiss's _index_dict (players are equal when their ids
        # are), without a call to Player.__hash__ per look-up.
        self._index_by_id = {p.id: i for i, p in enumerate(players)}
        self._steps: dict[int, DynamicUint] = {}
        for _ in range(n):
            computer.add_vertex()
        zero = self._zero_weight
        # Players with the same profile get numbered alike; the roles were set for this bracket already.
        numbered: dict[Profile, int] = {}
        kinds = [numbered.setdefault(profile(p), len(numbered)) for p in players]
        known: list[list[tuple[DynamicUint, bool] | None]] = [[None] * len(numbered) for _ in numbered]
        ids = [p.id for p in players]
        tags = [_c3_tag(p) for p in players]
        # Who may not meet whom (is_allowed_pair(players[i], players[j]) for i < j, as py4swiss's set-up asks
        # it): C1 asks whether players[i]'s id is among players[j]'s opponents; C3 whether both carry a tag
        # and the same one; and the forbidden pairs.
        met_by: dict[int, list[int]] = {}
        for j, p in enumerate(players):
            for opponent in p.opponents:
                met_by.setdefault(opponent, []).append(j)
        by_tag: dict[object, list[int]] = {}
        for j, tag in enumerate(tags):
            if tag is not None:
                by_tag.setdefault(tag, []).append(j)
        forbidden = self._validity_matcher._forbidden_pairs
        weights = self._weights
        alive = self._alive = [[False] * n for _ in range(n)]
        set_edge = computer.set_edge_weight
        get_weight = self._get_weight
        for i in range(n):
            id1, cached = ids[i], known[kinds[i]]
            banned = {j for j in met_by.get(id1, ()) if j > i}
            if tags[i] is not None:
                banned.update(j for j in by_tag[tags[i]] if j > i)
            if forbidden:
                banned.update(j for j in range(i + 1, n) if (id1, ids[j]) in forbidden or (ids[j], id1) in forbidden)
            later = range(i + 1, n)
            for j in later:
                if cached[kinds[j]] is None and j not in banned:
                    computed = get_weight(players[i], players[j])
                    cached[kinds[j]] = (computed, bool(computed))
            # Not allowed to meet: py4swiss's zero weight (it stays in place; nothing edits it).
            filled = cast(list[tuple[DynamicUint, bool]], cached)  # every kind met by an allowed pair is in now
            upper = [(zero, False) if j in banned else filled[kinds[j]] for j in later]
            weights[i][i + 1 :] = row = [weight for weight, _ in upper]
            alive[i][i + 1 :] = [is_edge for _, is_edge in upper]
            # Edge (i, j) for each later j, in py4swiss's order.
            deque(map(set_edge, repeat(i), later, row), maxlen=0)
        for i in range(n):  # the lower triangle: each edge's weight and flag seen from its other end
            weights[i][:i] = [weights[j][i] for j in range(i)]
            alive[i][:i] = [alive[j][i] for j in range(i)]

    def _set_weight(self, i: int, j: int, weight: DynamicUint) -> None:
        """BracketMatcher._set_weight, noting whether the weight is an edge."""
        self._weights[i][j] = self._weights[j][i] = weight
        self._alive[i][j] = self._alive[j][i] = bool(weight)
        self._computer.set_edge_weight(i, j, weight)

    def _zero_in_place(self, weight: DynamicUint) -> None:
        """py4swiss's in-place zeroing of a weight shared beyond one edge (its ``_max_weight``): every edge holding
        that object becomes no edge there, so every answer is read again."""
        weight &= 0
        for alive_row, row in zip(self._alive, self._weights, strict=True):
            alive_row[:] = [bool(w) for w in row]  # in place: a caller may hold a row

    def _remove(self, i: int, j: int, weight: DynamicUint) -> None:
        """Edge i-j (alive, holding ``weight``) removed as py4swiss's ``_remove_weight`` removes it."""
        zero = self._zero_weight
        if weight is self._max_weight:
            self._zero_in_place(weight)
            self._computer.set_edge_weight(i, j, weight)
            return
        self._weights[i][j] = self._weights[j][i] = zero
        self._alive[i][j] = self._alive[j][i] = False
        self._computer.set_edge_weight(i, j, zero)

    def _step(self, value: int) -> DynamicUint:
        """``zero | value`` as py4swiss makes it, made once per value (a step is only ever read)."""
        step = self._steps.get(value)
        if step is None:
            step = self._steps[value] = self._zero_weight | value
        return step

    def add_to_weights(self, player: Player, player_list: list[Player], value: int, increment: bool = False) -> None:
        """BracketMatcher.add_to_weights (``add_to_weight`` for each listed player): the same sums, stores and calls."""
        index = self._index_by_id
        i = index[player.id]
        weights = self._weights
        row = weights[i]
        alive = self._alive
        alive_row = alive[i]
        set_edge = self._computer.set_edge_weight
        step_for = self._step
        step = step_for(abs(value))
        for other in player_list:
            j = index[other.id]
            if alive_row[j]:  # a zero weight is no edge, and stays none
                if increment:
                    step = step_for(abs(value))
                if value > 0:
                    weight = row[j] + step
                else:
                    weight = row[j] - step
                    if not weight:  # py4swiss's weights never get there; if one did, it is no edge from now on
                        alive_row[j] = alive[j][i] = False
                row[j] = weight
                weights[j][i] = weight
                set_edge(i, j, weight)
            if increment:
                value += 1

    def add_to_weight(self, player_1: Player, player_2: Player, value: int) -> None:
        self.add_to_weights(player_1, [player_2], value)

    def remove_weights(self, player: Player, player_list: list[Player]) -> None:
        """BracketMatcher.remove_weights (``_remove_weight`` for each listed player), in a tighter loop."""
        index = self._index_by_id
        i = index[player.id]
        row, alive_row = self._weights[i], self._alive[i]
        remove = self._remove
        for other in player_list:
            j = index[other.id]
            if alive_row[j]:
                remove(i, j, row[j])

    def remove_weight(self, player_1: Player, player_2: Player) -> None:
        self.remove_weights(player_1, [player_2])

    def update_matching(self) -> None:
        """BracketMatcher.update_matching: the same two calls, the answer turned into players directly."""
        self._computer.compute_matching()
        self.matching = _Matching(self._player_list, self._computer.get_matching(), self._index_by_id)

    def finalize_match(self, player_1: Player, player_2: Player) -> None:
        """BracketMatcher.finalize_match: the same removals and calls, in the same order."""
        i, j = self._index_by_id[player_1.id], self._index_by_id[player_2.id]
        row_i, row_j = self._weights[i], self._weights[j]
        alive_i, alive_j = self._alive[i], self._alive[j]
        weights, alive = self._weights, self._alive
        zero, shared = self._zero_weight, self._max_weight
        set_edge, remove = self._computer.set_edge_weight, self._remove
        # For each k, edge i-k then edge j-k, as py4swiss goes; an edge seen from both ends (i-j) is removed once,
        # as there, since the first removal is seen by the second look. Only the k with an edge to i or j are
        # visited: a removal never makes an edge.
        for k in [k for k, (a, b) in enumerate(zip(alive_i, alive_j, strict=True)) if a or b]:
            if alive_i[k]:
                if row_i[k] is shared:
                    remove(i, k, shared)
                else:  # _remove, inline
                    row_i[k] = weights[k][i] = zero
                    alive_i[k] = alive[k][i] = False
                    set_edge(i, k, zero)
            if alive_j[k]:
                if row_j[k] is shared:
                    remove(j, k, shared)
                else:
                    row_j[k] = weights[k][j] = zero
                    alive_j[k] = alive[k][j] = False
                    set_edge(j, k, zero)
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
    """The next round of ``trf`` by the Dutch system, C.04.3 as in force since 1 July 2025."""
    round_number = min(len(section.results) for section in trf.player_sections) + 1
    initial_color = trf.x_section.configuration.first_round_color
    players = fide2025.players_2025(trf, FastValidityMatcher)
    players.sort(reverse=True)

    if _is_first_round(trf, round_number, players):
        player_pairs = _first_round(players, initial_color)
    else:
        player_pairs = fide2025.pair_brackets(
            players,
            round_number,
            trf.x_section.forbidden_pairs,
            initial_color,
            FastBracketPairer,
            FastValidityMatcher,
        )

    player_pairs.sort(key=DutchEngine._get_player_pair_score, reverse=True)
    return [DutchEngine._get_pairing(pair) for pair in player_pairs]
