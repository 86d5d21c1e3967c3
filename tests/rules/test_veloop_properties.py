"""Veloop property tests: random games on every board under both protocols."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import veloop
from bot.rules.common import square_name
from bot.rules.veloop import SIZES, IllegalMove, Move, Position, perft, playout

PROTOCOLS = st.sampled_from(["122", "alternating"])
BOARDS = st.sampled_from(SIZES)


def plain_perft(position: Position, depth: int) -> int:
    """perft through the public, immutable API only: the slow path the fast one must agree with."""
    if depth == 0:
        return 1
    return sum(plain_perft(position.play(m), depth - 1) for m in position.legal_moves())


def random_line(size: int, protocol: str, rng: random.Random) -> list[Position]:
    """A whole random game; fails if it does not end within the bound stones impose."""
    position = Position.start(size, protocol)
    line = [position]
    # every placement adds a stone and a cell holds two, and passes come at most two in a row
    bound = 3 * 2 * size * size + 3
    while not position.is_over:
        assert len(line) <= bound, "the game did not end"
        position = position.play(rng.choice(position.legal_moves()))
        line.append(position)
    return line


@pytest.mark.slow
@settings(max_examples=24)
@given(size=BOARDS, protocol=PROTOCOLS, rng=st.randoms(use_true_random=False))
def test_random_games_keep_every_rule_consistent(size: int, protocol: str, rng: random.Random) -> None:
    line = random_line(size, protocol, rng)
    final = line[-1]
    assert final.result in ("black", "white", "draw")
    names = [square_name(f, r) for f in range(size) for r in range(size)]
    for position in line:
        assert Position.from_string(str(position), protocol) == position
        assert str(Position.from_string(str(position), protocol)) == str(position)
    for position in line[:-1]:
        legal = position.legal_moves()
        assert legal and len(set(legal)) == len(legal)
        for move in legal:
            after = position.play(move)
            assert after.protocol == protocol
            if not move.is_pass:
                assert after.shows(move.target or "") == position.to_move
        listed = set(legal)
        for _ in range(12):
            move = Move(rng.choice(names), rng.choice(names))
            if move in listed:
                position.play(move)
            else:
                with pytest.raises(IllegalMove):
                    position.play(move)
        if not legal[0].is_pass:
            with pytest.raises(IllegalMove, match="may not pass"):
                position.play("pass")


@pytest.mark.slow
@settings(max_examples=24)
@given(size=BOARDS, protocol=PROTOCOLS, rng=st.randoms(use_true_random=False))
def test_the_incremental_confinement_check_agrees_with_the_flood_fill(
    size: int, protocol: str, rng: random.Random
) -> None:
    """Legal moves of every position of a random game (all of them near the end), judged both ways."""
    geo = veloop._geometry(size)
    line = random_line(size, protocol, rng)[:-1]
    for k, position in enumerate(line):
        colour = 1 if position.to_move == "black" else 2
        moves = veloop._generate(position._top, position._under, geo, colour)
        if k < len(line) - 3:
            moves = rng.sample(moves, min(len(moves), 6))
        for t, s, a, b in moves:
            top, under = list(position._top), list(position._under)
            veloop._apply(top, under, t, a, b, colour)
            full = veloop._confined_cells(top, geo)
            assert veloop._confines(top, geo, t, s, a, b) == bool(full[0] or full[1])


@settings(max_examples=16)
@given(size=st.sampled_from([5, 6, 8]), protocol=PROTOCOLS, rng=st.randoms(use_true_random=False))
def test_fast_perft_agrees_with_perft_through_the_public_api(size: int, protocol: str, rng: random.Random) -> None:
    line = random_line(size, protocol, rng)
    position = rng.choice(line[: max(1, len(line) - 2)])
    depth = 3 if size < 8 else 2
    assert perft(position, depth) == plain_perft(position, depth)


@settings(max_examples=24)
@given(size=BOARDS, protocol=PROTOCOLS, seed=st.integers(0, 2**32))
def test_a_playout_is_a_legal_game_to_its_end(size: int, protocol: str, seed: int) -> None:
    trace: list[Move] = []
    final, plies = playout(Position.start(size, protocol), random.Random(seed), trace)
    assert plies == len(trace) > 0
    replayed = Position.start(size, protocol)
    for move in trace:
        replayed = replayed.play(move)
    assert replayed == final
    assert final.result is not None


@settings(max_examples=12)
@given(size=BOARDS, protocol=PROTOCOLS, rng=st.randoms(use_true_random=False))
def test_a_written_record_replays_to_the_same_final_position(size: int, protocol: str, rng: random.Random) -> None:
    line = random_line(size, protocol, rng)
    moves = [next(m for m in a.legal_moves() if a.play(m) == b) for a, b in itertools.pairwise(line)]
    start = Position.start(size, protocol)
    game = veloop.replay(veloop.write_record(moves, start))
    assert game.final == line[-1]
    assert game.positions == tuple(line[1:])


@pytest.mark.slow
def test_playouts_choose_uniformly_among_legal_moves_not_among_supports() -> None:
    """c4 supports two moves and e4 one: a per-support draw would give c4 half the time, not two thirds."""
    position = Position.from_string("8/8/8/2ww4/2b1b3/8/8/8 b 1/1 0")
    legal = [str(m) for m in position.legal_moves()]
    from_c4 = [m for m in legal if m.endswith("<c4")]
    rng = random.Random(7)
    runs = 1200
    hits = 0
    for _ in range(runs):
        trace: list[Move] = []
        playout(position, rng, trace)
        hits += str(trace[0]).endswith("<c4")
    expected = len(from_c4) / len(legal)
    assert expected != 0.5
    assert abs(hits / runs - expected) < 0.05
