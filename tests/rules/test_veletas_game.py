"""The game as a state machine: setup turns and their restrictions, the pie choice, seats, records."""

import random

import pytest

from bot.rules import Game, IllegalMove, Position, RecordError, random_setup

# A complete small game in the current edition: the first player keeps Black.
SMALL_CURRENT = ["c3/a1", "keep", "b6,e5/g7"]


def test_current_edition_setup_then_pie_then_white_setup_then_play() -> None:
    game = Game.new("small")
    assert (game.phase, game.seat_to_act, game.colour_to_act) == ("setup", "first", None)
    assert game.first_player_colour is None
    assert game.shooters_to_place == 1
    assert game.stone_to_place
    game = game.play("c3/a1")
    assert game.position.piece_at("c3") == "S"
    assert game.position.piece_at("a1") == "b", "the first player's stone is black whoever ends up Black"
    assert (game.phase, game.seat_to_act, game.colour_to_act) == ("pie", "second", None)
    assert game.setup_squares() == []
    assert game.shooters_to_place == 0
    game = game.play("keep")
    assert game.first_player_colour == "black"
    assert (game.phase, game.seat_to_act, game.colour_to_act) == ("setup", "second", "white")
    assert game.shooters_to_place == 2
    game = game.play("e5,b6/g7")
    assert game.turns == ("c3/a1", "keep", "b6,e5/g7")
    assert (game.phase, game.seat_to_act, game.colour_to_act) == ("play", "first", "black")
    assert game.position.to_move == "black"
    assert game.position.variant is not None and game.position.variant.name == "small"
    assert game.last_move is None


def test_swap_makes_the_first_player_white() -> None:
    game = Game.new("small").play("c3/a1").play(" SWAP ")
    assert game.turns[-1] == "swap"
    assert game.first_player_colour == "white"
    assert game.seat_of("white") == "first"
    assert game.seat_of("black") == "second"
    assert game.seat_to_act == "first", "White places the remaining shooters, and the first player is White now"
    game = game.play("b6,e5/g7")
    assert (game.seat_to_act, game.colour_to_act) == ("second", "black")


def test_pie_choice_refuses_anything_but_keep_or_swap() -> None:
    game = Game.new("small").play("c3/a1")
    with pytest.raises(IllegalMove, match=r"keep .* or swap"):
        game.play("b6,e5/g7")
    assert game.seat_of("black") is None, "seats are unknown until the pie choice"


def test_current_edition_keeps_shooters_off_the_perimeter_but_not_stones() -> None:
    game = Game.new("small")
    with pytest.raises(IllegalMove, match="a4 is on the edge of the board"):
        game.play("a4/d4")
    squares = game.setup_squares()
    assert len(squares) == 25
    assert "b2" in squares and "f6" in squares and "a1" not in squares and "g4" not in squares
    assert game.play("d4/a4").position.piece_at("a4") == "b"


def test_classic_edition_setup_has_no_stones_no_pie_and_keeps_shooters_apart() -> None:
    game = Game.new("small", "classic")
    assert (game.seat_to_act, game.colour_to_act, game.first_player_colour) == ("first", "black", "black")
    assert not game.stone_to_place
    with pytest.raises(IllegalMove, match="classic edition places no stone"):
        game.play("d4/a1")
    game = game.play("a1")
    assert "a1" not in game.setup_squares() and "b2" not in game.setup_squares() and "a2" not in game.setup_squares()
    assert "c3" in game.setup_squares() and "g7" in game.setup_squares()
    assert (game.phase, game.seat_to_act, game.colour_to_act) == ("setup", "second", "white")
    with pytest.raises(IllegalMove, match="b2 touches the shooter on a1"):
        game.play("b2,f6")
    with pytest.raises(IllegalMove, match="e5 touches the shooter on d4"):
        game.play("d4,e5")
    game = game.play("g7 d4")
    assert game.turns == ("a1", "d4,g7")
    assert (game.phase, game.seat_to_act, game.colour_to_act) == ("play", "first", "black")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("c3", "this turn places 3 shooters, not 1"),
        ("c3,e5,h4,f7/d7", "this turn places 3 shooters, not 4"),
        ("c3,e5,h4", "this turn also places one black stone"),
        ("c3,c3,h4/d7", "c3 is named twice"),
        ("c3,e5,h4/e5", "a shooter is placed there this turn"),
        ("c3,e5,z4/d7", "z4 is not on the 10×10 board"),
        ("c3,e5,44/d7", "`44` is not a square"),
        ("c3,e5,h4/d7/d8", "more than one /"),
    ],
)
def test_setup_turn_faults_are_named(text: str, message: str) -> None:
    with pytest.raises(IllegalMove, match=message):
        Game.new().play(text)


def test_setup_input_is_forgiving_and_stored_canonically() -> None:
    game = Game.new().play(" H4 e5, C3 x D7 ")
    assert game.turns == ("c3,e5,h4/d7",)
    game = game.play("keep")
    with pytest.raises(IllegalMove, match="e5 is occupied"):
        game.play("e5,b2,b3,b4/j10")
    with pytest.raises(IllegalMove, match="d7 is occupied"):
        game.play("b2,b3,b4,b5/d7")


def test_playing_after_the_end_is_refused() -> None:
    rng = random.Random(7)
    game = random_setup("small", "current", rng)
    while game.phase == "play":
        game = game.play(str(rng.choice(game.position.legal_moves())))
    assert game.phase == "over"
    assert game.seat_to_act is None and game.colour_to_act is None
    assert game.winner_seat == game.seat_of(game.winner or "")
    with pytest.raises(IllegalMove, match="the game is over"):
        game.play("a1")


def test_moves_record_the_history_and_last_move() -> None:
    game = Game.replay(SMALL_CURRENT, variant="small")
    first = game.position.legal_moves()[0]
    after = game.play(f" {str(first).upper()} ")
    assert after.last_move == first
    assert after.turns[-1] == str(first)
    assert after.position == game.position.play(first)
    assert game.last_move is None, "the earlier Game value is unchanged"
    assert game.play(first) == after, "a Move value plays like its text"
    with pytest.raises(AttributeError, match="immutable"):
        game._turns = ()


# -- records ------------------------------------------------------------------------------------


def _finished(variant: str, rules: str, seed: int) -> Game:
    rng = random.Random(seed)
    game = random_setup(variant, rules, rng)
    while game.phase == "play":
        game = game.play(str(rng.choice(game.position.legal_moves())))
    return game


def test_a_record_has_the_headers_and_notes_claims_and_reads_back() -> None:
    game = _finished("small", "current", 3)
    text = game.to_record({"Black": "Ada", "White": "Brahe", "Date": "2026.11.22", "Result": "*"})
    assert '[Game "veletas"]' in text
    assert '[Variant "small"]' in text
    assert '[Rules "current"]' in text
    assert '[Black "Ada"]' in text
    assert f'[Result "{game.result}"]' in text and game.result in ("1-0", "0-1")
    assert "claimed by" in text
    again = Game.from_record(text)
    assert again == game
    assert again.position == game.position
    assert again.turns == game.turns


def test_a_record_with_an_illegal_turn_is_refused_with_its_number() -> None:
    game = Game.replay(SMALL_CURRENT, variant="small").play("b6-b2/b1")
    lines = game.to_record().splitlines()
    lines[-1] = "4. b6-b2/a1"
    with pytest.raises(RecordError, match=r"turn 4: a1 is occupied") as info:
        Game.from_record("\n".join(lines))
    assert info.value.turn == 4


def test_a_record_whose_result_contradicts_its_moves_is_refused() -> None:
    game = _finished("small", "classic", 5)
    wrong = "0-1" if game.result == "1-0" else "1-0"
    text = game.to_record().replace(f'[Result "{game.result}"]', f'[Result "{wrong}"]')
    with pytest.raises(RecordError, match="the header says"):
        Game.from_record(text)


def test_records_of_other_games_or_unknown_variants_are_refused() -> None:
    with pytest.raises(RecordError, match="not veletas"):
        Game.from_record('[Game "veloop"]\n\n1. a1\n')
    with pytest.raises(RecordError, match="unknown variant"):
        Game.from_record('[Game "veletas"]\n[Variant "huge"]\n\n1. a1\n')
    with pytest.raises(RecordError, match="unknown rules"):
        Game.from_record('[Game "veletas"]\n[Rules "modern"]\n\n1. a1\n')


def test_an_abstractplay_style_record_reads_with_the_pie_implied() -> None:
    # AbstractPlay lists the two placements back to back (its pie swap happens outside the move list),
    # names the variant by board size, and writes moves in the same d4-g7/g2 and g2 forms.
    text = '[Game "Veletas"]\n[Variant "size-7"]\n\n1. c3/a1\n2. b6,e5/g7\n3. c3-c6/c3\n4. f5\n'
    game = Game.from_record(text)
    assert game.variant.name == "small"
    assert game.turns == ("c3/a1", "keep", "b6,e5/g7", "c3-c6/c3", "f5")
    assert game.position.piece_at("c3") == "b"
    assert game.position.piece_at("f5") == "w"
    with pytest.raises(RecordError, match="turn 3: c4 is not a shooter"):
        Game.from_record(text.replace("3. c3-c6/c3", "3. c4-c6/c3"))


def test_replay_refuses_with_the_turn_number_and_a_fresh_game_reads_from_its_own_record() -> None:
    with pytest.raises(RecordError, match="turn 2"):
        Game.replay(["c3/a1", "maybe"], variant="small")
    empty = Game.new("medium", "classic")
    assert Game.from_record(empty.to_record()) == empty


def test_position_from_a_game_equals_the_same_position_read_from_its_string() -> None:
    game = Game.replay(SMALL_CURRENT, variant="small")
    assert Position.from_string(str(game.position)) == game.position
    assert hash(Position.from_string(str(game.position))) == hash(game.position)
    assert Position.from_string(str(game.position), "classic") != game.position


@pytest.mark.parametrize(
    ("first", "variant"), [("c3/a1", "small"), ("c3,e5/a1", "medium"), ("c3,e5,g4/a1", "standard")]
)
def test_a_record_without_a_variant_header_is_read_by_its_first_placement(first: str, variant: str) -> None:
    assert Game.from_record(f"1. {first}\n").variant.name == variant
