"""The guided move's frame, shared by every game: click instead of typing notation.

Move (on the public board) → the game's own steps (``Table.guided_start`` and its menus) → confirm.
Every step is one private message, edited in place, whose image marks the squares that are legal
at that step. All state lives in the custom ids (game, version, choices so far), so nothing is kept
in memory and a half-finished choice still works after a restart; the game's version (which every
change bumps, an undo included) makes a menu opened before the game changed refuse politely instead
of playing into a position its user never saw. Menus from before versions existed carry the ply.

Custom ids start with the game's name (``veloop:move:12``); every prefix is read, so the ids of
boards posted before a game had its own prefix (``veletas:…``) keep working for every game.

A game's steps are ``StepMenu`` subclasses: each names its custom id (prefix, step, the choices it
carries), its words, and what choosing an option leads to; reading the id back, checking the game
and answering are written here once.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import discord
from discord.ext import commands

from bot.client import VeletasBot
from bot.errors import RaceLost, UserError
from bot.i18n import Words
from bot.ids import MAX_ID, id_or_zero
from bot.store.checks import check_to_act
from bot.store.puzzle_play import PuzzleView
from bot.store.values import GameInfo
from cogs._board import BOARD_FILE, board_message, embed_colour, theme_of
from cogs._delivery import deliver, play_forced
from cogs._lookup import NamesAGame
from cogs._names import learn_names
from cogs._send import Outgoing, bot_of, respond, respond_update, send_response
from cogs._tables import table_for
from cogs._words import private_words
from cogs.puzzles import puzzle_again, puzzle_turn

OPTIONS_PER_SELECT = 25
MAX_SELECTS = 4  # the fifth action row holds the Back and Cancel buttons
OUT_OF_DATE = "guided.menu_out_of_date"
# Any game's name: custom ids carry it first, and every one is accepted (see the module's docstring).
PREFIX = r"(?P<prefix>[a-z]{2,12})"
# Custom ids carry "v<version>"; a bare number is a ply, from boards posted before versions existed; "p<turns>" is a
# puzzle's position (the id's number is then the puzzle's, the turns those played in the member's attempt).
STATE = r"(?:v(?P<version>[0-9]+)|p(?P<puzzle>[0-9]+)|(?P<ply>[0-9]+))"
# A square as a step's custom id carries it (``d4``, ``j10``).
SQUARE = r"[a-z][0-9]{1,2}"


def seen_state(match: re.Match[str]) -> tuple[int | None, int | None]:
    """(version, ply) from a custom id: exactly one of them is set; past 63 bits it is -1, which no game is at (as
    for a puzzle's state, which names no game)."""
    if match["version"] is not None:
        return _counter(match["version"]), None
    if match["ply"] is None:
        return -1, None
    return None, _counter(match["ply"])


def _counter(digits: str) -> int:
    value = int(digits)
    return value if value <= MAX_ID else -1


@dataclass(frozen=True)
class Seen:
    """The state of the game a menu was drawn for: its version, or for menus older than versions its ply; for a
    puzzle's position (``PuzzleView``), the turns played in the member's attempt."""

    version: int | None = None
    ply: int | None = None
    puzzle: int | None = None

    @classmethod
    def of(cls, info: GameInfo) -> Seen:
        if isinstance(info, PuzzleView):
            return cls(puzzle=info.version)
        return cls(version=info.version)

    @classmethod
    def parse(cls, match: re.Match[str]) -> Seen:
        if match["puzzle"] is not None:
            return cls(puzzle=_counter(match["puzzle"]))
        version, ply = seen_state(match)
        return cls(version=version, ply=ply)

    def matches(self, info: GameInfo) -> bool:
        if self.puzzle is not None or isinstance(info, PuzzleView):
            return isinstance(info, PuzzleView) and self.puzzle == info.version
        if self.version is not None:
            return self.version == info.version
        return self.ply is None or self.ply == info.ply

    def __str__(self) -> str:
        if self.puzzle is not None:
            return f"p{self.puzzle}"
        return f"v{self.version}" if self.version is not None else str(self.ply)


# What a private step refuses when the game is past (or not yet at) the phase the step is for.
PHASE_REFUSALS = {"play": "refusal.moves_after_setup", "setup": "refusal.setup_over"}


def check_may_move(info: GameInfo, user_id: int, seen: Seen | None = None, *, phase: str = "play") -> None:
    """Refuse before showing a private menu that could never lead to a legal turn for this user.

    Who may act is the store's decision (``check_to_act``, the same check it makes when writing);
    the menu adds only that it must still show the game as it stands, and that the game is in the
    ``phase`` the menu is for (moves have begun, or for Veletas's guided setup, setup goes on).
    """
    if seen is not None and info.status == "active" and not seen.matches(info):
        raise RaceLost(OUT_OF_DATE)
    check_to_act(info, user_id)
    if info.state.phase != phase:
        raise UserError(PHASE_REFUSALS[phase])


async def load_turn(
    interaction: discord.Interaction[Any], game_id: int, seen: Seen | None, *, phase: str = "play"
) -> GameInfo:
    """The game, if ``interaction``'s member is to act in it now, in ``phase``, as ``seen`` showed it; for a puzzle's
    menu, the member's own open attempt at that puzzle (``PuzzleView``), which nobody else's menu can name."""
    store = bot_of(interaction).store
    if seen is not None and seen.puzzle is not None:
        info: GameInfo = await store.puzzle_view(interaction.user.id, game_id)
    else:
        info = await store.get_game(game_id)
    check_may_move(info, interaction.user.id, seen, phase=phase)
    return info


def chunks(options: Sequence[discord.SelectOption]) -> list[list[discord.SelectOption]]:
    """Options in menus of 25, at most four menus (the fifth row holds the buttons)."""
    return [list(options[i : i + OPTIONS_PER_SELECT]) for i in range(0, len(options), OPTIONS_PER_SELECT)][:MAX_SELECTS]


def nav_buttons(view: discord.ui.View, info: GameInfo, w: Words, *, back: bool) -> None:
    if back:
        view.add_item(BackButton(info, Seen.of(info), label=w("guided.start_over.label")))
    view.add_item(CancelButton(info, label=w("guided.cancel.label")))


async def step_message(
    bot: VeletasBot,
    info: GameInfo,
    w: Words,
    text: str,
    view: discord.ui.View | None,
    png: bytes,
    *,
    title: str | None = None,
) -> Outgoing:
    """One step of the guided move: the game's image for it, what to choose, and the menus.

    ``title`` replaces "Your move as <colour>" for steps that are not a move (Veletas's setup)."""
    colour = info.state.colour_to_act
    if title is None:
        title = w("guided.title", colour=w(f"result.{colour}") if colour else "?", game=table_for(info).label(info))
    embed = discord.Embed(
        title=title,
        description=text,
        colour=embed_colour(colour),
    )
    embed.set_image(url=f"attachment://{BOARD_FILE}")
    return Outgoing(embed=embed, files=[(BOARD_FILE, png)], view=view)


async def step_theme(bot: VeletasBot, info: GameInfo) -> str:
    """Every step is shown only to the player to move (``check_may_move``), so it is drawn in their theme."""
    await learn_names(bot, info)
    return await theme_of(bot, info.user_to_act)


def custom_id(info: GameInfo | str, *parts: object) -> str:
    """A custom id under the game's own prefix: ``veloop:gc:12:v7:f6<e4``."""
    prefix = info if isinstance(info, str) else info.kind.name
    return ":".join([prefix, *(str(part) for part in parts)])


class MoveButton(
    NamesAGame, discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"{PREFIX}:move:(?P<game>[0-9]+)"
):
    def __init__(self, game: GameInfo | str, game_id: int, label: str = "Move") -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.primary, custom_id=custom_id(game, "move", game_id)
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> MoveButton:
        return cls(match["prefix"], id_or_zero(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        await bot.guard(interaction, self.start(interaction))

    async def start(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> Outgoing:
            info = await load_turn(interaction, self.game_id, None)
            return await table_for(info).guided_start(bot, info, private_words(interaction))

        await respond(interaction, work(), ephemeral=True)


# A move as any game writes it: squares, and the marks between them (- / < for now).
MOVE_TEXT = r"[a-z0-9/<,-]{2,24}"


class ConfirmButton(
    NamesAGame,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:gc:(?P<game>[0-9]+):{STATE}:(?P<move>{MOVE_TEXT})",
):
    def __init__(self, game: GameInfo | str, game_id: int, seen: Seen, move: str, label: str | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or f"Play {move}",
                style=discord.ButtonStyle.success,
                custom_id=custom_id(game, "gc", game_id, seen, move),
            )
        )
        self.game_id, self.seen, self.move = game_id, seen, move

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ConfirmButton:
        return cls(match["prefix"], id_or_zero(match["game"]), Seen.parse(match), match["move"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.confirmed(interaction))

    async def confirmed(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        if self.seen.puzzle is not None:
            await respond_update(interaction, puzzle_turn(interaction, self.game_id, self.seen.puzzle, self.move))
            return

        async def work() -> Outgoing:
            played = await bot.store.play(
                self.game_id,
                interaction.user.id,
                self.move,
                expected_version=self.seen.version,
                expected_ply=self.seen.ply,
            )
            # Said as the button said it: a stationary shot names its shooter there (d4/g2), though recorded as g2.
            return Outgoing(content=private_words(interaction)("guided.you_played", turn=self.move), info=played)

        async def answer() -> tuple[int | None, Outgoing]:
            done = await respond_update(interaction, work())
            assert done.info is not None
            after, note = await play_forced(bot, done.info)
            out = await board_message(bot, after, note=note)
            return await send_response(interaction, out), out

        await deliver(bot, self.game_id, answer())


class BackButton(
    NamesAGame, discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"{PREFIX}:gb:(?P<game>[0-9]+):{STATE}"
):
    def __init__(
        self, game: GameInfo | str, seen: Seen, game_id: int | None = None, *, label: str = "Start over"
    ) -> None:
        self.game_id = game.id if isinstance(game, GameInfo) else int(game_id or 0)
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=custom_id(game, "gb", self.game_id, seen),
            )
        )
        self.seen = seen

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> BackButton:
        return cls(match["prefix"], Seen.parse(match), id_or_zero(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.back(interaction))

    async def back(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> Outgoing:
            info = await load_turn(interaction, self.game_id, self.seen)
            return await table_for(info).guided_start(bot, info, private_words(interaction))

        await respond_update(interaction, work())


class CancelButton(
    NamesAGame,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:gx:(?P<game>[0-9]+)(?P<puzzle>:p)?",
):
    """Ends the guided move; in a puzzle (``:p``), back to the puzzle as it stands."""

    def __init__(
        self, game: GameInfo | str, game_id: int | None = None, *, label: str = "Cancel", puzzle: bool = False
    ) -> None:
        self.game_id = game.id if isinstance(game, GameInfo) else int(game_id or 0)
        self.puzzle = puzzle or isinstance(game, PuzzleView)
        parts = ("gx", self.game_id, "p") if self.puzzle else ("gx", self.game_id)
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.danger, custom_id=custom_id(game, *parts))
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> CancelButton:
        return cls(match["prefix"], id_or_zero(match["game"]), puzzle=match["puzzle"] is not None)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if self.puzzle:
            await bot_of(interaction).guard(
                interaction, respond_update(interaction, puzzle_again(interaction, self.game_id))
            )
            return
        await bot_of(interaction).guard(
            interaction,
            interaction.response.edit_message(
                content=private_words(interaction)("guided.cancelled"), embed=None, attachments=[], view=None
            ),
        )


def confirm_view(info: GameInfo, move: str, w: Words) -> discord.ui.View:
    """The last step's buttons: play ``move`` (the button says it as written), start over, or cancel."""
    view = discord.ui.View(timeout=None)
    view.add_item(ConfirmButton(info, info.id, Seen.of(info), move, w("guided.play.label", move=move)))
    nav_buttons(view, info, w, back=True)
    return view


class StepMenu(NamesAGame, discord.ui.DynamicItem[discord.ui.Select[Any]], ABC, template=r"(?!)"):
    """A menu of one guided step, the frame of every game's steps (never registered itself).

    A subclass names its custom id in its class line, ``prefix:step:<game>:<state>:<carried…>:<page>``
    (``class DestinationSelect(StepMenu, prefix="veletas", step="gd", carries={"shooter": SQUARE})``),
    its placeholders (catalogue keys), and in ``next_step`` what choosing an option leads to. The choices
    made so far ride in the id (``carried``, in the order ``carries`` names them), so a menu works after a
    restart; the state seen (``Seen``) makes a menu drawn before the game changed refuse as out of date.
    """

    prefix: ClassVar[str]
    step: ClassVar[str]
    carries: ClassVar[tuple[str, ...]] = ()
    phase: ClassVar[str] = "play"
    """The game's phase this step is for (``check_may_move``)."""
    placeholder: ClassVar[str]
    """The first menu's placeholder (a catalogue key); the further menus of the same step say ``more_placeholder``."""
    more_placeholder: ClassVar[str]

    def __init_subclass__(
        cls, *, prefix: str | None = None, step: str | None = None, carries: Mapping[str, str] | None = None
    ) -> None:
        if prefix is None or step is None:
            # A base for several steps of one game (what they share, never registered): it reads no id.
            super().__init_subclass__(template=r"(?!)")
            return
        fields = dict(carries or {})
        carried = "".join(f":(?P<{name}>{pattern})" for name, pattern in fields.items())
        super().__init_subclass__(template=rf"{prefix}:{step}:(?P<game>[0-9]+):{STATE}{carried}:(?P<page>[0-9])")
        cls.prefix, cls.step, cls.carries = prefix, step, tuple(fields)

    def __init__(
        self,
        game_id: int,
        seen: Seen,
        carried: Sequence[str],
        page: int,
        options: list[discord.SelectOption] | None = None,
        placeholder: str | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Select(
                placeholder=placeholder,
                options=options or [],
                custom_id=custom_id(self.prefix, self.step, game_id, seen, *carried, page),
            )
        )
        self.game_id, self.seen, self.carried = game_id, seen, list(carried)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        carried = [match[name] for name in cls.carries]
        return cls(id_or_zero(match["game"]), Seen.parse(match), carried, int(match["page"]))

    @classmethod
    def add_menus(
        cls,
        view: discord.ui.View,
        info: GameInfo,
        carried: Sequence[str],
        options: Sequence[discord.SelectOption],
        w: Words,
    ) -> None:
        """This step's options as menus on ``view``: 25 to a menu, at most four (``chunks``)."""
        seen = Seen.of(info)
        for page, chunk in enumerate(chunks(options)):
            placeholder = w(cls.placeholder if page == 0 else cls.more_placeholder)
            view.add_item(cls(info.id, seen, carried, page, chunk, placeholder))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.answer(interaction))

    async def answer(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        value = self.item.values[0]

        async def work() -> Outgoing:
            # The game, if this menu's member is to act in it now, as the menu showed it.
            info = await load_turn(interaction, self.game_id, self.seen, phase=self.phase)
            return await self.next_step(bot, info, value, private_words(interaction))

        await respond_update(interaction, work())

    @abstractmethod
    async def next_step(self, bot: VeletasBot, info: GameInfo, value: str, w: Words) -> Outgoing:
        """The step after choosing ``value``; ``RaceLost(OUT_OF_DATE)`` if this step would not offer it now
        (only what a step offered goes on: a forged or stale value is an out-of-date menu, not a typo)."""


class GuidedMoveCog(commands.Cog, name="Guided move"):
    """Holds no commands: the guided move starts from the Move button on every board."""

    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot


async def setup(bot: VeletasBot) -> None:
    bot.add_dynamic_items(MoveButton, ConfirmButton, BackButton, CancelButton)
    await bot.add_cog(GuidedMoveCog(bot))
