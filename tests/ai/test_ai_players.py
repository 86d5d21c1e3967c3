"""Every level plays legal, sensible, reproducible moves within its time."""

import random
import time

import pytest

from bot.ai.budget import Budget
from bot.ai.veletas import analyze, choose_move
from bot.ai.veletas.players import choose
from bot.rules import EDITIONS, VARIANTS, Position, random_setup

LEVELS = [1, 2, 3, 4, 5]

# Small board, Black has one shooter and needs two. The shooter in the corner has one opening
# (b2); a black stone there joins a2 and b1 into a group of three and claims it: Black wins.
BLACK_WINS_AT_B2 = "7/7/7/3S3/6B/b6/Sb5 b"
# The mirror image for White to exploit: a black stone on b2 would tie the groups beside the
# corner shooter, and a tie goes to the opponent of the mover, so White would win.
BLACK_MUST_NOT_SHOOT_B2 = "7/7/7/3S3/6W/w6/Sw5 b"


def _midgame(variant: str, rules: str, plies: int, seed: int) -> Position:
    rng = random.Random(f"{variant}/{rules}/{seed}")
    position = random_setup(variant, rules, rng).position
    for _ in range(plies):
        after = position.play(rng.choice(position.legal_moves()))
        if after.is_over:
            break
        position = after
    return position


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("rules", EDITIONS)
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_a_legal_move_on_every_board(variant: str, rules: str, level: int) -> None:
    position = _midgame(variant, rules, 12, level)
    move = choose_move(position, level, time_limit=0.1)
    assert position.is_legal(move)


@pytest.mark.parametrize("rules", EDITIONS)
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_takes_a_winning_claim(rules: str, level: int) -> None:
    position = Position.from_string(BLACK_WINS_AT_B2, rules)
    move = choose_move(position, level, seed=1, time_limit=1.0)
    assert position.play(move).winner == "black"


@pytest.mark.parametrize("rules", EDITIONS)
def test_the_weakest_level_never_hands_over_the_game(rules: str) -> None:
    position = Position.from_string(BLACK_MUST_NOT_SHOOT_B2, rules)
    for seed in range(40):
        move = choose_move(position, 1, seed=seed)
        assert position.play(move).winner is None, f"seed {seed}: {move} gives White the game"


@pytest.mark.slow
@pytest.mark.parametrize("level", [2, 3, 4, 5])
def test_stronger_levels_do_not_hand_over_the_game_either(level: int) -> None:
    position = Position.from_string(BLACK_MUST_NOT_SHOOT_B2)
    move = choose_move(position, level, seed=3, time_limit=1.0)
    assert position.play(move).winner is None


@pytest.mark.parametrize("level", [2, 3, 4, 5])
def test_a_seed_fixes_the_move(level: int) -> None:
    board = _midgame("medium", "current", 10, 5).fast()
    first = choose(board, level, random.Random(11), Budget(400, 60.0))
    again = choose(board.copy(), level, random.Random(11), Budget(400, 60.0))
    assert first.code == again.code
    assert first.iterations == again.iterations


def test_a_seed_fixes_the_move_through_the_public_entry_point() -> None:
    position = _midgame("medium", "classic", 8, 6)
    assert choose_move(position, 2, seed=42) == choose_move(position, 2, seed=42)


@pytest.mark.serial
@pytest.mark.parametrize("seeded", [False, True])
def test_the_time_limit_is_a_hard_cap(seeded: bool) -> None:
    position = _midgame("standard", "current", 20, 7)
    start = time.perf_counter()
    move = choose_move(position, 5, seed=1 if seeded else None, time_limit=0.3)
    elapsed = time.perf_counter() - start
    assert position.is_legal(move)
    # Level 5 would think for seconds; the margin only absorbs a loaded machine's scheduling.
    assert elapsed < 0.3 + 0.5


def test_a_finished_game_has_no_move_to_choose() -> None:
    with pytest.raises(ValueError, match="over"):
        choose_move(Position.from_string("7/7/7/3S3/6B/bb5/BB5 w"), 3)


@pytest.mark.parametrize("level", [0, 6])
def test_unknown_levels_are_refused_with_the_range(level: int) -> None:
    with pytest.raises(ValueError, match="1 to 5"):
        choose_move(_midgame("small", "current", 2, 1), level)


def test_analysis_proves_a_won_position_and_names_the_winning_move() -> None:
    position = Position.from_string(BLACK_WINS_AT_B2)
    found = analyze(position, time_limit=1.0, seed=1)
    assert found.best_move is not None
    assert position.play(found.best_move).winner == "black"
    assert found.black == 1.0
    assert found.for_side_to_move == 1.0
    assert found.proven == "black"


def test_analysis_of_an_open_position_gives_a_chance_and_a_legal_move() -> None:
    position = _midgame("medium", "current", 14, 8)
    found = analyze(position, time_limit=0.5, seed=2)
    assert found.best_move is not None and position.is_legal(found.best_move)
    assert 0.0 < found.black < 1.0
    assert found.white == pytest.approx(1.0 - found.black)
    assert found.iterations > 0


def test_analysis_of_a_finished_game_names_the_winner_and_no_move() -> None:
    found = analyze(Position.from_string("7/7/7/3S3/6B/bb5/BB5 w"))
    assert found.best_move is None
    assert found.proven == "black"
    assert found.black == 1.0
