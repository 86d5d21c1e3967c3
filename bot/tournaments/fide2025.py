"""The FIDE Dutch system's changes in force since 1 July 2025, applied to py4swiss 0.3.1's engine (the older text).

The engine pairs the players it is given by a list of quality criteria; the 2025 changes reach it through both:

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
  its place, after the pair and score criteria of the bracket and the next one, before the colour criteria.
"""

from __future__ import annotations

from py4swiss.dynamicuint import DynamicUint
from py4swiss.engines.common import Float
from py4swiss.engines.dutch.bracket import Bracket
from py4swiss.engines.dutch.criteria import QUALITY_CRITERIA as QUALITY_CRITERIA_BEFORE_2025
from py4swiss.engines.dutch.criteria.abstract import QualityCriterion
from py4swiss.engines.dutch.criteria.quality import C7
from py4swiss.engines.dutch.player import Player, get_player_infos_from_trf
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

    In the brackets that decide who is left for the bye -- py4swiss's penultimate and last pairing brackets, and a
    bracket whose next scoregroup (its lower players) is at or below the bye's score -- a pair weighs the sum of its
    players' ``bye_rank``: the matching pairs the players with fewer games first, and the one left unpaired has
    played as many games as the pairing allows.
    """

    @classmethod
    def get_shift(cls, bracket: Bracket) -> int:
        # Room for the sum over every pair of the bracket: each rank is below the number of players it counts.
        return 2 * (int(bracket.bracket_bits) + int(bracket.low_bracket_bits)) + 2

    @classmethod
    def get_weight(cls, player_1: Player, player_2: Player, zero: DynamicUint, bracket: Bracket) -> DynamicUint:
        weight = DynamicUint(zero)
        if _decides_the_bye(player_1, bracket):
            weight |= getattr(player_1, "bye_rank", 0) + getattr(player_2, "bye_rank", 0)
        return weight


def _decides_the_bye(player: Player, bracket: Bracket) -> bool:
    bye_score = getattr(player, "bye_score", None)
    if bye_score is None:
        return False
    if bracket.penultimate_pairing_bracket or bracket.last_pairing_bracket:
        return True
    return bool(bracket.lower_list) and bracket.lower_list[0].points_with_acceleration <= bye_score


_AFTER = QUALITY_CRITERIA_BEFORE_2025.index(C7) + 1
QUALITY_CRITERIA = (
    *QUALITY_CRITERIA_BEFORE_2025[:_AFTER],
    C9UnplayedGamesOfByeAssignee,
    *QUALITY_CRITERIA_BEFORE_2025[_AFTER:],
)
"""py4swiss's quality criteria (the older text's C5-C19) with the 2025 C9 after the bracket pair and score ones."""
