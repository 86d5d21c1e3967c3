"""Result disputes: the "Dispute result" button under a finished tournament game's board (``cogs._board``), the
modal that asks its player for a reason, the post that tells the organisers in the tournament's channel, and the
lines ``/tournament info`` shows (how many disputes the next round waits for, and each one with its decision).

The organisers decide with ``/tournament result``, which closes the dispute in the result's own transaction
(``bot.store.tournaments.set_result``); the store refuses a dispute from anyone but the game's two players, a
second one, or one after the window (``bot.store.disputes``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any, cast

import discord
from discord.ext import commands

from bot.i18n import Words
from bot.ids import id_or_zero
from bot.store.values import MAX_DISPUTE_REASON, Dispute, DueRow, TournamentSnapshot
from cogs._lookup import game_here
from cogs._words import private_words
from cogs.tournament import words
from cogs.tournament.base import TournamentBase

log = logging.getLogger(__name__)

SHOWN_DISPUTES = 5
"""``/tournament info`` lists the latest disputes, at most this many (and counts the earlier ones)."""
SHOWN_REASON = 100
"""A reason as ``/tournament info`` shows it, at most this many characters (the whole one went to the channel)."""


REASON_ID = re.compile(r"tdispute:reason:(?P<game>[0-9]+)")
"""The modal's custom id: the game it disputes. Its submit is read by ``Disputing.on_interaction``, which needs no
modal object in memory, so a reason typed while the bot restarted still lands."""
REASON_FIELD = "reason"


class DisputeModal(discord.ui.Modal):
    """The reason for a dispute, asked of the player who pressed the button. Its submit is answered by the cog's
    listener (``Disputing.on_interaction``), not here: the listener also reads one sent after a restart."""

    def __init__(self, game_id: int, w: Words) -> None:
        super().__init__(title=w("dispute.modal.title"), custom_id=f"tdispute:reason:{game_id}", timeout=15 * 60)
        self.reason: discord.ui.TextInput[DisputeModal] = discord.ui.TextInput(
            label=w("dispute.reason.label"),
            custom_id=REASON_FIELD,
            placeholder=w("dispute.reason.placeholder")[:100],
            style=discord.TextStyle.paragraph,
            min_length=1,
            max_length=MAX_DISPUTE_REASON,
        )
        self.add_item(self.reason)

    async def on_submit(self, interaction: discord.Interaction[Any], /) -> None:
        """Answered by ``Disputing.on_interaction``."""


def submitted_reason(data: Mapping[str, Any]) -> str:
    """The reason typed into the modal, from the submit's components (an action row's or a label's text input)."""
    for row in data.get("components") or []:
        inner = row.get("components") or ([row["component"]] if "component" in row else [])
        for item in inner:
            if item.get("custom_id") == REASON_FIELD:
                return str(item.get("value") or "")
    return ""


class Disputing(TournamentBase):
    """A player's dispute, from the button to the organisers' post."""

    async def dispute_pressed(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """The button: refused privately (nothing written) unless the member may dispute now, else the modal."""
        await self.bot.store.check_dispute(game_id, interaction.user.id)
        await interaction.response.send_modal(DisputeModal(game_id, private_words(interaction)))

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """A dispute's reason submitted (from the modal this process opened, or one opened before a restart)."""
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        data = cast("Mapping[str, Any]", interaction.data or {})
        match = REASON_ID.fullmatch(str(data.get("custom_id", "")))
        if match is None:
            return
        game_id = id_or_zero(match["game"])
        await self.bot.guard(interaction, self.dispute_submitted(interaction, game_id, submitted_reason(data)))

    async def dispute_submitted(self, interaction: discord.Interaction[Any], game_id: int, reason: str) -> None:
        """The reason given: the dispute is stored (or refused privately), the player hears it privately, the board
        loses its button and the organisers are told in the tournament's channel."""
        await game_here(interaction, game_id, where="board")
        dispute = await self.bot.store.open_dispute(game_id, interaction.user.id, reason)
        w = private_words(interaction)
        await interaction.response.send_message(
            w("dispute.sent", round=dispute.round, board=dispute.board), ephemeral=True
        )
        if interaction.message is not None:
            try:
                await interaction.message.edit(view=None)
            except discord.HTTPException as exc:
                log.warning("Could not take the dispute button off game %d's board (%s)", game_id, exc.status)
        # The organisers' post is the ``dispute:<id>`` step, owed in the dispute's transaction (``deliver_dispute``).

    async def deliver_dispute(self, tournament_id: int, dispute_id: int, due: DueRow) -> None:
        """The ``dispute:<id>`` step: the organisers' post, then the step is done. Discord refusing or failing it
        gives the step back to fall due again after a growing pause (as the channel's other owed posts)."""
        async with self.bot.scheduler.hold(due) as hold:
            found = [d for d in await self.bot.store.disputes(tournament_id) if d.id == dispute_id]
            if not found:
                await self.bot.store.drop_due(due.id)
                return
            if not await hold.still_held():
                return
            try:
                await self.tell_organisers(found[0])
            except (discord.HTTPException, OSError) as exc:
                what = f"Tournament {tournament_id}: the post of dispute {dispute_id}"
                await self.retry_later(self.dispute_failures, dispute_id, due, what, exc)
                return
            self.dispute_failures.pop(dispute_id, None)
            await self.bot.store.drop_due(due.id)

    async def tell_organisers(self, dispute: Dispute) -> None:
        """One post in the tournament's channel, in the server's language, mentioning its organisers (the one who
        made it, and the server's organiser role if there is one) and nobody else; a failure is raised."""
        info = await self.bot.store.tournament(dispute.tournament_id)
        snap = await self.bot.store.snapshot(info.id)
        pairing = next(p for p in snap.pairings if p.id == dispute.pairing_id)
        role = await self.bot.store.organiser_role(info.guild_id)
        who = [f"<@{info.organiser_id}>"] + ([f"<@&{role}>"] if role else [])
        pw = await self.public(info)
        text = pw(
            "dispute.posted",
            who=f"<@{dispute.user_id}>",
            round=dispute.round,
            board=dispute.board,
            white=f"<@{pairing.white}>",
            black=f"<@{pairing.black}>",
            result=words.result_word(pw, dispute.result),
            reason=words.escaped(dispute.reason),
            organisers=" ".join(who),
        )
        mentions = discord.AllowedMentions(
            everyone=False,
            users=[discord.Object(info.organiser_id)],
            roles=[discord.Object(role)] if role else False,
        )
        await self.bot.get_partial_messageable(info.channel_id).send(text, allowed_mentions=mentions)


def dispute_lines(w: Words, snap: TournamentSnapshot, room: int = 2000) -> list[str]:
    """What ``/tournament info`` says of disputes: how many the next round waits for, then the latest ones (at most
    ``SHOWN_DISPUTES``, fewer if they would not fit in ``room`` characters, joined by line breaks), each with its
    decision (who took it, what, when) once taken; the earlier ones are counted."""
    if not snap.disputes:
        return []
    head = [w("dispute.info.waiting", count=len(snap.open_disputes))] if snap.open_disputes else []
    shown = [dispute_line(w, d) for d in snap.disputes[-SHOWN_DISPUTES:]]
    while True:
        earlier = len(snap.disputes) - len(shown)
        lines = head + ([w("dispute.info.earlier", count=earlier)] if earlier else []) + shown
        if not shown or len("\n".join(lines)) <= room:
            return lines
        shown = shown[1:]


def dispute_line(w: Words, d: Dispute) -> str:
    reason = d.reason if len(d.reason) <= SHOWN_REASON else d.reason[: SHOWN_REASON - 1] + "…"
    data: dict[str, object] = {
        "round": d.round,
        "board": d.board,
        "who": f"<@{d.user_id}>",
        "result": words.result_word(w, d.result),
        "at": str(int(d.opened_at)),
        "reason": words.escaped(reason),
    }
    if d.decision is None or d.decided_at is None:
        return w("dispute.info.open", **data)
    return w(
        "dispute.info.decided",
        **data,
        judge=f"<@{d.decided_by}>",
        decision=words.result_word(w, d.decision),
        decided_at=str(int(d.decided_at)),
    )


__all__ = ["DisputeModal", "Disputing", "dispute_lines"]
