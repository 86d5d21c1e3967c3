"""The games the bot hosts: each registered once, by one ``GameDescriptor``; the only place that lists them.

A descriptor holds the game's rules (its ``GameKind``) and names, by module, what the layers above the
rules need of it: its drawer, its AI, its cog, its command-line adapter, its extra catalogues. The
rules import nothing above them, so those parts are strings (``"module:attribute"``, or a module for
the cog), which each layer imports itself when it first needs them (``load``): the renderer fills
``bot.render.DRAWERS`` from ``drawer``, ``bot.ai.choose_turn`` calls ``ai``, the client loads ``cog``
as an extension, ``python -m bot.rules`` uses ``cli``, ``bot.i18n`` reads ``catalogue``.

The two built-in games are registered below. Another game (a test's, a plug-in's) is registered with
``register(descriptor)`` before the bot starts, or by naming modules that do so in the ``VELETAS_GAMES``
setting (comma-separated), which ``load_configured`` imports in every process that reads it.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from bot.rules import veletas, veloop
from bot.rules.protocol import GameKind

GAMES_SETTING: Final = "VELETAS_GAMES"


@dataclass(frozen=True)
class GameDescriptor:
    """Everything the layers above the rules need to host one game, parts above the rules named by module.

    - ``kind``: the rules (``GameKind``); its ``name`` is the game's name everywhere.
    - ``drawer``: ``"module:attribute"`` of the game's drawer, a ``bot.render.game_drawer.Drawer``.
    - ``ai``: ``"module:attribute"`` of a function ``(state, level, *, seed, time_limit) -> str`` giving the
      AI's turn as text ``state.play`` accepts; empty when the AI does not play the game.
    - ``cog``: the extension (module) that defines the game's ``Table`` and its command group.
    - ``cli``: ``"module:attribute"`` of the game's ``bot.rules.__main__.Adapter``; empty for none.
    - ``page``: ``"module:attribute"`` of a pure function ``(state) -> dict`` giving the position and its click
      steps as JSON values for the board page (``bot.board``); empty when the game has no board page.
    - ``catalogue``: a folder of ``<language>/*.po`` files with the game's own words, read with the
      built-in catalogue; None when its words are in the built-in catalogue.
    """

    kind: GameKind
    drawer: str
    cog: str
    ai: str = ""
    cli: str = ""
    catalogue: Path | None = None
    page: str = ""

    @property
    def name(self) -> str:
        return self.kind.name


_DESCRIPTORS: dict[str, GameDescriptor] = {}
_GAMES: dict[str, GameKind] = {}

DESCRIPTORS: Final[Mapping[str, GameDescriptor]] = MappingProxyType(_DESCRIPTORS)
"""Every registered game's descriptor by name, in the order registered (live: a registration shows)."""

GAMES: Final[Mapping[str, GameKind]] = MappingProxyType(_GAMES)
"""Every hosted game by name, Veletas first (the default wherever a game is not named)."""


def register(descriptor: GameDescriptor) -> GameDescriptor:
    """Host a game from now on; registering the same descriptor again changes nothing.

    ValueError for another game under a name already taken. Register before the bot starts: the
    client loads the cogs, and the catalogue is read, of the games registered by then.
    """
    name = descriptor.name
    known = _DESCRIPTORS.get(name)
    if known is not None and known != descriptor:
        raise ValueError(f"a game called {name!r} is already registered")
    _DESCRIPTORS[name] = descriptor
    _GAMES[name] = descriptor.kind
    return descriptor


def unregister(name: str) -> None:
    """Stop hosting a game registered with ``register`` (a test's, when it is done); built-in games stay."""
    if name in BUILT_IN:
        raise ValueError(f"{name!r} is a built-in game")
    _DESCRIPTORS.pop(name, None)
    _GAMES.pop(name, None)


def load_configured(environ: Mapping[str, str] | None = None) -> list[str]:
    """Import the modules named in the ``VELETAS_GAMES`` setting (each registers its game); their names.

    ``python -m bot`` and ``python -m bot.rules`` call it first; any other process (an AI worker) loads them
    the first time it is asked for a game it does not know (``describe``).
    """
    global _configured
    _configured = True
    value = (os.environ if environ is None else environ).get(GAMES_SETTING, "")
    modules = [part.strip() for part in value.split(",") if part.strip()]
    for module in modules:
        importlib.import_module(module)
    return modules


_configured = False


def load(spec: str) -> Any:
    """The object a descriptor names: ``"package.module:attribute"``, imported now (once per process)."""
    module, _, attribute = spec.partition(":")
    found = importlib.import_module(module)
    return getattr(found, attribute) if attribute else found


class UnknownGame(ValueError):
    """A game name that is not hosted here (a stale command option, a record of another game)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown game {name!r}: expected one of {', '.join(GAMES)}")
        self.name = name


def find_game(name: str) -> GameKind:
    """The game called ``name`` (case and surrounding spaces ignored); ``UnknownGame`` otherwise."""
    return describe(name).kind


def describe(name: str) -> GameDescriptor:
    """The descriptor of the game called ``name`` (case and spaces ignored); ``UnknownGame`` otherwise."""
    key = name.strip().lower()
    if key not in _DESCRIPTORS and not _configured:
        load_configured()
    found = _DESCRIPTORS.get(key)
    if found is None:
        raise UnknownGame(name)
    return found


VELETAS: Final = register(
    GameDescriptor(
        veletas.KIND,
        drawer="bot.render.veletas:VELETAS",
        cog="cogs.veletas",
        ai="bot.ai.veletas:choose_turn",
        cli="bot.rules.veletas.cli:ADAPTER",
        page="bot.rules.veletas.page:page_state",
    )
)
VELOOP: Final = register(
    GameDescriptor(
        veloop.KIND,
        drawer="bot.render.veloop:VELOOP",
        cog="cogs.veloop",
        ai="bot.ai.veloop:choose_turn",
        cli="bot.rules.veloop.cli:ADAPTER",
        page="bot.rules.veloop.page:page_state",
    )
)
BUILT_IN: Final = (VELETAS.name, VELOOP.name)
