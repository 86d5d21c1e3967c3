"""The board page inside Discord (an Activity): the bot's side of the page's OAuth2 exchange and its session.

The page (``static/connect.js``) runs in Discord's frame, where the Embedded App SDK hands it an OAuth2 code for
the member; these routes, under ``/board/api/``, finish the exchange and turn it into a board session:

- ``GET config``: what the page needs to start the SDK (the application's client id);
- ``POST token`` ``{code}``: the code exchanged at Discord's ``POST /oauth2/token`` with the application's client
  id and secret (from settings; the secret never reaches the page), answered ``{access_token}``;
- ``POST session`` ``{access_token, guild_id, channel_id, instance_id}``: the bot asks Discord who the token
  belongs to (``GET /users/@me``), never taking an id from the page, finds the game the member launched from that
  channel (recorded by the "Play on the board" click; a player's own game thread needs none) and answers
  ``{session, game_id, user_id}``, a token of ``bot.board.sessions`` for that member and game.

Every refusal is a JSON ``{"error": ...}`` with a 4xx status (a 502 when Discord itself cannot be reached), and
changes nothing; bodies are JSON objects of at most ``MAX_BODY`` bytes.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Final, Protocol

import aiohttp
from aiohttp import web

from bot.board.sessions import mint
from bot.config import Settings
from bot.errors import NoGameHere

log = logging.getLogger(__name__)

MAX_BODY: Final = 4096
DISCORD_TIMEOUT: Final = aiohttp.ClientTimeout(total=10)
_CODE: Final = re.compile(r"[A-Za-z0-9._~-]{1,200}")
_TOKEN: Final = re.compile(r"[A-Za-z0-9._~+/=-]{1,300}")
_SNOWFLAKE: Final = re.compile(r"[0-9]{1,20}")


class Games(Protocol):
    """What the routes read of the store."""

    async def launched_game(self, user_id: int, guild_id: int, channel_id: int) -> int | None: ...

    async def get_game(self, game_id: int) -> Any: ...

    async def game_in_channel(self, channel_id: int) -> Any: ...


class ActivityContext(Protocol):
    """The attributes of the board server's context these routes use."""

    @property
    def store(self) -> Games: ...

    @property
    def secret(self) -> bytes: ...

    @property
    def settings(self) -> Settings: ...

    def now(self) -> float: ...


class Refused(Exception):
    """A request the routes refuse: its status and the one-line reason the page receives."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def add_routes(app: web.Application, context: ActivityContext) -> None:
    """Add ``/board/api/config``, ``/board/api/token`` and ``/board/api/session`` to the board server."""
    routes = ActivityRoutes(context)
    app.router.add_get("/board/api/config", routes.config)
    app.router.add_post("/board/api/token", routes.token)
    app.router.add_post("/board/api/session", routes.session)


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status, headers={"Cache-Control": "no-store"})


def _answer(payload: dict[str, Any]) -> web.Response:
    return web.json_response(payload, headers={"Cache-Control": "no-store"})


async def _json_object(request: web.Request) -> dict[str, Any]:
    """The request's JSON object, or a refusal for any other type, size or shape."""
    if request.content_type != "application/json":
        raise Refused(415, "send JSON (Content-Type: application/json)")
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise Refused(413, f"the body is over {MAX_BODY} bytes")
    raw = await request.content.read(MAX_BODY + 1)
    if len(raw) > MAX_BODY:
        raise Refused(413, f"the body is over {MAX_BODY} bytes")
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Refused(400, "the body is not JSON") from None
    if not isinstance(body, dict):
        raise Refused(400, "the body must be a JSON object")
    return body


def _field(body: dict[str, Any], name: str, shape: re.Pattern[str]) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not shape.fullmatch(value):
        raise Refused(400, f"{name} is missing or malformed")
    return value


class ActivityRoutes:
    """The three routes, over one context."""

    def __init__(self, context: ActivityContext) -> None:
        self.context = context

    @property
    def settings(self) -> Settings:
        return self.context.settings

    def _configured(self) -> None:
        if not self.settings.activity_configured:
            raise Refused(404, "the board page is not set up as a Discord Activity on this bot")

    async def config(self, request: web.Request) -> web.Response:
        if not self.settings.activity_configured:
            return _answer({"activity": False})
        return _answer({"activity": True, "client_id": str(self.settings.client_id)})

    async def token(self, request: web.Request) -> web.Response:
        try:
            self._configured()
            code = _field(await _json_object(request), "code", _CODE)
            return _answer({"access_token": await self._exchange(code)})
        except Refused as refused:
            return _error(refused.status, refused.message)

    async def session(self, request: web.Request) -> web.Response:
        try:
            self._configured()
            body = await _json_object(request)
            access_token = _field(body, "access_token", _TOKEN)
            guild_id = int(_field(body, "guild_id", _SNOWFLAKE))
            channel_id = int(_field(body, "channel_id", _SNOWFLAKE))
            user_id = await self._member(access_token)
            game_id = await self._game(user_id, guild_id, channel_id)
            session = mint(self.context.secret, user_id, game_id, self.context.now())
            return _answer({"session": session, "game_id": str(game_id), "user_id": str(user_id)})
        except Refused as refused:
            return _error(refused.status, refused.message)

    async def _exchange(self, code: str) -> str:
        """Discord's access token for ``code`` (OAuth2's authorization-code grant)."""
        form = {
            "client_id": str(self.settings.client_id),
            "client_secret": self.settings.client_secret,
            "grant_type": "authorization_code",
            "code": code,
        }
        status, answer = await self._discord("POST", "/oauth2/token", data=form)
        if status == 401:
            log.error("Discord refused the application's client id or secret (DISCORD_CLIENT_ID, _SECRET)")
            raise Refused(502, "Discord refused this bot's application settings")
        token = answer.get("access_token") if status == 200 else None
        if not isinstance(token, str) or not _TOKEN.fullmatch(token):
            raise Refused(401, "Discord did not accept that code (used already, expired or not this application's)")
        return token

    async def _member(self, access_token: str) -> int:
        """Who ``access_token`` belongs to, as Discord says."""
        status, answer = await self._discord("GET", "/users/@me", headers={"Authorization": f"Bearer {access_token}"})
        raw = answer.get("id") if status == 200 else None
        if not isinstance(raw, str) or not _SNOWFLAKE.fullmatch(raw):
            raise Refused(401, "Discord did not accept that access token")
        return int(raw)

    async def _game(self, user_id: int, guild_id: int, channel_id: int) -> int:
        """The game ``user_id`` may see from this launch: the one recorded for the member and the channel, or the
        member's own game played in that channel (a game thread), and only in that server and channel."""
        store = self.context.store
        game_id = await store.launched_game(user_id, guild_id, channel_id)
        try:
            if game_id is not None:
                info = await store.get_game(game_id)
            else:
                info = await store.game_in_channel(channel_id)
                if user_id not in info.participants:
                    raise Refused(404, "no board was opened from this channel; press “Play on the board” first")
        except NoGameHere:
            raise Refused(404, "no game was launched from this channel") from None
        if info.guild_id != guild_id or info.channel_id != channel_id:
            raise Refused(403, "that game is not played in this channel")
        return int(info.id)

    async def _discord(self, method: str, path: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
        url = self.settings.api_base + path
        try:
            async with (
                aiohttp.ClientSession(timeout=DISCORD_TIMEOUT) as client,
                client.request(method, url, **kwargs) as response,
            ):
                status = response.status
                try:
                    answer = await response.json(content_type=None)
                except ValueError:
                    answer = None
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning("board page: Discord could not be reached for %s %s: %s", method, path, exc)
            raise Refused(502, "Discord could not be reached; try again") from None
        return status, answer if isinstance(answer, dict) else {}
