"""What the bot must be allowed in a channel before it takes a game on there.

Not an extension. Discord refuses a missing permission only once the bot acts, and by then a
challenge may be accepted or a thread started, leaving a game whose board nobody can see. So the
bot's own permissions are read first, and the player hears privately, before anything changes,
which permissions a server manager has to grant.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import discord

from bot.errors import UserError
from bot.i18n import Phrase

log = logging.getLogger(__name__)

THREAD_TYPES = (discord.ChannelType.public_thread, discord.ChannelType.private_thread, discord.ChannelType.news_thread)
# A board is a message with an embed around an attached image; boards come as channel posts, not
# only as answers to a command (the AI's turns), so a game needs every one of these.
PLAY_HERE: tuple[str, ...] = ("view_channel", "send_messages", "embed_links", "attach_files")
PLAY_IN_THREAD: tuple[str, ...] = (
    "view_channel",
    "create_public_threads",
    "send_messages_in_threads",
    "embed_links",
    "attach_files",
)


def discord_name(permission: str) -> Phrase:
    """A permission as Discord's own settings spell it, in the reader's language (``permission`` area)."""
    return Phrase(f"permission.{permission}")


def spoken_list(names: Sequence[Phrase]) -> Phrase:
    """``A, B and C`` in the reader's language."""
    if len(names) == 1:
        return names[0]
    head = names[0]
    for name in names[1:-1]:
        head = Phrase("permission.comma", first=head, second=name)
    return Phrase("permission.and", first=head, second=names[-1])


def in_thread(interaction: discord.Interaction[Any]) -> bool:
    channel = interaction.channel
    return channel is not None and channel.type in THREAD_TYPES


def new_thread_permissions(interaction: discord.Interaction[Any]) -> discord.Permissions:
    """The bot's permissions in a thread it would start off this channel, before the thread exists.

    A thread takes its parent's overwrites, but posting there is Send Messages in Threads, not Send
    Messages: a channel closed to posts can still host games in threads. That is how discord.py's
    ``Thread.permissions_for`` reads the parent, so the same is done here. Without the channel in
    the cache, Discord's figure for the channel itself is the best there is.
    """
    channel = interaction.channel
    guild = interaction.guild
    me = guild.me if guild is not None else None
    if not isinstance(channel, discord.TextChannel) or me is None:
        return interaction.app_permissions
    base = discord.abc.GuildChannel.permissions_for(channel, me)
    if not base.send_messages_in_threads:
        base.update(send_tts_messages=False, mention_everyone=False, embed_links=False, attach_files=False)
    if not base.view_channel:
        return discord.Permissions.none()
    return base


def lacking_here(interaction: discord.Interaction[Any]) -> tuple[tuple[str, ...], list[str]]:
    """What posting boards in the interaction's own channel needs, and which of it the bot lacks.

    Discord computes the bot's permissions in the channel of every interaction
    (``app_permissions``); nothing is fresher. In a thread, posting is Send Messages in Threads.
    """
    needed = PLAY_HERE
    if in_thread(interaction):
        needed = tuple("send_messages_in_threads" if p == "send_messages" else p for p in PLAY_HERE)
    have = interaction.app_permissions
    return needed, [p for p in needed if not getattr(have, p)]


def lacking_in_thread(interaction: discord.Interaction[Any]) -> tuple[tuple[str, ...], list[str]]:
    """What a game in a new thread off the interaction's channel needs, and which of it the bot lacks."""
    have = new_thread_permissions(interaction)
    return PLAY_IN_THREAD, [p for p in PLAY_IN_THREAD if not getattr(have, p)]


def check_here(interaction: discord.Interaction[Any]) -> None:
    """Refuse, changing nothing, unless the bot may post boards in the interaction's channel."""
    needed, lacking = lacking_here(interaction)
    if lacking:
        raise refusal(interaction, "here", needed, lacking)


def check_thread(interaction: discord.Interaction[Any]) -> None:
    """Refuse, changing nothing, unless the bot may start a thread off this channel and post boards in it."""
    needed, lacking = lacking_in_thread(interaction)
    if lacking:
        raise refusal(interaction, "thread", needed, lacking)


def thread_refused(interaction: discord.Interaction[Any]) -> UserError:
    """The refusal when Discord said no to a thread although the bot's view of its permissions said yes.

    A manager may have changed them a moment before, and the bot may not have heard yet; what it
    knows now is named, or else the whole list.
    """
    needed, lacking = lacking_in_thread(interaction)
    return refusal(interaction, "thread", needed, lacking)


def board_refused(interaction: discord.Interaction[Any], thread: discord.Thread) -> UserError:
    """What the players hear when the game has begun but Discord refused its first board all the same.

    The game is in the store by then, so this is no refusal: it says where the game is and how to
    see it (``/veletas board`` answers a command, which needs none of these permissions).
    """
    grant = spoken_list([discord_name(p) for p in PLAY_IN_THREAD if p != "view_channel"])
    return UserError(
        "permission.board_refused", thread=thread.mention, grant=grant, board=Phrase("commands.veletas.board.name")
    )


def refusal(
    interaction: discord.Interaction[Any], where: str, needed: Sequence[str], lacking: Sequence[str]
) -> UserError:
    """What the player reads: what is missing, everything a manager must grant, and what works meanwhile.

    The whole list is named, not only what is missing, so a manager fixes it in one visit rather
    than meeting the next refusal. View Channel is named only when it is what is missing.
    """
    place = Phrase("permission.in_thread" if where == "thread" else "permission.in_channel")
    grant = spoken_list([discord_name(p) for p in needed if p != "view_channel" or p in lacking])
    if lacking:
        named = spoken_list([Phrase("permission.bold", name=discord_name(p)) for p in lacking])
        start = Phrase("permission.missing", place=place, named=named)
    else:
        start = Phrase("permission.refused", place=place)
    if where == "thread" and not lacking_here(interaction)[1]:
        return UserError("permission.grant_or_here", start=start, grant=grant)
    if where == "here" and not in_thread(interaction) and not lacking_in_thread(interaction)[1]:
        return UserError("permission.grant_or_thread", start=start, grant=grant)
    log.debug("Neither here nor in a thread can the bot hold a game in channel %s", interaction.channel_id)
    return UserError("permission.grant", start=start, grant=grant)


def may_organise(interaction: discord.Interaction[Any], role_id: int | None, organiser_id: int | None = None) -> bool:
    """Whether the member may run tournaments here: Manage Server, the server's organiser role, or (for one
    tournament) being the member who created it. Read from the interaction, as Discord computed it."""
    user = interaction.user
    if organiser_id is not None and user.id == organiser_id:
        return True
    if not isinstance(user, discord.Member):
        return False
    if interaction.permissions.manage_guild:
        return True
    return role_id is not None and any(role.id == role_id for role in user.roles)
