"""Veloop (Square) in Discord: ``/veloop`` and everything Veloop shows that no other game does.

The shared commands (``board``, ``resign``, ``undo``, ``export``, ``games``) come from
``GameCommands``; this module adds Veloop's own: the challenge with its board and protocol, the
move with its autocomplete (target → support), the rules summary, and the guided move's Veloop steps
(target → support → confirm, with the legal squares marked). Its ``Table`` words Veloop's boards.
A turn that is only a forced pass is never asked of anyone: the bot plays it (``play_forced``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any, Literal

import discord
from discord import app_commands

from bot import render
from bot.client import VeletasBot
from bot.errors import RaceLost
from bot.rules import veloop
from bot.rules.veloop import Game, Move
from bot.rules.veloop_suggest import move_suggestions
from bot.store import GameInfo
from cogs._board import colour_word
from cogs._clock_words import time_suggestions
from cogs._names import colour_names
from cogs._options import MAX_MOVE, MAX_TIME
from cogs._send import Outgoing, bot_of, respond_update
from cogs._tables import Table, register
from cogs.challenge import challenges
from cogs.guided import (
    OUT_OF_DATE,
    STATE,
    ConfirmButton,
    MoveButton,
    Seen,
    chunks,
    load_turn,
    nav_buttons,
    step_message,
    step_theme,
)
from cogs.play import GameCommands, expect_game, play_turn, send_leaderboard, send_rules

SQUARE = r"[a-z]\d{1,2}"

RULES = """\
**Veloop (Square)** by Dale Walton: add a stone and shuffle two at every move, and fence in an enemy stone.
**A move:** choose a *support*, a cell your stone tops, and a *target* a knight's leap away. The two cells \
next to both (the *swap squares*) must show different things: black and white, or a stone and nothing. \
Put your stone on the target, then swap the top stones of the swap squares (into the empty one, if one is empty).
**Stacks:** a cell holds at most two stones and only the top one counts. You may place on a lone enemy \
stone only when no move to an empty target exists anywhere.
**Confined:** a top stone is free on the edge, or if a path of king steps through empty cells or cells \
topped by its owner reaches the edge. The game ends after the first move that leaves any stone confined: \
fewer confined stones wins, the same number draws. Two passes in a row, one each, draw too.
**Turns:** Black starts. Protocol `122` (default): Black plays one move, then each side plays two moves a \
turn; `alternating`: one move each. A player with no legal move passes (the bot plays it).
**Notation:** `f6<e4` puts a stone on f6 from the support e4 (`f6 e4` and `f6-e4` are read too)."""


# A short 5×5 game (protocol alternating) that White wins with a confinement.
EXAMPLE_TURNS = (
    "d4<c2", "e5<d3", "c3<e4", "b3<d4", "a3<c2", "b5<d4", "a4<c5", "d3<b2",
    "d5<c3", "e3<c4", "c2<a3", "e2<d4", "d1<c3", "b2<c4", "e3<d1", "c2<b4",
)  # fmt: skip
EXAMPLE_CAPTION = (
    "The picture: White's last move leaves a black stone with no path of empty or black cells to the edge. "
    "It is confined, Black has more confined stones than White, and White wins."
)


def veloop_game(info: GameInfo) -> Game:
    state = info.state
    if not isinstance(state, Game):
        raise TypeError(f"game {info.id} is not a Veloop game")
    return state


def turn_part(game: Game) -> str:
    """Which move of a double turn this is, in words (nothing for a single move)."""
    position = game.position
    if position.plies < 2:
        return ""
    return " (first of two moves)" if position.ply == 1 else " (second of two moves)"


class VeloopTable(Table):
    kind = veloop.KIND

    @property
    def title(self) -> str:
        return "Veloop"

    def settings_text(self, settings: Mapping[str, str]) -> str:
        size = settings.get("board", "8")
        return f"{size}×{size} board, protocol {settings.get('protocol', '122')}"

    def turn_line(self, info: GameInfo, who: str) -> str:
        game = veloop_game(info)
        return (
            f"{who} to move as {colour_word(game.colour_to_act)}{turn_part(game)}: "
            "press **Move**, or type `/veloop move`."
        )

    def fields(self, info: GameInfo) -> list[tuple[str, str, bool]]:
        game = veloop_game(info)
        found: list[tuple[str, str, bool]] = []
        last = game.last_move
        if last is not None and not last.is_pass:
            found.append(("Swapped", last.describe().partition(", ")[2] or "nothing", True))
        confined = game.position.confined
        if confined.black or confined.white:
            black = " ".join(confined.black) or "none"
            white = " ".join(confined.white) or "none"
            found.append(("Confined", f"Black: {black} · White: {white}", False))
        return found

    def board_png(
        self,
        info: GameInfo,
        *,
        seats: Mapping[str, str],
        colours: Mapping[str, str],
        theme: str,
        result: str | None,
    ) -> bytes:
        game = veloop_game(info)
        return render.veloop_board_png(
            game.position, last_move=game.last_move, players=dict(colours), theme=theme, result=result
        )

    def replay_gif(self, info: GameInfo, *, seats: Mapping[str, str], colours: Mapping[str, str], theme: str) -> bytes:
        return render.veloop_replay_gif(veloop_game(info), players=dict(colours), theme=theme)

    def board_items(self, info: GameInfo) -> list[discord.ui.Item[Any]]:
        return [MoveButton(info, info.id)] if veloop_game(info).phase == "play" else []

    async def guided_start(self, bot: VeletasBot, info: GameInfo) -> Outgoing:
        return await target_step(bot, info)

    def rules_example(self, theme: str) -> tuple[bytes, str]:
        game = Game.replay(EXAMPLE_TURNS, 5, "alternating")
        png = render.veloop_board_png(
            game.position, last_move=game.last_move, theme=theme, players={"black": "Black", "white": "White"}
        )
        return png, EXAMPLE_CAPTION

    def rules_text(self, settings: Mapping[str, str] | None, option: str | None) -> str:
        if settings is None:
            return RULES
        return f"{RULES}\n**This game:** {self.settings_text(settings)}."


TABLE = register(VeloopTable())


# --- the guided move's Veloop steps: target → support → confirm


async def _step(
    bot: VeletasBot,
    info: GameInfo,
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
            render.veloop_board_png, game.position.play(preview), last_move=preview, players=names, theme=theme
        )
    else:
        png = await asyncio.to_thread(
            render.veloop_board_png, game.position, last_move=game.last_move, hints=hints, players=names, theme=theme
        )
    return await step_message(bot, info, text, view, png)


def _moves(game: Game) -> list[Move]:
    return [move for move in game.position.legal_moves() if not move.is_pass]


async def target_step(bot: VeletasBot, info: GameInfo) -> Outgoing:
    game = veloop_game(info)
    moves = _moves(game)
    targets = list(dict.fromkeys(str(move.target) for move in moves))
    counts = {target: sum(1 for move in moves if move.target == target) for target in targets}
    options = [
        discord.SelectOption(
            label=target,
            value=target,
            description=f"{counts[target]} support{'s' if counts[target] != 1 else ''}"
            + (" · on an enemy stone" if game.position.stack(target) else ""),
        )
        for target in targets
    ]
    view = discord.ui.View(timeout=None)
    for page, chunk in enumerate(chunks(options)):
        view.add_item(TargetSelect(info.id, Seen.of(info), page, chunk))
    nav_buttons(view, info, back=False)
    more = f" (the first {25 * 4} are listed)" if len(options) > 100 else ""
    text = f"**Step 1 of 3:** choose where your stone goes. The marked squares are the legal targets{more}."
    return await _step(bot, info, text, view, hints=render.VeloopHints.for_position(game.position))


async def support_step(bot: VeletasBot, info: GameInfo, target: str) -> Outgoing:
    game = veloop_game(info)
    moves = [move for move in _moves(game) if move.target == target]
    options = [
        discord.SelectOption(label=str(move.support), value=str(move.support), description=move.describe()[:100])
        for move in moves
    ]
    view = discord.ui.View(timeout=None)
    for page, chunk in enumerate(chunks(options)):
        view.add_item(SupportSelect(info.id, Seen.of(info), target, page, chunk))
    nav_buttons(view, info, back=True)
    text = (
        f"**Step 2 of 3:** target **{target}**. Which of your stones supports it? "
        "The marked stones are a knight's leap away with a legal swap between them."
    )
    return await _step(bot, info, text, view, hints=render.VeloopHints.for_position(game.position, target))


async def confirm_step(bot: VeletasBot, info: GameInfo, move: Move) -> Outgoing:
    view = discord.ui.View(timeout=None)
    view.add_item(ConfirmButton(info, info.id, Seen.of(info), str(move)))
    nav_buttons(view, info, back=True)
    after = veloop_game(info).position.play(move)
    ending = ""
    if after.is_over:
        ending = "\nThis move ends the game: " + (
            "a draw." if after.result == "draw" else f"{colour_word(after.result)} wins."
        )
    text = f"**Step 3 of 3:** play **`{move}`** ({move.describe()})? The image shows the board after it.{ending}"
    return await _step(bot, info, text, view, preview=move)


class TargetSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]], template=rf"veloop:gt:(?P<game>\d+):{STATE}:(?P<page>\d)"
):
    def __init__(self, game_id: int, seen: Seen, page: int, options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                placeholder="Choose the target" if page == 0 else "More targets",
                options=options or [],
                custom_id=f"veloop:gt:{game_id}:{seen}:{page}",
            )
        )
        self.game_id, self.seen = game_id, seen

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TargetSelect:
        return cls(int(match["game"]), Seen.parse(match), int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.chosen(interaction))

    async def chosen(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        target = self.item.values[0]

        async def work() -> Outgoing:
            info = await load_turn(interaction, self.game_id, self.seen)
            if not any(move.target == target for move in _moves(veloop_game(info))):
                raise RaceLost(OUT_OF_DATE)
            return await support_step(bot, info, target)

        await respond_update(interaction, work())


class SupportSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"veloop:gs:(?P<game>\d+):{STATE}:(?P<target>{SQUARE}):(?P<page>\d)",
):
    def __init__(
        self, game_id: int, seen: Seen, target: str, page: int, options: list[discord.SelectOption] | None = None
    ) -> None:
        super().__init__(
            discord.ui.Select(
                placeholder="Choose the support" if page == 0 else "More supports",
                options=options or [],
                custom_id=f"veloop:gs:{game_id}:{seen}:{target}:{page}",
            )
        )
        self.game_id, self.seen, self.target = game_id, seen, target

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> SupportSelect:
        return cls(int(match["game"]), Seen.parse(match), match["target"], int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.chosen(interaction))

    async def chosen(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        move = Move(self.target, self.item.values[0])

        async def work() -> Outgoing:
            info = await load_turn(interaction, self.game_id, self.seen)
            if move not in _moves(veloop_game(info)):
                raise RaceLost(OUT_OF_DATE)
            return await confirm_step(bot, info, move)

        await respond_update(interaction, work())


# --- /veloop


class VeloopCog(GameCommands, name="Veloop"):
    table = TABLE

    async def _game_here(self, interaction: discord.Interaction[VeletasBot]) -> Game | None:
        state = await self.state_here(interaction)
        return state if isinstance(state, Game) else None

    @app_commands.command()
    @app_commands.describe(
        opponent="who you challenge (leave empty for an open challenge anyone can accept; pick me to play my AI)",
        board="board size: 8×8 (default), 5×5, 6×6 or 12×12",
        protocol="122 (default): one move for Black, then two each; alternating: one move each",
        where="thread (default): the game gets its own thread; here: played in this channel",
        level="AI strength from 1 to 5 when you challenge me (default 3)",
        time="the clock: none, 3d (days per move), 10+5 (minutes + seconds), 48h+12h/96h (default: the server's)",
        rated="yes: the result changes both ratings; no: a casual game (default: the server's choice)",
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
        await challenges(self.bot).issue(
            interaction,
            game=TABLE.kind.name,
            settings={"board": board, "protocol": protocol},
            opponent=opponent,
            where=where,
            level=level,
            time=time,
            rated=None if rated is None else rated == "yes",
        )

    @challenge.autocomplete("time")
    async def time_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return time_suggestions(current)

    @app_commands.command()
    @app_commands.describe(move="e.g. f6<e4: a stone on f6, supported by your stone on e4 (f6 e4 works too)")
    async def move(
        self, interaction: discord.Interaction[VeletasBot], move: app_commands.Range[str, 1, MAX_MOVE]
    ) -> None:
        """Play your move in this channel's game."""
        assert interaction.channel_id is not None
        info = await self.bot.store.game_in_channel(interaction.channel_id)
        expect_game(info, TABLE, "move")
        await play_turn(interaction, info.id, move, expected_version=info.version, typed=True)

    @move.autocomplete("move")
    async def move_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        game = await self._game_here(interaction)
        if game is None or game.phase != "play":
            return []
        return [
            app_commands.Choice(name=label[:100], value=value)
            for label, value in move_suggestions(game.position, current)
        ]

    @app_commands.command()
    @app_commands.describe(
        board="board size (default 8)",
        protocol="turn protocol (default 122)",
        established="yes: leave out players whose rating is still provisional",
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction[VeletasBot],
        board: Literal["8", "5", "6", "12"] = "8",
        protocol: Literal["122", "alternating"] = "122",
        established: Literal["yes", "no"] = "no",
    ) -> None:
        """This server's best Veloop players by rating, page by page."""
        await send_leaderboard(interaction, TABLE, {"board": board, "protocol": protocol}, established == "yes")

    @app_commands.command(name="rules")
    async def rules_command(self, interaction: discord.Interaction[VeletasBot]) -> None:
        """A short summary of the rules of Veloop (Square), with a picture of a confinement."""
        await send_rules(interaction, TABLE, None)


async def setup(bot: VeletasBot) -> None:
    bot.add_dynamic_items(TargetSelect, SupportSelect)
    await bot.add_feature(
        VeloopCog(bot), group="veloop", description="Play Veloop (Square): add a stone, swap two, fence one in"
    )
