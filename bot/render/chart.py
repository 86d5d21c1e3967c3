"""A player's rating history as a line chart, in the board themes: what ``/profile`` shows.

Pure Pillow like the boards: a value axis with round ticks, one point per rated game (oldest on
the left), the deviation band behind the line, the latest rating written at its end.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

from PIL import Image, ImageDraw

from bot.i18n import Words
from bot.ratings import START_DEVIATION, START_RATING
from bot.render.palette import PNG_COMPRESS_LEVEL
from bot.render.text import DRAWING, TextFace, draw_text, face, fit
from bot.render.theme import mix, theme_named
from bot.render.words import or_english

WIDTH, HEIGHT = 800, 360
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 64, 90, 48, 36


def _ticks(low: float, high: float) -> list[int]:
    """Round values between ``low`` and ``high`` for the axis: about five, at 10, 25, 50, 100 … apart."""
    span = max(high - low, 1.0)
    for step in (10, 25, 50, 100, 200, 250, 500):
        if span / step <= 6:
            break
    first = math.ceil(low / step) * step
    return list(range(int(first), int(high) + 1, step))


def rating_chart_png(
    points: Sequence[tuple[float, float]],
    *,
    title: str,
    theme: str = "light",
    width: int = WIDTH,
    words: Words | None = None,
    start: tuple[float, float] = (START_RATING, START_DEVIATION),
) -> bytes:
    """A PNG of ``points`` (rating, deviation) after each rated game, oldest first; ``title`` names the player
    and the pool. The line starts at ``start``, the rating before the first game (every player's first rating)."""
    look = theme_named(theme)
    w = or_english(words)
    height = round(HEIGHT * width / WIDTH)
    scale = width / WIDTH
    with DRAWING:
        im = Image.new("RGB", (width, height), look.background)
        d = ImageDraw.Draw(im, "RGBA")
        title_font, small = face(round(20 * scale)), face(round(13 * scale), bold=False)
        title_face, text_face = TextFace(round(20 * scale)), TextFace(round(13 * scale), bold=False)
        draw_text(
            im,
            (MARGIN_LEFT * scale, 14 * scale),
            fit(title, title_face, width - 2 * MARGIN_LEFT * scale),
            title_face,
            look.text,
        )
        left, right = MARGIN_LEFT * scale, width - MARGIN_RIGHT * scale
        top, bottom = MARGIN_TOP * scale, height - MARGIN_BOTTOM * scale
        if not points:
            draw_text(im, (left, (top + bottom) / 2), w("render.chart_empty"), text_face, look.muted)
        else:
            games = len(points)
            points = [start, *points]
            lows = [value - deviation for value, deviation in points]
            highs = [value + deviation for value, deviation in points]
            low, high = min(lows), max(highs)
            pad = max(20.0, (high - low) * 0.05)
            low, high = low - pad, high + pad

            def x(i: int) -> float:
                return left + (right - left) * (i / max(1, len(points) - 1) if len(points) > 1 else 0.5)

            def y(value: float) -> float:
                return bottom - (bottom - top) * (value - low) / (high - low)

            grid = mix(look.background, look.muted, 0.35)
            for tick in _ticks(low, high):
                d.line([(left, y(tick)), (right, y(tick))], fill=grid, width=max(1, round(scale)))
                d.text((left - 8 * scale, y(tick)), str(tick), font=small, fill=look.muted, anchor="rm")
            band = [(x(i), y(v + dv)) for i, (v, dv) in enumerate(points)]
            band += [(x(i), y(v - dv)) for i, (v, dv) in reversed(list(enumerate(points)))]
            if len(points) > 1:
                d.polygon(band, fill=(*look.accent, 48))
            line = [(x(i), y(v)) for i, (v, _) in enumerate(points)]
            if len(line) > 1:
                d.line(line, fill=look.accent, width=max(2, round(3 * scale)), joint="curve")
            r = max(2.0, 3.5 * scale)
            for px, py in line:
                d.ellipse([px - r, py - r, px + r, py + r], fill=look.accent)
            last_x, last_y = line[-1]
            d.text(
                (last_x + 10 * scale, last_y), str(round(points[-1][0])), font=title_font, fill=look.text, anchor="lm"
            )
            draw_text(
                im,
                (left, bottom + 8 * scale),
                w("render.chart_caption", count=games),
                text_face,
                look.muted,
            )
    out = io.BytesIO()
    im.save(out, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()
