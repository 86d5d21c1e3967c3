"""Boards drawn from cached palette pieces are, index for index, the board drawn whole and mapped onto the palette.

The bot draws every board through ``Compositor.draw`` (the mapped background, each square from a
cache keyed by what covers it, the header's strip from a cache keyed by the header). These tests
hold it to the plain way, ``to_palette(_compose(...), _palette(theme))``, for random positions of
both games in every theme, with hints, claims, badges, picks, results and names in many scripts.
The caches live on across examples, so a key that left something out would hand one square's
pixels to another and fail here.
"""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from bot.i18n import LANGUAGES, words
from bot.render import THEMES, canvas, layout, sprites, veletas, veloop
from bot.render.canvas import Compositor, Header, Paste, compose
from bot.render.palette import PNG_COMPRESS_LEVEL, to_palette
from bot.render.text import DRAWING
from bot.render.theme import Theme
from bot.render.veloop import VeloopHints
from bot.render.words import colour_names
from bot.rules import Game, Position, random_setup
from bot.rules.common import square_name
from bot.rules.veloop import PROTOCOLS, SIZES, playout
from bot.rules.veloop import Position as VeloopPosition

# Names as members write them: accents, Japanese, Korean, Hebrew (right to left), Thai, Devanagari,
# emoji sequences, one too long for its half of the header, and combining marks stacked under a letter.
NAMES = (
    "Ada",
    "Zoë 👨\u200d👩\u200d👧 김민준",
    "ネコ 🎲 Dice",
    "שלום עליכם",
    "สมชาย",
    "नमस्ते दुनिया",
    "Олег",
    "Bartholomew of Lincolnshire, Keeper of the Rolls",
    "Zed" + "\u0323" * 12,
)
RESULTS = (None, "White wins · Black resigned", "黒の勝ち · 時間切れ", "a" + "\u0323" * 30)
WIDTHS = (None, 320, 517, 640, 1000)
DRAWERS: dict[str, Any] = {"veletas": veletas.VELETAS, "veloop": veloop.VELOOP}


def reference(drawer: Any, scene: Any, theme: Theme, width: int | None) -> Image.Image:
    """The plain way: the whole RGB board, mapped onto the game's palette at once."""
    with DRAWING:
        return to_palette(drawer.compose(scene, theme, width), drawer.palette(theme))


def assert_same(fast: Image.Image, plain: Image.Image) -> None:
    assert fast.mode == plain.mode == "P"
    assert fast.size == plain.size
    assert fast.getpalette() == plain.getpalette()
    assert fast.tobytes() == plain.tobytes()


def png(im: Image.Image) -> bytes:
    out = io.BytesIO()
    im.save(out, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()


def squares(n: int) -> list[str]:
    return [square_name(f, r) for f in range(n) for r in range(n)]


def players(draw: st.DrawFn) -> dict[str, str] | None:
    if draw(st.booleans()):
        return None
    black, white = draw(st.sampled_from(NAMES)), draw(st.sampled_from(NAMES))
    if draw(st.booleans()):
        return {"first": black, "second": white}
    return {"black": black, "white": white}


@st.composite
def veletas_boards(draw: st.DrawFn) -> tuple[veletas._Scene, str, int | None]:
    """A Veletas scene at a random moment of a random game: setup, pie, play or over."""
    variant = draw(st.sampled_from(["standard", "medium", "small"]))
    rules = draw(st.sampled_from(["current", "classic"]))
    rng = random.Random(draw(st.integers(0, 2**32)))
    game = random_setup(variant, rules, rng=rng)
    for _ in range(draw(st.integers(0, 80))):
        if game.phase == "over":
            break
        game = game.play(str(rng.choice(game.position.legal_moves())))
    ply = draw(st.integers(0, len(game.turns)))
    at = Game.replay(game.turns[:ply], variant=variant, rules=rules)
    previous = None
    if ply and at.phase in ("setup", "pie", "play"):
        previous = Game.replay(game.turns[: ply - 1], variant=variant, rules=rules)
    hints: veletas.Hints | None = None
    choice = draw(st.sampled_from(["none", "guided", "any"]))
    position = at.position
    shooting = [m for m in position.legal_moves() if m.shooter is not None] if at.phase == "play" else []
    if choice == "guided" and shooting:
        move = draw(st.sampled_from(shooting))
        assert move.shooter is not None
        destination = draw(st.sampled_from([None, move.destination]))
        hints = veletas.Hints.for_shooter(position, move.shooter, destination=destination, groups=draw(st.booleans()))
    elif choice == "any":
        # marks anywhere, overlapping each other and the pieces: the renderer draws what it is given
        every = squares(position.size)
        some = st.lists(st.sampled_from(every), max_size=12, unique=True)
        hints = veletas.Hints(
            selected=draw(st.sampled_from([None, *every])),
            destinations=tuple(draw(some)),
            targets=tuple(draw(some)),
            groups=draw(st.booleans()),
            forbidden=tuple(draw(some)),
        )
    language = draw(st.sampled_from(LANGUAGES))
    scene = veletas._game_scene(at, previous, hints, players(draw), draw(st.sampled_from(RESULTS)), words(language))
    return scene, draw(st.sampled_from(sorted(THEMES))), draw(st.sampled_from(WIDTHS))


@st.composite
def veloop_boards(draw: st.DrawFn) -> tuple[veloop._Scene, str, int | None]:
    """A Veloop scene at a random ply of a random game, on any board size and protocol."""
    size, protocol = draw(st.sampled_from(SIZES)), draw(st.sampled_from(PROTOCOLS))
    trace: list[Any] = []
    playout(VeloopPosition.start(size, protocol), random.Random(draw(st.integers(0, 2**32))), trace)
    ply = draw(st.integers(0, len(trace)))
    position = VeloopPosition.start(size, protocol)
    for move in trace[:ply]:
        position = position.play(move)
    last = trace[ply - 1] if ply else None
    hints: VeloopHints | None = None
    step = draw(st.sampled_from(["none", "targets", "supports", "swap"]))
    legal = [m for m in position.legal_moves() if not m.is_pass] if position.result is None else []
    if step != "none" and legal:
        move = draw(st.sampled_from(legal))
        hints = VeloopHints.for_position(
            position,
            None if step == "targets" else str(move.target),
            str(move.support) if step == "swap" else None,
        )
    w = words(draw(st.sampled_from(LANGUAGES)))
    names = colour_names(players(draw), w)
    scene = veloop._scene(
        position, last_move=last, hints=hints, names=names, result=draw(st.sampled_from(RESULTS)), w=w
    )
    return scene, draw(st.sampled_from(sorted(THEMES))), draw(st.sampled_from(WIDTHS))


@pytest.mark.slow
@settings(max_examples=60)
@given(veletas_boards())
def test_a_veletas_board_from_cached_pieces_is_the_board_mapped_whole(board: tuple[Any, str, int | None]) -> None:
    scene, theme, width = board
    look = THEMES[theme]
    assert_same(veletas.VELETAS.draw(scene, look, width), reference(veletas.VELETAS, scene, look, width))


@pytest.mark.slow
@settings(max_examples=60)
@given(veloop_boards())
def test_a_veloop_board_from_cached_pieces_is_the_board_mapped_whole(board: tuple[Any, str, int | None]) -> None:
    scene, theme, width = board
    look = THEMES[theme]
    assert_same(veloop.VELOOP.draw(scene, look, width), reference(veloop.VELOOP, scene, look, width))


# --- the caches are used ----------------------------------------------------------------------------------------


MIDGAME = "3S3/1bw4/5S1/7/5w1/5Sb/2b2w1 b"


def test_a_second_identical_board_is_drawn_from_the_caches_and_a_new_move_maps_only_what_it_changed() -> None:
    rng = random.Random(7)
    game = random_setup("standard", rng=rng)
    for _ in range(20):
        game = game.play(str(rng.choice(game.position.legal_moves())))
    boards = veletas.VELETAS.boards
    boards.clear()
    before = canvas.Counts(**vars(boards.counts))
    first = veletas.game_png(game, theme="light", players={"black": "Ann", "white": "Bo"})
    counts = boards.counts
    fresh_cells, fresh_headers = counts.cells - before.cells, counts.headers - before.headers
    assert fresh_cells > 0 and fresh_headers == 1, "a first board maps its squares and its header"
    # Every stone on a light square looks the same, so the board maps fewer squares than it has pieces.
    assert fresh_cells < len(game.position.pieces())
    hits = counts.cell_hits
    again = veletas.game_png(game, theme="light", players={"black": "Ann", "white": "Bo"})
    assert again == first
    assert counts.cells - before.cells == fresh_cells, "the same board maps nothing again"
    assert counts.headers - before.headers == 1 and counts.header_hits > before.header_hits
    assert counts.cell_hits - hits >= fresh_cells
    assert counts.plain == before.plain

    # The next move: only squares covered in a way not seen yet are mapped, fewer than the board shows.
    later = game.play(str(rng.choice(game.position.legal_moves())))
    mapped = counts.cells
    veletas.game_png(later, theme="light", players={"black": "Ann", "white": "Bo"})
    scene = veletas._game_scene(later, game, None, {"black": "Ann", "white": "Bo"})
    lay = layout(10)
    with DRAWING:
        touched = boards._stacks(lay, veletas.VELETAS.pastes(scene, THEMES["light"], lay))
    assert touched is not None
    assert counts.cells - mapped < len(touched) // 2


def test_veloop_boards_are_served_from_their_own_caches() -> None:
    position = VeloopPosition.start(8)
    trace: list[Any] = []
    playout(position, random.Random(3), trace)
    for move in trace[:20]:
        position = position.play(move)
    boards = veloop.VELOOP.boards
    boards.clear()
    veloop.veloop_board_png(position, last_move=trace[19], theme="dark")
    mapped, headers = boards.counts.cells, boards.counts.headers
    assert len(boards.cells) > 0 and len(boards.headers) == 1
    veloop.veloop_board_png(position, last_move=trace[19], theme="dark")
    assert (boards.counts.cells, boards.counts.headers) == (mapped, headers)


def test_the_caches_stay_within_their_bounds() -> None:
    recent: canvas.Recent[str] = canvas.Recent(entries=3, pixels=100)
    for i in range(5):
        recent.put(i, f"v{i}", 10)
    assert len(recent) == 3 and recent.get(0) is None and recent.get(4) == "v4"
    recent.get(2)  # now the most recently used
    recent.put("big", "big", 85)
    assert recent.held <= 100 and recent.get(2) == "v2" and recent.get(3) is None
    recent.put("huge", "huge", 500)  # kept alone: the newest entry always stays
    assert len(recent) == 1 and recent.get("huge") == "huge"


# --- what the cells cannot hold: drawn whole, the plain way -----------------------------------------------------


def test_a_header_that_runs_into_the_squares_is_drawn_the_plain_way() -> None:
    position = Position.from_string("10/10/10/2bw6/10/4S5/10/10/10/10 b")
    look = THEMES["dark"]
    lay = layout(10)
    stacked = "a" + "\u0323" * 30  # dots stacked under a letter, far below the status line
    extent = canvas.header_extent(look, lay, Header(("B", "W"), (0, 0), None, stacked, True))
    assert extent is not None and extent[3] > lay.top, "the marks reach into the board"
    plain = veletas.VELETAS.boards.counts.plain
    scene = veletas._scene(position, last_move=None, hints=None, header=Header(("B", "W"), (0, 0), None, stacked, True))
    assert_same(veletas.VELETAS.draw(scene, look, None), reference(veletas.VELETAS, scene, look, None))
    assert veletas.VELETAS.boards.counts.plain == plain + 1


def test_a_paste_off_the_squares_is_drawn_the_plain_way() -> None:
    look = THEMES["light"]
    lay = layout(6)
    boards = Compositor(veloop.VELOOP.palette)
    header = Header(("Ann", "Bo"), (1, 2), "black", "Ann to move")
    with DRAWING:
        stone = sprites.stone(look, lay.square, "b")
        on = Paste(("stone", "b"), stone, lay.origin((0, 0)))
        astride = Paste(("stone", "b"), stone, (lay.left - lay.square // 3, lay.top + lay.square // 2))
        for pastes in ([on], [on, astride]):
            assert_same(
                boards.draw(look, lay, pastes, header),
                to_palette(compose(look, lay, pastes, header), veloop.VELOOP.palette(look)),
            )
    assert boards.counts.plain == 1


def test_sprites_spanning_squares_are_cut_by_square_with_their_offsets() -> None:
    """A diagonal path segment covers four squares, a swap arrow two: each square keys its part."""
    look = THEMES["contrast"]
    lay = layout(8)
    boards = Compositor(veloop.VELOOP.palette)
    header = Header(("Ann", "Bo"), (0, 0), "white", "Bo to move")
    with DRAWING:
        segment = sprites.segment(look, lay.square, 1, -1, "move")
        arrow = veloop._swap_arrow(look, lay.square, True, look.shot_line)
        pastes = [
            Paste(("segment", 1, -1, "move"), segment, lay.origin((2, 5))),
            Paste(("segment", 1, -1, "move"), segment, lay.origin((4, 5))),
            Paste(("arrow", True), arrow, lay.origin((3, 2))),
        ]
        stacks = boards._stacks(lay, pastes)
        assert stacks is not None
        assert len(stacks) == 4 + 4 + 2
        offsets = {(dx, dy) for stack in stacks.values() for _paste, dx, dy in stack}
        assert offsets == {(0, 0), (-lay.square, 0), (0, -lay.square), (-lay.square, -lay.square)}
        assert_same(
            boards.draw(look, lay, pastes, header),
            to_palette(compose(look, lay, pastes, header), veloop.VELOOP.palette(look)),
        )
        # the two segments' squares share four cached images: a dark and a light square's part, twice each
        assert boards.counts.cells == 4 + 2


# --- the header's strip follows the fonts ----------------------------------------------------------------------


def draw_japanese_result() -> tuple[Image.Image, Image.Image]:
    position = Position.from_string(MIDGAME)
    look = THEMES["dark"]
    header = Header(("Ann", "Bo"), position.score, None, "黒の勝ち · 時間切れ", True)
    scene = veletas._scene(position, last_move=None, hints=None, header=header)
    return veletas.VELETAS.draw(scene, look, None), reference(veletas.VELETAS, scene, look, None)


def test_a_header_drawn_with_other_fonts_is_not_taken_from_the_cache(request: pytest.FixtureRequest) -> None:
    with_fonts, plain = draw_japanese_result()
    assert_same(with_fonts, plain)
    request.getfixturevalue("without_system_fonts")
    without, plain_without = draw_japanese_result()
    assert_same(without, plain_without)
    assert png(without) != png(with_fonts), "without Noto Sans CJK the Japanese is left out"
