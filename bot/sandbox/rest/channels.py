"""Channels and threads: reading, editing and deleting channels, starting threads, thread members, typing."""

from __future__ import annotations

import copy
from typing import Any

from bot.sandbox import limits
from bot.sandbox.clock import iso_timestamp
from bot.sandbox.errors import DiscordError, form_error, unknown
from bot.sandbox.permissions import (
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    MANAGE_CHANNELS,
    MANAGE_THREADS,
    SEND_MESSAGES_IN_THREADS,
)
from bot.sandbox.rest.messages import MessageRoutes
from bot.sandbox.rest.router import Call


class ChannelRoutes(MessageRoutes):
    """Channel, thread and thread-member routes, each checking the bot's permissions there."""

    async def get_channel(self, call: Call) -> Any:
        channel = copy.deepcopy(self._channel(call))
        self._require(int(channel["id"]), 0, "read the channel")
        if (
            self.state.is_thread(int(channel["id"]))
            and self.state.bot.id in self.state.thread_members[int(channel["id"])]
        ):
            channel["member"] = {
                "id": channel["id"],
                "user_id": str(self.state.bot.id),
                "join_timestamp": iso_timestamp(),
                "flags": 0,
            }
        return channel

    async def edit_channel(self, call: Call) -> Any:
        channel = self._channel(call)
        body = call.body or {}
        channel_id = int(channel["id"])
        if not self.state.is_thread(channel_id):
            self._require(channel_id, MANAGE_CHANNELS, "edit the channel")
        elif channel.get("owner_id") != str(self.state.bot.id) or set(body) - {
            "name",
            "archived",
            "auto_archive_duration",
        }:
            # A thread's creator may rename and archive it; anything else (locking...) is moderation.
            self._require(channel_id, MANAGE_THREADS, "edit the thread")
        else:
            self._require(channel_id, 0, "edit its thread")
        if "name" in body:
            limits.check_thread_name(body["name"])
            channel["name"] = body["name"]
        if self.state.is_thread(int(channel["id"])):
            meta = channel["thread_metadata"]
            for key in ("archived", "locked", "auto_archive_duration", "invitable"):
                if key in body and body[key] is not None:
                    meta[key] = body[key]
            if "archived" in body:
                meta["archive_timestamp"] = iso_timestamp()
            await self.gateway.dispatch("THREAD_UPDATE", copy.deepcopy(channel))
        else:
            await self.gateway.dispatch("CHANNEL_UPDATE", copy.deepcopy(channel))
        self._changed()
        return copy.deepcopy(channel)

    async def delete_channel(self, call: Call) -> Any:
        channel = self._channel(call)
        channel_id = int(channel["id"])
        is_thread = self.state.is_thread(channel_id)
        self._require(channel_id, MANAGE_THREADS if is_thread else MANAGE_CHANNELS, "delete the channel")
        if channel_id == self.state.general_id:
            raise DiscordError(400, 50074, "Cannot delete a channel required for community servers")
        del self.state.channels[channel_id]
        self.state.thread_members.pop(channel_id, None)
        for message in self.state.channel_messages(channel_id):
            message.deleted = True
        if self.state.is_thread_payload(channel):
            event = {k: channel[k] for k in ("id", "guild_id", "parent_id", "type")}
            await self.gateway.dispatch("THREAD_DELETE", event)
        else:
            await self.gateway.dispatch("CHANNEL_DELETE", copy.deepcopy(channel))
        self._changed()
        return copy.deepcopy(channel)

    async def thread_from_message(self, call: Call) -> Any:
        parent = self._channel(call)
        message = self._message(call)
        if parent["type"] not in (0, 5):
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        self._require(int(parent["id"]), CREATE_PUBLIC_THREADS, "start a thread from a message")
        if message.data.get("thread"):
            raise DiscordError(400, 160004, "A thread has already been created for this message")
        body = call.body or {}
        limits.check_thread_name(body.get("name"))
        thread = self.state.add_thread(
            int(parent["id"]),
            body["name"],
            thread_id=message.id,
            kind=11,
            owner=self.state.bot,
            **_thread_options(body),
        )
        message.data["thread"] = copy.deepcopy(thread)
        message.data["flags"] = message.flags | (1 << 5)  # HAS_THREAD
        await self.gateway.dispatch("THREAD_CREATE", copy.deepcopy(thread) | {"newly_created": True})
        await self.gateway.dispatch("MESSAGE_UPDATE", self.message_json(message, gateway=True))
        self._changed()
        return copy.deepcopy(thread)

    async def standalone_thread(self, call: Call) -> Any:
        parent = self._channel(call)
        if parent["type"] not in (0, 5, 15):
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        body = call.body or {}
        limits.check_thread_name(body.get("name"))
        kind = int(body.get("type") or 12)
        if kind not in (10, 11, 12):
            raise form_error("type", "Value must be one of {10, 11, 12}.", "BASE_TYPE_CHOICES")
        needed = CREATE_PRIVATE_THREADS if kind == 12 else CREATE_PUBLIC_THREADS
        self._require(int(parent["id"]), needed, "start a thread")
        thread = self.state.add_thread(
            int(parent["id"]),
            body["name"],
            thread_id=self.state.snowflakes.next(),
            kind=kind,
            owner=self.state.bot,
            **_thread_options(body),
        )
        await self.gateway.dispatch("THREAD_CREATE", copy.deepcopy(thread) | {"newly_created": True})
        self._changed()
        return copy.deepcopy(thread)

    async def add_thread_member(self, call: Call) -> Any:
        channel = self._channel(call)
        thread_id = int(channel["id"])
        if not self.state.is_thread(thread_id):
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        raw = call.params["user_id"]
        user_id = self.state.bot.id if raw == "@me" else call.id("user_id")
        if user_id not in self.state.members:
            raise unknown("Member", 10007)
        self._require(thread_id, 0 if user_id == self.state.bot.id else SEND_MESSAGES_IN_THREADS, "add a member")
        members = self.state.thread_members[thread_id]
        members.add(user_id)
        channel["member_count"] = len(members)
        await self.gateway.dispatch(
            "THREAD_MEMBERS_UPDATE",
            {
                "id": str(thread_id),
                "guild_id": str(self.state.guild_id),
                "member_count": len(members),
                "added_members": [
                    {"id": str(thread_id), "user_id": str(user_id), "join_timestamp": iso_timestamp(), "flags": 0}
                ],
            },
        )
        self._changed()
        return None

    async def remove_thread_member(self, call: Call) -> Any:
        channel = self._channel(call)
        thread_id = int(channel["id"])
        raw = call.params["user_id"]
        user_id = self.state.bot.id if raw == "@me" else call.id("user_id")
        self._require(thread_id, 0 if user_id == self.state.bot.id else MANAGE_THREADS, "remove a member")
        self.state.thread_members.get(thread_id, set()).discard(user_id)
        self._changed()
        return None

    async def typing(self, call: Call) -> Any:
        self._channel(call)
        self._require(call.id("channel_id"), self._sending(call.id("channel_id")), "show it is typing")
        return None


def _thread_options(body: dict[str, Any]) -> dict[str, Any]:
    return {k: body[k] for k in ("auto_archive_duration", "rate_limit_per_user", "invitable") if k in body}
