"""``bot.rules.analysis``: the board sizes analysis reads, and the exact "within two plies of a live game" test.

The pruned search in ``within_two_plies`` is checked against plain enumeration: every board that
one or two legal moves lead to (either side first), the live board and the two before it.
"""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import EDITIONS, Game, Geometry, Position, random_setup
from bot.rules.analysis import BOARD_SIZES, BoardSizeRefused, read_position, within_two_plies


def board(position: Position) -> str:
    return str(position).split()[0]


def flipped(position: Position) -> Position:
    side = "w" if position.to_move == "black" else "b"
    return Position.from_string(f"{board(position)} {side}", position.rules)


def played(variant: str, rules: str, seed: int, moves: int) -> Game:
    rng = random.Random(seed)
    game = random_setup(variant, rules, rng)
    while game.phase == "play" and len(game.moves) < moves:
        game = game.play(rng.choice(game.position.legal_moves()))
    return game


def near_by_enumeration(game: Game) -> set[str]:
    """Every board within two plies of the game, found the slow way."""
    live = game.position
    found = {board(live)}
    turns = game.turns
    for back in (1, 2):
        if back <= len(game.moves):
            found.add(board(Game.replay(turns[:-back], variant=game.variant.name, rules=game.rules).position))
    for start in (live, flipped(live)):
        for move in start.legal_moves():
            one = start.play(move)
            found.add(board(one))
            for reply in one.legal_moves():
                found.add(board(one.play(reply)))
    return found


def test_only_the_games_board_sizes_are_read() -> None:
    assert BOARD_SIZES == (7, 9, 10)
    for size in (7, 9, 10):
        text = "/".join([str(size)] * (size - 1) + [f"S{size - 1}"]) + " b"
        assert read_position(text).size == size
    sizes_before = set(Geometry._cache)
    for size in (3, 8, 11, 14, 26):
        text = "/".join([str(size)] * (size - 1) + [f"S{size - 1}"]) + " b"
        with pytest.raises(BoardSizeRefused) as refused:
            read_position(text)
        assert refused.value.size == size and f"{size}×{size}" in str(refused.value)
    assert set(Geometry._cache) == sizes_before, "no table is built for a refused size"
    with pytest.raises(ValueError, match="the side to move"):
        read_position("7/7/7/7/7/7/S6 x")


@pytest.mark.slow
@settings(max_examples=4, deadline=None)
@given(st.sampled_from(EDITIONS), st.integers(0, 2**32 - 1), st.integers(16, 40))
def test_agrees_with_plain_enumeration_on_the_small_board(rules: str, seed: int, moves: int) -> None:
    game = played("small", rules, seed, moves)
    if game.phase != "play":
        return
    near = near_by_enumeration(game)
    rng = random.Random(seed)
    sample = rng.sample(sorted(near), min(150, len(near)))
    candidates = [Position.from_string(f"{text} {rng.choice('bw')}", rules) for text in sample]
    # Near misses: three plies ahead, boards of other games, and near boards with one stone moved.
    ahead = game.position
    for _ in range(3):
        if ahead.is_over:
            break
        ahead = ahead.play(rng.choice(ahead.legal_moves()))
    candidates.append(ahead)
    candidates += [played("small", rules, seed + k, moves).position for k in range(1, 4)]
    for text in sample[:40]:
        position = Position.from_string(text + " b", rules)
        pieces = position.pieces()
        empties = [f"{f}{r}" for f in "abcdefg" for r in range(1, 8) if f"{f}{r}" not in pieces]
        stones = [sq for sq, piece in pieces.items() if piece in "bw"]
        if stones and empties:
            candidates.append(_move_piece(position, rng.choice(stones), rng.choice(empties)))
    for candidate in candidates:
        assert within_two_plies(candidate, game) == (board(candidate) in near), str(candidate)


def _move_piece(position: Position, origin: str, dest: str) -> Position:
    size = position.size
    grid = [["." for _ in range(size)] for _ in range(size)]
    for square, piece in position.pieces().items():
        grid[int(square[1:]) - 1]["abcdefghij".index(square[0])] = piece
    piece = grid[int(origin[1:]) - 1]["abcdefghij".index(origin[0])]
    grid[int(origin[1:]) - 1]["abcdefghij".index(origin[0])] = "."
    grid[int(dest[1:]) - 1]["abcdefghij".index(dest[0])] = piece
    ranks = []
    for row in reversed(grid):
        out, empty = "", 0
        for ch in row:
            if ch == ".":
                empty += 1
                continue
            out += (str(empty) if empty else "") + ch
            empty = 0
        ranks.append(out + (str(empty) if empty else ""))
    return Position.from_string("/".join(ranks) + " b", position.rules)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["small", "medium", "standard"]), st.sampled_from(EDITIONS), st.integers(0, 2**32 - 1))
def test_hints_a_player_could_seek_are_all_refused(variant: str, rules: str, seed: int) -> None:
    rng = random.Random(seed)
    game = played(variant, rules, seed, rng.randrange(0, 40))
    if game.phase != "play":
        return
    live = game.position
    assert within_two_plies(live, game) and within_two_plies(flipped(live), game)
    one = live.play(rng.choice(live.legal_moves()))  # a candidate move
    assert within_two_plies(one, game) and within_two_plies(flipped(one), game)
    if not one.is_over:
        two = one.play(rng.choice(one.legal_moves()))  # the candidate and the expected reply
        assert within_two_plies(two, game) and within_two_plies(flipped(two), game)
        if not two.is_over:
            three = two.play(rng.choice(two.legal_moves()))
            assert not within_two_plies(three, game), "three plies ahead is a different question"
    other = flipped(live).play(rng.choice(flipped(live).legal_moves()))  # the side not to move, moving
    assert within_two_plies(other, game)
    for back in (1, 2, 3):
        if back <= len(game.moves):
            before = Game.replay(game.turns[:-back], variant=variant, rules=rules).position
            assert within_two_plies(before, game) == (back <= 2)
    edition = "classic" if rules == "current" else "current"
    assert within_two_plies(Position.from_string(str(live), edition), game), "the edition changes no picture"


def test_a_game_in_its_setup_counts_its_board_as_live() -> None:
    rng = random.Random(4)
    game = Game.new("medium")
    first = game.play(random_setup("medium", rng=rng).turns[0])
    assert first.phase == "pie"
    full = random_setup("medium", rng=random.Random(4))
    done = Game.replay(full.turns, variant="medium")
    assert within_two_plies(done.position, first), "the board the pie choice is about, completed"
    unrelated = random_setup("medium", rng=random.Random(99)).position
    assert not within_two_plies(unrelated, first)


@pytest.mark.serial
def test_it_is_fast() -> None:
    """A whole server's live games are checked per request: well under a millisecond per game on average."""
    games = [played("standard", "current", seed, 30) for seed in range(20)]
    rng = random.Random(1)
    pasted = []
    for game in games:
        live = game.position
        one = live.play(rng.choice(live.legal_moves()))
        pasted.append(one.play(rng.choice(one.legal_moves())) if not one.is_over else one)
    start = time.perf_counter()
    hits = sum(within_two_plies(p, g) for p in pasted for g in games)
    per_check = (time.perf_counter() - start) / (len(pasted) * len(games))
    assert hits >= len(games)
    assert per_check < 0.002, f"{per_check * 1000:.3f} ms per check"
