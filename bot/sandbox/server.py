"""``FakeDiscord``: the loopback server, what it recorded, and how a test waits for the bot.

One instance serves REST under ``/api/v10``, the gateway, and uploaded files, on a random free
port of 127.0.0.1. Every request is recorded; every answer of 400 or more is also kept in
``errors`` until the test takes it with ``take_errors()``, and ``check()`` (run by the pytest
fixture at teardown) fails a test that left any, so a bot bug that Discord would reject cannot
hide behind a test that looked elsewhere.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import copy
import json
import logging
import math
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import discord
from aiohttp import web
from discord.ext import commands

from bot.sandbox import permissions
from bot.sandbox.bodies import MAX_BODY, read_body
from bot.sandbox.clock import SimClock, Snowflakes
from bot.sandbox.errors import DiscordError, SandboxError, SandboxTimeout
from bot.sandbox.gateway import Gateway
from bot.sandbox.oauth import OAuthError
from bot.sandbox.rest import Call, Rest
from bot.sandbox.runner import BotFactory, BotRunner
from bot.sandbox.spec import DEFAULT_SPEC_PATH, SpecValidator
from bot.sandbox.state import PRIVILEGED_INTENTS, ActivityLaunch, Member, Message, SandboxState
from bot.sandbox.users import SandboxUser

log = logging.getLogger(__name__)

API_PREFIX = "/api/v10"


def basic_credentials(header: str) -> tuple[str, str] | None:
    """The client id and secret of an ``Authorization: Basic`` header (OAuth2's other way to send them)."""
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        login, colon, password = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
    except (ValueError, UnicodeDecodeError):
        return None
    return (login, password) if colon else None


T = TypeVar("T")


@dataclass
class Fault:
    """A failure the fake answers instead of serving a request, as Discord does under load or in an outage.

    ``status`` 429 answers Discord's rate-limit body (``retry_after`` in seconds, ``global``) with the
    ``Retry-After`` and ``X-RateLimit-*`` headers discord.py reads; any other status answers
    ``{"message", "code"}``. ``times`` is how many matching requests fail (``None``: until removed).
    """

    method: str
    path: re.Pattern[str]
    status: int
    code: int = 0
    message: str = ""
    retry_after: float = 0.05
    is_global: bool = False
    times: int | None = 1
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        return (self.method in ("*", method)) and self.path.search(path) is not None and not self.spent

    @property
    def spent(self) -> bool:
        return self.times is not None and self.hits >= self.times

    def answer(self) -> tuple[int, dict[str, Any], dict[str, str]]:
        self.hits += 1
        if self.status == 429:
            body: dict[str, Any] = {
                "message": self.message or "You are being rate limited.",
                "retry_after": self.retry_after,
                "global": self.is_global,
            }
            if self.code:
                body["code"] = self.code
            # Discord's own 429s pass through its proxy and carry Via; without it discord.py takes the
            # answer for a Cloudflare ban and gives up instead of waiting.
            headers = {
                "Via": "1.1 google",
                "Retry-After": str(max(1, math.ceil(self.retry_after))),
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset-After": f"{self.retry_after:.3f}",
                "X-RateLimit-Bucket": "sandbox-fault",
                "X-RateLimit-Scope": "global" if self.is_global else "user",
            }
            if self.is_global:
                headers["X-RateLimit-Global"] = "true"
            return 429, body, headers
        return self.status, {"message": self.message or f"{self.status}: sandbox fault", "code": self.code}, {}


@dataclass
class RateLimit:
    """A per-route bucket as Discord runs them: at most ``limit`` requests in any ``per`` seconds (real time, as
    the client sleeps in real time). Every answer carries the bucket's ``X-RateLimit-*`` headers, so a client
    that reads them waits before it runs out; one that does not is answered 429 with ``Retry-After``."""

    method: str
    path: re.Pattern[str]
    limit: int
    per: float
    name: str = "sandbox-bucket"
    stamps: list[float] = field(default_factory=list)
    served: int = 0
    limited: int = 0
    busiest: int = 0

    def matches(self, method: str, path: str) -> bool:
        return self.method in ("*", method) and self.path.search(path) is not None

    def _window(self, now: float) -> None:
        self.stamps = [t for t in self.stamps if t > now - self.per]

    def take(self, now: float) -> float | None:
        """Count a request now; the seconds until it may be retried when the bucket is already empty."""
        self._window(now)
        if len(self.stamps) >= self.limit:
            self.limited += 1
            return self.stamps[0] + self.per - now
        self.stamps.append(now)
        self.served += 1
        self.busiest = max(self.busiest, len(self.stamps))
        return None

    def headers(self, now: float) -> dict[str, str]:
        self._window(now)
        reset_after = (self.stamps[0] + self.per - now) if self.stamps else self.per
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(max(0, self.limit - len(self.stamps))),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": self.name,
        }

    def refusal(self, wait: float, now: float) -> tuple[int, dict[str, Any], dict[str, str]]:
        body = {"message": "You are being rate limited.", "retry_after": round(wait, 3), "global": False}
        headers = self.headers(now) | {
            "Via": "1.1 google",
            "Retry-After": str(max(1, math.ceil(wait))),
            "X-RateLimit-Scope": "user",
        }
        return 429, body, headers


@dataclass
class RecordedRequest:
    """One REST call the bot made and what the fake answered."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    files: dict[str, bytes] = field(default_factory=dict)
    authorized: bool = False
    status: int = 0
    response: Any = None
    faulted: bool = False
    at: float = 0.0  # when it arrived, on the fake's clock (``clock.now()``)

    @property
    def error_code(self) -> int | None:
        return self.response.get("code") if isinstance(self.response, dict) and self.status >= 400 else None

    def __repr__(self) -> str:
        return f"<{self.method} {self.path} -> {self.status} {self.response if self.status >= 400 else ''}>"


# Fields of GUILD_CREATE that GUILD_UPDATE does not carry.
_CREATE_ONLY = frozenset(
    {"members", "channels", "threads", "voice_states", "presences", "joined_at", "large", "member_count", "unavailable"}
)


class FakeDiscord:
    """A faithful, small Discord for one bot, one guild and a few fake members.

    ``lifetime`` bounds how long the server may run, so a forgotten instance cannot outlive the test
    session; ``validate=False`` skips the OpenAPI check (only for a try-it mode without the spec).
    """

    def __init__(
        self,
        *,
        spec_path: Path = DEFAULT_SPEC_PATH,
        validate: bool = True,
        lifetime: float = 600.0,
        privileged_intents: int = PRIVILEGED_INTENTS,
        wait_timeout: float = 10.0,
        guild_shard: tuple[int, int] | None = None,
    ) -> None:
        self.guild_shard = guild_shard  # (shard id, shard count): the gateway shard the server belongs to
        self.validator = SpecValidator.shared(spec_path) if validate else None
        self.lifetime = lifetime
        self.wait_timeout = wait_timeout
        self.clock = SimClock()
        # Fakes of several servers (one per shard) make their ids with different worker numbers, as Discord's
        # workers do, so no two of them ever give out the same id.
        self.snowflakes = Snowflakes() if guild_shard is None else Snowflakes(worker=2 + guild_shard[0])
        self._privileged_intents = privileged_intents
        self.requests: list[RecordedRequest] = []
        self.errors: list[RecordedRequest] = []
        self.faults: list[Fault] = []
        self.rate_limits: list[RateLimit] = []
        self._waiters: list[asyncio.Future[None]] = []
        # Called after every change, like the waiters: the local table's page listens here.
        self.listeners: list[Callable[[], None]] = []
        self._runner: web.AppRunner | None = None
        self._expiry: asyncio.TimerHandle | None = None
        self._in_flight = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._state: SandboxState | None = None
        self._gateway: Gateway | None = None
        self._rest: Rest | None = None
        self.base_url = ""
        self.runner = BotRunner(self)

    # -- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._handle_rest)
        app.router.add_get("/gateway", self._handle_gateway)
        app.router.add_get("/gateway-resume", self._handle_gateway)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._handle_attachment)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        self.base_url = f"http://127.0.0.1:{port}"
        self._state = SandboxState(self.clock, self.snowflakes, self.base_url, self.guild_shard)
        self._gateway = Gateway(self._state, privileged_intents=self._privileged_intents, on_change=self.changed)
        self._rest = Rest(self._state, self._gateway, self.changed)
        loop = asyncio.get_running_loop()
        self._expiry = loop.call_later(self.lifetime, lambda: loop.create_task(self._expire()))
        log.info("sandbox Discord listening on %s", self.base_url)

    async def _expire(self) -> None:
        log.warning("sandbox Discord reached its %.0f s lifetime and stops", self.lifetime)
        await self.stop()

    @property
    def running(self) -> bool:
        return self._runner is not None

    async def stop(self) -> None:
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None
        for task in list(self._tasks):
            task.cancel()
        await self.runner.close()
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- the bot under test ----------------------------------------------------------------------

    async def start_bot(self, factory: BotFactory, *, sync: bool = True) -> commands.Bot:
        """Build, log in and connect a bot made by ``factory(self)``; see ``BotRunner.start``."""
        return await self.runner.start(factory, sync=sync)

    async def restart_bot(self, factory: BotFactory, *, sync: bool = True) -> commands.Bot:
        """Stop the running bot and start a new one from ``factory``, keeping everything Discord knows."""
        return await self.runner.restart(factory, sync=sync)

    # -- what a test reads ----------------------------------------------------------------------

    @property
    def state(self) -> SandboxState:
        if self._state is None:
            raise RuntimeError("the sandbox is not started")
        return self._state

    @property
    def gateway(self) -> Gateway:
        if self._gateway is None:
            raise RuntimeError("the sandbox is not started")
        return self._gateway

    @property
    def rest(self) -> Rest:
        if self._rest is None:
            raise RuntimeError("the sandbox is not started")
        return self._rest

    @property
    def api_base(self) -> str:
        """The value for ``DISCORD_API_BASE``."""
        return self.base_url + API_PREFIX

    @property
    def gateway_url(self) -> str:
        """The value for ``DISCORD_GATEWAY_URL``."""
        return self.gateway.url

    @property
    def token(self) -> str:
        return self.state.token

    @property
    def application_id(self) -> int:
        return self.state.application_id

    @property
    def guild_id(self) -> int:
        return self.state.guild_id

    @property
    def channel_id(self) -> int:
        """The guild's #general, where fake users act unless told otherwise."""
        return self.state.general_id

    @property
    def bot_member(self) -> Member:
        return self.state.bot

    def add_member(self, name: str) -> Member:
        member = self.state.add_member(name)
        self.changed()
        return member

    async def remove_member(self, member: Member) -> None:
        """The member leaves the server: Discord answers 404 Unknown Member for them from now on. The gateway
        tells only bots with the (privileged) members intent, as Discord does."""
        self.state.members.pop(member.id, None)
        await self.gateway.dispatch("GUILD_MEMBER_REMOVE", {"guild_id": str(self.guild_id), "user": member.user_json()})
        self.changed()

    def member(self, name: str) -> Member:
        return self.state.member_named(name)

    # -- the application's Activity and OAuth2 ------------------------------------------------------

    @property
    def client_secret(self) -> str:
        """The application's OAuth2 client secret (``DISCORD_CLIENT_SECRET``); its client id is ``application_id``."""
        return self.state.oauth.client_secret

    def authorize(self, member: Member, scopes: tuple[str, ...] = ("identify",)) -> str:
        """The OAuth2 code Discord's client gives an Activity when ``member`` authorises the application (the
        Embedded App SDK's ``authorize``): single-use, ten minutes on the fake's clock."""
        if member.id not in self.state.members:
            raise ValueError(f"{member.name} is not a member of the sandbox guild")
        return self.state.oauth.authorize(member.id, scopes)

    def activity_launches(self, member: Member | None = None) -> list[ActivityLaunch]:
        """The Activity launches Discord accepted (``member``'s only, when given), oldest first."""
        launches = self.state.activity_launches
        return [launch for launch in launches if member is None or launch.user_id == member.id]

    def set_activities(self, enabled: bool) -> None:
        """Turn the application's Activities on or off, as its developer portal's Activities > Settings do."""
        self.state.activities_enabled = enabled
        self.changed()

    def add_text_channel(self, name: str) -> int:
        """A new text channel; a connected bot hears CHANNEL_CREATE before the next user action.

        Synchronous for the tests' convenience: the event goes out on a task, which every injector's
        ``settle()`` lets run before it sends anything, so the order on the gateway stays Discord's.
        """
        channel_id = self.state.add_text_channel(name)

        async def announce() -> None:
            channel = self.state.channels.get(channel_id)
            if channel is not None:
                await self.gateway.dispatch("CHANNEL_CREATE", copy.deepcopy(channel))

        task = asyncio.get_running_loop().create_task(announce())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return channel_id

    async def _flush(self) -> None:
        """Send the events queued by synchronous helpers before anything that must follow them."""
        while self._tasks:
            await asyncio.gather(*self._tasks)

    # -- channel permissions ----------------------------------------------------------------------

    async def deny(self, channel_id: int, *names: str, target: Member | int | None = None) -> None:
        """Deny permissions in a channel, as a server manager would in its settings.

        ``names`` are discord.py's ``Permissions`` attributes (``"create_public_threads"``). ``target``
        is a member (a member overwrite), a role id (``sandbox.guild_id`` is @everyone), or by default
        the bot's own role. Threads follow their parent channel. A connected bot sees CHANNEL_UPDATE.
        """
        await self._overwrite(channel_id, target, deny=permissions.bits(names))

    async def allow(self, channel_id: int, *names: str, target: Member | int | None = None) -> None:
        """Explicitly allow permissions in a channel; the counterpart of ``deny`` for the same target."""
        await self._overwrite(channel_id, target, allow=permissions.bits(names))

    async def _overwrite(self, channel_id: int, target: Member | int | None, *, allow: int = 0, deny: int = 0) -> None:
        await self._flush()
        channel = self.state.channels.get(channel_id)
        if channel is None or self.state.is_thread_payload(channel):
            raise ValueError(f"{channel_id} is not a guild channel; threads take their parent's permissions")
        if isinstance(target, Member):
            target_id, kind = target.id, permissions.MEMBER_OVERWRITE
        else:
            target_id, kind = (self.state.bot_role_id if target is None else target), permissions.ROLE_OVERWRITE
            if target_id not in self.state.role_permissions:
                raise ValueError(f"no role {target_id} in the sandbox guild")
        overwrites = channel.setdefault("permission_overwrites", [])
        permissions.set_overwrite(overwrites, target_id, kind, allow=allow, deny=deny)
        await self.gateway.dispatch("CHANNEL_UPDATE", copy.deepcopy(channel))
        self.changed()

    def permit_command(self, name: str, target: Member | int) -> None:
        """As a server's managers can in Server Settings > Integrations: let a member (or a role, by id) use the
        top-level command ``name`` whatever its ``default_member_permissions``."""
        target_id = target.id if isinstance(target, Member) else target
        self.state.command_permissions.setdefault(name, set()).add(target_id)
        self.changed()

    async def grant(self, member: Member, *names: str, role: str = "Server managers") -> int:
        """Give ``member`` a new role with these server-wide permissions (``"manage_guild"``); returns its id."""
        await self._flush()
        role_id = self.state.add_role(role, permissions.bits(names))
        member.roles.append(role_id)
        await self.gateway.dispatch(
            "GUILD_ROLE_CREATE", {"guild_id": str(self.guild_id), "role": self.state.role_json(role_id)}
        )
        await self.gateway.dispatch("GUILD_MEMBER_UPDATE", member.member_json() | {"guild_id": str(self.guild_id)})
        self.changed()
        return role_id

    async def update_member(self, member: Member) -> None:
        """Tell the bot a member's roles changed (after editing ``member.roles``), as GUILD_MEMBER_UPDATE does."""
        await self._flush()
        await self.gateway.dispatch("GUILD_MEMBER_UPDATE", member.member_json() | {"guild_id": str(self.guild_id)})
        self.changed()

    async def set_guild_locale(self, locale: str) -> None:
        """Change the server's preferred locale (a Community server's language), as GUILD_UPDATE tells the bot."""
        await self._flush()
        self.state.preferred_locale = locale
        guild = {k: v for k, v in self.state.guild_json().items() if k not in _CREATE_ONLY}
        await self.gateway.dispatch("GUILD_UPDATE", guild)
        self.changed()

    def permissions_in(self, channel_id: int, member: Member | None = None) -> discord.Permissions:
        """What ``member`` (by default the bot) may do in a channel or thread, as Discord computes it."""
        who = member.id if member is not None else self.state.bot.id
        return discord.Permissions(self.state.permissions(who, channel_id))

    def user(self, member: Member, *, channel_id: int | None = None) -> SandboxUser:
        """Act as ``member``: ``async with sandbox.user(alice) as u: await u.slash(...)``."""
        return SandboxUser(self, member, channel_id or self.channel_id)

    def direct_messages(self, member: Member) -> list[Message]:
        """What the bot sent ``member`` by direct message, oldest first."""
        channel = next(
            (c for c in self.state.channels.values() if c["type"] == 1 and c["recipients"][0]["id"] == str(member.id)),
            None,
        )
        return [] if channel is None else self.messages(int(channel["id"]))

    def messages(self, channel_id: int | None = None, *, include_ephemeral: bool = True) -> list[Message]:
        """Messages in posting order (all channels when ``channel_id`` is None)."""
        found = [m for m in self.state.messages.values() if not m.deleted]
        if channel_id is not None:
            found = [m for m in found if m.channel_id == channel_id]
        if not include_ephemeral:
            found = [m for m in found if not m.ephemeral]
        return sorted(found, key=lambda m: m.id)

    def message(self, message_id: int) -> Message:
        return self.state.messages[message_id]

    def thread(self, thread_id: int) -> dict[str, Any]:
        return self.state.channels[thread_id]

    def threads(self, parent_id: int | None = None) -> list[dict[str, Any]]:
        return [
            c
            for c in self.state.channels.values()
            if c["type"] in (10, 11, 12) and (parent_id is None or int(c["parent_id"]) == parent_id)
        ]

    def commands(self, guild: bool = False) -> list[dict[str, Any]]:
        return list(self.state.commands.get(self.guild_id if guild else None, []))

    def cursor(self) -> int:
        """A snowflake below everything that happens from now on, for ``wait_for_message(after=...)``."""
        return self.snowflakes.next()

    def fail(
        self,
        method: str,
        path: str,
        status: int,
        *,
        code: int = 0,
        message: str = "",
        retry_after: float = 0.05,
        is_global: bool = False,
        times: int | None = 1,
    ) -> Fault:
        """Make the next ``times`` requests matching ``method`` (or ``*``) and the regex ``path`` fail.

        ``path`` is searched in the API path without ``/api/v10`` (``r"^/channels/\\d+/messages$"``).
        Answers to faults are not kept in ``errors``: the test asked for them.
        """
        fault = Fault(method, re.compile(path), status, code, message, retry_after, is_global, times)
        self.faults.append(fault)
        return fault

    def rate_limit(self, method: str, path: str, *, limit: int, per: float) -> RateLimit:
        """Put the requests matching ``method`` and the regex ``path`` under one rate-limit bucket from now on
        (``limit`` in any ``per`` seconds), headers and 429s as Discord answers them."""
        bucket = RateLimit(method, re.compile(path), limit, per, name=f"sandbox-bucket-{len(self.rate_limits)}")
        self.rate_limits.append(bucket)
        return bucket

    def take_errors(self) -> list[RecordedRequest]:
        """Claim the error answers so far: the test looked at them, ``check()`` will not complain."""
        taken, self.errors = self.errors, []
        return taken

    def check(self) -> None:
        """Fail if the bot received any error answer the test did not take."""
        if self.errors:
            lines = "\n".join(
                f"  {e.method} {e.path} -> {e.status} {json.dumps(e.response)[:400]}" for e in self.errors
            )
            raise SandboxError(f"the bot received {len(self.errors)} error answer(s) from Discord:\n{lines}")

    # -- waiting ------------------------------------------------------------------------------

    def changed(self) -> None:
        """Wake every waiter so it re-checks its condition."""
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        for listener in self.listeners:
            listener()

    async def wait_until(self, predicate: Callable[[], T | None], *, timeout: float | None = None, what: str = "") -> T:
        """Await the first truthy ``predicate()``; it is re-checked after every recorded change."""
        limit = timeout if timeout is not None else self.wait_timeout
        deadline = time.monotonic() + limit
        loop = asyncio.get_running_loop()
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SandboxTimeout(f"timed out after {limit:.1f} s waiting for {what or predicate}")
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append(waiter)
            # Re-check at least every 50 ms: predicates may also depend on the bot's own state.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(waiter), timeout=min(remaining, 0.05))

    async def wait_for_message(
        self,
        channel_id: int | None = None,
        predicate: Callable[[Message], bool] | None = None,
        *,
        after: int | None = None,
        timeout: float | None = None,
    ) -> Message:
        """The newest message (posted after snowflake ``after``, if given) matching ``predicate``."""

        def find() -> Message | None:
            for message in reversed(self.messages(channel_id)):
                if after is not None and message.id <= after:
                    break
                if predicate is None or predicate(message):
                    return message
            return None

        return await self.wait_until(find, timeout=timeout, what=f"a message in channel {channel_id}")

    async def wait_for_request(
        self, predicate: Callable[[RecordedRequest], bool], *, timeout: float | None = None
    ) -> RecordedRequest:
        """The first recorded, answered request matching ``predicate``."""

        def find() -> RecordedRequest | None:
            return next((r for r in self.requests if r.status and predicate(r)), None)

        return await self.wait_until(find, timeout=timeout, what="a matching request")

    async def settle(self) -> None:
        """Let the bot finish reading answers already sent before the next user action.

        discord.py stores a view under the message id it reads from the callback answer; a click
        injected before the client has parsed that answer would be dropped, which no human could
        cause. Waiting for no request in flight plus a few loop turns closes that window.
        """
        await self._flush()
        await self.wait_until(lambda: self._in_flight == 0, what="the bot's requests to finish")
        for _ in range(20):
            await asyncio.sleep(0)

    # -- HTTP plumbing -------------------------------------------------------------------------

    async def _handle_gateway(self, request: web.Request) -> web.StreamResponse:
        return await self.gateway.handle(request)

    async def _handle_attachment(self, request: web.Request) -> web.StreamResponse:
        attachment_id = int(request.match_info["attachment_id"])
        for message in self.state.messages.values():
            for attachment in message.attachments:
                if attachment.id == attachment_id:
                    # A header, not aiohttp's ``content_type`` argument, which refuses "text/plain; charset=utf-8".
                    return web.Response(
                        body=attachment.data,
                        headers={"Content-Type": attachment.content_type or "application/octet-stream"},
                    )
        return web.Response(status=404, text="Not Found")

    async def _handle_oauth(self, request: web.Request, path: str) -> web.StreamResponse:
        """The application's own OAuth2 calls: a code's exchange, and who a member's access token belongs to.
        Their refusals are answers to what a page sent, not mistakes of the bot, so they are not kept in
        ``errors``; the requests are recorded like the rest."""
        record = RecordedRequest(request.method, path, dict(request.query), None, at=self.clock.now())
        self.requests.append(record)
        try:
            if path == "/oauth2/token":
                raw = await request.content.read(64 * 1024)
                basic = basic_credentials(request.headers.get("Authorization", ""))
                record.body = raw.decode("utf-8", "replace")
                status, payload = 200, self.state.oauth.exchange(raw, request.content_type, basic)
            else:
                grant = self.state.oauth.bearer(request.headers.get("Authorization", ""))
                member = self.state.members.get(grant.user_id)
                if member is None:
                    raise OAuthError(401, {"message": "401: Unauthorized", "code": 0})
                status, payload = 200, member.user_json() | {"locale": member.locale, "mfa_enabled": False}
        except OAuthError as error:
            status, payload = error.status, error.body
        record.status, record.response = status, payload
        self.changed()
        return web.Response(status=status, body=json.dumps(payload).encode(), content_type="application/json")

    async def _handle_rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        if (request.method, path) == ("POST", "/oauth2/token") or (
            (request.method, path) == ("GET", "/users/@me")
            and request.headers.get("Authorization", "").startswith("Bearer ")
        ):
            return await self._handle_oauth(request, path)
        self._in_flight += 1
        record = RecordedRequest(request.method, path, dict(request.query), None, at=self.clock.now())
        self.requests.append(record)
        headers: dict[str, str] = {}
        try:
            fault = next((f for f in self.faults if f.matches(request.method, path)), None)
            bucket = next((b for b in self.rate_limits if b.matches(request.method, path)), None)
            now = time.monotonic()
            wait = None if bucket is None or fault is not None else bucket.take(now)
            if fault is not None:
                await request.read()
                status, payload, headers = fault.answer()
                record.faulted = True
            elif bucket is not None and wait is not None:
                await request.read()
                status, payload, headers = bucket.refusal(wait, now)
                record.faulted = True
            else:
                status, payload = await self._serve(request, path, record)
                if bucket is not None:
                    headers = bucket.headers(now)
        finally:
            self._in_flight -= 1
        record.status = status
        record.response = payload
        if status >= 400 and not record.faulted:
            log.warning("sandbox answered %s %s with %s: %s", request.method, path, status, payload)
            self.errors.append(record)
        self.changed()
        if payload is None:
            return web.Response(status=status)
        # Exactly application/json: discord.py parses nothing else (json_response adds a charset).
        return web.Response(
            status=status, body=json.dumps(payload).encode(), content_type="application/json", headers=headers
        )

    async def _serve(self, request: web.Request, path: str, record: RecordedRequest) -> tuple[int, Any]:
        try:
            found = self.rest.find(request.method, path)
            if found is None:
                raise DiscordError(404, 0, f"404: Not Found (the sandbox does not serve {request.method} {path})")
            route, params = found
            authorization = request.headers.get("Authorization", "")
            record.authorized = authorization == f"Bot {self.state.token}"
            if route.bot_auth and not record.authorized:
                raise DiscordError(401, 0, "401: Unauthorized")
            body, uploads, multipart = await read_body(request)
            record.body = body
            record.files = {u.filename: u.data for u in uploads}
            if self.validator is not None and (body is not None or multipart):
                self.validator.validate(request.method, path, body, multipart=multipart)
            result = await route.handler(Call(request.method, path, params, dict(request.query), body, uploads))
            if result is None:
                return 204, None
            return (201 if request.method == "POST" and "/threads" in path else 200), result
        except DiscordError as error:
            return error.status, error.body()
        except Exception as error:
            # A bug in the fake itself. 501 is not among the statuses discord.py retries with back-off,
            # so the bot fails at once and check() reports the request.
            log.exception("sandbox failed on %s %s", request.method, path)
            return 501, {"message": f"sandbox error: {error!r}", "code": 0}
