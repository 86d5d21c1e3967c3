"""What the fake Discord remembers: one guild, its members and channels, messages, commands, interactions.

Payloads are kept as the JSON Discord would send, so the REST routes, the gateway and the test
helpers all read the same source of truth. Message objects are live: an edit by the bot changes
the object a test already holds, and ``history`` keeps what it looked like before.
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from bot.sandbox import permissions
from bot.sandbox.clock import SimClock, Snowflakes, iso_timestamp
from bot.sandbox.oauth import OAuth

EPHEMERAL = 1 << 6
LOADING = 1 << 7
IS_COMPONENTS_V2 = 1 << 15
# The application flag of an app with Activities enabled (the developer portal's Activities > Settings).
EMBEDDED_FLAG = 1 << 17
THREAD_TYPES = (10, 11, 12)

GUILDS_INTENT = 1 << 0
GUILD_MEMBERS_INTENT = 1 << 1
GUILD_PRESENCES_INTENT = 1 << 8
GUILD_MESSAGES_INTENT = 1 << 9
MESSAGE_CONTENT_INTENT = 1 << 15
PRIVILEGED_INTENTS = GUILD_MEMBERS_INTENT | GUILD_PRESENCES_INTENT | MESSAGE_CONTENT_INTENT
KNOWN_INTENTS = sum(1 << bit for bit in (*range(17), 20, 21, 24, 25))  # every intent bit Discord defines

_PERMISSION_BITS = (6, 10, 11, 14, 15, 16, 17, 18, 31, 35, 36, 38, 39)  # 39: Use Activities, on by default
MEMBER_PERMISSIONS = sum(1 << bit for bit in _PERMISSION_BITS)
BOT_PERMISSIONS = MEMBER_PERMISSIONS | (1 << 13) | (1 << 34)  # manage messages, manage threads

COMPONENT_BUTTON = 2
SELECT_TYPES = {3, 5, 6, 7, 8}
TEXT_INPUT = 4


_SCALARS = (str, int, float, bool, type(None))


def json_copy(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists and scalars), the same as ``copy.deepcopy`` makes of it at a
    fraction of the cost; anything else inside is handed to ``copy.deepcopy``."""
    kind = type(value)
    if kind is dict:
        return {key: json_copy(item) for key, item in value.items()}
    if kind is list:
        return [json_copy(item) for item in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


def iter_interactive(components: list[dict[str, Any]] | None) -> Iterator[dict[str, Any]]:
    """Buttons, selects and text inputs at any depth (rows, sections, containers, labels)."""
    for component in components or []:
        kind = component.get("type")
        if kind in (COMPONENT_BUTTON, TEXT_INPUT) or kind in SELECT_TYPES:
            yield component
        yield from iter_interactive(component.get("components"))
        for key in ("accessory", "component"):
            child = component.get(key)
            if isinstance(child, dict):
                yield from iter_interactive([child])


@dataclass
class Member:
    """A guild member a test can act as or mention; ``id`` is what option values carry."""

    id: int
    name: str
    bot: bool = False
    roles: list[int] = field(default_factory=list)
    joined_at: str = field(default_factory=iso_timestamp)
    accepts_dms: bool = True  # False: the member closed direct messages from server members (Discord's 50007)
    locale: str = "en-US"  # the member's Discord client language, sent with each interaction as ``locale``

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def user_json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.name.title(),
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }

    def member_json(self, *, with_user: bool = True, permissions: int | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "nick": None,
            "avatar": None,
            "roles": [str(r) for r in self.roles],
            "joined_at": self.joined_at,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
        }
        if with_user:
            data["user"] = self.user_json()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


@dataclass
class Attachment:
    """A file the bot uploaded; ``data`` holds the exact bytes (a PNG board, a GIF replay...)."""

    id: int
    filename: str
    data: bytes
    content_type: str | None
    url: str
    description: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.content_type:
            data["content_type"] = self.content_type
        if self.description:
            data["description"] = self.description
        return data


@dataclass
class Message:
    """A message as Discord stores it, plus the files behind its attachments."""

    id: int
    channel_id: int
    guild_id: int | None
    author: Member
    data: dict[str, Any]
    attachments: list[Attachment] = field(default_factory=list)
    interaction_id: int | None = None
    visible_to: int | None = None  # ephemeral: only this user sees it
    deleted: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def content(self) -> str:
        return str(self.data.get("content") or "")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.data.get("embeds") or [])

    @property
    def components(self) -> list[dict[str, Any]]:
        return list(self.data.get("components") or [])

    @property
    def flags(self) -> int:
        return int(self.data.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while this is still the "thinking..." message of a deferred interaction."""
        return bool(self.flags & LOADING)

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in iter_interactive(self.components) if c.get("type") == COMPONENT_BUTTON]

    @property
    def selects(self) -> list[dict[str, Any]]:
        return [c for c in iter_interactive(self.components) if c.get("type") in SELECT_TYPES]

    @property
    def files(self) -> dict[str, bytes]:
        return {a.filename: a.data for a in self.attachments}

    @property
    def edited(self) -> bool:
        return bool(self.history)

    def text(self) -> str:
        """Content plus embed titles, descriptions and fields: everything a reader sees as text."""
        parts = [self.content]
        for embed in self.embeds:
            parts.extend(str(embed.get(key) or "") for key in ("title", "description"))
            for item in embed.get("fields") or []:
                parts.extend((str(item.get("name", "")), str(item.get("value", ""))))
            footer = embed.get("footer") or {}
            parts.append(str(footer.get("text") or ""))
        return "\n".join(p for p in parts if p)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = json_copy(self.data)
        data["attachments"] = [a.to_json() for a in self.attachments]
        return data

    def __repr__(self) -> str:
        return f"<Message id={self.id} channel={self.channel_id} content={self.content[:40]!r} flags={self.flags}>"


@dataclass
class Interaction:
    """One interaction a fake user started, and everything the bot did with it."""

    id: int
    token: str
    type: int
    user: Member
    channel_id: int
    created_at: float
    payload: dict[str, Any]
    source_message_id: int | None = None
    response_type: int | None = None
    response_body: dict[str, Any] | None = None
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)

    @property
    def responded(self) -> bool:
        return self.response_type is not None

    @property
    def name(self) -> str:
        data = self.payload.get("data") or {}
        return str(data.get("name") or data.get("custom_id") or "")

    @property
    def command_path(self) -> str:
        """The command with its sub-command group and sub-command ("veletas move"), as a message's
        ``interaction.name`` carries it and Discord shows it ("alice used /veletas move")."""
        data = self.payload.get("data") or {}
        words = [str(data.get("name") or "")]
        options = data.get("options") or []
        while options and options[0].get("type") in (1, 2):  # SUB_COMMAND, SUB_COMMAND_GROUP
            words.append(str(options[0]["name"]))
            options = options[0].get("options") or []
        return " ".join(words)


@dataclass
class ActivityLaunch:
    """An Activity Discord opened for a member, answering an interaction with LAUNCH_ACTIVITY."""

    instance_id: str
    interaction_id: int
    user_id: int
    guild_id: int
    channel_id: int
    at: float


class Interactions(MutableMapping[int, Interaction]):
    """Every interaction by id, and by token as webhook routes look them up: one dict lookup, however many
    interactions a long run has made. Every change goes through ``__setitem__`` and ``__delitem__``, which keep
    the token index in step."""

    def __init__(self) -> None:
        self._by_id: dict[int, Interaction] = {}
        # Token -> ids holding it, oldest first (tokens are random, so in practice one id each).
        self._by_token: dict[str, dict[int, None]] = {}

    def __getitem__(self, interaction_id: int) -> Interaction:
        return self._by_id[interaction_id]

    def __setitem__(self, interaction_id: int, interaction: Interaction) -> None:
        if interaction_id in self._by_id:
            self._unindex(interaction_id)
        self._by_id[interaction_id] = interaction
        self._by_token.setdefault(interaction.token, {})[interaction_id] = None

    def __delitem__(self, interaction_id: int) -> None:
        self._unindex(interaction_id)
        del self._by_id[interaction_id]

    def _unindex(self, interaction_id: int) -> None:
        token = self._by_id[interaction_id].token
        ids = self._by_token.get(token, {})
        ids.pop(interaction_id, None)
        if not ids:
            self._by_token.pop(token, None)

    def __iter__(self) -> Iterator[int]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def __repr__(self) -> str:
        return repr(self._by_id)

    def by_token(self, token: str) -> Interaction | None:
        """The interaction holding ``token`` (the first made, should two share one)."""
        ids = self._by_token.get(token)
        if not ids:
            return None
        first = min(ids, key=list(self._by_id).index) if len(ids) > 1 else next(iter(ids))
        return self._by_id[first]


class SandboxState:
    """The single guild world the fake serves, with the ids a test needs to talk about it."""

    def __init__(
        self, clock: SimClock, snowflakes: Snowflakes, base_url: str, guild_shard: tuple[int, int] | None = None
    ) -> None:
        self.clock = clock
        self.snowflakes = snowflakes
        self.base_url = base_url
        self.token = "sandbox." + secrets.token_urlsafe(24)
        self.application_id = snowflakes.next()
        self.bot = Member(self.application_id, "veletas-sandbox-bot", bot=True)
        # The application's OAuth2 (client secret, codes, members' access tokens) and its Activity: whether it is
        # enabled, and every launch Discord accepted, oldest first.
        self.oauth = OAuth(clock, self.application_id)
        self.activities_enabled = True
        self.activity_launches: list[ActivityLaunch] = []
        # ``guild_shard`` (shard id, shard count): a server whose events go to that gateway shard.
        self.guild_id = snowflakes.next() if guild_shard is None else snowflakes.next_in_shard(*guild_shard)
        # The server's language in Discord (Community servers choose it), sent as ``guild_locale``.
        self.preferred_locale = "en-US"
        self.owner = Member(snowflakes.next(), "owner")
        self.members: dict[int, Member] = {}
        self.channels: dict[int, dict[str, Any]] = {}
        self.thread_members: dict[int, set[int]] = {}
        self.messages: dict[int, Message] = {}
        self.commands: dict[int | None, list[dict[str, Any]]] = {None: []}
        # A server's own permissions for a command (Server Settings > Integrations): the members and roles
        # allowed it, which replace the command's ``default_member_permissions`` in this server.
        self.command_permissions: dict[str, set[int]] = {}
        self.interactions = Interactions()
        self.bot_role_id = snowflakes.next()
        self.bot.roles.append(self.bot_role_id)
        self.role_permissions: dict[int, int] = {self.guild_id: MEMBER_PERMISSIONS, self.bot_role_id: BOT_PERMISSIONS}
        self.role_names: dict[int, str] = {}  # roles a test added, beyond @everyone and the bot's
        for member in (self.owner, self.bot):
            self.members[member.id] = member
        self.general_id = self.add_text_channel("general")

    # -- world building ---------------------------------------------------------------------

    def add_member(self, name: str, *, bot: bool = False) -> Member:
        member = Member(self.snowflakes.next(), name, bot=bot)
        self.members[member.id] = member
        return member

    def add_role(self, name: str, permissions: int) -> int:
        role_id = self.snowflakes.next()
        self.role_permissions[role_id] = permissions
        self.role_names[role_id] = name
        return role_id

    def role_json(self, role_id: int) -> dict[str, Any]:
        everyone = role_id == self.guild_id
        return {
            "id": str(role_id),
            "name": "@everyone" if everyone else self.role_names.get(role_id, "Veletas"),
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": list(self.role_permissions).index(role_id),
            "permissions": str(self.role_permissions[role_id]),
            "managed": role_id == self.bot_role_id,
            "mentionable": False,
            "flags": 0,
        } | ({"tags": {"bot_id": str(self.application_id)}} if role_id == self.bot_role_id else {})

    def member_named(self, name: str) -> Member:
        for member in self.members.values():
            if member.name == name:
                return member
        raise KeyError(name)

    def open_dm(self, member: Member) -> dict[str, Any]:
        """The direct-message channel between the bot and ``member``, made on first use (kept with the channels)."""
        for channel in self.channels.values():
            if channel["type"] == 1 and channel["recipients"][0]["id"] == str(member.id):
                return channel
        channel_id = self.snowflakes.next()
        self.channels[channel_id] = {
            "id": str(channel_id),
            "type": 1,
            "last_message_id": None,
            "flags": 0,
            "recipients": [member.user_json()],
        }
        return self.channels[channel_id]

    def add_text_channel(self, name: str) -> int:
        channel_id = self.snowflakes.next()
        self.channels[channel_id] = {
            "id": str(channel_id),
            "type": 0,
            "guild_id": str(self.guild_id),
            "name": name,
            "position": len(self.channels),
            "permission_overwrites": [],
            "topic": None,
            "nsfw": False,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "parent_id": None,
            "flags": 0,
        }
        return channel_id

    def add_thread(
        self, parent_id: int, name: str, *, thread_id: int, kind: int, owner: Member, **extra: Any
    ) -> dict[str, Any]:
        now = iso_timestamp()
        thread: dict[str, Any] = {
            "id": str(thread_id),
            "type": kind,
            "guild_id": str(self.guild_id),
            "parent_id": str(parent_id),
            "owner_id": str(owner.id),
            "name": name,
            "last_message_id": None,
            "message_count": 0,
            "member_count": 1,
            "total_message_sent": 0,
            "rate_limit_per_user": int(extra.get("rate_limit_per_user") or 0),
            "flags": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": int(extra.get("auto_archive_duration") or 4320),
                "archive_timestamp": now,
                "locked": False,
                "create_timestamp": now,
            },
        }
        if kind == 12:
            thread["thread_metadata"]["invitable"] = bool(extra.get("invitable", True))
        self.channels[thread_id] = thread
        self.thread_members[thread_id] = {owner.id}
        return thread

    def is_thread(self, channel_id: int) -> bool:
        return self.is_thread_payload(self.channels.get(channel_id, {}))

    @staticmethod
    def is_thread_payload(channel: dict[str, Any]) -> bool:
        return channel.get("type") in (10, 11, 12)

    def permissions(self, member_id: int, channel_id: int) -> int:
        """What ``member_id`` may do in a channel or thread (0 for a channel that does not exist)."""
        channel = self.channels.get(channel_id)
        if channel is None:
            return 0
        in_thread = self.is_thread_payload(channel)
        if in_thread:
            channel = self.channels.get(int(channel["parent_id"]), {})
        member = self.members.get(member_id)
        return permissions.compute(
            member_id=member_id,
            role_ids=member.roles if member is not None else [],
            guild_id=self.guild_id,
            owner_id=self.owner.id,
            role_permissions=self.role_permissions,
            overwrites=list(channel.get("permission_overwrites") or []),
            in_thread=in_thread,
        )

    def guild_json(self) -> dict[str, Any]:
        channels = [c for c in self.channels.values() if c["type"] not in (1, 10, 11, 12)]
        threads = [c for c in self.channels.values() if c["type"] in (10, 11, 12)]
        return {
            "id": str(self.guild_id),
            "name": "Veletas Sandbox",
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner.id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [self.role_json(role_id) for role_id in self.role_permissions],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": str(self.general_id),
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.preferred_locale,
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": iso_timestamp(self.guild_id),
            "large": False,
            "unavailable": False,
            "member_count": len(self.members),
            "members": [m.member_json() for m in self.members.values()],
            "channels": copy.deepcopy(channels),
            "threads": copy.deepcopy(threads),
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def application_json(self) -> dict[str, Any]:
        return {
            "id": str(self.application_id),
            "name": self.bot.name,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            # the members and message content intents are enabled, and Activities when they are
            "flags": (1 << 15) | (1 << 19) | (EMBEDDED_FLAG if self.activities_enabled else 0),
            "owner": self.owner.user_json(),
            "team": None,
            "bot": self.bot.user_json(),
            "approximate_guild_count": 1,
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "tags": [],
        }

    # -- messages ----------------------------------------------------------------------------

    def channel_messages(self, channel_id: int) -> list[Message]:
        return [m for m in self.messages.values() if m.channel_id == channel_id and not m.deleted]

    def attachment_url(self, channel_id: int, attachment_id: int, filename: str) -> str:
        return f"{self.base_url}/attachments/{channel_id}/{attachment_id}/{filename}"
