"""Veloop boards as players see them: stacks unlike single stones, the last move's target, support and
swap, confined stones, hints for the guided move, every board size, and replays."""

from __future__ import annotations

import hashlib
import io
import random
import subprocess
import sys
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image

from bot import render
from bot.render import THEMES, Layout, Theme, VeloopHints, layout, veloop_board_png, veloop_game_png, veloop_replay_gif
from bot.rules.common import FILES
from bot.rules.veloop import PROTOCOLS, SIZES, Move, Position, playout, write_record

RGB = tuple[int, int, int]
THEME_NAMES = sorted(THEMES)


def decode(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def pixel(im: Image.Image, lay: Layout, square: str, dx: float = 0.0, dy: float = 0.0) -> RGB:
    """The pixel at a square's centre, moved by fractions of a square (dy grows downwards)."""
    x, y = lay.center(square)
    value = im.getpixel((x + round(dx * lay.square), y + round(dy * lay.square)))
    assert isinstance(value, tuple)
    return (value[0], value[1], value[2])


def distance(a: RGB, b: RGB) -> float:
    return float(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5)


def nearest(colour: RGB, candidates: Mapping[str, RGB | list[RGB]]) -> str:
    """The name whose colour (or closest of its colours) is nearest."""

    def gap(name: str) -> float:
        want = candidates[name]
        return min(distance(colour, c) for c in (want if isinstance(want, list) else [want]))

    return min(candidates, key=gap)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def square_colour(theme: Theme, square: str) -> RGB:
    file, rank = FILES.index(square[0]), int(square[1:]) - 1
    return theme.dark if (file + rank) % 2 == 0 else theme.light


def looks(theme: Theme) -> dict[str, RGB | list[RGB]]:
    """Stones by their edge and lit colours (a shaded black stone is grey where the light falls), and squares."""
    return {
        "black": [theme.black, mix(theme.black, (255, 255, 255), 0.2)],
        "white": [theme.white, mix(theme.white, theme.white_rim, 0.12)],
        "light": theme.light,
        "dark": theme.dark,
    }


def board(im: Image.Image, lay: Layout) -> Image.Image:
    return im.crop((0, lay.header, lay.width, lay.height))


def header(im: Image.Image, lay: Layout) -> Image.Image:
    return im.crop((0, 0, lay.width, lay.header))


# Single stones on row 3, and every stack of two on row 4: black on white, white on black, and
# the same colour twice (a swap of two stacks' tops can make those).
STACKS = Position.from_string("5/1(wb)(bw)(bb)(ww)/1bw2/2b2/5 w 1/1 0", "alternating")
STACKED = {"b4": ("white", "black"), "c4": ("black", "white"), "d4": ("black", "black"), "e4": ("white", "white")}
SINGLE = {"b3": "black", "c3": "white", "c2": "black"}


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_a_stack_of_two_looks_taller_than_a_single_stone_and_shows_its_top(theme: str) -> None:
    look = THEMES[theme]
    im = decode(veloop_board_png(STACKS, theme=theme))
    lay = layout(5)
    for square, (lower, upper) in STACKED.items():
        # the top stone is the one drawn whole; the lower one shows below it
        assert nearest(pixel(im, lay, square, 0, -0.1), looks(look)) == upper, (theme, square)
        assert nearest(pixel(im, lay, square, 0, 0.4), looks(look)) == lower, (theme, square)
        assert distance(pixel(im, lay, square, 0, 0.44), square_colour(look, square)) > 60, (theme, square)
    for square, colour in SINGLE.items():
        assert nearest(pixel(im, lay, square, 0, -0.1), looks(look)) == colour, (theme, square)
        # below a single stone (and its shadow) is the bare board, where a stack's lower stone is
        assert pixel(im, lay, square, 0, 0.44) == square_colour(look, square), (theme, square)
    # the empty squares stay plain
    for square in ("a1", "e5", "a4"):
        assert pixel(im, lay, square) == square_colour(look, square)


def test_a_stack_and_a_single_stone_of_one_top_colour_differ_in_every_theme() -> None:
    single = Position.from_string("5/5/2b2/5/5 b 1/1 0", "alternating")
    for lower in ("b", "w"):
        stacked = Position.from_string(f"5/5/2({lower}b)2/5/5 b 1/1 0", "alternating")
        for theme in THEME_NAMES:
            lay = layout(5)
            a = decode(veloop_board_png(single, theme=theme))
            b = decode(veloop_board_png(stacked, theme=theme))
            x, y = lay.origin((2, 2))
            cell = (x, y, x + lay.square, y + lay.square)
            changed = sum(1 for p, q in zip(a.crop(cell).tobytes(), b.crop(cell).tobytes(), strict=True) if p != q)
            assert changed > 0.1 * lay.square**2, (theme, lower, changed)


# The first move of an 8×8 game: Black's stone on f6 from e4; White's e5 moves over to f5.
START = Position.start(8)
FIRST = Move("f6", "e4")


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_the_last_move_marks_its_target_support_leap_and_swapped_squares(theme: str) -> None:
    look = THEMES[theme]
    assert FIRST.swap_squares == ("e5", "f5")
    after = START.play(FIRST)
    im = decode(veloop_board_png(after, last_move=FIRST, theme=theme))
    lay = layout(8)
    # corners the leap from e4's centre to f6's centre stays clear of
    assert pixel(im, lay, "f6", 0.45, -0.45) == mix(square_colour(look, "f6"), look.move, look.tint)
    assert pixel(im, lay, "e4", -0.45, 0.45) == mix(square_colour(look, "e4"), look.move, look.tint / 2)
    assert pixel(im, lay, "e5", -0.45, -0.45) == mix(square_colour(look, "e5"), look.shot, look.tint)
    assert pixel(im, lay, "f5", 0.45, 0.45) == mix(square_colour(look, "f5"), look.shot, look.tint)
    # the leap crosses e5, now empty, and a double-headed arrow sits on the edge e5 and f5 share
    assert distance(pixel(im, lay, "e5", 0.36, 0.25), look.move_line) < 30
    assert distance(pixel(im, lay, "e5", 0.5, 0), look.shot_line) < 30
    for square in ("a1", "d4", "g6", "e6"):
        assert pixel(im, lay, square, 0.45, -0.45) == square_colour(look, square), square
    # the stones are where the rules put them: the new one on f6, White's moved to f5
    assert nearest(pixel(im, lay, "f6", 0, -0.1), looks(look)) == "black"
    assert nearest(pixel(im, lay, "f5", -0.2, -0.1), looks(look)) == "white"
    # without the last move nothing is marked
    plain = decode(veloop_board_png(after, theme=theme))
    for square, corner in (("f6", (0.45, -0.45)), ("e4", (-0.45, 0.45)), ("e5", (-0.45, -0.45))):
        assert pixel(plain, lay, square, *corner) == square_colour(look, square)
    assert pixel(plain, lay, "e5", 0.36, 0.25) == square_colour(look, "e5")


# Black's c3 has white on all eight sides: confined, so White has won.
FENCED = Position.from_string("5/1www1/1wbw1/1www1/5 w 1/1 0", "alternating")


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_confined_stones_are_ringed_and_crossed_and_the_header_gives_the_result(theme: str) -> None:
    look = THEMES[theme]
    assert FENCED.confined.black == ("c3",) and FENCED.result == "white"
    im = decode(veloop_board_png(FENCED, theme=theme, players={"black": "Ada", "white": "Grace"}))
    lay = layout(5)
    marks: dict[str, RGB | list[RGB]] = {"accent": look.accent, **looks(look)}
    assert nearest(pixel(im, lay, "c3", 0.44, 0), marks) == "accent"
    assert nearest(pixel(im, lay, "c3"), marks) == "accent"  # the cross, so it reads without colour
    assert nearest(pixel(im, lay, "b2", 0.44, 0), marks) != "accent"
    assert nearest(pixel(im, lay, "b2"), marks) == "white"
    # the status line is in the accent colour once the game is over, and not before
    status = (0, round(lay.header * 0.72), lay.width, round(lay.header * 0.95))
    ink = sum(n for n, p in im.crop(status).getcolors(1 << 20) or [] if distance(p, look.accent) < 30)
    running = decode(veloop_board_png(START, theme=theme))
    before = sum(n for n, p in running.crop(status).getcolors(1 << 20) or [] if distance(p, look.accent) < 30)
    assert ink > 50 and before == 0


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_hints_show_targets_then_a_targets_supports_then_the_swap(theme: str) -> None:
    look = THEMES[theme]
    lay = layout(8)
    hint = look.hint[:3]
    alpha = look.hint[3] / 255
    first = VeloopHints.for_position(START)
    legal = {str(m.target) for m in START.legal_moves()}
    assert set(first.targets) == legal and "f6" in legal
    im = decode(veloop_board_png(START, theme=theme, hints=first))
    for square in legal:
        assert distance(pixel(im, lay, square), mix(square_colour(look, square), hint, alpha)) < 16, square
    assert pixel(im, lay, "a1") == square_colour(look, "a1")
    # a target picked: framed, its supports ringed, no other target dotted
    second = VeloopHints.for_position(START, "f6")
    assert second.supports == ("e4",)
    im = decode(veloop_board_png(START, theme=theme, hints=second))
    assert distance(pixel(im, lay, "f6", -0.47, -0.47), look.text) < 40
    assert distance(pixel(im, lay, "e4", 0.44, 0), mix(square_colour(look, "e4"), hint, alpha)) < 25
    other = next(sq for sq in legal if sq != "f6")
    assert pixel(im, lay, other) == square_colour(look, other)
    # a support picked too: the swap the move would make, in the text colour
    third = VeloopHints.for_position(START, "f6", "e4")
    assert third.swap == ("e5", "f5")
    im = decode(veloop_board_png(START, theme=theme, hints=third))
    assert distance(pixel(im, lay, "e5", 0.5, 0), look.text) < 40
    plain = decode(veloop_board_png(START, theme=theme))
    assert distance(pixel(plain, lay, "e5", 0.5, 0), look.text) > 60


def test_an_over_placement_target_is_ringed_since_a_stone_hides_a_dot() -> None:
    position = Position.from_string("5/5/2w2/5/5 b 1/1 0", "alternating")
    look = THEMES["dark"]
    lay = layout(5)
    im = decode(veloop_board_png(position, theme="dark", hints=VeloopHints(targets=("c3",))))
    assert (
        distance(pixel(im, lay, "c3", 0.44, 0), mix(square_colour(look, "c3"), look.hint[:3], look.hint[3] / 255)) < 25
    )
    assert nearest(pixel(im, lay, "c3"), looks(look)) == "white"


def test_a_forced_pass_is_told_in_the_status_line_and_marks_no_square() -> None:
    lay = layout(8)
    after = START.play(FIRST)
    plain = decode(veloop_board_png(after, theme="light"))
    passed = decode(veloop_board_png(after, last_move="pass", theme="light"))
    assert board(passed, lay).tobytes() == board(plain, lay).tobytes()
    status = (0, round(lay.header * 0.72), lay.width, round(lay.header * 0.95))
    assert passed.crop(status).tobytes() != plain.crop(status).tobytes()


def test_hints_refuse_a_target_or_support_with_no_legal_move() -> None:
    with pytest.raises(ValueError, match="no legal move places on a1"):
        VeloopHints.for_position(START, "a1")
    with pytest.raises(ValueError, match="cannot be played from"):
        VeloopHints.for_position(START, "f6", "d4")


def finished(size: int, protocol: str, seed: int) -> tuple[Position, list[Move]]:
    trace: list[Move] = []
    final, _ = playout(Position.start(size, protocol), random.Random(seed), trace)
    return final, trace


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_board_size_and_protocol_renders_within_discords_limits(size: int, protocol: str) -> None:
    final, moves = finished(size, protocol, size)
    record = write_record(moves, Position.start(size, protocol), {"Black": "Ada", "White": "Grace"})
    lay = layout(size)
    for ply in (0, len(moves) // 2, len(moves)):
        for theme in THEME_NAMES:
            data = veloop_game_png(record, ply=ply, theme=theme)
            assert len(data) <= 150_000, (ply, theme, len(data))
            assert Image.open(io.BytesIO(data)).size == (lay.width, lay.height)
    # the record's names come along, and the last board is the final position with its last move
    assert veloop_game_png(record) == veloop_board_png(
        final, last_move=moves[-1], players={"black": "Ada", "white": "Grace"}
    )


def test_the_same_input_gives_the_same_bytes_in_any_process() -> None:
    after = START.play(FIRST)
    first = veloop_board_png(after, last_move="f6<e4", theme="contrast")
    assert veloop_board_png(after, last_move=FIRST, theme="contrast") == first
    script = (
        "import hashlib, sys\n"
        "from bot.render import veloop_board_png\n"
        "from bot.rules.veloop import Position\n"
        f"p = Position.from_string({str(after)!r})\n"
        "sys.stdout.write(hashlib.sha256(veloop_board_png(p, last_move='f6<e4', theme='contrast')).hexdigest())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout == hashlib.sha256(first).hexdigest()


def test_a_game_that_ended_off_the_board_shows_its_result_instead_of_the_turn() -> None:
    lay = layout(8)
    after = START.play(FIRST)
    names = {"black": "Ada", "white": "Grace"}
    running = decode(veloop_board_png(after, last_move=FIRST, theme="dark", players=names))
    ended = decode(
        veloop_board_png(after, last_move=FIRST, theme="dark", players=names, result="Ada wins · Grace resigned")
    )
    assert board(ended, lay).tobytes() == board(running, lay).tobytes()
    assert header(ended, lay).tobytes() != header(running, lay).tobytes()
    look = THEMES["dark"]
    status = (0, round(lay.header * 0.72), lay.width, round(lay.header * 0.95))
    accent = sum(n for n, p in ended.crop(status).getcolors(1 << 20) or [] if distance(p, look.accent) < 30)
    assert accent > 50
    # the side to move (White) is no longer underlined
    bar = (0, round(lay.header * 0.55), lay.width, round(lay.header * 0.68))
    assert not any(distance(p, look.accent) < 30 for _n, p in ended.crop(bar).getcolors(1 << 20) or [])
    assert any(distance(p, look.accent) < 30 for _n, p in running.crop(bar).getcolors(1 << 20) or [])


def test_replay_gif_has_a_frame_a_ply_and_ends_on_the_final_board_with_its_result() -> None:
    final, moves = finished(5, "122", 3)
    record = write_record(moves, Position.start(5, "122"))
    data = veloop_replay_gif(record, theme="dark", result="Black wins · White resigned")
    gif = Image.open(io.BytesIO(data))
    assert gif.n_frames == len(moves) + 1
    durations = []
    for i in range(gif.n_frames):
        gif.seek(i)
        durations.append(gif.info["duration"])
        if i in (0, 2, gif.n_frames - 2):
            assert gif.convert("RGB").tobytes() == decode(veloop_game_png(record, ply=i, theme="dark")).tobytes(), i
    gif.seek(gif.n_frames - 1)
    last = decode(veloop_game_png(record, theme="dark", result="Black wins · White resigned"))
    assert gif.convert("RGB").tobytes() == last.tobytes()
    assert durations[-1] > 3 * durations[1]
    assert final.is_over


def test_a_long_replay_fits_discord_limits() -> None:
    _final, moves = finished(12, "122", 1)
    frames = len(moves) + 1
    assert frames > 100
    data = veloop_replay_gif(write_record(moves, Position.start(12, "122")), theme="light")
    assert len(data) <= 8 * 1024 * 1024 * frames / 100
    assert Image.open(io.BytesIO(data)).n_frames == frames


def test_plies_outside_the_game_are_refused() -> None:
    _final, moves = finished(5, "alternating", 2)
    record = write_record(moves, Position.start(5, "alternating"))
    with pytest.raises(ValueError, match=f"ply {len(moves) + 1}"):
        veloop_game_png(record, ply=len(moves) + 1)


def test_each_game_finds_its_drawer_by_name() -> None:
    assert render.drawer("veloop").board_png is veloop_board_png
    assert render.drawer("veletas").board_png is render.veletas.board_png
    assert render.drawer("veloop").hints is VeloopHints
    with pytest.raises(ValueError, match="no drawer"):
        render.drawer("chess")


def test_boards_drawn_in_worker_threads_are_the_same_as_drawn_one_by_one() -> None:
    _final, moves = finished(6, "122", 6)
    record = write_record(moves, Position.start(6, "122"), {"Black": "🎲 Ann", "White": "Bo"})
    plies = list(range(0, len(moves) + 1, 4))
    expected = [veloop_game_png(record, ply=p, theme=THEME_NAMES[p % 3]) for p in plies]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda p: veloop_game_png(record, ply=p, theme=THEME_NAMES[p % 3]), plies))
    assert got == expected


def test_the_score_counts_confined_stones_and_says_so_at_every_moment() -> None:
    from bot.i18n import words
    from bot.render import veloop as drawer

    names = ("Ada", "Grace")
    running = drawer._scene(START, last_move=None, hints=None, names=names, result=None).header
    assert running.score == (0, 0) and running.score_label == "stones confined" and running.to_move == "black"
    over = drawer._scene(FENCED, last_move=None, hints=None, names=names, result=None).header
    assert over.score == (1, 0), "one black stone confined: never a negative score"
    assert over.status == "Grace wins  ·  1 black stone confined"
    assert over.to_move is None, "nobody is underlined once the game is over"
    spanish = drawer._scene(FENCED, last_move=None, hints=None, names=names, result=None, w=words("es"))
    assert spanish.header.score_label == "piedras encerradas"
    japanese = drawer._scene(FENCED, last_move=None, hints=None, names=names, result=None, w=words("ja"))
    assert japanese.header.score_label == "封じ込められた石"


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_the_score_label_is_drawn_under_the_score(theme: str) -> None:
    lay = layout(5)
    im = decode(veloop_board_png(START, theme=theme))
    look = THEMES[theme]
    under = im.crop((lay.width // 2 - 60, round(lay.header * 0.52), lay.width // 2 + 60, round(lay.header * 0.70)))
    assert sum(n for n, p in under.getcolors(1 << 20) or [] if distance(p, look.muted) < 60) > 20
