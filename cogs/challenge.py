"""Challenges: issuing one, accepting or declining it with buttons, and expiring the forgotten ones.

A challenge is a message with two buttons whose custom ids carry the game id, so they keep working
after a restart. Accepting a ``thread`` challenge opens a public thread off the challenge message
and the game is played there; a ``here`` challenge is played in the channel itself.

Accepting spans Discord and the database (the thread, then the game), so it is restartable from any
point. A thread started from a message has the message's id, and Discord makes at most one per
message: an accept that was cut short (the process killed, the database busy) leaves a thread that
the next press of Accept finds and uses. A challenge that closes unaccepted takes its thread with it.
A challenge to the AI is accepted the moment it is made, so one still open at start-up was cut
short: it starts in its thread if that was made, or is withdrawn.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from functools import partial
from typing import Any, Literal

import discord
from discord.ext import commands

from bot.client import VeletasBot
from bot.crashpoints import crash_point
from bot.errors import (
    ChallengeClosed,
    ChallengeExists,
    NotAParticipant,
    OpenChallenge,
    TooManyChallenges,
    UserError,
)
from bot.i18n import Words
from bot.ids import id_or_zero
from bot.posting import watched
from bot.store.checks import check_can_answer
from bot.store.errors import StoreBusy
from bot.store.values import DueRow, GameInfo
from cogs._board import board_message
from cogs._clock_words import describe_control, parse_time
from cogs._delivery import after_board_posted, hand_to_ai, resume, show_typing
from cogs._lookup import NamesAGame, game_here, member_here
from cogs._names import name_of
from cogs._permissions import THREAD_TYPES, board_refused, check_here, check_thread, thread_refused
from cogs._send import Outgoing, bot_of, mention, respond, send_response, send_to_channel
from cogs._tables import table_for
from cogs._words import public_words
from cogs.guided import PREFIX, custom_id

log = logging.getLogger(__name__)

THREAD_ALREADY_CREATED = 160004  # Discord's error code when a message already has a thread
DEFAULT_AI_LEVEL = 3
LEVEL_WITHOUT_AI = "challenge.level_without_ai"
AI_UNAVAILABLE = "challenge.ai_unavailable"
BUSY_ACCEPT = "challenge.busy_accept"
BUSY_AI = "challenge.busy_ai"
AI_NOT_STARTED = "challenge.ai_not_started"
THREAD_GONE = "challenge.thread_gone"


def describe(w: Words, info: GameInfo) -> str:
    """The game and its settings: ``Veletas (standard board, current rules)``."""
    table = table_for(info)
    return w("challenge.describe", game=table.title, settings=table.settings_text(w, info.settings))


def headline(w: Words, info: GameInfo) -> str:
    game = describe(w, info)
    if info.proposed_by is not None and info.proposed_by != info.challenger_id:
        return w(
            "challenge.rematch_headline",
            proposer=mention(info.proposed_by),
            challenger=mention(info.challenger_id),
            game=game,
        )
    if info.opponent_id is None:
        return w("challenge.open_headline", challenger=mention(info.challenger_id), game=game)
    return w(
        "challenge.headline", challenger=mention(info.challenger_id), opponent=mention(info.opponent_id), game=game
    )


def challenge_text(w: Words, info: GameInfo) -> str:
    parts = [
        w("challenge.in_thread" if info.where == "thread" else "challenge.in_channel", headline=headline(w, info)),
        w("challenge.rated" if info.rated else "challenge.casual"),
        w("challenge.clock", clock=describe_control(w, info.time_control)),
    ]
    if info.opponent_id is None:
        parts.append(w("challenge.anyone"))
    if info.expires_at is not None:
        stamp = int(info.expires_at.timestamp())
        parts.append(w("challenge.expires", when=f"<t:{stamp}:R>", at=f"<t:{stamp}:t>"))
    text = parts[0]
    for part in parts[1:]:
        text = w("challenge.sentences", first=text, rest=part)
    return text


class AcceptButton(
    NamesAGame, discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"{PREFIX}:accept:(?P<game>[0-9]+)"
):
    where = "challenge"  # on the challenge message, in the channel the challenge was made in

    def __init__(self, game: GameInfo | str, game_id: int, label: str = "Accept") -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.success, custom_id=custom_id(game, "accept", game_id)
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> AcceptButton:
        return cls(match["prefix"], id_or_zero(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, accept(interaction, self.game_id))


class DeclineButton(
    NamesAGame, discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"{PREFIX}:decline:(?P<game>[0-9]+)"
):
    """Declines a challenge for the one challenged, and withdraws it for the challenger.

    An open challenge shows it as Withdraw: it is for anyone to take, so nobody else may turn it down.
    """

    where = "challenge"

    def __init__(self, game: GameInfo | str, game_id: int, label: str = "Decline") -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.secondary, custom_id=custom_id(game, "decline", game_id)
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> DeclineButton:
        return cls(match["prefix"], id_or_zero(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, decline(interaction, self.game_id))


def ai_intro(w: Words, info: GameInfo) -> str:
    return w("challenge.ai_intro", challenger=mention(info.challenger_id), game=describe(w, info), level=info.ai_level)


def link(guild_id: int, ref: OpenChallenge) -> str:
    """A link to a challenge message (or its channel, when the message is not known); links ping nobody."""
    if ref.message_id is None:
        return f"<#{ref.channel_id}>"
    return f"https://discord.com/channels/{guild_id}/{ref.channel_id}/{ref.message_id}"


def limit_refusal(guild_id: int, user_id: int, opponent_id: int | None, error: UserError) -> UserError:
    """The words for a challenge over the limits; the store says which challenges stand in the way."""
    if isinstance(error, ChallengeExists):
        where = link(guild_id, error.existing)
        if error.challenger_id == user_id:
            return UserError("challenge.already_challenged", who=mention(opponent_id), where=where)
        return UserError("challenge.challenged_you", who=mention(opponent_id), where=where)
    if isinstance(error, TooManyChallenges):
        links = [link(guild_id, ref) for ref in error.open_challenges]
        return UserError("challenge.too_many", count=error.limit, links=links)
    return error


def challenge_view(w: Words, info: GameInfo) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(AcceptButton(info, info.id, w("challenge.accept.label")))
    decline_label = w("challenge.decline.label" if info.answerer is not None else "challenge.withdraw.label")
    view.add_item(DeclineButton(info, info.id, decline_label))
    return view


async def accept(interaction: discord.Interaction[Any], game_id: int) -> None:
    bot = bot_of(interaction)
    info = await bot.store.get_game(game_id)
    # Refused before a thread is made; the store checks again atomically when accepting.
    check_can_answer(info, interaction.user.id, bot.clock())
    # Permissions may have changed since the challenge was made; a game whose board cannot be posted
    # would be stuck, so the accept is refused before a thread or the store is touched.
    if info.where == "thread":
        check_thread(interaction)
    else:
        check_here(interaction)
    # Thread creation and the first render can take a moment; the click is acknowledged at once.
    await interaction.response.defer()
    thread: discord.Thread | None = None
    w = await public_words(bot, info.guild_id)
    name = thread_name(bot, w, info, interaction.user)
    if info.where == "thread" and interaction.message is not None:
        thread = await challenge_thread(bot, interaction, interaction.message, name)
        crash_point("thread-created")
    try:
        started = await bot.store.accept_challenge(
            game_id, interaction.user.id, channel_id=thread.id if thread is not None else info.origin_channel_id
        )
    except StoreBusy as exc:
        # Nothing was written; the thread stays for the next press of Accept, which finds and uses it.
        raise UserError(BUSY_ACCEPT) from exc
    except UserError:
        if thread is not None:
            await drop_orphan_thread(bot, game_id, thread)
        raise
    crash_point("game-accepted")
    if thread is not None and thread.name != name:
        # The thread was made by an earlier press (someone else's, or one cut short): name the real players.
        await _rename_quietly(thread, name)
    place = w("challenge.played_in", thread=thread.mention) if thread is not None else ""
    accepted = w("challenge.accepted_by", who=interaction.user.mention)
    await interaction.edit_original_response(
        content=w("challenge.closed_line", headline=headline(w, info), verdict=f"**{accepted}**{place}"),
        view=None,
        allowed_mentions=discord.AllowedMentions.none(),
    )
    if thread is None:
        # In the background: Discord allows a thread two renames in ten minutes, and a 429 must not hold the board.
        bot.spawn(rename_game_thread(bot, interaction.channel, name), name=f"rename-thread-{game_id}")
        await post_first_board(bot, started, interaction)
    else:
        await post_first_board_in_thread(bot, started, interaction, thread)


async def post_first_board(bot: VeletasBot, info: GameInfo, interaction: discord.Interaction[Any] | None) -> None:
    w = await public_words(bot, info.guild_id)
    out = await board_message(bot, info, note=w("challenge.game_begins"))
    if interaction is not None:
        message_id = await send_response(interaction, out)
    else:
        try:
            with watched(partial(show_typing, bot, info.channel_id)):
                message_id = await send_to_channel(bot, info.channel_id, out)
        except (discord.Forbidden, discord.NotFound):
            raise
        except (discord.HTTPException, OSError) as exc:
            # Discord failing, not refusing: the game is stored, and its board goes out on the retry schedule.
            log.warning("Game %d: posting its first board failed (%s); retrying", info.id, exc)
            bot.spawn(resume(bot, info.id), name=f"resume-{info.id}")
            return
    await after_board_posted(bot, info, message_id)


async def post_first_board_in_thread(
    bot: VeletasBot, info: GameInfo, interaction: discord.Interaction[Any], thread: discord.Thread
) -> None:
    """A manager may take a permission away between the check and this post; say so, not sorry."""
    try:
        await post_first_board(bot, info, None)
    except discord.Forbidden as exc:
        raise board_refused(interaction, thread) from exc


def thread_name(bot: VeletasBot, w: Words, info: GameInfo, accepter: discord.abc.User) -> str:
    return w(
        "challenge.thread_name",
        game=table_for(info).label(info),
        first=name_of(bot, info.challenger_id),
        second=accepter.display_name,
    )[:100]


async def find_thread(bot: VeletasBot, guild_id: int, thread_id: int, *, fetch: bool) -> discord.Thread | None:
    """The thread with this id: from the cache (the gateway announces every thread), else asked of Discord."""
    guild = bot.get_guild(guild_id)
    thread = guild.get_thread(thread_id) if guild is not None else None
    if thread is not None or not fetch:
        return thread
    try:
        channel = await bot.fetch_channel(thread_id)
    except (discord.NotFound, discord.Forbidden):
        return None
    return channel if isinstance(channel, discord.Thread) else None


async def challenge_thread(
    bot: VeletasBot,
    interaction: discord.Interaction[Any],
    message: discord.Message | discord.PartialMessage | discord.InteractionMessage,
    name: str,
) -> discord.Thread:
    """The thread off the challenge message: the one an earlier accept made, or a new one.

    A thread started from a message has the message's id, so an accept cut short (killed, or refused
    by a busy database) is found again and used instead of wedging every later press on Discord's
    "a thread already exists" refusal.
    """
    assert interaction.guild_id is not None
    existing = await find_thread(bot, interaction.guild_id, message.id, fetch=False)
    if existing is not None:
        return existing
    try:
        return await message.create_thread(name=name)
    except discord.Forbidden as exc:
        raise thread_refused(interaction) from exc
    except discord.HTTPException as exc:
        if exc.code != THREAD_ALREADY_CREATED:
            raise
        # Made a moment ago by another press, whose gateway event has not arrived yet.
        found = await find_thread(bot, interaction.guild_id, message.id, fetch=True)
        if found is None:
            raise UserError(THREAD_GONE) from exc
        return found


async def drop_orphan_thread(bot: VeletasBot, game_id: int, thread: discord.Thread) -> None:
    """After a refused accept: keep the thread if a game is played in it or the challenge is still open
    (a later accept uses it), else remove it so no thread is left pointing at nothing."""
    try:
        current: GameInfo | None = await bot.store.get_game(game_id)
    except UserError:
        current = None
    if current is not None and (current.status == "challenge" or current.channel_id == thread.id):
        return
    await remove_thread(thread)


async def drop_challenge_thread(bot: VeletasBot, info: GameInfo) -> None:
    """A challenge closed unaccepted (declined, withdrawn, expired): remove the thread a cut-short accept left.

    Only the cache is read: the gateway announced any such thread, so no request is spent on the
    many challenges that never had one.
    """
    if info.where != "thread" or info.challenge_message_id is None or info.status in ("challenge", "active"):
        return
    thread = await find_thread(bot, info.guild_id, info.challenge_message_id, fetch=False)
    if thread is not None and thread.id != info.channel_id:
        await remove_thread(thread)


async def remove_thread(thread: discord.Thread) -> None:
    """Delete an unused thread; without Manage Threads (not among the bot's invite permissions), archive it."""
    try:
        await thread.delete()
        return
    except discord.NotFound:
        return
    except discord.Forbidden:
        log.debug("Not allowed to delete thread %s; archiving it instead", thread.id)
    except discord.HTTPException:
        log.warning("Could not delete thread %s", thread.id, exc_info=True)
        return
    try:
        await thread.edit(archived=True)
    except discord.HTTPException:
        log.warning("Could neither delete nor archive unused thread %s", thread.id)


async def rename_game_thread(bot: VeletasBot, channel: object, name: str) -> None:
    """A game started in the thread of an earlier one (a rematch): the bot's thread takes the new game's name."""
    me = bot.user.id if bot.user is not None else None
    if isinstance(channel, discord.Thread) and channel.owner_id == me and channel.name != name:
        await _rename_quietly(channel, name)


async def _rename_quietly(thread: discord.Thread, name: str) -> None:
    try:
        await thread.edit(name=name)
    except discord.HTTPException:
        log.warning("Could not rename thread %s", thread.id)


async def decline(interaction: discord.Interaction[Any], game_id: int) -> None:
    bot = bot_of(interaction)
    user = interaction.user.id
    info = await bot.store.get_game(game_id)
    if info.status == "challenge" and user == info.proposer:
        info = await bot.store.withdraw_challenge(game_id, user)
        verdict_key = "challenge.withdrawn_by"
    elif info.status == "challenge" and info.opponent_id is None:
        raise NotAParticipant("challenge.open_no_decline")
    else:
        check_can_answer(info, user, bot.clock())
        info = await bot.store.decline_challenge(game_id, user)
        verdict_key = "challenge.declined_by"
    w = await public_words(bot, info.guild_id)
    verdict = w(verdict_key, who=interaction.user.mention)
    await interaction.response.edit_message(
        content=w("challenge.struck", headline=headline(w, info), verdict=verdict),
        view=None,
        allowed_mentions=discord.AllowedMentions.none(),
    )
    await drop_challenge_thread(bot, info)


class ChallengeCog(commands.Cog, name="Challenges"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot
        # AI challenges this process is starting right now, which start-up recovery must leave alone.
        self.starting: set[int] = set()

    async def cog_load(self) -> None:
        self.bot.scheduler.handlers["expiry"] = self.on_expiry

    async def issue(
        self,
        interaction: discord.Interaction[VeletasBot],
        *,
        game: str,
        settings: dict[str, str],
        opponent: discord.Member | discord.User | None,
        where: Literal["thread", "here"],
        level: int | None,
        time: str | None = None,
        rated: bool | None = None,
    ) -> None:
        """A challenge to a member, anyone, or the AI, for any game: each game's ``challenge`` command calls this."""
        assert interaction.guild_id is not None and interaction.channel_id is not None
        if opponent is not None:
            opponent = member_here(interaction, opponent)
        me = self.bot.user
        against_ai = opponent is not None and me is not None and opponent.id == me.id
        if opponent is not None and opponent.id == interaction.user.id:
            raise UserError("refusal.challenge_yourself")
        if opponent is not None and opponent.bot and not against_ai:
            raise UserError("challenge.bot_opponent", who=opponent.mention, game=table_for(game).title)
        if against_ai and self.bot.ai is None:
            raise UserError(AI_UNAVAILABLE)
        if level is not None and not against_ai:
            raise UserError(LEVEL_WITHOUT_AI)
        channel = interaction.channel
        w = await public_words(self.bot, interaction.guild_id)
        note = ""
        if where == "thread" and channel is not None and channel.type in THREAD_TYPES:
            where, note = "here", w("challenge.already_thread")
        # A game here is refused at once if its boards could not be posted; a thread challenge to a
        # member is checked when accepted (that is when the thread is made), one to the AI right now.
        if where == "here":
            check_here(interaction)
        elif against_ai:
            check_thread(interaction)
        server = await self.bot.store.get_guild_settings(interaction.guild_id)
        control = parse_time(time, server.default_control(), inactivity_days=server.inactivity_days)
        deadline = self.bot.clock() + dt.timedelta(minutes=self.bot.settings.challenge_minutes)
        opponent_id = opponent.id if opponent is not None else None
        try:
            info = await self.bot.store.create_challenge(
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                challenger_id=interaction.user.id,
                opponent_id=opponent_id,
                game=game,
                settings=settings,
                where=where,
                expires_at=deadline,
                ai_level=(level or DEFAULT_AI_LEVEL) if against_ai else None,
                max_open=self.bot.settings.max_open_challenges,
                time_control=control,
                rated=server.rated if rated is None else rated,
            )
        except (ChallengeExists, TooManyChallenges) as exc:
            raise limit_refusal(interaction.guild_id, interaction.user.id, opponent_id, exc) from exc
        if against_ai:
            self.starting.add(info.id)
            try:
                await self.start_ai_game(interaction, info)
            finally:
                self.starting.discard(info.id)
            return
        out = Outgoing(
            content=challenge_text(w, info) + note,
            view=challenge_view(w, info),
            mention=info.opponent_id,
        )
        message_id = await send_response(interaction, out)
        if message_id is not None:
            await self._remember_message(info, message_id)

    async def rematch(self, interaction: discord.Interaction[VeletasBot], game_id: int) -> None:
        """The Rematch button of a finished game: the same game, settings and clock, the seats swapped.

        Between members it is a challenge the other player accepts, played where the finished game was;
        against the AI it starts at once (the AI takes the same seat again: it is never the challenger).
        """
        assert interaction.guild_id is not None and interaction.channel_id is not None
        info = await game_here(interaction, game_id)
        user = interaction.user.id
        if info.status != "finished":
            raise UserError("challenge.rematch_unfinished")
        if await self.bot.store.in_tournament(info.id):
            raise UserError("challenge.rematch_tournament")
        if user not in info.participants:
            raise NotAParticipant("challenge.rematch_players")
        me = self.bot.user.id if self.bot.user is not None else None
        if me is not None and me in info.participants:
            if interaction.guild is None:
                raise UserError("challenge.rematch_in_server")
            await self.issue(
                interaction,
                game=info.kind.name,
                settings=dict(info.settings),
                opponent=interaction.guild.me,
                where="here",
                level=info.ai_level,
                time=info.time_control.text,
            )
            return
        check_here(interaction)
        assert info.opponent_id is not None
        deadline = self.bot.clock() + dt.timedelta(minutes=self.bot.settings.challenge_minutes)
        try:
            new = await self.bot.store.create_challenge(
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                challenger_id=info.opponent_id,
                opponent_id=info.challenger_id,
                where="here",
                expires_at=deadline,
                game=info.kind.name,
                settings=dict(info.settings),
                max_open=self.bot.settings.max_open_challenges,
                time_control=info.time_control,
                proposed_by=user,
                rated=info.rated,
            )
        except (ChallengeExists, TooManyChallenges) as exc:
            other = next(p for p in info.participants if p != user)
            raise limit_refusal(interaction.guild_id, user, other, exc) from exc
        w = await public_words(self.bot, interaction.guild_id)
        out = Outgoing(content=challenge_text(w, new), view=challenge_view(w, new), mention=new.answerer)
        message_id = await send_response(interaction, out)
        if message_id is not None:
            await self._remember_message(new, message_id)

    async def _remember_message(self, info: GameInfo, message_id: int) -> None:
        """Keep the challenge message's id, for expiry to edit it and for a cut-short accept to find its thread.

        The challenge is already made and its buttons carry the game id, so a busy store here only
        costs that: it is logged, not told to the player as if the challenge had failed.
        """
        try:
            await self.bot.store.set_challenge_message(info.id, message_id)
        except StoreBusy:
            log.warning("The store was busy; challenge %d does not know its message %d", info.id, message_id)

    async def start_ai_game(self, interaction: discord.Interaction[VeletasBot], info: GameInfo) -> None:
        """The AI accepts at once; the game then goes on like any other, the AI acting when it is its turn."""
        assert self.bot.user is not None
        w = await public_words(self.bot, info.guild_id)
        intro = ai_intro(w, info)
        if info.where == "here":
            try:
                started = await self.bot.store.accept_challenge(
                    info.id, self.bot.user.id, channel_id=info.origin_channel_id
                )
            except StoreBusy as exc:
                await self._withdraw_quietly(info)
                raise UserError(BUSY_AI) from exc
            label = table_for(started).label(started)
            assert self.bot.user is not None
            name = w(
                "challenge.ai_thread_name",
                game=label,
                first=interaction.user.display_name,
                ai=self.bot.user.display_name,
            )[:100]
            self.bot.spawn(rename_game_thread(self.bot, interaction.channel, name), name=f"rename-thread-{info.id}")
            message_id, _ = await respond(interaction, board_message(self.bot, started, note=intro))
            await after_board_posted(self.bot, started, message_id)
            return
        callback = await interaction.response.send_message(intro, allowed_mentions=discord.AllowedMentions.none())
        if callback.message_id is None:
            raise RuntimeError("Discord did not say which message answered the challenge")
        await self._remember_message(info, callback.message_id)
        channel = interaction.channel
        message: discord.PartialMessage | discord.InteractionMessage
        if isinstance(channel, discord.TextChannel):
            message = channel.get_partial_message(callback.message_id)
        else:
            message = await interaction.original_response()
        # Thread names are read in the channel list by everyone, where "me" would mean nobody in particular.
        label = table_for(info).label(info)
        name = w(
            "challenge.ai_thread_name", game=label, first=interaction.user.display_name, ai=self.bot.user.display_name
        )
        try:
            thread = await message.create_thread(name=name[:100])
        except discord.HTTPException as exc:
            # Permissions taken away since the check above: leave neither the intro nor an open challenge.
            await self._abandon_ai_challenge(interaction, info)
            if isinstance(exc, discord.Forbidden):
                raise thread_refused(interaction) from exc
            raise
        crash_point("thread-created")
        try:
            started = await self.bot.store.accept_challenge(info.id, self.bot.user.id, channel_id=thread.id)
        except StoreBusy as exc:
            await self._abandon_ai_challenge(interaction, info, thread)
            raise UserError(BUSY_AI) from exc
        except UserError:
            await drop_orphan_thread(self.bot, info.id, thread)
            raise
        await post_first_board_in_thread(self.bot, started, interaction, thread)

    async def _abandon_ai_challenge(
        self, interaction: discord.Interaction[VeletasBot], info: GameInfo, thread: discord.Thread | None = None
    ) -> None:
        """Undo what a failed AI start did so far: the stored challenge is withdrawn, the intro and thread removed.

        Each step is best effort: a challenge that cannot be withdrawn now (the store still busy)
        expires, and its thread goes with it then.
        """
        await self._withdraw_quietly(info)
        if thread is not None:
            await drop_orphan_thread(self.bot, info.id, thread)
        try:
            await interaction.delete_original_response()
        except discord.HTTPException:
            log.warning("Could not remove the intro of AI challenge %d", info.id)

    async def _withdraw_quietly(self, info: GameInfo) -> None:
        try:
            await self.bot.store.withdraw_challenge(info.id, info.challenger_id)
        except (UserError, StoreBusy):
            # Still open, it expires (its thread goes with it) or is finished at the next start.
            log.warning("AI challenge %d could not be withdrawn after its start failed", info.id)

    async def finish_interrupted_ai_challenges(self, guild: discord.Guild) -> None:
        """Start, or withdraw, the AI challenges a restart cut short; none may stay open forever.

        The AI accepts the moment it is challenged, so a challenge to it still open here was
        interrupted: after its thread was made the game starts there now (a game here starts in
        its channel); with no thread, or no AI any more, it is withdrawn and its intro says so.
        """
        for info in await self.bot.store.open_ai_challenges(guild.id):
            if info.id in self.starting:
                continue
            try:
                await self._finish_ai_challenge(info)
            except Exception:
                log.exception("Could not finish or withdraw the interrupted AI challenge %d", info.id)

    async def _finish_ai_challenge(self, info: GameInfo) -> None:
        me = self.bot.user
        assert me is not None
        channel_id: int | None = None
        if self.bot.ai is not None and info.where == "here":
            channel_id = info.origin_channel_id
        elif self.bot.ai is not None and info.challenge_message_id is not None:
            thread = await find_thread(self.bot, info.guild_id, info.challenge_message_id, fetch=True)
            channel_id = thread.id if thread is not None else None
        if channel_id is not None:
            try:
                started = await self.bot.store.accept_challenge(info.id, me.id, channel_id=channel_id)
            except UserError as exc:
                log.info("Interrupted AI challenge %d cannot start (%s); withdrawing it", info.id, exc)
            else:
                log.info("Interrupted AI challenge %d started in channel %d", info.id, channel_id)
                await post_first_board(self.bot, started, None)
                return
        try:
            closed = await self.bot.store.withdraw_challenge(info.id, info.challenger_id)
        except ChallengeClosed:
            return
        log.info("Interrupted AI challenge %d withdrawn", info.id)
        await drop_challenge_thread(self.bot, closed)
        if closed.challenge_message_id is not None:
            await self._strike(closed, AI_NOT_STARTED)

    async def _strike(self, info: GameInfo, verdict_key: str) -> None:
        """Strike through a challenge message that can no longer be answered, and remove its buttons."""
        assert info.challenge_message_id is not None
        w = await public_words(self.bot, info.guild_id)
        text = ai_intro(w, info) if info.is_ai_game else w("challenge.sentence", text=headline(w, info))
        verdict = w(verdict_key)
        message = self.bot.get_partial_messageable(info.origin_channel_id).get_partial_message(
            info.challenge_message_id
        )
        try:
            await message.edit(
                content=f"~~{text}~~\n**{verdict}**", view=None, allowed_mentions=discord.AllowedMentions.none()
            )
        except discord.HTTPException:
            log.warning("Could not mark challenge %d as closed on message %d", info.id, info.challenge_message_id)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        """After a restart, AI games waiting for the AI would wait forever: hand them back to it.

        AI challenges cut short are finished (or withdrawn) first, so their games are handed over too.
        """
        await self.finish_interrupted_ai_challenges(guild)
        if self.bot.ai is None:
            return
        for info in await self.bot.store.live_games(guild.id):
            if info.ai_level is not None:
                hand_to_ai(self.bot, info)

    async def on_expiry(self, row: DueRow) -> None:
        """The scheduler's ``expiry`` row: the challenge closes, and its message says so."""
        expired = await self.bot.store.expire_challenge(row.game_id)
        if expired is not None:
            await self.closed_unanswered(expired)

    async def closed_unanswered(self, info: GameInfo) -> None:
        await drop_challenge_thread(self.bot, info)
        if info.challenge_message_id is not None:
            await self._strike(info, "challenge.expired_unanswered")

    async def expire_due(self, now: dt.datetime | None = None) -> list[GameInfo]:
        """Close every overdue challenge at once (the scheduler does it one by one as they fall due)."""
        expired = await self.bot.store.expire_challenges(now)
        for info in expired:
            await self.closed_unanswered(info)
        return expired


def challenges(bot: VeletasBot) -> ChallengeCog:
    """The challenge feature, which every game's ``challenge`` command hands its options to."""
    cog = bot.get_cog("Challenges")
    if not isinstance(cog, ChallengeCog):
        raise RuntimeError("the challenge feature is not loaded")
    return cog


async def setup(bot: VeletasBot) -> None:
    bot.add_dynamic_items(AcceptButton, DeclineButton)
    await bot.add_cog(ChallengeCog(bot))
