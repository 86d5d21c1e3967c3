"""A reviewed game as one image: the evaluation over the game, each side's graded moves, the turning points.

Pure Pillow like the other images: the graph plots Black's winning chance after every turn (Black at the
top, White at the bottom, even in the middle) and marks the turning points; under it, each player's
inaccuracies, mistakes and blunders; then each turning point (the moves that lost the most) as the board
before and after it, with the move played and the better move the search found, in the game's notation.
"""

from __future__ import annotations

import io
from collections.abc import Mapping

from PIL import Image, ImageDraw

from bot.ai.review import Judged, Review, turning_points
from bot.i18n import Words
from bot.render import drawer
from bot.render.palette import GIF_FINAL_MS, GIF_FRAME_MS, TRANSPARENT, gif
from bot.render.text import DRAWING, TextFace, draw_text, face, fit
from bot.render.theme import Theme, mix, theme_named
from bot.render.words import colour_names, or_english
from bot.rules.protocol import GameState

__all__ = ["BAR", "REPLAY_SIZE", "TURNING_POINTS", "WIDTH", "bar_box", "graph_box", "review_gif", "review_png"]

WIDTH = 800
PAD = 24
GRAPH_HEIGHT = 220
TURNING_POINTS = 3
BAR = 44
"""The width of the replay's evaluation bar, left of the board."""
REPLAY_SIZE = 480


def graph_box(width: int = WIDTH) -> tuple[int, int, int, int]:
    """Where the evaluation graph is drawn: left, top, right, bottom in pixels (for tests and the layout)."""
    top = PAD + 40
    return PAD + 44, top, width - PAD, top + GRAPH_HEIGHT


def _graph(im: Image.Image, review: Review, marks: list[Judged], look: Theme, w: Words, names: tuple[str, str]) -> None:
    left, top, right, bottom = graph_box(im.width)
    d = ImageDraw.Draw(im, "RGBA")
    d.rectangle([left, top, right, bottom], fill=mix(look.background, look.muted, 0.12))
    values = review.evaluations
    count = max(1, len(values) - 1)

    def x(i: int) -> float:
        return left + (right - left) * i / count

    def y(value: float) -> float:
        return bottom - (bottom - top) * value

    middle = y(0.5)
    d.line([(left, middle), (right, middle)], fill=mix(look.background, look.muted, 0.5), width=1)
    line = [(x(i), y(v)) for i, v in enumerate(values)]
    if len(line) > 1:
        # Black's share filled from the middle, so who leads shows at a glance in every theme.
        d.polygon([(left, middle), *line, (right, middle)], fill=(*look.accent, 60))
        d.line(line, fill=look.accent, width=3, joint="curve")
    for mark in marks:
        px = x(mark.number)
        d.line([(px, top), (px, bottom)], fill=(*look.shot_line, 200), width=2)
    small = TextFace(13, bold=False)
    black, white = names
    draw_text(im, (left - 8, top), fit(black, small, left - PAD - 8), small, look.muted, anchor="ra")
    draw_text(im, (left - 8, bottom), fit(white, small, left - PAD - 8), small, look.muted, anchor="rd")
    caption = w("render.review_graph", count=len(values) - 1)
    draw_text(im, (left, bottom + 6), fit(caption, small, right - left), small, look.muted)


def _counts(review: Review, colour: str, name: str, w: Words, face: TextFace, width: float) -> str:
    """The line of ``colour``'s graded moves; a long name is shortened, never the counts."""
    found = review.counts(colour)
    return w(
        "render.review_counts",
        name=fit(name, face, width * 0.45),
        inaccuracies=found["inaccuracy"],
        mistakes=found["mistake"],
        blunders=found["blunder"],
    )


def review_png(
    game: GameState,
    review: Review,
    *,
    theme: str = "light",
    players: Mapping[str, str] | None = None,
    words: Words | None = None,
    width: int = WIDTH,
    points: int = TURNING_POINTS,
) -> bytes:
    """A PNG of ``review`` (of the finished ``game``): graph, counts per player, and up to ``points`` turning points.

    ``players`` maps ``"black"``/``"white"`` to the names shown (the colours otherwise); ``words`` gives the
    reader's language (English by default). The same arguments always give the same bytes.
    """
    look = theme_named(theme)
    w = or_english(words)
    names = colour_names(players, w)
    draw = drawer(game.kind.name)
    marks = turning_points(review, points)
    board_width = (width - 3 * PAD) // 2
    with DRAWING:
        boards = [
            (
                draw.game_image(game, ply=mark.number - 1, theme=theme, size=board_width, players=players, words=w),
                draw.game_image(game, ply=mark.number, theme=theme, size=board_width, players=players, words=w),
            )
            for mark in marks
        ]
        title, text, small = TextFace(22), TextFace(15, bold=False), TextFace(14)
        _, _, _, graph_bottom = graph_box(width)
        y = graph_bottom + 34
        counts_top = y
        y += 2 * 24 + 12
        rows = []
        for before, after in boards:
            rows.append(y)
            y += 28 + max(before.height, after.height) + PAD
        if not marks:
            y += 30
        height = y + PAD // 2
        im = Image.new("RGB", (width, height), look.background)
        heading = w("render.review_title", black=names[0], white=names[1])
        draw_text(im, (PAD, PAD), fit(heading, title, width - 2 * PAD), title, look.text)
        _graph(im, review, marks, look, w, names)
        for k, (colour, name) in enumerate(zip(("black", "white"), names, strict=True)):
            line = fit(_counts(review, colour, name, w, text, width - 2 * PAD), text, width - 2 * PAD)
            draw_text(im, (PAD, counts_top + 24 * k), line, text, look.text)
        for mark, row, (before, after) in zip(marks, rows, boards, strict=True):
            who = fit(names[0] if mark.colour == "black" else names[1], small, width * 0.3)
            caption = w(
                "render.review_point",
                number=mark.number,
                name=who,
                played=mark.played,
                best=mark.best or "—",
                loss=round(mark.loss * 100),
                grade=w(f"render.review_{mark.grade}"),
            )
            draw_text(im, (PAD, row), fit(caption, small, width - 2 * PAD), small, look.text)
            im.paste(before.convert("RGB"), (PAD, row + 28))
            im.paste(after.convert("RGB"), (2 * PAD + board_width, row + 28))
        if not marks:
            draw_text(im, (PAD, rows[0] if rows else y - 30), w("render.review_clean"), text, look.muted)
    out = io.BytesIO()
    im.save(out, "PNG", optimize=False)
    return out.getvalue()


def bar_box(height: int) -> tuple[int, int, int, int]:
    """Where a replay frame's evaluation bar is: left, top, right, bottom (Black's share from the top)."""
    return 10, PAD, BAR - 10, height - PAD - 24


def _nearest(palette: list[int], colour: tuple[int, int, int]) -> int:
    """The palette index closest to ``colour`` (never the GIF's transparent one): frames keep the boards' palette."""
    scored = (
        (sum((palette[3 * i + k] - colour[k]) ** 2 for k in range(3)), i)
        for i in range(len(palette) // 3)
        if i != TRANSPARENT
    )
    return min(scored)[1]


def review_gif(
    game: GameState,
    review: Review,
    *,
    theme: str = "light",
    players: Mapping[str, str] | None = None,
    words: Words | None = None,
    size: int = REPLAY_SIZE,
) -> bytes:
    """The game replayed as an animated GIF, one frame a turn, each with the evaluation bar (Black's chance of
    winning from the top, White's from the bottom) and the number of turns played under it."""
    look = theme_named(theme)
    w = or_english(words)
    draw = drawer(game.kind.name)
    frames: list[Image.Image] = []
    with DRAWING:
        scenes = list(draw.replay_scenes(game, players, None, w))
        if len(scenes) != len(review.evaluations):
            raise ValueError(f"{len(scenes)} positions but {len(review.evaluations)} evaluations")
        number = face(13)
        for played, (scene, value) in enumerate(zip(scenes, review.evaluations, strict=True)):
            board = draw.draw(scene, look, size)
            palette = board.getpalette() or []
            frame = Image.new("P", (board.width + BAR, board.height), _nearest(palette, look.background))
            frame.putpalette(palette)
            frame.paste(board, (BAR, 0))
            d = ImageDraw.Draw(frame)
            left, top, right, bottom = bar_box(board.height)
            split = top + (bottom - top) * value
            if split > top:
                d.rectangle([left, top, right, split], fill=_nearest(palette, look.black))
            if split < bottom:
                d.rectangle([left, split, right, bottom], fill=_nearest(palette, look.white))
            d.rectangle([left, top, right, bottom], outline=_nearest(palette, look.muted))
            d.text((BAR / 2, bottom + 6), str(played), font=number, fill=_nearest(palette, look.text), anchor="ma")
            frames.append(frame)
    return gif(frames, frame_ms=GIF_FRAME_MS, final_ms=GIF_FINAL_MS)
