"""Getting every stored change to the players: answers, posts to the channel, forced turns and the AI's turns.

Not an extension. Whatever a feature stores, the board that shows it gets out: through the answer to
the interaction when that works, else posted to the game's channel with retries, else by the next
sweep. A turn nobody has a choice in (Veloop's forced pass) is played by the bot at once, and the
AI's turns follow from what is stored, never from whether a post worked.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from functools import partial
from typing import TYPE_CHECKING

import aiohttp
import discord

from bot.errors import GameFinished, RaceLost, UserError
from bot.i18n import Words, words
from bot.posting import unwatched, watched
from bot.store.values import GameInfo
from cogs._board import board_message
from cogs._names import name_of
from cogs._send import Outgoing, direct_message, jump_link, send_to_channel
from cogs._tables import table_for
from cogs._words import public_words

if TYPE_CHECKING:
    from bot.client import VeletasBot

log = logging.getLogger(__name__)

# Pauses between attempts to post a board nobody has seen yet (Discord failing, rate limits). They start
# short, so a board arrives within moments of Discord taking posts again: five failures cost 3.1 s, and
# the whole schedule about two minutes, as before. A 429's Retry-After is waited on top (discord.py's).
RETRY_DELAYS: tuple[float, ...] = (0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 15.0, 30.0, 60.0)
# How long an answer waits for the game's previous board to be out before it goes on unordered.
ANSWER_LOCK_WAIT = 1.0
# A game where every turn is forced cannot loop for ever: each pass is a ply, and two ends the game.
MAX_FORCED_IN_A_ROW = 4


def ai_failed(w: Words, info: GameInfo) -> str:
    command = table_for(info).command
    return w("delivery.ai_failed", command=f"/{command} {w.get(f'commands.{command}.board.name', 'board')}")


async def play_forced(bot: VeletasBot, info: GameInfo) -> tuple[GameInfo, str | None]:
    """Play the turns nobody has a choice in (Veloop's lone ``pass``), and say so.

    Each is stored like any turn, on behalf of the player to act, at the version just read: a race
    with another change simply stops here and the newest state is shown. Returns the game after them
    and the sentence telling who passed (None when nothing was forced).
    """
    said: list[str] = []
    w = await public_words(bot, info.guild_id)
    for _ in range(MAX_FORCED_IN_A_ROW):
        forced = info.state.forced_turn if info.status == "active" else None
        user = info.user_to_act
        if forced is None or user is None:
            break
        colour = info.state.colour_to_act
        try:
            info = await bot.store.play(info.id, user, forced, expected_version=info.version)
        except (RaceLost, GameFinished):
            info = await bot.store.get_game(info.id)
            break
        who = name_of(bot, user)
        shown = discord.utils.escape_markdown(who)
        if colour:
            said.append(w("delivery.passed_colour", who=shown, colour=w(f"result.{colour}")))
        else:
            said.append(w("delivery.passed", who=shown))
    return info, " ".join(said) or None


async def after_board_posted(bot: VeletasBot, info: GameInfo, message_id: int | None) -> None:
    """Remember the newest board (and which version of the game it shows), then let the AI act if it is its turn."""
    if message_id is not None:
        await bot.store.mark_posted(info.id, info.version, message_id)
        retire_board(bot, info, message_id)
    hand_to_ai(bot, info)


def retire_board(bot: VeletasBot, info: GameInfo, newest: int) -> None:
    """Take the buttons off the board a newer one replaces, so a thread does not fill with dead controls.

    In the background and best effort: the old buttons would refuse politely anyway (they carry the
    version they were made for), and a board Discord no longer has is simply left alone.
    """
    previous = info.board_message_id
    if previous is None or previous == newest:
        return

    me = bot.user.id if bot.user is not None else None
    # In a game against the AI, the board a newer one replaces may say the AI is thinking: it has moved since.
    ai_moved = me is not None and me in info.participants

    async def strip() -> None:
        message = bot.get_partial_messageable(info.channel_id).get_partial_message(previous)
        try:
            if ai_moved:
                old = await message.fetch()
                w = await public_words(bot, info.guild_id)
                thinking = w("board.ai_thinking", who=f"<@{me}>")
                embeds = old.embeds
                if embeds and embeds[0].description == thinking:
                    embeds[0].description = w("board.ai_moved", who=f"<@{me}>")
                    await message.edit(embeds=embeds, view=None)
                    return
            await message.edit(view=None)
        # RuntimeError: the bot is shutting down; aiohttp's errors and OSError: Discord could not be reached.
        except (discord.HTTPException, RuntimeError, aiohttp.ClientError, OSError):
            log.debug("Could not take the buttons off board %d of game %d", previous, info.id)

    bot.spawn(strip(), name=f"retire-board-{info.id}-{previous}")


def tell_by_dm(bot: VeletasBot, out: Outgoing) -> None:
    """After a board is out: tell the player to move by direct message, if that is how they chose to hear."""
    info = out.info
    if out.dm is None or info is None:
        return
    label = table_for(info).label(info)
    w = words(bot.user_language(out.dm, info.guild_id))
    # A game whose first side did not come calls the second side to claim it, not to move.
    key = "delivery.claim_dm" if info.awaiting_claim else "delivery.your_turn_dm"
    text = w(key, game=label, link=jump_link(info))
    bot.spawn(direct_message(bot, out.dm, text), name=f"turn-dm-{info.id}-{info.version}")


def reply_failed(bot: VeletasBot, game_id: int, exc: discord.HTTPException) -> None:
    """Answering the interaction failed (it expired, Discord failed): whatever was stored is posted to the channel.

    The post runs in the background with retries, and the AI's turn follows from what is stored,
    not from the failed answer.
    """
    log.warning(
        "Could not answer an interaction about game %d (%s %s); posting its board instead",
        game_id,
        exc.status,
        exc.code,
    )
    bot.spawn(resume(bot, game_id), name=f"resume-{game_id}")


async def resume(bot: VeletasBot, game_id: int) -> None:
    """The AI's turn first (it must not wait for a post that may be retried for minutes), then the board."""
    hand_to_ai(bot, await bot.store.get_game(game_id))
    await announce(bot, game_id)


async def deliver(bot: VeletasBot, game_id: int, answer: Awaitable[tuple[int | None, Outgoing]]) -> None:
    """Run an answer that shows a game's new board; whatever happens to the answer, the board gets out.

    When the answer fails after the change was stored (the interaction expired, Discord failed), the
    board is posted to the game's channel instead and the AI plays on; a failure before anything was
    stored leaves nothing to post. Refusals (``UserError``) propagate to the error handler as always.
    """
    # While the answer is on its way, a sweep must not post the same board to the channel as well.
    bot.replying[game_id] += 1
    # One answer per game at a time, so boards go out in the order their changes were stored: a board
    # sent after its answer (the guided move's) is out, and marked, before the game's next change is tried.
    held: asyncio.Lock | None = None
    try:
        held = await hold_board_lock(bot, game_id)
        message_id, out = await answer
    except discord.HTTPException as exc:
        failed: discord.HTTPException | None = exc
    except UserError:
        raise
    except Exception:
        bot.spawn(resume(bot, game_id), name=f"resume-{game_id}")
        raise
    else:
        failed = None
        if out.info is not None:
            await after_board_posted(bot, out.info, message_id)
        tell_by_dm(bot, out)
    finally:
        if held is not None:
            held.release()
        bot.replying[game_id] -= 1
        if bot.replying[game_id] <= 0:
            del bot.replying[game_id]
    if failed is not None:
        reply_failed(bot, game_id, failed)


async def hold_board_lock(bot: VeletasBot, game_id: int) -> asyncio.Lock | None:
    """Take the game's board lock for an answer; None if it stays taken for ``ANSWER_LOCK_WAIT`` seconds.

    The wait is short because the interaction's 3 seconds are running (``respond`` defers at once when
    they are mostly spent): a board stuck behind minutes of retries must not make the next answer
    expire, so that answer then goes out unordered rather than not at all.
    """
    lock = board_lock(bot, game_id)
    taking = asyncio.ensure_future(lock.acquire())
    done, _ = await asyncio.wait({taking}, timeout=ANSWER_LOCK_WAIT)
    if done:
        return lock
    # Taken just as the wait ran out: give it back, nobody holds it for this answer.
    taking.add_done_callback(lambda task: None if task.cancelled() or task.exception() else lock.release())
    taking.cancel()
    log.info("Game %d: a board is still on its way after %.1f s; answering without waiting", game_id, ANSWER_LOCK_WAIT)
    return None


def board_lock(bot: VeletasBot, game_id: int) -> asyncio.Lock:
    """One poster per game at a time, so boards of one game are posted in order and never twice."""
    lock = bot.board_locks.get(game_id)
    if lock is None:
        lock = asyncio.Lock()
        bot.board_locks[game_id] = lock
    return lock


async def post_unannounced(bot: VeletasBot, game_id: int, *, swept: bool = False) -> bool:
    """Post the board of a stored change that no posted board shows yet; True once nothing is left to post.

    Failures are retried with growing pauses (``RETRY_DELAYS``); a channel that refuses for good
    (403, 404) is given up at once, and after the last pause this round gives up (the next start-up
    or background sweep tries again). Each attempt posts the newest stored state, so a board is never
    posted for a position that has since changed. A ``swept`` game (found by ``sweep``, not known to
    be unannounced) is left alone while an answer about it is on its way: that answer posts its board.
    A forced turn still owed (the process stopped before playing it) is played first.
    """
    async with board_lock(bot, game_id):
        failures = 0
        while True:
            if swept and bot.replying.get(game_id):
                return True
            info, note = await play_forced(bot, await bot.store.get_game(game_id))
            if not info.unannounced or info.status not in ("active", "finished"):
                return True
            try:
                out = await board_message(bot, info, note=note)
                with watched(partial(show_typing, bot, info.channel_id)):
                    message_id = await send_to_channel(bot, info.channel_id, out)
            except (discord.Forbidden, discord.NotFound) as exc:
                log.warning(
                    "Game %d: channel %d refuses its board for good (%s); not retrying",
                    game_id,
                    info.channel_id,
                    exc.status,
                )
                await bot.store.give_up_posting(game_id, info.board_version)
                return False
            except (discord.HTTPException, OSError) as exc:
                if failures >= len(RETRY_DELAYS):
                    log.error("Game %d: could not post its board after %d attempts (%s)", game_id, failures + 1, exc)
                    return False
                log.warning(
                    "Game %d: posting its board failed (%s); retrying in %.0f s", game_id, exc, RETRY_DELAYS[failures]
                )
                await asyncio.sleep(RETRY_DELAYS[failures])
                failures += 1
                continue
            await bot.store.mark_posted(game_id, info.version, message_id)
            retire_board(bot, info, message_id)
            tell_by_dm(bot, out)
            failures = 0


def show_typing(bot: VeletasBot, channel_id: int) -> None:
    """A sign of life while a board's post is refused: "… is typing" in its channel, for the next 10 seconds.

    Another route than posts, so it usually gets through when they do not; best effort, in the background.
    """

    async def typing() -> None:
        unwatched()
        try:
            await bot.http.send_typing(channel_id)
        except (discord.HTTPException, RuntimeError, aiohttp.ClientError, OSError):
            log.debug("Could not show typing in channel %d", channel_id)

    bot.spawn(typing(), name=f"typing-{channel_id}")


async def announce(bot: VeletasBot, game_id: int, *, swept: bool = False) -> None:
    """Post what players were not told of, then hand the turn to the AI if the stored game waits for it."""
    await post_unannounced(bot, game_id, swept=swept)
    hand_to_ai(bot, await bot.store.get_game(game_id))


async def sweep(bot: VeletasBot) -> int:
    """After a start (or in the background): post every unannounced change, resume every AI turn owed.

    Returns how many games needed something.
    """
    pending = await bot.store.unannounced_games()
    for info in pending:
        # A change whose answer is on its way, or whose board is being posted, is not lost: leave it.
        if info.id not in bot.board_locks and not bot.replying.get(info.id):
            bot.spawn(announce(bot, info.id, swept=True), name=f"announce-{info.id}")
    waiting = []
    if bot.ai is not None and bot.user is not None:
        waiting = [info for info in await bot.store.games_with_player(bot.user.id) if ai_to_act(bot, info)]
        for info in waiting:
            hand_to_ai(bot, info)
    if pending or waiting:
        log.info("Sweep: %d board(s) to post, %d AI turn(s) to resume", len(pending), len(waiting))
    return len(pending) + len(waiting)


def ai_to_act(bot: VeletasBot, info: GameInfo) -> bool:
    return info.status == "active" and bot.ai is not None and bot.user is not None and info.user_to_act == bot.user.id


def hand_to_ai(bot: VeletasBot, info: GameInfo) -> None:
    """Start the AI's turn in the background when the game waits for it (at most one per game at a time)."""
    if not ai_to_act(bot, info):
        return
    if info.id in bot.ai_thinking:
        # The running turn may have read the game just before this change: it looks again before stopping.
        bot.ai_look_again.add(info.id)
        return
    bot.ai_thinking.add(info.id)
    bot.spawn(ai_turn(bot, info.id), name=f"ai-turn-{info.id}-{info.version}")


async def ai_turn(bot: VeletasBot, game_id: int) -> None:
    """Play the AI's turns while the stored game waits for it, posting each board like any other turn.

    Each search is for one version of the game, and its answer lands only if the game is still at
    that version: an undo and a replay at the same ply (a different position) is a new version, so
    the stale answer is dropped and the AI looks again at what is stored now. The next turn follows
    from the store, never from whether a board post worked. If the AI fails even after its pool
    replaced a bad worker, the players are told how to ask again (``board`` hands the turn back).
    """
    assert bot.ai is not None and bot.user is not None
    try:
        while True:
            bot.ai_look_again.discard(game_id)
            info = await bot.store.get_game(game_id)
            if not ai_to_act(bot, info):
                if game_id in bot.ai_look_again:
                    continue
                return
            try:
                text = await bot.ai.choose_turn(info.state, info.ai_level or 3)
                # The stamp orders this change among players' interactions; never below the last change's.
                stamp = max(discord.utils.time_snowflake(discord.utils.utcnow()), info.changed_stamp + 1)
                await bot.store.play(game_id, bot.user.id, text, expected_version=info.version, stamp=stamp)
            except (RaceLost, GameFinished):
                # Taken back, replayed, resigned or cancelled while the AI thought: look again.
                log.info("AI turn for game %d at version %d is out of date; dropped", game_id, info.version)
                continue
            except Exception:
                log.exception("The AI failed to play in game %d at version %d", game_id, info.version)
                w = await public_words(bot, info.guild_id)
                await send_to_channel(bot, info.channel_id, Outgoing(content=ai_failed(w, info)))
                return
            await post_unannounced(bot, game_id)
    finally:
        bot.ai_thinking.discard(game_id)
        bot.ai_look_again.discard(game_id)
