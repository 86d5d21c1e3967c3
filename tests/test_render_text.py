"""Text in any script on every image: DejaVu first, then Noto Sans CJK, then Noto Color Emoji, per character.

The fonts are Debian packages that scripts/test installs; the second half of this file hides them
and checks that images still render, leaving out what no font draws.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw, ImageFont

from bot.render import THEMES, Layout, board_png, canvas, layout, veloop_board_png
from bot.render.text import (
    DRAWING,
    TextFace,
    _cjk,
    _emoji,
    _script,
    clusters,
    draw_text,
    drawable,
    face,
    fit,
    missing_font_packages,
    reset_fonts,
    text_line,
)
from bot.rules import Position
from bot.rules.veloop import Position as VeloopPosition

RGB = tuple[int, int, int]
BOARD = Position.from_string("10/10/10/2bw6/10/4S5/10/10/10/10 b")
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # man, woman, girl joined: one glyph
FLAG_JP = "\U0001f1ef\U0001f1f5"


def decode(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def black_name_area(im: Image.Image, lay: Layout) -> Image.Image:
    """The left half of the header's name line, above the to-move bar."""
    h = lay.header
    return im.crop((0, round(h * 0.18), lay.width // 2 - 70, round(h * 0.56)))


def ink(im: Image.Image, background: RGB, within: int = 40) -> int:
    """How many pixels are not the background colour."""
    found = im.getcolors(maxcolors=im.width * im.height) or []
    return sum(n for n, c in found if max(abs(a - b) for a, b in zip(c, background, strict=False)) > within)


def saturated(im: Image.Image) -> int:
    """Pixels of a strong colour (no theme's text is): emoji ink."""
    found = im.getcolors(maxcolors=im.width * im.height) or []
    return sum(n for n, c in found if max(c[:3]) - min(c[:3]) > 90)


def header_of(name: str, theme: str = "dark", result: str | None = None) -> Image.Image:
    im = decode(board_png(BOARD, theme=theme, players={"black": name, "white": "Bo"}, result=result))
    return im


def alone(text: str, font: TextFace, size: tuple[int, int] = (400, 60)) -> bytes:
    im = Image.new("RGB", size, (0, 0, 0))
    with DRAWING:
        draw_text(im, (4, size[1] / 2), text, font, (255, 255, 255), anchor="lm")
    return im.tobytes()


def test_a_japanese_name_is_drawn_in_its_own_glyphs_not_boxes() -> None:
    lay = layout(10)
    look = THEMES["dark"]
    neko = black_name_area(header_of("ネコ"), lay)
    koneko = black_name_area(header_of("コネ"), lay)
    # boxes would look the same in either order; real glyphs do not
    assert neko.tobytes() != koneko.tobytes()
    assert ink(neko, look.background) > ink(black_name_area(header_of("A"), lay), look.background)
    # and they are the CJK font's glyphs, not DejaVu's empty boxes
    font = TextFace(30)
    notdef = Image.new("RGB", (400, 60))
    ImageDraw.Draw(notdef).text((4, 30), "ネコ", font=font.primary, fill=(255, 255, 255), anchor="lm")
    assert alone("ネコ", font) != notdef.tobytes()
    assert [which for which, _ in font.runs("Ann ネコ")] == ["text", "cjk"]


def test_an_emoji_name_is_drawn_in_colour() -> None:
    lay = layout(10)
    orange = black_name_area(header_of("🍊 Ann"), lay)
    apple = black_name_area(header_of("🍎 Ann"), lay)
    plain = black_name_area(header_of("Ann"), lay)
    assert orange.tobytes() != apple.tobytes()
    assert saturated(orange) > 150 and saturated(apple) > 150
    assert saturated(plain) == 0


def test_emoji_sequences_are_one_glyph_each() -> None:
    font = TextFace(30)
    assert clusters(f"a{FAMILY}{FLAG_JP}👍🏽é") == ["a", FAMILY, FLAG_JP, "👍🏽", "é"]
    assert [which for which, _ in font.runs(f"{FAMILY}{FLAG_JP}")] == ["emoji", "emoji"]
    # a family is one emoji wide, as a single emoji is, and a flag is not two letters
    assert font.getlength(FAMILY) == font.getlength("😀") == font.getlength(FLAG_JP)
    assert alone(FLAG_JP, font) != alone("\U0001f1ef", font)


def test_a_japanese_status_line_is_drawn() -> None:
    lay = layout(10)
    look = THEMES["dark"]
    status = (0, round(lay.header * 0.72), lay.width, round(lay.header * 0.95))
    black_won = header_of("Ann", result="黒の勝ち").crop(status)
    white_won = header_of("Ann", result="白の勝ち").crop(status)
    assert black_won.tobytes() != white_won.tobytes()
    assert ink(black_won, look.background) > 100


def test_veloop_headers_draw_japanese_and_emoji_names_too() -> None:
    start = VeloopPosition.start(8)
    lay = layout(8)
    look = THEMES["light"]
    named = decode(veloop_board_png(start, theme="light", players={"black": "黒猫🐈‍⬛", "white": "Bo"}))
    renamed = decode(veloop_board_png(start, theme="light", players={"black": "白猫🐈‍⬛", "white": "Bo"}))
    assert black_name_area(named, lay).tobytes() != black_name_area(renamed, lay).tobytes()
    assert saturated(black_name_area(named, lay)) == 0  # a black cat is black
    assert ink(black_name_area(named, lay), look.background) > ink(
        black_name_area(decode(veloop_board_png(start, theme="light", players={"black": "Bo"})), lay), look.background
    )


def test_long_names_are_cut_between_whole_emoji_and_fit_as_drawn() -> None:
    font = TextFace(28)
    with DRAWING:
        for name in (FAMILY * 12, "ネコ" * 20, "Ann🎲" * 15):
            short = fit(name, font, 220)
            assert short.endswith("…") and font.getlength(short) <= 220
            kept = short[:-1]
            assert name.startswith(kept)
            assert clusters(kept) == clusters(name)[: len(clusters(kept))]
    # a shortened name never runs into the score
    lay = layout(10)
    score = (lay.width // 2 - 60, 0, lay.width // 2 + 60, round(lay.header * 0.6))
    assert header_of("猫" * 40).crop(score).tobytes() == header_of("A").crop(score).tobytes()


def test_other_scripts_fall_back_to_their_noto_font_and_are_shaped() -> None:
    font = TextFace(30)
    assert [which for which, _ in font.runs("สมชาย Ann")] == ["script:Thai", "text"]
    assert [which for which, _ in font.runs("राहुल")] == ["script:Devanagari"]
    assert alone("สมชาย", font) != alone("ชายสม", font)
    # Devanagari joins क ् ष into one conjunct: drawn shaped, not letter by letter
    script = _script("Devanagari", 30, True)
    assert script is not None
    basic = ImageFont.truetype(script.path, 30, layout_engine=ImageFont.Layout.BASIC)
    assert font.getlength("क्ष") != basic.getlength("क्ष")
    # right to left: two Arabic words are one run, so the first word stands on the right
    assert font.runs("محمد علي") == (("text+", "محمد علي"),)
    assert alone("محمد علي", font) != alone("علي محمد", font)


def test_names_keep_everything_some_font_draws() -> None:
    assert drawable({"black": "🎲 Dice ネコ", "white": "\U000f0000"}) == {"black": "🎲 Dice ネコ"}


# --- without the system fonts: the bundled DejaVu alone, leaving out what it lacks --------------------------


@pytest.mark.usefixtures("without_system_fonts")
def test_without_the_fonts_what_dejavu_lacks_is_left_out() -> None:
    assert drawable({"black": "🎲 Dice ネコ", "white": "🎲🎲"}) == {"black": "Dice"}
    with_emoji = board_png(BOARD, theme="dark", players={"black": "🎲 Dice ネコ", "white": "🎲🎲"})
    assert with_emoji == board_png(BOARD, theme="dark", players={"black": "Dice", "white": "White"})
    font = TextFace(30)
    assert font.runs("Ann ネコ 🎲") == (("text", "Ann  "),)
    assert font.runs("สมชาย Ann") == (("text", " Ann"),)
    assert alone("ネコ", font) == Image.new("RGB", (400, 60)).tobytes()


@pytest.mark.usefixtures("without_system_fonts")
def test_without_the_fonts_the_scripts_are_told_what_to_install() -> None:
    missing = missing_font_packages()
    assert missing[:3] == ["fonts-noto-cjk", "fonts-noto-color-emoji", "fonts-noto-core"]


def test_with_the_fonts_nothing_is_missing() -> None:
    assert missing_font_packages() == []


@pytest.mark.usefixtures("without_system_fonts")
def test_without_the_fonts_a_japanese_status_still_renders() -> None:
    data = board_png(BOARD, theme="contrast", result="黒の勝ち")
    assert decode(data).size == (layout(10).width, layout(10).height)


def test_the_fonts_come_back_after_the_fixture() -> None:
    assert [which for which, _ in TextFace(20).runs("ネ🎲")] == ["cjk", "emoji"]


def test_warming_up_loads_the_fonts_a_language_needs_before_any_board_is_asked_for() -> None:
    from bot import render
    from bot.i18n import words
    from bot.rules.registry import find_game

    reset_fonts()
    assert _cjk.cache_info().currsize == 0 and _emoji.cache_info().currsize == 0
    render.warm([words("en"), words("ja")])
    loaded = _cjk.cache_info().currsize
    assert loaded > 0, "Japanese needs the CJK font"
    assert _emoji.cache_info().currsize == 1, "names with emoji need the emoji font"
    for game in ("veletas", "veloop"):
        render.drawer(game).game_png(
            find_game(game).new(), theme="dark", players={"black": "さくら", "white": "🐉"}, words=words("ja")
        )
    assert _cjk.cache_info().currsize == loaded, "a Japanese member's board loads no font after the warm-up"


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from([*"AbgjQy Éñ–·0123456789−…", "\u0301", "\u0308", "ア", "黒", "한"]),
        min_size=1,
        max_size=14,
    ),
    x=st.floats(min_value=0, max_value=180, allow_nan=False),
    y=st.floats(min_value=0, max_value=50, allow_nan=False),
    anchor=st.sampled_from(["la", "lm", "ls", "mm", "ms", "rm", "rd", "ma"]),
    px=st.sampled_from([12, 19, 31]),
    bold=st.booleans(),
    mode=st.sampled_from(["RGB", "L"]),
    fill=st.sampled_from([(250, 250, 250), (20, 30, 200), 255, 96]),
)
def test_a_remembered_text_line_is_drawn_pixel_for_pixel_as_pillow_draws_it(
    text: str, x: float, y: float, anchor: str, px: int, bold: bool, mode: str, fill: tuple[int, int, int] | int
) -> None:
    font = face(px, bold)
    ink = fill if mode == "RGB" or isinstance(fill, int) else fill[0]
    if mode == "RGB" and isinstance(ink, int):
        ink = (ink, ink, ink)
    expected = Image.new(mode, (200, 60), (40, 60, 80) if mode == "RGB" else 7)
    ImageDraw.Draw(expected).text((x, y), text, font=font, fill=ink, anchor=anchor)
    for _ in range(2):  # drawn first from FreeType, then from what was remembered
        drawn = Image.new(mode, (200, 60), (40, 60, 80) if mode == "RGB" else 7)
        text_line(ImageDraw.Draw(drawn), (x, y), text, font, ink, anchor)
        assert drawn.tobytes() == expected.tobytes()


def ink_columns(header: canvas.Header, lay: Layout) -> list[int]:
    """Columns of the name row (names, icons, score) that any of the header's pixels touch."""
    im = Image.new("L", (lay.width, lay.height), 0)
    canvas.draw_header(im, THEMES["light"], lay, header)
    band = im.crop((0, round(lay.header * 0.12), lay.width, round(lay.header * 0.56)))
    return [x for x in range(band.width) if band.crop((x, 0, x + 1, band.height)).getbbox() is not None]


@pytest.mark.parametrize("width", [800, 480, 320])
@pytest.mark.parametrize(
    "name",
    [
        "Veletas-Sandbox-AI-Player",
        "黒石の名人黒石の名人黒石の名人",
        "🎌🎉" * 12,
        "Ünïcødé 名前 🎌 mixed " * 3,
        "W" * 80,
    ],
)
@pytest.mark.parametrize("score", [(0, 0), (12, 10), (-1, 0)])
def test_a_long_name_never_comes_near_the_score(width: int, name: str, score: tuple[int, int]) -> None:
    lay = layout(10, width)
    bare = set(ink_columns(canvas.Header(("", ""), score, None, ""), lay))
    middle = [x for x in bare if lay.width / 4 < x < 3 * lay.width / 4]
    for times in ((None, None), ("0:25", "12 h 05")):
        named = set(ink_columns(canvas.Header((name, name), score, "black", "", times=times), lay))
        names = named - bare
        left = [x for x in names if x < lay.width / 2]
        right = [x for x in names if x > lay.width / 2]
        assert left and right, "both names are drawn"
        clear = 0.3 * lay.header
        assert min(middle) - max(left) >= clear, (min(middle), max(left))
        assert min(right) - max(middle) >= clear, (min(right), max(middle))
