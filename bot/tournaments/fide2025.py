"""The FIDE Dutch system's changes in force since 1 July 2025, applied to py4swiss 0.3.1's engine (the older text).

The engine pairs the players it is given bracket by bracket, by a list of quality criteria; the 2025 changes reach
it through all three:

- ``players_2025(trf)``: py4swiss's player records, amended (C.04.1 and C.04.3 as revised in 2025):
  - no bye twice (C.04.1, 4): a player who already scored a win without playing (pairing-allocated bye, full-point
    bye, forfeit win) may not get the pairing-allocated bye; py4swiss barred only the first and the last;
  - floats (C.04.3, 1.4.3): an unplayed round is a downfloat only if it scored more than a loss; a forfeit loss,
    a zero-point bye or an absence is no float (py4swiss counted every unplayed round);
  - pairing numbers for colours (the higher-ranked player's number decides, 5.2.5): numbered 1, 2, ... over the
    players who take part in the pairing (paired now, or paired in an earlier round), so a player not yet joined
    or with byes only shifts nobody's colour;
  - the pairing-allocated bye goes to the lowest score a complete pairing allows (completion, 2025): eligible
    players above that score are marked as not eligible, which is what py4swiss's C2 and bye weights read;
  - ``bye_rank``: among the players with that score, how few games each played (C9 below).
- ``QUALITY_CRITERIA``: py4swiss's list with the new C9 (minimise the unplayed games of the bye's assignee) in
  its place, after the pair and score criteria of the bracket and the next one, before the colour criteria; and
  C7 (pairs and score differences in the next bracket) weighed in every bracket but the last.
- ``pair_brackets``: the brackets in turn without the older text's penultimate pairing bracket and collapsed last
  scoregroup (the 2025 text has neither). Each bracket's pairing must let the round be completed (an absolute
  criterion): a bracket's best pairing, with the next scoregroup as that pairing would pair it, stands if the round
  can be completed from there; otherwise the bracket is paired again with every remaining player in view and
  py4swiss's completion weight on every pair, which picks the best pairing among those that complete the round.
  ``py4swiss_pairings`` runs it with py4swiss's own bracket pairer and completion check (the proof the fast driver
  in ``bot.tournaments.dutch`` is held to).
"""

from __future__ import annotations

from collections.abc import Callable

from py4swiss.dynamicuint import DynamicUint
from py4swiss.engines import DutchEngine
from py4swiss.engines.common import Float, Pairing, PairingError
from py4swiss.engines.dutch.bracket import Bracket, BracketPairer, Brackets
from py4swiss.engines.dutch.criteria import QUALITY_CRITERIA as QUALITY_CRITERIA_BEFORE_2025
from py4swiss.engines.dutch.criteria.abstract import QualityCriterion
from py4swiss.engines.dutch.criteria.quality import C7, C16, C17, C18, C19
from py4swiss.engines.dutch.player import Player, PlayerRole, get_player_infos_from_trf
from py4swiss.engines.dutch.validity_matcher import ValidityMatcher
from py4swiss.trf import ParsedTrf
from py4swiss.trf.results import ResultToken

# Unplayed rounds worth more than a loss (a downfloat) and those worth a win (no pairing-allocated bye after one).
_UNPLAYED_ABOVE_LOSS = {
    ResultToken.FORFEIT_WIN,
    ResultToken.HALF_POINT_BYE,
    ResultToken.FULL_POINT_BYE,
    ResultToken.PAIRING_ALLOCATED_BYE,
}
_UNPLAYED_WIN = {ResultToken.FORFEIT_WIN, ResultToken.FULL_POINT_BYE, ResultToken.PAIRING_ALLOCATED_BYE}


class Player2025(Player):  # type: ignore[misc]  # py4swiss ships no type information
    """py4swiss's player record and ``bye_rank``: for a player with the score the pairing-allocated bye goes to,
    how many players of that score played as many games or more, less one (0 for the others and in an even round);
    the more games played, the lower the rank, and pairing the high ranks leaves the bye to a low one."""

    bye_rank: int = 0
    bye_score: int | None = None
    """The score the pairing-allocated bye goes to (``points_with_acceleration``'s scale); ``None``: no bye."""


def players_2025(trf: ParsedTrf, checker: type[ValidityMatcher] = ValidityMatcher) -> list[Player2025]:
    """The players to pair, as py4swiss reads them, amended to the rules in force since 1 July 2025 (see above).

    ``checker`` answers whether a round can be completed (py4swiss's ``ValidityMatcher`` or one that answers alike).
    """
    done = min(len(section.results) for section in trf.player_sections)
    paired_before = (ResultToken.PAIRING_ALLOCATED_BYE, ResultToken.FORFEIT_WIN)
    taking_part = [
        section.starting_number
        for section in sorted(trf.player_sections, key=lambda s: s.starting_number)
        if len(section.results) <= done or any(r.id != 0 or r.result in paired_before for r in section.results)
    ]
    number = {sn: i + 1 for i, sn in enumerate(taking_part)}
    sections = {section.starting_number: section for section in trf.player_sections}
    players = [Player2025(**dict(p)) for p in get_player_infos_from_trf(trf)]
    for player in players:
        results = sections[player.id].results
        player.bye_received = any(r.result in _UNPLAYED_WIN for r in results)
        player.number = number[player.id]
        for back, field in ((1, "float_1"), (2, "float_2")):
            if done - back >= 0:
                result = results[done - back].result
                if not result.is_played() and result not in _UNPLAYED_ABOVE_LOSS:
                    setattr(player, field, Float.NONE)
    _bye_to_the_lowest_score(players, trf.x_section.forbidden_pairs, checker)
    return players


def _bye_to_the_lowest_score(
    players: list[Player2025], forbidden: set[tuple[int, int]], checker: type[ValidityMatcher]
) -> None:
    """Narrow who may get the pairing-allocated bye to the lowest score under which the round can be completed, and
    rank that score's players by games played (``bye_rank``).

    Each score, lowest first, is tried as the ceiling: eligible players above it are marked as having had a bye, and
    the first ceiling under which the whole round can still be paired stays. With an even field there is no bye.
    """
    if len(players) % 2 == 0:
        return
    eligible = [p for p in players if not p.bye_received]
    scores = sorted({p.points_with_acceleration for p in eligible})
    for i, ceiling in enumerate(scores):
        for p in eligible:
            p.bye_received = p.points_with_acceleration > ceiling
        # With one score left there is nothing to narrow: the engine's own check answers for the round.
        if i == len(scores) - 1 or checker(players, forbidden).is_valid_matching():
            at_ceiling = [p for p in players if p.points_with_acceleration == ceiling]
            for p in players:
                p.bye_score = ceiling
            for p in at_ceiling:
                p.bye_rank = sum(len(q.colors) >= len(p.colors) for q in at_ceiling) - 1
            return


class C9UnplayedGamesOfByeAssignee(QualityCriterion):  # type: ignore[misc]  # py4swiss ships no type information
    """C9 (2025): minimise the number of unplayed games of the pairing-allocated bye's assignee.

    In the brackets that decide who is left for the bye -- those whose resident players score no more than the
    bye's score -- a pair weighs the sum of its players' ``bye_rank``: the matching pairs the players with fewer
    games first, and the one left unpaired has played as many games as the pairing allows.
    """

    @classmethod
    def get_shift(cls, bracket: Bracket) -> int:
        # Room for the sum over every pair of the bracket: each rank is below the number of players it counts.
        return 2 * (int(bracket.bracket_bits) + int(bracket.low_bracket_bits)) + 2

    @classmethod
    def get_weight(cls, player_1: Player, player_2: Player, zero: DynamicUint, bracket: Bracket) -> DynamicUint:
        weight = DynamicUint(zero)
        if getattr(bracket, "decides_the_bye", False):
            weight |= getattr(player_1, "bye_rank", 0) + getattr(player_2, "bye_rank", 0)
        return weight


class Bracket2025(Bracket):  # type: ignore[misc]  # py4swiss ships no type information
    """py4swiss's bracket and what the 2025 criteria read of it besides.

    ``decides_the_bye``: C9 is weighed here -- the round has a bye, the residents score no more than the bye's
    score, and the bye's assignee is the bracket's only downfloater (its players can be paired among themselves
    but for one who may get the bye, and the players below it among themselves).

    A bracket paired with every player still to pair in view (completion) has all those players as its
    ``lower_list`` and is flagged as py4swiss's penultimate pairing bracket, so the pair weights start with
    py4swiss's completion field (every player still to pair is matched, a player who may not get the
    pairing-allocated bye first); its ``next_score`` is the next scoregroup's score: only those players count for
    C7 (pairs and score differences in the next bracket)."""

    decides_the_bye: bool = False
    next_score: int | None = None


class Brackets2025(Brackets):  # type: ignore[misc]  # py4swiss ships no type information
    """py4swiss's score brackets, run by the 2025 text: there is no penultimate pairing bracket and no collapsed
    last scoregroup any more. When a bracket's best pairing leaves a round that cannot be completed,
    ``keep_the_rest_in_view`` has the same bracket paired again with every player still to pair in view, so its
    choice is the best one that lets the round be completed; the brackets below are then paired one by one as
    before. ``checker`` (py4swiss's ``ValidityMatcher`` or one that answers alike) tells whether C9 is weighed."""

    def __init__(
        self,
        players: list[Player],
        round_number: int,
        forbidden: set[tuple[int, int]],
        checker: type[ValidityMatcher],
    ) -> None:
        super().__init__(players, round_number)
        self._rest_in_view = False
        self._forbidden, self._checker = forbidden, checker
        self._bye_score = getattr(players[0], "bye_score", None) if players else None

    def keep_the_rest_in_view(self) -> None:
        self._rest_in_view = True
        for player in self._rest():
            player.role = PlayerRole.LOWER

    def _rest(self) -> list[Player]:
        return [player for bracket in self._brackets[self._index + 1 :] for player in bracket]

    def get_current_bracket(self) -> Bracket:
        residents, rest = self._get_resident_list(), self._rest()
        in_view = self._rest_in_view
        lower = rest if in_view else self._get_lower_list()
        bracket = Bracket2025.from_data(self._mdp_list, residents, lower, self._round_number, in_view)
        if in_view:
            bracket.next_score = self._get_lower_list()[0].points_with_acceleration
        bracket.decides_the_bye = self._decides_the_bye(self._mdp_list + residents, rest)
        return bracket

    def _decides_the_bye(self, in_bracket: list[Player], below: list[Player]) -> bool:
        bye_score = self._bye_score
        if bye_score is None or in_bracket[-1].points_with_acceleration > bye_score or len(below) % 2:
            return False
        pairable = self._checker(in_bracket, self._forbidden).is_valid_matching()
        return bool(pairable and (not below or self._checker(below, self._forbidden).is_valid_matching()))

    def apply_bracket_pairings(self, player_pairs: list[tuple[Player, Player]]) -> None:
        self._rest_in_view = False
        super().apply_bracket_pairings(player_pairs)


def pair_brackets(
    players: list[Player],
    round_number: int,
    forbidden: set[tuple[int, int]],
    initial_color: bool,
    pairer: Callable[[Bracket, ValidityMatcher, bool], BracketPairer],
    checker: type[ValidityMatcher],
) -> list[tuple[Player, Player]]:
    """The round's pairs, bracket by bracket (players ranked), by py4swiss's bracket steps and the 2025 brackets.

    ``pairer`` and ``checker`` are py4swiss's ``BracketPairer`` and ``ValidityMatcher`` or ones that answer alike.
    Raises ``PairingError`` if the round cannot be paired."""
    brackets = Brackets2025(players, round_number, forbidden, checker)
    # The first bracket is read before the round's own completion check, so that check (which decides whether the
    # round can be paired at all) is the last one made before any bracket is paired.
    bracket = None if brackets.is_finished() else brackets.get_current_bracket()
    completion = checker(players, forbidden)
    if not completion.is_valid_matching():
        raise PairingError("Round can not be paired")
    pairs: list[tuple[Player, Player]] = []
    while bracket is not None:
        bracket_pairer = pairer(bracket, completion, initial_color)
        bracket_pairs = DutchEngine._get_bracket_pairs(bracket_pairer)
        if bracket_pairs is not None and not bracket.penultimate_pairing_bracket and bracket.lower_list:
            # The bracket's best pairing, with the next scoregroup as it would pair then, is the best one with the
            # rest in view if the round can be completed from there; else it is paired again with the rest in view.
            trial = checker(players, forbidden)
            for player_1, player_2 in [*pairs, *bracket_pairs, *_pairs_into(bracket, bracket_pairer)]:
                trial.finalize_match(player_1, player_2)
            if not trial.is_valid_matching():
                bracket_pairs = None
        if bracket_pairs is None:
            # The pairs this try fixed are undone: only the pairs of the brackets already paired stay.
            brackets.keep_the_rest_in_view()
            completion = checker(players, forbidden)
            for player_1, player_2 in pairs:
                completion.finalize_match(player_1, player_2)
        else:
            brackets.apply_bracket_pairings(bracket_pairs)
            pairs.extend(bracket_pairs)
        bracket = None if brackets.is_finished() else brackets.get_current_bracket()
    return pairs


def py4swiss_pairings(trf: ParsedTrf) -> list[Pairing]:
    """The next round of ``trf`` paired by py4swiss's own pieces (``BracketPairer``, ``ValidityMatcher``) through
    ``players_2025`` and ``pair_brackets``: what ``bot.tournaments.dutch.pair`` must give. py4swiss's bracket matcher
    weighs pairs by the criteria its module holds: the caller sets ``QUALITY_CRITERIA`` there (tests, benchmarks)."""
    round_number = min(len(section.results) for section in trf.player_sections) + 1
    players = players_2025(trf)
    players.sort(reverse=True)
    pairs = pair_brackets(
        players,
        round_number,
        trf.x_section.forbidden_pairs,
        trf.x_section.configuration.first_round_color,
        BracketPairer,
        ValidityMatcher,
    )
    pairs.sort(key=DutchEngine._get_player_pair_score, reverse=True)
    return [DutchEngine._get_pairing(pair) for pair in pairs]


def _pairs_into(bracket: Bracket, bracket_pairer: BracketPairer) -> list[tuple[Player, Player]]:
    """The pairs with a player of the next scoregroup in the bracket's final matching (its downfloaters' partners,
    and the next scoregroup's pairs among themselves as C7 counted them)."""
    matching = bracket_pairer._bracket_matcher.matching
    pairs = []
    for player in bracket.lower_list:
        partner = matching[player]
        if partner is not player and (partner.role != PlayerRole.LOWER or partner.id < player.id):
            pairs.append((player, partner))
    return pairs


class C7NextBracket(C7):  # type: ignore[misc]  # py4swiss ships no type information
    """C7 (pairs, then score differences, in the next bracket), in every bracket but the last: with the rest in
    view, a pair with a player below the next scoregroup does not count for it."""

    @classmethod
    def get_shift(cls, bracket: Bracket) -> int:
        if bracket.last_pairing_bracket:
            return 0
        return int(bracket.low_bracket_bits + bracket.score_difference_total_bits)

    @classmethod
    def get_weight(cls, player_1: Player, player_2: Player, zero: DynamicUint, bracket: Bracket) -> DynamicUint:
        weight = DynamicUint(zero)
        if bracket.last_pairing_bracket:
            return weight
        next_score = getattr(bracket, "next_score", None)
        lower = player_2.role == PlayerRole.LOWER
        if lower and next_score is not None and player_2.points_with_acceleration != next_score:
            return weight
        weight |= int(lower)
        weight <<= bracket.score_difference_total_bits
        for player in (player_1, player_2):
            if player.role != PlayerRole.LOWER:
                difference = player.points_with_acceleration - bracket.min_bracket_score + 10
                weight += (zero | 1) << bracket.score_difference_bit_dict[difference]
        return weight


def _score_bit(player: Player, bracket: Bracket) -> int:
    """Where a player's score is counted in a criterion made of scores: py4swiss's bit for the score difference a
    downfloater of that score would have (A.8). It grows with the score, and its room holds a count for each player
    of the bracket with that score."""
    return int(bracket.score_difference_bit_dict[player.points_with_acceleration - bracket.min_bracket_score + 10])


class C16RepeatedDownfloaterScores(QualityCriterion):  # type: ignore[misc]  # py4swiss ships no type information
    """Minimise the scores of the players who downfloat as ``rounds_back`` rounds before (2025; the older text
    minimised score differences). A downfloater is a player left unpaired in the bracket: each player with that
    earlier downfloat who is paired here weighs one at their score's bit, so those left unpaired score the least."""

    rounds_back = 1

    @classmethod
    def _applies(cls, bracket: Bracket) -> bool:
        return bool(bracket.one_round_played if cls.rounds_back == 1 else bracket.two_rounds_played)

    @classmethod
    def _floated(cls, player: Player, direction: Float) -> bool:
        return bool((player.float_1 if cls.rounds_back == 1 else player.float_2) == direction)

    @classmethod
    def get_shift(cls, bracket: Bracket) -> int:
        return int(bracket.score_difference_total_bits) if cls._applies(bracket) else 0

    @classmethod
    def get_weight(cls, player_1: Player, player_2: Player, zero: DynamicUint, bracket: Bracket) -> DynamicUint:
        weight = DynamicUint(zero)
        if player_2.role == PlayerRole.LOWER or not cls._applies(bracket):
            return weight
        for player in (player_1, player_2):
            if cls._floated(player, Float.DOWN):
                weight += (zero | 1) << _score_bit(player, bracket)
        return weight


class C17RepeatedUpfloaterOpponentScores(C16RepeatedDownfloaterScores):
    """Minimise the scores of the opponents of the players who upfloat as ``rounds_back`` rounds before (2025): a
    pair of the bracket weighs one at the higher player's score unless it gives the lower one, who upfloated then,
    another upfloat."""

    @classmethod
    def get_weight(cls, player_1: Player, player_2: Player, zero: DynamicUint, bracket: Bracket) -> DynamicUint:
        weight = DynamicUint(zero)
        if player_2.role == PlayerRole.LOWER or not cls._applies(bracket):
            return weight
        higher = player_1.points_with_acceleration > player_2.points_with_acceleration
        if not (higher and cls._floated(player_2, Float.UP)):
            weight += (zero | 1) << _score_bit(player_1, bracket)
        return weight


class C18RepeatedDownfloaterScores(C16RepeatedDownfloaterScores):
    """C16 (2025) for the downfloats of two rounds before."""

    rounds_back = 2


class C19RepeatedUpfloaterOpponentScores(C17RepeatedUpfloaterOpponentScores):
    """C17 (2025) for the upfloats of two rounds before."""

    rounds_back = 2


_REPLACED = {
    C16: C16RepeatedDownfloaterScores,
    C17: C17RepeatedUpfloaterOpponentScores,
    C18: C18RepeatedDownfloaterScores,
    C19: C19RepeatedUpfloaterOpponentScores,
}
_AFTER = QUALITY_CRITERIA_BEFORE_2025.index(C7) + 1
QUALITY_CRITERIA = (
    *QUALITY_CRITERIA_BEFORE_2025[: _AFTER - 1],
    C7NextBracket,
    C9UnplayedGamesOfByeAssignee,
    *(_REPLACED.get(criterion, criterion) for criterion in QUALITY_CRITERIA_BEFORE_2025[_AFTER:]),
)
"""py4swiss's quality criteria (the older text's C5-C19) with C7 in every bracket but the last (the 2025 text has
no penultimate pairing bracket) and the 2025 C9 after the bracket pair and score ones."""
