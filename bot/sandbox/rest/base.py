"""What every group of routes shares: the fake's state and gateway, and the channel and permission checks."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.sandbox import permissions
from bot.sandbox.bodies import Upload
from bot.sandbox.errors import DiscordError, unknown
from bot.sandbox.permissions import ATTACH_FILES, EMBED_LINKS, SEND_MESSAGES, SEND_MESSAGES_IN_THREADS, VIEW_CHANNEL
from bot.sandbox.rest.router import Call, Router
from bot.sandbox.state import Message, SandboxState

if TYPE_CHECKING:
    from bot.sandbox.gateway import Gateway

log = logging.getLogger(__name__)


class RestBase(Router):
    """The state the routes answer from, the gateway they announce changes on, and the checks they all make."""

    def __init__(self, state: SandboxState, gateway: Gateway, on_change: Callable[[], None]) -> None:
        super().__init__()
        self.state = state
        self.gateway = gateway
        self._changed = on_change

    def _channel(self, call: Call) -> dict[str, Any]:
        channel = self.state.channels.get(call.id("channel_id"))
        if channel is None:
            raise unknown("Channel", 10003)
        return channel

    def _require(self, channel_id: int, needed: int, doing: str) -> None:
        """Refuse the bot what its role and the channel's overwrites do not let it do, as Discord does.

        Discord's answer names no permission; the log does, so a failing test says what to grant.
        """
        have = self.state.permissions(self.state.bot.id, channel_id)
        if not have & VIEW_CHANNEL:
            log.warning("the bot cannot see channel %s, so it cannot %s", channel_id, doing)
            raise DiscordError(403, 50001, "Missing Access")
        missing = needed & ~have
        if missing:
            log.warning("the bot lacks %s in channel %s to %s", permissions.names(missing), channel_id, doing)
            raise DiscordError(403, 50013, "Missing Permissions")

    def _sending(self, channel_id: int) -> int:
        """Posting in a thread takes its own permission; SEND_MESSAGES does not count there."""
        return SEND_MESSAGES_IN_THREADS if self.state.is_thread(channel_id) else SEND_MESSAGES

    def _content_needs(self, body: dict[str, Any], uploads: list[Upload]) -> int:
        needed = ATTACH_FILES if uploads else 0
        if body.get("embeds"):
            needed |= EMBED_LINKS
        return needed

    def _message(self, call: Call) -> Message:
        self._channel(call)
        message = self.state.messages.get(call.id("message_id"))
        if message is None or message.deleted or message.channel_id != call.id("channel_id") or message.ephemeral:
            raise unknown("Message", 10008)
        return message
