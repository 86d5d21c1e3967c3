"""Veloop rules, one test per rule and per Ludii quirk of VELOOP.md."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from bot.rules import veloop
from bot.rules.common import RecordError, square_name
from bot.rules.veloop import PASS, IllegalMove, Move, Position, perft

# A 5×5 board packed with stacks that all show black, but for a1 (empty) and b2 (white on
# black): Black has exactly two moves, after which nobody can ever move again.
JAMMED = "(wb)(wb)(wb)(wb)(wb)/(wb)(wb)(wb)(wb)(wb)/(wb)(wb)(wb)(wb)(wb)/(wb)(bw)(wb)(wb)(wb)/1(wb)(wb)(wb)(wb)"


def pos(text: str, protocol: str = "122") -> Position:
    return Position.from_string(text, protocol)


def play_all(position: Position, moves: str) -> list[Position]:
    """Every position along a space-separated list of plies, the start included."""
    out = [position]
    for move in moves.split():
        out.append(out[-1].play(move))
    return out


# ---------------------------------------------------------------- boards, strings


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (5, "5/5/2w2/2b2/5 b 1/1 0"),
        (6, "6/6/3w2/3b2/6/6 b 1/1 0"),
        (8, "8/8/8/4w3/4b3/8/8/8 b 1/1 0"),
        (12, "12/12/12/12/12/6w5/6b5/12/12/12/12/12 b 1/1 0"),
    ],
)
def test_every_board_starts_with_black_below_white_beside_the_centre(size: int, text: str) -> None:
    start = Position.start(size)
    assert str(start) == text
    assert Position.from_string(text) == start
    assert start.to_move == "black"
    assert start.result is None


@pytest.mark.parametrize(
    "text",
    [
        "8/8/5b2/5w2/4b3/8/8/8 w 1/2 0",
        "(wb)(bw)3/5/2(bb)2/1(ww)3/5 w 2/2 0",
        "12/12/12/12/12/6w5/6b5/12/12/12/12/11b b 1/2 1",
        JAMMED + " w 1/2 2",
    ],
)
def test_position_strings_round_trip_exactly(text: str) -> None:
    assert str(Position.from_string(text)) == text


@pytest.mark.parametrize(
    ("text", "protocol", "reason"),
    [
        ("8/8/8/4w3/4b3/8/8/8 b 1/1", "122", "4 fields"),
        ("7/7/7/7/7/7/7 b 1/1 0", "122", "7×7"),
        ("8/8/8/4w3/4b3/8/8/9 b 1/1 0", "122", "rank 1"),
        ("8/8/8/4w3/4x3/8/8/8 b 1/1 0", "122", "unexpected `x`"),
        ("8/8/8/4w3/4(b)3/8/8/8 b 1/1 0", "122", "unexpected"),
        ("8/8/8/4w3/4b3/8/8/8 x 1/1 0", "122", "side to move"),
        ("8/8/8/4w3/4b3/8/8/8 b 2/1 0", "122", "ply of the turn"),
        ("8/8/8/4w3/4b3/8/8/8 b 1/2 0", "alternating", "alternating"),
        ("8/8/8/4w3/4b3/8/8/8 b 1/1 3", "122", "lone passes"),
        ("8/8/8/4w3/4b3/8/8/8 b 2/2 1", "122", "second ply"),
        ("8/8/8/4w3/4b3/8/8/8 b 1/1 0", "124", "protocol"),
    ],
)
def test_bad_position_strings_say_what_is_wrong(text: str, protocol: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        Position.from_string(text, protocol)


def test_positions_are_values_and_the_protocol_is_part_of_them() -> None:
    a = Position.start(8, "122")
    assert a == Position.start() and hash(a) == hash(Position.start())
    assert a != Position.start(8, "alternating")
    assert len({a, Position.start(), Position.start(5)}) == 2


# ---------------------------------------------------------------- perft


@pytest.mark.parametrize(("depth", "count"), [(1, 2), (2, 8), (3, 32), (4, 206), (5, 1530)])
def test_perft_from_the_8x8_start_matches_ludii(depth: int, count: int) -> None:
    assert perft(Position.start(), depth) == count


def test_perft_counts_a_forced_pass_as_one_move_and_a_finished_game_as_none() -> None:
    jammed = pos(JAMMED + " b 1/2 0")
    assert perft(jammed, 1) == 2
    # each of Black's two moves leaves only a pass for Black, then for White, then Black's pass draws
    assert perft(jammed, 2) == 2
    assert perft(jammed, 4) == 2
    assert perft(jammed, 5) == 0
    assert perft(Position.start(), 0) == 1


def test_divide_splits_perft_by_first_move() -> None:
    assert veloop.divide(Position.start(), 3) == {"d6<e4": 16, "f6<e4": 16}


# ---------------------------------------------------------------- a move: support, leap, swap


def test_the_first_move_places_a_knights_leap_away_and_swaps_the_two_cells_between() -> None:
    start = Position.start()
    assert [str(m) for m in start.legal_moves()] == ["d6<e4", "f6<e4"]
    after = start.play("f6<e4")
    assert str(after) == "8/8/5b2/5w2/4b3/8/8/8 w 1/2 0"  # VELOOP.md's worked example
    assert after.shows("f6") == "black" and after.shows("f5") == "white" and after.shows("e5") is None


def test_the_support_must_be_topped_by_the_mover() -> None:
    with pytest.raises(IllegalMove, match="no stone of yours tops e5"):
        Position.start().play("f7<e5")
    with pytest.raises(IllegalMove, match="no stone of yours tops c3"):
        Position.start().play("d5<c3")


def test_the_target_must_be_a_knights_leap_from_the_support() -> None:
    with pytest.raises(IllegalMove, match="f7 is not a knight's leap from e4"):
        Position.start().play("f7<e4")


def test_two_empty_swap_squares_forbid_the_move() -> None:
    with pytest.raises(IllegalMove, match="the swap squares f4 and f5 are both empty"):
        Position.start().play("g5<e4")


def test_two_swap_squares_showing_the_same_colour_forbid_the_move() -> None:
    with pytest.raises(IllegalMove, match="the swap squares e5 and f5 both show black"):
        pos("8/8/8/4bb2/4b3/8/8/8 b 1/1 0").play("f6<e4")


def test_two_stacks_trade_only_their_top_stones() -> None:
    # e5: white on black, f5: black on white
    after = pos("8/8/8/4(bw)(wb)2/4b3/8/8/8 b 1/1 0").play("f6<e4")
    assert after.stack("e5") == ("black", "black")
    assert after.stack("f5") == ("white", "white")


def test_a_stack_swapped_with_an_empty_cell_uncovers_its_lower_stone() -> None:
    """Ludii quirk: (white on black, nothing) ends up showing (black, white), not (nothing, white on black)."""
    after = pos("8/8/8/4(bw)3/4b3/8/8/8 b 1/1 0").play("f6<e4")
    assert after.stack("e5") == ("black",)
    assert after.stack("f5") == ("white",)
    assert after.stack("f6") == ("black",)


def test_the_uncovering_swap_as_found_in_a_ludii_like_game() -> None:
    before = pos("(wb)(ww)wbwb/b(wb)bwww/(bw)(bw)w(wb)bw/b(ww)bbbw/(wb)wb(bw)wb/bbb1bw w 2/2 0")
    assert before.swap_squares("c1<e2") == ("d1", "d2")
    after = before.play("c1<e2")
    assert (after.shows("d2"), after.shows("d1")) == ("black", "white")
    assert after.stack("c1") == ("black", "white")


def test_the_swap_squares_of_a_move_lie_side_by_side_between_target_and_support() -> None:
    assert Move("f6", "e4").swap_squares == ("e5", "f5")
    assert Move("g5", "e4").swap_squares == ("f4", "f5")
    assert Move("c3", "e2").swap_squares == ("d2", "d3")
    assert Move("d2", "e4").swap_squares == ("d3", "e3")
    assert PASS.swap_squares is None
    assert Move("f6", "e4").describe() == "f6<e4, swaps e5 and f5"


# ---------------------------------------------------------------- over-placement


def test_an_occupied_target_is_refused_while_an_empty_target_is_legal() -> None:
    position = pos("8/8/5w2/4w3/4b3/8/8/8 b 1/1 0")
    with pytest.raises(IllegalMove, match="f6 is taken while an empty target is still legal"):
        position.play("f6<e4")
    assert all(position.shows(m.target or "") is None for m in position.legal_moves())


def test_a_stack_of_two_is_never_a_target() -> None:
    with pytest.raises(IllegalMove, match="stack of two is never a target"):
        pos("8/8/5(bw)2/4w3/4b3/8/8/8 b 1/1 0").play("f6<e4")


def test_your_own_stone_is_never_a_target() -> None:
    with pytest.raises(IllegalMove, match="your own stone"):
        pos("8/8/5b2/4w3/4b3/8/8/8 b 1/1 0").play("f6<e4")


def test_with_no_empty_target_left_you_place_on_a_single_enemy_stone() -> None:
    position = pos("www1b/wbwbw/bwbb1/bbbww/1wb1b w 1/1 0", "alternating")
    moves = position.legal_moves()
    assert len(moves) == 12
    assert all(position.stack(m.target or "") == ("black",) for m in moves)
    # empty cells remain, but no swap next to them is allowed
    assert all(position.shows(sq) is None for sq in ("d5", "e3", "a1", "d1"))
    after = position.play("c3<b5")
    assert after.stack("c3") == ("black", "white")


# A 5×5 game (protocol 122) in which Black over-places, and at the last ply an empty target is
# legal for Black again, so it is compulsory again.
AFRESH = (
    "b4<c2 c1<b3 a5<b3 c4<b2 d3<b2 d4<c2 a3<c2 d2<b3 b4<c2 b5<d4 c4<a5 e4<c3 b1<d2 e1<d3 d5<b4 "
    "d1<c3 a2<c1 c2<e1 e5<d3 e4<d2 d3<b2 c4<e5 c2<e1 e3<d1 b1<d2"
)


def _overplacements(position: Position) -> list[str]:
    """Every (target, support) that would be a legal over-placement if empty targets were not compulsory."""
    size = position.size
    mine, theirs = position.to_move, "white" if position.to_move == "black" else "black"
    names = [square_name(f, r) for f in range(size) for r in range(size)]
    out = []
    for t in names:
        if position.stack(t) != (theirs,):
            continue
        for s in names:
            swap = Move(t, s).swap_squares
            if swap and position.shows(s) == mine and position.shows(swap[0]) != position.shows(swap[1]):
                out.append(f"{t}<{s}")
    return out


def test_over_placement_is_judged_afresh_at_every_move() -> None:
    line = play_all(Position.start(5), AFRESH)
    moves = AFRESH.split()
    last = line[-2]
    over = [k for k, m in enumerate(moves[:-1]) if line[k].to_move == last.to_move and line[k].shows(m[:2])]
    assert over, "the last mover over-placed earlier in this game"
    earlier = line[over[-1]]
    assert all(earlier.shows(m.target or "") is not None for m in earlier.legal_moves())
    assert all(last.shows(m.target or "") is None for m in last.legal_moves())
    candidates = _overplacements(last)
    assert candidates
    with pytest.raises(IllegalMove, match="taken while an empty target is still legal"):
        last.play(candidates[0])


# A 5×5 game (protocol 122) in which d2 is over-placed, loses its top stone to a swap, and is
# over-placed again by the last ply: the limit is the height of two, not once per cell.
TWICE = (
    "b4<c2 c5<b3 d2<b3 d1<c3 a4<c3 b3<c5 b2<c4 a2<b4 c1<a2 a5<c4 d4<c2 b2<d1 c3<d1 e1<d3 e5<d3 "
    "b4<a2 e3<d1 d2<c4 c2<e1 d5<e3 c4<b2 a3<c2 e4<c5 a1<b3 d1<e3 b4<d5 c3<b1 b2<d1 e4<c5 b5<d4 "
    "c1<a2 d4<b3 c5<d3 d3<b2 e2<c3 a3<c2 e5<d3 c2<e1 e3<d1 b3<c5 e1<d3 d2<e4"
)


def test_a_cell_can_be_over_placed_again_once_a_swap_lowers_it() -> None:
    line = play_all(Position.start(5), TWICE)
    heights = [len(p.stack("d2")) for p in line]
    assert 2 in heights[:-2]
    assert heights[-2] == 1 and heights[-1] == 2
    assert line[-1].stack("d2")[1] == line[-2].to_move


# ---------------------------------------------------------------- confinement and the end


def test_a_stone_shut_in_by_king_steps_is_confined_and_a_diagonal_gap_frees_it() -> None:
    open_corner = pos("8/8/8/2bbb3/2bwb3/3bb3/8/8 b 1/1 0")
    assert open_corner.result is None and open_corner.confined == ((), ())
    shut = pos("8/8/8/2bbb3/2bwb3/2bbb3/8/8 b 1/1 0")
    assert shut.confined == ((), ("d4",))
    assert shut.scores == (0, -1)
    assert shut.result == "black"


def test_an_enclosed_empty_pocket_does_not_free_the_stone_in_it() -> None:
    shut = pos("8/8/8/1bbbb3/1bw1b3/1bbbb3/8/8 w 1/1 0")
    assert shut.confined.white == ("c4",)


def test_stones_on_the_ring_are_always_free_and_lower_stones_never_count() -> None:
    assert pos("8/8/8/8/8/8/bb6/wb6 b 1/1 0").result is None
    assert pos("8/8/8/2bbb3/2b(wb)b3/2bbb3/8/8 b 1/1 0").result is None


def test_the_game_ends_on_the_first_ply_of_a_double_turn_that_confines() -> None:
    before = pos("bbwwb1/wwbbb1/wwbb1w/wbbwb1/bwww2/1w4 b 1/2 0")
    after = before.play("e4<c3")
    assert after.confined == ((), ("d4",))
    assert after.result == "black" and after.is_over
    assert after.legal_moves() == ()
    for attempt in ("a1<b3", "a1", Move("a1", "b3"), "pass"):
        with pytest.raises(IllegalMove, match="the game is over"):
            after.play(attempt)


def test_a_move_that_confines_only_your_own_stones_loses() -> None:
    before = pos("bwwbb/bbbbw/wb(bw)wb/wwbww/bwwwb b 1/1 0", "alternating")
    after = before.play("a2<b4")
    assert after.confined == (("c2",), ())
    assert after.scores == (-1, 0)
    assert after.result == "white"


def test_equal_non_zero_confinement_is_a_draw() -> None:
    before = pos(
        "bwwbb(wb)/wwwb(bw)(wb)/(bw)b(wb)w(bb)(wb)/(ww)(bw)wb(wb)(wb)/w(bb)(bb)(wb)bw/ww(bw)b(bw)(wb) w 1/1 0",
        "alternating",
    )
    after = before.play("d3<c5")
    assert after.scores == (-1, -1)
    assert after.result == "draw"


# ---------------------------------------------------------------- turns, passes, draws


def test_protocol_122_gives_black_one_ply_then_two_each() -> None:
    line = play_all(Position.start(), "f6<e4 g7<f5 h6<f5 h7<g5 f8<h7")
    assert [(p.to_move, p.ply, p.plies) for p in line] == [
        ("black", 1, 1),
        ("white", 1, 2),
        ("white", 2, 2),
        ("black", 1, 2),
        ("black", 2, 2),
        ("white", 1, 2),
    ]


def test_the_alternating_protocol_changes_sides_every_ply() -> None:
    line = play_all(Position.start(8, "alternating"), "f6<e4 g7<f5 h8<g6")
    assert [p.to_move for p in line] == ["black", "white", "black", "white"]
    assert all((p.ply, p.plies) == (1, 1) for p in line)


def test_you_may_not_pass_while_a_move_exists() -> None:
    with pytest.raises(IllegalMove, match="may not pass while a move exists"):
        Position.start().play("pass")
    with pytest.raises(IllegalMove, match="may not pass"):
        Position.start().play(PASS)


def test_a_forced_pass_is_the_only_move_and_after_a_placement_it_is_not_a_lone_pass() -> None:
    """Black places then passes, White passes, Black passes: drawn at Black's last pass, not before."""
    start = pos(JAMMED + " b 1/2 0")
    assert [str(m) for m in start.legal_moves()] == ["a1<b3", "a1<c2"]
    placed = start.play("a1<b3")
    assert placed.legal_moves() == (PASS,)
    black_pass = placed.play("pass")
    assert black_pass.lone_passes == 0 and black_pass.result is None
    white_pass = black_pass.play("pass")
    assert white_pass.lone_passes == 1 and white_pass.result is None
    draw = white_pass.play("pass")
    assert draw.lone_passes == 2
    assert draw.result == "draw" and draw.legal_moves() == ()


def test_a_pass_on_the_first_ply_of_a_double_turn_loses_the_second() -> None:
    black_pass = pos(JAMMED + " b 1/2 0").play("a1<b3").play("pass")
    assert (black_pass.to_move, black_pass.ply) == ("white", 1)
    white_pass = black_pass.play("pass")
    assert (white_pass.to_move, white_pass.ply, white_pass.plies) == ("black", 1, 2)


def test_under_alternation_two_lone_passes_in_a_row_draw() -> None:
    placed = pos(JAMMED + " b 1/1 0", "alternating").play("a1<c2")
    assert placed.to_move == "white" and placed.lone_passes == 0
    white_pass = placed.play("pass")
    assert white_pass.lone_passes == 1 and white_pass.result is None
    assert white_pass.play("pass").result == "draw"


# ---------------------------------------------------------------- typed moves


@pytest.mark.parametrize("text", ["f6<e4", "F6-E4", "f6 e4", " f6 < e4 ", "F6<e4", "f 6 - e 4", "f6"])
def test_forgiving_input_forms_all_mean_the_same_move(text: str) -> None:
    start = Position.start()
    assert start.parse_move(text) == Move("f6", "e4")
    assert start.play(text) == start.play(Move("f6", "e4"))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("f6xe4", "not a move"),
        ("f6<e4<d2", "not a move"),
        ("", "not a move"),
        ("i6<e4", "not on the 8×8 board"),
        ("g5", "no legal move places on g5"),
    ],
)
def test_malformed_or_unresolvable_input_is_refused_with_what_was_expected(text: str, reason: str) -> None:
    with pytest.raises(IllegalMove, match=reason):
        Position.start().play(text)


def test_a_move_built_with_squares_off_the_board_is_refused() -> None:
    with pytest.raises(IllegalMove, match="not on the 5×5 board"):
        Position.start(5).play(Move("f6", "e4"))
    with pytest.raises(IllegalMove, match="not a square"):
        Position.start().play(Move("zz", "e4"))
    assert Move("zz", "e4").swap_squares is None


def test_a_target_alone_is_refused_when_two_supports_reach_it() -> None:
    position = pos("8/8/8/3w4/2b1b3/8/8/8 b 1/1 0")
    targets = [m.target for m in position.legal_moves()]
    assert targets.count("d6") == 2
    with pytest.raises(IllegalMove, match="d6<c4 or d6<e4"):
        position.play("d6")


def test_move_parse_needs_the_support_and_reads_pass() -> None:
    assert Move.parse("F6 - E4") == Move("f6", "e4")
    assert Move.parse("pass") == PASS and str(PASS) == "pass"
    with pytest.raises(ValueError, match="support"):
        Move.parse("f6")


# ---------------------------------------------------------------- records and the command line


def _random_game(size: int, protocol: str, seed: int) -> list[Move]:
    rng = random.Random(seed)
    position, moves = Position.start(size, protocol), []
    while not position.is_over:
        move = rng.choice(position.legal_moves())
        moves.append(move)
        position = position.play(move)
    return moves


def test_a_written_record_replays_to_the_same_game() -> None:
    moves = _random_game(6, "alternating", 4)
    text = veloop.write_record(moves, Position.start(6, "alternating"), {"Black": "ann", "White": "bob"})
    assert '[Game "veloop"]' in text and '[Board "6x6"]' in text and '[Protocol "alternating"]' in text
    game = veloop.replay(text)
    assert game.moves == tuple(moves)
    final = game.final
    assert final.result is not None
    assert f'[Result "{veloop.result_text(final)}"]' in text
    assert game.headers["Black"] == "ann"


def test_a_record_from_a_custom_position_keeps_it() -> None:
    start = pos(JAMMED + " b 1/2 0")
    text = veloop.write_record(["a1<b3", "pass", "pass", "pass"], start)
    assert "[Position" in text and '[Result "1/2-1/2"]' in text
    assert veloop.replay(text).final.result == "draw"


def test_a_record_with_an_illegal_ply_is_refused_with_its_number() -> None:
    text = '[Game "veloop"]\n[Board "8x8"]\n[Protocol "122"]\n\n1. f6<e4\n2. g7<f5\n3. c4<e5\n'
    with pytest.raises(RecordError, match=r"turn 3: .*no stone of yours tops e5") as info:
        veloop.replay(text)
    assert info.value.turn == 3


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ('[Game "veletas"]', "not a Veloop record"),
        ('[Game "veloop"]\n[Board "7x7"]', "7×7"),
        ('[Game "veloop"]\n[Board "8x6"]', "Board header"),
        ('[Game "veloop"]\n[Protocol "3"]', "protocol"),
    ],
)
def test_records_with_bad_headers_are_refused(headers: str, reason: str) -> None:
    with pytest.raises(RecordError, match=reason):
        veloop.replay(headers + "\n\n1. f6<e4\n")


def test_a_finished_record_must_claim_the_result_its_plies_give_but_a_stopped_one_may_claim_any() -> None:
    moves = _random_game(5, "122", 2)
    text = veloop.write_record(moves, Position.start(5))
    actual = veloop.replay(text).final.result
    wrong = "0-1" if actual != "white" else "1-0"
    with pytest.raises(RecordError, match="Result header"):
        veloop.replay(text.replace(veloop.result_text(veloop.replay(text).final), wrong))
    resigned = veloop.replay(veloop.write_record(["f6<e4"], headers={"Result": "0-1"}))
    assert resigned.final.result is None and resigned.headers["Result"] == "0-1"
    assert f'[Result "{veloop.result_text(veloop.replay(text).final)}"]' in veloop.write_record(
        moves, Position.start(5), {"Result": wrong}
    )


def test_writing_an_illegal_game_is_refused() -> None:
    with pytest.raises(RecordError, match="turn 2"):
        veloop.write_record(["f6<e4", "f6<e4"])


def test_the_cli_adapter_prints_perft_moves_and_replays() -> None:
    assert veloop.cli_perft("start", 4) == ["206"]
    assert veloop.cli_perft("start:5", 1, "alternating") == [str(len(Position.start(5).legal_moves()))]
    assert veloop.cli_perft("start", 2, split=True) == ["d6<e4: 4", "f6<e4: 4", "total: 8"]
    lines = veloop.cli_play("8/8/8/4w3/4b3/8/8/8 b 1/1 0", ["F6-E4"])
    assert lines[0] == "f6<e4, swaps e5 and f5: 8/8/5b2/5w2/4b3/8/8/8 w 1/2 0"
    assert lines[-1] == "result: game in progress (*)"
    record = veloop.write_record(_random_game(5, "122", 1), Position.start(5))
    out = veloop.cli_replay(record)
    assert out[0].endswith("plies, all legal")
    assert out[-1].startswith("result: ")
    with pytest.raises(ValueError, match="not a knight's leap"):
        veloop.cli_play("start", ["f7<e4"])


def test_the_rules_import_nothing_from_discord_sqlite_or_pillow() -> None:
    code = (
        "import sys, bot.rules.veloop\n"
        "banned = {'discord', 'aiosqlite', 'PIL', 'asyncio', 'sqlite3'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in banned))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_stones_lists_every_occupied_cell_with_its_stack_for_the_renderer() -> None:
    assert Position.start().stones() == {"e4": ("black",), "e5": ("white",)}
    after = pos("8/8/8/4(bw)3/4b3/8/8/8 b 1/1 0")
    assert after.stones() == {"e4": ("black",), "e5": ("black", "white")}


def test_random_playout_reports_how_a_random_game_from_the_position_ended() -> None:
    results = {veloop.random_playout(Position.start(5), random.Random(seed)) for seed in range(30)}
    assert results <= {"black", "white", "draw"} and len(results) >= 2
    final, _ = veloop.playout(Position.start(5), random.Random(3))
    assert veloop.random_playout(Position.start(5), random.Random(3)) == final.result
