"""The guided move's Veletas steps, and the guided setup: every turn of Veletas by clicking, privately, with images.

A move: shooter → destination (or stay) → target → confirm. A setup turn: each shooter's square, then
the stone's (current rules), then confirm. Each menu is a ``StepMenu`` (``cogs.guided``): its custom id
carries the game, the state seen and the choices so far, and only what its step offered goes on.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any, ClassVar

import discord

from bot import render
from bot.client import VeletasBot
from bot.errors import RaceLost
from bot.i18n import Words
from bot.ids import id_or_zero
from bot.rules import Game, Move
from bot.rules.common import square_name
from bot.rules.veletas import Position
from bot.store.values import GameInfo
from cogs._board import colour_word
from cogs._lookup import NamesAGame
from cogs._names import colour_names, seat_names
from cogs._send import Outgoing, bot_of, respond, respond_update
from cogs._tables import table_for
from cogs._veletas_game import render_position, veletas_game
from cogs._words import private_words
from cogs.guided import (
    OUT_OF_DATE,
    SQUARE,
    STATE,
    ConfirmButton,
    Seen,
    StepMenu,
    confirm_view,
    load_turn,
    nav_buttons,
    step_message,
    step_theme,
)

STAY = "stay"


def squares(names: Sequence[str]) -> list[discord.SelectOption]:
    """Options that are just squares, each its own label."""
    return [discord.SelectOption(label=square, value=square) for square in names]


async def _step(
    bot: VeletasBot,
    info: GameInfo,
    w: Words,
    text: str,
    view: discord.ui.View | None,
    *,
    hints: render.Hints | None = None,
    preview: Move | None = None,
) -> Outgoing:
    game = veletas_game(info)
    position = game.position
    theme = await step_theme(bot, info)
    names = colour_names(bot, info)
    if preview is not None:
        png = await render_position(position.play(preview), last_move=preview, players=names, theme=theme, w=w)
    elif not game.moves:
        # the first move: the game marks the shooters of the last setup turn, as the public board does
        png = await asyncio.to_thread(render.game_png, game, hints=hints, players=dict(names), theme=theme, words=w)
    else:
        png = await render_position(position, last_move=game.last_move, hints=hints, players=names, theme=theme, w=w)
    return await step_message(bot, info, w, text, view, png)


async def shooter_step(bot: VeletasBot, info: GameInfo, w: Words) -> Outgoing:
    position = veletas_game(info).position
    movable = [s for s in position.unclaimed() if position.destinations(s) or position.targets(s)]
    groups = position.group_hints()
    options = []
    for square in movable:
        black, white = groups.get(square, (0, 0))
        options.append(
            discord.SelectOption(
                label=square,
                value=square,
                description=w("veletas.groups.option", black=black, white=white),
            )
        )
    view = discord.ui.View(timeout=None)
    ShooterSelect.add_menus(view, info, [], options, w)
    nav_buttons(view, info, w, back=False)
    return await _step(bot, info, w, w("veletas.step_shooter"), view, hints=render.Hints(groups=True))


async def destination_step(bot: VeletasBot, info: GameInfo, shooter: str, w: Words) -> Outgoing:
    position = veletas_game(info).position
    destinations = position.destinations(shooter)
    options = [
        discord.SelectOption(
            label=w("veletas.stay_on.option", square=shooter), value=STAY, description=w("veletas.shoot_still.option")
        )
    ]
    options += [
        discord.SelectOption(
            label=square, value=square, description=w("veletas.move_to.option", shooter=shooter, square=square)
        )
        for square in destinations
    ]
    view = discord.ui.View(timeout=None)
    DestinationSelect.add_menus(view, info, [shooter], options, w)
    nav_buttons(view, info, w, back=True)
    text = w("veletas.step_destination", shooter=shooter)
    return await _step(bot, info, w, text, view, hints=render.Hints.for_shooter(position, shooter))


async def target_step(bot: VeletasBot, info: GameInfo, shooter: str, destination: str, w: Words) -> Outgoing:
    position = veletas_game(info).position
    moving = destination != STAY
    targets = offered_targets(position, shooter, destination)
    view = discord.ui.View(timeout=None)
    TargetSelect.add_menus(view, info, [shooter, destination], squares(targets), w)
    nav_buttons(view, info, w, back=True)
    if moving:
        text = w("veletas.step_target_moving", shooter=shooter, square=destination)
    else:
        text = w("veletas.step_target_staying", shooter=shooter)
    hints = render.Hints.for_shooter(position, shooter, destination=destination if moving else None)
    if not moving:
        hints = render.Hints(selected=shooter, targets=tuple(targets))
    return await _step(bot, info, w, text, view, hints=hints)


async def confirm_step(bot: VeletasBot, info: GameInfo, move: Move, w: Words) -> Outgoing:
    written = written_in_full(move)
    view = confirm_view(info, written, w)
    after = veletas_game(info).position.play(move)
    claims = "".join(
        "\n" + w("veletas.would_claim", square=c.square, colour=colour_word(w, c.colour)) for c in after.last_claims
    )
    text = w("veletas.step_confirm", move=written, claims=claims)
    return await _step(bot, info, w, text, view, preview=move)


def written_in_full(move: Move) -> str:
    """The move as the player chose it: a stationary shot in the long form that names its shooter (``d4/g2``),
    as NOTATION.md writes it, so the confirm button shows the whole move and not just the target."""
    if move.is_stationary and move.shooter is not None:
        return f"{move.shooter}/{move.target}"
    return str(move)


def offered_targets(position: Position, shooter: str, destination: str) -> list[str]:
    """The targets the guided move offers after ``shooter`` and ``destination`` (or ``stay``); none if those
    are not a shooter to move and a square it reaches."""
    if shooter not in position.unclaimed():
        return []
    if destination == STAY:
        return list(position.targets(shooter))
    if destination not in position.destinations(shooter):
        return []
    return list(position.targets(destination, vacated=shooter))


def offered_in_turn(game: Game, chosen: list[str]) -> bool:
    """True if ``chosen`` are shooters the guided setup could have offered, one step after another."""
    return all(square in game.setup_choices(chosen[:i]) for i, square in enumerate(chosen))


def _move_text(shooter: str, destination: str, target: str) -> str:
    return f"{shooter}/{target}" if destination == STAY else f"{shooter}-{destination}/{target}"


class ShooterSelect(StepMenu, prefix="veletas", step="gs"):
    placeholder = more_placeholder = "veletas.choose_shooter.placeholder"

    async def next_step(self, bot: VeletasBot, info: GameInfo, value: str, w: Words) -> Outgoing:
        if value not in veletas_game(info).position.unclaimed():
            raise RaceLost(OUT_OF_DATE)
        return await destination_step(bot, info, value, w)


class DestinationSelect(StepMenu, prefix="veletas", step="gd", carries={"shooter": SQUARE}):
    placeholder, more_placeholder = "veletas.destination.placeholder", "veletas.more_destinations.placeholder"

    async def next_step(self, bot: VeletasBot, info: GameInfo, value: str, w: Words) -> Outgoing:
        shooter = self.carried[0]
        position = veletas_game(info).position
        if shooter not in position.unclaimed() or (value != STAY and value not in position.destinations(shooter)):
            raise RaceLost(OUT_OF_DATE)
        return await target_step(bot, info, shooter, value, w)


class TargetSelect(StepMenu, prefix="veletas", step="gt", carries={"shooter": SQUARE, "dest": rf"{SQUARE}|{STAY}"}):
    placeholder, more_placeholder = "veletas.target.placeholder", "veletas.more_targets.placeholder"

    async def next_step(self, bot: VeletasBot, info: GameInfo, value: str, w: Words) -> Outgoing:
        shooter, destination = self.carried
        position = veletas_game(info).position
        # Only what the step offered reaches the rules' parser: a forged value is a stale menu, not a typo.
        if value not in offered_targets(position, shooter, destination):
            raise RaceLost(OUT_OF_DATE)
        move = position.parse_move(_move_text(shooter, destination, value))
        return await confirm_step(bot, info, move, w)


# --- the guided setup: each shooter, then the stone, then confirm; no square has to be typed


def _joined(squares: Sequence[str]) -> str:
    return ".".join(squares) or "-"


def _split(text: str) -> list[str]:
    return [] if text == "-" else text.split(".")


async def setup_step(
    bot: VeletasBot, info: GameInfo, w: Words, chosen: list[str], stone: str | None = None
) -> Outgoing:
    """The next private step of a setup turn: a shooter, the stone, or the whole turn to confirm."""
    game = veletas_game(info)
    count = game.shooters_to_place
    theme = await step_theme(bot, info)
    names = seat_names(bot, info)
    view = discord.ui.View(timeout=None)
    seen = Seen.of(info)
    placed = w("veletas.placed_so_far", squares=list(chosen)) if chosen else ""
    if len(chosen) < count:
        options = game.setup_choices(chosen)
        SetupShooterSelect.add_menus(view, info, [_joined(chosen)], squares(options), w)
        # hatched: every empty square the next shooter may not take, those next to the chosen ones included
        empty = [sq for sq in game.setup_squares() if sq not in chosen and sq not in options]
        hints = render.Hints(
            selected=chosen[-1] if chosen else None,
            targets=tuple(options),
            placing=tuple(chosen),
            forbidden=tuple(empty) + unavailable(game),
        )
        text = w("veletas.step_setup_shooter", number=len(chosen) + 1, count=count, placed=placed)
    elif game.stone_to_place and stone is None:
        options = game.stone_choices(chosen)
        SetupStoneSelect.add_menus(view, info, [_joined(chosen)], squares(options), w)
        hints = render.Hints(targets=tuple(options[:100]), placing=tuple(chosen))
        text = w("veletas.step_setup_stone", placed=placed)
    else:
        turn = ",".join(chosen) + (f"/{stone}" if stone else "")
        view.add_item(ConfirmButton(info, info.id, seen, turn, w("guided.play.label", move=turn)))
        hints = render.Hints(placing=tuple(chosen), stone=stone)
        if stone:
            text = w("veletas.step_setup_confirm_stone", turn=turn, stone=stone)
        else:
            text = w("veletas.step_setup_confirm", turn=turn)
    if len(chosen) or stone:
        view.add_item(SetupStartOver(info.id, seen, w("guided.start_over.label")))
    nav_buttons(view, info, w, back=False)
    png = await asyncio.to_thread(render.game_png, game, players=names, theme=theme, hints=hints, words=w)
    return await step_message(bot, info, w, text, view, png, title=setup_title(w, info, game))


def unavailable(game: Game) -> tuple[str, ...]:
    """Empty squares no shooter of this setup turn may take at all (the edges, in the current rules)."""
    allowed, taken = set(game.setup_squares()), game.position.pieces()
    size = game.position.size
    names = (square_name(f, r) for f in range(size) for r in range(size))
    return tuple(sq for sq in names if sq not in allowed and sq not in taken)


def setup_title(w: Words, info: GameInfo, game: Game) -> str:
    """What a setup step is about: no colour is to move yet, a player places shooters (and a stone)."""
    count, label = game.shooters_to_place, table_for(info).label(info)
    if game.stone_to_place:
        return w(f"guided.setup_title_stone_{game.colour_to_act or 'black'}", game=label, count=count)
    return w("guided.setup_title", game=label, count=count)


class SetupButton(
    NamesAGame, discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"veletas:setup:(?P<game>[0-9]+)"
):
    """Under a board in setup: place the shooters (and the stone) by clicking, privately, with images."""

    def __init__(self, game_id: int, label: str = "Set up") -> None:
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.primary, custom_id=f"veletas:setup:{game_id}")
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> SetupButton:
        return cls(id_or_zero(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> Outgoing:
            return await setup_step(
                bot, await load_turn(interaction, self.game_id, None, phase="setup"), private_words(interaction), []
            )

        await bot.guard(interaction, respond(interaction, work(), ephemeral=True))


class SetupStartOver(
    NamesAGame, discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"veletas:sx:(?P<game>[0-9]+):{STATE}"
):
    def __init__(self, game_id: int, seen: Seen, label: str = "Start over") -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.secondary, custom_id=f"veletas:sx:{game_id}:{seen}"
            )
        )
        self.game_id, self.seen = game_id, seen

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> SetupStartOver:
        return cls(id_or_zero(match["game"]), Seen.parse(match))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> Outgoing:
            info = await load_turn(interaction, self.game_id, self.seen, phase="setup")
            return await setup_step(bot, info, private_words(interaction), [])

        await bot.guard(interaction, respond_update(interaction, work()))


# The shooters chosen so far in a setup menu's id: squares joined by dots, "-" for none.
CHOSEN = r"[a-z0-9.-]{1,20}"


class SetupMenu(StepMenu):
    """A square of the guided setup, after the shooters chosen so far (carried in the id): a shooter's, or
    once the turn's shooters are chosen the stone's (``stone``). Each square carried must be one its step
    offered, one after another, and the square chosen one this step offers; else the menu is out of date."""

    phase = "setup"
    stone: ClassVar[bool]

    async def next_step(self, bot: VeletasBot, info: GameInfo, value: str, w: Words) -> Outgoing:
        game = veletas_game(info)
        chosen = _split(self.carried[0])
        count, placed = game.shooters_to_place, len(chosen)
        if (placed != count if self.stone else placed >= count) or not offered_in_turn(game, chosen):
            raise RaceLost(OUT_OF_DATE)
        allowed = game.stone_choices(chosen) if self.stone else game.setup_choices(chosen)
        if value not in allowed:
            raise RaceLost(OUT_OF_DATE)
        if self.stone:
            return await setup_step(bot, info, w, chosen, value)
        return await setup_step(bot, info, w, [*chosen, value])


class SetupShooterSelect(SetupMenu, prefix="veletas", step="sp", carries={"chosen": CHOSEN}):
    placeholder, more_placeholder = "veletas.square.placeholder", "veletas.more_squares.placeholder"
    stone = False


class SetupStoneSelect(SetupMenu, prefix="veletas", step="sk", carries={"chosen": CHOSEN}):
    placeholder, more_placeholder = "veletas.stone_square.placeholder", "veletas.more_squares.placeholder"
    stone = True
