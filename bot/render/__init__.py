"""Board images and replay GIFs of every game, drawn with Pillow only.

What all games share is written once: ``theme`` (the looks), ``text`` (fonts for every script),
``sprites`` (stones, marks, lines, tiles), ``palette`` (the palette, PNG and GIF encoding) and
``canvas`` (the layout, the header, boards put together from cached pieces). Each game has one
drawer module (``veletas``, ``veloop``). ``DRAWERS`` finds a game's drawer by the game's name, so
code that serves every game never names one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bot.i18n import Words
from bot.render import veletas, veloop
from bot.render.canvas import DEFAULT_WIDTH, Layout, layout
from bot.render.palette import PNG_COMPRESS_LEVEL
from bot.render.theme import DEFAULT_THEME, THEMES, Theme
from bot.render.veletas import Hints, board_image, board_png, game_image, game_png, replay_gif
from bot.render.veloop import (
    VeloopHints,
    veloop_board_image,
    veloop_board_png,
    veloop_game_image,
    veloop_game_png,
    veloop_replay_gif,
)

__all__ = [
    "DEFAULT_THEME",
    "DEFAULT_WIDTH",
    "DRAWERS",
    "PNG_COMPRESS_LEVEL",
    "THEMES",
    "Drawer",
    "Hints",
    "Layout",
    "Theme",
    "VeloopHints",
    "board_image",
    "board_png",
    "drawer",
    "game_image",
    "game_png",
    "layout",
    "replay_gif",
    "veloop_board_image",
    "veloop_board_png",
    "veloop_game_image",
    "veloop_game_png",
    "veloop_replay_gif",
    "warm",
]


@dataclass(frozen=True)
class Drawer:
    """How one game is drawn: a position, any moment of a game, a whole game as a GIF."""

    game: str
    board_png: Callable[..., bytes]
    game_png: Callable[..., bytes]
    replay_gif: Callable[..., bytes]
    hints: type


DRAWERS: dict[str, Drawer] = {
    "veletas": Drawer("veletas", veletas.board_png, veletas.game_png, veletas.replay_gif, Hints),
    "veloop": Drawer("veloop", veloop.veloop_board_png, veloop.veloop_game_png, veloop.veloop_replay_gif, VeloopHints),
}


def warm(languages: Iterable[Words], themes: Iterable[str] = THEMES) -> None:
    """Draw a board of every game, in each of ``themes`` and ``languages``, with names in other scripts.

    Fonts (Noto Sans CJK is tens of megabytes), sprites and glyphs load on first use; a bot calls this
    off its event loop as it starts, so the first member to see a board in Japanese does not wait for them.
    Each theme's drawn pieces are kept once drawn (a few megabytes a theme); a theme left out costs its
    first board a few milliseconds more.
    """
    from bot.rules.registry import find_game

    names = {"black": "黒石 🎌", "white": "Émile ★"}
    chosen = tuple(themes)
    for each in languages:
        for name, drawn in DRAWERS.items():
            state = find_game(name).new()
            for theme in chosen:
                drawn.game_png(state, theme=theme, players=names, words=each)


def drawer(game: str) -> Drawer:
    """The drawer of a game by its name ("veletas", "veloop")."""
    try:
        return DRAWERS[game]
    except KeyError:
        raise ValueError(f"no drawer for the game {game!r}: known are {', '.join(DRAWERS)}") from None
