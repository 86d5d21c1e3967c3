"""What an interaction names (a game, a tournament, a member), checked against where it was sent from.

Not an extension. A button's or menu's custom id, a menu value and a command option are all the
sender's to write: a forged one may name another server's game, a number no row has, or a member who
is not here. Every component and option that names a game, tournament or member goes through these:
the id is read by ``bot.ids`` (ASCII digits, within 63 bits) and what it names must belong to the
interaction's server (and, for a board's controls, its channel). Anything else is refused the same
way, "no such game here", so a refusal never tells whether another server has that game.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal

import discord

from bot.errors import NoGameHere, UserError
from bot.ids import is_id, parse_id
from bot.store.values import GameInfo, TournamentInfo
from cogs._send import bot_of

NO_SUCH_GAME = "refusal.no_such_game_here"
NO_SUCH_TOURNAMENT = "tournament.no_such_tournament_here"
NO_SUCH_MEMBER = "refusal.no_such_member"
UNKNOWN_CONTROL = "refusal.unknown_control"


def _id(value: int | str) -> int | None:
    if isinstance(value, str):
        return parse_id(value)
    return value if is_id(value) else None


Where = Literal["server", "board", "challenge"]


async def game_here(interaction: discord.Interaction[Any], game: int | str, *, where: Where = "server") -> GameInfo:
    """The game ``game`` names, if it is one of this server's; else ``NoGameHere``, worded alike whatever the reason.

    ``where`` narrows it: ``board``, a control on a board or a private step of a turn, which is in the
    game's own channel (or thread); ``challenge``, a challenge's buttons, also in the channel it was made in.
    """
    game_id = _id(game)
    if game_id is None or interaction.guild_id is None:
        raise NoGameHere(NO_SUCH_GAME)
    try:
        info = await bot_of(interaction).store.get_game(game_id)
    except NoGameHere:
        raise NoGameHere(NO_SUCH_GAME) from None
    if info.guild_id != interaction.guild_id:
        raise NoGameHere(NO_SUCH_GAME)
    if where == "board" and interaction.channel_id != info.channel_id:
        raise NoGameHere(NO_SUCH_GAME)
    if where == "challenge" and interaction.channel_id not in (info.channel_id, info.origin_channel_id):
        raise NoGameHere(NO_SUCH_GAME)
    return info


async def tournament_here(interaction: discord.Interaction[Any], tournament: int | str) -> TournamentInfo:
    """The tournament ``tournament`` names, if it is one of this server's; else a refusal worded alike."""
    tournament_id = _id(tournament)
    if tournament_id is None or interaction.guild_id is None:
        raise UserError(NO_SUCH_TOURNAMENT)
    try:
        info = await bot_of(interaction).store.tournament(tournament_id)
    except UserError:
        raise UserError(NO_SUCH_TOURNAMENT) from None
    if info.guild_id != interaction.guild_id:
        raise UserError(NO_SUCH_TOURNAMENT)
    return info


def member_here(interaction: discord.Interaction[Any], value: object) -> discord.Member:
    """A member option's value, if it is a member of this server.

    discord.py hands over a bare ``discord.Object`` for an id Discord sent without resolving it (a role's
    id, a user who does not exist), and a ``discord.User`` for someone who is not in the server.
    """
    if (
        isinstance(value, discord.Member)
        and interaction.guild_id is not None
        and value.guild.id == interaction.guild_id
    ):
        return value
    raise UserError(NO_SUCH_MEMBER)


def user_named(value: object) -> discord.User | discord.Member:
    """A user option's value, if Discord resolved it to a user (one who left the server still counts)."""
    if isinstance(value, discord.User | discord.Member):
        return value
    raise UserError(NO_SUCH_MEMBER)


class UnknownControl(discord.ui.DynamicItem[discord.ui.Item[Any]], template=r"(?s).*"):
    """Any button or menu whose custom id no control of the bot's reads (a forged one, or one from a version
    of the bot that made other custom ids): answered privately that it is out of date, never left unanswered.

    Every dynamic item whose template matches is called; this one stands down when another matches.
    """

    def __init__(self, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> UnknownControl:
        return cls(item)

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return not any(template.fullmatch(self.custom_id) for template in bot_of(interaction).control_templates)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).answer_error(interaction, UserError(UNKNOWN_CONTROL))


class NamesAGame:
    """For a dynamic item whose custom id names a game (``game_id``, 0 when the id was not one).

    discord.py asks ``interaction_check`` before the callback: the game must be this server's, and in the
    channel ``where`` says (``game_here``). A refusal is answered here, privately, since
    discord.py would only log an exception raised from a check.
    """

    game_id: int
    where: ClassVar[Where] = "board"

    @property
    def names_a_puzzle(self) -> bool:
        """A guided step on a puzzle's position (``cogs.guided``): its number is a puzzle's, not a game's, and what
        it acts on is the presser's own attempt at that puzzle, which the store finds and checks."""
        seen = getattr(self, "seen", None)
        return getattr(self, "puzzle", False) is True or getattr(seen, "puzzle", None) is not None

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        if self.names_a_puzzle:
            return True
        try:
            await game_here(interaction, self.game_id, where=self.where)
        except Exception as exc:
            await bot_of(interaction).answer_error(interaction, exc)
            return False
        return True
