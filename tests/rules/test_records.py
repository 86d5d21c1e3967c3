"""Game records read back whatever a header holds, and state how a game ended (NOTATION.md, "Game records")."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules import veloop
from bot.rules.common import (
    OFF_BOARD,
    QUOTE_LIMIT,
    RecordError,
    header_value,
    quote,
    read_record,
    write_record,
)
from bot.rules.veletas import Game, random_setup

LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


@given(st.text())
def test_any_header_value_reads_back_with_line_breaks_as_spaces(value: str) -> None:
    text = write_record({"Black": value, "White": "w"}, ["c3"])
    record = read_record(text)
    assert record.headers["Black"] == header_value(value)
    assert record.headers["White"] == "w" and record.turns == ("c3",)
    assert len(text.splitlines()) == 4, "one line per header, a blank line, one turn"


@given(st.text().filter(lambda v: not any(ch in LINE_BREAKS for ch in v)))
def test_header_values_without_line_breaks_read_back_exactly(value: str) -> None:
    assert read_record(write_record({"Event": value}, [])).headers["Event"] == value


@pytest.mark.parametrize(
    "name",
    ['```py\nprint("hi")\n```', 'a "quoted" [name]', "back\\slash\\", "\\", '"', "]", "\u2028", "tab\there"],
)
def test_a_game_record_with_any_player_name_replays(name: str) -> None:
    game = random_setup("small", rng=random.Random(1))
    text = game.to_record({"Black": name, "White": name[::-1]})
    record = read_record(text)
    assert record.headers["Black"] == header_value(name) and record.headers["White"] == header_value(name[::-1])
    assert Game.from_record(text).turns == game.turns


@given(st.text(), st.text())
def test_veletas_records_round_trip_any_names(black: str, white: str) -> None:
    game = Game.new("small").play("c3/d4")
    text = game.to_record({"Black": black, "White": white, "Date": "2026.11.23"})
    record = read_record(text)
    assert (record.headers["Black"], record.headers["White"]) == (header_value(black), header_value(white))
    assert Game.from_record(text).turns == game.turns


def finished_game() -> Game:
    rng = random.Random(7)
    game = random_setup("small", rng=rng)
    while game.winner is None:
        game = game.play(rng.choice(game.position.legal_moves()))
    return game


def test_a_resignation_is_stated_with_its_result_and_termination() -> None:
    game = random_setup("small", rng=random.Random(3))
    text = game.to_record({"Result": "0-1", "Termination": "resignation", "Black": "Ada"})
    record = read_record(text)
    assert record.header("Result") == "0-1" and record.header("Termination") == "resignation"
    assert Game.from_record(text).winner is None, "the moves need not reach the result"


def test_a_game_won_on_the_board_says_claims_whatever_the_caller_claims() -> None:
    game = finished_game()
    record = read_record(game.to_record({"Result": "*", "Termination": "resignation"}))
    assert record.header("Result") == game.result != "*"
    assert record.header("Termination") == "claims"


def test_a_game_in_play_has_no_termination() -> None:
    record = read_record(Game.new("small").to_record())
    assert record.header("Result") == "*" and record.header("Termination") is None


@pytest.mark.parametrize("ending", OFF_BOARD)
def test_every_ending_off_the_board_reads_back(ending: str) -> None:
    text = Game.new("small").to_record({"Result": "*" if ending == "cancelled" else "1-0", "Termination": ending})
    assert read_record(text).header("Termination") == ending
    Game.from_record(text)


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"Result": "2-0"}, "Result header"),
        ({"Result": "1-0", "Termination": "boredom"}, "Termination header"),
        ({"Result": "1-0", "Termination": "claims"}, "moves do not end the game"),
    ],
)
def test_endings_notation_does_not_know_are_refused(headers: dict[str, str], message: str) -> None:
    game = Game.new("small")
    with pytest.raises(RecordError, match=message):
        game.to_record(headers)
    forged = game.to_record().replace('[Result "*"]', "".join(f'[{k} "{v}"]\n' for k, v in headers.items()))
    with pytest.raises(RecordError, match=message):
        Game.from_record(forged)


def test_veloop_records_state_how_the_game_ended() -> None:
    resigned = veloop.write_record(["f6<e4"], headers={"Result": "0-1", "Termination": "resignation", "Black": "a\nb"})
    replay = veloop.replay(resigned)
    assert replay.headers["Termination"] == "resignation" and replay.headers["Black"] == "a b"
    rng = random.Random(5)
    position = veloop.Position.start(5)
    moves: list[veloop.Move] = []
    while not position.is_over:
        move = rng.choice(position.legal_moves())
        moves.append(move)
        position = position.play(move)
    text = veloop.write_record(moves, veloop.Position.start(5), {"Termination": "resignation"})
    expected = "passes" if position.lone_passes >= 2 else "confinement"
    assert read_record(text).header("Termination") == expected
    assert read_record(text).header("Result") == veloop.result_text(position)


@given(st.text())
def test_quote_is_short_one_line_and_cannot_close_its_code_span(text: str) -> None:
    quoted = quote(text)
    assert len(quoted) <= QUOTE_LIMIT + 2
    assert len(quoted.splitlines()) == 1
    if quoted != "(nothing)":
        assert quoted.startswith("`") and quoted.endswith("`") and "`" not in quoted[1:-1]


def test_quote_keeps_short_input_and_marks_a_cut() -> None:
    assert quote("  d4-z9 ") == "`d4-z9`"
    long = quote("x" * 6000)
    assert long == "`" + "x" * (QUOTE_LIMIT - 1) + "…`"
    assert quote("<@123> @everyone") == "`<@123> @everyone`", "inside a code span nothing renders as a mention"
