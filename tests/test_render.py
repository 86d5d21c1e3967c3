"""The board images players see: pieces where the rules put them, marks where the last move went."""

from __future__ import annotations

import hashlib
import io
import random
import struct
import subprocess
import sys
import zlib
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

from bot.render import THEMES, Hints, Layout, Theme, board_png, game_png, layout, palette, replay_gif
from bot.rules import Game, Position, random_setup
from bot.rules.common import FILES

RGB = tuple[int, int, int]
THEME_NAMES = sorted(THEMES)


def decode(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def position_text(n: int, pieces: Mapping[str, str], to_move: str = "b") -> str:
    """A NOTATION.md position string with the given pieces, so tests can name squares directly."""
    ranks = []
    for rank in range(n, 0, -1):
        row, empty = "", 0
        for file in range(n):
            piece = pieces.get(f"{FILES[file]}{rank}")
            if piece is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + piece
            empty = 0
        ranks.append(row + (str(empty) if empty else ""))
    return "/".join(ranks) + f" {to_move}"


def pixel(im: Image.Image, lay: Layout, square: str, dx: float = 0.0, dy: float = 0.0) -> RGB:
    """The pixel at a square's centre, moved by fractions of a square (dy grows downwards)."""
    x, y = lay.center(square)
    value = im.getpixel((x + round(dx * lay.square), y + round(dy * lay.square)))
    assert isinstance(value, tuple)
    return (value[0], value[1], value[2])


def distance(a: RGB, b: RGB) -> float:
    return float(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5)


def nearest(colour: RGB, candidates: Mapping[str, RGB]) -> str:
    return min(candidates, key=lambda name: distance(colour, candidates[name]))


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def square_colour(theme: Theme, square: str) -> RGB:
    file, rank = FILES.index(square[0]), int(square[1:]) - 1
    return theme.dark if (file + rank) % 2 == 0 else theme.light


def palette_of(theme: Theme) -> dict[str, RGB]:
    return {
        "shooter": theme.shooter,
        "black": theme.black,
        "white": theme.white,
        "light": theme.light,
        "dark": theme.dark,
    }


# One of each piece kind, on squares that tell left from right and top from bottom.
PIECES = {"a1": "b", "c3": "S", "e5": "B", "g7": "W", "j10": "w", "h2": "S", "b9": "S", "d8": "S", "i5": "S"}
# Where to look: a little below the centre (off the contrast theme's dot and the light spot),
# inside a claimed shooter's cap, and for an unclaimed shooter outside its socket ring.
EXPECTED = {
    "a1": ("black", 0.22),
    "c3": ("shooter", 0.25),
    "e5": ("black", 0.12),
    "g7": ("white", 0.12),
    "j10": ("white", 0.22),
}


@pytest.fixture(scope="module")
def pieces_position() -> Position:
    return Position.from_string(position_text(10, PIECES))


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_each_piece_kind_shows_its_colour_on_its_square(pieces_position: Position, theme: str) -> None:
    look = THEMES[theme]
    im = decode(board_png(pieces_position, theme=theme))
    lay = layout(10)
    for square, (want, below) in EXPECTED.items():
        assert nearest(pixel(im, lay, square, 0, below), palette_of(look)) == want, (theme, square)
    for square in ("f2", "a10", "j1", "e6"):
        assert pixel(im, lay, square, 0.4, 0.4) == square_colour(look, square), (theme, square)


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_unclaimed_shooters_never_look_like_claimed_ones(pieces_position: Position, theme: str) -> None:
    im = decode(board_png(pieces_position, theme=theme))
    lay = layout(10)
    unclaimed = pixel(im, lay, "c3", 0, 0.25)
    for claimed in ("e5", "g7"):
        assert distance(unclaimed, pixel(im, lay, claimed, 0, 0.12)) > 150, (theme, claimed)
    # the ring of shooter colour around a cap tells a claimed shooter from a plain stone
    look = THEMES[theme]
    ring = pixel(im, lay, "e5", 0, 0.33)
    assert nearest(ring, palette_of(look)) == "shooter"
    assert nearest(pixel(im, lay, "a1", 0, 0.33), palette_of(look)) == "black"


def test_contrast_theme_tells_shooters_from_stones_by_shape(pieces_position: Position) -> None:
    look = THEMES["contrast"]
    im = decode(board_png(pieces_position, theme="contrast"))
    lay = layout(10)
    corner = (0.33, 0.33)  # inside a rounded square, outside a disc of the same width
    assert nearest(pixel(im, lay, "c3", *corner), palette_of(look)) == "shooter"
    assert nearest(pixel(im, lay, "e5", *corner), palette_of(look)) == "shooter"
    assert pixel(im, lay, "a1", *corner) == square_colour(look, "a1")
    # a claimed shooter's cap carries a dot of the other colour, so black/white is readable twice over
    assert nearest(pixel(im, lay, "e5"), palette_of(look)) == "white"
    assert nearest(pixel(im, lay, "g7"), palette_of(look)) == "black"


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_the_last_move_is_marked_from_origin_along_its_path_to_the_shot(theme: str) -> None:
    look = THEMES[theme]
    before = Position.from_string(position_text(10, {"d4": "S", "h9": "S", "b2": "S"}))
    after = before.play("d4-d8/f6")
    im = decode(board_png(after, last_move="d4-d8/f6", theme=theme))
    lay = layout(10)
    corner = (0.45, -0.45)  # top right: off the path, which runs up the d-file and then down-right
    for square in ("d4", "d8"):
        assert pixel(im, lay, square, *corner) == mix(square_colour(look, square), look.move, look.tint), square
    assert pixel(im, lay, "f6", *corner) == mix(square_colour(look, "f6"), look.shot, look.tint)
    for square in ("d5", "d6", "d7"):
        assert pixel(im, lay, square) == look.move_line, square
    assert pixel(im, lay, "e7") == look.shot_line
    for square in ("a1", "e5", "d9", "h9"):
        assert pixel(im, lay, square, *corner) == square_colour(look, square), square
    # without the last move nothing is marked
    plain = decode(board_png(after, theme=theme))
    assert pixel(plain, lay, "d6") == square_colour(look, "d6")
    assert pixel(plain, lay, "d4", *corner) == square_colour(look, "d4")


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_a_claim_made_by_the_last_move_gets_a_halo(theme: str) -> None:
    look = THEMES[theme]
    before = Position.from_string(position_text(10, {"a10": "S", "a9": "w", "b9": "w", "e7": "S", "j1": "S"}))
    after = before.play("b10")
    assert [c.square for c in after.last_claims] == ["a10"]
    im = decode(board_png(after, last_move="b10", theme=theme))
    lay = layout(10)
    halo = pixel(im, lay, "a10", 0.46, 0)
    assert distance(halo, look.claim) < 40
    assert distance(pixel(im, lay, "e7", 0.46, 0), look.claim) > 60


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_hints_show_destinations_targets_and_group_sizes(theme: str) -> None:
    look = THEMES[theme]
    position = Position.from_string(
        position_text(10, {"d4": "S", "h9": "S", "b2": "S", "c4": "b", "e4": "w", "e5": "w"})
    )
    hints = Hints.for_shooter(position, "d4", groups=True)
    assert "d8" in hints.destinations and "d8" in hints.targets and "d4" not in hints.targets
    im = decode(board_png(position, theme=theme, hints=hints))
    plain = decode(board_png(position, theme=theme))
    lay = layout(10)
    hint_rgb = look.hint[:3]
    dot = pixel(im, lay, "d8")
    assert dot != pixel(plain, lay, "d8")
    assert distance(dot, mix(square_colour(look, "d8"), hint_rgb, look.hint[3] / 255)) < 16
    ring = pixel(im, lay, "d8", 0.295, 0)
    assert distance(ring, mix(square_colour(look, "d8"), hint_rgb, look.hint[3] / 255)) < 16
    # the picked shooter is framed by corner brackets in the text colour
    assert distance(pixel(im, lay, "d4", -0.47, -0.47), look.text) < 40
    assert distance(pixel(im, lay, "d4", 0.47, 0.47), look.text) < 40
    assert pixel(im, lay, "d4", 0, -0.47) == square_colour(look, "d4")
    assert pixel(plain, lay, "d4", -0.47, -0.47) == square_colour(look, "d4")
    # badges: d4 touches a black group of 1 (c4) and a white group of 2 (e4, e5)
    assert nearest(pixel(im, lay, "d4", -0.44, 0.345), palette_of(look)) == "black"
    assert nearest(pixel(im, lay, "d4", 0.44, 0.345), palette_of(look)) == "white"
    assert pixel(plain, lay, "d4", -0.44, 0.345) == square_colour(look, "d4")


def test_hints_after_choosing_a_destination_count_the_left_square_as_empty() -> None:
    position = Position.from_string(position_text(10, {"d4": "S", "h9": "S", "b2": "S"}))
    hints = Hints.for_shooter(position, "d4", destination="d8")
    assert hints.selected == "d8"
    assert hints.destinations == ()
    assert "d4" in hints.targets and "d3" in hints.targets


def test_the_same_input_gives_the_same_bytes_in_any_process(pieces_position: Position) -> None:
    first = board_png(pieces_position, last_move="c3-c5/c7", theme="dark")
    assert board_png(pieces_position, last_move="c3-c5/c7", theme="dark") == first
    script = (
        "import hashlib, sys\n"
        "from bot.render import board_png\n"
        "from bot.rules import Position\n"
        f"p = Position.from_string({str(pieces_position)!r})\n"
        "sys.stdout.write(hashlib.sha256(board_png(p, last_move='c3-c5/c7', theme='dark')).hexdigest())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout == hashlib.sha256(first).hexdigest()


def test_unknown_themes_and_plies_are_refused(pieces_position: Position) -> None:
    with pytest.raises(ValueError, match="unknown theme"):
        board_png(pieces_position, theme="neon")
    game = Game.new("small")
    with pytest.raises(ValueError, match="ply 3"):
        game_png(game, ply=3)


def test_board_geometry_follows_the_notation() -> None:
    lay = layout(10)
    assert 720 <= lay.width <= 1000
    a1, j1, a10 = lay.center("a1"), lay.center("j1"), lay.center("a10")
    assert a1[0] < j1[0] and a1[1] == j1[1]
    assert a10[1] < a1[1] and a10[0] == a1[0]
    assert layout(10, 100).width == 320
    assert layout(7, 5000).width == 2000


def play_out(variant: str, rules: str, rng: random.Random) -> Game:
    """A random finished game (setup and pie choice included), for images of every phase."""
    game = random_setup(variant, rules, rng=rng)
    while game.phase != "over":
        game = game.play(str(rng.choice(game.position.legal_moves())))
    return game


def colours(im: Image.Image) -> list[tuple[int, RGB]]:
    """(count, colour) pairs of an RGB image."""
    return im.getcolors(maxcolors=im.width * im.height) or []  # type: ignore[return-value]


def status_row(im: Image.Image, lay: Layout) -> Image.Image:
    return im.crop((0, round(lay.header * 0.72), lay.width, round(lay.header * 0.95)))


@pytest.mark.parametrize("variant", ["standard", "medium", "small"])
@pytest.mark.parametrize("rules", ["current", "classic"])
def test_every_variant_and_phase_renders(variant: str, rules: str) -> None:
    rng = random.Random(f"{variant}-{rules}")
    game = play_out(variant, rules, rng)
    assert game.phase == "over"
    n = game.variant.size
    lay = layout(n)
    look = THEMES["light"]
    seen: set[str] = set()
    for ply in range(len(game.turns) + 1):
        state = Game.replay(game.turns[:ply], variant=variant, rules=rules)
        if state.phase in seen and state.phase != "setup":
            continue
        seen.add(state.phase)
        im = decode(game_png(game, ply=ply, players={"first": "Ann", "second": "Bo"}))
        assert im.size == (lay.width, lay.height)
        accent = sum(n for n, p in colours(status_row(im, lay)) if distance(p, look.accent) < 30)
        assert (accent > 50) == (state.phase == "over"), state.phase
        if state.phase == "setup":
            allowed = set(state.setup_squares())
            for f in range(n):
                for r in range(n):
                    square = f"{FILES[f]}{r + 1}"
                    if square in state.position.pieces():
                        continue
                    corner = pixel(im, lay, square, -0.45, -0.45)
                    tile = im.crop(
                        (*lay.origin((f, r)), lay.origin((f, r))[0] + lay.square, lay.origin((f, r))[1] + lay.square)
                    )
                    plain = sum(n for n, p in colours(tile) if p == square_colour(look, square))
                    hatched = plain < 0.8 * lay.square**2
                    assert hatched == (square not in allowed), (ply, square, corner)
    assert seen >= {"setup", "play", "over"} | ({"pie"} if rules == "current" else set())


def test_finished_standard_board_is_small_enough() -> None:
    game = play_out("standard", "current", random.Random(5))
    for theme in THEME_NAMES:
        data = game_png(game, theme=theme)
        assert len(data) <= 150_000, theme


def test_replay_gif_shows_every_turn_and_ends_on_the_final_board() -> None:
    game = play_out("medium", "current", random.Random(11))
    data = replay_gif(game.to_record(), theme="dark")
    gif = Image.open(io.BytesIO(data))
    assert gif.n_frames == len(game.turns) + 1
    durations = []
    for i in range(gif.n_frames):
        gif.seek(i)
        durations.append(gif.info["duration"])
        if i in (0, 3, gif.n_frames - 1):
            assert gif.convert("RGB").tobytes() == decode(game_png(game, ply=i, theme="dark")).tobytes(), i
    assert durations[-1] > 3 * durations[1]


def test_a_long_replay_fits_discord_limits() -> None:
    # A standard game cannot last 100 turns (each move fills one of the 93 free squares and
    # claims come sooner), so the longest of a few games stands in: 8 MB per 100 frames.
    game = max((play_out("standard", "current", random.Random(seed)) for seed in range(6)), key=lambda g: len(g.turns))
    frames = len(game.turns) + 1
    data = replay_gif(game, theme="light")
    assert len(data) <= 8 * 1024 * 1024 * frames / 100
    assert Image.open(io.BytesIO(data)).n_frames == frames


def test_long_player_names_are_shortened_before_they_reach_the_score(pieces_position: Position) -> None:
    lay = layout(10)
    short = decode(board_png(pieces_position, players={"black": "Al", "white": "Bo"}))
    long = decode(board_png(pieces_position, players={"black": "Bartholomew" * 4, "white": "W" * 60}))
    score = (lay.width // 2 - 60, 0, lay.width // 2 + 60, round(lay.header * 0.6))
    assert long.crop(score).tobytes() == short.crop(score).tobytes()
    assert long.crop((0, 0, lay.width, lay.header)).tobytes() != short.crop((0, 0, lay.width, lay.header)).tobytes()


@pytest.mark.slow
def test_the_readme_images_are_what_the_renderer_draws_now() -> None:
    script = Path(__file__).resolve().parent.parent / "scripts" / "make_images.py"
    out = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_a_record_brings_its_player_names_along() -> None:
    game = play_out("small", "current", random.Random(2))
    record = game.to_record({"Black": "Ada", "White": "Grace"})
    named = game_png(game, players={"black": "Ada", "white": "Grace"})
    assert game_png(record) == named
    assert game_png(game) != named


KIND = {"b": ("black", 0.22), "w": ("white", 0.22), "S": ("shooter", 0.25), "B": ("black", 0.12), "W": ("white", 0.12)}


@pytest.mark.parametrize("theme", THEME_NAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_piece_of_a_played_game_is_drawn_on_its_own_square(theme: str, seed: int) -> None:
    rng = random.Random(seed)
    game = play_out("standard", "current", rng)
    ply = rng.randrange(len(game.turns) // 2, len(game.turns) + 1)
    state = Game.replay(game.turns[:ply])
    im = decode(game_png(game, ply=ply, theme=theme))
    lay = layout(10)
    look = THEMES[theme]
    pieces = state.position.pieces()
    assert pieces
    for square, piece in pieces.items():
        want, below = KIND[piece]
        assert nearest(pixel(im, lay, square, 0, below), palette_of(look)) == want, (ply, square, piece)


def test_boards_drawn_in_worker_threads_are_the_same_as_drawn_one_by_one() -> None:
    game = play_out("medium", "current", random.Random(8))
    plies = list(range(0, len(game.turns) + 1, 3))
    names = {"first": "🎲 Ann", "second": "Bo"}
    expected = [game_png(game, ply=p, theme=THEME_NAMES[p % 3], players=names) for p in plies]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda p: game_png(game, ply=p, theme=THEME_NAMES[p % 3], players=names), plies))
    assert got == expected


def test_a_game_that_ended_off_the_board_shows_its_result_instead_of_the_turn() -> None:
    game = play_out("small", "current", random.Random(3))
    stopped = Game.replay(game.turns[: len(game.turns) - 2], variant="small")
    assert stopped.phase == "play"
    lay = layout(stopped.variant.size)
    look = THEMES["dark"]
    said = "Grace wins · Ada resigned"
    running = decode(game_png(stopped, theme="dark"))
    ended = decode(game_png(stopped, theme="dark", result=said))
    board = (0, lay.header, lay.width, lay.height)
    assert ended.crop(board).tobytes() == running.crop(board).tobytes()
    assert ended.crop((0, 0, lay.width, lay.header)).tobytes() != running.crop((0, 0, lay.width, lay.header)).tobytes()
    # the status row turns to the accent colour of a finished game, and nobody is underlined as to move
    assert sum(n for n, p in colours(status_row(ended, lay)) if distance(p, look.accent) < 30) > 50
    assert not any(distance(p, look.accent) < 30 for _n, p in colours(status_row(running, lay)))
    bar = (0, round(lay.header * 0.55), lay.width, round(lay.header * 0.68))
    assert not any(distance(p, look.accent) < 30 for _n, p in colours(ended.crop(bar)))
    assert any(distance(p, look.accent) < 30 for _n, p in colours(running.crop(bar)))
    # the same text on board_png, and on the last frame of the replay only
    position_image = decode(board_png(stopped.position, last_move=stopped.last_move, theme="dark", result=said))
    assert (
        position_image.crop((0, 0, lay.width, lay.header)).tobytes()
        == ended.crop((0, 0, lay.width, lay.header)).tobytes()
    )
    gif = Image.open(io.BytesIO(replay_gif(stopped, theme="dark", result=said)))
    gif.seek(gif.n_frames - 1)
    assert gif.convert("RGB").tobytes() == ended.tobytes()
    gif.seek(gif.n_frames - 2)
    assert gif.convert("RGB").tobytes() == decode(game_png(stopped, ply=gif.n_frames - 2, theme="dark")).tobytes()


@pytest.mark.parametrize("theme", list(THEMES))
def test_a_board_png_is_a_well_formed_png_of_exactly_the_drawn_picture_as_small_as_zlibs(theme: str) -> None:
    """Boards are written by palette.png (ISA-L's deflate): read back here by hand, chunk by chunk, as well as by
    Pillow, they hold exactly the palette image that was drawn, in no more bytes than Pillow's own encoding."""
    game = play_out("standard", "current", random.Random(5))
    drawn = Image.open(io.BytesIO(game_png(game, ply=len(game.turns) // 2, theme=theme)))
    drawn.load()
    picture = drawn.copy()  # a plain palette image, as the renderer hands it to palette.png
    data = palette.png(picture)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + body), kind
        chunks.append((kind, body))
        at += 12 + length
    assert at == len(data)
    assert [kind for kind, _ in chunks] == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    width, height = picture.size
    assert chunks[0][1] == struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    assert chunks[1][1] == bytes(picture.getpalette() or []).ljust(768, b"\0")
    rows = zlib.decompress(chunks[2][1])
    assert len(rows) == height * (width + 1)
    assert all(rows[y * (width + 1)] == 0 for y in range(height)), "every row unfiltered"
    assert b"".join(rows[y * (width + 1) + 1 : (y + 1) * (width + 1)] for y in range(height)) == picture.tobytes()
    back = Image.open(io.BytesIO(data))
    back.load()
    assert (back.mode, back.getpalette(), back.tobytes()) == ("P", picture.getpalette(), picture.tobytes())
    pillows = io.BytesIO()
    picture.save(pillows, "PNG", compress_level=3)
    assert len(data) <= 1.1 * len(pillows.getvalue())


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_a_stationary_shot_marks_its_shooter_and_the_line_to_the_target(theme: str) -> None:
    look = THEMES[theme]
    lay = layout(10)
    corner = (0.45, -0.45)
    # Only d4 sees f6 (h9 and b2 do not): the canonical "f6" is drawn from d4.
    alone = Position.from_string(position_text(10, {"d4": "S", "h9": "S", "b2": "S"}))
    im = decode(board_png(alone.play("f6"), last_move="f6", theme=theme))
    off_diagonal = (-0.45, -0.45)  # top left: the shot leaves d4 towards its top right
    assert pixel(im, lay, "d4", *off_diagonal) == mix(square_colour(look, "d4"), look.move, look.tint)
    assert pixel(im, lay, "e5") == look.shot_line, "the shot runs from the shooter to the target"
    assert pixel(im, lay, "f6", *corner) == mix(square_colour(look, "f6"), look.shot, look.tint)
    for square in ("h9", "b2"):
        assert pixel(im, lay, square, *corner) == square_colour(look, square), square
    # A long form names the shooter even where two could have fired.
    two = Position.from_string(position_text(10, {"d4": "S", "f9": "S", "b2": "S"}))
    named = decode(board_png(two.play("f9/f6"), last_move="f9/f6", theme=theme))
    assert pixel(named, lay, "f8") == look.shot_line and pixel(named, lay, "e5") != look.shot_line
    assert pixel(named, lay, "f9", *corner) == mix(square_colour(look, "f9"), look.move, look.tint)
    # The canonical form with two candidates credits neither: the target alone is marked.
    either = decode(board_png(two.play("f6"), last_move="f6", theme=theme))
    for square in ("d4", "f9"):
        assert pixel(either, lay, square, -0.45, -0.45) == square_colour(look, square), square
    assert pixel(either, lay, "f6", *corner) == mix(square_colour(look, "f6"), look.shot, look.tint)


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_nobody_is_underlined_once_a_game_is_won_on_the_board(theme: str) -> None:
    look = THEMES[theme]
    game = play_out("small", "current", random.Random(3))
    assert game.phase == "over"
    lay = layout(game.variant.size)
    bar = (0, round(lay.header * 0.55), lay.width, round(lay.header * 0.68))
    for im in (
        decode(game_png(game, theme=theme)),
        decode(board_png(game.position, last_move=game.last_move, theme=theme)),
    ):
        assert not any(distance(p, look.accent) < 30 for _n, p in colours(im.crop(bar)))
    running = decode(game_png(Game.replay(game.turns[:-1], variant="small"), theme=theme))
    assert any(distance(p, look.accent) < 30 for _n, p in colours(running.crop(bar))), "the bar is there in play"


def test_the_status_line_with_a_clock_reads_name_then_to_move_then_time() -> None:
    from bot.i18n import words
    from bot.render import veletas as drawer

    position = Position.from_string(position_text(10, {"d4": "S", "h9": "S", "b2": "S"}))
    line = drawer._status_line(position, ("Dave", "Eve"), words("en"), ("0:25", "4:05"))
    assert line == ("black", "Dave to move  ·  0:25  ·  2 to win", False)
    assert drawer._status_line(position, ("Dave", "Eve"), words("en"))[1] == "Dave to move  ·  2 to win"
