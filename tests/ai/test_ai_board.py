"""The AI's own board helpers agree with the rules core: same moves, same claims."""

import random

import pytest

from bot.ai.veletas.board import claim_candidates, code_of, pairs, targets
from bot.ai.veletas.evaluate import black_chance, win_chance
from bot.rules import VARIANTS, FastBoard, Position, board_geometry, random_setup


def _positions(variant: str, rules: str, count: int, seed: int) -> list[Position]:
    """Positions from random games at every stage: early, middle and late."""
    rng = random.Random(f"{variant}/{rules}/{seed}")
    out: list[Position] = []
    while len(out) < count:
        position = random_setup(variant, rules, rng).position
        stop = rng.randrange(0, 60)
        for _ in range(stop):
            if position.is_over:
                break
            position = position.play(rng.choice(position.legal_moves()))
        if not position.is_over:
            out.append(position)
    return out


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("rules", ["current", "classic"])
def test_split_turns_list_exactly_the_legal_moves(variant: str, rules: str) -> None:
    for position in _positions(variant, rules, 4, 1):
        board = position.fast()
        geo = board_geometry(position.size)
        split = {code_of(pair, t, geo.n2) for pair in pairs(board, geo) for t in targets(board, geo, pair)}
        assert split == set(board.legal_codes())
        assert board.cells == position.fast().cells, "listing must leave the board as it was"


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("rules", ["current", "classic"])
def test_every_claiming_move_is_a_claim_candidate(variant: str, rules: str) -> None:
    checked = 0
    for position in _positions(variant, rules, 5, 2):
        board = position.fast()
        candidates = set(claim_candidates(board, board_geometry(position.size)))
        for code in board.legal_codes():
            trial = board.copy()
            if trial.play_code(code):
                assert code in candidates, f"{board.move_of(code)} claims in {position} but was not a candidate"
                checked += 1
    assert checked > 0, "the sample should contain claiming moves"


def test_win_chance_counts_the_claims_still_needed() -> None:
    assert win_chance(3, 3, [0.1, 0.1]) == 1.0
    assert win_chance(0, 3, [0.9, 0.9]) == 0.0
    assert win_chance(1, 2, [0.5]) == pytest.approx(0.5)
    assert win_chance(0, 2, [0.5, 0.5, 0.5]) == pytest.approx(0.5)
    assert win_chance(0, 2, [0.9, 0.9, 0.1]) == pytest.approx(0.81 + 2 * 0.9 * 0.1 * 0.1)


def test_evaluation_favours_the_side_with_the_bigger_groups_beside_a_cornered_shooter() -> None:
    black_side = Position.from_string("7/7/7/3S3/6S/b6/Sb5 w")
    white_side = Position.from_string("7/7/7/3S3/6S/w6/Sw5 b")
    geo = board_geometry(7)
    black = black_chance(FastBoard.from_position(black_side), geo)
    assert black > 0.55
    # The same board with the colours exchanged is the same game seen from the other side.
    assert black_chance(FastBoard.from_position(white_side), geo) == pytest.approx(1.0 - black)
