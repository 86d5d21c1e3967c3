"""What each game shows in Discord: the one thing a new game adds above its rules and its drawer.

Not an extension. Everything that serves every game (posting boards, challenges, undo, resign, the
AI's turns, the guided move's frame) asks a game's ``Table`` for the game's own words, image and
buttons. A game's cog module defines its table and registers it in its ``setup``; ``table_for``
finds it by the game's name, so shared code never names a game.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import Words
from bot.render.workers import Drawing
from bot.rules.protocol import GameKind
from bot.rules.registry import GAMES
from bot.store.values import GameInfo

if TYPE_CHECKING:
    from bot.client import VeletasBot
    from cogs._send import Outgoing


class Table(ABC):
    """One game as the bot shows it: names, sentences, the board image, its buttons, the guided move."""

    kind: GameKind

    @property
    def command(self) -> str:
        """The slash command group of this game (``/veletas``, ``/veloop``)."""
        return self.kind.name

    @property
    def title(self) -> str:
        return self.kind.title

    def label(self, info: GameInfo) -> str:
        """``Veletas #12``: how a game is named in messages and thread names."""
        return f"{self.title} #{info.id}"

    @abstractmethod
    def settings_text(self, w: Words, settings: Mapping[str, str]) -> str:
        """The settings in a few words, in ``w``'s language: ``standard board, current rules``."""

    def moves_played(self, info: GameInfo) -> int:
        """Moves made so far, as the counter under the board shows them (a game's setup turns are not moves)."""
        return len(info.turns)

    @abstractmethod
    def turn_line(self, w: Words, info: GameInfo, who: str) -> str:
        """What the player to act (``who``, a mention) does now, in the phase the game is in."""

    def fields(self, w: Words, info: GameInfo) -> list[tuple[str, str, bool]]:
        """Extra embed fields after the players and the last turn: (name, value, inline)."""
        return []

    @abstractmethod
    def board_drawing(
        self,
        info: GameInfo,
        *,
        seats: Mapping[str, str],
        colours: Mapping[str, str],
        clocks: Mapping[str, str],
        theme: str,
        result: str | None,
        w: Words,
    ) -> Drawing:
        """The board of the game as it stands, its words in ``w``'s language: what to draw, and with what (the
        drawing runs in a worker process, so it holds positions and names, not the game's snapshot)."""

    @abstractmethod
    def replay_gif(
        self, info: GameInfo, *, seats: Mapping[str, str], colours: Mapping[str, str], theme: str, w: Words
    ) -> bytes:
        """The whole game as an animated GIF (called in a worker thread)."""

    @abstractmethod
    def board_items(self, w: Words, info: GameInfo) -> list[discord.ui.Item[Any]]:
        """The buttons under the board of a game in play (all dynamic items, so they survive restarts)."""

    @abstractmethod
    async def guided_start(self, bot: VeletasBot, info: GameInfo, w: Words) -> Outgoing:
        """The first private step of the guided move (the Move button, and Start over), in the member's language."""

    @abstractmethod
    def rules_example(self, w: Words, theme: str) -> tuple[bytes, str]:
        """A picture that shows the heart of the game (a claim, a confinement) and one sentence on it (in a thread)."""

    @abstractmethod
    def rules_text(self, w: Words, settings: Mapping[str, str] | None, option: str | None) -> str:
        """A short summary of the rules: of a game's settings, or of ``option`` (an edition) or of the game."""


TABLES: dict[str, Table] = {}


def register(table: Table) -> Table:
    """Make a game's table known by its name: its cog's ``setup`` does, on every bot it sets up."""
    TABLES[table.kind.name] = table
    return table


def table_for(game: GameInfo | GameKind | str) -> Table:
    """The table of a game, by its snapshot, its kind or its name."""
    name = game if isinstance(game, str) else game.kind.name if isinstance(game, GameInfo) else game.name
    try:
        return TABLES[name]
    except KeyError:
        raise LookupError(f"no table for the game {name!r}: its cog is not loaded") from None


def offer_games(cog: commands.Cog, option: str = "game") -> None:
    """Give the ``game`` option of each of the cog's commands the games registered now as its choices.

    Set when a bot sets the cog up rather than when its module is imported (once per process): the choices are
    the games this bot serves. Each command of the cog is this cog's own copy, and so is the option replaced.
    """
    choices: list[app_commands.Choice[str | int | float]] = [
        app_commands.Choice(name=app_commands.locale_str(name), value=name) for name in GAMES
    ]
    for command in cog.walk_app_commands():
        if isinstance(command, app_commands.Command) and option in command._params:
            command._params[option] = dataclasses.replace(command._params[option], choices=choices)
