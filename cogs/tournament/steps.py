"""The scheduler's steps of a tournament: the timed start, check-in opening, ``remind`` (halfway through check-in,
a reminder owed to each entrant not checked in), ``notices`` (the check-in reminders and drop notices owed, sent),
``advance`` (pair and store the next round, or finish), ``play:N`` (open a round's games), ``posts`` (deliver what
the channel is owed), ``deadline:N`` (adjudicate what still runs when the round's time is up) and ``dispute:ID``
(tell the organisers of a disputed result); and, after a restart, each running tournament reconciled (what was
owed made due again).

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
from bot.i18n import words as words_in
from bot.scheduler import Hold
from bot.store.values import Claim, DueRow, NoticeKind, TournamentInfo, TournamentSnapshot
from bot.tournament_flow import Finished, last_round, plan_next, rounds_at_start
from bot.tournaments import TournamentError
from cogs._delivery import announce
from cogs._send import CANNOT_DM, direct_message
from cogs.tournament import words
from cogs.tournament.disputes import Disputing
from cogs.tournament.opening import Opening
from cogs.tournament.posts import Post, Posts
from cogs.tournament.recap import Recaps
from cogs.tournament.signup import SignUp, rejoin_view

log = logging.getLogger(__name__)


def missed_round(snap: TournamentSnapshot, user_id: int) -> int:
    """The round of a player's latest forfeited game (the no-show a notice is about), not the round stored last: the
    next round may be paired before the notice goes out."""
    lost = {"+-": ("black",), "-+": ("white",), "--": ("white", "black")}
    rounds = [
        p.round
        for p in snap.pairings
        if p.result in lost and any(getattr(p, side) == user_id for side in lost[p.result])
    ]
    return max(rounds, default=len(snap.rounds))


class Steps(SignUp, Posts, Recaps, Opening, Disputing):
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
        elif key == "remind":
            await self.bot.store.owe_checkin_reminders(tournament_id, row.id)
        elif key == "notices":
            self.bot.spawn(self.deliver_notices(tournament_id, row), name=f"tournament-{tournament_id}-notices")
        elif key == "advance" or (key == "deadline" and await self.is_arena(tournament_id)):
            await self.advance(tournament_id, row.id, row.claim)
        elif key == "play":
            self.bot.spawn(self.open_round(tournament_id, int(arg), row), name=f"tournament-{tournament_id}-open")
        elif key == "posts":
            self.bot.spawn(self.deliver_posts(tournament_id, row), name=f"tournament-{tournament_id}-posts")
        elif key == "deadline":
            await self.round_deadline(tournament_id, int(arg), row.id)
        elif key == "dispute":
            self.bot.spawn(
                self.deliver_dispute(tournament_id, int(arg), row), name=f"tournament-{tournament_id}-dispute"
            )
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

    async def advance(self, tournament_id: int, due_id: int | None, claim: Claim | None = None) -> None:
        """Pair and store the next round, or finish the tournament, once the current round is over. A step with
        nothing to do is dropped only while it is still ``claim``'s: one made due afresh meanwhile (the tournament
        resumed after this step saw it paused) stays, and runs. An arena pairs whoever is waiting, and finishes
        once its time is up and its last game played out."""
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
                    await self.bot.store.drop_due(due_id, claim)
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
                    await self.bot.store.drop_due(due_id, claim)
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
        standings and pairings and, once it is over, its recap, its end), each message recorded once out, so a retry
        posts only the rest.

        A failure (Discord refusing, failing or rate-limiting past discord.py's own retries) gives the step back to
        fall due again after a growing pause; it is done only once nothing is owed."""
        async with self.bot.scheduler.hold(due) as hold, self.lock(tournament_id):
            try:
                done = await self.post_owed(tournament_id, hold)
            except (discord.HTTPException, OSError) as exc:
                what = f"Tournament {tournament_id}: its channel post"
                await self.retry_later(self.post_failures, tournament_id, due, what, exc)
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
            if info.checkin_minutes:
                # Those dropped for not checking in are told after the start is said (``send_notices``).
                await self.bot.store.schedule_tournament(tournament_id, "notices")
        # A paused player hears it first: the notice needs nothing from the channel's posts, which may be refused.
        for entrant in snap.players:
            if entrant.absent_notice:
                if not await hold.still_held():
                    return False
                await self.tell_absent(info, entrant.user_id, missed_round(snap, entrant.user_id))
        for row in snap.rounds:
            if not row.announced:
                messages = await self.round_messages(snap, row.number)
                if not await self.send_owed(info, row.number, row.posts_done, messages, hold):
                    return False
                await self.bot.store.posts_delivered(tournament_id, "round", row.number)
                await self.refresh_announcement(info)
                self.bot.spawn(self.archive_rounds(snap, row.number - 1), name=f"tournament-{tournament_id}-archive")
            # A round's recap once it is over, before the next round's standings and pairings; the last round's goes
            # with the end (below).
            if row.recap == "owed" and not last_round(snap, row.number):
                if not await self.send_recap(info, await self.recap_messages(snap, row.number), hold):
                    return False
                await self.bot.store.recap_posted(tournament_id, row.number)
        if info.end_owed:
            end = await self.end_messages(snap)
            if snap.rounds and snap.rounds[-1].recap == "owed":
                end = await self.recap_messages(snap, snap.rounds[-1].number) + end
            if not await self.send_owed(info, None, info.posts_done, end, hold):
                return False
            await self.bot.store.posts_delivered(tournament_id, "end")
            self.bot.spawn(self.archive_rounds(snap, len(snap.rounds)), name=f"tournament-{tournament_id}-archive")
        return True

    async def tell_absent(self, info: TournamentInfo, user_id: int, number: int) -> None:
        """Tell a player a no-show paused privately, with the Rejoin button: by direct message where they asked for
        direct messages (``/player notify``), else in the channel, mentioning only them and saying only that."""
        prefs = await self.bot.store.get_notify(user_id)
        sent = False
        if prefs.wants_dm and info.is_live:
            mine = words_in(self.bot.user_language(user_id, info.guild_id))
            text = words.t(mine, "absent_dm", name=words.escaped(info.name), round=number)
            sent = await direct_message(self.bot, user_id, text, view=rejoin_view(mine, info.id, user_id))
        if not sent and info.is_live:
            pw = await self.public(info)
            await self.bot.get_partial_messageable(info.channel_id).send(
                words.t(pw, "absent_channel", who=f"<@{user_id}>", name=words.escaped(info.name)),
                view=rejoin_view(pw, info.id, user_id),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(user_id)]),
            )
        await self.bot.store.absent_notice_sent(info.id, user_id)

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

    # --- what the entrants are owed about check-in -------------------------------------------------

    async def deliver_notices(self, tournament_id: int, due: DueRow | None) -> None:
        """The ``notices`` step: each check-in reminder and drop notice owed, sent once. A member who takes direct
        messages (``/player notify``) gets one; the others are named in one channel post (several past Discord's
        limits). Each is marked sent once out, so a retry sends only the rest; a failure gives the step back to
        fall due again after a growing pause, and it is done once nothing is owed.

        It takes a lock of its own, not the tournament's (a round opens while two hundred messages go out): a run
        made due again while one is sending waits for it, then sends only what is still owed."""
        async with self.bot.scheduler.hold(due) as hold, self.notice_locks.setdefault(tournament_id, asyncio.Lock()):
            try:
                done = await self.send_notices(tournament_id, hold)
            except (discord.HTTPException, OSError) as exc:
                what = f"Tournament {tournament_id}: a check-in notice"
                await self.retry_later(self.notice_failures, tournament_id, due, what, exc)
                return
            self.notice_failures.pop(tournament_id, None)
            if done and due is not None:
                await self.bot.store.finish_posts(due.claim)

    async def send_notices(self, tournament_id: int, hold: Hold) -> bool:
        """Send the check-in notices owed; True once none is (False: the step was taken over)."""
        info = await self.bot.store.tournament(tournament_id)
        # Drop notices wait for the start to be said: they follow it (the ``posts`` step makes this step due then).
        owed = [
            n for n in await self.bot.store.owed_notices(tournament_id) if n.kind != "dropped" or not info.start_owed
        ]
        if info.status == "cancelled":
            for kind in ("reminder", "dropped"):
                await self.bot.store.notices_sent(tournament_id, kind, [n.user_id for n in owed if n.kind == kind])
            return True
        pw = await self.public(info)
        data = {"name": words.escaped(info.name), "at": str(int(info.starts_at or info.started_at or 0))}
        channel = f"<#{info.channel_id}>"
        by_post: dict[NoticeKind, list[int]] = {"reminder": [], "dropped": []}
        for notice in owed:
            if not await hold.still_held():
                return False
            prefs = await self.bot.store.get_notify(notice.user_id)
            if prefs.wants_dm and await self.notice_dm(
                notice.user_id, words.t(pw, f"{notice.kind}_dm", channel=channel, **data)
            ):
                await self.bot.store.notices_sent(tournament_id, notice.kind, [notice.user_id])
            else:
                by_post[notice.kind].append(notice.user_id)
        target = self.bot.get_partial_messageable(info.channel_id)
        for kind, user_ids in by_post.items():
            for text, named in words.mentions_posts(pw, f"{kind}_channel", user_ids, **data):
                if not await hold.still_held():
                    return False
                await target.send(
                    text,
                    allowed_mentions=discord.AllowedMentions(
                        everyone=False, roles=False, users=[discord.Object(uid) for uid in named]
                    ),
                )
                await self.bot.store.notices_sent(tournament_id, kind, named)
        return True

    async def notice_dm(self, user_id: int, text: str) -> bool:
        """A notice as a direct message: True if it went, False if the member does not take them from the bot (then
        remembered, as ``direct_message`` does); any other failure is raised, for the step to try again."""
        try:
            user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
            await user.send(text, allowed_mentions=discord.AllowedMentions.none())
        except discord.Forbidden as exc:
            if exc.code == CANNOT_DM:
                await self.bot.store.set_notify(user_id, dm_blocked=True)
            return False
        except discord.NotFound:
            return False
        return True

    async def send_recap(self, info: TournamentInfo, messages: list[Post], hold: Hold) -> bool:
        """Post a round's recap (one message, or none when the round has nothing to say); False if the step was
        lost."""
        for message in messages:
            if not await hold.still_held():
                return False
            await self.bot.get_partial_messageable(info.channel_id).send(
                **message, allowed_mentions=discord.AllowedMentions.none()
            )
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
            if any(p.result is None and (p.state != "game" or not p.intro_posted or p.dms_owed) for p in pairings):
                await self.bot.store.owe_step(tournament_id, f"play:{row.number}")
        # Without waiting for the lease of an `advance` step the stopped process had taken.
        await self.advance(tournament_id, None)
