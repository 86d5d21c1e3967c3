"""A Veletas game as the cogs read and draw it: the rules' ``Game`` a stored game holds, and a position's image.

Not an extension. The table, the commands, the guided steps, the theme preview and the analysis all use these.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from bot import render
from bot.i18n import Words
from bot.rules import Game, Move
from bot.rules.veletas import Position
from bot.store.values import GameInfo
from cogs._board import DEFAULT_THEME


def veletas_game(info: GameInfo) -> Game:
    state = info.state
    if not isinstance(state, Game):
        raise TypeError(f"game {info.id} is not a Veletas game")
    return state


async def render_position(
    position: Position,
    *,
    last_move: Move | None = None,
    hints: render.Hints | None = None,
    players: Mapping[str, str] | None = None,
    theme: str = DEFAULT_THEME,
    w: Words | None = None,
) -> bytes:
    """A Veletas position's image, off the event loop (rendering is CPU work)."""
    return await asyncio.to_thread(
        render.board_png, position, last_move=last_move, hints=hints, players=players, theme=theme, words=w
    )
