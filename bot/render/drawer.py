"""What a game gives the renderer: one ``Drawer``, named by the ``drawer`` of the game's descriptor.

Kept in a module of its own so a game's drawer module can build its ``DRAWER`` without importing the
``bot.render`` package, which finds every game's drawer through the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Drawer:
    """How one game is drawn: a position, any moment of a game, a whole game as a GIF."""

    game: str
    board_png: Callable[..., bytes]
    game_png: Callable[..., bytes]
    replay_gif: Callable[..., bytes]
    hints: type
