"""The toy game in Discord: its ``Table`` (words, board, buttons, guided move) and the ``/toy`` command group.

The shared commands (``board``, ``resign``, ``undo``, ``export``, ``games``) come from ``GameCommands``;
this adds the toy's own: the challenge, the typed move, the leaderboard and the rules. The guided move
is one step: a button per free square, which plays it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Literal

import discord
from discord import app_commands

from bot.client import VeletasBot
from bot.i18n import Words
from bot.render.workers import Drawing
from bot.store.values import GameInfo
from cogs._board import colour_word
from cogs._clock_words import time_suggestions
from cogs._leaderboard import send_leaderboard
from cogs._names import colour_names
from cogs._options import MAX_MOVE, MAX_TIME
from cogs._send import Outgoing
from cogs._tables import Table, register
from cogs._words import private_words
from cogs.guided import ConfirmButton, MoveButton, Seen, nav_buttons, step_message, step_theme
from cogs.play import CHALLENGE_OPTIONS, GameCommands, expect_game, play_turn, send_rules
from toygame import render
from toygame.rules import KIND, ToyGame


def toy_game(info: GameInfo) -> ToyGame:
    state = info.state
    if not isinstance(state, ToyGame):
        raise TypeError(f"game {info.id} is not a toy game")
    return state


class ToyTable(Table):
    kind = KIND

    def settings_text(self, w: Words, settings: Mapping[str, str]) -> str:
        return w("toy.settings")

    def turn_line(self, w: Words, info: GameInfo, who: str) -> str:
        return w("toy.turn", who=who, colour=colour_word(w, toy_game(info).colour_to_act))

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
        kwargs = {"players": dict(colours), "clocks": dict(clocks), "theme": theme, "result": result, "words": w}
        return Drawing(render.board_png, (toy_game(info),), kwargs)

    def replay_gif(
        self, info: GameInfo, *, seats: Mapping[str, str], colours: Mapping[str, str], theme: str, w: Words
    ) -> bytes:
        return render.replay_gif(toy_game(info), players=dict(colours), theme=theme, words=w)

    def board_items(self, w: Words, info: GameInfo) -> list[discord.ui.Item[Any]]:
        return [MoveButton(info, info.id, w("guided.move.label"))] if toy_game(info).phase == "play" else []

    async def guided_start(self, bot: VeletasBot, info: GameInfo, w: Words) -> Outgoing:
        game = toy_game(info)
        view = discord.ui.View(timeout=None)
        for square in game.empty:
            view.add_item(ConfirmButton(info, info.id, Seen.of(info), square, w("guided.play.label", move=square)))
        nav_buttons(view, info, w, back=False)
        theme = await step_theme(bot, info)
        png = await asyncio.to_thread(render.board_png, game, players=colour_names(bot, info), theme=theme)
        return await step_message(bot, info, w, w("toy.step_square"), view, png)

    def rules_example(self, w: Words, theme: str) -> tuple[bytes, str]:
        game = KIND.replay(["b2", "a1", "c1", "a3", "a2", "c3", "b3", "b1", "c2"])
        return render.board_png(game, theme=theme), w("toy.example_caption")

    def rules_text(self, w: Words, settings: Mapping[str, str] | None, option: str | None) -> str:
        return w("toy.rules")


TABLE = ToyTable()


class ToyCog(GameCommands, name="Toy"):
    table = TABLE

    @app_commands.command()
    @app_commands.describe(
        **CHALLENGE_OPTIONS,
    )
    async def challenge(
        self,
        interaction: discord.Interaction[VeletasBot],
        opponent: discord.Member | discord.User | None = None,
        where: Literal["thread", "here"] = "thread",
        level: app_commands.Range[int, 1, 5] | None = None,
        time: app_commands.Range[str, 1, MAX_TIME] | None = None,
        rated: Literal["yes", "no"] | None = None,
    ) -> None:
        """Challenge a member, anyone, or me to a toy game (three in a row on a 3×3 board)."""
        await self.issue_challenge(interaction, {"board": "3"}, opponent, where, level, time, rated)

    @challenge.autocomplete("time")
    async def time_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return time_suggestions(current, private_words(interaction))

    @app_commands.command()
    @app_commands.describe(move="the square for your stone, a1 to c3")
    async def move(
        self, interaction: discord.Interaction[VeletasBot], move: app_commands.Range[str, 1, MAX_MOVE]
    ) -> None:
        """Play your move in this channel's game."""
        assert interaction.channel_id is not None
        info = await self.bot.store.game_in_channel(interaction.channel_id)
        expect_game(info, TABLE, "move")
        await play_turn(interaction, info.id, move, expected_version=info.version, typed=True)

    @app_commands.command()
    @app_commands.describe(established="yes: leave out players whose rating is still provisional")
    async def leaderboard(
        self, interaction: discord.Interaction[VeletasBot], established: Literal["yes", "no"] = "no"
    ) -> None:
        """This server's best toy game players by rating, page by page."""
        await send_leaderboard(interaction, TABLE, {}, established == "yes")

    @app_commands.command(name="rules")
    async def rules_command(self, interaction: discord.Interaction[VeletasBot]) -> None:
        """A short summary of the rules of the toy game."""
        await send_rules(interaction, TABLE, None)


async def setup(bot: VeletasBot) -> None:
    register(TABLE)
    await bot.add_feature(ToyCog(bot), group="toy", description="Play the toy game: three in a row on a 3×3 board")
