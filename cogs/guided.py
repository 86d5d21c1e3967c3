"""The guided move: click instead of typing notation.

Move (on the public board) → choose a shooter → a destination or stay → a target → confirm. Every
step is one private message, edited in place, whose image marks the squares that are legal at
that step. All state lives in the custom ids (game, version, choices so far), so nothing is kept in
memory and a half-finished choice still works after a restart; the game's version (which every
change bumps, an undo included) makes a menu opened before the game changed refuse politely instead
of playing into a position its user never saw. Menus from before versions existed carry the ply.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord
from discord.ext import commands

from bot import render
from bot.client import VeletasBot
from bot.errors import GameFinished, NoGameHere, NotAParticipant, NotYourTurn, RaceLost
from bot.rules import Move
from bot.store import GameInfo
from cogs._board import (
    BOARD_FILE,
    Outgoing,
    board_message,
    bot_of,
    colour_names,
    colour_word,
    deliver,
    embed_colour,
    learn_names,
    render_position,
    respond,
    respond_update,
    seat_names,
    send_response,
    theme_of,
)
from cogs.play import STATE, seen_state

STAY = "stay"
OPTIONS_PER_SELECT = 25
MAX_SELECTS = 4  # the fifth action row holds the Back and Cancel buttons
OUT_OF_DATE = "This move menu is out of date: the game has moved on. Press Move on the latest board."


@dataclass(frozen=True)
class Seen:
    """The state of the game a menu was drawn for: its version, or for menus older than versions its ply."""

    version: int | None = None
    ply: int | None = None

    @classmethod
    def of(cls, info: GameInfo) -> Seen:
        return cls(version=info.version)

    @classmethod
    def parse(cls, match: re.Match[str]) -> Seen:
        version, ply = seen_state(match)
        return cls(version=version, ply=ply)

    def matches(self, info: GameInfo) -> bool:
        if self.version is not None:
            return self.version == info.version
        return self.ply is None or self.ply == info.ply

    def __str__(self) -> str:
        return f"v{self.version}" if self.version is not None else str(self.ply)


def check_may_move(info: GameInfo, user_id: int, seen: Seen | None = None) -> None:
    """Refuse before showing a private menu that could never lead to a legal move for this user."""
    if info.status == "challenge":
        raise NoGameHere("This game has not started: the challenge is still waiting for an answer.")
    if info.status != "active":
        raise GameFinished(f"This game is over{': ' + info.result if info.result else ''}.")
    if user_id not in info.participants:
        raise NotAParticipant("You are not playing in this game.")
    if seen is not None and not seen.matches(info):
        raise RaceLost(OUT_OF_DATE)
    if info.user_to_act != user_id:
        raise NotYourTurn(f"It is <@{info.user_to_act}>'s turn, not yours.")
    if info.game.phase != "play":
        raise NotYourTurn("Moves start once setup (and the colour choice) is over.")


async def load_turn(interaction: discord.Interaction[Any], game_id: int, seen: Seen | None) -> GameInfo:
    info = await bot_of(interaction).store.get_game(game_id)
    check_may_move(info, interaction.user.id, seen)
    return info


def _chunks(options: Sequence[discord.SelectOption]) -> list[list[discord.SelectOption]]:
    return [list(options[i : i + OPTIONS_PER_SELECT]) for i in range(0, len(options), OPTIONS_PER_SELECT)][:MAX_SELECTS]


def _nav_buttons(view: discord.ui.View, info: GameInfo, *, back: bool) -> None:
    if back:
        view.add_item(BackButton(info.id, Seen.of(info)))
    view.add_item(CancelButton(info.id))


async def _step(
    bot: VeletasBot,
    info: GameInfo,
    text: str,
    view: discord.ui.View | None,
    *,
    hints: render.Hints | None = None,
    preview: Move | None = None,
) -> Outgoing:
    game = info.game
    position = game.position
    # Every step is shown only to the player to move (check_may_move), so it is drawn in their theme.
    theme = await theme_of(bot, info.user_to_act)
    await learn_names(bot, info)
    names = _colour_names(bot, info)
    if preview is not None:
        png = await render_position(position.play(preview), last_move=preview, players=names, theme=theme)
    else:
        png = await render_position(position, last_move=game.last_move, hints=hints, players=names, theme=theme)
    embed = discord.Embed(
        title=f"Your move as {colour_word(game.colour_to_act)} · Veletas #{info.id}",
        description=text,
        colour=embed_colour(game),
    )
    embed.set_image(url=f"attachment://{BOARD_FILE}")
    return Outgoing(embed=embed, files=[(BOARD_FILE, png)], view=view)


def _colour_names(bot: VeletasBot, info: GameInfo) -> dict[str, str]:
    return colour_names(info.game, seat_names(bot, info))


async def shooter_step(bot: VeletasBot, info: GameInfo) -> Outgoing:
    position = info.game.position
    movable = [s for s in position.unclaimed() if position.destinations(s) or position.targets(s)]
    groups = position.group_hints()
    options = []
    for square in movable:
        black, white = groups.get(square, (0, 0))
        options.append(
            discord.SelectOption(
                label=square, value=square, description=f"adjacent groups: black {black}, white {white}"
            )
        )
    view = discord.ui.View(timeout=None)
    for page, chunk in enumerate(_chunks(options)):
        view.add_item(ShooterSelect(info.id, Seen.of(info), page, chunk))
    _nav_buttons(view, info, back=False)
    text = "**Step 1 of 4:** choose the shooter to use. Badges show the biggest black and white groups beside each one."
    return await _step(bot, info, text, view, hints=render.Hints(groups=True))


async def destination_step(bot: VeletasBot, info: GameInfo, shooter: str) -> Outgoing:
    position = info.game.position
    destinations = position.destinations(shooter)
    options = [discord.SelectOption(label=f"Stay on {shooter}", value=STAY, description="shoot without moving")]
    options += [
        discord.SelectOption(label=square, value=square, description=f"move {shooter} to {square}")
        for square in destinations
    ]
    view = discord.ui.View(timeout=None)
    for page, chunk in enumerate(_chunks(options)):
        view.add_item(DestinationSelect(info.id, Seen.of(info), shooter, page, chunk))
    _nav_buttons(view, info, back=True)
    text = (
        f"**Step 2 of 4:** shooter **{shooter}**. Where does it go? The marked squares are where it may move; "
        "or it stays and shoots from where it is."
    )
    return await _step(bot, info, text, view, hints=render.Hints.for_shooter(position, shooter))


async def target_step(bot: VeletasBot, info: GameInfo, shooter: str, destination: str) -> Outgoing:
    position = info.game.position
    moving = destination != STAY
    targets = position.targets(destination, vacated=shooter) if moving else position.targets(shooter)
    options = [discord.SelectOption(label=square, value=square) for square in targets]
    view = discord.ui.View(timeout=None)
    for page, chunk in enumerate(_chunks(options)):
        view.add_item(TargetSelect(info.id, Seen.of(info), shooter, destination, page, chunk))
    _nav_buttons(view, info, back=True)
    where = f"moves {shooter} → {destination}" if moving else f"stays on {shooter}"
    text = f"**Step 3 of 4:** the shooter {where}. Which square does it shoot? The marked squares are in reach."
    hints = render.Hints.for_shooter(position, shooter, destination=destination if moving else None)
    if not moving:
        hints = render.Hints(selected=shooter, targets=tuple(targets))
    return await _step(bot, info, text, view, hints=hints)


async def confirm_step(bot: VeletasBot, info: GameInfo, move: Move) -> Outgoing:
    view = discord.ui.View(timeout=None)
    view.add_item(ConfirmButton(info.id, Seen.of(info), str(move)))
    _nav_buttons(view, info, back=True)
    after = info.game.position.play(move)
    claims = "".join(f"\n{c.square} would be claimed by {colour_word(c.colour)}." for c in after.last_claims)
    text = f"**Step 4 of 4:** play **`{move}`**? The image shows the board after it.{claims}"
    return await _step(bot, info, text, view, preview=move)


def _move_text(shooter: str, destination: str, target: str) -> str:
    return f"{shooter}/{target}" if destination == STAY else f"{shooter}-{destination}/{target}"


class MoveButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"veletas:move:(?P<game>\d+)"):
    def __init__(self, game_id: int) -> None:
        super().__init__(
            discord.ui.Button(label="Move", style=discord.ButtonStyle.primary, custom_id=f"veletas:move:{game_id}")
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> MoveButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        await bot.guard(interaction, self.start(interaction))

    async def start(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> Outgoing:
            return await shooter_step(bot, await load_turn(interaction, self.game_id, None))

        await respond(interaction, work(), ephemeral=True)


class ShooterSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]], template=rf"veletas:gs:(?P<game>\d+):{STATE}:(?P<page>\d)"
):
    def __init__(self, game_id: int, seen: Seen, page: int, options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                placeholder="Choose a shooter", options=options or [], custom_id=f"veletas:gs:{game_id}:{seen}:{page}"
            )
        )
        self.game_id, self.seen = game_id, seen

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ShooterSelect:
        return cls(int(match["game"]), Seen.parse(match), int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.chosen(interaction))

    async def chosen(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        shooter = self.item.values[0]

        async def work() -> Outgoing:
            info = await load_turn(interaction, self.game_id, self.seen)
            if shooter not in info.game.position.unclaimed():
                raise RaceLost(OUT_OF_DATE)
            return await destination_step(bot, info, shooter)

        await respond_update(interaction, work())


class DestinationSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"veletas:gd:(?P<game>\d+):{STATE}:(?P<shooter>[a-z]\d{{1,2}}):(?P<page>\d)",
):
    def __init__(
        self, game_id: int, seen: Seen, shooter: str, page: int, options: list[discord.SelectOption] | None = None
    ) -> None:
        super().__init__(
            discord.ui.Select(
                placeholder="Stay, or choose where it moves" if page == 0 else "More destinations",
                options=options or [],
                custom_id=f"veletas:gd:{game_id}:{seen}:{shooter}:{page}",
            )
        )
        self.game_id, self.seen, self.shooter = game_id, seen, shooter

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> DestinationSelect:
        return cls(int(match["game"]), Seen.parse(match), match["shooter"], int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.chosen(interaction))

    async def chosen(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        destination = self.item.values[0]

        async def work() -> Outgoing:
            info = await load_turn(interaction, self.game_id, self.seen)
            if destination != STAY and destination not in info.game.position.destinations(self.shooter):
                raise RaceLost(OUT_OF_DATE)
            return await target_step(bot, info, self.shooter, destination)

        await respond_update(interaction, work())


class TargetSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=(
        rf"veletas:gt:(?P<game>\d+):{STATE}:(?P<shooter>[a-z]\d{{1,2}}):(?P<dest>[a-z]\d{{1,2}}|stay):(?P<page>\d)"
    ),
):
    def __init__(
        self,
        game_id: int,
        seen: Seen,
        shooter: str,
        destination: str,
        page: int,
        options: list[discord.SelectOption] | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Select(
                placeholder="Choose the square to shoot" if page == 0 else "More targets",
                options=options or [],
                custom_id=f"veletas:gt:{game_id}:{seen}:{shooter}:{destination}:{page}",
            )
        )
        self.game_id, self.seen, self.shooter, self.destination = game_id, seen, shooter, destination

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TargetSelect:
        return cls(int(match["game"]), Seen.parse(match), match["shooter"], match["dest"], int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.chosen(interaction))

    async def chosen(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        text = _move_text(self.shooter, self.destination, self.item.values[0])

        async def work() -> Outgoing:
            info = await load_turn(interaction, self.game_id, self.seen)
            return await confirm_step(bot, info, info.game.position.parse_move(text))

        await respond_update(interaction, work())


class ConfirmButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"veletas:gc:(?P<game>\d+):{STATE}:(?P<move>[a-z0-9/-]{{2,12}})",
):
    def __init__(self, game_id: int, seen: Seen, move: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Play {move}", style=discord.ButtonStyle.success, custom_id=f"veletas:gc:{game_id}:{seen}:{move}"
            )
        )
        self.game_id, self.seen, self.move = game_id, seen, move

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ConfirmButton:
        return cls(int(match["game"]), Seen.parse(match), match["move"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.confirmed(interaction))

    async def confirmed(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> Outgoing:
            played = await bot.store.play(
                self.game_id,
                interaction.user.id,
                self.move,
                expected_version=self.seen.version,
                expected_ply=self.seen.ply,
            )
            return Outgoing(content=f"You played `{played.turns[-1]}`.", info=played)

        async def answer() -> tuple[int | None, Outgoing]:
            done = await respond_update(interaction, work())
            assert done.info is not None
            out = await board_message(bot, done.info)
            return await send_response(interaction, out), out

        await deliver(bot, self.game_id, answer())


class BackButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"veletas:gb:(?P<game>\d+):{STATE}"):
    def __init__(self, game_id: int, seen: Seen) -> None:
        super().__init__(
            discord.ui.Button(
                label="Start over", style=discord.ButtonStyle.secondary, custom_id=f"veletas:gb:{game_id}:{seen}"
            )
        )
        self.game_id, self.seen = game_id, seen

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> BackButton:
        return cls(int(match["game"]), Seen.parse(match))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.back(interaction))

    async def back(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> Outgoing:
            return await shooter_step(bot, await load_turn(interaction, self.game_id, self.seen))

        await respond_update(interaction, work())


class CancelButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"veletas:gx:(?P<game>\d+)"):
    def __init__(self, game_id: int) -> None:
        super().__init__(
            discord.ui.Button(label="Cancel", style=discord.ButtonStyle.danger, custom_id=f"veletas:gx:{game_id}")
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> CancelButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(
            interaction,
            interaction.response.edit_message(content="Move cancelled.", embed=None, attachments=[], view=None),
        )


class GuidedMoveCog(commands.Cog, name="Guided move"):
    """Holds no commands: the guided move starts from the Move button on every board."""

    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot


async def setup(bot: VeletasBot) -> None:
    bot.add_dynamic_items(
        MoveButton, ShooterSelect, DestinationSelect, TargetSelect, ConfirmButton, BackButton, CancelButton
    )
    await bot.add_feature(GuidedMoveCog(bot))
