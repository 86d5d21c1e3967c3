"""The scheduler's steps of a tournament: the timed start, check-in opening, ``advance`` (pair and store the next
round, or finish), ``play:N`` (open a round's games), ``posts`` (deliver what the channel is owed) and
``deadline:N`` (adjudicate what still runs when the round's time is up); and, after a restart, each running
tournament reconciled (what was owed made due again).

The flow lives in the store's rows and the scheduler's due rows, so a restart at any moment picks it up. A game's
end records its pairing's result in the same transaction, and the round's last result makes ``advance`` fall due.
"""

from __future__ import annotations

import asyncio
import logging

import discord
from discord.ext import commands

from bot.crashpoints import crash_point
from bot.errors import UserError
from bot.scheduler import Hold
from bot.store.values import DueRow, TournamentInfo, TournamentSnapshot
from bot.tournament_flow import Finished, plan_next, rounds_at_start
from bot.tournaments import TournamentError
from cogs._delivery import RETRY_DELAYS, announce
from cogs.tournament import words
from cogs.tournament.opening import Opening
from cogs.tournament.posts import Post, Posts
from cogs.tournament.signup import SignUp

log = logging.getLogger(__name__)


class Steps(SignUp, Posts, Opening):
    """What the scheduler runs for a tournament (its ``tournament`` handler is ``on_due``)."""

    async def on_due(self, row: DueRow) -> None:
        tournament_id = row.tournament_id
        if tournament_id is None:
            return
        key, _, arg = row.key.partition(":")
        if key == "start":
            await self.timed_start(tournament_id, row.id)
        elif key == "checkin":
            await self.checkin_opens(tournament_id, row.id)
        elif key == "advance" or (key == "deadline" and await self.is_arena(tournament_id)):
            await self.advance(tournament_id, row.id)
        elif key == "play":
            self.bot.spawn(self.open_round(tournament_id, int(arg), row), name=f"tournament-{tournament_id}-open")
        elif key == "posts":
            self.bot.spawn(self.deliver_posts(tournament_id, row), name=f"tournament-{tournament_id}-posts")
        elif key == "deadline":
            await self.round_deadline(tournament_id, int(arg), row.id)
        else:
            log.error("Unknown tournament step %r", row.key)
            await self.bot.store.drop_due(row.id)

    async def timed_start(self, tournament_id: int, due_id: int) -> None:
        info = await self.bot.store.tournament(tournament_id)
        if info.status != "signup":
            await self.bot.store.drop_due(due_id)
            return
        try:
            started = await self.bot.store.start_tournament(
                info.id, actor_id=0, rounds_for=lambda n: rounds_at_start(info, n), due_id=due_id
            )
        except UserError as exc:
            # Said before it is cancelled (which ends its steps): a failed post leaves the start step due, to be
            # tried again when its lease ends.
            pw = await self.public(info)
            await self.say(info, words.t(pw, "not_started", name=words.escaped(info.name), reason=exc.worded(pw)))
            cancelled = await self.bot.store.set_tournament_status(
                info.id, "cancelled", actor_id=0, allowed=("signup",)
            )
            await self.refresh_announcement(cancelled)
            return
        await self.refresh_announcement(started)

    async def checkin_opens(self, tournament_id: int, due_id: int) -> None:
        """Check-in opens: said in the channel, then the step is done (a failed post leaves it due, to be tried
        again when its lease ends)."""
        info = await self.bot.store.tournament(tournament_id)
        if info.status == "signup":
            at = str(int(info.starts_at or 0))
            await self.say(info, words.t(await self.public(info), "checkin_open", name=words.escaped(info.name), at=at))
        await self.bot.store.drop_due(due_id)
        if info.status == "signup":
            await self.refresh_announcement(info)

    async def is_arena(self, tournament_id: int) -> bool:
        return (await self.bot.store.tournament(tournament_id)).is_arena

    async def advance(self, tournament_id: int, due_id: int | None) -> None:
        """Pair and store the next round, or finish the tournament, once the current round is over. An arena pairs
        whoever is waiting, and finishes once its time is up and its last game played out."""
        info = await self.bot.store.tournament(tournament_id)
        if info.is_arena:
            if await self.arena_step(info, due_id):
                async with self.lock(tournament_id):
                    snap = await self.bot.store.snapshot(tournament_id)
                    if snap.info.status == "running":
                        await self.finish(snap)
                        self.leaderboard_changed(tournament_id)
            return
        async with self.lock(tournament_id):
            snap = await self.bot.store.snapshot(tournament_id)
            if snap.info.status != "running":
                if due_id is not None:
                    await self.bot.store.drop_due(due_id)
                return
            try:
                plan = await asyncio.to_thread(plan_next, snap)
            except TournamentError as exc:
                # Nobody left who may meet (a small field, many rounds): the tournament ends with the rounds played.
                log.warning("Tournament %d: the next round cannot be paired (%s); finishing", tournament_id, exc)
                pw = await self.public(snap.info)
                await self.say(
                    snap.info,
                    words.t(pw, "cannot_pair", name=words.escaped(snap.info.name), round=len(snap.rounds) + 1),
                )
                await self.finish(snap)
                return
            if plan is None:
                if due_id is not None:
                    await self.bot.store.drop_due(due_id)
                return
            if isinstance(plan, Finished):
                await self.finish(snap)
                return
            crash_point("tournament-round-planned")
            # Stored with the posts it owes (its standings and pairings) and the step that opens its games.
            if not await self.bot.store.save_round(tournament_id, plan, due_id=due_id):
                return
            crash_point("tournament-round-saved")

    # --- what the channel is owed ----------------------------------------------------------------

    async def deliver_posts(self, tournament_id: int, due: DueRow | None) -> None:
        """The ``posts`` step: everything the tournament owes its channel, in order (its start, each round's
        standings and pairings, its end), each message recorded once out, so a retry posts only the rest.

        A failure (Discord refusing, failing or rate-limiting past discord.py's own retries) gives the step back to
        fall due again after a growing pause; it is done only once nothing is owed."""
        async with self.bot.scheduler.hold(due) as hold, self.lock(tournament_id):
            try:
                done = await self.post_owed(tournament_id, hold)
            except (discord.HTTPException, OSError) as exc:
                failures = self.post_failures.get(tournament_id, 0)
                self.post_failures[tournament_id] = failures + 1
                pause = RETRY_DELAYS[min(failures, len(RETRY_DELAYS) - 1)]
                log.warning(
                    "Tournament %d: its channel post failed (%s); trying again in %.0f s", tournament_id, exc, pause
                )
                if due is not None:
                    await self.bot.store.retry_due(due.claim, self.bot.store.now() + pause)
                return
            self.post_failures.pop(tournament_id, None)
            if done and due is not None:
                await self.bot.store.finish_posts(due.claim)

    async def post_owed(self, tournament_id: int, hold: Hold) -> bool:
        """Post what the tournament owes its channel; True once nothing is owed (False: the step was taken over)."""
        snap = await self.bot.store.snapshot(tournament_id)
        info = snap.info
        if info.start_owed:
            if not await self.send_owed(info, None, info.posts_done, await self.start_messages(snap), hold):
                return False
            await self.bot.store.posts_delivered(tournament_id, "start")
        for row in snap.rounds:
            if row.announced:
                continue
            messages = await self.round_messages(snap, row.number)
            if not await self.send_owed(info, row.number, row.posts_done, messages, hold):
                return False
            await self.bot.store.posts_delivered(tournament_id, "round", row.number)
            await self.refresh_announcement(info)
            self.bot.spawn(self.archive_rounds(snap, row.number - 1), name=f"tournament-{tournament_id}-archive")
        if info.end_owed:
            if not await self.send_owed(info, None, info.posts_done, await self.end_messages(snap), hold):
                return False
            await self.bot.store.posts_delivered(tournament_id, "end")
            self.bot.spawn(self.archive_rounds(snap, len(snap.rounds)), name=f"tournament-{tournament_id}-archive")
        return True

    async def send_owed(
        self, info: TournamentInfo, number: int | None, done: int, messages: list[Post], hold: Hold
    ) -> bool:
        """Post ``messages`` after the first ``done`` (out already), recording each; False if the step was lost."""
        channel = self.bot.get_partial_messageable(info.channel_id)
        for i, message in enumerate(messages):
            if i < done:
                continue
            if not await hold.still_held():
                return False
            await channel.send(**message, allowed_mentions=discord.AllowedMentions.none())
            await self.bot.store.posts_progress(info.id, number, i + 1)
        return True

    async def round_deadline(self, tournament_id: int, number: int, due_id: int) -> None:
        """The round's time is up: games still on are adjudicated by the clock, games never opened score nothing."""
        async with self.lock(tournament_id):
            snap = await self.bot.store.snapshot(tournament_id)
            if snap.info.status == "paused":
                # Held while paused: looked at again a minute later, applied once the tournament resumes.
                await self.bot.store.schedule_tournament(tournament_id, f"deadline:{number}", self.bot.store.now() + 60)
                return
            if snap.info.status != "running":
                await self.bot.store.drop_due(due_id)
                return
            ended = []
            for pairing in snap.round_pairings(number):
                if (
                    pairing.game_id is not None
                    and pairing.result is None
                    and await self.bot.store.adjudicate(pairing.game_id) is not None
                ):
                    ended.append(pairing.game_id)
            await self.bot.store.close_round(tournament_id, number, due_id)
        for game_id in ended:
            self.bot.spawn(announce(self.bot, game_id), name=f"announce-{game_id}")

    async def finish(self, snap: TournamentSnapshot) -> None:
        """The last round is over: it is finished, its final standings (or bracket), the podium and the exports owed
        in the same transaction (the ``posts`` step posts them)."""
        finished = await self.bot.store.set_tournament_status(
            snap.info.id, "finished", actor_id=0, allowed=("running",)
        )
        await self.refresh_announcement(finished)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        """After a restart: finish what a running tournament was doing (posts owed, a round's games half opened)."""
        for info in await self.bot.store.live_tournaments():
            if info.guild_id == guild.id:
                self.bot.spawn(self.reconcile(info.id), name=f"tournament-{info.id}-reconcile")

    async def reconcile(self, tournament_id: int) -> None:
        """Posts owed, games not opened (or not introduced) yet, and a round that ended while the bot was away: each
        done once. The posts and the games are the scheduler's steps, made due if they are not already (so a step
        another process holds is left to it)."""
        await self.bot.store.owe_posts(tournament_id)
        snap = await self.bot.store.snapshot(tournament_id)
        for row in snap.rounds:
            pairings = snap.round_pairings(row.number)
            if any(p.result is None and (p.state != "game" or not p.intro_posted) for p in pairings):
                await self.bot.store.owe_step(tournament_id, f"play:{row.number}")
        # Without waiting for the lease of an `advance` step the stopped process had taken.
        await self.advance(tournament_id, None)
