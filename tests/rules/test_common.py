import pytest

from bot.rules.common import RecordError, parse_square, read_record, square_name, write_record


def test_square_names_round_trip_on_every_board_size() -> None:
    for size in (5, 7, 9, 10, 12):
        for f in range(size):
            for r in range(size):
                assert parse_square(square_name(f, r), size) == (f, r)


@pytest.mark.parametrize("text", ["k1", "a11", "a0", "a01", "", "4d", "dd"])
def test_bad_squares_are_refused_with_a_reason(text: str) -> None:
    with pytest.raises(ValueError, match=r"square|board"):
        parse_square(text, 10)


def test_record_round_trips_with_comments_and_numbers() -> None:
    text = write_record({"Game": "veletas", "Variant": "small"}, ["c3/d7", "keep", "d4-g7/g2"], [None, None, "x"])
    rec = read_record(text)
    assert rec.turns == ("c3/d7", "keep", "d4-g7/g2")
    assert rec.comments == (None, None, "x")
    assert rec.header("variant") == "small"


def test_record_with_a_skipped_turn_number_is_refused() -> None:
    with pytest.raises(RecordError, match="turn 3"):
        read_record('[Game "veletas"]\n\n1. a 2. b 4. c\n')


def test_record_reads_several_turns_per_line_and_ignores_result_token() -> None:
    rec = read_record('[Game "veletas"]\n\n1. a {note} 2. b\n3.c 1-0\n')
    assert rec.turns == ("a", "b", "c")
    assert rec.comments == ("note", None, None)
