"""The rating chart: the line starts where every player starts, before their first rated game."""

from __future__ import annotations

import io

from PIL import Image

from bot.render import THEMES
from bot.render.chart import MARGIN_LEFT, MARGIN_RIGHT, rating_chart_png


def accent_rows(im: Image.Image, x: int) -> list[int]:
    """Rows of column ``x`` drawn in the theme's accent (the line and its dots), top to bottom."""
    accent = THEMES["light"].accent
    rgb = im.convert("RGB")
    return [
        y for y in range(im.height) if max(abs(a - b) for a, b in zip(rgb.getpixel((x, y)), accent, strict=False)) <= 12
    ]


def test_the_line_starts_at_the_rating_before_the_first_game() -> None:
    # Two games lost: 1500 → 1338 → 1290. The first point drawn is 1500, above both results.
    im = Image.open(io.BytesIO(rating_chart_png([(1338.0, 250.0), (1290.0, 220.0)], title="alice", theme="light")))
    first, last = accent_rows(im, MARGIN_LEFT + 1), accent_rows(im, im.width - MARGIN_RIGHT - 1)
    assert first and last, "the line reaches both edges of the plot"
    assert max(first) < min(last) - 40, "the start (1500) stands well above the latest rating (1290)"


def test_the_caption_counts_games_not_points() -> None:
    from bot.i18n import words

    seen: list[int] = []

    class Spy:
        def __call__(self, key: str, **data: object) -> str:
            if key == "render.chart_caption":
                seen.append(int(str(data["count"])))
            return words("en")(key, **data)

    rating_chart_png([(1520.0, 300.0)], title="bob", words=Spy())  # type: ignore[arg-type]
    assert seen == [1]
