"""Sprites: stones, marks, path segments and square tiles, drawn big once and scaled down.

Every stone, mark and tinted square is drawn once per (theme, square size) at ``SUPERSAMPLE`` times its
size and scaled down, which gives smooth edges; the caches keep them. What every game draws lives here;
a game's own pieces live with its drawer, built from the same helpers (``supersampled``, ``circle``...).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from PIL import Image, ImageDraw

from bot.render.theme import RGB, RGBA, Theme, mix

SUPERSAMPLE = 4


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


def shadow(d: ImageDraw.ImageDraw, theme: Theme, size: float, cy: float, r: float) -> None:
    """The theme's soft shadow (if it has one) under a piece of radius ``r`` centred at (``size / 2``, ``cy``)."""
    if theme.shadow:
        off = size * 0.035
        circle(d, size / 2 + off * 0.6, cy + off, r, (0, 0, 0, theme.shadow))


@lru_cache(maxsize=128)
def stone(theme: Theme, sq: int, kind: str) -> Image.Image:
    """A ``b`` or ``w`` stone the size of a square, with the theme's rim, shading and shadow."""

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = sq * s
        c = size / 2
        shadow(d, theme, size, c, size * 0.40)
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
