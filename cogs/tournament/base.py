"""What every part of the tournament cog shares: the bot, one lock per tournament, the server's words, and the
tournament's channel (a line said there, its threads).

``TournamentBase`` holds the state, and who may organise; the parts (sign-up, posts, opening rounds, the
scheduler's steps, the commands) are cogs built on it, and ``cogs.tournament.TournamentCog`` is all of them at
once, so a part calls another's methods on ``self`` (and a test may replace one on the cog).
"""

from __future__ import annotations

import asyncio
import logging

import discord
from discord.ext import commands

from bot.client import VeletasBot
from bot.errors import UserError
from bot.i18n import Words
from bot.store.values import DueRow, TournamentInfo
from cogs._delivery import RETRY_DELAYS
from cogs._lookup import tournament_here
from cogs._permissions import may_organise
from cogs._tables import table_for
from cogs._words import public_words
from cogs.tournament.words import escaped

log = logging.getLogger(__name__)


def game_text(w: Words, info: TournamentInfo) -> str:
    """The tournament's game and its settings, in ``w``'s language: ``Veloop (5×5 board, protocol 1-2-2)``."""
    table_ = table_for(info.game)
    return w("separator.aside", text=table_.title, aside=table_.settings_text(w, info.settings))


class TournamentBase(commands.Cog):
    """The cog's state: the bot, a lock per tournament (one round opened, one post delivered at a time), and what
    was already said or tried."""

    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot
        self.locks: dict[int, asyncio.Lock] = {}
        # Rounds whose games Discord refused to open (a permission taken away), already said in the channel.
        self.told_forbidden: set[tuple[int, int]] = set()
        # Tournaments whose owed channel posts failed, and how many times in a row (the pause before the next try).
        self.post_failures: dict[int, int] = {}
        # The same for the check-in notices a tournament owes its entrants, sent one run at a time.
        self.notice_failures: dict[int, int] = {}
        self.notice_locks: dict[int, asyncio.Lock] = {}
        # Disputes whose organisers' post failed, and how many times in a row.
        self.dispute_failures: dict[int, int] = {}

    async def retry_later(
        self, failures: dict[int, int], key: int, due: DueRow | None, what: str, exc: BaseException
    ) -> None:
        """A step whose Discord call failed falls due again after a growing pause (``RETRY_DELAYS``), its failures
        in a row counted in ``failures`` under ``key``."""
        count = failures.get(key, 0)
        failures[key] = count + 1
        pause = RETRY_DELAYS[min(count, len(RETRY_DELAYS) - 1)]
        log.warning("%s failed (%s); trying again in %.0f s", what, exc, pause)
        if due is not None:
            await self.bot.store.retry_due(due.claim, self.bot.store.now() + pause)

    def lock(self, tournament_id: int) -> asyncio.Lock:
        return self.locks.setdefault(tournament_id, asyncio.Lock())

    async def public(self, info: TournamentInfo) -> Words:
        """The words of the tournament's public posts: its server's language."""
        return await public_words(self.bot, info.guild_id)

    async def check_organiser(self, interaction: discord.Interaction[VeletasBot], info: TournamentInfo | None) -> None:
        assert interaction.guild_id is not None
        role = await self.bot.store.organiser_role(interaction.guild_id)
        if not may_organise(interaction, role, info.organiser_id if info is not None else None):
            raise UserError("tournament.not_organiser" if info is not None else "tournament.not_organiser_create")

    async def find(self, interaction: discord.Interaction[VeletasBot], tournament: int | None) -> TournamentInfo:
        """The tournament named, or the one signing up or running in this channel, else the one that finished here
        last. A tournament that finished more than ``FINISHED_SHOWN`` ago is refused."""
        assert interaction.guild_id is not None and interaction.channel_id is not None
        if tournament is not None:
            info = await tournament_here(interaction, tournament)
        else:
            found = await self.bot.store.tournament_in_channel(interaction.guild_id, interaction.channel_id)
            if found is None:
                raise UserError("tournament.no_tournament_here")
            info = found
        until = info.shown_until()
        if until is not None and until < self.bot.store.now():
            raise UserError("tournament.finished_long_ago", name=escaped(info.name))
        return info

    async def say(self, info: TournamentInfo, text: str) -> None:
        """One line in the tournament's channel, mentioning nobody."""
        await self.bot.get_partial_messageable(info.channel_id).send(
            text, allowed_mentions=discord.AllowedMentions.none()
        )

    async def channel_of(self, info: TournamentInfo) -> discord.TextChannel:
        channel = self.bot.get_channel(info.channel_id)
        if channel is None:
            channel = await self.bot.fetch_channel(info.channel_id)
        if not isinstance(channel, discord.TextChannel):
            raise RuntimeError(f"tournament {info.id}'s channel is not a text channel")
        return channel

    async def remove_thread(self, thread_id: int) -> None:
        try:
            thread = self.bot.get_channel(thread_id) or await self.bot.fetch_channel(thread_id)
        except discord.HTTPException:
            return
        if isinstance(thread, discord.Thread):
            try:
                await thread.delete()
            except discord.HTTPException:
                log.warning("Could not remove thread %d", thread_id)
