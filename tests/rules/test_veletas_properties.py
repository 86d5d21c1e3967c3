"""Property tests over random games of every variant and edition (hypothesis chooses the seeds)."""

import random

import pytest
import veletas_brute as brute
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import COLOURS, EDITIONS, VARIANTS, Game, IllegalMove, Move, Position, random_setup

games = st.tuples(st.sampled_from(sorted(VARIANTS)), st.sampled_from(EDITIONS), st.integers(0, 2**32 - 1))


def _random_text(pos: Position, rng: random.Random) -> str:
    """A (shooter, destination, target) triple or a bare target, mostly near-misses of real moves."""
    names = [f"{'abcdefghij'[f]}{r + 1}" for f in range(pos.size) for r in range(pos.size)]
    target = rng.choice(names)
    roll = rng.random()
    if roll < 0.2:
        return target
    shooter = rng.choice(list(pos.unclaimed()) or names) if roll < 0.8 else rng.choice(names)
    if roll < 0.35:
        return f"{shooter}/{target}"
    dest = rng.choice(pos.destinations(shooter) or names) if rng.random() < 0.7 else rng.choice(names)
    return f"{shooter}-{dest}/{target}"


@pytest.mark.slow
@settings(max_examples=24, deadline=None)
@given(games)
def test_random_games_obey_every_invariant(spec: tuple[str, str, int]) -> None:
    variant, rules, seed = spec
    rng = random.Random(seed)
    game = random_setup(variant, rules, rng)
    assert game.phase == "play"
    pos = game.position
    while not pos.is_over:
        moves = pos.legal_moves()
        listed = {str(m) for m in moves}
        assert len(listed) == len(moves), "no move is listed twice"
        assert Position.from_string(str(pos), rules) == pos
        checked = moves if len(moves) <= 300 else rng.sample(moves, 25)
        for move in checked:
            assert Move.parse(str(move)) == move
            assert str(Move.parse(str(move))) == str(move)
            child = pos.play(move)
            assert child.to_move != pos.to_move
            assert child.piece_at(move.target) == ("b" if pos.to_move == "black" else "w")
        for _ in range(12):
            text = _random_text(pos, rng)
            try:
                parsed: Move | None = Move.parse(text)
            except IllegalMove:
                parsed = None  # e.g. d4-d4/g2: refused already as text
            expected = parsed is not None and str(parsed) in listed
            if parsed is not None and parsed.is_stationary and parsed.shooter is not None:
                # The long form d4/g2 names who fires, so that shooter itself must see the target.
                sees = parsed.shooter in pos.unclaimed() and parsed.target in pos.targets(parsed.shooter)
                expected = expected and sees
            if expected:
                assert pos.is_legal(text)
            else:
                assert not pos.is_legal(text), text
                try:
                    pos.play(text)
                except IllegalMove:
                    pass
                else:
                    raise AssertionError(f"{text} is not listed but was played")
        game = game.play(str(rng.choice(moves)))
        pos = game.position
    assert pos.winner in COLOURS, "there are no draws"
    assert game.phase == "over"
    assert pos.score[COLOURS.index(pos.winner)] >= pos.needed_to_win > pos.score[1 - COLOURS.index(pos.winner)]
    replayed = Game.from_record(game.to_record())
    assert replayed.position == pos
    assert replayed.turns == game.turns


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(["small", "medium"]), st.sampled_from(EDITIONS), st.integers(0, 2**32 - 1))
def test_random_games_agree_with_the_plain_implementation(variant: str, rules: str, seed: int) -> None:
    rng = random.Random(seed)
    classic = rules == "classic"
    pos = random_setup(variant, rules, rng).position
    ply = 0
    while not pos.is_over:
        text = str(pos)
        move = rng.choice(pos.legal_moves())
        if ply % 6 == 0:
            board, size, _ = brute.parse(text)
            assert {str(m) for m in pos.legal_moves()} == brute.moves(board, size, classic), text
        after = pos.play(move)
        assert str(after) == brute.play(text, str(move), classic), (text, str(move))
        pos = after
        ply += 1
    board, size, _ = brute.parse(str(pos))
    assert brute.winner(board, size) == pos.winner
