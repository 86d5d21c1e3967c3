"""Sign-up: the tournament's announcement (its embed, kept up to date) and the buttons under it (Join, Leave,
Check in, and the private confirmation of a withdrawal once the tournament runs)."""

from __future__ import annotations

import logging
import re
from typing import Any, ClassVar

import discord

from bot.client import VeletasBot
from bot.errors import UserError
from bot.i18n import Words
from bot.ids import id_or_zero
from bot.store.values import TournamentInfo
from cogs._clock_words import describe_control
from cogs._lookup import tournament_here
from cogs._send import bot_of
from cogs._words import private_words
from cogs.tournament import words
from cogs.tournament.base import TournamentBase, game_text

log = logging.getLogger(__name__)

PREFIX = "tour"


class TournamentButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:(?P<action>join|leave|checkin|withdraw):(?P<tid>[0-9]+)",
):
    """Join, Leave and Check in under an announcement; the custom id carries the tournament, checked on press."""

    STYLES: ClassVar[dict[str, discord.ButtonStyle]] = {
        "join": discord.ButtonStyle.success,
        "leave": discord.ButtonStyle.secondary,
        "checkin": discord.ButtonStyle.primary,
        "withdraw": discord.ButtonStyle.danger,
    }

    def __init__(self, action: str, tournament_id: int, w: Words | None = None) -> None:
        # The label is shown only when the bot sends the button (in its reader's language); a press carries the id.
        super().__init__(
            discord.ui.Button(
                label=words.label(w, action) if w is not None else action,
                style=self.STYLES[action],
                custom_id=f"{PREFIX}:{action}:{tournament_id}",
            )
        )
        self.action, self.tournament_id = action, tournament_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TournamentButton:
        return cls(match["action"], id_or_zero(match["tid"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        cog = bot.get_cog("Tournaments")
        assert isinstance(cog, SignUp)
        await bot.guard(interaction, cog.pressed(interaction, self.action, self.tournament_id))


class RejoinButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:rejoin:(?P<tid>[0-9]+):(?P<uid>[0-9]+)",
):
    """Rejoin, on the private notice a paused player gets (a no-show): the custom id names the tournament and the
    one member it is for, both checked on press."""

    def __init__(self, tournament_id: int, user_id: int, w: Words | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=words.label(w, "rejoin") if w is not None else "rejoin",
                style=discord.ButtonStyle.success,
                custom_id=f"{PREFIX}:rejoin:{tournament_id}:{user_id}",
            )
        )
        self.tournament_id, self.user_id = tournament_id, user_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> RejoinButton:
        return cls(id_or_zero(match["tid"]), id_or_zero(match["uid"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        cog = bot.get_cog("Tournaments")
        assert isinstance(cog, SignUp)
        await bot.guard(interaction, cog.rejoin(interaction, self.tournament_id, self.user_id))


def rejoin_view(w: Words, tournament_id: int, user_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(RejoinButton(tournament_id, user_id, w))
    return view


def announcement_view(w: Words, info: TournamentInfo, started: int = 0) -> discord.ui.View | None:
    """Join while sign-up is open, and in a Swiss while late entries are (until half the rounds have started)."""
    if info.status in ("finished", "cancelled"):
        return None
    view = discord.ui.View(timeout=None)
    late_open = (info.format == "swiss" and info.rounds is not None and started <= info.rounds // 2) or (
        info.is_arena and info.status == "running"
    )
    if info.status == "signup" or late_open:
        view.add_item(TournamentButton("join", info.id, w))
    view.add_item(TournamentButton("leave", info.id, w))
    if info.checkin_minutes and info.status == "signup":
        view.add_item(TournamentButton("checkin", info.id, w))
    return view


class SignUp(TournamentBase):
    """The announcement and its buttons: who joins, leaves or checks in."""

    async def announcement(self, info: TournamentInfo) -> tuple[discord.Embed, discord.ui.View | None]:
        started = await self.bot.store.rounds_started(info.id)
        pw = await self.public(info)
        return await self.announcement_embed(pw, info, started), announcement_view(pw, info, started)

    async def announcement_embed(self, w: Words, info: TournamentInfo, started: int = 0) -> discord.Embed:
        entrants = await self.bot.store.entrants(info.id)
        playing = [e for e in entrants if e.left_round is None]
        checked_names = [words.escaped(e.name) for e in playing if e.checked_in] if info.checkin_minutes else []
        checked = len(checked_names) if info.checkin_minutes else None
        embed = discord.Embed(title=words.announcement_title(info), colour=0xD4A017)
        for field_name, value, inline in words.announcement_fields(
            w,
            info,
            game_text(w, info),
            describe_control(w, info.time_control),
            len(playing),
            [words.escaped(e.name) for e in playing],
            checked,
            started,
            checked_names,
        ):
            embed.add_field(name=field_name, value=value, inline=inline)
        return embed

    async def refresh_announcement(self, info: TournamentInfo) -> None:
        if info.message_id is None:
            return
        message = self.bot.get_partial_messageable(info.channel_id).get_partial_message(info.message_id)
        try:
            embed, view = await self.announcement(info)
            await message.edit(embed=embed, view=view)
        except discord.HTTPException:
            log.warning("Could not update the announcement of tournament %d", info.id)

    async def rejoin(self, interaction: discord.Interaction[VeletasBot], tournament_id: int, user_id: int) -> None:
        """Rejoin pressed (in a direct message, or in the tournament's channel): only by the member it names, for the
        tournament it names; anything else is refused privately and changes nothing."""
        if interaction.user.id != user_id:
            raise UserError("tournament.refusal.rejoin_not_yours")
        try:
            info = await self.bot.store.tournament(tournament_id)
        except UserError:
            raise UserError("tournament.forged") from None
        if interaction.guild_id is not None and (
            interaction.guild_id != info.guild_id or interaction.channel_id != info.channel_id
        ):
            raise UserError("tournament.forged")
        await self.bot.store.rejoin_tournament(info.id, user_id)
        # The notice loses its button, and the member hears privately, in their own language.
        await interaction.response.edit_message(view=None)
        w = private_words(interaction)
        await interaction.followup.send(words.t(w, "rejoined", name=words.escaped(info.name)), ephemeral=True)

    async def pressed(self, interaction: discord.Interaction[VeletasBot], action: str, tournament_id: int) -> None:
        try:
            info = await tournament_here(interaction, tournament_id)
        except UserError:
            raise UserError("tournament.forged") from None
        message = interaction.message
        if message is None or interaction.channel_id != info.channel_id:
            raise UserError("tournament.forged")
        if action == "withdraw":
            # The private confirmation of Leave once the tournament runs: it concerns only the one who pressed.
            await self.bot.store.leave_tournament(info.id, interaction.user.id)
            await interaction.response.edit_message(content=words.left(private_words(interaction), info), view=None)
            await self.refresh_announcement(await self.bot.store.tournament(info.id))
            return
        me = self.bot.user.id if self.bot.user is not None else None
        if info.message_id is None and message.author.id == me:
            # Pressed before the announcement's id was stored (a moment after it was posted): it is this one.
            await self.bot.store.set_tournament_message(info.id, message.id)
        elif message.id != info.message_id:
            raise UserError("tournament.forged")
        user = interaction.user
        w = private_words(interaction)
        if action == "join":
            _, late = await self.bot.store.join_tournament(info.id, user.id, user.display_name)
            text = words.joined(w, info, late)
        elif action == "leave" and info.is_live:
            # Withdrawing is for good: asked once more, privately.
            if not any(e.user_id == user.id and e.left_round is None for e in await self.bot.store.entrants(info.id)):
                raise UserError("tournament.not_playing")
            confirm = discord.ui.View(timeout=None)
            confirm.add_item(TournamentButton("withdraw", info.id, w))
            await interaction.response.send_message(
                words.t(w, "confirm_withdraw", name=words.escaped(info.name)), view=confirm, ephemeral=True
            )
            return
        elif action == "leave":
            await self.bot.store.leave_tournament(info.id, user.id)
            text = words.left(w, info)
        else:
            await self.bot.store.check_in(info.id, user.id)
            text = words.t(w, "checked_in", name=words.escaped(info.name))
        # The announcement's count changes as the answer to the press; the member then hears privately.
        now = await self.bot.store.tournament(info.id)
        embed, view = await self.announcement(now)
        await interaction.response.edit_message(embed=embed, view=view)
        await interaction.followup.send(text, ephemeral=True)
