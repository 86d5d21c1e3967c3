"""One test (or a few) per rule of RULES.md, in both editions where the rule applies to both."""

import pytest
from veletas_brute import diagram

from bot.rules import Claim, IllegalMove, Position

BOTH = pytest.mark.parametrize("rules", ["current", "classic"])
EMPTY_ROWS = ["......."] * 5

# a1 and b1 are shooters side by side, e1 a black stone; d5 is a third shooter far away.
SIDE_BY_SIDE = diagram(".......", ".......", "...S...", ".......", ".......", ".......", "SS..b..")


def at(text: str, rules: str = "current") -> Position:
    return Position.from_string(text, rules)


# -- passing ------------------------------------------------------------------------------------


def test_current_edition_moves_and_shoots_over_shooters() -> None:
    pos = at(SIDE_BY_SIDE)
    assert pos.is_legal("a1-c1/c2")
    assert "c1" in pos.destinations("a1")
    assert pos.is_legal("a1/d1")
    assert "d1" in pos.targets("a1")


def test_current_edition_passes_over_claimed_shooters_too() -> None:
    pos = at(diagram(".......", ".......", "...S...", ".......", ".......", ".......", "SB..b.."))
    assert pos.is_legal("a1-c1/a1")
    assert pos.is_legal("a1/d1")


def test_classic_edition_passes_over_nothing() -> None:
    pos = at(SIDE_BY_SIDE, "classic")
    assert not pos.is_legal("a1-c1/c2")
    assert "c1" not in pos.destinations("a1")
    with pytest.raises(IllegalMove, match="the shooter on b1 blocks a1–c1"):
        pos.play("a1-c1/c2")
    with pytest.raises(IllegalMove, match="the shooter on b1 blocks a1–d1"):
        pos.play("a1/d1")


def test_classic_edition_claimed_shooters_block_as_well() -> None:
    pos = at(diagram(".......", ".......", "...S...", ".......", ".......", ".......", "SB..b.."), "classic")
    with pytest.raises(IllegalMove, match="the shooter on b1 blocks a1–c1"):
        pos.play("a1-c1/c2")


@BOTH
def test_stones_always_block_moves_and_shots(rules: str) -> None:
    pos = at(SIDE_BY_SIDE, rules)
    with pytest.raises(IllegalMove, match="the stone on e1 blocks b1–f1"):
        pos.play("b1-f1/f2")
    with pytest.raises(IllegalMove, match="the stone on e1 blocks b1–g1"):
        pos.play("b1/g1")
    assert "f1" not in pos.destinations("b1")
    assert "f1" not in pos.targets("b1")


@BOTH
def test_a_stationary_shot_is_one_move_per_target(rules: str) -> None:
    # a1 and a3 both see a2; it must be listed once, as "a2".
    pos = at(diagram(*EMPTY_ROWS[:4], "S......", ".......", "S.....S"), rules)
    texts = [str(m) for m in pos.legal_moves()]
    assert texts.count("a2") == 1
    assert len(texts) == len(set(texts))
    assert pos.parse_move("a1/a2") == pos.parse_move("a3/a2") == pos.parse_move("a2")
    assert str(pos.parse_move("a1/a2")) == "a2"


@BOTH
def test_a_moving_shooter_may_shoot_back_onto_and_over_the_square_it_left(rules: str) -> None:
    pos = at(SIDE_BY_SIDE, rules)
    after = pos.play("b1-b4/b1")
    assert after.piece_at("b1") == "b"
    assert after.piece_at("b4") == "S"
    assert pos.is_legal("b1-b3/b1")
    # d4 -> c3 -> b2 (just left, so empty) -> a1.
    pos2 = at(diagram(".......", ".......", ".......", ".......", ".......", ".S.....", "......."), rules)
    assert pos2.is_legal("b2-d4/a1")
    assert "a1" in pos2.targets("d4", vacated="b2")


@BOTH
def test_a_shooter_cannot_shoot_the_square_it_lands_on(rules: str) -> None:
    with pytest.raises(IllegalMove, match="cannot shoot the square it stands on"):
        at(SIDE_BY_SIDE, rules).play("b1-b4/b4")


@BOTH
def test_a_claimed_shooter_cannot_be_selected(rules: str) -> None:
    pos = at(diagram(".......", ".......", "...S...", ".......", ".......", ".......", "SB..b.."), rules)
    with pytest.raises(IllegalMove, match="the shooter on b1 is already claimed"):
        pos.play("b1-b4/b5")
    with pytest.raises(IllegalMove, match="the shooter on b1 is already claimed"):
        pos.play("b1/b2")
    assert pos.destinations("b1") == []
    assert "b1" not in pos.unclaimed()
    assert pos.claimed == {"black": ("b1",), "white": ()}


@BOTH
def test_error_messages_name_the_fault(rules: str) -> None:
    pos = at(SIDE_BY_SIDE, rules)
    cases = {
        "c3-c4/c5": "c3 is not a shooter",
        "e1-e2/e3": "e1 is not a shooter",
        "d5-e7/e6": "e7 is not on a line from d5",
        "b1-e1/e2": "e1 is occupied",
        "a1-b1/b2": "b1 is occupied",
        "b1-b4/e1": "e1 is occupied",
        "d5-d6/e4": "e4 is not on a line from d6",
        "e1": "e1 is occupied",
        "h1": "h1 is not on the 7×7 board",
        "d5-d6": "no shot",
        "hello": r"expected a shot like [a-g][1-7], or a move like [a-g][1-7]-[a-g][1-7]/[a-g][1-7] ",
    }
    for text, message in cases.items():
        with pytest.raises(IllegalMove, match=message) as caught:
            pos.play(text)
        assert not pos.is_legal(text)
        # Examples are real moves of this position, not squares of another board.
        for key in ("shot", "move", "example"):
            if key in caught.value.data and (key != "move" or "/" in str(caught.value.data[key])):
                assert pos.is_legal(str(caught.value.data[key])), (text, caught.value.data)


def test_a_target_no_shooter_can_see_is_refused_with_the_reason() -> None:
    pos = at(diagram(".......", ".......", ".......", ".......", "..b....", ".......", "S......"))
    with pytest.raises(IllegalMove, match="no unclaimed shooter is on a line with b3"):
        pos.play("b3")
    reason = r"no unclaimed shooter has a clear line to d4 \(the stone on c3 blocks a1–d4\)"
    with pytest.raises(IllegalMove, match=reason):
        pos.play("d4")


# -- claims -------------------------------------------------------------------------------------


def test_current_edition_claims_every_trapped_shooter_at_once_after_the_shot() -> None:
    # a1 sees c1 only by passing over b1; b1 sees only c1. Shooting c1 traps both.
    pos = at(diagram(".......", ".......", ".......", "...S...", ".......", "wwb....", "SS.b..."))
    assert not pos.is_trapped("a1")
    assert not pos.is_trapped("b1")
    after = pos.play("c1")
    assert set(after.last_claims) == {Claim("a1", "white", 0, 2), Claim("b1", "black", 3, 2)}
    assert after.piece_at("a1") == "W"
    assert after.piece_at("b1") == "B"
    assert after.score == (1, 1)
    assert after.winner is None


def test_classic_edition_claims_every_trapped_shooter_at_once_after_the_shot() -> None:
    pos = at(diagram(".......", ".......", ".......", "...S...", ".......", "w.b....", "SSb...."), "classic")
    after = pos.play("b2")
    assert set(after.last_claims) == {Claim("a1", "white", 0, 1), Claim("b1", "black", 3, 0)}


@BOTH
def test_only_orthogonal_neighbours_count_a_diagonal_group_is_irrelevant(rules: str) -> None:
    # The white group b2-c2-c3 (3 stones) touches a1 only diagonally; the lone black stone a2 decides.
    pos = at(diagram(".......", ".....S.", "...S...", ".......", "..w....", "bww....", "S......"), rules)
    after = pos.play("b1")
    assert after.last_claims == (Claim("a1", "black", 1, 0),)
    assert pos.group_hints()["a1"] == (1, 0)


@BOTH
def test_stones_on_shooters_belong_to_no_group(rules: str) -> None:
    # b1-c1(B)-d1-e1: counting the claimed shooter would make a black group of 4 beating white's 3.
    pos = at(diagram(".......", ".......", "...S...", ".......", "w......", "ww.....", "S.Bbb.."), rules)
    after = pos.play("b1")
    assert after.last_claims == (Claim("a1", "white", 1, 3),)


@BOTH
def test_a_tie_goes_to_the_opponent_of_the_player_who_moved(rules: str) -> None:
    # Black's b1 joins c1 (2 stones) against white's a2-b2 (2 stones): tie, so White claims.
    black_moves = at(diagram(".......", ".....S.", "...S...", ".......", ".......", "ww.....", "S.b...."), rules)
    assert black_moves.play("b1").last_claims == (Claim("a1", "white", 2, 2),)
    rows = (".......", ".....S.", "...S...", ".......", ".......", "bb.....", "S.w....")
    white_moves = at(diagram(*rows, side="w"), rules)
    assert white_moves.play("b1").last_claims == (Claim("a1", "black", 2, 2),)


def test_no_adjacent_group_goes_to_the_opponent_and_a_majority_ends_the_game() -> None:
    # a1 is hemmed in by two claimed shooters; black shoots c1 over b1 and traps a1 with no group next to it.
    pos = at(diagram(".......", ".......", ".......", ".......", "b......", "Bb.....", "SW....."))
    assert pos.score == (1, 1)
    after = pos.play("c1")
    assert after.last_claims == (Claim("a1", "white", 0, 0),)
    assert after.winner == "white"
    assert after.is_over
    assert after.legal_moves() == []
    with pytest.raises(IllegalMove, match="the game is over"):
        after.play("d1")
    assert str(after).endswith(" w"), "the side to move still alternates after the last move"


@pytest.mark.parametrize(
    ("rows", "need"),
    [
        (["BB.....", ".S.....", "......."], 2),
        (["BBB......", ".SS......", "........."], 3),
        (["BBBB......", ".SSS......", ".........."], 4),
    ],
)
def test_the_game_ends_the_moment_a_majority_is_claimed_on_each_variant(rows: list[str], need: int) -> None:
    size = len(rows[0])
    won = at(diagram(*rows, *(["." * size] * (size - 3))))
    assert won.needed_to_win == need
    assert won.winner == "black"
    assert won.is_over
    assert won.legal_moves() == []
    one_short = at(str(won).replace("B", "S", 1))
    assert one_short.winner is None
    assert not one_short.is_over
    assert one_short.legal_moves()


@BOTH
def test_the_last_claim_wins_mid_game_even_with_shooters_left(rules: str) -> None:
    # Small board: white already has one shooter; trapping a1 with a tie gives White the second.
    pos = at(diagram("W......", ".......", "...S...", ".......", ".......", "ww.....", "S.b...."), rules)
    after = pos.play("b1")
    assert after.winner == "white"
    assert after.unclaimed() == ("d5",)
    assert after.legal_moves() == []


def test_a_shot_that_traps_a_shooter_claims_it_and_hints_refuse_non_shooters() -> None:
    pos = at(diagram(".......", ".......", ".......", ".......", "b......", "bb.....", "S.....S"))
    assert not pos.is_trapped("a1")
    after = pos.play("b1")
    assert after.piece_at("a1") == "B"
    with pytest.raises(IllegalMove, match="a2 is not a shooter"):
        pos.is_trapped("a2")


def test_classic_edition_no_adjacent_group_goes_to_the_opponent_too() -> None:
    # a1's orthogonal neighbours are two claimed shooters; its own shot onto b2 shuts its last door.
    pos = at(diagram(".......", ".......", ".......", ".......", ".......", "B......", "SW....."), "classic")
    after = pos.play("b2")
    assert after.last_claims == (Claim("a1", "white", 0, 0),)
    assert after.winner == "white"
