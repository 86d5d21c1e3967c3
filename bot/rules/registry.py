"""The games the bot hosts: the only place that lists them.

Everything above the rules (the store, the renderer, the AI, the cogs) looks a game up here by the
name it stored or was given; adding a game is adding its module and one line below.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from bot.rules import veletas, veloop
from bot.rules.protocol import GameKind

GAMES: Final[Mapping[str, GameKind]] = MappingProxyType({kind.name: kind for kind in (veletas.KIND, veloop.KIND)})
"""Every hosted game by name, Veletas first (the default wherever a game is not named)."""


class UnknownGame(ValueError):
    """A game name that is not hosted here (a stale command option, a record of another game)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown game {name!r}: expected one of {', '.join(GAMES)}")
        self.name = name


def find_game(name: str) -> GameKind:
    """The game called ``name`` (case and surrounding spaces ignored); ``UnknownGame`` otherwise."""
    found = GAMES.get(name.strip().lower())
    if found is None:
        raise UnknownGame(name)
    return found
