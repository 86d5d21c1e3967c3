"""Arena tournaments in Discord: pairing whoever is waiting as games end, the Berserk button in each game's
thread, Pause and Back in under the leaderboard, and the leaderboard itself: one message in the tournament's
channel, edited in place, never more often than once per ``LEADERBOARD_PACE`` seconds (Discord allows five
messages per five seconds in a channel; the games' threads are channels of their own).
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any, ClassVar

import discord

from bot.client import VeletasBot
from bot.errors import UserError
from bot.i18n import Words
from bot.ids import id_or_zero
from bot.store.arena import arena_games
from bot.store.values import GameInfo, Pairing, TournamentInfo, TournamentSnapshot
from bot.tournament_flow import names
from bot.tournaments.arena import BERSERK_MIN_MOVES, ArenaStanding, leaderboard
from cogs._delivery import announce
from cogs._send import bot_of
from cogs._words import private_words
from cogs.tournament import words
from cogs.tournament.base import TournamentBase

log = logging.getLogger(__name__)

ARENA_PREFIX = "arena"
LEADERBOARD_PACE = 2.0
"""Seconds between two edits of a leaderboard at most: 2.5 edits per 5 s, half of Discord's per-channel limit."""
LEADERBOARD_ROWS = 40
"""Players the leaderboard lists; the rest are counted."""


class ArenaButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{ARENA_PREFIX}:(?P<action>berserk|pause|back):(?P<target>[0-9]+)",
):
    """Berserk (under a game's intro; the id is the game's), Pause and Back in (under the leaderboard; the
    tournament's)."""

    STYLES: ClassVar[dict[str, discord.ButtonStyle]] = {
        "berserk": discord.ButtonStyle.danger,
        "pause": discord.ButtonStyle.secondary,
        "back": discord.ButtonStyle.success,
    }

    def __init__(self, action: str, target: int, w: Words | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=w(f"arena.{action}.label") if w is not None else action,
                style=self.STYLES[action],
                custom_id=f"{ARENA_PREFIX}:{action}:{target}",
            )
        )
        self.action, self.target = action, target

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ArenaButton:
        return cls(match["action"], id_or_zero(match["target"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        cog = bot.get_cog("Tournaments")
        assert isinstance(cog, ArenaPart)
        await bot.guard(interaction, cog.arena_pressed(interaction, self.action, self.target))


def leaderboard_view(w: Words, info: TournamentInfo) -> discord.ui.View | None:
    if info.status != "running":
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(ArenaButton("pause", info.id, w))
    view.add_item(ArenaButton("back", info.id, w))
    return view


def arena_standings(snap: TournamentSnapshot) -> list[ArenaStanding]:
    """Every player who entered the arena, ranked (see ``bot.tournaments.arena``)."""
    ratings = {e.user_id: e.rating for e in snap.players if e.seed is not None}
    return leaderboard(arena_games(snap.pairings), ratings)


def leaderboard_embed(w: Words, snap: TournamentSnapshot) -> discord.Embed:
    info = snap.info
    known = names(snap)
    lines = arena_standings(snap)
    rows = []
    for line in lines[:LEADERBOARD_ROWS]:
        marks = ("🔥" if line.fire else "") + ("⚡" * min(line.berserks, 3))
        rows.append(
            w(
                "arena.leaderboard.line",
                rank=line.rank,
                name=words.escaped(known.get(line.player, "?")),
                points=line.points,
                games=line.games,
                marks=f" {marks}" if marks else "",
            )
        )
    if len(lines) > LEADERBOARD_ROWS:
        rows.append(w("arena.leaderboard.more", count=len(lines) - LEADERBOARD_ROWS))
    embed = discord.Embed(title=w("arena.leaderboard.title", name=info.name)[:256], colour=0xE25822)
    embed.description = "\n".join(rows)[:4000] or w("arena.leaderboard.empty")
    ends = int((info.started_at or 0) + info.round_minutes * 60)
    footer = w("arena.leaderboard.over") if info.status == "finished" else w("arena.leaderboard.ends", at=str(ends))
    embed.add_field(name=w("arena.leaderboard.legend_title"), value=f"{footer}\n{w('arena.leaderboard.legend')}")
    return embed


class ArenaPart(TournamentBase):
    """An arena's pairing step, its leaderboard and its buttons."""

    leaderboard_pace: float = LEADERBOARD_PACE

    def __init__(self, bot: VeletasBot) -> None:
        super().__init__(bot)
        self.board_pending: set[int] = set()
        self.board_edited: dict[int, float] = {}
        self.pair_locks: dict[int, asyncio.Lock] = {}

    async def arena_step(self, info: TournamentInfo, due_id: int | None) -> bool:
        """Pair whoever is waiting; True when the arena is over (its time is up and every game played out)."""
        async with self.pair_locks.setdefault(info.id, asyncio.Lock()):
            outcome = await self.bot.store.pair_arena(info.id, due_id=due_id)
        self.leaderboard_changed(info.id)
        return outcome.over

    # --- the leaderboard ------------------------------------------------------------------------------

    def leaderboard_changed(self, tournament_id: int) -> None:
        """The leaderboard is to show a change: one edit soon, however many changes come before it."""
        if tournament_id in self.board_pending:
            return
        self.board_pending.add(tournament_id)
        self.bot.spawn(self._edit_leaderboard(tournament_id), name=f"arena-{tournament_id}-leaderboard")

    async def _edit_leaderboard(self, tournament_id: int) -> None:
        loop = asyncio.get_running_loop()
        try:
            wait = self.board_edited.get(tournament_id, -1e9) + self.leaderboard_pace - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
        finally:
            # Changes from here on make another edit: this one reads the store after them.
            self.board_pending.discard(tournament_id)
        self.board_edited[tournament_id] = loop.time()
        try:
            await self.show_leaderboard(tournament_id)
        except discord.Forbidden:
            # Permissions taken away: tried again at the next change, not in a loop.
            log.warning("Arena %d: the leaderboard may not be posted or edited here", tournament_id)
        except (discord.HTTPException, OSError):
            log.warning("Arena %d: the leaderboard could not be updated; trying again", tournament_id)
            self.leaderboard_changed(tournament_id)

    async def show_leaderboard(self, tournament_id: int) -> None:
        """Post the leaderboard, or edit the one posted, from the store as it is now."""
        snap = await self.bot.store.snapshot(tournament_id)
        info = snap.info
        pw = await self.public(info)
        embed = leaderboard_embed(pw, snap)
        view = leaderboard_view(pw, info)
        channel = self.bot.get_partial_messageable(info.channel_id)
        if info.leaderboard_message_id is not None:
            try:
                await channel.get_partial_message(info.leaderboard_message_id).edit(embed=embed, view=view)
                return
            except discord.NotFound:
                pass  # deleted by someone: posted afresh
        if info.status != "running":
            return
        message = await channel.send(
            embed=embed, view=view or discord.utils.MISSING, allowed_mentions=discord.AllowedMentions.none()
        )
        await self.bot.store.set_leaderboard_message(info.id, message.id)

    # --- Berserk, Pause, Back in --------------------------------------------------------------------------

    async def offer_berserk(self, info: TournamentInfo, pairing: Pairing, game: GameInfo) -> None:
        """Under an arena game's intro: the Berserk button, for either player before their first move."""
        if not info.is_arena or not info.berserk or info.time_control.family != "fischer":
            return
        pw = await self.public(info)
        view = discord.ui.View(timeout=None)
        view.add_item(ArenaButton("berserk", game.id, pw))
        await self.bot.get_partial_messageable(game.channel_id).send(
            pw("arena.berserk.offer", moves=BERSERK_MIN_MOVES),
            view=view,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def arena_pressed(self, interaction: discord.Interaction[VeletasBot], action: str, target: int) -> None:
        w = private_words(interaction)
        user = interaction.user
        if action == "berserk":
            game, tournament_id = await self.bot.store.arena_berserk(target, user.id)
            await interaction.response.send_message(w("arena.berserk.done"), ephemeral=True)
            pw = await self.public(await self.bot.store.tournament(tournament_id))
            await self.bot.get_partial_messageable(game.channel_id).send(
                pw("arena.berserk.said", name=words.escaped(user.display_name)),
                allowed_mentions=discord.AllowedMentions.none(),
            )
            self.bot.spawn(announce(self.bot, game.id), name=f"announce-{game.id}")
            return
        info = await self.bot.store.tournament(target)
        if interaction.guild_id != info.guild_id or interaction.channel_id != info.channel_id:
            raise UserError("tournament.forged")
        await self.bot.store.arena_pause(info.id, user.id, paused=action == "pause")
        await interaction.response.send_message(w(f"arena.{action}.done"), ephemeral=True)
        if action == "back":
            self.bot.spawn(self.arena_step(info, None), name=f"arena-{info.id}-pair")
