"""Smoke-level checks of the public API: the shapes other modules rely on."""

import random

import pytest

from bot.rules import VARIANTS, Game, IllegalMove, Move, Position, perft, random_setup

SAMPLE = "10/10/3S6/6S3/2b7/4S1S3/1S8/5w1S2/2S7/10 b"


def test_sample_position_round_trips_and_names_its_variant() -> None:
    pos = Position.from_string(SAMPLE)
    assert str(pos) == SAMPLE
    assert pos.variant == VARIANTS["standard"]
    assert pos.to_move == "black"
    assert pos.piece_at("c2") == "S"
    assert pos.piece_at("c6") == "b"
    assert pos.piece_at("a1") is None


def test_every_listed_move_is_distinct_and_plays() -> None:
    pos = Position.from_string(SAMPLE)
    moves = pos.legal_moves()
    assert len(moves) == len(set(moves)) == perft(pos, 1)
    for move in moves[::97]:
        after = pos.play(move)
        assert after.to_move == "white"
        assert after.piece_at(move.target) == "b"


def test_illegal_move_says_what_is_wrong() -> None:
    pos = Position.from_string(SAMPLE)
    with pytest.raises(IllegalMove, match="d4 is not a shooter"):
        pos.play("d4-g7/g2")
    with pytest.raises(IllegalMove, match="e5 is occupied"):
        pos.play("e5")


def test_move_parse_is_forgiving_and_prints_canonically() -> None:
    assert str(Move.parse(" D4 - G7 x G2 ")) == "d4-g7/g2"
    assert Move.parse("d4/g2") == Move.parse("g2")
    assert str(Move.parse("d4/g2")) == "g2"


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("rules", ["current", "classic"])
def test_random_games_end_with_a_winner_and_replay_from_their_record(variant: str, rules: str) -> None:
    rng = random.Random(f"{variant}{rules}")
    game = random_setup(variant, rules, rng)
    assert game.phase == "play"
    while game.phase == "play":
        game = game.play(str(rng.choice(game.position.legal_moves())))
    assert game.phase == "over"
    assert game.winner in ("black", "white")
    assert Game.from_record(game.to_record()).position == game.position
