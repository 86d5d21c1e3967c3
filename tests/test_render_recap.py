"""The round recap image: its size and sections, every theme, names in any script kept to their columns, the
caller's words, and text readable in dark mode."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.render import THEMES
from bot.render import recap as rc
from bot.render.recap import RecapWords, recap_png
from bot.render.tournament import PAD, TITLE_H, WIDTH
from bot.tournaments.recap import Feat, Longest, Recap, Upset

RGB = tuple[int, ...]
THEME_NAMES = sorted(THEMES)
NAMES = {1: "Ann", 2: "Bo", 3: "Cy", 4: "Di", 5: "Ed", 6: "Flo", 7: "Gus", 8: "Hal"}
FULL = Recap(
    2,
    (Upset(3, 1, 2, 1400, 1900), Upset(1, 3, 4, 1500, 1600), Upset(2, 5, 6, 1210, 1280)),
    Longest(4, 7, 8, 57),
    Feat(2, 5, 6, 2, 31, 3, ("b1", "c1")),
)


def decode(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG")
    return Image.open(io.BytesIO(data)).convert("RGB")


def draw(recap: Recap = FULL, names: dict[int, str] = NAMES, **kw: object) -> Image.Image:
    args: dict[str, object] = {"title": "Spring Swiss: round 2"}
    args.update(kw)
    return decode(recap_png(recap, names, **args))  # type: ignore[arg-type]


def near(a: RGB, b: RGB, within: int) -> bool:
    return max(abs(x - y) for x, y in zip(a, b, strict=True)) <= within


def colours(im: Image.Image) -> list[tuple[int, RGB]]:
    """Each colour of an RGB image with its pixel count."""
    return [(n, c) for n, c in im.getcolors(maxcolors=im.width * im.height) or [] if isinstance(c, tuple)]


def ink(im: Image.Image, ground: RGB) -> int:
    return sum(n for n, c in colours(im) if not near(c, ground, 30))


def row_top(section: int, row: int, rows_before: int) -> int:
    """The top of a row: ``section`` sections (and ``rows_before`` rows in them) above it."""
    return TITLE_H + (section + 1) * rc.SECTION_H + (rows_before + row) * rc.ROW_H


def test_each_section_is_a_heading_and_its_rows_and_an_empty_one_is_left_out() -> None:
    full = draw()
    assert full.width == WIDTH
    assert full.height == TITLE_H + 3 * rc.SECTION_H + 5 * rc.ROW_H + PAD
    quiet = draw(Recap(2, (), Longest(4, 7, 8, 57)))
    assert quiet.size == (WIDTH, TITLE_H + rc.SECTION_H + rc.ROW_H + PAD)
    veloop = draw(Recap(2, (), Longest(4, 7, 8, 57), None, Feat(2, 5, 6, 3, 31)))
    assert veloop.height == TITLE_H + 2 * rc.SECTION_H + 2 * rc.ROW_H + PAD
    # the Veloop recap's second section is its confinement, worded as such
    box = (0, TITLE_H + rc.SECTION_H + rc.ROW_H, WIDTH, TITLE_H + 2 * rc.SECTION_H + rc.ROW_H)
    other = draw(Recap(2, (), Longest(4, 7, 8, 57), None, Feat(2, 5, 6, 3, 31)), words=RecapWords(confinement="X"))
    assert veloop.crop(box).tobytes() != other.crop(box).tobytes()


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_every_row_has_its_names_and_figure_in_every_theme(theme: str) -> None:
    look = THEMES[theme]
    im = draw(theme=theme)
    assert im.getpixel((2, im.height - 3)) == look.background
    tops = [row_top(0, i, 0) for i in range(3)] + [row_top(1, 0, 3), row_top(2, 0, 4)]
    for top in tops:
        row = im.crop((0, top, WIDTH, top + rc.ROW_H))
        ground = row.getpixel((WIDTH // 2, 1))
        assert isinstance(ground, tuple)
        first = row.crop((PAD, 0, PAD + 80, rc.ROW_H))
        second = row.crop(
            (int(PAD + (WIDTH - 2 * PAD - rc.FIGURE_W + rc.JOIN_W) / 2), 0, WIDTH - rc.FIGURE_W, rc.ROW_H)
        )
        figure = row.crop((WIDTH - PAD - 100, 0, WIDTH - PAD, rc.ROW_H))
        assert ink(first, ground) > 60 and ink(second, ground) > 60 and ink(figure, ground) > 60, top
        found = {c for _, c in colours(row)}
        assert look.text in found


def test_the_figures_and_ratings_are_the_recaps() -> None:
    im = draw()
    top = row_top(0, 0, 0)
    box = (0, top, WIDTH, top + rc.ROW_H)
    other_gap = draw(Recap(2, (Upset(3, 1, 2, 1400, 1950), *FULL.upsets[1:]), FULL.longest, FULL.claim))
    assert im.crop(box).tobytes() != other_gap.crop(box).tobytes()
    longest = (0, row_top(1, 0, 3), WIDTH, row_top(1, 0, 3) + rc.ROW_H)
    assert im.crop(box).tobytes() == draw(Recap(2, FULL.upsets, Longest(4, 7, 8, 58), FULL.claim)).crop(box).tobytes()
    assert (
        im.crop(longest).tobytes()
        != draw(Recap(2, FULL.upsets, Longest(4, 7, 8, 58), FULL.claim)).crop(longest).tobytes()
    )


LONG = {
    "japanese": "山田太郎左衛門之助と申します長い名前のプレイヤーです" * 2,
    "emoji": "🦀🐙🦑🐡🐠🐟🐬🐳🐋🦈🦭" * 4,
    "arabic": "محمد بن عبد الله العربي الطويل جدا من مدينة الرياض" * 2,
    "hebrew": "אברהם בן דוד מירושלים עם שם ארוך מאוד" * 2,
    "latin": "Wolfgang Amadeus Mozart von Salzburg " * 3,
}


@pytest.mark.parametrize("script", sorted(LONG))
def test_a_long_name_in_any_script_stays_in_its_column(script: str) -> None:
    """Every first player's name made long: the image keeps its size, and everything right of the first name's
    column (the joining word, the second name, the figure) is drawn exactly as with short names."""
    long = {**NAMES, **{p: LONG[script] for p in (1, 3, 5, 7)}}
    short = draw()
    wide = draw(names=long)
    assert wide.size == short.size
    column_end = round(PAD + (WIDTH - 2 * PAD - rc.FIGURE_W - rc.JOIN_W) / 2)
    right = (column_end, TITLE_H, WIDTH, short.height)
    assert wide.crop(right).tobytes() == short.crop(right).tobytes()
    left = (0, TITLE_H, column_end, short.height)
    assert wide.crop(left).tobytes() != short.crop(left).tobytes()  # the long names are drawn, not dropped
    # and the second player's long name stays out of the figure's column
    seconds = {**NAMES, **{p: LONG[script] for p in (2, 4, 6, 8)}}
    figure = (WIDTH - PAD - rc.FIGURE_W + 8, TITLE_H, WIDTH, short.height)
    assert draw(names=seconds).crop(figure).tobytes() == short.crop(figure).tobytes()


def test_the_words_are_the_callers() -> None:
    spanish = RecapWords(
        upsets="Sorpresas",
        longest="Partida más larga",
        claim="Mayor reclamación",
        beat="venció a",
        versus="contra",
        turns=lambda n: f"{n} turnos",
        shooters=lambda n: f"{n} tiradores",
    )
    english, translated = draw(), draw(words=spanish)
    assert english.size == translated.size and english.tobytes() != translated.tobytes()
    assert draw().tobytes() == english.tobytes()  # the same words give the same image


def luminance(c: RGB) -> float:
    def channel(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in c)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_text_is_readable_on_its_ground(theme: str) -> None:
    """The strongest ink of each part of a row (names, joining word, figure) and of a heading stands out from its
    ground by WCAG's 4.5:1 for text, dark mode (Discord's dark grey) included."""
    im = draw(theme=theme)
    heading = im.crop((0, TITLE_H, WIDTH, TITLE_H + rc.SECTION_H))
    parts = [heading]
    for top in (row_top(0, 0, 0), row_top(0, 1, 0)):
        row = im.crop((0, top, WIDTH, top + rc.ROW_H))
        inner = WIDTH - 2 * PAD - rc.FIGURE_W
        join = (round(PAD + (inner - rc.JOIN_W) / 2), 0, round(PAD + (inner + rc.JOIN_W) / 2), rc.ROW_H)
        parts += [row.crop((PAD, 0, PAD + 80, rc.ROW_H)), row.crop(join), row.crop((WIDTH - 120, 0, WIDTH, rc.ROW_H))]
    for part in parts:
        ground = part.getpixel((1, 1))
        assert isinstance(ground, tuple)
        best = max(contrast(c, ground) for _, c in colours(part))
        assert best >= 4.5, (theme, best)


def test_a_long_joining_word_is_shortened_between_the_names() -> None:
    short = draw()
    long = draw(words=RecapWords(beat="derrotó con toda claridad a " * 3))
    column = (WIDTH - 2 * PAD - rc.FIGURE_W - rc.JOIN_W) / 2
    first = (0, TITLE_H, round(PAD + column), short.height)
    second = (round(PAD + column + rc.JOIN_W), TITLE_H, WIDTH, short.height)
    assert long.crop(first).tobytes() == short.crop(first).tobytes()
    assert long.crop(second).tobytes() == short.crop(second).tobytes()
    assert long.tobytes() != short.tobytes()
