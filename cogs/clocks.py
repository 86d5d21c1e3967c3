"""Clocks in Discord: the scheduler's handlers (time forfeits, no-shows, reminders), no-show claims, ``/player notify``.

The scheduler (``bot.scheduler``) runs in the bot for as long as it is connected. A deadline that
passes ends the game on time in the store, and the final board goes out like any stored change; the first side's
first-move window passing at the first turn posts a board offering the second side to claim the game. A
reminder is sent once, as a ping in the game's channel or as a direct message, as the player chose;
a direct message Discord refuses (the player closed them) is remembered and not tried again.
"""

from __future__ import annotations

import logging
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import VeletasBot
from bot.errors import UserError
from bot.i18n import Words, words
from bot.store.values import DueRow
from cogs._board import ClaimButton, board_message
from cogs._clock_words import span_words
from cogs._delivery import announce, deliver
from cogs._lookup import game_here
from cogs._send import Outgoing, direct_message, jump_link, respond, send_to_channel
from cogs._tables import table_for
from cogs._words import private_words, public_words

log = logging.getLogger(__name__)


class ClocksCog(commands.Cog, name="Clocks"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot
        bot.scheduler.handlers["deadline"] = self.on_deadline
        bot.scheduler.handlers["reminder"] = self.on_reminder

    async def on_deadline(self, row: DueRow) -> None:
        ended = await self.bot.store.flag(row.game_id, due_id=row.id)
        if ended is not None:
            await announce(self.bot, row.game_id)

    async def claim_pressed(self, interaction: discord.Interaction[VeletasBot], game_id: int, version: int) -> None:
        """Claim pressed under a board whose first side did not come: only the second side, within its window, at
        the version the button was made for; the store refuses anything else privately and changes nothing. A
        press after the window ends the game as the double no-show it has become (as the scheduler would)."""
        info = await game_here(interaction, game_id, where="board")

        async def work() -> Outgoing:
            try:
                claimed = await self.bot.store.claim_no_show(
                    info.id, interaction.user.id, expected_version=version, stamp=interaction.id
                )
            except UserError as exc:
                if exc.key == "refusal.claim_too_late" and await self.bot.store.flag(info.id) is not None:
                    self.bot.spawn(announce(self.bot, info.id), name=f"announce-{info.id}")
                raise
            return await board_message(self.bot, claimed)

        await deliver(self.bot, info.id, respond(interaction, work()))

    async def on_reminder(self, row: DueRow) -> None:
        taken = await self.bot.store.take_reminder(row.id)
        if taken is None:
            return
        info, left = taken
        user = info.user_to_act
        if user is None or (self.bot.user is not None and user == self.bot.user.id):
            return
        prefs = await self.bot.store.get_notify(user)
        if not prefs.reminders:
            return
        label = table_for(info).label(info)
        deadline = info.clock.deadline() if info.clock is not None else None
        mine = words(self.bot.user_language(user, info.guild_id))

        def when(w: Words) -> str:
            return "" if deadline is None else w("clocks.deadline", at=str(int(deadline)))

        text = mine(
            "clocks.reminder_dm", left=span_words(mine, left), game=label, when=when(mine), link=jump_link(info)
        )
        sent_dm = prefs.wants_dm and await direct_message(self.bot, user, text)
        if prefs.wants_ping or not sent_dm:
            w = await public_words(self.bot, info.guild_id)
            line = w("clocks.reminder", who=f"<@{user}>", left=span_words(w, left), game=label, when=when(w))
            await send_to_channel(self.bot, info.channel_id, Outgoing(content=line, mention=user))

    @app_commands.command()
    @app_commands.describe(
        how="ping: on the board (default); dm: a direct message; both",
        reminders="on: remind me when my correspondence clock runs short (24 h and 1 h left); off",
    )
    async def notify(
        self,
        interaction: discord.Interaction[VeletasBot],
        how: Literal["ping", "dm", "both"] | None = None,
        reminders: Literal["on", "off"] | None = None,
    ) -> None:
        """How you are told it is your turn, and whether your clock reminds you."""
        prefs = await self.bot.store.set_notify(
            interaction.user.id, mode=how, reminders=None if reminders is None else reminders == "on"
        )
        w = private_words(interaction)
        text = w(
            "clocks.notify",
            way=w(f"clocks.way_{prefs.mode}"),
            reminders=w("settings.on" if prefs.reminders else "settings.off"),
        )
        if prefs.dm_blocked:
            text += " " + w("clocks.dm_blocked")
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot: VeletasBot) -> None:
    await bot.add_feature(ClocksCog(bot), group="player")
    bot.add_dynamic_items(ClaimButton)
