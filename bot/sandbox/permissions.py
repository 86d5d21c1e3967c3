"""Channel permissions as Discord computes them: roles, then the channel's overwrites, then implicit denials.

The fake's guild has two roles (@everyone and the bot's managed role) and channels whose
``permission_overwrites`` a test edits with ``FakeDiscord.deny`` and ``allow``. The same overwrites
reach discord.py in GUILD_CREATE and CHANNEL_UPDATE, so the bot's own ``permissions_for`` and the
fake's enforcement on REST routes agree, as they do against the real Discord.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import discord

ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
SEND_TTS_MESSAGES = 1 << 12
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL = discord.Permissions.all().value

ROLE_OVERWRITE, MEMBER_OVERWRITE = 0, 1

# Without the right to post, a member cannot mention everyone, speak aloud, attach or embed either.
_NEEDS_SENDING = MENTION_EVERYONE | SEND_TTS_MESSAGES | ATTACH_FILES | EMBED_LINKS


def bits(names: Iterable[str]) -> int:
    """``"create_public_threads"`` (discord.py's name) or ``"CREATE_PUBLIC_THREADS"`` (Discord's) to bits."""
    value = 0
    for name in names:
        flag = discord.Permissions.VALID_FLAGS.get(name.lower())
        if flag is None:
            raise ValueError(f"unknown permission {name!r}; use discord.Permissions attribute names")
        value |= flag
    return value


def names(value: int) -> list[str]:
    """The discord.py names of the permissions in ``value``, for messages a test author reads."""
    return [name for name, flag in discord.Permissions.VALID_FLAGS.items() if value & flag == flag and flag]


def compute(
    *,
    member_id: int,
    role_ids: Iterable[int],
    guild_id: int,
    owner_id: int,
    role_permissions: Mapping[int, int],
    overwrites: list[dict[str, Any]],
    in_thread: bool,
) -> int:
    """One member's permissions in one channel (for a thread: its parent's overwrites, thread rules)."""
    if member_id == owner_id:
        return ALL
    roles = [r for r in role_ids if r != guild_id]
    permissions = role_permissions.get(guild_id, 0)
    for role in roles:
        permissions |= role_permissions.get(role, 0)
    if permissions & ADMINISTRATOR:
        return ALL
    by_target = {(int(o["type"]), int(o["id"])): o for o in overwrites}
    everyone = by_target.get((ROLE_OVERWRITE, guild_id))
    if everyone is not None:
        permissions = (permissions & ~int(everyone["deny"])) | int(everyone["allow"])
    allow = deny = 0
    for role in roles:
        overwrite = by_target.get((ROLE_OVERWRITE, role))
        if overwrite is not None:
            allow |= int(overwrite["allow"])
            deny |= int(overwrite["deny"])
    permissions = (permissions & ~deny) | allow
    own = by_target.get((MEMBER_OVERWRITE, member_id))
    if own is not None:
        permissions = (permissions & ~int(own["deny"])) | int(own["allow"])
    if not permissions & VIEW_CHANNEL:
        return 0
    if not permissions & (SEND_MESSAGES_IN_THREADS if in_thread else SEND_MESSAGES):
        permissions &= ~_NEEDS_SENDING
    return permissions


def set_overwrite(
    overwrites: list[dict[str, Any]], target_id: int, kind: int, *, allow: int = 0, deny: int = 0
) -> None:
    """Each bit lives in one list at most: allowing takes it off the deny list, as Discord's editor does."""
    entry = next((o for o in overwrites if int(o["id"]) == target_id and int(o["type"]) == kind), None)
    if entry is None:
        entry = {"id": str(target_id), "type": kind, "allow": "0", "deny": "0"}
        overwrites.append(entry)
    entry["allow"] = str((int(entry["allow"]) & ~deny) | allow)
    entry["deny"] = str((int(entry["deny"]) & ~allow) | deny)
    if entry["allow"] == "0" and entry["deny"] == "0":
        overwrites.remove(entry)
