"""Veloop (Square) in Discord: ``/veloop`` and everything Veloop shows that no other game does.

The shared commands (``board``, ``resign``, ``undo``, ``export``, ``games``) come from
``GameCommands``; this module adds Veloop's own: the challenge with its board and protocol, the
move with its autocomplete (target → support), the rules summary, and the guided move's Veloop steps
(target → support → confirm, with the legal squares marked). Its ``Table`` words Veloop's boards.
A turn that is only a forced pass is never asked of anyone: the bot plays it (``play_forced``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Literal

import discord
from discord import app_commands

from bot import render
from bot.client import VeletasBot
from bot.errors import RaceLost
from bot.i18n import Words
from bot.render.workers import Drawing
from bot.rules import veloop
from bot.rules.veloop import Game, Move
from bot.rules.veloop.suggest import move_suggestions
from bot.store.values import GameInfo
from cogs._board import colour_word
from cogs._clock_words import time_suggestions
from cogs._leaderboard import send_leaderboard
from cogs._names import colour_names
from cogs._options import MAX_MOVE, MAX_TIME
from cogs._send import Outgoing
from cogs._tables import Table, register
from cogs._words import private_words
from cogs.guided import (
    OUT_OF_DATE,
    SQUARE,
    MoveButton,
    StepMenu,
    confirm_view,
    nav_buttons,
    step_message,
    step_theme,
)
from cogs.play import CHALLENGE_OPTIONS, GameCommands, expect_game, play_turn, send_rules
from cogs.puzzles import move_into_puzzle, puzzle_here, puzzle_state_here

# A short 5×5 game (protocol alternating) that White wins with a confinement.
EXAMPLE_TURNS = (
    "d4<c2", "e5<d3", "c3<e4", "b3<d4", "a3<c2", "b5<d4", "a4<c5", "d3<b2",
    "d5<c3", "e3<c4", "c2<a3", "e2<d4", "d1<c3", "b2<c4", "e3<d1", "c2<b4",
)  # fmt: skip


def suggestion_label(w: Words, value: str) -> str:
    """A suggested move in the member's language (the rules' suggestions label it in English)."""
    if value == "pass":
        return w("veloop.pass_forced")
    return describe_move(w, Move.parse(value))


def veloop_game(info: GameInfo) -> Game:
    state = info.state
    if not isinstance(state, Game):
        raise TypeError(f"game {info.id} is not a Veloop game")
    return state


def turn_part(w: Words, game: Game) -> str:
    """Which move of a double turn this is, in words (nothing for a single move)."""
    position = game.position
    if position.plies < 2:
        return ""
    return w("veloop.first_of_two" if position.ply == 1 else "veloop.second_of_two")


def describe_move(w: Words, move: Move) -> str:
    """The move with its swap in words: ``f6<e4, swaps e5 and f5`` (the rules' ``describe``, in any language)."""
    swap = move.swap_squares
    return str(move) if swap is None else w("veloop.move_swaps", move=str(move), first=swap[0], second=swap[1])


class VeloopTable(Table):
    kind = veloop.KIND

    @property
    def title(self) -> str:
        return "Veloop"

    def settings_text(self, w: Words, settings: Mapping[str, str]) -> str:
        size = settings.get("board", "8")
        protocol = settings.get("protocol", "122")
        return w("veloop.settings", size=size, protocol=w(f"veloop.protocol.{protocol}"))

    def turn_line(self, w: Words, info: GameInfo, who: str) -> str:
        game = veloop_game(info)
        return w("veloop.move_turn", who=who, colour=colour_word(w, game.colour_to_act), part=turn_part(w, game))

    def fields(self, w: Words, info: GameInfo) -> list[tuple[str, str, bool]]:
        game = veloop_game(info)
        found: list[tuple[str, str, bool]] = []
        last = game.last_move
        if last is not None and not last.is_pass:
            swap = last.swap_squares
            swapped = w("veloop.swapped", first=swap[0], second=swap[1]) if swap else w("veloop.nothing")
            found.append((w("veloop.swapped.field"), swapped, True))
        confined = game.position.confined
        if confined.black or confined.white:
            black = " ".join(confined.black) or w("veloop.none")
            white = " ".join(confined.white) or w("veloop.none")
            found.append((w("veloop.confined.field"), w("veloop.confined", black=black, white=white), False))
        return found

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
        game = veloop_game(info)
        return Drawing(
            render.veloop_board_png,
            (game.position,),
            {
                "last_move": game.last_move,
                "players": dict(colours),
                "clocks": dict(clocks),
                "theme": theme,
                "result": result,
                "words": w,
            },
        )

    def replay_gif(
        self, info: GameInfo, *, seats: Mapping[str, str], colours: Mapping[str, str], theme: str, w: Words
    ) -> bytes:
        return render.veloop_replay_gif(veloop_game(info), players=dict(colours), theme=theme, words=w)

    def board_items(self, w: Words, info: GameInfo) -> list[discord.ui.Item[Any]]:
        return [MoveButton(info, info.id, w("guided.move.label"))] if veloop_game(info).phase == "play" else []

    async def guided_start(self, bot: VeletasBot, info: GameInfo, w: Words) -> Outgoing:
        return await target_step(bot, info, w)

    def rules_example(self, w: Words, theme: str) -> tuple[bytes, str]:
        game = Game.replay(EXAMPLE_TURNS, 5, "alternating")
        players = {"black": w("render.black"), "white": w("render.white")}
        png = render.veloop_board_png(game.position, last_move=game.last_move, theme=theme, players=players, words=w)
        return png, w("veloop.example_caption")

    def rules_text(self, w: Words, settings: Mapping[str, str] | None, option: str | None) -> str:
        if settings is None:
            return w("veloop.rules")
        return w("veloop.rules") + "\n" + w("veloop.this_game", settings=self.settings_text(w, settings))


TABLE = VeloopTable()


# --- the guided move's Veloop steps: target → support → confirm


async def _step(
    bot: VeletasBot,
    info: GameInfo,
    w: Words,
    text: str,
    view: discord.ui.View,
    *,
    hints: render.VeloopHints | None = None,
    preview: Move | None = None,
) -> Outgoing:
    game = veloop_game(info)
    theme = await step_theme(bot, info)
    names = colour_names(bot, info)
    if preview is not None:
        png = await asyncio.to_thread(
            render.veloop_board_png,
            game.position.play(preview),
            last_move=preview,
            players=names,
            theme=theme,
            words=w,
        )
    else:
        png = await asyncio.to_thread(
            render.veloop_board_png,
            game.position,
            last_move=game.last_move,
            hints=hints,
            players=names,
            theme=theme,
            words=w,
        )
    return await step_message(bot, info, w, text, view, png)


def _moves(game: Game) -> list[Move]:
    return [move for move in game.position.legal_moves() if not move.is_pass]


async def target_step(bot: VeletasBot, info: GameInfo, w: Words) -> Outgoing:
    game = veloop_game(info)
    moves = _moves(game)
    targets = list(dict.fromkeys(str(move.target) for move in moves))
    counts = {target: sum(1 for move in moves if move.target == target) for target in targets}
    options = [
        discord.SelectOption(
            label=target,
            value=target,
            description=w(
                "veloop.supports_on_enemy.option" if game.position.stack(target) else "veloop.supports.option",
                count=counts[target],
            ),
        )
        for target in targets
    ]
    view = discord.ui.View(timeout=None)
    TargetSelect.add_menus(view, info, [], options, w)
    nav_buttons(view, info, w, back=False)
    more = w("veloop.first_listed", count=25 * 4) if len(options) > 100 else ""
    text = w("veloop.step_target", more=more)
    return await _step(bot, info, w, text, view, hints=render.VeloopHints.for_position(game.position))


async def support_step(bot: VeletasBot, info: GameInfo, target: str, w: Words) -> Outgoing:
    game = veloop_game(info)
    moves = [move for move in _moves(game) if move.target == target]
    options = [
        discord.SelectOption(label=str(move.support), value=str(move.support), description=describe_move(w, move)[:100])
        for move in moves
    ]
    view = discord.ui.View(timeout=None)
    SupportSelect.add_menus(view, info, [target], options, w)
    nav_buttons(view, info, w, back=True)
    text = w("veloop.step_support", target=target)
    return await _step(bot, info, w, text, view, hints=render.VeloopHints.for_position(game.position, target))


async def confirm_step(bot: VeletasBot, info: GameInfo, move: Move, w: Words) -> Outgoing:
    view = confirm_view(info, str(move), w)
    after = veloop_game(info).position.play(move)
    ending = ""
    if after.is_over:
        if after.result == "draw":
            ending = "\n" + w("veloop.ends_drawn")
        else:
            ending = "\n" + w("veloop.ends_won", winner=colour_word(w, after.result))
    text = w("veloop.step_confirm", move=str(move), described=describe_move(w, move), ending=ending)
    return await _step(bot, info, w, text, view, preview=move)


class TargetSelect(StepMenu, prefix="veloop", step="gt"):
    placeholder, more_placeholder = "veloop.target.placeholder", "veloop.more_targets.placeholder"

    async def next_step(self, bot: VeletasBot, info: GameInfo, value: str, w: Words) -> Outgoing:
        if not any(move.target == value for move in _moves(veloop_game(info))):
            raise RaceLost(OUT_OF_DATE)
        return await support_step(bot, info, value, w)


class SupportSelect(StepMenu, prefix="veloop", step="gs", carries={"target": SQUARE}):
    placeholder, more_placeholder = "veloop.support.placeholder", "veloop.more_supports.placeholder"

    async def next_step(self, bot: VeletasBot, info: GameInfo, value: str, w: Words) -> Outgoing:
        move = Move(self.carried[0], value)
        if move not in _moves(veloop_game(info)):
            raise RaceLost(OUT_OF_DATE)
        return await confirm_step(bot, info, move, w)


# --- /veloop


class VeloopCog(GameCommands, name="Veloop"):
    table = TABLE

    async def _game_here(self, interaction: discord.Interaction[VeletasBot]) -> Game | None:
        state = await self.state_here(interaction)
        return state if isinstance(state, Game) else None

    @app_commands.command()
    @app_commands.describe(
        **CHALLENGE_OPTIONS,
        board="board size: 8×8 (default), 5×5, 6×6 or 12×12",
        protocol="122 (default): one move for Black, then two each; alternating: one move each",
    )
    async def challenge(
        self,
        interaction: discord.Interaction[VeletasBot],
        opponent: discord.Member | discord.User | None = None,
        board: Literal["8", "5", "6", "12"] = "8",
        protocol: Literal["122", "alternating"] = "122",
        where: Literal["thread", "here"] = "thread",
        level: app_commands.Range[int, 1, 5] | None = None,
        time: app_commands.Range[str, 1, MAX_TIME] | None = None,
        rated: Literal["yes", "no"] | None = None,
    ) -> None:
        """Challenge a member, anyone, or me to a game of Veloop (Square)."""
        await self.issue_challenge(
            interaction, {"board": board, "protocol": protocol}, opponent, where, level, time, rated
        )

    @challenge.autocomplete("time")
    async def time_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return time_suggestions(current, private_words(interaction))

    @app_commands.command()
    @app_commands.describe(move="e.g. f6<e4: a stone on f6, supported by your stone on e4 (f6 e4 works too)")
    async def move(
        self, interaction: discord.Interaction[VeletasBot], move: app_commands.Range[str, 1, MAX_MOVE]
    ) -> None:
        """Play your move in this channel's game."""
        assert interaction.channel_id is not None
        puzzle = await puzzle_here(interaction, "veloop")
        if puzzle is not None:
            await move_into_puzzle(interaction, puzzle[0], move)
            return
        info = await self.bot.store.game_in_channel(interaction.channel_id)
        expect_game(info, TABLE, "move")
        await play_turn(interaction, info.id, move, expected_version=info.version, typed=True)

    @move.autocomplete("move")
    async def move_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        puzzle = await puzzle_state_here(interaction, "veloop")
        game = puzzle if isinstance(puzzle, Game) else await self._game_here(interaction)
        if game is None or game.phase != "play":
            return []
        w = private_words(interaction)
        return [
            app_commands.Choice(name=suggestion_label(w, value)[:100], value=value)
            for _, value in move_suggestions(game.position, current)
        ]

    @app_commands.command()
    @app_commands.describe(
        board="board size (default: the one most played here)",
        protocol="turn protocol (default: the one most played here)",
        established="yes: leave out players whose rating is still provisional",
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction[VeletasBot],
        board: Literal["8", "5", "6", "12"] | None = None,
        protocol: Literal["122", "alternating"] | None = None,
        established: Literal["yes", "no"] = "no",
    ) -> None:
        """This server's best Veloop players by rating, page by page."""
        await send_leaderboard(
            interaction,
            TABLE,
            {name: value for name, value in (("board", board), ("protocol", protocol)) if value is not None},
            established == "yes",
        )

    @app_commands.command(name="rules")
    async def rules_command(self, interaction: discord.Interaction[VeletasBot]) -> None:
        """A short summary of the rules of Veloop (Square), with a picture of a confinement."""
        await send_rules(interaction, TABLE, None)


async def setup(bot: VeletasBot) -> None:
    register(TABLE)
    bot.add_dynamic_items(TargetSelect, SupportSelect)
    await bot.add_feature(
        VeloopCog(bot), group="veloop", description="Play Veloop (Square): add a stone, swap two, fence one in"
    )
