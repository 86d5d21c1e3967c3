"""Interactions and their webhooks: the callback that answers an interaction, followups, and the original
message's edits, with Discord's 3-second answer deadline and 15-minute token lifetime.

LAUNCH_ACTIVITY (12) opens the application's Activity for the member who clicked or ran a command, and only
that: Discord accepts it as the first answer to a command, a component or a modal, only for an application
with Activities enabled (developer portal, Activities > Settings), and its clients open Activities in text and
voice channels and in direct messages, not in threads (Discord's Activities overview lists where they
launch; threads are not among those places, and some clients show "invalid channel"). The fake refuses a
launch in a thread with 50024 "Cannot execute action on this channel type", the JSON error code Discord
documents for an action a channel type does not allow, a launch by a member without Use Activities there
with 50013, and a launch by an application without Activities as an invalid callback type (50035), and
records each launch it accepts in ``state.activity_launches``."""

from __future__ import annotations

import logging
from typing import Any

from bot.sandbox import limits
from bot.sandbox.errors import DiscordError, form_error, unknown
from bot.sandbox.rest.messages import MessageRoutes
from bot.sandbox.rest.router import Call
from bot.sandbox.state import EPHEMERAL, LOADING, THREAD_TYPES, ActivityLaunch, Interaction, Message, json_copy

log = logging.getLogger(__name__)

USE_EMBEDDED_ACTIVITIES = 1 << 39  # "Use Activities": a member without it cannot start one

RESPONSE_DEADLINE = 3.0
TOKEN_LIFETIME = 15 * 60.0

PONG, CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE = 1, 4, 5, 6, 7
AUTOCOMPLETE_RESULT, MODAL, LAUNCH_ACTIVITY = 8, 9, 12

PING, APPLICATION_COMMAND, COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5

_ALLOWED_RESPONSES = {
    PING: {PONG},
    APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL, LAUNCH_ACTIVITY},
    COMPONENT: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, MODAL, LAUNCH_ACTIVITY},
    AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
    MODAL_SUBMIT: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, LAUNCH_ACTIVITY},
}


class InteractionRoutes(MessageRoutes):
    """The interaction callback and the webhook routes of an interaction's token."""

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
        launch: ActivityLaunch | None = None
        if kind == LAUNCH_ACTIVITY:
            launch = self._launch(interaction)
        elif kind == CHANNEL_MESSAGE:
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
        if launch is not None:
            reply["interaction"]["activity_instance_id"] = launch.instance_id
            reply["resource"] = {"type": kind, "activity_instance": {"id": launch.instance_id}}
        if message is not None:
            reply["interaction"]["response_message_loading"] = message.loading
            reply["interaction"]["response_message_ephemeral"] = message.ephemeral
            reply["resource"] = {"type": kind, "message": self.message_json(message)}
        return reply

    def _launch(self, interaction: Interaction) -> ActivityLaunch:
        """Open the Activity for the interaction's member where Discord can, or refuse as Discord does."""
        if not self.state.activities_enabled:
            raise form_error("type", "Activities are not enabled for this application.")
        channel = self.state.channels.get(interaction.channel_id) or {}
        if channel.get("type") in THREAD_TYPES:
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        if not self.state.permissions(interaction.user.id, interaction.channel_id) & USE_EMBEDDED_ACTIVITIES:
            raise DiscordError(403, 50013, "Missing Permissions")
        launch = ActivityLaunch(
            instance_id=f"i-{self.state.snowflakes.next()}-gc-{self.state.guild_id}-{interaction.channel_id}",
            interaction_id=interaction.id,
            user_id=interaction.user.id,
            guild_id=self.state.guild_id,
            channel_id=interaction.channel_id,
            at=self.state.clock.now(),
        )
        self.state.activity_launches.append(launch)
        return launch

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
