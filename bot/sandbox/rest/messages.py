"""Messages and their attachments: the routes that read and write channel messages, and the machinery every
route that posts, edits or deletes a message goes through (interactions and webhooks included)."""

from __future__ import annotations

import copy
import re
from typing import Any

from bot.sandbox import limits
from bot.sandbox.bodies import Upload
from bot.sandbox.clock import iso_timestamp
from bot.sandbox.errors import DiscordError, form_error, unknown
from bot.sandbox.permissions import MANAGE_MESSAGES, MANAGE_THREADS, READ_MESSAGE_HISTORY
from bot.sandbox.rest.base import RestBase
from bot.sandbox.rest.router import Call
from bot.sandbox.state import LOADING, Attachment, Interaction, Member, Message, json_copy

_MENTION = re.compile(r"<@!?(\d+)>")


class MessageRoutes(RestBase):
    """Channel and direct messages; ``create_message``, ``apply_edit`` and ``remove_message`` serve every route."""

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
