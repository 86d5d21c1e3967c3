"""perft and move lists cross-checked against the plain implementation in veletas_brute.py."""

import pytest
import veletas_brute as brute

from bot.rules import Position, perft

SAMPLE = "10/10/3S6/6S3/2b7/4S1S3/1S8/5w1S2/2S7/10 b"

# Small fixed positions, chosen so that depth 2 makes claims happen and passing rules matter.
CROWDED_SMALL = brute.diagram(
    "b.w.b.w",
    ".S.w.b.",
    "w.b.S.b",
    ".b.w.w.",
    "b.S.b.w",
    ".w.b.b.",
    "w.b.w.b",
)
CORNERED = brute.diagram(
    ".......",
    ".......",
    "...S...",
    ".......",
    "w......",
    "ww.....",
    "S.Bbb..",
)
NEAR_THE_END = brute.diagram(
    "bbwwbww",
    "wbSwbbw",
    "bwwbbwb",
    "wbbSwwb",
    "bwbbwbw",
    "wwbBbww",
    "bwwbbbb",
    side="w",
)
TIGHT = brute.diagram(
    "bw.wb.w",
    ".S.w.bw",
    "wbb.S.b",
    "bb.w.w.",
    "b.S.b.w",
    "ww.bbw.",
    "w.bSw.b",
)
MEDIUM = brute.diagram(
    ".........",
    "..b...w..",
    "...S.....",
    ".w...bS..",
    "..S......",
    "....B..b.",
    ".b.....S.",
    "......w..",
    ".........",
)
FIXED = [CROWDED_SMALL, CORNERED, NEAR_THE_END, TIGHT, MEDIUM]


@pytest.mark.parametrize("rules", ["current", "classic"])
@pytest.mark.parametrize("text", FIXED)
def test_move_lists_match_the_plain_implementation(text: str, rules: str) -> None:
    pos = Position.from_string(text, rules)
    board, size, _ = brute.parse(text)
    listed = [str(m) for m in pos.legal_moves()]
    assert len(listed) == len(set(listed)), "a move is listed twice"
    assert set(listed) == brute.moves(board, size, rules == "classic")


@pytest.mark.parametrize("rules", ["current", "classic"])
@pytest.mark.parametrize("text", FIXED)
def test_every_move_leads_where_the_plain_implementation_goes(text: str, rules: str) -> None:
    pos = Position.from_string(text, rules)
    for move in pos.legal_moves():
        assert str(pos.play(move)) == brute.play(text, str(move), rules == "classic"), str(move)


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["current", "classic"])
@pytest.mark.parametrize("text", [CROWDED_SMALL, NEAR_THE_END, TIGHT])
def test_perft_depth_two_matches_the_plain_implementation(text: str, rules: str) -> None:
    """Depth 2 from crowded boards, where many first moves claim shooters and change the second ply."""
    pos = Position.from_string(text, rules)
    classic = rules == "classic"
    assert perft(pos, 1) == brute.perft(text, 1, classic)
    assert perft(pos, 2) == brute.perft(text, 2, classic)


@pytest.mark.parametrize(("rules", "depth1"), [("current", 5247), ("classic", 3764)])
def test_perft_of_the_notation_sample_matches_the_plain_implementation(rules: str, depth1: int) -> None:
    pos = Position.from_string(SAMPLE, rules)
    board, size, _ = brute.parse(SAMPLE)
    assert perft(pos, 1) == len(brute.moves(board, size, rules == "classic")) == depth1


def test_perft_depth_zero_is_one_and_a_won_position_has_no_leaves() -> None:
    won = Position.from_string(brute.diagram("BB.....", ".S.....", *(["......."] * 5)))
    assert won.winner == "black"
    assert perft(won, 0) == 1
    assert perft(won, 1) == 0
    assert perft(won, 3) == 0
    with pytest.raises(ValueError, match="depth"):
        perft(won, -1)
