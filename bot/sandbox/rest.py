"""The REST routes of the fake, each answering the way Discord's v10 API does.

Every handler receives an already parsed and spec-validated ``Call`` and returns JSON (or ``None``
for 204). Limits that Discord enforces are checked before anything is stored, so a bot that
oversteps gets the same ``HTTPException`` it would get in production and the test sees it.
"""

from __future__ import annotations

import copy
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.sandbox import limits, permissions
from bot.sandbox.bodies import Upload
from bot.sandbox.clock import iso_timestamp
from bot.sandbox.errors import DiscordError, form_error, unknown
from bot.sandbox.permissions import (
    ATTACH_FILES,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    EMBED_LINKS,
    MANAGE_CHANNELS,
    MANAGE_MESSAGES,
    MANAGE_THREADS,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
)
from bot.sandbox.state import (
    EPHEMERAL,
    LOADING,
    Attachment,
    Interaction,
    Member,
    Message,
    SandboxState,
    json_copy,
)

if TYPE_CHECKING:
    from bot.sandbox.gateway import Gateway

log = logging.getLogger(__name__)

RESPONSE_DEADLINE = 3.0
TOKEN_LIFETIME = 15 * 60.0

PONG, CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE = 1, 4, 5, 6, 7
AUTOCOMPLETE_RESULT, MODAL = 8, 9

PING, APPLICATION_COMMAND, COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5

_ALLOWED_RESPONSES = {
    PING: {PONG},
    APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL},
    COMPONENT: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, MODAL},
    AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
    MODAL_SUBMIT: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE},
}
_MENTION = re.compile(r"<@!?(\d+)>")


@dataclass
class Call:
    """A request after parsing: path parameters, query, JSON (or ``payload_json``) and uploads."""

    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    uploads: list[Upload] = field(default_factory=list)

    def id(self, name: str) -> int:
        try:
            return int(self.params[name])
        except ValueError:
            raise form_error(name, "Value is not snowflake.", "NUMBER_TYPE_COERCE") from None

    def flag(self, name: str) -> bool:
        return self.query.get(name, "").lower() in ("1", "true")


Handler = Callable[[Call], Awaitable[Any]]


@dataclass
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler
    bot_auth: bool


def _compile(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{\w+\})", template)
    regex = "".join(f"(?P<{p[1:-1]}>[^/]+)" if p.startswith("{") else re.escape(p) for p in parts if p)
    return re.compile(f"^{regex}$")


class Rest:
    """Discord's REST surface, as far as a game bot uses it."""

    def __init__(self, state: SandboxState, gateway: Gateway, on_change: Callable[[], None]) -> None:
        self.state = state
        self.gateway = gateway
        self._changed = on_change
        self.routes: list[Route] = []
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

    def _add(self, method: str, template: str, handler: Handler, *, bot_auth: bool = True) -> None:
        self.routes.append(Route(method, _compile(template), handler, bot_auth))
        # Literal segments such as @original or @me must win over a {message_id} parameter.
        self.routes.sort(key=lambda r: r.pattern.pattern.count("(?P<"))

    def find(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        for route in self.routes:
            if route.method != method:
                continue
            match = route.pattern.match(path)
            if match:
                return route, match.groupdict()
        return None

    # -- identity ----------------------------------------------------------------------------

    async def get_me(self, call: Call) -> Any:
        return self.state.bot.user_json() | {"verified": True, "mfa_enabled": False, "flags": 0, "email": None}

    async def get_user(self, call: Call) -> Any:
        member = self.state.members.get(call.id("user_id"))
        if member is None:
            raise unknown("User", 10013)
        return member.user_json()

    async def get_application(self, call: Call) -> Any:
        return self.state.application_json()

    async def get_gateway(self, call: Call) -> Any:
        return {"url": self.gateway.url}

    async def get_gateway_bot(self, call: Call) -> Any:
        return {
            "url": self.gateway.url,
            "shards": self.gateway.recommended_shards,
            "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 86_400_000, "max_concurrency": 1},
        }

    # -- application commands ---------------------------------------------------------------------

    def _command_scope(self, call: Call) -> int | None:
        if call.id("application_id") != self.state.application_id:
            raise DiscordError(403, 50001, "Missing Access")
        if "guild_id" not in call.params:
            return None
        guild_id = call.id("guild_id")
        if guild_id != self.state.guild_id:
            raise DiscordError(403, 50001, "Missing Access")
        return guild_id

    async def get_commands(self, call: Call) -> Any:
        return copy.deepcopy(self.state.commands.get(self._command_scope(call), []))

    async def put_commands(self, call: Call) -> Any:
        scope = self._command_scope(call)
        body = call.body or []
        limits.check_command_count(body)
        names: set[tuple[str, int]] = set()
        previous = {(c["name"], c["type"]): c for c in self.state.commands.get(scope, [])}
        stored = []
        for index, command in enumerate(body):
            kind = int(command.get("type") or 1)
            key = (str(command["name"]), kind)
            if key in names:
                raise form_error(
                    f"{index}.name", "Application command names must be unique", "APPLICATION_COMMANDS_DUPLICATE_NAME"
                )
            names.add(key)
            stored.append(self._store_command(command, scope, previous.get(key), f"{index}."))
        self.state.commands[scope] = stored
        self._changed()
        return copy.deepcopy(stored)

    async def post_command(self, call: Call) -> Any:
        scope = self._command_scope(call)
        command = call.body
        kind = int(command.get("type") or 1)
        commands = self.state.commands.setdefault(scope, [])
        old = next((c for c in commands if c["name"] == command["name"] and c["type"] == kind), None)
        if old is None and sum(1 for c in commands if c["type"] == kind) >= limits.MAX_COMMANDS_BY_TYPE.get(kind, 0):
            limit = limits.MAX_COMMANDS_BY_TYPE.get(kind, 0)
            raise DiscordError(400, 30032, f"Maximum number of application commands reached ({limit})")
        stored = self._store_command(command, scope, old, "")
        self.state.commands[scope] = [c for c in commands if c is not old] + [stored]
        self._changed()
        return copy.deepcopy(stored)

    async def delete_command(self, call: Call) -> Any:
        scope = self._command_scope(call)
        command_id = call.params["command_id"]
        commands = self.state.commands.get(scope, [])
        if not any(c["id"] == command_id for c in commands):
            raise unknown("application command", 10063)
        self.state.commands[scope] = [c for c in commands if c["id"] != command_id]
        return None

    def _store_command(
        self, command: dict[str, Any], scope: int | None, old: dict[str, Any] | None, where: str
    ) -> dict[str, Any]:
        kind = int(command.get("type") or 1)
        name = str(command["name"])
        if kind == 1 and not limits.valid_command_name(name):
            raise form_error(where + "name", "Command name is invalid", "APPLICATION_COMMAND_INVALID_NAME")
        if kind == 1 and not command.get("description"):
            raise form_error(where + "description", "This field is required", "BASE_TYPE_REQUIRED")
        if kind == 1:
            limits.check_text(command.get("description"), where + "description", limits.MAX_COMMAND_DESCRIPTION)
        _check_localizations(command, where, name_rule=kind == 1)
        _check_options(command.get("options") or [], where + "options")
        # Checked last, as Discord does: a command that breaks a field's rule is refused for that field first.
        limits.check_command_size(command, where.rstrip("."))
        stored = copy.deepcopy(command)
        stored["type"] = kind
        stored["id"] = old["id"] if old else str(self.state.snowflakes.next())
        stored["application_id"] = str(self.state.application_id)
        stored["version"] = str(self.state.snowflakes.next())
        stored.setdefault("default_member_permissions", None)
        if stored["default_member_permissions"] is not None:
            # Discord answers the permission bit set as a string, whichever way it was sent.
            stored["default_member_permissions"] = str(stored["default_member_permissions"])
        stored.setdefault("nsfw", False)
        stored.setdefault("description", "")
        stored.setdefault("contexts", None)
        stored.setdefault("integration_types", [0])
        if scope is not None:
            stored["guild_id"] = str(scope)
        return stored

    # -- interactions ---------------------------------------------------------------------------

    def _interaction(self, call: Call) -> Interaction:
        interaction = self.state.interactions.get(call.id("interaction_id"))
        if interaction is None or interaction.token != call.params["token"]:
            raise unknown("interaction", 10062)
        return interaction

    async def interaction_callback(self, call: Call) -> Any:
        interaction = self._interaction(call)
        body = call.body or {}
        kind = int(body.get("type", 0))
        if interaction.response_type is not None:
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
        waited = self.state.clock.now() - interaction.created_at
        if waited > RESPONSE_DEADLINE:
            log.warning("interaction %s answered after %.2f s, past Discord's 3 s deadline", interaction.id, waited)
            raise unknown("interaction", 10062)
        if kind not in _ALLOWED_RESPONSES.get(interaction.type, set()):
            raise form_error("type", f"Callback type {kind} is not valid for interaction type {interaction.type}.")
        if kind in (DEFERRED_UPDATE, UPDATE_MESSAGE) and interaction.source_message_id is None:
            raise DiscordError(400, 50035, "Invalid Form Body: there is no message to update for this interaction")
        data = body.get("data") or {}
        message: Message | None = None
        if kind == CHANNEL_MESSAGE:
            limits.check_message(data, "data.")
            limits.check_not_empty(data, len(call.uploads))
            ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
            message = await self.create_message(
                interaction.channel_id, data, call.uploads, interaction=interaction, ephemeral=ephemeral
            )
            interaction.original_message_id = message.id
        elif kind == DEFERRED_CHANNEL_MESSAGE:
            ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
            thinking = {"content": "", "flags": LOADING | (EPHEMERAL if ephemeral else 0)}
            message = await self.create_message(
                interaction.channel_id, thinking, [], interaction=interaction, ephemeral=ephemeral, checked=True
            )
            interaction.original_message_id = message.id
        elif kind == DEFERRED_UPDATE:
            interaction.original_message_id = interaction.source_message_id
        elif kind == UPDATE_MESSAGE:
            assert interaction.source_message_id is not None
            limits.check_message(data, "data.")
            message = self.state.messages[interaction.source_message_id]
            await self.apply_edit(message, data, call.uploads)
            interaction.original_message_id = message.id
        elif kind == AUTOCOMPLETE_RESULT:
            limits.check_choices(data.get("choices") or [])
        elif kind == MODAL:
            limits.check_modal(data)
        interaction.response_type = kind
        interaction.response_body = json_copy(body)
        self._changed()
        if not call.flag("with_response"):
            return None
        reply: dict[str, Any] = {"interaction": {"id": str(interaction.id), "type": interaction.type}}
        if interaction.original_message_id is not None:
            reply["interaction"]["response_message_id"] = str(interaction.original_message_id)
        if message is not None:
            reply["interaction"]["response_message_loading"] = message.loading
            reply["interaction"]["response_message_ephemeral"] = message.ephemeral
            reply["resource"] = {"type": kind, "message": self.message_json(message)}
        return reply

    def _webhook(self, call: Call) -> Interaction:
        if call.id("application_id") != self.state.application_id:
            raise unknown("Webhook", 10015)
        token = call.params["token"]
        interaction = self.state.interactions.by_token(token)
        if interaction is None:
            raise unknown("Webhook", 10015)
        if self.state.clock.now() - interaction.created_at > TOKEN_LIFETIME:
            raise DiscordError(401, 50027, "Invalid Webhook Token")
        if interaction.response_type is None:
            raise unknown("Webhook", 10015)
        return interaction

    def _webhook_message(self, call: Call, interaction: Interaction) -> Message:
        raw = call.params.get("message_id", "@original")
        if raw == "@original":
            message_id = interaction.original_message_id
        else:
            message_id = call.id("message_id")
            if message_id != interaction.original_message_id and message_id not in interaction.followup_ids:
                message_id = None
        message = self.state.messages.get(message_id) if message_id is not None else None
        if message is None or message.deleted:
            raise unknown("Message", 10008)
        return message

    async def followup(self, call: Call) -> Any:
        interaction = self._webhook(call)
        body = call.body or {}
        limits.check_message(body)
        limits.check_not_empty(body, len(call.uploads))
        original = self.state.messages.get(interaction.original_message_id or 0)
        if (
            interaction.response_type == DEFERRED_CHANNEL_MESSAGE
            and original is not None
            and original.loading
            and not original.deleted
        ):
            # The first followup after a "thinking..." defer becomes that message, keeping its visibility;
            # once the placeholder is deleted there is nothing to fill, and followups are new messages.
            edit = dict(body)
            edit["flags"] = original.flags & EPHEMERAL
            await self.apply_edit(original, edit, call.uploads, finish_loading=True)
            message = original
        else:
            ephemeral = bool(int(body.get("flags") or 0) & EPHEMERAL)
            message = await self.create_message(
                interaction.channel_id, body, call.uploads, interaction=interaction, ephemeral=ephemeral
            )
            interaction.followup_ids.append(message.id)
        self._changed()
        return self.message_json(message) if call.flag("wait") else None

    async def get_webhook_message(self, call: Call) -> Any:
        interaction = self._webhook(call)
        return self.message_json(self._webhook_message(call, interaction))

    async def edit_webhook_message(self, call: Call) -> Any:
        interaction = self._webhook(call)
        message = self._webhook_message(call, interaction)
        body = call.body or {}
        limits.check_message(body)
        await self.apply_edit(message, body, call.uploads, finish_loading=True)
        return self.message_json(message)

    async def delete_webhook_message(self, call: Call) -> Any:
        interaction = self._webhook(call)
        await self.remove_message(self._webhook_message(call, interaction))
        return None

    # -- channels and messages ------------------------------------------------------------------

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

    async def get_messages(self, call: Call) -> Any:
        self._channel(call)
        self._require(call.id("channel_id"), 0, "read messages")
        if not self.state.permissions(self.state.bot.id, call.id("channel_id")) & READ_MESSAGE_HISTORY:
            return []  # Discord answers an empty history rather than an error
        limit = max(1, min(100, int(call.query.get("limit", "50"))))
        messages = [m for m in self.state.channel_messages(call.id("channel_id")) if not m.ephemeral]
        if "before" in call.query:
            messages = [m for m in messages if m.id < int(call.query["before"])]
        if "after" in call.query:
            messages = [m for m in messages if m.id > int(call.query["after"])][:limit]
        newest_first = sorted(messages, key=lambda m: m.id, reverse=True)[:limit]
        return [self.message_json(m) for m in newest_first]

    async def create_dm(self, call: Call) -> Any:
        """The direct-message channel with a user (the same one every time), as Discord opens it."""
        body = call.body or {}
        try:
            recipient = self.state.members[int(body.get("recipient_id", 0))]
        except (KeyError, TypeError, ValueError):
            raise DiscordError(400, 50035, "Invalid Form Body") from None
        return copy.deepcopy(self.state.open_dm(recipient))

    async def post_message(self, call: Call) -> Any:
        channel = self._channel(call)
        body = call.body or {}
        limits.check_not_empty(body, len(call.uploads))
        channel_id = call.id("channel_id")
        if channel["type"] == 1:
            # A direct message: no guild permissions, but the user may have closed their DMs to the bot.
            recipient = self.state.members[int(channel["recipients"][0]["id"])]
            if not recipient.accepts_dms:
                raise DiscordError(403, 50007, "Cannot send messages to this user")
            return self.message_json(await self.create_message(channel_id, body, call.uploads))
        needed = self._sending(channel_id) | self._content_needs(body, call.uploads)
        if isinstance(body.get("message_reference"), dict):
            needed |= READ_MESSAGE_HISTORY  # replying shows the message replied to
        self._require(channel_id, needed, "send this message")
        message = await self.create_message(channel_id, body, call.uploads)
        return self.message_json(message)

    async def get_message(self, call: Call) -> Any:
        self._require(call.id("channel_id"), READ_MESSAGE_HISTORY, "read a message")
        return self.message_json(self._message(call))

    async def edit_message(self, call: Call) -> Any:
        message = self._message(call)
        if message.author.id != self.state.bot.id:
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        body = call.body or {}
        limits.check_message(body)
        self._require(message.channel_id, self._content_needs(body, call.uploads), "edit its message")
        await self.apply_edit(message, body, call.uploads)
        return self.message_json(message)

    async def delete_message(self, call: Call) -> Any:
        message = self._message(call)
        own = message.author.id == self.state.bot.id
        self._require(message.channel_id, 0 if own else MANAGE_MESSAGES, "delete the message")
        await self.remove_message(message)
        return None

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

    async def get_guild(self, call: Call) -> Any:
        if call.id("guild_id") != self.state.guild_id:
            raise unknown("Guild", 10004)
        data = self.state.guild_json()
        for key in ("members", "channels", "threads", "voice_states", "presences"):
            data.pop(key, None)
        return data

    async def get_guild_channels(self, call: Call) -> Any:
        if call.id("guild_id") != self.state.guild_id:
            raise unknown("Guild", 10004)
        return [copy.deepcopy(c) for c in self.state.channels.values() if c["type"] not in (1, 10, 11, 12)]

    async def get_member(self, call: Call) -> Any:
        if call.id("guild_id") != self.state.guild_id:
            raise unknown("Guild", 10004)
        member = self.state.members.get(call.id("user_id"))
        if member is None:
            raise unknown("Member", 10007)
        return member.member_json()

    # -- shared message machinery -------------------------------------------------------------------

    def message_json(self, message: Message, *, gateway: bool = False) -> dict[str, Any]:
        data = message.to_json()
        if gateway and message.guild_id is not None:
            data["guild_id"] = str(message.guild_id)
            data["member"] = message.author.member_json(with_user=False)
        return data

    def _attachments(
        self, channel_id: int, body: dict[str, Any], uploads: list[Upload], keep: list[Attachment]
    ) -> list[Attachment]:
        limits.check_files([(u.filename, u.data) for u in uploads])
        by_index = {}
        for upload in uploads:
            match = re.fullmatch(r"files\[(\d+)\]", upload.field)
            if match is None:
                raise form_error("files", f"Unexpected multipart field {upload.field!r}; expected files[N].")
            by_index[int(match.group(1))] = upload
        described = {
            int(a["id"]): a
            for a in body.get("attachments") or []
            if isinstance(a, dict) and str(a.get("id", "")).isdigit() and int(a["id"]) in by_index
        }
        result = list(keep)
        for index, upload in sorted(by_index.items()):
            meta = described.get(index, {})
            attachment_id = self.state.snowflakes.next()
            filename = str(meta.get("filename") or upload.filename)
            result.append(
                Attachment(
                    id=attachment_id,
                    filename=filename,
                    data=upload.data,
                    content_type=_guess_type(filename),
                    url=self.state.attachment_url(channel_id, attachment_id, filename),
                    description=meta.get("description"),
                )
            )
        return result

    def _resolve_embeds(self, embeds: list[dict[str, Any]], attachments: list[Attachment]) -> list[dict[str, Any]]:
        """Embeds referring to ``attachment://name`` point at the uploaded file, as Discord rewrites them."""
        urls = {a.filename: a.url for a in attachments}
        resolved: list[dict[str, Any]] = json_copy(embeds)
        for embed in resolved:
            embed.setdefault("type", "rich")
            for key in ("image", "thumbnail"):
                media = embed.get(key)
                if isinstance(media, dict) and str(media.get("url", "")).startswith("attachment://"):
                    name = media["url"].removeprefix("attachment://")
                    if name in urls:
                        media["url"] = media["proxy_url"] = urls[name]
        return resolved

    def _mentions(self, content: str) -> list[dict[str, Any]]:
        found = []
        for raw in _MENTION.findall(content):
            member = self.state.members.get(int(raw))
            if member is not None and member.user_json() not in found:
                found.append(member.user_json())
        return found

    async def create_message(
        self,
        channel_id: int,
        body: dict[str, Any],
        uploads: list[Upload],
        *,
        author: Member | None = None,
        interaction: Interaction | None = None,
        ephemeral: bool = False,
        checked: bool = False,
    ) -> Message:
        """Store a message and tell the gateway, the way every route that posts one must."""
        if not checked:
            limits.check_message(body)
        channel = self.state.channels.get(channel_id)
        if channel is None:
            raise unknown("Channel", 10003)
        author = author or self.state.bot
        if self.state.is_thread(channel_id):
            meta = channel["thread_metadata"]
            if meta.get("locked") and not self.state.permissions(author.id, channel_id) & MANAGE_THREADS:
                # Only moderators speak in a locked thread (and so unarchive it).
                raise DiscordError(400, 160005, "Thread is locked")
            if meta.get("archived"):
                # A message unarchives the thread, and Discord tells every client so.
                meta["archived"] = False
                meta["archive_timestamp"] = iso_timestamp()
                await self.gateway.dispatch("THREAD_UPDATE", copy.deepcopy(channel))
        message_id = self.state.snowflakes.next()
        attachments = self._attachments(channel_id, body, uploads, [])
        content = str(body.get("content") or "")
        data: dict[str, Any] = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "author": author.user_json(),
            "content": content,
            "timestamp": iso_timestamp(message_id),
            "edited_timestamp": None,
            "tts": bool(body.get("tts") or False),
            "mention_everyone": False,
            "mentions": self._mentions(content),
            "mention_roles": [],
            "embeds": self._resolve_embeds(body.get("embeds") or [], attachments),
            "pinned": False,
            "type": 0,
            "flags": int(body.get("flags") or 0) & ~(1 << 12),  # SUPPRESS_NOTIFICATIONS is not echoed
            "components": json_copy(body.get("components") or []),
        }
        if isinstance(body.get("message_reference"), dict):
            data["type"] = 19
            data["message_reference"] = json_copy(body["message_reference"])
        if interaction is not None:
            data["type"] = 20 if interaction.type == 2 else 0
            data["webhook_id"] = str(self.state.application_id)
            data["application_id"] = str(self.state.application_id)
            metadata: dict[str, Any] = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": interaction.user.user_json(),
                "authorizing_integration_owners": {"0": str(self.state.guild_id)},
            }
            if interaction.type == 2:
                metadata["name"] = interaction.command_path
            elif interaction.source_message_id is not None:
                metadata["interacted_message_id"] = str(interaction.source_message_id)
            data["interaction_metadata"] = metadata
            if interaction.type == 2:
                data["interaction"] = {
                    "id": str(interaction.id),
                    "type": 2,
                    "name": interaction.command_path,
                    "user": interaction.user.user_json(),
                }
        if self.state.is_thread(channel_id):
            channel["message_count"] += 1
            channel["total_message_sent"] += 1
            data["position"] = channel["total_message_sent"]
        channel["last_message_id"] = str(message_id)
        message = Message(
            id=message_id,
            channel_id=channel_id,
            guild_id=self.state.guild_id,
            author=author,
            data=data,
            attachments=attachments,
            interaction_id=interaction.id if interaction else None,
            visible_to=interaction.user.id if interaction is not None and ephemeral else None,
        )
        self.state.messages[message_id] = message
        # A direct message reaches a bot's gateway only with the direct-messages intent, which this bot lacks.
        if not message.ephemeral and channel["type"] != 1:
            await self.gateway.dispatch("MESSAGE_CREATE", self.message_json(message, gateway=True))
        self._changed()
        return message

    async def apply_edit(
        self, message: Message, body: dict[str, Any], uploads: list[Upload], *, finish_loading: bool = False
    ) -> None:
        """Change only the fields present, keep listed attachments, add new uploads."""
        message.history.append(message.to_json())
        data = message.data
        if "content" in body:
            data["content"] = str(body["content"] or "")
            data["mentions"] = self._mentions(data["content"])
        if "components" in body:
            data["components"] = json_copy(body["components"] or [])
        if "attachments" in body or uploads:
            listed = body.get("attachments")
            keep_ids = {str(a.get("id")) for a in listed if isinstance(a, dict)} if isinstance(listed, list) else None
            kept = [a for a in message.attachments if keep_ids is None or str(a.id) in keep_ids]
            message.attachments = self._attachments(message.channel_id, body, uploads, kept)
        if "embeds" in body:
            data["embeds"] = self._resolve_embeds(body["embeds"] or [], message.attachments)
        flags = message.flags
        if "flags" in body and body["flags"] is not None:
            # Only SUPPRESS_EMBEDS can be toggled by an edit; ephemerality is fixed at creation.
            flags = (flags & ~(1 << 2)) | (int(body["flags"]) & (1 << 2))
        if finish_loading:
            flags &= ~LOADING
        data["flags"] = flags
        data["edited_timestamp"] = iso_timestamp()
        if not message.ephemeral:
            await self.gateway.dispatch("MESSAGE_UPDATE", self.message_json(message, gateway=True))
        self._changed()

    async def remove_message(self, message: Message) -> None:
        message.deleted = True
        if not message.ephemeral:
            await self.gateway.dispatch(
                "MESSAGE_DELETE",
                {"id": str(message.id), "channel_id": str(message.channel_id), "guild_id": str(self.state.guild_id)},
            )
        self._changed()


def _thread_options(body: dict[str, Any]) -> dict[str, Any]:
    return {k: body[k] for k in ("auto_archive_duration", "rate_limit_per_user", "invitable") if k in body}


def _guess_type(filename: str) -> str | None:
    extension = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    return {
        "png": "image/png",
        "gif": "image/gif",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "webp": "image/webp",
        "txt": "text/plain; charset=utf-8",
        "pgn": "application/vnd.chess-pgn",
        "json": "application/json",
    }.get(extension)


def _check_localizations(item: dict[str, Any], where: str, *, name_rule: bool) -> None:
    """Discord's rules on ``name_localizations`` and ``description_localizations``: known locale keys only;
    command and option names as the default name (lowercase, 1-32, the name pattern), choice names 1-100,
    descriptions 1-100 characters. Option names must stay unique among their siblings in each locale
    (checked by ``_check_localized_siblings``)."""
    for key, limit in (
        ("name_localizations", 32 if name_rule else limits.MAX_CHOICE_NAME),
        ("description_localizations", limits.MAX_COMMAND_DESCRIPTION),
    ):
        found = item.get(key)
        if found is None:
            continue
        if not isinstance(found, dict):
            raise form_error(where + key, "Must be an object", "MODEL_TYPE_CONVERT")
        for locale, text in found.items():
            path = f"{where}{key}.{locale}"
            if locale not in limits.LOCALES:
                raise form_error(path, f"Invalid locale {locale!r}", "LOCALE_INVALID")
            if not isinstance(text, str) or not 1 <= len(text) <= limit:
                raise form_error(path, f"Must be between 1 and {limit} in length.", "BASE_TYPE_BAD_LENGTH")
            if key == "name_localizations" and name_rule and not limits.valid_command_name(text):
                raise form_error(path, "Command name is invalid", "APPLICATION_COMMAND_INVALID_NAME")


def _check_localized_siblings(options: list[dict[str, Any]], where: str) -> None:
    """Sibling options (or sub-commands) must have distinct names in every locale, as Discord requires."""
    by_locale: dict[str, set[str]] = {}
    for index, option in enumerate(options):
        for locale, text in (option.get("name_localizations") or {}).items():
            names = by_locale.setdefault(locale, set())
            if text in names:
                raise form_error(
                    f"{where}.{index}.name_localizations.{locale}",
                    "Option names must be unique",
                    "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME",
                )
            names.add(text)


def _check_options(options: list[dict[str, Any]], where: str) -> None:
    """Discord's own rules on command options: at most 25 per level, names on the naming pattern and unique,
    descriptions 1-100, required before optional, at most 25 choices with names and values up to 100."""
    if len(options) > limits.MAX_COMMAND_OPTIONS:
        raise form_error(where, f"Must be {limits.MAX_COMMAND_OPTIONS} or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    _check_localized_siblings(options, where)
    seen: set[str] = set()
    optional_seen = False
    for index, option in enumerate(options):
        path = f"{where}.{index}"
        name = str(option.get("name", ""))
        if not limits.valid_command_name(name):
            raise form_error(f"{path}.name", "Command name is invalid", "APPLICATION_COMMAND_INVALID_NAME")
        if name in seen:
            raise form_error(
                f"{path}.name", "Option names must be unique", "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME"
            )
        seen.add(name)
        limits.check_text(option.get("description"), f"{path}.description", limits.MAX_COMMAND_DESCRIPTION)
        _check_localizations(option, path + ".", name_rule=True)
        choices = option.get("choices") or []
        if len(choices) > limits.MAX_OPTION_CHOICES:
            raise form_error(
                f"{path}.choices", f"Must be {limits.MAX_OPTION_CHOICES} or fewer in length.", "BASE_TYPE_MAX_LENGTH"
            )
        for number, choice in enumerate(choices):
            limits.check_text(choice.get("name"), f"{path}.choices.{number}.name", limits.MAX_CHOICE_NAME)
            value = choice.get("value")
            if isinstance(value, str):
                limits.check_text(value, f"{path}.choices.{number}.value", limits.MAX_CHOICE_VALUE, required=False)
            _check_localizations(choice, f"{path}.choices.{number}.", name_rule=False)
        if option.get("type") in (1, 2):
            _check_options(option.get("options") or [], f"{path}.options")
            continue
        if option.get("required"):
            if optional_seen:
                raise form_error(
                    f"{path}.required",
                    "Required options must be placed before non-required options",
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                )
        else:
            optional_seen = True
        if option.get("choices") and option.get("autocomplete"):
            raise form_error(
                f"{path}.autocomplete",
                "Autocomplete cannot be set with choices.",
                "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
            )
