"""Sending what the bot says: one message type, and answering interactions within Discord's 3 seconds.

Not an extension. Every feature answers through ``respond`` (a new message) or ``respond_update`` (the
message a component sits on); slow work is deferred first, measured from the interaction's creation.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

import discord

from bot.store.values import GameInfo

if TYPE_CHECKING:
    from bot.client import VeletasBot

log = logging.getLogger(__name__)

# Work that is not done this long after the interaction was created is deferred, leaving Discord's
# 3-second window plenty of margin. The time counts from the creation (the interaction's id), not
# from when the handler got to run, and the event loop's current lateness is taken off as well.
DEFER_AFTER = 1.2


def bot_of(interaction: discord.Interaction[Any]) -> VeletasBot:
    return cast("VeletasBot", interaction.client)


@dataclass(frozen=True)
class Outgoing:
    """One message to send or edit; files are bytes so the same message can be sent more than once."""

    content: str | None = None
    embed: discord.Embed | None = None
    files: Sequence[tuple[str, bytes]] = ()
    view: discord.ui.View | None = None
    mention: int | None = None
    info: GameInfo | None = None  # the game state the message shows, for what follows the answer
    dm: int | None = None  # the player to tell of their turn by direct message once this is posted
    calls: int | None = None  # the player the "your turn" line names (pinged or not, as they chose)

    def allowed_mentions(self) -> discord.AllowedMentions:
        """Only the player to move may be pinged, never anyone named in user-typed text."""
        if self.mention is None:
            return discord.AllowedMentions.none()
        return discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(self.mention)])

    def discord_files(self) -> list[discord.File]:
        return [discord.File(io.BytesIO(data), filename=name) for name, data in self.files]

    def quiet(self) -> Outgoing:
        """The same message pinging and telling nobody, without the line that calls the player to move."""
        if self.calls is None:
            return replace(self, mention=None, dm=None)
        call = mention(self.calls)
        content = "\n".join(line for line in (self.content or "").split("\n") if call not in line) or None
        return replace(self, content=content, mention=None, dm=None, calls=None)


async def send_response(interaction: discord.Interaction[Any], out: Outgoing, *, ephemeral: bool = False) -> int | None:
    """Answer an interaction with a new message (or the followup after a defer); returns its id."""
    kwargs: dict[str, Any] = {
        "content": out.content,
        "allowed_mentions": out.allowed_mentions(),
        "ephemeral": ephemeral,
        "files": out.discord_files(),
    }
    if out.embed is not None:
        kwargs["embed"] = out.embed
    if out.view is not None:
        kwargs["view"] = out.view
    if interaction.response.is_done():
        interaction.extras["deferred_public"] = False
        message = await interaction.followup.send(wait=True, **kwargs)
        return message.id
    callback = await interaction.response.send_message(**kwargs)
    return callback.message_id


async def update_message(interaction: discord.Interaction[Any], out: Outgoing) -> None:
    """Replace the message a component sits on (the private steps of the guided move)."""
    await interaction.response.edit_message(
        content=out.content,
        embed=out.embed,
        attachments=out.discord_files(),
        view=out.view,
        allowed_mentions=out.allowed_mentions(),
    )


async def send_to_channel(bot: VeletasBot, channel_id: int, out: Outgoing) -> int:
    """Post outside any interaction (an AI move, an expired challenge); the channel need not be cached."""
    channel = bot.get_partial_messageable(channel_id)
    kwargs: dict[str, Any] = {"content": out.content, "allowed_mentions": out.allowed_mentions()}
    if out.embed is not None:
        kwargs["embed"] = out.embed
    if out.view is not None:
        kwargs["view"] = out.view
    files = out.discord_files()
    if files:
        kwargs["files"] = files
    message = await channel.send(**kwargs)
    return message.id


def interaction_age(interaction: discord.Interaction[Any]) -> float:
    """Seconds since Discord created the interaction (its id carries the moment), as this machine's clock sees it."""
    return (discord.utils.utcnow() - interaction.created_at).total_seconds()


def defer_delay(interaction: discord.Interaction[Any]) -> float:
    """How long work may run before the answer is deferred: none at all when the bot is already late.

    Discord's 3 seconds run from the interaction's creation, not from when the handler got to run;
    a busy bot starts handlers late and fires timers late. So the wait is what is left of
    ``DEFER_AFTER`` since the creation, less how late the event loop runs now: an interaction that
    waited, or a loop that lags, is deferred at once instead of hoping a late timer still fires in time.
    """
    age = max(0.0, interaction_age(interaction))
    return max(0.0, DEFER_AFTER - age - bot_of(interaction).loop_lag)


async def _finish_then_raise(task: asyncio.Future[Outgoing], exc: BaseException) -> None:
    """The deferral failed (the interaction expired): let the work finish, so what it stored can be announced."""
    try:
        await task
    except Exception:
        log.debug("Work behind a failed deferral also failed", exc_info=True)
    raise exc


async def respond(
    interaction: discord.Interaction[Any], work: Awaitable[Outgoing], *, ephemeral: bool = False
) -> tuple[int | None, Outgoing]:
    """Answer with a new message holding what ``work`` produces, deferring first if it is slow.

    Most work (a database write and a render) takes milliseconds, so the common case is a single
    callback carrying the board; only work not ready well within Discord's 3 seconds pays for the
    extra deferral round trip. ``work`` includes the store calls, because a database waiting on
    another writer is as slow as any render. If the deferral fails, the work still runs to its end
    before the failure is raised, so a turn it stored is never left half-handled.
    """
    task = asyncio.ensure_future(work)
    delay = defer_delay(interaction)
    if delay > 0:
        await asyncio.wait({task}, timeout=delay)
    if not task.done():
        try:
            await interaction.response.defer(thinking=True, ephemeral=ephemeral)
        except discord.HTTPException as exc:
            await _finish_then_raise(task, exc)
        interaction.extras["deferred_public"] = not ephemeral
    out = await task
    return await send_response(interaction, out, ephemeral=ephemeral), out


async def respond_update(interaction: discord.Interaction[Any], work: Awaitable[Outgoing]) -> Outgoing:
    """Replace the message a component sits on with what ``work`` produces, deferring if it is slow."""
    task = asyncio.ensure_future(work)
    delay = defer_delay(interaction)
    if delay > 0:
        await asyncio.wait({task}, timeout=delay)
    if not task.done():
        try:
            await interaction.response.defer()
        except discord.HTTPException as exc:
            await _finish_then_raise(task, exc)
    out = await task
    if not interaction.response.is_done():
        await update_message(interaction, out)
        return out
    await interaction.edit_original_response(
        content=out.content,
        embed=out.embed,
        attachments=out.discord_files(),
        view=out.view,
        allowed_mentions=out.allowed_mentions(),
    )
    return out


CANNOT_DM = 50007  # Discord's code when a user does not accept direct messages from the bot


async def direct_message(bot: VeletasBot, user_id: int, text: str, *, view: discord.ui.View | None = None) -> bool:
    """Send a direct message (with ``view``'s buttons, if given); True if it went. A refusal is remembered, so it is
    not tried again until the player chooses direct messages anew (``/player notify``)."""
    try:
        user = bot.get_user(user_id) or await bot.fetch_user(user_id)
        if view is None:
            await user.send(text, allowed_mentions=discord.AllowedMentions.none())
        else:
            await user.send(text, view=view, allowed_mentions=discord.AllowedMentions.none())
    except discord.Forbidden as exc:
        if exc.code == CANNOT_DM:
            log.info("User %d does not take direct messages; not trying again", user_id)
            await bot.store.set_notify(user_id, dm_blocked=True)
        return False
    except discord.HTTPException:
        log.warning("Could not send a direct message to user %d", user_id, exc_info=True)
        return False
    return True


def jump_link(info: GameInfo) -> str:
    """A link to a game's latest board (or its channel); links ping nobody."""
    if info.board_message_id is not None:
        return f"https://discord.com/channels/{info.guild_id}/{info.channel_id}/{info.board_message_id}"
    return f"https://discord.com/channels/{info.guild_id}/{info.channel_id}"


def mention(user_id: int | None) -> str:
    return f"<@{user_id}>" if user_id is not None else "nobody yet"
