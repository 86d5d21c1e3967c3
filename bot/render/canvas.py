"""The shared canvas every game is drawn on: themes, layout, sprites, the header, the palette, PNG and GIF.

The bot posts a fresh board after every turn, so drawing must be cheap as well as pretty. Every
stone, mark and tinted square is drawn once per (theme, square size) at four times its size and
scaled down, which gives smooth edges; a board is then a cached background plus a few pastes and
the header. Images are mapped onto a fixed 256-colour palette made for their theme and game:
mapping onto a known palette is cheap, where choosing a palette per image is not, and a palette
image encodes as a PNG several times faster and smaller than an RGB one. Replays share that
palette, so every GIF frame needs no colour table of its own. As that mapping is pixel by pixel,
boards are put together already mapped, from cached pieces (``Compositor``): the same indices as
the plain RGB board (``compose``) mapped whole, for a fraction of the work.

Each game's drawer (``veletas``, ``veloop``) turns its rules objects into pastes on this canvas;
nothing here knows a game's rules.
"""

from __future__ import annotations

import io
import itertools
import logging
import math
import struct
import threading
import unicodedata
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Generic, NamedTuple, TypeVar

from isal import isal_zlib
from PIL import Image, ImageChops, ImageDraw, ImageFont, features

from bot.rules.common import FILES, parse_square, square_name

log = logging.getLogger(__name__)
V = TypeVar("V")

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]
Cell = tuple[int, int]  # 0-based (file, rank); (0, 0) is a1

DEFAULT_WIDTH = 800
MIN_WIDTH = 320
MAX_WIDTH = 2000
SUPERSAMPLE = 4
# zlib level 3, for images Pillow encodes (not palette ones): as fast as level 1 and some 10% smaller; level 6
# saves a little more for twice the time, level 9 is ten times slower (benchmarks/bench_render.py).
PNG_COMPRESS_LEVEL = 3
# Palette images (boards, tournament sheets) are deflated by ISA-L (the isal package): its level 1 is about
# as small as zlib's level 3 on a board, in a tenth of the time (benchmarks/bench_render.py).
PNG_DEFLATE_LEVEL = 1
GIF_FRAME_MS = 700
GIF_FIRST_MS = 1200
GIF_FINAL_MS = 4000

FONT_DIR = Path(__file__).resolve().parent.parent / "assets" / "fonts"


@dataclass(frozen=True)
class Theme:
    """Colours and shapes of one look; the bot stores each player's choice by ``name``."""

    name: str
    label: str  # what a player picking a theme reads
    background: RGB
    text: RGB
    muted: RGB
    accent: RGB
    light: RGB
    dark: RGB
    frame: RGB
    shooter: RGB
    shooter_rim: RGB
    black: RGB
    black_rim: RGB
    white: RGB
    white_rim: RGB
    move: RGB  # tint of the squares a move left and reached, and of setup placements
    move_line: RGB
    shot: RGB  # tint of the square just shot
    shot_line: RGB
    claim: RGB  # ring around shooters claimed by the last move
    hint: RGBA  # destination dots and target rings
    hatch: RGBA  # stripes on squares where no shooter may be placed
    shadow: int = 0  # alpha of the soft shadow under pieces, 0 for none
    tint: float = 0.5  # how strongly a highlight tint covers a square
    shaded: bool = True  # pieces lit from the upper left; flat in the contrast theme
    square_shooters: bool = False  # shooters as rounded squares, so they differ from stones by shape too
    marked_claims: bool = False  # a claimed shooter's cap carries a dot of the other colour

    # Every sprite cache is keyed by the theme: hashing its 27 fields once, not on each lookup.
    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash(tuple(getattr(self, f.name) for f in fields(self)))


DEFAULT_THEME = "light"
"""The theme of boards for players who never chose one."""

THEMES: dict[str, Theme] = {
    theme.name: theme
    for theme in (
        Theme(
            name="light",
            label="Light: a warm wooden board",
            background=(246, 241, 232),
            text=(43, 36, 28),
            muted=(110, 96, 78),
            accent=(176, 44, 30),
            light=(238, 219, 178),
            dark=(214, 180, 128),
            frame=(120, 88, 50),
            shooter=(214, 52, 40),
            shooter_rim=(128, 24, 16),
            black=(30, 30, 34),
            black_rim=(0, 0, 0),
            white=(252, 252, 250),
            white_rim=(96, 90, 82),
            move=(255, 214, 64),
            move_line=(214, 150, 20),
            shot=(96, 170, 255),
            shot_line=(36, 110, 210),
            claim=(255, 196, 0),
            hint=(40, 30, 20, 110),
            hatch=(90, 60, 30, 70),
            shadow=70,
            tint=0.55,
        ),
        Theme(
            name="dark",
            label="Dark: slate, made for Discord's dark mode",
            background=(49, 51, 56),
            text=(235, 236, 240),
            muted=(160, 165, 175),
            accent=(255, 120, 100),
            light=(104, 112, 128),
            dark=(82, 89, 104),
            frame=(30, 31, 34),
            shooter=(236, 72, 58),
            shooter_rim=(120, 22, 14),
            black=(18, 18, 22),
            black_rim=(190, 196, 206),
            white=(246, 246, 246),
            white_rim=(30, 31, 34),
            move=(240, 196, 64),
            move_line=(250, 204, 60),
            shot=(70, 150, 250),
            shot_line=(110, 180, 255),
            claim=(255, 204, 0),
            hint=(245, 245, 255, 120),
            hatch=(10, 10, 16, 120),
            shadow=0,
            tint=0.6,
        ),
        Theme(
            # Okabe–Ito colours and luminance carry the meaning; shapes and marks back them up,
            # so nothing depends on telling red from green.
            name="contrast",
            label="Contrast: colour-blind safe, shooters square and claims marked",
            background=(255, 255, 255),
            text=(0, 0, 0),
            muted=(60, 60, 60),
            accent=(0, 90, 170),
            light=(236, 236, 236),
            dark=(200, 200, 200),
            frame=(0, 0, 0),
            shooter=(230, 159, 0),
            shooter_rim=(0, 0, 0),
            black=(0, 0, 0),
            black_rim=(0, 0, 0),
            white=(255, 255, 255),
            white_rim=(0, 0, 0),
            move=(240, 228, 66),
            move_line=(0, 0, 0),
            shot=(86, 180, 233),
            shot_line=(0, 114, 178),
            claim=(0, 114, 178),
            hint=(0, 0, 0, 150),
            hatch=(0, 0, 0, 80),
            shadow=0,
            tint=0.75,
            shaded=False,
            square_shooters=True,
            marked_claims=True,
        ),
    )
}


@dataclass(frozen=True)
class Layout:
    """Where things are on an image of a given width; tests and callers use it to find squares."""

    n: int
    width: int
    height: int
    square: int
    header: int
    left: int  # x of the board's left edge
    top: int  # y of the board's top edge

    def origin(self, cell: Cell) -> tuple[int, int]:
        """Top-left pixel of a square: rank 1 is at the bottom, as players read a board."""
        file, rank = cell
        return self.left + file * self.square, self.top + (self.n - 1 - rank) * self.square

    def center(self, square: str) -> tuple[int, int]:
        """Pixel at the middle of the named square."""
        x, y = self.origin(parse_square(square, self.n))
        return x + self.square // 2, y + self.square // 2


def layout(n: int, width: int | None = None) -> Layout:
    """The geometry of an n×n board drawn ``width`` pixels wide (clamped to a sensible range)."""
    w = DEFAULT_WIDTH if width is None else max(MIN_WIDTH, min(MAX_WIDTH, int(width)))
    gutter = round(w * 0.042)
    square = (w - 2 * gutter) // n
    left = (w - n * square) // 2
    header = round(w * 0.115)
    height = header + n * square + 2 * left
    return Layout(n=n, width=w, height=height, square=square, header=header, left=left, top=header + left)


# --- the scene: everything one image shows, with no rules objects left in it -------------------------------


@dataclass(frozen=True)
class Header:
    names: tuple[str, str]  # black, white
    score: tuple[int, int]
    to_move: str | None  # colour underlined as the one to act; nothing is underlined once the game is over
    status: str
    finished: bool = False
    times: tuple[str | None, str | None] = (None, None)  # each side's clock, after its name, never shortened
    score_label: str | None = None  # what the score counts, in small letters under it (Veloop: confined stones)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def theme_named(name: str) -> Theme:
    try:
        return THEMES[name]
    except KeyError:
        raise ValueError(f"unknown theme {name!r}: choose one of {', '.join(THEMES)}") from None


@lru_cache(maxsize=32)
def face(px: int, bold: bool = True) -> ImageFont.FreeTypeFont:
    # BASIC layout: the same glyph placement whether or not libraqm is installed.
    path = FONT_DIR / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    return ImageFont.truetype(str(path), max(6, px), layout_engine=ImageFont.Layout.BASIC)


# --- text: DejaVu Sans first, then system fonts for the scripts and emoji it lacks ----------------------------
#
# Player names come from Discord in any script, often with emoji, and the bot's words are translated
# (Japanese among them). The bundled DejaVu Sans draws Latin, Greek and Cyrillic; for the rest the text
# falls back, character by character, to Noto Sans CJK (Japanese, Chinese, Korean; Debian's
# fonts-noto-cjk) and then to Noto Color Emoji (fonts-noto-color-emoji), each run of text drawn in the
# first font that has it. Both are system packages that scripts/run, scripts/test and the Dockerfile
# install; where they are missing, what no font draws is left out, as a row of empty boxes reads
# worse than a shorter name.

FONT_SEARCH: tuple[Path, ...] = (
    Path("/usr/share/fonts/opentype/noto"),  # Debian, Ubuntu: fonts-noto-cjk
    Path("/usr/share/fonts/truetype/noto"),  # Debian, Ubuntu: fonts-noto-color-emoji
    Path("/usr/share/fonts/noto-cjk"),  # Arch
    Path("/usr/share/fonts/noto"),  # Arch
    Path("/usr/share/fonts/google-noto-cjk"),  # Fedora
    Path("/usr/share/fonts/google-noto-color-emoji-fonts"),  # Fedora
)
CJK_FILES = {True: "NotoSansCJK-Bold.ttc", False: "NotoSansCJK-Regular.ttc"}
CJK_INDEX = 0  # the collection's Japanese face: the project's CJK language is Japanese
EMOJI_FILE = "NotoColorEmoji.ttf"
EMOJI_STRIKE = 109  # Noto Color Emoji is a bitmap font with this one size; its glyphs are scaled to the text
EMOJI_BOX = (136, 128, 101)  # its glyphs' width, height and ascent at that size

ZWJ = "\u200d"
KEYCAP = "\u20e3"


def _find_font(name: str) -> Path | None:
    for folder in FONT_SEARCH:
        path = folder / name
        if path.is_file():
            return path
    return None


def missing_font_packages() -> list[str]:
    """The Debian packages text in every script still needs here (empty when all is in place):
    what scripts/run and scripts/test install, and the Dockerfile installs always."""
    missing = []
    if _find_font(CJK_FILES[True]) is None or _find_font(CJK_FILES[False]) is None:
        missing.append("fonts-noto-cjk")
    if _find_font(EMOJI_FILE) is None:
        missing.append("fonts-noto-color-emoji")
    if _find_font("NotoSansThai-Bold.ttf") is None or _find_font("NotoSansDevanagari-Regular.ttf") is None:
        missing.append("fonts-noto-core")  # Noto Sans for Thai, the Indic scripts, Ethiopic, Khmer...
    if not features.check_feature("raqm"):
        missing.append("libfribidi0")  # Pillow's Raqm layout loads it; emoji sequences need it
    return missing


def _engine() -> ImageFont.Layout:
    # Raqm joins emoji sequences (families, flags, skin tones) into their single glyphs; without it
    # (no libfribidi) each part is drawn on its own, which still reads.
    return ImageFont.Layout.RAQM if features.check_feature("raqm") else ImageFont.Layout.BASIC


@lru_cache(maxsize=64)
def _cjk(px: int, bold: bool) -> ImageFont.FreeTypeFont | None:
    path = _find_font(CJK_FILES[bold])
    if path is None:
        return None
    try:
        return ImageFont.truetype(str(path), max(6, px), index=CJK_INDEX, layout_engine=ImageFont.Layout.BASIC)
    except OSError:
        log.warning("could not load %s; Japanese, Chinese and Korean text is left out of images", path)
        return None


@lru_cache(maxsize=1)
def _emoji() -> ImageFont.FreeTypeFont | None:
    path = _find_font(EMOJI_FILE)
    if path is None:
        return None
    try:
        return ImageFont.truetype(str(path), EMOJI_STRIKE, layout_engine=_engine())
    except OSError:
        log.warning("could not load %s; emoji are left out of images", path)
        return None


@lru_cache(maxsize=128)
def _script(name: str, px: int, bold: bool) -> ImageFont.FreeTypeFont | None:
    """Noto Sans for one script (Debian's fonts-noto-core: NotoSansThai-Bold.ttf and the like), laid
    out with Raqm where there is one, as such scripts join and reorder their letters."""
    path = _find_font(f"NotoSans{name}-{'Bold' if bold else 'Regular'}.ttf")
    if path is None:
        return None
    try:
        return ImageFont.truetype(str(path), max(6, px), layout_engine=_engine())
    except OSError:
        log.warning("could not load %s", path)
        return None


@lru_cache(maxsize=1024)
def _script_of(char: str) -> tuple[str, ...]:
    """Candidate script names for a character, from its Unicode name ("THAI CHARACTER KO KAI" → Thai)."""
    words = unicodedata.name(char, "").split()
    if not words:
        return ()
    return tuple(dict.fromkeys(("".join(w.title() for w in words[:2]), words[0].title())))


@lru_cache(maxsize=128)
def _shaped(which: str, px: int, bold: bool) -> ImageFont.FreeTypeFont | None:
    """DejaVu (``text``) or Noto Sans CJK (``cjk``) laid out with Raqm, for runs that need shaping:
    right-to-left scripts and letters with combining marks. Other runs keep the basic layout the
    boards have always been drawn with."""
    if which == "text":
        path: Path | None = FONT_DIR / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
        index = 0
    else:
        path, index = _find_font(CJK_FILES[bold]), CJK_INDEX
    if path is None:
        return None
    return ImageFont.truetype(str(path), max(6, px), index=index, layout_engine=_engine())


def _is_extender(ch: str) -> bool:
    """A character that belongs to the one before it: marks, joiners, variation selectors, skin tones, tags."""
    o = ord(ch)
    return (
        ch in (ZWJ, KEYCAP)
        or 0xFE00 <= o <= 0xFE0F
        or 0x1F3FB <= o <= 0x1F3FF
        or 0xE0020 <= o <= 0xE007F
        or unicodedata.category(ch) in ("Mn", "Me")
    )


def _regional(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def _emoji_mark(ch: str) -> bool:
    """A character that makes the one before it an emoji: the emoji selector, a joiner, a skin tone, a keycap, tags."""
    o = ord(ch)
    return ch in ("\ufe0f", ZWJ, KEYCAP) or 0x1F3FB <= o <= 0x1F3FF or 0xE0020 <= o <= 0xE007F


def clusters(text: str) -> list[str]:
    """The text cut into what a reader sees as one character: an emoji with its skin tone, a flag, a
    family joined by ZWJ, a letter with its accents. Shortening and font choice work on these."""
    out: list[str] = []
    for ch in text:
        if out and (
            _is_extender(ch) or out[-1].endswith(ZWJ) or (_regional(ch) and len(out[-1]) == 1 and _regional(out[-1]))
        ):
            out[-1] += ch
        else:
            out.append(ch)
    return out


@lru_cache(maxsize=8192)
def _in_font(which: str, char: str, bold: bool) -> bool:
    """Whether font ``which`` (``text``, ``cjk``, ``emoji``, ``script:Thai``...) draws ``char`` as a glyph."""
    if which == "emoji":
        emoji = _emoji()
        return emoji is not None and emoji.getmask2(char, mode="RGBA")[0].getbbox() is not None
    font = face(24, bold) if which == "text" else _cjk(24, bold) if which == "cjk" else _script(which[7:], 24, bold)
    if font is None:
        return False
    mask = font.getmask(char)
    if mask.size[0] == 0:
        return False  # zero-width: variation selectors, joiners
    notdef = font.getmask("\U0010fffd")
    return not (mask.size == notdef.size and bytes(mask) == bytes(notdef))


def _font_for(cluster: str, bold: bool) -> str | None:
    """The first font that draws this cluster: an emoji sequence in the emoji font, else by its first character."""
    base = cluster[0]
    if base.isspace():
        return "text"
    # Pictographs from U+1F000 on are emoji to a Discord reader (DejaVu has some of them in black and white)
    emoji_like = ord(base) >= 0x1F000 or any(_emoji_mark(c) for c in cluster[1:])
    scripts = tuple(f"script:{name}" for name in _script_of(base))
    if emoji_like and "\ufe0e" not in cluster:
        order = ("emoji", "text", "cjk", *scripts)
    else:
        order = ("text", "cjk", *scripts, "emoji")
    for which in order:
        if _in_font(which, base, bold):
            if which in ("text", "cjk") and any(_needs_shaping(c) for c in cluster):
                return which + "+"
            return which
    return None


def _needs_shaping(char: str) -> bool:
    """Right-to-left letters (Hebrew, Arabic) and combining marks are laid out by Raqm, not one by one."""
    return unicodedata.bidirectional(char) in ("R", "AL") or unicodedata.category(char) == "Mn"


@dataclass(frozen=True)
class TextFace:
    """Text of one pixel size and weight that draws any script it can find a font for.

    Use it where text may hold names or translated words: ``getlength`` measures as drawn (so
    ``fit`` shortens correctly) and ``draw_text`` draws it. Figures and coordinates, which DejaVu
    always has, can keep using ``face``.
    """

    px: int
    bold: bool = True

    @property
    def primary(self) -> ImageFont.FreeTypeFont:
        return face(self.px, self.bold)

    def runs(self, text: str) -> tuple[tuple[str, str], ...]:
        """(font, text) runs: ``text`` (DejaVu), ``cjk`` or ``emoji`` (one run per emoji); what no font
        draws is left out."""
        return _runs(text, self.bold)

    def getlength(self, text: str) -> float:
        return _measure(text, self.px, self.bold)


@lru_cache(maxsize=8192)
def _measure(text: str, px: int, bold: bool) -> float:
    return sum(_run_length(which, run, px, bold) for which, run in _runs(text, bold))


@lru_cache(maxsize=4096)
def _runs(text: str, bold: bool) -> tuple[tuple[str, str], ...]:
    runs: list[tuple[str, str]] = []
    with DRAWING:
        for cluster in clusters(text):
            which = _font_for(cluster, bold)
            if which is None:
                continue  # no font draws it: left out rather than a box
            if which == "emoji":
                runs.append((which, cluster))  # one sprite per emoji
            elif runs and (runs[-1][0] == which or (cluster.isspace() and runs[-1][0] != "emoji")):
                # a space stays in the run before it, so two right-to-left words are one run Raqm orders
                runs[-1] = (runs[-1][0], runs[-1][1] + cluster)
            else:
                runs.append((which, cluster))
    out: list[tuple[str, str]] = []
    for which, run in runs:
        kept = run.rstrip() if which != "text" else run
        # trailing spaces go on their own, or Raqm would put them on the left of a right-to-left run
        for kind, part in ((which, kept), ("text", run[len(kept) :])):
            if out and kind == "text" and out[-1][0] == "text":
                out[-1] = ("text", out[-1][1] + part)
            elif part:
                out.append((kind, part))
    return tuple(out)


def _font(which: str, px: int, bold: bool) -> ImageFont.FreeTypeFont:
    """The font of a run kind (runs of a kind exist only when its font was found)."""
    font: ImageFont.FreeTypeFont | None
    if which == "text":
        return face(px, bold)
    if which == "cjk":
        font = _cjk(px, bold)
    elif which.endswith("+"):
        font = _shaped(which[:-1], px, bold)
    else:
        font = _script(which[7:], px, bold)
    assert font is not None
    return font


def _emoji_scale(px: int) -> float:
    return max(6, px) / EMOJI_STRIKE


@lru_cache(maxsize=8192)
def _run_length(which: str, run: str, px: int, bold: bool) -> float:
    if which == "emoji":
        return round(EMOJI_BOX[0] * _emoji_scale(px))
    return _font(which, px, bold).getlength(run)


@lru_cache(maxsize=512)
def emoji_sprite(cluster: str, px: int) -> Image.Image:
    """One emoji (or emoji sequence) in colour, scaled from the font's only size to text of ``px`` pixels."""
    emoji = _emoji()
    assert emoji is not None
    w, h, _ascent = EMOJI_BOX
    big = Image.new("RGBA", (max(w, round(emoji.getlength(cluster))), h), (0, 0, 0, 0))
    ImageDraw.Draw(big).text((0, 0), cluster, font=emoji, embedded_color=True)
    big = big.crop((0, 0, w, h))
    scale = _emoji_scale(px)
    return big.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.Resampling.LANCZOS)


def overlay(im: Image.Image, sprite: Image.Image, xy: tuple[int, int], fill: RGB | int = 255) -> None:
    """Lay an RGBA sprite over ``im`` through its alpha; on an ``L`` silhouette, put ``fill`` wherever it covers."""
    if im.mode == "L":
        im.paste(fill, (xy[0], xy[1], xy[0] + sprite.width, xy[1] + sprite.height), sprite)
    else:
        im.paste(sprite, xy, sprite)


@lru_cache(maxsize=1024)
def _text_mask(
    font: ImageFont.FreeTypeFont, text: str, mode: str, anchor: str, ink: int, start: tuple[float, float]
) -> tuple[Image.Image, tuple[int, int]]:
    """FreeType's rendering of one line of text, as ``ImageDraw.text`` asks for it: the mask and its offset."""
    mask, offset = font.getmask2(text, mode, None, None, None, 0, anchor, ink, start, stroke_filled=True)
    return Image.Image()._new(mask), (int(offset[0]), int(offset[1]))


def text_line(
    d: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    font: ImageFont.FreeTypeFont,
    fill: RGB | int,
    anchor: str,
) -> None:
    """``d.text(xy, text, font=font, fill=fill, anchor=anchor)`` for one line, pixel for pixel, with FreeType's
    rendering remembered: the same names, scores and status lines come back on every board of a game."""
    if "\n" in text or d.fontmode == "RGBA":
        d.text(xy, text, font=font, fill=fill, anchor=anchor)
        return
    start = (math.modf(xy[0])[0], math.modf(xy[1])[0])
    # Only colour fonts (RGBA, drawn by Pillow itself above) render with the ink: a mask serves every ink.
    mask, offset = _text_mask(font, text, d.fontmode, anchor, 0, start)
    d.bitmap((int(xy[0]) + offset[0], int(xy[1]) + offset[1]), mask, fill=fill)


def draw_text(
    im: Image.Image,
    xy: tuple[float, float],
    text: str,
    font: TextFace,
    fill: RGB | int,
    anchor: str = "la",
) -> float:
    """Draw ``text`` at ``xy`` as Pillow's ``ImageDraw.text`` would with ``anchor`` (horizontal l/m/r,
    vertical a/m/s/d), each run in the first font that has it; returns the width drawn.

    On an ``L`` image (a silhouette, see ``header_extent``) give ``fill`` 255: every pixel the text
    touches, emoji included, turns non-zero."""
    runs = font.runs(text)
    d = ImageDraw.Draw(im)
    total = font.getlength(text)
    if len(runs) == 1 and runs[0][0] == "text" and runs[0][1] == text:
        # the usual case: one font, drawn exactly as before fallbacks existed
        text_line(d, xy, text, font.primary, fill, anchor)
        return total
    x, y = xy
    h_anchor, v_anchor = anchor[0], anchor[1]
    x0 = x - (total / 2 if h_anchor == "m" else total if h_anchor == "r" else 0)
    ascent, descent = font.primary.getmetrics()
    baseline = {"a": y + ascent, "m": y + (ascent - descent) / 2, "s": y, "d": y - descent}.get(v_anchor, y + ascent)
    for which, run in runs:
        if which == "emoji":
            sprite = emoji_sprite(run, font.px)
            top = baseline - EMOJI_BOX[2] * _emoji_scale(font.px)
            overlay(im, sprite, (round(x0), round(top)), fill)
        else:
            text_line(d, (x0, baseline), run, _font(which, font.px, font.bold), fill, "ls")
        x0 += _run_length(which, run, font.px, font.bold)
    return total


_generation = [0]


def font_generation() -> int:
    """Bumped by every ``reset_fonts``: a cache of drawn text elsewhere keys on it."""
    return _generation[0]


def reset_fonts() -> None:
    """Forget which fonts were found and what they draw (after ``FONT_SEARCH`` changes; tests use it)."""
    _generation[0] += 1
    for cached in (
        _cjk,
        _emoji,
        _script,
        _shaped,
        _in_font,
        _runs,
        _run_length,
        _measure,
        emoji_sprite,
        has_glyph,
        visible,
        _text_mask,
    ):
        cached.cache_clear()


# --- sprites: drawn big once, scaled down for smooth edges ---------------------------------------------------


def supersampled(width: int, height: int, draw: Callable[[ImageDraw.ImageDraw, int], None]) -> Image.Image:
    s = SUPERSAMPLE
    canvas = Image.new("RGBA", (width * s, height * s), (0, 0, 0, 0))
    draw(ImageDraw.Draw(canvas), s)
    # Pillow resizes RGBA with premultiplied alpha, so edges keep their colour instead of darkening.
    return canvas.resize((width, height), Image.Resampling.LANCZOS)


def circle(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: RGBA | RGB | None, **kw: object) -> None:
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, **kw)  # type: ignore[arg-type]


def shaded_disc(d: ImageDraw.ImageDraw, c: float, r: float, edge: RGB, centre: RGB, shaded: bool) -> None:
    """A disc lit from the upper left: concentric discs drifting towards the light, each a step lighter."""
    if not shaded:
        circle(d, c, c, r, edge)
        return
    steps = 40
    for i in range(steps):
        t = i / (steps - 1)
        shift = -r * 0.28 * t
        circle(d, c + shift, c + shift, r * (1 - 0.7 * t), mix(edge, centre, t))


def shooter_light(theme: Theme) -> RGB:
    return mix(theme.shooter, (255, 255, 255), 0.22)


def stone_light(theme: Theme, kind: str) -> tuple[RGB, RGB]:
    """Edge and highlight colours of a stone: black lifts towards grey, white dims towards its rim."""
    if not theme.shaded:
        colour = theme.black if kind == "b" else theme.white
        return colour, colour
    if kind == "b":
        return theme.black, mix(theme.black, (255, 255, 255), 0.2)
    return mix(theme.white, theme.white_rim, 0.12), theme.white


@lru_cache(maxsize=128)
def stone(theme: Theme, sq: int, kind: str) -> Image.Image:
    """A ``b`` or ``w`` stone the size of a square, with the theme's rim, shading and shadow."""

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = sq * s
        c = size / 2
        if theme.shadow:
            off = size * 0.035
            circle(d, c + off * 0.6, c + off, size * 0.40, (0, 0, 0, theme.shadow))
        rim = theme.black_rim if kind == "b" else theme.white_rim
        circle(d, c, c, size * 0.38, rim)
        shaded_disc(d, c, size * 0.38 - max(s, size * 0.035), *stone_light(theme, kind), theme.shaded)

    return supersampled(sq, sq, draw)


@lru_cache(maxsize=64)
def mark(theme: Theme, sq: int, kind: str) -> Image.Image:
    """Marks every game draws on a square: hint ``dot`` and ``ring``, and ``select`` brackets round a pick."""

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = sq * s
        c = size / 2
        if kind == "dot":
            circle(d, c, c, size * 0.15, theme.hint)
        elif kind == "ring":
            circle(d, c, c, size * 0.33, None, outline=theme.hint, width=round(size * 0.07))
        elif kind == "select":
            # corner brackets in the text colour: unlike every tint and ring, they never mean a move
            w = round(size * 0.075)
            arm = size * 0.3
            for x, dx in ((0, 1), (size, -1)):
                for y, dy in ((0, 1), (size, -1)):
                    d.rectangle(box(x, y, x + dx * arm, y + dy * w), fill=theme.text)
                    d.rectangle(box(x, y, x + dx * w, y + dy * arm), fill=theme.text)
        else:
            raise ValueError(f"no shared mark {kind!r}")

    return supersampled(sq, sq, draw)


def box(x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


@lru_cache(maxsize=64)
def segment(theme: Theme, sq: int, df: int, dr: int, style: str) -> Image.Image:
    """A line from the centre of one square to the centre of its neighbour in direction (df, dr).

    A path is a chain of these pasted under the pieces. Each reaches a little past both centres
    with square ends, so neighbours overlap where both are opaque and the chain shows no seam.
    """
    w, h = (abs(df) + 1) * sq, (abs(dr) + 1) * sq
    colour = line_colour(theme, style)

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        half = sq * s / 2
        step = sq * s
        length = (df * df + dr * dr) ** 0.5
        ux, uy = df / length, -dr / length  # ranks grow upwards, pixels downwards
        x0 = half if df >= 0 else w * s - half
        y0 = h * s - half if dr >= 0 else half
        x1, y1 = x0 + df * step, y0 - dr * step
        ext = step * 0.04
        d.line(
            (x0 - ux * ext, y0 - uy * ext, x1 + ux * ext, y1 + uy * ext),
            fill=colour,
            width=round(step * line_width(style)),
        )

    return supersampled(w, h, draw)


def line_colour(theme: Theme, style: str) -> RGB:
    return theme.move_line if style == "move" else theme.shot_line


def line_width(style: str) -> float:
    return 0.13 if style == "move" else 0.07


@lru_cache(maxsize=16)
def cap(theme: Theme, sq: int, style: str) -> Image.Image:
    """The round start of a path, in the middle of the square the shooter left."""

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        c = sq * s / 2
        circle(d, c, c, sq * s * line_width(style) * 0.75, line_colour(theme, style))

    return supersampled(sq, sq, draw)


@lru_cache(maxsize=128)
def square_tile(theme: Theme, sq: int, dark: bool, tint: str | None, hatched: bool) -> Image.Image:
    """A whole square's background: its board colour, perhaps tinted, perhaps striped."""
    base = theme.dark if dark else theme.light
    if tint is not None:
        # "move" and "shot" at full strength; "support", Veloop's stone a move leapt from, at half
        colour = theme.move if tint in ("move", "support") else theme.shot
        base = mix(base, colour, theme.tint / 2 if tint == "support" else theme.tint)
    tile = Image.new("RGB", (sq, sq), base)
    if hatched:

        def draw(d: ImageDraw.ImageDraw, s: int) -> None:
            size = sq * s
            step = size / 5
            width = round(step * 0.28)
            for i in range(-5, 6):
                x = i * step
                d.line((x, size, x + size, 0), fill=theme.hatch, width=width)

        stripes = supersampled(sq, sq, draw)
        tile.paste(stripes, (0, 0), stripes)
    return tile


# --- static layers: background, frame and coordinates per (theme, board size, width) --------------------


@lru_cache(maxsize=24)
def background(theme: Theme, n: int, width: int) -> Image.Image:
    lay = layout(n, width)
    sq = lay.square
    im = Image.new("RGB", (lay.width, lay.height), theme.background)
    for file in range(n):
        for rank in range(n):
            im.paste(square_tile(theme, sq, (file + rank) % 2 == 0, None, False), lay.origin((file, rank)))
    d = ImageDraw.Draw(im)
    frame_w = max(2, round(sq * 0.04))
    x0, y0 = lay.left, lay.top
    x1, y1 = lay.left + n * sq, lay.top + n * sq
    d.rectangle((x0 - frame_w, y0 - frame_w, x1 + frame_w - 1, y1 + frame_w - 1), outline=theme.frame, width=frame_w)
    font = face(round(lay.left * 0.5))
    gap = (lay.left - frame_w) / 2
    for i in range(n):
        letter = FILES[i]
        cx = lay.left + i * sq + sq / 2
        d.text((cx, y1 + frame_w + gap), letter, font=font, fill=theme.muted, anchor="mm")
        d.text((cx, y0 - frame_w - gap), letter, font=font, fill=theme.muted, anchor="mm")
        number = str(i + 1)
        cy = lay.top + (n - 1 - i) * sq + sq / 2
        d.text((x0 - frame_w - gap, cy), number, font=font, fill=theme.muted, anchor="mm")
        d.text((x1 + frame_w + gap, cy), number, font=font, fill=theme.muted, anchor="mm")
    return im


def fit(text: str, font: ImageFont.FreeTypeFont | TextFace, width: float) -> str:
    """The text, shortened with an ellipsis so a long player name cannot run into the score.

    It is cut between whole clusters (an emoji sequence, a letter with its accents), measured as drawn.
    """
    if font.getlength(text) <= width:
        return text
    parts = clusters(text)
    low, high = 0, len(parts) - 1  # the most clusters that fit with the ellipsis: at least low, fewer than high + 1
    while low < high:
        mid = (low + high + 1) // 2
        if font.getlength("".join(parts[:mid]) + "…") <= width:
            low = mid
        else:
            high = mid - 1
    return "".join(parts[:low]).rstrip() + "…"


def signed(value: int) -> str:
    """A score as printed: a true minus sign for Veloop's negative scores, which a hyphen makes look like a dash."""
    return str(value) if value >= 0 else f"\u2212{-value}"


NAME_CLEARANCE = 0.4
"""The least space between a player's name (however long, in any script) and the score, in header heights."""


def draw_header(im: Image.Image, theme: Theme, lay: Layout, header: Header) -> None:
    """The names with their stones, the score, whose move it is and the status line, over the top of ``im``.

    On an ``L`` image everything is drawn in 255 instead of its colours, at the same places: that
    silhouette shows every pixel the header touches (see ``header_extent``).
    """
    silhouette = im.mode == "L"

    def ink(colour: RGB) -> RGB | int:
        return 255 if silhouette else colour

    h = lay.header
    pad = lay.left
    d = ImageDraw.Draw(im)
    big = face(round(h * 0.28))
    name_face = TextFace(round(h * 0.28))
    cy = h * 0.38
    r = h * 0.16
    icon = round(2 * r / 0.76)
    score = f"{signed(header.score[0])}  –  {signed(header.score[1])}"
    label_face = TextFace(round(h * 0.15), bold=False)
    score_label = fit(header.score_label, label_face, lay.width / 3) if header.score_label else ""
    middle = max(big.getlength(score), label_face.getlength(score_label))
    # the middle (score and its label) keeps a clear space on each side, whatever the names' script
    room = lay.width / 2 - middle / 2 - pad - 2 * r - h * 0.12 - NAME_CLEARANCE * h
    gap = h * 0.12
    bar_y = cy + h * 0.22
    bar_h = max(2, round(h * 0.045))
    for colour, kind, name, time in (
        ("black", "b", header.names[0], header.times[0]),
        ("white", "w", header.names[1], header.times[1]),
    ):
        sprite = stone(theme, icon, kind)
        clock = f"  {time}" if time else ""
        label = fit(name, name_face, room - name_face.getlength(clock)) + clock
        ix: float
        x0: float
        if colour == "black":
            ix = pad
            label_w = draw_text(im, (ix + 2 * r + gap, cy), label, name_face, ink(theme.text), anchor="lm")
            x0, x1 = ix, ix + 2 * r + gap + label_w
        else:
            ix = round(lay.width - pad - 2 * r)
            label_w = draw_text(im, (ix - gap, cy), label, name_face, ink(theme.text), anchor="rm")
            x0, x1 = ix - gap - label_w, ix + 2 * r
        overlay(im, sprite, (round(ix + r - icon / 2), round(cy - icon / 2)))
        if header.to_move == colour and not header.finished:
            d.rectangle((round(x0), round(bar_y), round(x1), round(bar_y) + bar_h), fill=ink(theme.accent))
    text_line(d, (lay.width / 2, cy), score, big, ink(theme.text), "mm")
    if score_label:
        draw_text(im, (lay.width / 2, cy + h * 0.225), score_label, label_face, ink(theme.muted), anchor="mm")
    status_font = TextFace(round(h * 0.20), bold=header.finished)
    status = fit(header.status, status_font, lay.width - 2 * pad)
    status_ink = theme.accent if header.finished else theme.muted
    draw_text(im, (lay.width / 2, h * 0.82), status, status_font, ink(status_ink), anchor="mm")


def build_palette(theme: Theme, images: Iterable[Image.Image], extra: Iterable[RGB] = ()) -> Image.Image:
    """A 256-colour palette: the theme's flat colours (and a game's ``extra`` ones) exactly, the rest spread
    over every colour the catalogue ``images`` of that game show.

    Colours are counted once each rather than by area, so the few pixels of anti-aliased edges
    get as much say as the large flat squares, which keep their exact entries anyway.
    """
    flat: list[RGB] = [theme.background, theme.text, theme.muted, theme.accent, theme.light, theme.dark, theme.frame]
    flat += [theme.shooter, theme.shooter_rim, theme.black, theme.black_rim, theme.white, theme.white_rim]
    flat += [theme.move_line, theme.shot_line, theme.claim]
    for square in (theme.light, theme.dark):
        flat += [mix(square, theme.move, theme.tint), mix(square, theme.shot, theme.tint)]
        flat.append(mix(square, theme.hint[:3], theme.hint[3] / 255))
    flat += list(extra)
    if theme.shaded:
        # the lit discs get evenly spaced steps of their own, or their shading would show bands
        for edge, centre in (
            stone_light(theme, "b"),
            stone_light(theme, "w"),
            (theme.shooter, shooter_light(theme)),
        ):
            flat += [mix(edge, centre, i / 11) for i in range(12)]
    exact = list(dict.fromkeys(flat))
    colours: set[RGB] = set()
    for im in images:
        found = im.getcolors(maxcolors=1 << 22) or []
        colours.update(rgb for _count, rgb in found)  # type: ignore[misc]
    # Pillow maps colours to a palette through a cache of 4×4×4 cells, so an entry a few levels
    # from a flat colour could capture it; nothing that close may stand beside the exact entries.
    spread = sorted(c for c in colours if not any(close(c, e) for e in exact))
    sample = Image.new("RGB", (len(spread), 1))
    sample.putdata(spread)
    free = 255 - len(exact)  # the last entry is kept for replays' transparent pixels
    rest = sample.quantize(colors=free, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    found_palette = rest.getpalette() or []
    rest_colours = [tuple(found_palette[i : i + 3]) for i in range(0, 3 * free, 3)]
    rest_entries = [c for rgb in rest_colours if not any(close(rgb, e) for e in exact) for c in rgb]
    entries = [c for rgb in exact for c in rgb] + rest_entries
    entries += [*exact[0]] * ((765 - len(entries)) // 3)
    entries += [*UNUSED]
    pal = Image.new("P", (1, 1))
    pal.putpalette(entries)
    return pal


# The last palette entry: a colour no theme draws, so no pixel ever maps to it and replays can use
# its index to mean "unchanged since the previous frame".
UNUSED: RGB = (255, 0, 255)
TRANSPARENT = 255


def close(a: Sequence[int], b: Sequence[int], within: int = 6) -> bool:
    return abs(a[0] - b[0]) <= within and abs(a[1] - b[1]) <= within and abs(a[2] - b[2]) <= within


# Boards are drawn in a worker process (bot/render/workers.py), the rarer images (and every image, with
# DRAWING_WORKERS=0) in threads of the bot's. FreeType faces must not be used by two threads at once, and
# the caches above are filled on first use, so drawing takes this lock; PNG and GIF encoding,
# the part that runs longest without the GIL, stays outside it.
DRAWING = threading.RLock()


def to_palette(im: Image.Image, palette: Image.Image) -> Image.Image:
    return im.quantize(palette=palette, dither=Image.Dither.NONE)


def png(im: Image.Image) -> bytes:
    """The image as a PNG file. A palette image is written here, its pixels deflated by ISA-L: the same
    pixels and palette Pillow would write, in a tenth of the time. Anything else is Pillow's to encode."""
    if im.mode != "P" or "transparency" in im.info or not im.width or not im.height:
        out = io.BytesIO()
        im.save(out, "PNG", compress_level=PNG_COMPRESS_LEVEL)
        return out.getvalue()
    palette = bytes(im.getpalette() or [])[: 3 * 256].ljust(3 * 256, b"\0")  # an entry for every index
    # Each row of a PNG starts with its filter type: 0 (none; palette indices do not predict well).
    rows = Image.new("P", (im.width + 1, im.height), 0)
    rows.paste(im, (1, 0))
    pixels = isal_zlib.compress(rows.tobytes(), PNG_DEFLATE_LEVEL)
    header = struct.pack(">IIBBBBB", im.width, im.height, 8, 3, 0, 0, 0)  # 8 bits, palette, no interlace
    chunks = [_chunk(b"IHDR", header), _chunk(b"PLTE", palette), _chunk(b"IDAT", pixels), _chunk(b"IEND", b"")]
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunks)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def gif(frames: Sequence[Image.Image], *, frame_ms: int, final_ms: int) -> bytes:
    """An animated GIF of palette frames that share one palette, holding the last frame ``final_ms``."""
    durations = [GIF_FIRST_MS] + [frame_ms] * (len(frames) - 2) + [final_ms] if len(frames) > 1 else [final_ms]
    # Each later frame keeps only what changed; the rest is transparent and shows the frame before
    # (disposal 1), so a move costs a few squares and a header line rather than a whole board.
    deltas = [frames[0]]
    for before, after in itertools.pairwise(frames):
        unchanged = ImageChops.subtract_modulo(after, before).point([255, *(0,) * 255], "1")
        delta = after.copy()
        delta.paste(TRANSPARENT, mask=unchanged)
        deltas.append(delta)
    out = io.BytesIO()
    deltas[0].save(
        out,
        "GIF",
        save_all=True,
        append_images=deltas[1:],
        duration=durations,
        loop=0,
        disposal=1,
        transparency=TRANSPARENT,
        optimize=False,
    )
    return out.getvalue()


# --- composing: a board as ordered pastes, drawn plainly or from cached cells --------------------------------
#
# Mapping onto a palette is pixel by pixel (each colour to its nearest entry, no dithering), so a
# part of an image mapped on its own gets the same indices as the whole image mapped at once. A
# board is its background, pastes of cached sprites on the squares, and the header. The background
# is mapped once per (theme, board size, width); each square a paste touches is mapped once per
# what covers it (its background and the sprites over it, each with its offset, in order) and kept;
# the header's strip is mapped once per header. A board is then a copy of the mapped background with
# those pieces pasted in: indices for indices what mapping the whole RGB image gives.


class Paste(NamedTuple):
    """One sprite on the board, its top-left corner at ``at``.

    ``key`` names the sprite: the function that drew it and its arguments other than the theme and
    square size, which the board fixes (``sprite_at`` makes both). An RGB sprite (a square's tile)
    replaces what is under it; an RGBA one is laid over it through its alpha.
    """

    key: tuple[Hashable, ...]
    sprite: Image.Image
    at: tuple[int, int]


def sprite_at(theme: Theme, lay: Layout, cell: Cell, draw: Callable[..., Image.Image], *args: Hashable) -> Paste:
    """``draw(theme, square, *args)``'s sprite with its top-left corner on ``cell``'s."""
    return Paste((draw.__module__, draw.__qualname__, *args), draw(theme, lay.square, *args), lay.origin(cell))


def put(im: Image.Image, paste: Paste, dx: int = 0, dy: int = 0) -> None:
    """Paste onto ``im`` whose top-left pixel is the board's (dx, dy); what falls outside is cut off."""
    x, y = paste.at[0] - dx, paste.at[1] - dy
    if paste.sprite.mode == "RGBA":
        im.paste(paste.sprite, (x, y), paste.sprite)
    else:
        im.paste(paste.sprite, (x, y))


def compose(theme: Theme, lay: Layout, pastes: Iterable[Paste], header: Header) -> Image.Image:
    """The board as an RGB image, drawn the plain way: the background, each paste in order, the header.

    ``Compositor.draw`` gives what mapping this onto a palette gives; palettes are built from these.
    """
    im = background(theme, lay.n, lay.width).copy()
    for paste in pastes:
        put(im, paste)
    draw_header(im, theme, lay, header)
    return im


def header_extent(theme: Theme, lay: Layout, header: Header) -> tuple[int, int, int, int] | None:
    """The box of every pixel the header touches, however little (None if none): its silhouette's."""
    silhouette = Image.new("L", (lay.width, lay.height), 0)
    draw_header(silhouette, theme, lay, header)
    return silhouette.getbbox()


class Recent(Generic[V]):
    """Values by key, the least recently used dropped past ``entries`` of them or ``pixels`` in all."""

    def __init__(self, entries: int, pixels: int) -> None:
        self.entries, self.pixels = entries, pixels
        self.held = 0
        self._items: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> V | None:
        found = self._items.get(key)
        if found is None:
            return None
        self._items.move_to_end(key)
        return found[0]

    def put(self, key: Hashable, value: V, pixels: int) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self.held -= old[1]
        self._items[key] = (value, pixels)
        self.held += pixels
        while len(self._items) > self.entries or (self.held > self.pixels and len(self._items) > 1):
            _key, (_value, dropped) = self._items.popitem(last=False)
            self.held -= dropped

    def clear(self) -> None:
        self._items.clear()
        self.held = 0


@dataclass(frozen=True)
class _Strip:
    """A header's strip mapped onto the palette; None when the header runs into the squares."""

    image: Image.Image | None


class _Board:
    """What every board of one (theme, board size, width) shares: the background, plain and mapped,
    and which squares have the same background pixels (a light and a dark square, mostly)."""

    def __init__(self, token: int, theme: Theme, lay: Layout, palette: Image.Image) -> None:
        self.token, self.theme, self.lay, self.palette = token, theme, lay, palette
        self.rgb = background(theme, lay.n, lay.width)
        self.mapped = to_palette(self.rgb, palette)
        sq = lay.square
        looks: dict[bytes, int] = {}
        self.looks: dict[tuple[int, int], int] = {}
        for col in range(lay.n):
            for row in range(lay.n):
                x, y = lay.left + col * sq, lay.top + row * sq
                pixels = self.rgb.crop((x, y, x + sq, y + sq)).tobytes()
                self.looks[col, row] = looks.setdefault(pixels, len(looks))


@dataclass
class Counts:
    """What a compositor drew afresh, and what it took from its caches."""

    cells: int = 0
    cell_hits: int = 0
    headers: int = 0
    header_hits: int = 0
    plain: int = 0  # boards drawn whole the plain way: a paste off the squares, or a header running into them


class Compositor:
    """Draws one game's boards as palette images, square by square from cached pieces (see above).

    ``palette(theme)`` is the game's palette. Each game has its own compositor, as each has its own
    palette and sprites. Thread-safe: it draws under ``DRAWING``.
    """

    # An 800-px board's square is 60 to 150 pixels wide: 4096 squares are 15 to 90 MB, so the
    # pixel bound (one byte each) holds the cache to 24 MB; headers' strips are 0.1 MB each.
    def __init__(self, palette: Callable[[Theme], Image.Image], cells: int = 4096, pixels: int = 24 << 20) -> None:
        self.palette = palette
        self.cells: Recent[Image.Image] = Recent(cells, pixels)
        self.headers: Recent[_Strip] = Recent(64, 8 << 20)
        self.counts = Counts()
        self._tokens: dict[tuple[Theme, int, int], int] = {}
        self._boards: OrderedDict[int, _Board] = OrderedDict()

    def clear(self) -> None:
        """Forget every cached board, square and header (the counts stay)."""
        with DRAWING:
            self.cells.clear()
            self.headers.clear()
            self._boards.clear()

    def _board(self, theme: Theme, lay: Layout) -> _Board:
        token = self._tokens.setdefault((theme, lay.n, lay.width), len(self._tokens))
        board = self._boards.get(token)
        if board is None:
            board = self._boards[token] = _Board(token, theme, lay, self.palette(theme))
            while len(self._boards) > 12:
                self._boards.popitem(last=False)
        else:
            self._boards.move_to_end(token)
        return board

    def draw(self, theme: Theme, lay: Layout, pastes: Sequence[Paste], header: Header) -> Image.Image:
        """``to_palette(compose(theme, lay, pastes, header), palette(theme))``, index for index, only cheaper."""
        with DRAWING:
            board = self._board(theme, lay)
            stacks = self._stacks(lay, pastes)
            strip = self._strip(board, header)
            if stacks is None or strip is None:
                self.counts.plain += 1
                return to_palette(compose(theme, lay, pastes, header), board.palette)
            im = board.mapped.copy()
            im.paste(strip, (0, 0))
            sq = lay.square
            for (col, row), stack in stacks.items():
                key = (board.token, board.looks[col, row], tuple((p.key, dx, dy) for p, dx, dy in stack))
                cell = self.cells.get(key)
                x, y = lay.left + col * sq, lay.top + row * sq
                if cell is None:
                    rgb = board.rgb.crop((x, y, x + sq, y + sq))
                    for paste, _dx, _dy in stack:
                        put(rgb, paste, x, y)
                    cell = to_palette(rgb, board.palette)
                    self.cells.put(key, cell, sq * sq)
                    self.counts.cells += 1
                else:
                    self.counts.cell_hits += 1
                im.paste(cell, (x, y))
            return im

    @staticmethod
    def _stacks(lay: Layout, pastes: Sequence[Paste]) -> dict[tuple[int, int], list[tuple[Paste, int, int]]] | None:
        """Each square a paste touches (by column and row from the top left), with what covers it in
        order and where from its corner; None if a paste reaches off the squares."""
        sq, left, top = lay.square, lay.left, lay.top
        right, bottom = left + lay.n * sq, top + lay.n * sq
        stacks: dict[tuple[int, int], list[tuple[Paste, int, int]]] = {}
        for paste in pastes:
            x, y = paste.at
            w, h = paste.sprite.size
            if x < left or y < top or x + w > right or y + h > bottom:
                return None
            for col in range((x - left) // sq, (x + w - 1 - left) // sq + 1):
                for row in range((y - top) // sq, (y + h - 1 - top) // sq + 1):
                    stacks.setdefault((col, row), []).append((paste, x - left - col * sq, y - top - row * sq))
        return stacks

    def _strip(self, board: _Board, header: Header) -> Image.Image | None:
        """Everything above the squares, mapped: the background there with the header drawn on it.
        None when the header touches a pixel lower down (the board is then drawn the plain way)."""
        key = (board.token, header, font_generation())
        strip = self.headers.get(key)
        if strip is not None:
            self.counts.header_hits += 1
            return strip.image
        lay = board.lay
        extent = header_extent(board.theme, lay, header)
        fresh = _Strip(None)
        if extent is None or extent[3] <= lay.top:
            rgb = board.rgb.crop((0, 0, lay.width, lay.top))
            draw_header(rgb, board.theme, lay, header)
            fresh = _Strip(to_palette(rgb, board.palette))
        self.headers.put(key, fresh, lay.width * lay.top)
        self.counts.headers += 1
        return fresh.image


# --- names and squares ---------------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def cell_of(square: str, n: int) -> Cell:
    return parse_square(square, n)


def queen_line(a: Cell, b: Cell) -> tuple[Cell, ...]:
    """Squares from a to b inclusive along a queen line, or just the two ends when they are not on one."""
    df, dr = b[0] - a[0], b[1] - a[1]
    steps = max(abs(df), abs(dr))
    if steps == 0:
        return (a,)
    if df not in (0, steps, -steps) or dr not in (0, steps, -steps):
        log.debug("%s and %s are not on one line; drawing no path", square_name(*a), square_name(*b))
        return ()
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    return tuple((a[0] + i * sf, a[1] + i * sr) for i in range(steps + 1))


@lru_cache(maxsize=4096)
def has_glyph(char: str) -> bool:
    """Whether some available font draws ``char`` (DejaVu, else Noto Sans CJK, else Noto Color Emoji)."""
    return char.isspace() or _font_for(char, True) is not None


@lru_cache(maxsize=4096)
def visible(text: str) -> str:
    """The text with what no available font draws left out, and its spaces tidied.

    With the system fonts installed that is almost nothing (emoji and CJK are drawn); without them
    emoji and CJK go, as a row of empty boxes reads worse than a shorter name.
    """
    with DRAWING:
        kept = "".join(c for c in clusters(text) if c.isspace() or _font_for(c, True) is not None)
    return " ".join(kept.split())


def drawable(players: Mapping[str, str] | None) -> dict[str, str]:
    """Player names as ``visible`` leaves them; names left empty are dropped."""
    out: dict[str, str] = {}
    for key, name in (players or {}).items():
        kept = visible(name)
        if kept:
            out[key] = kept
    return out
