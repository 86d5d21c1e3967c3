"""NOTATION.md: position strings and move text, both ways, and the refusals for bad input."""

import pytest

from bot.rules import VARIANTS, IllegalMove, Move, Position

SAMPLE = "10/10/3S6/6S3/2b7/4S1S3/1S8/5w1S2/2S7/10 b"


def test_the_notation_sample_reads_square_by_square() -> None:
    pos = Position.from_string(SAMPLE)
    assert pos.size == 10
    assert pos.pieces() == {
        "d8": "S",
        "g7": "S",
        "c6": "b",
        "e5": "S",
        "g5": "S",
        "b4": "S",
        "f3": "w",
        "h3": "S",
        "c2": "S",
    }
    assert pos.unclaimed() == ("c2", "h3", "b4", "e5", "g5", "g7", "d8")
    assert pos.score == (0, 0)
    assert pos.needed_to_win == 4
    assert (pos.winner, pos.is_over, pos.rules, pos.last_claims) == (None, False, "current", ())


@pytest.mark.parametrize(
    "text",
    [
        SAMPLE,
        "10/10/3S6/6S3/2b7/4S1S3/1S8/5w1S2/2S7/10 w",
        "9/9/9/4B4/9/2W3S2/9/1S5S1/9 w",
        "bwBWSbwBW/9/9/9/9/9/9/9/9 b",
        "7/7/3S3/7/7/7/7 b",
        "12/12/12/12/12/5S6/12/12/12/12/12/S11 b",
    ],
)
def test_position_strings_round_trip_exactly(text: str) -> None:
    assert str(Position.from_string(text)) == text
    assert str(Position.from_string(text, "classic")) == text


def test_variant_is_none_for_an_unusual_board_and_the_majority_rule_applies() -> None:
    pos = Position.from_string("12/12/12/12/12/5S6/12/12/12/12/12/S11 b")
    assert pos.variant is None
    assert pos.needed_to_win == 2
    assert Position.from_string("9/9/9/4B4/9/2W3S2/9/1S5S1/9 w").variant == VARIANTS["medium"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("10/10/3S6 b", "3 to 26 ranks|describes"),
        ("7/7/7/7/7/7 b", "describes 7 squares, but the board is 6 wide"),
        ("7/7/3S3/7/7/7/6 b", "rank 1 describes 6 squares"),
        ("7/7/3S4/7/7/7/7 b", "rank 5 describes 8 squares"),
        ("7/7/3X3/7/7/7/7 b", "`X` is not a piece"),
        ("7/7/3S3/7/7/7/7 x", "side to move must be b or w"),
        ("7/7/3S3/7/7/7/7", "a position is the ranks separated by /"),
        ("7/7/7/7/7/7/7 b", "at least one shooter"),
        ("7/7/3S03/7/7/7/7 b", "is not a count of empty squares"),
        ("1/1 b", "3 to 26 ranks"),
    ],
)
def test_bad_position_strings_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Position.from_string(text)


def test_unknown_rules_edition_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown rules edition `modern`"):
        Position.from_string(SAMPLE, "modern")


@pytest.mark.parametrize(
    ("text", "canonical", "stationary"),
    [
        ("d4-g7/g2", "d4-g7/g2", False),
        ("D4-G7/G2", "d4-g7/g2", False),
        (" d4 - g7 / g2 ", "d4-g7/g2", False),
        ("d4-g7xg2", "d4-g7/g2", False),
        ("d4–g7/g2", "d4-g7/g2", False),
        ("d4-d9/d4", "d4-d9/d4", False),
        ("g2", "g2", True),
        (" G2 ", "g2", True),
        ("d4/g2", "g2", True),
        ("d4xg2", "g2", True),
        ("j10", "j10", True),
        ("a1-j10/a1", "a1-j10/a1", False),
    ],
)
def test_move_text_is_read_forgivingly_and_printed_canonically(text: str, canonical: str, stationary: bool) -> None:
    move = Move.parse(text)
    assert str(move) == canonical
    assert move.is_stationary is stationary
    assert Move.parse(canonical) == move
    assert hash(Move.parse(canonical)) == hash(move)


def test_move_fields() -> None:
    move = Move.parse("d4-g7/g2")
    assert (move.shooter, move.destination, move.target) == ("d4", "g7", "g2")
    long_form = Move.parse("d4/g2")
    assert (long_form.shooter, long_form.destination, long_form.target) == ("d4", None, "g2")
    assert Move.parse("g2").shooter is None
    assert Move.parse("g2") == long_form


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is not a move: expected a shot like g2, or a move like d4-g7/g2"),
        ("d4-g7", "has no shot"),
        ("d4-d4/g2", "a shooter that moves must leave its square"),
        ("d4-g7/g2/h1", "is not a move"),
        ("4d", "is not a move"),
        ("d0", "ranks start at 1"),
        ("keep", "is not a move"),
    ],
)
def test_bad_move_text_says_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(IllegalMove, match=message):
        Move.parse(text)


def test_a_move_to_somewhere_must_name_its_shooter() -> None:
    with pytest.raises(IllegalMove, match="must name the shooter"):
        Move(None, "g7", "g2")


def test_positions_are_values() -> None:
    a = Position.from_string(SAMPLE)
    b = Position.from_string(SAMPLE)
    assert a == b and hash(a) == hash(b)
    assert a != Position.from_string(SAMPLE.replace(" b", " w"))
    assert a != Position.from_string(SAMPLE, "classic")
    assert len({a, b}) == 1
    after = a.play("g2")
    assert after != a
    assert a.piece_at("g2") is None, "playing never changes the position it starts from"
    with pytest.raises(AttributeError, match="immutable"):
        a._to_move = 1


def test_squares_off_the_board_are_refused_as_a_player_would_read_it() -> None:
    pos = Position.from_string(SAMPLE)
    with pytest.raises(IllegalMove, match=r"k1 is not on the 10×10 board \(a1–j10\)"):
        pos.piece_at("k1")
    with pytest.raises(IllegalMove, match="is not a square"):
        pos.destinations("11")
