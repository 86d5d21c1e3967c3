"""The REST routes of the fake, each answering the way Discord's v10 API does.

Every handler receives an already parsed and spec-validated ``Call`` and returns JSON (or ``None``
for 204). Limits that Discord enforces are checked before anything is stored, so a bot that
oversteps gets the same ``HTTPException`` it would get in production and the test sees it.

The routes are grouped by idea, one module each: ``messages`` (messages and attachments),
``interactions`` (interaction callbacks and webhooks), ``commands`` (command sync), ``channels``
(channels, threads and their members), ``guild`` (users, the guild, the gateway URL); ``router``
finds a request's handler and ``base`` holds what they share. ``Rest`` below joins them and lists
every route; the interaction and response types are exported for the fake users and the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.sandbox.rest.channels import ChannelRoutes
from bot.sandbox.rest.commands import CommandRoutes
from bot.sandbox.rest.guild import GuildRoutes
from bot.sandbox.rest.interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE,
    COMPONENT,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE,
    LAUNCH_ACTIVITY,
    MODAL,
    MODAL_SUBMIT,
    PING,
    PONG,
    RESPONSE_DEADLINE,
    TOKEN_LIFETIME,
    UPDATE_MESSAGE,
    InteractionRoutes,
)
from bot.sandbox.rest.router import Call, Route

if TYPE_CHECKING:
    from bot.sandbox.gateway import Gateway
    from bot.sandbox.state import SandboxState

__all__ = [
    "APPLICATION_COMMAND",
    "AUTOCOMPLETE",
    "AUTOCOMPLETE_RESULT",
    "CHANNEL_MESSAGE",
    "COMPONENT",
    "DEFERRED_CHANNEL_MESSAGE",
    "DEFERRED_UPDATE",
    "LAUNCH_ACTIVITY",
    "MODAL",
    "MODAL_SUBMIT",
    "PING",
    "PONG",
    "RESPONSE_DEADLINE",
    "TOKEN_LIFETIME",
    "UPDATE_MESSAGE",
    "Call",
    "Rest",
    "Route",
]


class Rest(CommandRoutes, InteractionRoutes, ChannelRoutes, GuildRoutes):
    """Discord's REST surface, as far as a game bot uses it."""

    def __init__(self, state: SandboxState, gateway: Gateway, on_change: Callable[[], None]) -> None:
        super().__init__(state, gateway, on_change)
        add = self._add
        add("GET", "/users/@me", self.get_me)
        add("GET", "/users/{user_id}", self.get_user)
        add("POST", "/users/@me/channels", self.create_dm)
        add("GET", "/oauth2/applications/@me", self.get_application)
        add("GET", "/applications/@me", self.get_application)
        add("GET", "/gateway", self.get_gateway, bot_auth=False)
        add("GET", "/gateway/bot", self.get_gateway_bot)
        for prefix in ("/applications/{application_id}", "/applications/{application_id}/guilds/{guild_id}"):
            add("GET", prefix + "/commands", self.get_commands)
            add("PUT", prefix + "/commands", self.put_commands)
            add("POST", prefix + "/commands", self.post_command)
            add("DELETE", prefix + "/commands/{command_id}", self.delete_command)
        add("POST", "/interactions/{interaction_id}/{token}/callback", self.interaction_callback, bot_auth=False)
        add("POST", "/webhooks/{application_id}/{token}", self.followup, bot_auth=False)
        for message in ("@original", "{message_id}"):
            path = "/webhooks/{application_id}/{token}/messages/" + message
            add("GET", path, self.get_webhook_message, bot_auth=False)
            add("PATCH", path, self.edit_webhook_message, bot_auth=False)
            add("DELETE", path, self.delete_webhook_message, bot_auth=False)
        add("GET", "/channels/{channel_id}", self.get_channel)
        add("PATCH", "/channels/{channel_id}", self.edit_channel)
        add("DELETE", "/channels/{channel_id}", self.delete_channel)
        add("GET", "/channels/{channel_id}/messages", self.get_messages)
        add("POST", "/channels/{channel_id}/messages", self.post_message)
        add("GET", "/channels/{channel_id}/messages/{message_id}", self.get_message)
        add("PATCH", "/channels/{channel_id}/messages/{message_id}", self.edit_message)
        add("DELETE", "/channels/{channel_id}/messages/{message_id}", self.delete_message)
        add("POST", "/channels/{channel_id}/messages/{message_id}/threads", self.thread_from_message)
        add("POST", "/channels/{channel_id}/threads", self.standalone_thread)
        add("PUT", "/channels/{channel_id}/thread-members/{user_id}", self.add_thread_member)
        add("DELETE", "/channels/{channel_id}/thread-members/{user_id}", self.remove_thread_member)
        add("POST", "/channels/{channel_id}/typing", self.typing)
        add("GET", "/guilds/{guild_id}", self.get_guild)
        add("GET", "/guilds/{guild_id}/channels", self.get_guild_channels)
        add("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member)
