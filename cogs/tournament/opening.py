"""Opening a round: each pairing's thread, game and first board (with its intro calling both players), one at a
time, every step recorded before the next so a step cut short is finished, never repeated; and archiving the
threads of finished games.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import discord

from bot.crashpoints import crash_point
from bot.errors import UserError
from bot.i18n import LANGUAGES
from bot.i18n import words as words_in
from bot.scheduler import Hold
from bot.store.values import DueRow, GameInfo, Pairing, TournamentInfo, TournamentSnapshot
from bot.tournament_flow import names
from cogs._board import board_message
from cogs._delivery import after_board_posted, board_lock
from cogs._send import direct_message, jump_link
from cogs.tournament import words
from cogs.tournament.arena import ArenaPart

log = logging.getLogger(__name__)

THREAD_PACE = 0.05
"""Seconds between two thread creations: a 20-board round goes out one thread at a time, never in a burst."""
THREAD_RETRIES = 6
ARENA_OPENERS = 4
"""An arena's games opened at once: players come free all the time, and each waits for their own game."""
ARCHIVE_WAITS = 40
"""Quarter-seconds a finished game's thread waits for its last board before it is archived (left open if later)."""


class Opening(ArenaPart):
    """A round's games opened in their threads, and their threads archived once played."""

    async def open_round(self, tournament_id: int, number: int, due: DueRow | None) -> None:
        """Each pairing's thread and game, one at a time, every step recorded before the next; the step is held
        for as long as it runs, and stops where another process took it over."""
        due_id = None if due is None else due.id
        async with self.bot.scheduler.hold(due) as hold, self.lock(tournament_id):
            snap = await self.bot.store.snapshot(tournament_id)
            row = next((r for r in snap.rounds if r.number == number), None)
            if snap.info.status not in ("running", "paused") or row is None:
                if due_id is not None:
                    await self.bot.store.drop_due(due_id)
                return
            channel = await self.channel_of(snap.info)
            if snap.info.is_arena:
                await self.open_arena(snap, channel, row.deadline, due_id, hold)
                return
            known = names(snap)
            for pairing in snap.round_pairings(number):
                if pairing.result is not None or (
                    pairing.state == "game" and pairing.intro_posted and not pairing.dms_owed
                ):
                    continue
                try:
                    if not await self.open_pairing(snap, channel, pairing, known, row.deadline, hold):
                        # An arena's new pairings make the step due afresh while it runs: the next run opens them.
                        level = logging.INFO if snap.info.is_arena else logging.WARNING
                        log.log(
                            level, "Tournament %d: round %d is opened by another process now", tournament_id, number
                        )
                        return
                except discord.HTTPException as exc:
                    log.exception(
                        "Could not open board %d of round %d in tournament %d", pairing.board, number, tournament_id
                    )
                    if isinstance(exc, discord.Forbidden) and (tournament_id, number) not in self.told_forbidden:
                        # Permissions taken away since the tournament was created: the organisers hear it once.
                        self.told_forbidden.add((tournament_id, number))
                        with contextlib.suppress(discord.HTTPException):
                            pw = await self.public(snap.info)
                            await self.say(
                                snap.info, words.t(pw, "cannot_open", name=words.escaped(snap.info.name), round=number)
                            )
                    return  # the step stays due: it is tried again when its lease ends
            await self.bot.store.finish_opening(tournament_id, number, due_id, hold.claim)

    async def open_arena(
        self, snap: TournamentSnapshot, channel: discord.TextChannel, deadline: float, due_id: int | None, hold: Hold
    ) -> None:
        """An arena's games as they are paired: ``ARENA_OPENERS`` at a time, looking again for new pairings until
        none is left (a pairing made meanwhile leaves the step due: ``finish_opening`` checks in its transaction)."""
        info = snap.info
        gate = asyncio.Semaphore(ARENA_OPENERS)

        async def one(pairing: Pairing, known: dict[int, str]) -> bool:
            async with gate:
                try:
                    return await self.open_pairing(snap, channel, pairing, known, deadline, hold)
                except discord.HTTPException:
                    log.exception("Could not open board %d of arena %d", pairing.board, info.id)
                    return False

        while True:
            waiting = [
                p for p in snap.round_pairings(1) if p.result is None and not (p.state == "game" and p.intro_posted)
            ]
            known = names(snap)
            opened = await asyncio.gather(*(one(p, known) for p in waiting))
            if not all(opened) or not await hold.still_held():
                return  # the step stays due: tried again (by whoever holds it) when its lease ends
            if await self.bot.store.finish_opening(info.id, 1, due_id, hold.claim):
                return
            snap = await self.bot.store.snapshot(info.id)
            if snap.info.status not in ("running", "paused"):
                return

    async def open_pairing(
        self,
        snap: TournamentSnapshot,
        channel: discord.TextChannel,
        pairing: Pairing,
        known: dict[int, str],
        deadline: float,
        hold: Hold,
    ) -> bool:
        """One pairing's thread, game and first board with its intro; False if the step was taken over."""
        info = snap.info
        claim = hold.claim
        if pairing.state in ("paired", "thread_pending"):
            name = words.thread_name(
                await self.public(info),
                info.name,
                info.id,
                pairing.round,
                pairing.board,
                known.get(pairing.white, "?"),
                known.get(pairing.black, "?"),
            )
            thread = None
            if pairing.state == "thread_pending":
                thread = self.made_before(channel, info.id, pairing)
            made = thread is None
            if thread is None:
                if not await self.bot.store.pairing_thread_pending(pairing.id, claim=claim):
                    return False
                crash_point("tournament-thread-pending")
                thread = await self.create_thread(channel, name)
                crash_point("tournament-thread-created")
            if not await self.bot.store.pairing_thread(pairing.id, thread.id, claim=claim):
                if made:
                    await self.remove_thread(thread.id)
                return False
        try:
            game = await self.bot.store.start_pairing_game(pairing.id)
        except UserError:
            return True  # its result was set meanwhile
        crash_point("tournament-game-created")
        if not await hold.still_held():
            return False
        await self.first_board(info, pairing, game, deadline)
        return True

    def made_before(self, channel: discord.TextChannel, tournament_id: int, pairing: Pairing) -> discord.Thread | None:
        """The thread an earlier run asked Discord for before it could record it (the gateway announced it): the
        bot's, in the tournament's channel, named for this round and board of this tournament."""
        me = self.bot.user.id if self.bot.user is not None else None
        # Named in the server's language when it was asked for, which may have changed since: any language's prefix.
        prefixes = tuple(
            words.thread_prefix(words_in(language), pairing.round, pairing.board) for language in LANGUAGES
        )
        suffix = words.thread_suffix(tournament_id)
        for thread in channel.threads:
            if thread.owner_id == me and thread.name.startswith(prefixes) and thread.name.endswith(suffix):
                return thread
        return None

    async def create_thread(self, channel: discord.TextChannel, name: str) -> discord.Thread:
        """A public thread, paced, and tried again after a rate limit discord.py did not absorb itself."""
        for attempt in range(THREAD_RETRIES):
            await asyncio.sleep(THREAD_PACE)
            try:
                return await channel.create_thread(
                    name=name, type=discord.ChannelType.public_thread, auto_archive_duration=10080
                )
            except discord.HTTPException as exc:
                if exc.status != 429 or attempt == THREAD_RETRIES - 1:
                    raise
                retry = getattr(exc.response, "headers", {}).get("Retry-After")
                await asyncio.sleep(float(retry) if retry else 1.0 * (attempt + 1))
        raise RuntimeError("unreachable")

    async def first_board(self, info: TournamentInfo, pairing: Pairing, game: GameInfo, deadline: float) -> None:
        """The game's first board with its intro (who plays whom, in which round), calling both players once.

        The intro is owed in the store from the moment the game is stored until it is posted, so a restart posts
        it (a sweep for owed boards leaves such a game's first board to this). Posted under the game's board lock,
        from the game as stored then: if its board went out meanwhile (a turn already played), the players are
        still called, without a second board.
        """
        pw = await self.public(info)
        intro = words.game_intro(pw, info, pairing.round, pairing.board, pairing.white, pairing.black, deadline)
        thread = self.bot.get_partial_messageable(game.channel_id)
        mentions = discord.AllowedMentions(users=[discord.Object(pairing.white), discord.Object(pairing.black)])
        async with board_lock(self.bot, game.id):
            stored = await self.bot.store.pairing(pairing.id)
            if stored.intro_posted:
                if stored.dms_owed:
                    await self.call_by_dm(info, pairing, game)
                return
            current = await self.bot.store.get_game(game.id)
            if not current.unannounced:
                await thread.send(content=intro, allowed_mentions=mentions)
                await self.offer_berserk(info, pairing, game)
                await self.bot.store.intro_posted(pairing.id)
                await self.call_by_dm(info, pairing, game)
                return
            out = (await board_message(self.bot, current)).quiet()
            kwargs: dict[str, Any] = {"content": intro, "files": out.discord_files(), "allowed_mentions": mentions}
            if out.embed is not None:
                kwargs["embed"] = out.embed
            if out.view is not None:
                kwargs["view"] = out.view
            message = await thread.send(**kwargs)
            # An arena game's Berserk button goes with its intro (owed, like it, until the intro is recorded).
            await self.offer_berserk(info, pairing, game)
            await self.bot.store.intro_posted(pairing.id)
            await after_board_posted(self.bot, current, message.id)
            await self.call_by_dm(info, pairing, await self.bot.store.get_game(game.id))

    async def call_by_dm(self, info: TournamentInfo, pairing: Pairing, game: GameInfo) -> None:
        """Tell each player of the pairing who asked for direct messages (``/player notify``) of the game, once: the
        messages are owed in the store from the intro on, and marked out once sent (a refusal is remembered by
        ``direct_message``; the thread's intro has called them anyway)."""
        for user_id in (pairing.white, pairing.black):
            if not (await self.bot.store.get_notify(user_id)).wants_dm:
                continue
            mine = words_in(self.bot.user_language(user_id, info.guild_id))
            text = words.t(
                mine, "game_ready_dm", name=words.escaped(info.name), round=pairing.round, link=jump_link(game)
            )
            await direct_message(self.bot, user_id, text)
        await self.bot.store.pairing_dms_sent(pairing.id)

    async def archive_rounds(self, snap: TournamentSnapshot, last: int) -> None:
        """Archive the threads of finished games up to round ``last``, so the channel's thread list shows the games
        on now (an archived thread stays readable, and a message in it, a rematch say, opens it again). In the
        background: a game's last board may still be on its way, and posting it would open the thread again."""
        for pairing in snap.pairings:
            if pairing.round > last or pairing.thread_id is None or pairing.result is None:
                continue
            if pairing.game_id is not None:
                for _ in range(ARCHIVE_WAITS):
                    game = await self.bot.store.get_game(pairing.game_id)
                    if game.status != "active" and not game.unannounced:
                        break
                    await asyncio.sleep(0.25)
                else:
                    continue
            thread = self.bot.get_channel(pairing.thread_id)
            if not isinstance(thread, discord.Thread) or thread.archived:
                continue  # archived already (discord.py keeps only active threads)
            try:
                await thread.edit(archived=True)
            except discord.HTTPException:
                log.warning("Could not archive thread %d of tournament %d", pairing.thread_id, snap.info.id)
