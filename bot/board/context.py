"""What the board server's handlers need, handed in by whoever starts it (the bot's board extension, a test).

The board package speaks no Discord: posting a board, naming members and knowing their language are the
bot's, so they come in here as plain functions.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.board.live import Hub
from bot.config import Settings
from bot.rules.protocol import GameState
from bot.store import Store

PlayTurn = Callable[[int, int, str, int], Awaitable[None]]
"""``(game_id, user_id, turn text, expected version)``: the one path every turn takes, slash command or click
(the store's ``play``, then the board posted in the game's thread, forced turns, the AI's answer); raises the
store's refusals (``UserError``) before anything is written."""

Refute = Callable[[int, GameState], Awaitable[str | None]]


async def _no_refutation() -> str | None:
    return None


@dataclass
class BoardContext:
    store: Store
    secret: bytes
    play: PlayTurn
    hub: Hub = field(default_factory=Hub)
    # A member's name as the page shows it (the page escapes it), and their language when the bot knows it.
    name_of: Callable[[int], str] = str
    language_of: Callable[[int], str | None] = lambda _user: None
    # The bot's settings (the Activity's OAuth2 client, bot/board/activity.py) and the clock sessions are minted on.
    settings: Settings = field(default_factory=lambda: Settings(token=""))
    clock: Callable[[], float] = time.time

    # The defender's answer to a member's wrong puzzle turn (the AI's refutation), or None: ``(user_id, position)``.
    refute: Refute = field(default=lambda _user, _state: _no_refutation())

    def now(self) -> float:
        return self.clock()
