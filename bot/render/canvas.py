"""The canvas every game is drawn on: the layout, the header, and boards put together from pastes.

The bot posts a fresh board after every turn, so drawing must be cheap as well as pretty. A board is
a cached background (squares, frame, coordinates), pastes of cached sprites (``sprites``) on its
squares, and the header (names, score, status). As mapping onto a palette (``palette``) is pixel by
pixel, boards are put together already mapped, from cached pieces (``Compositor``): the same indices
as the plain RGB board (``compose``) mapped whole, for a fraction of the work.

Each game's drawer (``veletas``, ``veloop``, on ``game_drawer.GameDrawer``) turns its rules objects into
pastes on this canvas; nothing here knows a game's rules.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Generic, NamedTuple, TypeVar

from PIL import Image, ImageDraw

from bot.render.palette import to_palette
from bot.render.sprites import square_tile, stone
from bot.render.text import DRAWING, TextFace, draw_text, face, fit, font_generation, overlay, text_line
from bot.render.theme import RGB, Theme
from bot.rules.common import FILES, parse_square, square_name

log = logging.getLogger(__name__)
V = TypeVar("V")

Cell = tuple[int, int]  # 0-based (file, rank); (0, 0) is a1

DEFAULT_WIDTH = 800
MIN_WIDTH = 320
MAX_WIDTH = 2000


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


class Pastes(list[Paste]):
    """A board's pastes in the order they are laid, ``add`` laying one sprite on a square (see ``sprite_at``)."""

    def __init__(self, theme: Theme, lay: Layout) -> None:
        super().__init__()
        self.theme, self.lay = theme, lay

    def add(self, cell: Cell, draw: Callable[..., Image.Image], *args: Hashable) -> None:
        self.append(sprite_at(self.theme, self.lay, cell, draw, *args))


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
