"""Fake users: what a member can do in the Discord client, turned into INTERACTION_CREATE events.

Each action refuses what the real client could never send (a command that was not synced, a
missing required option, a value outside the declared choices, a button that is not on the
message, a disabled component, someone else's ephemeral message) with ``InjectionRefused``, then
waits until the bot has answered and returns what the user now sees.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.sandbox import limits, permissions
from bot.sandbox.errors import InjectionRefused, SandboxError
from bot.sandbox.hub import FakeHub
from bot.sandbox.permissions import (
    ADMINISTRATOR,
    MANAGE_THREADS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    USE_APPLICATION_COMMANDS,
    VIEW_CHANNEL,
)
from bot.sandbox.rest import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    CHANNEL_MESSAGE,
    COMPONENT,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE,
    MODAL,
    MODAL_SUBMIT,
    RESPONSE_DEADLINE,
    TOKEN_LIFETIME,
    UPDATE_MESSAGE,
)
from bot.sandbox.state import TEXT_INPUT, Interaction, Member, Message

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 3, 4, 5, 6, 7, 8, 9, 10, 11


@dataclass
class TextField:
    """One text input of a modal, whether bare in an action row or wrapped in a Label."""

    custom_id: str
    label: str
    required: bool
    min_length: int | None
    max_length: int | None
    value: str | None
    wrapper: int  # 1 = action row, 18 = label


@dataclass
class Modal:
    """A modal the bot opened for a user; pass it to ``SandboxUser.submit``."""

    interaction: Interaction
    title: str
    custom_id: str
    fields: list[TextField]

    def field(self, key: str) -> TextField:
        for item in self.fields:
            if key in (item.custom_id, item.label):
                return item
        raise InjectionRefused(f"modal {self.title!r} has no field {key!r}; it has {[f.label for f in self.fields]}")


class SandboxUser:
    """A guild member acting through the Discord client, in one channel."""

    def __init__(self, fake: FakeHub, member: Member, channel_id: int) -> None:
        self.fake = fake
        self.member = member
        self.channel_id = channel_id
        self.interactions: list[Interaction] = []

    async def __aenter__(self) -> SandboxUser:
        return self

    async def __aexit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is not None:
            return
        await self.fake.settle()
        silent = [i for i in self.interactions if not i.responded]
        if silent:
            raise SandboxError(f"{self.member.name}'s interactions were never answered: {[i.name for i in silent]}")

    def in_channel(self, channel_id: int) -> SandboxUser:
        """The same member, acting in another channel or thread."""
        return SandboxUser(self.fake, self.member, channel_id)

    # -- application commands -------------------------------------------------------------------

    async def slash(self, *path: str, unchecked: bool = False, **options: Any) -> Message:
        """Run ``/path...`` with ``options``; returns the message the bot answered with.

        ``unchecked=True`` sends what a client with stale command definitions (or a forged request)
        could: values outside the declared choices, ranges and lengths, a user option's id that is no
        member (sent unresolved, as discord.py then sees a bare ``Object``). Only what Discord's servers
        check themselves is still refused: option names and types, and 6,000 characters per value.
        """
        interaction = await self._command(APPLICATION_COMMAND, path, options, focused=None, unchecked=unchecked)
        return await self._outcome(interaction)

    async def slash_modal(self, *path: str, unchecked: bool = False, **options: Any) -> Modal:
        """Run a slash command the bot answers with a modal."""
        return self._modal(await self._command(APPLICATION_COMMAND, path, options, focused=None, unchecked=unchecked))

    async def autocomplete(
        self, *path: str, focused: str | None = None, unchecked: bool = False, **options: Any
    ) -> list[dict[str, Any]]:
        """Type into an option with autocomplete; returns the bot's choices as ``{"name", "value"}`` dicts.

        The focused option is ``focused`` or, by default, the last one given (the one being typed).
        ``unchecked`` as for ``slash``.
        """
        if not options:
            raise InjectionRefused("autocomplete needs the option being typed, e.g. move='d4'")
        interaction = await self._command(
            AUTOCOMPLETE, path, options, focused=focused or list(options)[-1], unchecked=unchecked
        )
        body = interaction.response_body or {}
        return list((body.get("data") or {}).get("choices") or [])

    def _find_command(self, name: str) -> dict[str, Any]:
        state = self.fake.state
        for scope in (state.guild_id, None):
            for command in state.commands.get(scope, []):
                if command["name"] == name and command["type"] == 1:
                    return command
        synced = sorted({c["name"] for cs in state.commands.values() for c in cs})
        raise InjectionRefused(f"/{name} was never synced with Discord (synced: {synced})")

    def _check_may_see(self, command: dict[str, Any]) -> None:
        """The client hides a command whose ``default_member_permissions`` the member lacks ("0": admins only),
        unless the server allowed it to the member or one of their roles (``FakeDiscord.permit_command``)."""
        raw = command.get("default_member_permissions")
        allowed = self.fake.state.command_permissions.get(command["name"], set())
        if raw is None or allowed & {self.member.id, *self.member.roles}:
            return
        required = int(raw)
        have = self.fake.state.permissions(self.member.id, self.channel_id)
        if have & ADMINISTRATOR or (required and have & required == required):
            return
        raise InjectionRefused(
            f"/{command['name']} needs {permissions.names(required) or ['administrator']}, which"
            f" {self.member.name} lacks; the Discord client does not offer it"
        )

    async def _command(
        self, kind: int, path: tuple[str, ...], options: dict[str, Any], focused: str | None, unchecked: bool = False
    ) -> Interaction:
        if not path:
            raise InjectionRefused("name the command, e.g. slash('veletas', 'challenge', ...)")
        command = self._find_command(path[0])
        self._check_may_see(command)
        declared: list[dict[str, Any]] = command.get("options") or []
        chain: list[dict[str, Any]] = []
        for name in path[1:]:
            sub = next(
                (o for o in declared if o["name"] == name and o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)), None
            )
            if sub is None:
                raise InjectionRefused(f"/{' '.join(path)}: {name!r} is not a sub-command here")
            chain.append(sub)
            declared = sub.get("options") or []
        if any(o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in declared):
            raise InjectionRefused(f"/{' '.join(path)} needs a sub-command: {[o['name'] for o in declared]}")
        resolved: dict[str, dict[str, Any]] = {}
        leaf = [self._option(path, o, options, resolved, focused, unchecked) for o in declared if o["name"] in options]
        unknown = set(options) - {o["name"] for o in declared}
        if unknown:
            raise InjectionRefused(f"/{' '.join(path)} has no option(s) {sorted(unknown)}")
        if kind == APPLICATION_COMMAND:
            missing = [o["name"] for o in declared if o.get("required") and o["name"] not in options]
            if missing:
                raise InjectionRefused(f"/{' '.join(path)} is missing required option(s) {missing}")
        nested = leaf
        for sub in reversed(chain):
            nested = [{"type": sub["type"], "name": sub["name"], "options": nested}]
        data: dict[str, Any] = {
            "id": command["id"],
            "name": command["name"],
            "type": 1,
            "options": nested,
        }
        if "guild_id" in command:
            data["guild_id"] = command["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return await self._run(kind, data)

    def _option(
        self,
        path: tuple[str, ...],
        option: dict[str, Any],
        given: dict[str, Any],
        resolved: dict[str, dict[str, Any]],
        focused: str | None,
        unchecked: bool,
    ) -> dict[str, Any]:
        name = option["name"]
        value = given[name]
        kind = option["type"]
        where = f"/{' '.join(path)} {name}"
        out: dict[str, Any] = {"name": name, "type": kind}
        if focused == name:
            if not option.get("autocomplete"):
                raise InjectionRefused(f"{where} has no autocomplete")
            out["value"] = str(value)
            # The client stops typing at max_length; what is being typed is sent as it stands.
            self._check_length(where, out["value"], None if unchecked else option.get("max_length"))
            out["focused"] = True
            return out
        if kind == STRING:
            if not isinstance(value, str):
                raise InjectionRefused(f"{where} takes text, got {value!r}")
            low, high = option.get("min_length"), option.get("max_length")
            if not unchecked and ((low is not None and len(value) < low) or (high is not None and len(value) > high)):
                raise InjectionRefused(f"{where} must be {low}..{high} characters long")
            self._check_length(where, value, None)
        elif kind in (INTEGER, NUMBER):
            if isinstance(value, bool) or not isinstance(value, int if kind == INTEGER else (int, float)):
                raise InjectionRefused(f"{where} takes a number, got {value!r}")
            low, high = option.get("min_value"), option.get("max_value")
            if not unchecked and ((low is not None and value < low) or (high is not None and value > high)):
                raise InjectionRefused(f"{where} must be between {low} and {high}")
        elif kind == BOOLEAN:
            if not isinstance(value, bool):
                raise InjectionRefused(f"{where} takes True or False, got {value!r}")
        elif kind in (USER, MENTIONABLE):
            member = value if isinstance(value, Member) else self.fake.state.members.get(int(value))
            if member is None and unchecked and isinstance(value, int):
                # A forged request: an id Discord resolves to no user (a role's, nobody's) arrives unresolved.
                out["value"] = str(value)
                return out
            if member is None:
                raise InjectionRefused(f"{where}: no such member {value!r}")
            resolved.setdefault("users", {})[str(member.id)] = member.user_json()
            resolved.setdefault("members", {})[str(member.id)] = member.member_json(
                with_user=False, permissions=self.fake.state.permissions(member.id, self.channel_id)
            )
            value = str(member.id)
        elif kind == CHANNEL:
            channel = self.fake.state.channels.get(int(value))
            if channel is None:
                raise InjectionRefused(f"{where}: no such channel {value!r}")
            allowed = option.get("channel_types")
            if allowed and channel["type"] not in allowed:
                raise InjectionRefused(f"{where} accepts channel types {allowed}, not {channel['type']}")
            resolved.setdefault("channels", {})[str(value)] = {
                k: channel[k] for k in ("id", "type", "name", "parent_id") if k in channel
            } | {"permissions": str(self.fake.state.permissions(self.member.id, int(value)))}
            value = str(value)
        elif kind == ROLE:
            # As Discord sends it: the role's id, and the role itself under resolved.roles.
            role_id = int(value)
            if role_id not in self.fake.state.role_permissions:
                raise InjectionRefused(f"{where}: no such role {value!r}")
            resolved.setdefault("roles", {})[str(role_id)] = self.fake.state.role_json(role_id)
            value = str(role_id)
        else:
            raise InjectionRefused(f"{where}: option type {kind} is not supported by the sandbox")
        choices = option.get("choices")
        if choices and not unchecked and value not in [c["value"] for c in choices]:
            raise InjectionRefused(f"{where}={value!r} is not one of {[c['value'] for c in choices]}")
        out["value"] = value
        return out

    @staticmethod
    def _check_length(where: str, value: str, declared: int | None) -> None:
        """No string option value is longer than its declared ``max_length`` (the client's check) or than
        ``limits.MAX_OPTION_VALUE`` (6,000: the largest ``max_length`` Discord accepts, and what its
        servers let through for any string option)."""
        if declared is not None and len(value) > declared:
            raise InjectionRefused(f"{where} allows at most {declared} characters; the client stops typing there")
        if len(value) > limits.MAX_OPTION_VALUE:
            raise InjectionRefused(f"{where}: Discord accepts at most {limits.MAX_OPTION_VALUE} characters per value")

    # -- components and modals -------------------------------------------------------------------

    def _visible(self, message: Message) -> Message:
        current = self.fake.state.messages.get(message.id)
        if current is None or current.deleted:
            raise InjectionRefused(f"message {message.id} no longer exists")
        if current.visible_to is not None and current.visible_to != self.member.id:
            raise InjectionRefused(f"message {message.id} is ephemeral and not shown to {self.member.name}")
        return current

    def _button(self, message: Message, key: str) -> dict[str, Any]:
        message = self._visible(message)
        for button in message.buttons:
            emoji = (button.get("emoji") or {}).get("name")
            if key in (button.get("label"), button.get("custom_id"), emoji):
                if button.get("disabled"):
                    raise InjectionRefused(f"button {key!r} is disabled")
                if button.get("style") in (5, 6) or "custom_id" not in button:
                    raise InjectionRefused(f"button {key!r} is a link or premium button; it opens no interaction")
                return button
        labels = [b.get("label") or b.get("custom_id") for b in message.buttons]
        raise InjectionRefused(f"message {message.id} has no button {key!r} (it has {labels})")

    async def click(self, message: Message, button: str) -> Message:
        """Press the button labelled (or with custom_id / emoji) ``button``; returns the message seen after."""
        return await self._outcome(await self._press(message, button))

    async def click_modal(self, message: Message, button: str) -> Modal:
        """Press a button the bot answers with a modal."""
        return self._modal(await self._press(message, button))

    async def _press(self, message: Message, key: str) -> Interaction:
        button = self._button(message, key)
        data = {"custom_id": button["custom_id"], "component_type": 2}
        return await self._run(COMPONENT, data, source=self._visible(message))

    async def select(self, message: Message, *values: Any, menu: str | None = None) -> Message:
        """Choose ``values`` (option values or labels; members for user selects) in a select menu.

        ``menu`` names the select by custom_id or placeholder when the message has more than one.
        """
        return await self._outcome(await self._choose(message, values, menu))

    async def _choose(self, message: Message, values: tuple[Any, ...], menu: str | None) -> Interaction:
        current = self._visible(message)
        menus = [s for s in current.selects if menu is None or menu in (s.get("custom_id"), s.get("placeholder"))]
        if len(menus) != 1:
            raise InjectionRefused(
                f"message {message.id} has {len(menus)} select menu(s) matching {menu!r}: "
                f"{[s.get('placeholder') or s.get('custom_id') for s in current.selects]}"
            )
        chosen = menus[0]
        if chosen.get("disabled"):
            raise InjectionRefused(f"select {chosen.get('placeholder')!r} is disabled")
        low = int(chosen.get("min_values", 1))
        high = int(chosen.get("max_values", 1))
        if not low <= len(values) <= high:
            raise InjectionRefused(
                f"select {chosen.get('placeholder')!r} takes {low}..{high} values, got {len(values)}"
            )
        data: dict[str, Any] = {"custom_id": chosen["custom_id"], "component_type": chosen["type"]}
        if chosen["type"] == 3:
            picked = []
            for value in values:
                option = next((o for o in chosen["options"] if value in (o["value"], o["label"])), None)
                if option is None:
                    offered = [o["value"] for o in chosen["options"]]
                    raise InjectionRefused(f"select {chosen.get('placeholder')!r} has no option {value!r}: {offered}")
                picked.append(option["value"])
            data["values"] = picked
        else:
            ids = [str(v.id if isinstance(v, Member) else int(v)) for v in values]
            data["values"] = ids
            if chosen["type"] in (5, 7):
                members = [self.fake.state.members.get(int(i)) for i in ids]
                if any(m is None for m in members):
                    raise InjectionRefused(f"select {chosen.get('placeholder')!r}: unknown member among {ids}")
                data["resolved"] = {
                    "users": {str(m.id): m.user_json() for m in members if m},
                    "members": {
                        str(m.id): m.member_json(
                            with_user=False, permissions=self.fake.state.permissions(m.id, current.channel_id)
                        )
                        for m in members
                        if m
                    },
                }
        return await self._run(COMPONENT, data, source=current)

    def _modal(self, interaction: Interaction) -> Modal:
        if interaction.response_type != MODAL:
            raise SandboxError(f"expected a modal, the bot answered with callback type {interaction.response_type}")
        data = (interaction.response_body or {}).get("data") or {}
        fields: list[TextField] = []
        for wrapper in data.get("components") or []:
            inner = wrapper.get("components") or ([wrapper["component"]] if "component" in wrapper else [])
            for item in inner:
                if item.get("type") != TEXT_INPUT:
                    continue
                fields.append(
                    TextField(
                        custom_id=item["custom_id"],
                        label=str(wrapper.get("label") or item.get("label") or ""),
                        required=bool(item.get("required", True)),
                        min_length=item.get("min_length"),
                        max_length=item.get("max_length"),
                        value=item.get("value"),
                        wrapper=int(wrapper.get("type", 1)),
                    )
                )
        return Modal(interaction, str(data.get("title", "")), str(data["custom_id"]), fields)

    async def submit(self, modal: Modal, values: Mapping[str, str] | None = None, **by_name: str) -> Message:
        """Fill ``modal``'s text inputs (keyed by label or custom_id) and submit it."""
        return await self._outcome(await self._send(modal, dict(values or {}) | by_name))

    async def _send(self, modal: Modal, given: dict[str, str]) -> Interaction:
        filled: dict[str, str] = {}
        for key, value in given.items():
            filled[modal.field(key).custom_id] = value
        components = []
        for item in modal.fields:
            value = filled.get(item.custom_id, item.value or "")
            if item.required and not value:
                raise InjectionRefused(f"modal {modal.title!r}: {item.label!r} is required")
            if value and item.min_length is not None and len(value) < item.min_length:
                raise InjectionRefused(
                    f"modal {modal.title!r}: {item.label!r} needs at least {item.min_length} characters"
                )
            if item.max_length is not None and len(value) > item.max_length:
                raise InjectionRefused(
                    f"modal {modal.title!r}: {item.label!r} allows at most {item.max_length} characters"
                )
            text = {"type": TEXT_INPUT, "custom_id": item.custom_id, "value": value}
            if item.wrapper == 18:
                components.append({"type": 18, "component": text})
            else:
                components.append({"type": 1, "components": [text]})
        data = {"custom_id": modal.custom_id, "components": components}
        source_id = modal.interaction.source_message_id
        source = self.fake.state.messages.get(source_id) if source_id is not None else None
        return await self._run(MODAL_SUBMIT, data, source=source, channel_id=modal.interaction.channel_id)

    # -- acting without knowing the answer in advance (the local table's page) --------------------

    async def run_command(self, *path: str, **options: Any) -> Modal | None:
        """Run a slash command and return once the bot answered: the modal it opened, or None.

        Unlike ``slash`` this does not wait for a "thinking..." message to be finished: a person
        at the Discord client sees the answer arrive whenever it comes.
        """
        return self.modal_of(await self._command(APPLICATION_COMMAND, path, options, focused=None))

    async def press(self, message: Message, button: str) -> Modal | None:
        """Press a button; the modal it opened, or None once the bot answered otherwise."""
        return self.modal_of(await self._press(message, button))

    async def choose(self, message: Message, *values: Any, menu: str | None = None) -> Modal | None:
        """Choose in a select menu; the modal it opened, or None once the bot answered otherwise."""
        return self.modal_of(await self._choose(message, values, menu))

    async def send_modal(self, modal: Modal, values: Mapping[str, str]) -> Modal | None:
        """Submit a modal; None once the bot answered (a bot cannot answer a submit with a modal)."""
        return self.modal_of(await self._send(modal, dict(values)))

    def modal_of(self, interaction: Interaction) -> Modal | None:
        return self._modal(interaction) if interaction.response_type == MODAL else None

    # -- plain messages --------------------------------------------------------------------------

    async def say(self, content: str) -> Message:
        """Post an ordinary message in this user's channel (the bot sees it as MESSAGE_CREATE)."""
        await self.fake.settle()
        state = self.fake.state
        sending = SEND_MESSAGES_IN_THREADS if state.is_thread(self.channel_id) else SEND_MESSAGES
        allowed = state.permissions(self.member.id, self.channel_id)
        if not allowed & sending:
            raise InjectionRefused(f"{self.member.name} may not send messages in channel {self.channel_id}")
        thread = state.channels[self.channel_id].get("thread_metadata") or {}
        if thread.get("locked") and not allowed & MANAGE_THREADS:
            raise InjectionRefused(f"thread {self.channel_id} is locked; only moderators can write in it")
        return await self.fake.rest.create_message(self.channel_id, {"content": content}, [], author=self.member)

    # -- plumbing ------------------------------------------------------------------------------

    async def _run(
        self, kind: int, data: dict[str, Any], *, source: Message | None = None, channel_id: int | None = None
    ) -> Interaction:
        fake = self.fake
        state = fake.state
        session = fake.gateway.current
        if session is None or session.ws is None:
            raise SandboxError("no bot is connected to the sandbox gateway")
        await fake.settle()
        where = source.channel_id if source is not None else channel_id or self.channel_id
        channel = state.channels.get(where)
        if channel is None:
            raise InjectionRefused(f"channel {where} does not exist")
        allowed = state.permissions(self.member.id, where)
        if not allowed & VIEW_CHANNEL:
            raise InjectionRefused(f"{self.member.name} cannot see channel {where}, so cannot act in it")
        if kind in (APPLICATION_COMMAND, AUTOCOMPLETE) and not allowed & USE_APPLICATION_COMMANDS:
            raise InjectionRefused(f"{self.member.name} may not use application commands in channel {where}")
        interaction_id = state.snowflakes.next()
        token = "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48)
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(state.application_id),
            "type": kind,
            "data": data,
            "guild_id": str(state.guild_id),
            "guild": {"id": str(state.guild_id), "locale": state.preferred_locale, "features": []},
            "channel_id": str(where),
            "channel": {k: v for k, v in channel.items() if k != "member"},
            # Both permission sets are the ones in this channel, overwrites applied, as Discord sends them.
            "member": self.member.member_json(permissions=state.permissions(self.member.id, where)),
            "token": token,
            "version": 1,
            "app_permissions": str(state.permissions(state.bot.id, where)),
            # The member's own client language, and the server's, as Discord sends both with every interaction.
            "locale": self.member.locale,
            "guild_locale": state.preferred_locale,
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(state.guild_id)},
            "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if source is not None:
            custom_id = data.get("custom_id")
            if kind == COMPONENT and custom_id is not None and custom_id not in _custom_ids(source.data):
                # The bot edited the component away while the press was on its way: Discord checks the
                # message as it is now and fails the press in the client ("This interaction failed").
                raise InjectionRefused(f"message {source.id} no longer has a component {custom_id!r}")
            payload["message"] = fake.rest.message_json(source)
        interaction = Interaction(
            id=interaction_id,
            token=token,
            type=kind,
            user=self.member,
            channel_id=where,
            created_at=state.clock.now(),
            payload=payload,
            source_message_id=source.id if source is not None else None,
        )
        state.interactions[interaction_id] = interaction
        self.interactions.append(interaction)
        await fake.gateway.dispatch("INTERACTION_CREATE", payload)

        def answered() -> bool:
            if interaction.responded:
                return True
            if state.clock.now() - interaction.created_at > RESPONSE_DEADLINE:
                raise SandboxError(
                    f"the bot did not answer {interaction.name!r} from {self.member.name} within Discord's"
                    f" {RESPONSE_DEADLINE:.0f} s; the user sees 'The application did not respond'"
                )
            return False

        await fake.wait_until(answered, what=f"the bot to answer {interaction.name!r} from {self.member.name}")
        return interaction

    async def _outcome(self, interaction: Interaction) -> Message:
        """What the user sees once the bot answered: the new or updated message."""
        state = self.fake.state
        kind = interaction.response_type
        if kind == MODAL:
            raise SandboxError("the bot answered with a modal; use slash_modal() or click_modal()")
        if kind == DEFERRED_UPDATE:
            assert interaction.source_message_id is not None
            return state.messages[interaction.source_message_id]
        if (
            kind not in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, UPDATE_MESSAGE)
            or interaction.original_message_id is None
        ):
            raise SandboxError(f"interaction answered with callback type {kind}, which shows no message")
        message = state.messages[interaction.original_message_id]
        if kind == DEFERRED_CHANNEL_MESSAGE:
            clock = self.fake.state.clock

            def replaced() -> bool:
                if not message.loading or message.deleted:
                    return True
                if clock.now() - interaction.created_at > TOKEN_LIFETIME:
                    raise SandboxError(f"the 'thinking...' message of {interaction.name!r} was never replaced")
                return False

            await self.fake.wait_until(
                replaced, what=f"the bot to finish the 'thinking...' message of {interaction.name!r}"
            )
        return message


def _custom_ids(node: Any) -> set[str]:
    """Every custom_id among a message's components, however deeply they are nested."""
    found: set[str] = set()
    if isinstance(node, dict):
        if isinstance(node.get("custom_id"), str):
            found.add(node["custom_id"])
        for child in node.get("components") or ():
            found |= _custom_ids(child)
        if "accessory" in node:
            found |= _custom_ids(node["accessory"])
    return found
