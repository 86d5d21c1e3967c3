"""The toy game's drawer, built on the renderer's base (``bot.render.canvas``): board, header, PNG and GIF."""

from __future__ import annotations

from collections.abc import Mapping

from PIL import Image

from bot.i18n import Words
from bot.render.canvas import (
    DEFAULT_THEME,
    GIF_FINAL_MS,
    GIF_FRAME_MS,
    Header,
    background,
    build_palette,
    cell_of,
    draw_header,
    gif,
    layout,
    png,
    stone,
    theme_named,
    to_palette,
)
from bot.render.drawer import Drawer
from toygame.rules import ToyGame


class ToyHints:
    """The toy game marks nothing on its board: no hints."""


def toy_image(
    game: ToyGame,
    *,
    players: Mapping[str, str] | None = None,
    clocks: Mapping[str, str] | None = None,
    theme: str = DEFAULT_THEME,
    result: str | None = None,
    words: Words | None = None,
    width: int | None = None,
) -> Image.Image:
    """The board with its stones under the renderer's header (names, score, who moves, the result)."""
    look = theme_named(theme)
    lay = layout(3, width)
    im = background(look, 3, lay.width)
    for square, colour in game.stones.items():
        sprite = stone(look, lay.square, colour[0])
        im.paste(sprite, lay.origin(cell_of(square, 3)), sprite if sprite.mode == "RGBA" else None)
    names = dict(players or {})
    times = dict(clocks or {})
    header = Header(
        names=(names.get("black", "Black"), names.get("white", "White")),
        score=game.scores,
        to_move=game.colour_to_act,
        status=result or "",
        finished=game.phase == "over",
        times=(times.get("black"), times.get("white")),
    )
    draw_header(im, look, lay, header)
    return im


def board_png(game: ToyGame, **kwargs: object) -> bytes:
    """The game as it stands, as a PNG (the keyword arguments of ``toy_image``)."""
    return png(toy_image(game, **kwargs))  # type: ignore[arg-type]


def replay_gif(
    game: ToyGame,
    *,
    players: Mapping[str, str] | None = None,
    theme: str = DEFAULT_THEME,
    words: Words | None = None,
) -> bytes:
    """Every moment of the game, one frame a stone, as an animated GIF."""
    look = theme_named(theme)
    frames = [toy_image(ToyGame(game.turns[:k]), players=players, theme=theme) for k in range(len(game.turns) + 1)]
    palette = build_palette(look, frames)
    return gif([to_palette(frame, palette) for frame in frames], frame_ms=GIF_FRAME_MS, final_ms=GIF_FINAL_MS)


DRAWER = Drawer("toy", board_png, board_png, replay_gif, ToyHints)
