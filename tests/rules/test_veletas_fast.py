"""The integer layer the AI searches with must agree with the public one move for move."""

import pickle
import random

import pytest
from veletas_brute import diagram

from bot.rules import Game, Position, random_playout, random_setup

SAMPLE = "10/10/3S6/6S3/2b7/4S1S3/1S8/5w1S2/2S7/10 b"


@pytest.mark.parametrize("rules", ["current", "classic"])
def test_codes_list_the_same_moves_in_the_same_order(rules: str) -> None:
    pos = Position.from_string(SAMPLE, rules)
    board = pos.fast()
    codes = board.legal_codes()
    assert [board.move_of(c) for c in codes] == pos.legal_moves()
    assert [board.code_of(m) for m in pos.legal_moves()] == codes
    assert board.count_moves() == len(codes)
    assert board.key() == pos.fast().key() != pos.play("g2").fast().key()


@pytest.mark.parametrize("rules", ["current", "classic"])
def test_playing_codes_follows_the_public_positions_through_whole_games(rules: str) -> None:
    rng = random.Random(rules)
    for variant in ("small", "medium", "standard"):
        pos = random_setup(variant, rules, rng).position
        board = pos.fast()
        while not pos.is_over:
            code = rng.choice(board.legal_codes())
            move = board.move_of(code)
            claims = board.play_code(code)
            pos = pos.play(move)
            assert Position.from_fast(board) == pos
            assert [(board.move_of(s).target, c, b, w) for s, c, b, w in claims] == [
                (cl.square, ("black", "white").index(cl.colour), cl.black_group, cl.white_group)
                for cl in pos.last_claims
            ]
        assert board.winner == ("black", "white").index(pos.winner or "")
        assert board.legal_codes() == []


@pytest.mark.parametrize("variant", ["small", "medium", "standard"])
@pytest.mark.parametrize("rules", ["current", "classic"])
def test_random_playouts_end_in_a_won_position_and_repeat_with_the_same_seed(variant: str, rules: str) -> None:
    start = random_setup(variant, rules, random.Random(1)).position.fast()
    for seed in range(5):
        first = start.copy()
        winner = first.random_playout(random.Random(seed).random)
        again = start.copy()
        assert again.random_playout(random.Random(seed).random) == winner
        assert again.cells == first.cells
        end = Position.from_fast(first)
        assert winner in (0, 1)
        assert end.winner == ("black", "white")[winner]
        assert end.score[winner] >= end.needed_to_win > end.score[1 - winner]
    assert start.winner == -1, "copies were played, not the start"


@pytest.mark.parametrize("rules", ["current", "classic"])
def test_a_cut_playout_stops_after_its_plies_and_resumes_as_if_never_cut(rules: str) -> None:
    start = random_setup("standard", rules, random.Random(4)).position.fast()
    stones = sum(1 for c in start.cells if c >= start.STONE_BLACK)
    for seed in range(4):
        cut = start.copy()
        rnd = random.Random(seed).random
        assert cut.random_playout(rnd, 5) == -1
        assert sum(1 for c in cut.cells if c >= start.STONE_BLACK) == stones + 5
        assert cut.to_move == 1 - start.to_move, "five turns hand the move over"
        whole = start.copy()
        assert cut.random_playout(rnd) == whole.random_playout(random.Random(seed).random)
        assert cut.cells == whole.cells
        assert cut.scores == whole.scores


def test_playouts_vary_and_each_colour_wins_some() -> None:
    start = random_setup("small", "current", random.Random(2)).position
    winners = {random_playout(start, random.Random(seed)) for seed in range(60)}
    assert winners == {"black", "white"}


def test_a_finished_position_plays_out_to_its_winner_at_once() -> None:
    won = Position.from_string(diagram("BB.....", ".S.....", *(["......."] * 5)))
    board = won.fast()
    assert board.random_playout() == 0
    assert board.cells == bytearray(won.fast().cells)
    assert random_playout(won) == "black"


def test_a_hand_made_position_where_no_shooter_can_act_is_over_without_a_winner() -> None:
    stuck = Position.from_string(diagram("Sbw....", "bbw....", "wwb....", *(["......."] * 4)))
    assert stuck.legal_moves() == []
    assert stuck.is_over and stuck.winner is None
    assert stuck.fast().random_playout() == -1
    assert random_playout(stuck) is None


def test_values_survive_pickling_for_worker_processes() -> None:
    pos = Position.from_string(SAMPLE).play("e5-e1/e2")
    assert pickle.loads(pickle.dumps(pos)) == pos
    assert pickle.loads(pickle.dumps(pos)).legal_moves() == pos.legal_moves()
    board = pos.fast()
    copied = pickle.loads(pickle.dumps(board))
    assert copied.legal_codes() == board.legal_codes()
    assert Position.from_fast(copied) == pos
    game = Game.replay(["c3/a1", "keep", "b6,e5/g7", "c3-c6/c3"], variant="small")
    assert pickle.loads(pickle.dumps(game)) == game
    assert pickle.loads(pickle.dumps(game)).position == game.position
    assert len(pickle.dumps(pos)) < 400, "the geometry tables stay out of the pickle"


def test_the_geometry_search_code_reads_is_the_board_s_own() -> None:
    board = Position.from_string(SAMPLE).fast()
    a1 = 0
    assert board.names[a1] == "a1" and board.names[board.n2 - 1] == "j10"
    assert board.rays[a1] == (
        (10, 20, 30, 40, 50, 60, 70, 80, 90),
        (11, 22, 33, 44, 55, 66, 77, 88, 99),
        tuple(range(1, 10)),
    )
    assert sorted(board.orth[11]) == [1, 10, 12, 21]
    assert sorted(board.ring[a1]) == [1, 10, 11]
    assert board.line_masks[a1][99] == 1 and board.line_masks[a1][12] == 0
    shooter = board.cells.index(board.SHOOTER)
    assert board.names[shooter] == "c2"
    assert board.cells[board.names.index("c6")] == board.STONE_BLACK
