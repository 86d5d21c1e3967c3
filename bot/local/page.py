"""The local table's web page: a Discord-like channel view over the fake Discord.

The page is static HTML, CSS and JavaScript (``static/``) plus a small JSON API. Everything the
page does to the bot goes through the fake's user injectors (``SandboxUser``): the same calls the
end-to-end tests make, refused where the Discord client could not send them. The page renders
whatever the fake holds, generically: the synced command tree (names, options, choices,
autocomplete flags), messages with embeds, components, attachments, modals and threads, so a new
bot feature shows up without touching this file.

Live updates: every change the fake records bumps a version number, pushed over a WebSocket;
the page then fetches the current channel again (unchanged messages keep their DOM nodes).

The board page (the bot's Activity): a click the bot answers with LAUNCH_ACTIVITY opens a panel holding the
board page, as Discord's client opens an Activity's frame, with Discord's query parameters (``frame_id``,
``instance_id``, ``platform``, ``guild_id``, ``channel_id``, ``location_id``). The table serves the bot's board
server under ``/board/`` (HTTP and WebSocket, passed through as Discord's proxy does), so the frame is of the
page's own origin, which the Embedded App SDK accepts messages from. ``app.js`` plays Discord's side of the SDK's
postMessage protocol; its ``authorize`` and ``authenticate`` come here (``/api/activity/...``), where the fake
hands out a code for the member the page acts as, and says whose an access token is.

Only the page itself may use the API. Listening on loopback keeps other machines out, not other web
sites open in the same browser: a cross-site form can post to 127.0.0.1, and a DNS-rebinding page (its
own name pointed at 127.0.0.1) can read the answers. So every request must name the table's own address
as its ``Host`` (127.0.0.1 or localhost with the table's port: a rebound name is refused), a request
carrying an ``Origin`` (every browser sends one on cross-site requests, WebSocket upgrades included) must
come from that same address, and a request that acts must say ``Content-Type: application/json``, which
no cross-site form or simple request can send without a preflight the table never grants. Errors of
the API are JSON, ``{"error": ...}``, with a 4xx status.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
import discord
from aiohttp import WSMsgType, web

from bot.rules.registry import GAMES
from bot.sandbox.errors import InjectionRefused, SandboxError
from bot.sandbox.oauth import OAuthError
from bot.sandbox.permissions import VIEW_CHANNEL, bits
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import ActivityLaunch, Member, Message
from bot.sandbox.users import (
    BOOLEAN,
    CHANNEL,
    INTEGER,
    MENTIONABLE,
    NUMBER,
    SUB_COMMAND,
    SUB_COMMAND_GROUP,
    USER,
    Modal,
    SandboxUser,
)

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
THREAD_TYPES = (10, 11, 12)
MESSAGES_SHOWN = 150  # the newest messages of a channel the page shows, as Discord loads a screenful
LOOPBACK_NAMES = ("127.0.0.1", "localhost")  # the names the table answers to (it listens on 127.0.0.1 only)
LOCALES = [locale.value for locale in discord.Locale]  # Discord's own client languages, what a member may choose
MANAGERS_ROLE = "Server managers"
# The order a newcomer needs a game's commands in (the page lists them so; the rest follow as synced), and the
# order of the top-level commands: the games first, then the member's own, tournaments, the server's settings.
FIRST_STEPS = ("challenge", "rules", "setup", "move", "board", "games", "leaderboard", "resign", "undo", "export")
AFTER_GAMES = ("player", "tournament", "settings")
MANAGE_GUILD = bits(["manage_guild"])
# What the board server's pass-through carries each way (no cookies, no hop-by-hop headers).
PASSED_REQUEST_HEADERS = frozenset(
    {"content-type", "accept", "accept-language", "authorization", "if-none-match", "if-modified-since"}
)
PASSED_RESPONSE_HEADERS = frozenset(
    {"content-type", "cache-control", "etag", "last-modified", "content-security-policy", "content-encoding"}
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def refusal(status: type[web.HTTPError], message: str) -> web.HTTPError:
    """An HTTP error whose body is the page's JSON error, ``{"error": message}``."""
    return status(text=json.dumps({"error": message}), content_type="application/json")


def own_hosts(port: int) -> set[str]:
    """The ``Host`` values of the table's own address (a browser leaves out the port only when it is 80)."""
    hosts = {f"{name}:{port}" for name in LOOPBACK_NAMES}
    return hosts | set(LOOPBACK_NAMES) if port == 80 else hosts


@web.middleware
async def same_site_only(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse what does not come from the page itself (see the module's docstring)."""
    sockname = request.transport.get_extra_info("sockname") if request.transport is not None else None
    port = sockname[1] if isinstance(sockname, tuple) else 0
    host = request.headers.get("Host", "").lower()
    if host not in own_hosts(port):
        raise refusal(web.HTTPMisdirectedRequest, f"this table answers only at http://127.0.0.1:{port}")
    origin = request.headers.get("Origin")
    if origin is not None and origin.lower() != f"http://{host}":
        raise refusal(web.HTTPForbidden, "only the table's own page may use it")
    if request.method not in ("GET", "HEAD") and request.content_type != "application/json":
        raise refusal(web.HTTPUnsupportedMediaType, "send JSON (Content-Type: application/json)")
    return await handler(request)


async def json_body(request: web.Request) -> dict[str, Any]:
    """The request's JSON object, or a 400 saying what is wrong with it."""
    try:
        body = json.loads(await request.text())
    except ValueError as bad:
        raise refusal(web.HTTPBadRequest, f"the body is not valid JSON: {bad}") from None
    if not isinstance(body, dict):
        raise refusal(web.HTTPBadRequest, "the body must be a JSON object")
    return body


def field_of(body: dict[str, Any], name: str, kind: type[list[Any]] | type[dict[str, Any]]) -> Any:
    """``body[name]`` when it is a ``kind`` (a missing or null one is empty), else a 400 naming the field."""
    value = body.get(name)
    if value is None:
        return kind()
    if not isinstance(value, kind):
        raise refusal(web.HTTPBadRequest, f"{name} must be a JSON {'array' if kind is list else 'object'}")
    return value


def discord_locale(language: object) -> str | None:
    """The Discord client language nearest a browser's (``ja-JP``: ``ja``, ``es-MX``: ``es-419``), or None."""
    if not isinstance(language, str):
        return None
    if language in LOCALES:
        return language
    base = language.split("-", 1)[0].lower()
    nearest = {"es": "es-419", "en": "en-US", "pt": "pt-BR", "zh": "zh-CN", "sv": "sv-SE"}.get(base, base)
    return nearest if nearest in LOCALES else None


class Page:
    """The web app of one local table, bound to one ``FakeDiscord``."""

    def __init__(self, fake: FakeDiscord, *, ready: asyncio.Event, board_url: str | None = None) -> None:
        self.fake = fake
        self.ready = ready
        # The bot's board server (http://127.0.0.1:PORT), served under /board/; None: no board page.
        self.board_url = board_url.rstrip("/") if board_url else None
        self._client: aiohttp.ClientSession | None = None
        self.version = 0
        self.modals: dict[str, tuple[int, Modal]] = {}  # open modals by id, with the member they belong to
        self.managers_role: int | None = None  # the role with Manage Server the page gives and takes
        # Members whose language was chosen on the page: that choice stands; the others speak the browser's.
        self.chosen_locale: set[int] = set()
        self._sockets: set[asyncio.Event] = set()
        fake.listeners.append(self._changed)

    def _changed(self) -> None:
        self.version += 1
        for event in self._sockets:
            event.set()

    def app(self) -> web.Application:
        app = web.Application(middlewares=[same_site_only])
        app.router.add_get("/", self._index)
        app.router.add_static("/static/", STATIC)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/messages", self._messages)
        app.router.add_post("/api/act", self._act)
        app.router.add_post("/api/members", self._add_member)
        app.router.add_post("/api/member", self._update_member)
        app.router.add_post("/api/server", self._update_server)
        app.router.add_get("/api/events", self._events)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._attachment)
        app.router.add_post("/api/activity/authorize", self._authorize)
        app.router.add_post("/api/activity/authenticate", self._authenticate)
        app.router.add_route("*", "/board/{tail:.*}", self._board)
        app.on_cleanup.append(self._close_client)
        return app

    # -- reading ----------------------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    def _people(self) -> list[Member]:
        state = self.fake.state
        return [m for m in state.members.values() if not m.bot and m.id != state.owner.id]

    def _member(self, raw: Any) -> Member:
        """A member the page may act as: a person, never the bot or the server's owner."""
        try:
            member = self.fake.state.members[int(raw)]
        except (KeyError, TypeError, ValueError):
            raise refusal(web.HTTPBadRequest, f"no member {raw!r}") from None
        if member not in self._people():
            raise refusal(web.HTTPBadRequest, f"{member.name} is not one of the table's members")
        return member

    def _channels_for(self, member: Member) -> list[dict[str, Any]]:
        state = self.fake.state
        out = []
        for channel in state.channels.values():
            channel_id = int(channel["id"])
            if not state.permissions(member.id, channel_id) & VIEW_CHANNEL:
                continue
            if channel["type"] == 12 and member.id not in state.thread_members.get(channel_id, set()):
                continue  # a private thread is listed only for its members
            metadata = channel.get("thread_metadata") or {}
            out.append(
                {
                    "id": str(channel_id),
                    "name": channel.get("name", ""),
                    "type": channel["type"],
                    "parent_id": channel.get("parent_id"),
                    "archived": bool(metadata.get("archived")),
                    "locked": bool(metadata.get("locked")),
                }
            )
        return out

    async def _state(self, request: web.Request) -> web.StreamResponse:
        state = self.fake.state
        people = self._people()
        member = self._member(request.query["member"]) if request.query.get("member") else people[0]
        return web.json_response(
            {
                "ready": self.ready.is_set(),
                "version": self.version,
                "guild": "Veletas local table",
                "bot": {"id": str(state.bot.id), "name": state.bot.name},
                "members": [
                    {"id": str(m.id), "name": m.name, "locale": m.locale, "manager": self.is_manager(m)} for m in people
                ],
                "locale": state.preferred_locale,
                "locales": LOCALES,
                "channels": self._channels_for(member),
                "general": str(state.general_id),
                "commands": commands_for_page(self.fake),
                "board_url": self.board_url,
            }
        )

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        member = self._member(request.query.get("member"))
        try:
            channel_id = int(request.query["channel"])
        except (KeyError, ValueError):
            raise refusal(web.HTTPBadRequest, "which channel? (channel=ID)") from None
        shown = [
            m
            for m in self.fake.messages(channel_id)
            if m.visible_to is None or m.visible_to == member.id  # ephemeral: only its member sees it
        ][-MESSAGES_SHOWN:]
        names = {str(m.id): m.name for m in self.fake.state.members.values()}
        channel_names = {c["id"]: c.get("name", "") for c in self.fake.state.channels.values()}
        return web.json_response(
            {
                "version": self.version,
                "messages": [self._message_json(m) for m in shown],
                "names": names,
                "channel_names": channel_names,
            }
        )

    def _message_json(self, message: Message) -> dict[str, Any]:
        data = message.data
        attachments = [
            {
                "id": str(a.id),
                "filename": a.filename,
                "content_type": a.content_type or "",
                "url": f"/attachments/{message.channel_id}/{a.id}/{a.filename}",
                "description": a.description or "",
                "size": len(a.data),
            }
            for a in message.attachments
        ]
        by_remote = {a.url: f"/attachments/{message.channel_id}/{a.id}/{a.filename}" for a in message.attachments}
        embeds = [_local_urls(e, by_remote) for e in message.embeds]
        components = [_local_urls(c, by_remote) for c in message.components]
        interaction = data.get("interaction_metadata") or data.get("interaction") or {}
        user = interaction.get("user") or {}
        return {
            "id": str(message.id),
            "author": {"id": str(message.author.id), "name": message.author.name, "bot": message.author.bot},
            "content": message.content,
            "embeds": embeds,
            "components": components,
            "attachments": attachments,
            "ephemeral": message.visible_to is not None,
            "loading": message.loading,
            "edited": message.edited,
            "flags": message.flags,
            "timestamp": data.get("timestamp", ""),
            "invoker": user.get("username") or "",
            "command": interaction.get("name") or "",
            "thread_id": (data.get("thread") or {}).get("id"),
        }

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        """An attachment by the page's own URL for it (channel, id and file name); anything else is not found."""
        try:
            channel_id = int(request.match_info["channel_id"])
            wanted = int(request.match_info["attachment_id"])
        except ValueError:
            raise refusal(web.HTTPNotFound, "no such attachment") from None
        filename = request.match_info["filename"]
        for message in self.fake.state.messages.values():
            if message.channel_id != channel_id:
                continue
            for attachment in message.attachments:
                if attachment.id == wanted and attachment.filename == filename:
                    # The type as Discord stored it, parameters and all ("text/plain; charset=utf-8"): a header,
                    # since aiohttp's ``content_type`` argument takes no charset.
                    return web.Response(
                        body=attachment.data,
                        headers={
                            "Content-Type": attachment.content_type or "application/octet-stream",
                            "Cache-Control": "max-age=86400, immutable",
                        },
                    )
        raise refusal(web.HTTPNotFound, "no such attachment")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        socket = web.WebSocketResponse(heartbeat=30)
        await socket.prepare(request)
        wake = asyncio.Event()
        wake.set()
        self._sockets.add(wake)

        async def drain() -> None:
            async for message in socket:
                if message.type in (WSMsgType.CLOSE, WSMsgType.ERROR):
                    break

        reader = asyncio.create_task(drain())
        try:
            while not socket.closed and not reader.done():
                waiting = asyncio.create_task(wake.wait())
                await asyncio.wait({waiting, reader}, return_when=asyncio.FIRST_COMPLETED)
                waiting.cancel()
                if reader.done():
                    break
                wake.clear()
                await socket.send_json({"version": self.version, "ready": self.ready.is_set()})
        except (ConnectionError, RuntimeError):
            pass
        finally:
            self._sockets.discard(wake)
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
        return socket

    # -- acting -----------------------------------------------------------------------------------

    async def _add_member(self, request: web.Request) -> web.StreamResponse:
        body = await json_body(request)
        name = str(body.get("name", "")).strip().lower()
        if not name or not name.replace("_", "").replace(".", "").isalnum() or len(name) > 32:
            return web.json_response({"error": "a name of 1 to 32 letters, digits, dots or underscores"}, status=400)
        if any(m.name == name for m in self.fake.state.members.values()):
            return web.json_response({"error": f"{name} is already here"}, status=400)
        # As in the tests: the bot learns of a member from the interactions it sends (no privileged intent).
        member = self.fake.add_member(name)
        return web.json_response({"id": str(member.id), "name": member.name})

    def is_manager(self, member: Member) -> bool:
        """Whether the member has Manage Server in the server (so may use /settings and organise tournaments)."""
        return bool(self.fake.state.permissions(member.id, self.fake.channel_id) & MANAGE_GUILD)

    async def set_manager(self, member: Member, manager: bool) -> None:
        """Give or take the server managers' role (Manage Server), as an owner would in the server's settings."""
        if manager == (self.managers_role in member.roles):
            return
        if self.managers_role is None:
            self.managers_role = await self.fake.grant(member, "manage_guild", role=MANAGERS_ROLE)
            return
        if manager:
            member.roles.append(self.managers_role)
        else:
            member.roles.remove(self.managers_role)
        await self.fake.update_member(member)

    async def _update_member(self, request: web.Request) -> web.StreamResponse:
        """A member's client language (``locale``) and whether they manage the server (``manager``)."""
        body = await json_body(request)
        member = self._member(body.get("member"))
        locale = body.get("locale")
        if locale is not None and locale not in LOCALES:
            raise refusal(web.HTTPBadRequest, f"{locale!r} is not one of Discord's languages")
        manager = body.get("manager")
        if manager is not None and not isinstance(manager, bool):
            raise refusal(web.HTTPBadRequest, "manager must be true or false")
        if locale is not None:
            member.locale = locale  # sent with the member's next interaction, as the Discord client does
            self.chosen_locale.add(member.id)
            self.fake.changed()
        if manager is not None:
            await self.set_manager(member, manager)
        return web.json_response({"locale": member.locale, "manager": self.is_manager(member)})

    async def _update_server(self, request: web.Request) -> web.StreamResponse:
        """The server's preferred locale (a Community server's language), which the bot hears as GUILD_UPDATE."""
        body = await json_body(request)
        locale = body.get("locale")
        if locale not in LOCALES:
            raise refusal(web.HTTPBadRequest, f"{locale!r} is not one of Discord's languages")
        await self.fake.set_guild_locale(str(locale))
        return web.json_response({"locale": self.fake.state.preferred_locale})

    async def _act(self, request: web.Request) -> web.StreamResponse:
        body = await json_body(request)
        member = self._member(body.get("member"))
        if member.id not in self.chosen_locale:  # the browser is the member's client until the page says otherwise
            member.locale = discord_locale(body.get("locale")) or member.locale
        try:
            channel_id = int(body.get("channel") or self.fake.channel_id)
        except (TypeError, ValueError):
            raise refusal(web.HTTPBadRequest, "channel must be a channel's id") from None
        user = SandboxUser(self.fake, member, channel_id)
        action = body.get("action")
        try:
            if action == "autocomplete":
                path, options = self._command_input(body, member, partial=True)
                focused = str(body.get("focused") or "")
                options[focused] = str(field_of(body, "options", dict).get(focused, ""))
                return web.json_response({"choices": await user.autocomplete(*path, focused=focused, **options)})
            modal: Modal | None
            if action == "slash":
                path, options = self._command_input(body, member, partial=False)
                modal = await user.run_command(*path, **options)
            elif action == "click":
                launched = len(self.fake.state.activity_launches)
                modal = await user.press(self._message(body), str(body.get("custom_id", "")))
                launch = next(
                    (each for each in self.fake.state.activity_launches[launched:] if each.user_id == member.id), None
                )
                if launch is not None:
                    return web.json_response({"ok": True, "activity": self._activity_json(launch)})
            elif action == "select":
                values = [str(v) for v in field_of(body, "values", list)]
                modal = await user.choose(self._message(body), *values, menu=str(body.get("custom_id", "")))
            elif action == "submit":
                owner, opened = self.modals.pop(str(body.get("modal", "")), (0, None))
                if opened is None or owner != member.id:
                    return web.json_response({"error": "this form is no longer open"}, status=400)
                filled = {str(k): str(v) for k, v in field_of(body, "values", dict).items()}
                modal = await user.send_modal(opened, filled)
            elif action == "say":
                await user.say(str(body.get("content", "")))
                modal = None
            else:
                return web.json_response({"error": f"unknown action {action!r}"}, status=400)
        except InjectionRefused as refused:
            # What the Discord client would not even send: the page says so, the bot never hears it.
            return web.json_response({"error": str(refused)}, status=400)
        except SandboxError as failed:
            log.warning("local table: %s", failed)
            return web.json_response({"error": "The application did not respond", "detail": str(failed)}, status=504)
        if modal is None:
            return web.json_response({"ok": True})
        key = secrets.token_urlsafe(8)
        self.modals[key] = (member.id, modal)
        while len(self.modals) > 200:
            self.modals.pop(next(iter(self.modals)))
        data = (modal.interaction.response_body or {}).get("data") or {}
        return web.json_response(
            {
                "modal": {
                    "id": key,
                    "title": modal.title,
                    "fields": [_field_json(f, data) for f in modal.fields],
                }
            }
        )

    # -- the Activity: the frame's parameters, Discord's side of OAuth2, the board server --------------------

    def _activity_json(self, launch: ActivityLaunch) -> dict[str, Any]:
        """What the page needs to open the Activity's frame, as Discord's client opens it."""
        query = {
            "frame_id": secrets.token_hex(16),
            "instance_id": launch.instance_id,
            "platform": "desktop",
            "guild_id": str(launch.guild_id),
            "channel_id": str(launch.channel_id),
            "location_id": f"gc-{launch.guild_id}-{launch.channel_id}",
        }
        return {
            "client_id": str(self.fake.application_id),
            "name": self.fake.state.bot.name,
            "query": query,
            "url": "/board/?" + urlencode(query) if self.board_url else None,
        }

    async def _authorize(self, request: web.Request) -> web.StreamResponse:
        """The SDK's ``authorize``: a code for the member the page acts as, once the application is the bot's."""
        body = await json_body(request)
        member = self._member(body.get("member"))
        if str(body.get("client_id")) != str(self.fake.application_id):
            raise refusal(web.HTTPBadRequest, "client_id is not this table's application")
        scopes = field_of(body, "scopes", list)
        if not all(isinstance(scope, str) for scope in scopes):
            raise refusal(web.HTTPBadRequest, "scopes must be a list of names")
        try:
            code = self.fake.authorize(member, tuple(scopes))
        except ValueError as refused:
            raise refusal(web.HTTPBadRequest, str(refused)) from None
        return web.json_response({"code": code})

    async def _authenticate(self, request: web.Request) -> web.StreamResponse:
        """The SDK's ``authenticate``: the access token must be the acting member's, for this application."""
        body = await json_body(request)
        member = self._member(body.get("member"))
        token = body.get("access_token")
        try:
            grant = self.fake.state.oauth.bearer(f"Bearer {token}" if isinstance(token, str) else "")
        except OAuthError:
            raise refusal(web.HTTPUnauthorized, "that access token is not valid") from None
        if grant.user_id != member.id:
            raise refusal(web.HTTPUnauthorized, "that access token is another member's")
        state = self.fake.state
        return web.json_response(
            {
                "access_token": token,
                "user": member.user_json(),
                "scopes": list(grant.scopes),
                "expires": (
                    dt.datetime.now(dt.UTC) + dt.timedelta(seconds=grant.expires_at - state.clock.now())
                ).isoformat(),
                "application": {
                    "id": str(state.application_id),
                    "name": state.bot.name,
                    "description": "",
                    "icon": None,
                },
            }
        )

    async def _close_client(self, app: web.Application) -> None:
        if self._client is not None:
            await self._client.close()

    async def _board(self, request: web.Request) -> web.StreamResponse:
        """The bot's board server, passed through under /board/ (HTTP and WebSocket), as Discord's proxy serves an
        Activity's mapped address."""
        if self.board_url is None:
            raise refusal(web.HTTPServiceUnavailable, "the board page is not running at this table")
        if self._client is None:
            self._client = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30), auto_decompress=False)
        target = self.board_url + request.path_qs
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._board_socket(request, target)
        headers = {k: v for k, v in request.headers.items() if k.lower() in PASSED_REQUEST_HEADERS}
        try:
            async with self._client.request(
                request.method, target, data=await request.read(), headers=headers, allow_redirects=False
            ) as upstream:
                body = await upstream.read()
                kept = {k: v for k, v in upstream.headers.items() if k.lower() in PASSED_RESPONSE_HEADERS}
                return web.Response(status=upstream.status, body=body, headers=kept)
        except (aiohttp.ClientError, TimeoutError):
            raise refusal(web.HTTPBadGateway, "the board page did not answer") from None

    async def _board_socket(self, request: web.Request, target: str) -> web.StreamResponse:
        assert self._client is not None
        asked = request.headers.get("Sec-WebSocket-Protocol", "")
        protocols = tuple(p.strip() for p in asked.split(",") if p.strip())
        headers = {k: v for k, v in request.headers.items() if k.lower() == "authorization"}
        try:
            upstream = await self._client.ws_connect(
                "ws" + target.removeprefix("http"), autoping=True, protocols=protocols, headers=headers
            )
        except (aiohttp.ClientError, TimeoutError):
            raise refusal(web.HTTPBadGateway, "the board page did not answer") from None
        # The subprotocol the board server chose (a page may carry its session there) is the one answered.
        socket = web.WebSocketResponse(autoping=True, protocols=(upstream.protocol,) if upstream.protocol else ())
        await socket.prepare(request)

        async def pump(source: Any, sink: Any) -> None:
            async for message in source:
                if message.type == WSMsgType.TEXT:
                    await sink.send_str(message.data)
                elif message.type == WSMsgType.BINARY:
                    await sink.send_bytes(message.data)
                else:
                    break

        tasks = [asyncio.ensure_future(pump(socket, upstream)), asyncio.ensure_future(pump(upstream, socket))]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await upstream.close()
            await socket.close()
        return socket

    def _message(self, body: dict[str, Any]) -> Message:
        try:
            return self.fake.state.messages[int(body.get("message") or 0)]
        except (KeyError, TypeError, ValueError):
            raise InjectionRefused("that message no longer exists") from None

    def _command_input(
        self, body: dict[str, Any], member: Member, *, partial: bool
    ) -> tuple[list[str], dict[str, Any]]:
        """The command path and its options converted from the page's strings to what the injector takes."""
        path = [str(p) for p in field_of(body, "path", list)]
        leaf = find_leaf(self.fake, path)
        if leaf is None:
            raise InjectionRefused(f"/{' '.join(path)} is not a command of this bot")
        declared = {o["name"]: o for o in leaf.get("options") or []}
        options: dict[str, Any] = {}
        for name, raw in field_of(body, "options", dict).items():
            text = str(raw).strip()
            option = declared.get(name)
            if option is None:
                raise InjectionRefused(f"/{' '.join(path)} has no option {name!r}")
            if text == "" or (partial and name == body.get("focused")):
                continue
            try:
                options[name] = _convert(option, text, self.fake)
            except ValueError as bad:
                if partial:
                    continue  # the client sends autocomplete with whatever else is valid so far
                raise InjectionRefused(f"{name}: {bad}") from None
        return path, options


def _convert(option: dict[str, Any], text: str, fake: FakeDiscord) -> Any:
    kind = option["type"]
    if kind == INTEGER:
        return int(text)
    if kind == NUMBER:
        return float(text)
    if kind == BOOLEAN:
        if text.lower() not in ("true", "false"):
            raise ValueError("choose True or False")
        return text.lower() == "true"
    if kind in (USER, MENTIONABLE):
        wanted = text.removeprefix("@").removeprefix("<@").removesuffix(">").lower()
        for member in fake.state.members.values():
            if wanted in (str(member.id), member.name.lower()):
                return member
        raise ValueError(f"no member {text!r}")
    if kind == CHANNEL:
        wanted = text.removeprefix("#").removeprefix("<#").removesuffix(">")
        for channel in fake.state.channels.values():
            if wanted in (channel["id"], channel.get("name")):
                return int(channel["id"])
        raise ValueError(f"no channel {text!r}")
    return text


def _field_json(item: Any, data: dict[str, Any]) -> dict[str, Any]:
    style, placeholder = 1, ""
    for wrapper in data.get("components") or []:
        inner = wrapper.get("components") or ([wrapper["component"]] if "component" in wrapper else [])
        for component in inner:
            if component.get("custom_id") == item.custom_id:
                style = int(component.get("style", 1))
                placeholder = str(component.get("placeholder") or "")
                description = wrapper.get("description")
                if description:
                    placeholder = placeholder or str(description)
    return {
        "custom_id": item.custom_id,
        "label": item.label,
        "required": item.required,
        "min_length": item.min_length,
        "max_length": item.max_length,
        "value": item.value or "",
        "style": style,
        "placeholder": placeholder,
    }


def _local_urls(value: Any, by_remote: dict[str, str]) -> Any:
    """A copy of an embed or component with the fake's attachment URLs pointed at the page's own route."""
    if isinstance(value, dict):
        return {k: _local_urls(v, by_remote) for k, v in value.items()}
    if isinstance(value, list):
        return [_local_urls(v, by_remote) for v in value]
    if isinstance(value, str) and value in by_remote:
        return by_remote[value]
    return value


def find_leaf(fake: FakeDiscord, path: list[str]) -> dict[str, Any] | None:
    for leaf in _leaves(fake):
        if leaf["path"] == path:
            return leaf
    return None


def _leaves(fake: FakeDiscord) -> list[dict[str, Any]]:
    """Every runnable chat-input command path with its options, guild commands first (as the client lists them)."""
    state = fake.state
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for scope in (state.guild_id, None):
        for command in state.commands.get(scope, []):
            if command.get("type", 1) != 1 or command["name"] in seen:
                continue
            seen.add(command["name"])
            _walk(command, [command["name"]], command.get("description", ""), command, out)
    return out


def _walk(node: dict[str, Any], path: list[str], description: str, root: dict[str, Any], out: list[Any]) -> None:
    options = node.get("options") or []
    subs = [o for o in options if o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)]
    if not subs:
        out.append(
            {
                "path": path,
                "description": description,
                "options": options,
                "default_member_permissions": root.get("default_member_permissions"),
            }
        )
        return
    for sub in subs:
        _walk(sub, [*path, sub["name"]], sub.get("description", ""), root, out)


def commands_for_page(fake: FakeDiscord) -> list[dict[str, Any]]:
    """The synced command tree, flattened to runnable paths with the option facts the composer needs."""
    keep = (
        *("name", "type", "description", "required", "choices", "autocomplete"),
        *("min_value", "max_value", "min_length", "max_length", "channel_types"),
    )
    return [
        {
            "path": leaf["path"],
            "description": leaf["description"],
            "options": [{k: o[k] for k in keep if k in o} for o in leaf["options"]],
        }
        for leaf in newcomer_order(_leaves(fake))
    ]


def newcomer_order(leaves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The commands as a newcomer needs them: a game's ``challenge`` and ``rules`` first (``FIRST_STEPS``),
    each top-level command together, every registered game's first, then ``AFTER_GAMES``; the rest keep the
    order they were synced in."""

    def rank(names: tuple[str, ...], name: str) -> int:
        return names.index(name) if name in names else len(names)

    top_order = (*GAMES, *AFTER_GAMES)
    tops = list(dict.fromkeys(leaf["path"][0] for leaf in leaves))  # in the order they were synced
    return sorted(
        leaves,
        key=lambda leaf: (
            rank(top_order, leaf["path"][0]),
            tops.index(leaf["path"][0]),
            rank(FIRST_STEPS, leaf["path"][-1]),
        ),
    )
