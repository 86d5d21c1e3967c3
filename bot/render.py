"""Board images and replay GIFs, drawn with Pillow only.

The bot posts a fresh board after every turn, so drawing must be cheap as well as pretty. Every
piece, mark and tinted square is drawn once per (theme, square size) at four times its size and
scaled down, which gives smooth edges; a board is then only a copy of a cached background plus a
few pastes. The finished RGB image is mapped onto a fixed 256-colour palette made for its theme:
mapping onto a known palette is cheap, where choosing a palette per image is not, and a palette
image encodes as a PNG several times faster and smaller than an RGB one. Replays share that
palette, so every GIF frame needs no colour table of its own.
"""

from __future__ import annotations

import io
import itertools
import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw, ImageFont

from bot.rules import Game, Move, Position
from bot.rules.common import FILES, parse_square, read_record, square_name

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_WIDTH",
    "THEMES",
    "Hints",
    "Layout",
    "Theme",
    "board_image",
    "board_png",
    "game_image",
    "game_png",
    "layout",
    "replay_gif",
]

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]
Cell = tuple[int, int]  # 0-based (file, rank); (0, 0) is a1

DEFAULT_WIDTH = 800
MIN_WIDTH = 320
MAX_WIDTH = 2000
SUPERSAMPLE = 4
# zlib level 3 encodes a palette board in about 2 ms, as fast as level 1 and some 10% smaller; level 6
# saves a little more for twice the time, level 9 is ten times slower (benchmarks/bench_render.py).
PNG_COMPRESS_LEVEL = 3
GIF_FRAME_MS = 700
GIF_FIRST_MS = 1200
GIF_FINAL_MS = 4000

FONT_DIR = Path(__file__).resolve().parent / "assets" / "fonts"


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
class Hints:
    """What a player asked to see on top of the board while choosing a move or setting up.

    ``destinations`` and ``targets`` come from the rules (``Position.destinations`` and
    ``Position.targets``); ``Hints.for_shooter`` fills them for the guided-input flow.
    """

    selected: str | None = None
    destinations: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    groups: bool = False  # badges with the biggest adjacent black and white group of each unclaimed shooter
    forbidden: tuple[str, ...] = ()  # squares where a setup shooter may not go

    @classmethod
    def for_shooter(
        cls, position: Position, shooter: str, *, destination: str | None = None, groups: bool = False
    ) -> Hints:
        """Hints for a player who picked ``shooter`` (and perhaps where it goes): where it may go, what it may hit.

        Before a destination is chosen the targets are those of a shot without moving; after,
        the targets are seen from the destination with the square the shooter left counted empty.
        """
        if destination is None or destination == shooter:
            return cls(
                selected=shooter,
                destinations=tuple(position.destinations(shooter)),
                targets=tuple(position.targets(shooter)),
                groups=groups,
            )
        return cls(
            selected=destination,
            targets=tuple(position.targets(destination, vacated=shooter)),
            groups=groups,
        )


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
class _Header:
    names: tuple[str, str]  # black, white
    score: tuple[int, int]
    to_move: str | None  # colour underlined: the one to act, or the winner once the game is over
    status: str
    finished: bool = False


@dataclass(frozen=True)
class _Scene:
    n: int
    pieces: Mapping[Cell, str]
    header: _Header
    tints: Mapping[Cell, str] = field(default_factory=dict)  # "move" or "shot"
    hatched: frozenset[Cell] = frozenset()
    ghosts: frozenset[Cell] = frozenset()  # where a shooter stood before it moved
    path: tuple[Cell, ...] = ()  # origin to destination of the last move
    shot: tuple[Cell, ...] = ()  # from the shooter to the square it shot
    dots: frozenset[Cell] = frozenset()
    rings: frozenset[Cell] = frozenset()
    claims: frozenset[Cell] = frozenset()
    selected: frozenset[Cell] = frozenset()  # the shooter (or its destination) a player picked
    badges: Mapping[Cell, tuple[int, int]] = field(default_factory=dict)


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def _theme(name: str) -> Theme:
    try:
        return THEMES[name]
    except KeyError:
        raise ValueError(f"unknown theme {name!r}: choose one of {', '.join(THEMES)}") from None


@lru_cache(maxsize=32)
def _font(px: int, bold: bool = True) -> ImageFont.FreeTypeFont:
    # BASIC layout: the same glyph placement whether or not libraqm is installed.
    path = FONT_DIR / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    return ImageFont.truetype(str(path), max(6, px), layout_engine=ImageFont.Layout.BASIC)


# --- sprites: drawn big once, scaled down for smooth edges ---------------------------------------------------


def _supersampled(width: int, height: int, draw: Callable[[ImageDraw.ImageDraw, int], None]) -> Image.Image:
    s = SUPERSAMPLE
    canvas = Image.new("RGBA", (width * s, height * s), (0, 0, 0, 0))
    draw(ImageDraw.Draw(canvas), s)
    # Pillow resizes RGBA with premultiplied alpha, so edges keep their colour instead of darkening.
    return canvas.resize((width, height), Image.Resampling.LANCZOS)


def _circle(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: RGBA | RGB | None, **kw: object) -> None:
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, **kw)  # type: ignore[arg-type]


def _shaded_disc(d: ImageDraw.ImageDraw, c: float, r: float, edge: RGB, centre: RGB, shaded: bool) -> None:
    """A disc lit from the upper left: concentric discs drifting towards the light, each a step lighter."""
    if not shaded:
        _circle(d, c, c, r, edge)
        return
    steps = 40
    for i in range(steps):
        t = i / (steps - 1)
        shift = -r * 0.28 * t
        _circle(d, c + shift, c + shift, r * (1 - 0.7 * t), _mix(edge, centre, t))


@lru_cache(maxsize=256)
def _piece(theme: Theme, sq: int, kind: str) -> Image.Image:
    """A piece sprite the size of a square: ``b``/``w`` stones, ``S`` unclaimed, ``B``/``W`` claimed shooters."""

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = sq * s
        c = size / 2
        if theme.shadow:
            off = size * 0.035
            _circle(d, c + off * 0.6, c + off, size * 0.40, (0, 0, 0, theme.shadow))
        rim_w = max(s, size * 0.04)
        if kind in "bw":
            rim = theme.black_rim if kind == "b" else theme.white_rim
            _circle(d, c, c, size * 0.38, rim)
            _shaded_disc(d, c, size * 0.38 - max(s, size * 0.035), *_stone_light(theme, kind), theme.shaded)
            return
        if theme.square_shooters:
            half = size * 0.39
            d.rounded_rectangle((c - half, c - half, c + half, c + half), radius=size * 0.10, fill=theme.shooter_rim)
            d.rounded_rectangle(
                (c - half + rim_w, c - half + rim_w, c + half - rim_w, c + half - rim_w),
                radius=size * 0.10 - rim_w,
                fill=theme.shooter,
            )
        else:
            _circle(d, c, c, size * 0.41, theme.shooter_rim)
            _shaded_disc(d, c, size * 0.41 - rim_w, theme.shooter, _shooter_light(theme), theme.shaded)
        if kind == "S":
            # an empty socket: the place where a claiming stone will sit
            _circle(d, c, c, size * 0.15, None, outline=theme.shooter_rim, width=max(s, round(size * 0.03)))
            return
        stone = "b" if kind == "B" else "w"
        _circle(d, c, c, size * 0.27, theme.shooter_rim)
        _shaded_disc(d, c, size * 0.27 - rim_w * 0.9, *_stone_light(theme, stone), theme.shaded)
        if theme.marked_claims:
            _circle(d, c, c, size * 0.07, theme.white if kind == "B" else theme.black)

    return _supersampled(sq, sq, draw)


def _shooter_light(theme: Theme) -> RGB:
    return _mix(theme.shooter, (255, 255, 255), 0.22)


def _stone_light(theme: Theme, kind: str) -> tuple[RGB, RGB]:
    """Edge and highlight colours of a stone: black lifts towards grey, white dims towards its rim."""
    if not theme.shaded:
        colour = theme.black if kind == "b" else theme.white
        return colour, colour
    if kind == "b":
        return theme.black, _mix(theme.black, (255, 255, 255), 0.2)
    return _mix(theme.white, theme.white_rim, 0.12), theme.white


def _box(x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


@lru_cache(maxsize=64)
def _mark(theme: Theme, sq: int, kind: str) -> Image.Image:
    """Marks drawn on a square: hint ``dot`` and ``ring``, the ``ghost`` a moved shooter left, a ``claim`` halo."""

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = sq * s
        c = size / 2
        if kind == "dot":
            _circle(d, c, c, size * 0.15, theme.hint)
        elif kind == "ring":
            _circle(d, c, c, size * 0.33, None, outline=theme.hint, width=round(size * 0.07))
        elif kind == "ghost":
            col = (*theme.shooter_rim, 150)
            if theme.square_shooters:
                half = size * 0.36
                d.rounded_rectangle(
                    (c - half, c - half, c + half, c + half), radius=size * 0.09, outline=col, width=round(size * 0.05)
                )
            else:
                _circle(d, c, c, size * 0.36, None, outline=col, width=round(size * 0.05))
        elif kind == "select":
            # corner brackets in the text colour: unlike every tint and ring, they never mean a move
            w = round(size * 0.075)
            arm = size * 0.3
            for x, dx in ((0, 1), (size, -1)):
                for y, dy in ((0, 1), (size, -1)):
                    d.rectangle(_box(x, y, x + dx * arm, y + dy * w), fill=theme.text)
                    d.rectangle(_box(x, y, x + dx * w, y + dy * arm), fill=theme.text)
        elif kind == "claim":
            w = round(size * 0.06)
            if theme.square_shooters:
                half = size * 0.49
                d.rounded_rectangle(
                    (c - half, c - half, c + half, c + half), radius=size * 0.14, outline=theme.claim, width=w
                )
            else:
                _circle(d, c, c, size * 0.49, None, outline=theme.claim, width=w)

    return _supersampled(sq, sq, draw)


@lru_cache(maxsize=64)
def _segment(theme: Theme, sq: int, df: int, dr: int, style: str) -> Image.Image:
    """A line from the centre of one square to the centre of its neighbour in direction (df, dr).

    A path is a chain of these pasted under the pieces. Each reaches a little past both centres
    with square ends, so neighbours overlap where both are opaque and the chain shows no seam.
    """
    w, h = (abs(df) + 1) * sq, (abs(dr) + 1) * sq
    colour = _line_colour(theme, style)

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
            width=round(step * _line_width(style)),
        )

    return _supersampled(w, h, draw)


def _line_colour(theme: Theme, style: str) -> RGB:
    return theme.move_line if style == "move" else theme.shot_line


def _line_width(style: str) -> float:
    return 0.13 if style == "move" else 0.07


@lru_cache(maxsize=16)
def _cap(theme: Theme, sq: int, style: str) -> Image.Image:
    """The round start of a path, in the middle of the square the shooter left."""

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        c = sq * s / 2
        _circle(d, c, c, sq * s * _line_width(style) * 0.75, _line_colour(theme, style))

    return _supersampled(sq, sq, draw)


@lru_cache(maxsize=512)
def _badge(theme: Theme, sq: int, black: int, white: int) -> Image.Image:
    """Two small counters under a shooter: its biggest adjacent black and white groups."""

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = sq * s
        h = size * 0.27
        font = _font(round(h * 0.78))
        y1 = size - size * 0.02
        y0 = y1 - h
        for value, fill, ink, x0 in (
            (black, theme.black, theme.white, size * 0.03),
            (white, theme.white, theme.black, size * 0.53),
        ):
            x1 = x0 + size * 0.44
            rim = theme.black_rim if fill == theme.black and theme.black_rim != theme.black else theme.white_rim
            d.rounded_rectangle((x0, y0, x1, y1), radius=h / 2, fill=rim)
            inset = max(s, size * 0.018)
            d.rounded_rectangle((x0 + inset, y0 + inset, x1 - inset, y1 - inset), radius=h / 2 - inset, fill=fill)
            d.text(((x0 + x1) / 2, (y0 + y1) / 2), str(value), font=font, fill=ink, anchor="mm")

    return _supersampled(sq, sq, draw)


@lru_cache(maxsize=128)
def _tile(theme: Theme, sq: int, dark: bool, tint: str | None, hatched: bool) -> Image.Image:
    """A whole square's background: its board colour, perhaps tinted, perhaps striped."""
    base = theme.dark if dark else theme.light
    if tint is not None:
        colour = theme.move if tint == "move" else theme.shot
        base = _mix(base, colour, theme.tint)
    tile = Image.new("RGB", (sq, sq), base)
    if hatched:

        def draw(d: ImageDraw.ImageDraw, s: int) -> None:
            size = sq * s
            step = size / 5
            width = round(step * 0.28)
            for i in range(-5, 6):
                x = i * step
                d.line((x, size, x + size, 0), fill=theme.hatch, width=width)

        stripes = _supersampled(sq, sq, draw)
        tile.paste(stripes, (0, 0), stripes)
    return tile


# --- static layers: background, frame and coordinates per (theme, board size, width) --------------------


@lru_cache(maxsize=24)
def _background(theme: Theme, n: int, width: int) -> Image.Image:
    lay = layout(n, width)
    sq = lay.square
    im = Image.new("RGB", (lay.width, lay.height), theme.background)
    for file in range(n):
        for rank in range(n):
            im.paste(_tile(theme, sq, (file + rank) % 2 == 0, None, False), lay.origin((file, rank)))
    d = ImageDraw.Draw(im)
    frame_w = max(2, round(sq * 0.04))
    x0, y0 = lay.left, lay.top
    x1, y1 = lay.left + n * sq, lay.top + n * sq
    d.rectangle((x0 - frame_w, y0 - frame_w, x1 + frame_w - 1, y1 + frame_w - 1), outline=theme.frame, width=frame_w)
    font = _font(round(lay.left * 0.5))
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


def _fit(text: str, font: ImageFont.FreeTypeFont, width: float) -> str:
    """The text, shortened with an ellipsis so a long player name cannot run into the score."""
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _draw_header(im: Image.Image, theme: Theme, lay: Layout, header: _Header) -> None:
    h = lay.header
    pad = lay.left
    d = ImageDraw.Draw(im)
    big = _font(round(h * 0.28))
    small = _font(round(h * 0.20), bold=False)
    cy = h * 0.38
    r = h * 0.16
    icon = round(2 * r / 0.76)
    score = f"{header.score[0]}  –  {header.score[1]}"
    score_w = big.getlength(score)
    room = lay.width / 2 - score_w / 2 - pad - 2 * r - h * 0.35
    gap = h * 0.12
    bar_y = cy + h * 0.22
    bar_h = max(2, round(h * 0.045))
    for colour, kind, name in (("black", "b", header.names[0]), ("white", "w", header.names[1])):
        sprite = _piece(theme, icon, kind)
        label = _fit(name, big, room)
        label_w = big.getlength(label)
        ix: float
        x0: float
        if colour == "black":
            ix = pad
            d.text((ix + 2 * r + gap, cy), label, font=big, fill=theme.text, anchor="lm")
            x0, x1 = ix, ix + 2 * r + gap + label_w
        else:
            ix = round(lay.width - pad - 2 * r)
            d.text((ix - gap, cy), label, font=big, fill=theme.text, anchor="rm")
            x0, x1 = ix - gap - label_w, ix + 2 * r
        im.paste(sprite, (round(ix + r - icon / 2), round(cy - icon / 2)), sprite)
        if header.to_move == colour:
            d.rectangle((round(x0), round(bar_y), round(x1), round(bar_y) + bar_h), fill=theme.accent)
    d.text((lay.width / 2, cy), score, font=big, fill=theme.text, anchor="mm")
    status_font = _font(round(h * 0.20)) if header.finished else small
    status = _fit(header.status, status_font, lay.width - 2 * pad)
    ink = theme.accent if header.finished else theme.muted
    d.text((lay.width / 2, h * 0.82), status, font=status_font, fill=ink, anchor="mm")


def _compose(scene: _Scene, theme: Theme, width: int | None) -> Image.Image:
    """The scene as an RGB image: cached background, then tints, lines, marks and pieces in that order."""
    lay = layout(scene.n, width)
    sq = lay.square
    im = _background(theme, scene.n, lay.width).copy()
    for cell in set(scene.tints) | scene.hatched:
        tile = _tile(theme, sq, (cell[0] + cell[1]) % 2 == 0, scene.tints.get(cell), cell in scene.hatched)
        im.paste(tile, lay.origin(cell))
    for line, style in ((scene.path, "move"), (scene.shot, "shot")):
        for a, b in itertools.pairwise(line):
            df, dr = b[0] - a[0], b[1] - a[1]
            seg = _segment(theme, sq, df, dr, style)
            x = lay.origin((min(a[0], b[0]), max(a[1], b[1])))
            im.paste(seg, x, seg)
        if len(line) > 1 and style == "move":
            cap = _cap(theme, sq, style)
            im.paste(cap, lay.origin(line[0]), cap)
    for cells, kind in ((scene.ghosts, "ghost"), (scene.claims, "claim")):
        for cell in cells:
            mark = _mark(theme, sq, kind)
            im.paste(mark, lay.origin(cell), mark)
    for cell, piece in scene.pieces.items():
        sprite = _piece(theme, sq, piece)
        im.paste(sprite, lay.origin(cell), sprite)
    for cells, kind in ((scene.dots, "dot"), (scene.rings, "ring"), (scene.selected, "select")):
        for cell in cells:
            mark = _mark(theme, sq, kind)
            im.paste(mark, lay.origin(cell), mark)
    for cell, (black, white) in scene.badges.items():
        badge = _badge(theme, sq, black, white)
        im.paste(badge, lay.origin(cell), badge)
    _draw_header(im, theme, lay, scene.header)
    return im


# --- the palette: fixed per theme, built from a catalogue of everything the renderer draws ---------------


def _catalogue(theme: Theme) -> list[_Scene]:
    n = 10
    cells = [(f, r) for f in range(n) for r in range(n)]
    kinds = "SBWbw"
    pieces = {cell: kinds[i % 5] for i, cell in enumerate(cells) if i % 3 != 2}
    header = _Header(("Black player", "White player"), (2, 3), "black", "Black to move · 4 to win")
    over = _Header(("Black player", "White player"), (4, 1), None, "Black wins 4 – 1", finished=True)
    odd = frozenset(c for c in cells if (c[0] * 3 + c[1]) % 4 == 0)
    return [
        _Scene(
            n=n,
            pieces=pieces,
            header=header,
            tints={c: ("move", "shot")[i % 4 // 2] for i, c in enumerate(cells) if i % 2},
            selected=frozenset(c for c in cells if c[1] == 9),
            ghosts=odd,
            path=((0, 0), (1, 1), (2, 2), (2, 3), (2, 4), (1, 4), (0, 3)),
            shot=((5, 5), (6, 5), (7, 6), (7, 7)),
            claims=odd,
            badges={c: (c[0] % 8, c[1] % 8) for c in cells if c[0] % 2 == 0},
        ),
        _Scene(
            n=n,
            pieces={},
            header=over,
            hatched=frozenset(c for c in cells if c[0] < 3),
            tints={c: ("move", "shot")[c[1] % 2] for c in cells if c[0] % 3 == 0},
            selected=frozenset(c for c in cells if c[0] == 9),
            dots=frozenset(c for c in cells if c[1] % 2 == 0),
            rings=frozenset(c for c in cells if c[1] % 2 == 1),
        ),
    ]


@lru_cache(maxsize=8)
def _palette(theme: Theme) -> Image.Image:
    """A 256-colour palette: the theme's flat colours exactly, the rest spread over every blend it draws.

    Colours are counted once each rather than by area, so the few pixels of anti-aliased edges
    get as much say as the large flat squares, which keep their exact entries anyway.
    """
    flat: list[RGB] = [theme.background, theme.text, theme.muted, theme.accent, theme.light, theme.dark, theme.frame]
    flat += [theme.shooter, theme.shooter_rim, theme.black, theme.black_rim, theme.white, theme.white_rim]
    flat += [theme.move_line, theme.shot_line, theme.claim]
    for square in (theme.light, theme.dark):
        flat += [_mix(square, theme.move, theme.tint), _mix(square, theme.shot, theme.tint)]
        flat.append(_mix(square, theme.hint[:3], theme.hint[3] / 255))
    if theme.shaded:
        # the lit discs get evenly spaced steps of their own, or their shading would show bands
        for edge, centre in (
            _stone_light(theme, "b"),
            _stone_light(theme, "w"),
            (theme.shooter, _shooter_light(theme)),
        ):
            flat += [_mix(edge, centre, i / 11) for i in range(12)]
    exact = list(dict.fromkeys(flat))
    colours: set[RGB] = set()
    for scene in _catalogue(theme):
        im = _compose(scene, theme, None)
        found = im.getcolors(maxcolors=1 << 22) or []
        colours.update(rgb for _count, rgb in found)  # type: ignore[misc]
    # Pillow maps colours to a palette through a cache of 4×4×4 cells, so an entry a few levels
    # from a flat colour could capture it; nothing that close may stand beside the exact entries.
    spread = sorted(c for c in colours if not any(_close(c, e) for e in exact))
    sample = Image.new("RGB", (len(spread), 1))
    sample.putdata(spread)
    free = 255 - len(exact)  # the last entry is kept for replays' transparent pixels
    rest = sample.quantize(colors=free, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    found_palette = rest.getpalette() or []
    rest_colours = [tuple(found_palette[i : i + 3]) for i in range(0, 3 * free, 3)]
    rest_entries = [c for rgb in rest_colours if not any(_close(rgb, e) for e in exact) for c in rgb]
    entries = [c for rgb in exact for c in rgb] + rest_entries
    entries += [*exact[0]] * ((765 - len(entries)) // 3)
    entries += [*_UNUSED]
    pal = Image.new("P", (1, 1))
    pal.putpalette(entries)
    return pal


# The last palette entry: a colour no theme draws, so no pixel ever maps to it and replays can use
# its index to mean "unchanged since the previous frame".
_UNUSED: RGB = (255, 0, 255)
_TRANSPARENT = 255


def _close(a: Sequence[int], b: Sequence[int], within: int = 6) -> bool:
    return abs(a[0] - b[0]) <= within and abs(a[1] - b[1]) <= within and abs(a[2] - b[2]) <= within


# The bot renders in worker threads. FreeType faces must not be used by two threads at once, and
# the caches above are filled on first use, so drawing takes this lock; PNG and GIF encoding,
# the part that runs longest without the GIL, stays outside it.
_DRAWING = threading.RLock()


def _draw(scene: _Scene, theme: Theme, width: int | None) -> Image.Image:
    with _DRAWING:
        return _to_palette(_compose(scene, theme, width), theme)


def _to_palette(im: Image.Image, theme: Theme) -> Image.Image:
    return im.quantize(palette=_palette(theme), dither=Image.Dither.NONE)


def _png(im: Image.Image) -> bytes:
    out = io.BytesIO()
    im.save(out, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()


# --- from rules objects to scenes ----------------------------------------------------------------------------


def _cell(square: str, n: int) -> Cell:
    return parse_square(square, n)


def _line(a: Cell, b: Cell) -> tuple[Cell, ...]:
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


def _status_line(position: Position, names: tuple[str, str]) -> tuple[str | None, str, bool]:
    black, white = position.score
    need = position.needed_to_win
    if position.winner is not None:
        who = names[0] if position.winner == "black" else names[1]
        return position.winner, f"{who} wins  {black} – {white}", True
    who = names[0] if position.to_move == "black" else names[1]
    return position.to_move, f"{who} to move  ·  {need} to win", False


@lru_cache(maxsize=4096)
def _has_glyph(char: str) -> bool:
    """Whether the shipped font draws ``char``; missing ones would show as empty boxes."""
    if char.isspace():
        return True
    with _DRAWING:
        font = _font(24)
        mask = font.getmask(char)
        if mask.size[0] == 0:
            return False  # zero-width: variation selectors, joiners
        notdef = font.getmask("\U0010fffd")
        return not (mask.size == notdef.size and bytes(mask) == bytes(notdef))


def _drawable(players: Mapping[str, str] | None) -> dict[str, str]:
    """Player names with the characters our font lacks (emoji, CJK) left out; names left empty are dropped.

    Discord names often carry emoji, and a row of empty boxes reads worse than a shorter name.
    """
    out: dict[str, str] = {}
    for key, name in (players or {}).items():
        kept = " ".join("".join(ch for ch in name if _has_glyph(ch)).split())
        if kept:
            out[key] = kept
    return out


def _names(players: Mapping[str, str] | None) -> tuple[str, str]:
    players = _drawable(players)
    return players.get("black") or "Black", players.get("white") or "White"


def _scene(
    position: Position,
    *,
    last_move: Move | None,
    hints: Hints | None,
    header: _Header,
    placed: Iterable[str] = (),
) -> _Scene:
    n = position.size
    pieces = {_cell(sq, n): piece for sq, piece in position.pieces().items()}
    tints: dict[Cell, str] = {}
    ghosts: set[Cell] = set()
    path: tuple[Cell, ...] = ()
    shot: tuple[Cell, ...] = ()
    for sq in placed:
        tints[_cell(sq, n)] = "move"
    if last_move is not None:
        target = _cell(last_move.target, n)
        if last_move.shooter is not None and last_move.destination is not None:
            origin = _cell(last_move.shooter, n)
            dest = _cell(last_move.destination, n)
            path = _line(origin, dest)
            shot = _line(dest, target)
            tints[origin] = tints[dest] = "move"
            ghosts.add(origin)
        elif last_move.shooter is not None:
            shot = _line(_cell(last_move.shooter, n), target)
        tints[target] = "shot"
    claims = frozenset(_cell(c.square, n) for c in position.last_claims)
    dots: frozenset[Cell] = frozenset()
    rings: frozenset[Cell] = frozenset()
    hatched: frozenset[Cell] = frozenset()
    selected: frozenset[Cell] = frozenset()
    badges: dict[Cell, tuple[int, int]] = {}
    if hints is not None:
        if hints.selected is not None:
            selected = frozenset({_cell(hints.selected, n)})
        dots = frozenset(_cell(sq, n) for sq in hints.destinations)
        rings = frozenset(_cell(sq, n) for sq in hints.targets)
        hatched = frozenset(_cell(sq, n) for sq in hints.forbidden)
        if hints.groups:
            badges = {_cell(sq, n): sizes for sq, sizes in position.group_hints().items()}
    return _Scene(
        n=n,
        pieces=pieces,
        header=header,
        tints=tints,
        hatched=hatched,
        ghosts=frozenset(ghosts - set(pieces)),
        path=path,
        shot=shot,
        dots=dots,
        rings=rings,
        claims=claims,
        selected=selected,
        badges=badges,
    )


def _as_move(move: Move | str | None) -> Move | None:
    if move is None or isinstance(move, Move):
        return move
    return Move.parse(move)


def board_image(
    position: Position,
    *,
    last_move: Move | str | None = None,
    theme: str = "light",
    hints: Hints | None = None,
    size: int | None = None,
    players: Mapping[str, str] | None = None,
) -> Image.Image:
    """The board as a palette image (see ``board_png``), for callers that compose or animate it."""
    look = _theme(theme)
    names = _names(players)
    to_move, status, finished = _status_line(position, names)
    header = _Header(names, position.score, to_move, status, finished)
    scene = _scene(position, last_move=_as_move(last_move), hints=hints, header=header)
    return _draw(scene, look, size)


def board_png(
    position: Position,
    *,
    last_move: Move | str | None = None,
    theme: str = "light",
    hints: Hints | None = None,
    size: int | None = None,
    players: Mapping[str, str] | None = None,
) -> bytes:
    """A PNG of the position: pieces, the last move and its claims, the score, whose turn it is.

    ``size`` is the image width in pixels (default 800); ``players`` maps ``"black"``/``"white"``
    to the names shown in the header. The same arguments always give the same bytes.
    """
    return _png(board_image(position, last_move=last_move, theme=theme, hints=hints, size=size, players=players))


# --- games: setup, pie, play and the end, and replays ---------------------------------------------------------

_SEATS = ("first", "second")


def _colour_of_seat(game: Game, seat: str) -> str | None:
    first = game.first_player_colour
    if first is None:
        return None
    return first if seat == "first" else ("white" if first == "black" else "black")


def _game_names(game: Game, players: Mapping[str, str] | None) -> tuple[tuple[str, str], dict[str, str]]:
    """Names by colour for the header and by seat for the status line, from whichever keys were given."""
    players = _drawable(players)
    seats: dict[str, str] = {}
    for seat, fallback in zip(_SEATS, ("First player", "Second player"), strict=True):
        colour = _colour_of_seat(game, seat)
        seats[seat] = players.get(seat) or (players.get(colour) if colour else None) or fallback
    colours: list[str] = []
    for colour in ("black", "white"):
        name = players.get(colour)
        if name is None and game.first_player_colour is not None:
            seat = "first" if game.first_player_colour == colour else "second"
            name = players.get(seat)
        colours.append(name or colour.title())
    return (colours[0], colours[1]), seats


def _setup_status(game: Game, seat_names: Mapping[str, str]) -> str:
    who = seat_names[game.seat_to_act or "first"]
    count = game.shooters_to_place
    shooters = f"{count} shooter" + ("s" if count != 1 else "")
    stone = f" and a {game.colour_to_act or 'black'} stone" if game.stone_to_place else ""
    return f"Setup  ·  {who} places {shooters}{stone}"


def _game_scene(game: Game, previous: Game | None, hints: Hints | None, players: Mapping[str, str] | None) -> _Scene:
    position = game.position
    names, seats = _game_names(game, players)
    placed: list[str] = []
    if previous is not None and previous.phase in ("setup", "pie") and game.phase != "over":
        before = previous.position.pieces()
        placed = [sq for sq in position.pieces() if sq not in before]
    if game.phase == "setup":
        occupied = position.pieces()
        allowed = set(game.setup_squares())
        forbidden = tuple(
            square_name(f, r)
            for f in range(position.size)
            for r in range(position.size)
            if square_name(f, r) not in allowed and square_name(f, r) not in occupied
        )
        base = hints or Hints()
        hints = Hints(base.selected, base.destinations, base.targets, base.groups, base.forbidden or forbidden)
        header = _Header(names, position.score, game.colour_to_act, _setup_status(game, seats))
    elif game.phase == "pie":
        who = seats[game.seat_to_act or "second"]
        header = _Header(names, position.score, None, f"{who} chooses colours: keep or swap")
    elif game.phase == "over":
        winner = game.winner or position.winner
        who = names[0] if winner == "black" else names[1]
        black, white = position.score
        header = _Header(names, position.score, winner, f"{who} wins  {black} – {white}", finished=True)
    else:
        to_move, status, finished = _status_line(position, names)
        header = _Header(names, position.score, to_move, status, finished)
    last = game.last_move if game.phase in ("play", "over") else None
    return _scene(position, last_move=last, hints=hints, header=header, placed=placed)


def _load(game: Game | str, players: Mapping[str, str] | None) -> tuple[Game, Mapping[str, str] | None]:
    """The game, and whose names to show: those given, else a record's Black and White headers."""
    if not isinstance(game, str):
        return game, players
    loaded = Game.from_record(game)
    if players is None:
        record = read_record(game)
        named = {c: record.header(c.title()) or "" for c in ("black", "white")}
        players = {c: name for c, name in named.items() if name.strip() not in ("", "?")}
    return loaded, players


def _replay_to(game: Game, ply: int) -> Game:
    turns = game.turns
    if not 0 <= ply <= len(turns):
        raise ValueError(f"ply {ply} is not in this game: it has plies 0 to {len(turns)}")
    return Game.replay(turns[:ply], variant=game.variant.name, rules=game.rules)


def game_image(
    game: Game | str,
    *,
    ply: int | None = None,
    theme: str = "light",
    hints: Hints | None = None,
    size: int | None = None,
    players: Mapping[str, str] | None = None,
) -> Image.Image:
    """Any state of a game as a palette image; ``ply`` counts turns played, setup and pie choice included."""
    look = _theme(theme)
    full, players = _load(game, players)
    at = full if ply is None or ply == len(full.turns) else _replay_to(full, ply)
    count = len(at.turns)
    previous = _replay_to(full, count - 1) if count and at.phase in ("setup", "pie", "play") else None
    scene = _game_scene(at, previous, hints, players)
    return _draw(scene, look, size)


def game_png(
    game: Game | str,
    *,
    ply: int | None = None,
    theme: str = "light",
    hints: Hints | None = None,
    size: int | None = None,
    players: Mapping[str, str] | None = None,
) -> bytes:
    """A PNG of a game (or a record's text) after ``ply`` turns, the latest by default.

    Setup shows where shooters may not go, the pie choice says who chooses, play shows the last
    move, and a finished game shows its result. ``players`` may be keyed by seat or by colour.
    """
    return _png(game_image(game, ply=ply, theme=theme, hints=hints, size=size, players=players))


def _frames(game: Game, players: Mapping[str, str] | None, theme: Theme, size: int | None) -> list[Image.Image]:
    current = Game.new(game.variant.name, rules=game.rules)
    frames = [_draw(_game_scene(current, None, None, players), theme, size)]
    for turn in game.turns:
        previous, current = current, current.play(turn)
        frames.append(_draw(_game_scene(current, previous, None, players), theme, size))
    return frames


def replay_gif(
    game: Game | str,
    *,
    theme: str = "light",
    size: int | None = None,
    players: Mapping[str, str] | None = None,
    frame_ms: int = GIF_FRAME_MS,
    final_ms: int = GIF_FINAL_MS,
) -> bytes:
    """An animated GIF of a whole game from its empty board, holding the final position a while."""
    look = _theme(theme)
    frames = _frames(*_load(game, players), look, size)
    durations = [GIF_FIRST_MS] + [frame_ms] * (len(frames) - 2) + [final_ms] if len(frames) > 1 else [final_ms]
    # Each later frame keeps only what changed; the rest is transparent and shows the frame before
    # (disposal 1), so a move costs a few squares and a header line rather than a whole board.
    deltas = [frames[0]]
    for before, after in itertools.pairwise(frames):
        unchanged = ImageChops.subtract_modulo(after, before).point([255, *(0,) * 255], "1")
        delta = after.copy()
        delta.paste(_TRANSPARENT, mask=unchanged)
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
        transparency=_TRANSPARENT,
        optimize=False,
    )
    return out.getvalue()
