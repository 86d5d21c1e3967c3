"""A round's recap from hand-built rounds of both games: its upsets, its longest game, its biggest claim (Veletas,
checked against the board's claimed shooters before and after the move) and its biggest confinement (Veloop)."""

from __future__ import annotations

import random
from dataclasses import replace

from bot.rules import veletas, veloop
from bot.tournaments.recap import Feat, Longest, Recap, RecapGame, Upset, round_recap

SMALL = {"variant": "small", "rules": "current"}
FIVE = {"board": "5", "protocol": "122"}

# A Veletas game (small board) whose 30th turn, d2-c1/d2, leaves the shooters on b1 and c1 unable to move: both go to
# Black, whose group beside them (3 stones) is the bigger. The pie choice was "swap": the second seat plays Black.
TWO_CLAIMS = (
    "d6/f6", "swap", "b6,c5/e2", "d6-c6/a6", "c6-e4/e7", "f3", "c5-d5/d1", "d5-c6/c5", "e4-d5/a2", "b6-b1/c2",
    "b1-b3/c3", "d5-e5/f4", "c6-e4/e6", "b3-b4/b6", "e5-g5/f5", "e4-e3/e5", "e3-g1/e3", "b4-b1/b4", "g5-g4/g2",
    "b1-a1/b2", "a1-b1/a1", "g1-f1/f2", "g4-g5/g7", "g1", "g4", "g6", "f1-e1/f1", "e1-d2/e1", "d6", "d2-c1/d2",
)  # fmt: skip

# Veloop 5×5, protocol 1-2-2: the 31st move (White's, c2<d4) fences in two black stones (b3, c3) and ends the game.
CONFINES_TWO = (
    "d4<c2", "e5<d3", "b2<d3", "b1<c3", "e2<c3", "a1<c2", "a3<c2", "d4<b3", "c1<e2", "b4<c2", "b2<d1", "b5<c3",
    "a2<c3", "a5<b3", "e3<c4", "b4<d3", "d4<c2", "b2<d1", "d2<b3", "d5<b4", "d3<c5", "d4<b3", "b1<a3", "e1<d3",
    "a2<c3", "a4<b2", "a3<b1", "a1<c2", "e2<c1", "c3<a4", "c2<d4",
)  # fmt: skip
# Black's 33rd move fences in one white stone.
CONFINES_ONE = (
    "b4<c2", "a5<b3", "d2<b3", "a2<c3", "e2<c3", "e1<d3", "c2<e1", "e4<c3", "c5<e4", "b4<c2", "a1<c2", "d2<b3",
    "b2<a4", "d3<e1", "e3<d5", "e4<c5", "c4<b2", "c1<b3", "d2<b3", "b2<d1", "b5<c3", "e5<d3", "c1<b3", "b3<d4",
    "a1<b3", "a3<b1", "a2<c3", "e3<d5", "c1<e2", "c4<e5", "e4<c3", "c3<b5", "e1<c2",
)  # fmt: skip


def random_veletas(seed: int, moves: int) -> tuple[str, ...]:
    rng = random.Random(seed)
    game = veletas.random_setup("small", "current", rng)
    for _ in range(moves):
        if game.phase == "over":
            break
        game = game.play(rng.choice(game.position.legal_moves()))
    return game.turns


def claimed(turns: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return veletas.KIND.replay(turns, SMALL).position.claimed


def test_the_claim_game_claims_two_shooters_for_black_with_its_last_move() -> None:
    """The fixture itself, read off the board: the claimed shooters before and after the 30th turn."""
    before, after = claimed(TWO_CLAIMS[:-1]), claimed(TWO_CLAIMS)
    assert set(after["black"]) - set(before["black"]) == {"b1", "c1"}
    assert after["white"] == before["white"]
    assert veletas.KIND.replay(TWO_CLAIMS, SMALL).seat_of("black") == "second"


def veletas_round() -> list[RecapGame]:
    return [
        RecapGame(1, 1, 2, "1-0", "veletas", SMALL, TWO_CLAIMS),  # 1 (1800) beats 2 (1500): no upset
        RecapGame(2, 3, 4, "0-1", "veletas", SMALL, random_veletas(1, 10)),  # 4 (1550) beats 3 (1600): gap 50
        RecapGame(3, 5, 6, "1-0", "veletas", SMALL, random_veletas(2, 12)),  # 5 (1400) beats 6 (1900): gap 500
        RecapGame(4, 7, 8, "1/2-1/2", "veletas", SMALL, random_veletas(3, 8)),  # a draw is no upset
        RecapGame(5, 9, 10, "+-", "veletas", SMALL, random_veletas(4, 60)),  # a forfeit: neither upset nor longest
        RecapGame(6, 11, 12, "1-0", "veletas", SMALL, random_veletas(5, 14)),  # 11 (1200) beats 12 (1300): gap 100
        RecapGame(7, 13, 14, "0-1", "veletas", SMALL, random_veletas(6, 6)),  # 14 (1610) beats 13 (1700): gap 90
    ]


RATINGS = {1: 1800, 2: 1500, 3: 1600, 4: 1550, 5: 1400, 6: 1900, 7: 1000, 8: 2000, 9: 1000, 10: 2000}
RATINGS |= {11: 1200, 12: 1300, 13: 1700, 14: 1610}


def test_a_veletas_rounds_upsets_longest_game_and_biggest_claim() -> None:
    games = veletas_round()
    assert len(games[4].turns) > len(TWO_CLAIMS) > max(len(g.turns) for g in games[1:4] + games[5:])
    recap = round_recap(3, reversed(games), RATINGS)
    assert recap is not None and recap.round == 3
    # The biggest gaps first, three at most (the fourth, 50 points, is left out); a draw and a forfeit are none.
    assert recap.upsets == (Upset(3, 5, 6, 1400, 1900), Upset(6, 11, 12, 1200, 1300), Upset(7, 14, 13, 1610, 1700))
    assert [u.gap for u in recap.upsets] == [500, 100, 90]
    assert recap.longest == Longest(1, 1, 2, 30)  # the forfeited board's longer game does not count
    # Black (the second seat, player 2) claims b1 and c1 with turn 30; the biggest group beside them has 3 stones.
    assert recap.claim == Feat(1, 2, 1, 2, 30, 3, ("b1", "c1"))
    assert recap.confinement is None


def test_the_claim_goes_to_the_player_of_the_claiming_colour() -> None:
    """The same board with the seats the other way round (player 2 sits first): the claim is player 1's."""
    game = RecapGame(1, 2, 1, "0-1", "veletas", SMALL, TWO_CLAIMS)
    recap = round_recap(1, [game], RATINGS)
    assert recap is not None and recap.claim is not None
    assert (recap.claim.player, recap.claim.opponent) == (1, 2)
    assert recap.upsets == ()  # 1 (1800) beat 2 (1500) as expected


def test_more_shooters_beat_a_bigger_group_and_a_tie_goes_to_the_lower_board() -> None:
    one_big = RecapGame(1, 5, 6, "1-0", "veletas", SMALL, random_veletas(2, 200))
    recap = round_recap(1, [one_big], RATINGS)
    assert recap is not None and recap.claim is not None and (recap.claim.count, recap.claim.group) == (1, 12)
    two = RecapGame(2, 1, 2, "1-0", "veletas", SMALL, TWO_CLAIMS)
    again = round_recap(1, [one_big, two], RATINGS)
    assert again is not None and again.claim is not None and (again.claim.board, again.claim.count) == (2, 2)
    twice = round_recap(1, [replace(two, board=4), replace(two, board=3, white=3, black=4)], RATINGS)
    assert twice is not None and twice.claim is not None and twice.claim.board == 3 and twice.claim.player == 4


def test_a_veloop_rounds_biggest_confinement_and_longest_game() -> None:
    passes = veloop.KIND.replay((), FIVE)
    rng = random.Random(0)
    while passes.phase != "over":
        passes = passes.play(rng.choice(passes.position.legal_moves()))
    assert passes.outcome is not None and passes.outcome.termination == "passes"
    games = [
        RecapGame(1, 21, 22, "0-1", "veloop", FIVE, CONFINES_TWO),  # White (22) confines two black stones
        RecapGame(2, 23, 24, "1-0", "veloop", FIVE, CONFINES_ONE),  # Black (23) confines one white stone
        RecapGame(3, 25, 26, "1/2-1/2", "veloop", FIVE, passes.turns),  # drawn by passes: nothing confined
    ]
    ratings = {21: 1500, 22: 1450, 23: 1500, 24: 1500, 25: 1400, 26: 1600}
    recap = round_recap(2, games, ratings)
    assert recap is not None
    assert recap.upsets == (Upset(1, 22, 21, 1450, 1500),)
    assert recap.longest == Longest(3, 25, 26, len(passes.turns))
    assert recap.confinement == Feat(1, 22, 21, 2, 31)
    assert recap.claim is None
    without = round_recap(2, games[1:], ratings)
    assert without is not None and without.confinement == Feat(2, 23, 24, 1, 33)
    assert without.upsets == (), "nothing to say: no upsets"


def test_a_round_of_forfeits_has_no_recap_and_bad_turns_only_lose_the_claim() -> None:
    forfeits = [
        RecapGame(1, 1, 2, "+-", "veletas", SMALL, ()),
        RecapGame(2, 3, 4, "--", "veletas", SMALL, ()),
        RecapGame(3, 5, 6, "-+", "veletas", SMALL, TWO_CLAIMS),
    ]
    assert round_recap(1, forfeits, RATINGS) is None
    assert round_recap(1, [], RATINGS) is None
    broken = RecapGame(1, 5, 6, "1-0", "veletas", SMALL, (*TWO_CLAIMS[:5], "z9", *TWO_CLAIMS[6:]))
    recap = round_recap(1, [broken], RATINGS)
    assert recap is not None and recap.claim is None
    assert recap.longest == Longest(1, 5, 6, 30) and recap.upsets == (Upset(1, 5, 6, 1400, 1900),)
    resigned = [RecapGame(1, 1, 2, "1-0", "veloop", FIVE, ()), RecapGame(2, 6, 5, "1-0", "veloop", FIVE, ())]
    assert round_recap(1, resigned, RATINGS) is None, "favourites won before a move: nothing to say"
    upset_only = round_recap(1, [*resigned, RecapGame(3, 12, 11, "0-1", "veloop", FIVE, ())], RATINGS)
    assert upset_only == Recap(1, (Upset(3, 11, 12, 1200, 1300),))  # no longest game without a turn
    other = round_recap(1, [RecapGame(1, 5, 6, "1-0", "toy", {}, ("a", "b"))], RATINGS)
    assert other is not None and other.longest == Longest(1, 5, 6, 2) and other.claim is other.confinement is None
