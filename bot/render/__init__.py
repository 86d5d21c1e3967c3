"""Board images and replay GIFs of every game, drawn with Pillow only.

What all games share is written once: ``theme`` (the looks), ``text`` (fonts for every script),
``sprites`` (stones, marks, lines, tiles), ``palette`` (the palette, PNG and GIF encoding) and
``canvas`` (the layout, the header, boards put together from cached pieces), and ``game_drawer``,
whose ``Drawer`` does what every game's drawer does the same way. Each game has one drawer module
(``veletas``, ``veloop``) with a ``Drawer`` subclass supplying only what is its own. ``DRAWERS`` finds
a game's drawer by the game's name, through the ``drawer`` its descriptor names (``bot.rules.registry``),
so code that serves every game never names one and a registered game's drawer is found without being
listed here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from bot.i18n import Words
from bot.render.canvas import DEFAULT_WIDTH, Layout, layout
from bot.render.game_drawer import Drawer
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
from bot.rules.registry import DESCRIPTORS, find_game, load

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


AnyDrawer = Drawer[Any, Any, Any, Any, Any]


class _Drawers(Mapping[str, AnyDrawer]):
    """Every registered game's drawer by the game's name, imported from its descriptor's ``drawer`` when first asked."""

    def __getitem__(self, game: str) -> AnyDrawer:
        descriptor = DESCRIPTORS.get(game)
        if descriptor is None:
            raise KeyError(game)
        found = load(descriptor.drawer)
        if not isinstance(found, Drawer):
            raise TypeError(f"{descriptor.drawer} is not a bot.render.game_drawer.Drawer")
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(list(DESCRIPTORS))

    def __len__(self) -> int:
        return len(DESCRIPTORS)


DRAWERS: Mapping[str, AnyDrawer] = _Drawers()


def warm(languages: Iterable[Words], themes: Iterable[str] = THEMES) -> None:
    """Draw a board of every game, in each of ``themes`` and ``languages``, with names in other scripts.

    Fonts (Noto Sans CJK is tens of megabytes), sprites and glyphs load on first use; a bot calls this
    off its event loop as it starts, so the first member to see a board in Japanese does not wait for them.
    Each theme's drawn pieces are kept once drawn (a few megabytes a theme); a theme left out costs its
    first board a few milliseconds more.
    """
    names = {"black": "黒石 🎌", "white": "Émile ★"}
    chosen = tuple(themes)
    for each in languages:
        for name, drawn in DRAWERS.items():
            state = find_game(name).new()
            for theme in chosen:
                drawn.game_png(state, theme=theme, players=names, words=each)


def drawer(game: str) -> AnyDrawer:
    """The drawer of a game by its name ("veletas", "veloop")."""
    try:
        return DRAWERS[game]
    except KeyError:
        raise ValueError(f"no drawer for the game {game!r}: known are {', '.join(DRAWERS)}") from None
