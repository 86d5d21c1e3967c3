"""The fake gateway: a websocket speaking Discord's v10 protocol to the real discord.py client.

It covers what a bot's life depends on: HELLO and heartbeats, IDENTIFY answered by READY and a
full GUILD_CREATE, event dispatch with sequence numbers, RESUME on the ``resume_gateway_url``
with replay of what was missed, RECONNECT and INVALID_SESSION on request, Discord's close codes
for bad tokens and intents, and zlib-stream compression when the client asks for it.

Sharding as Discord does it: IDENTIFY may carry ``shard: [id, count]`` (a bad pair closes with 4010);
each shard is a session of its own, and a server's events go only to the shard
``(guild_id >> 22) % count`` (direct messages to shard 0), whose READY lists it and which alone gets its
GUILD_CREATE. ``GET /gateway/bot`` recommends ``recommended_shards``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from bot.sandbox.permissions import VIEW_CHANNEL
from bot.sandbox.state import (
    GUILD_MEMBERS_INTENT,
    GUILD_MESSAGES_INTENT,
    GUILDS_INTENT,
    KNOWN_INTENTS,
    MESSAGE_CONTENT_INTENT,
    PRIVILEGED_INTENTS,
    SandboxState,
)

log = logging.getLogger(__name__)

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE_UPDATE, VOICE_STATE_UPDATE = 0, 1, 2, 3, 4
RESUME, RECONNECT, REQUEST_GUILD_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 6, 7, 8, 9, 10, 11

CLOSE_UNKNOWN_OPCODE = 4001
CLOSE_DECODE_ERROR = 4002
CLOSE_NOT_AUTHENTICATED = 4003
CLOSE_AUTHENTICATION_FAILED = 4004
CLOSE_ALREADY_AUTHENTICATED = 4005
CLOSE_INVALID_SHARD = 4010
CLOSE_INVALID_API_VERSION = 4012
CLOSE_INVALID_INTENTS = 4013
CLOSE_DISALLOWED_INTENTS = 4014

_MESSAGE_EVENTS = {"MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE", "MESSAGE_DELETE_BULK"}
_GUILD_EVENTS = {
    "GUILD_CREATE",
    "GUILD_UPDATE",
    "CHANNEL_CREATE",
    "CHANNEL_UPDATE",
    "CHANNEL_DELETE",
    "THREAD_CREATE",
    "THREAD_UPDATE",
    "THREAD_DELETE",
    "THREAD_MEMBERS_UPDATE",
    "GUILD_ROLE_CREATE",
    "GUILD_ROLE_UPDATE",
    "GUILD_ROLE_DELETE",
}
_MEMBER_EVENTS = {"GUILD_MEMBER_ADD", "GUILD_MEMBER_UPDATE", "GUILD_MEMBER_REMOVE"}


@dataclass
class Connection:
    """One websocket connection as the fake saw it; tests read these to check reconnect behaviour."""

    path: str
    query: dict[str, str]
    compressed: bool
    received_ops: list[int] = field(default_factory=list)
    sent_ops: list[int] = field(default_factory=list)
    identified: bool = False
    resumed: bool = False
    close_code: int | None = None
    closed: bool = False


@dataclass
class Session:
    """A gateway session: outlives its connection so a RESUME can replay what was missed."""

    id: str
    intents: int
    seq: int = 0
    backlog: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)
    ws: web.WebSocketResponse | None = None
    connection: Connection | None = None
    sender: _Sender | None = None
    valid: bool = True
    shard: tuple[int, int] = (0, 1)  # (shard id, shard count), as IDENTIFY gave it

    def owns(self, guild_id: int | None) -> bool:
        """Whether Discord sends this server's events to this session's shard (direct messages: shard 0)."""
        shard_id, count = self.shard
        if guild_id is None:
            return shard_id == 0
        return (guild_id >> 22) % count == shard_id


class Gateway:
    """Serves ``/gateway`` (fresh sessions) and ``/gateway-resume`` (the URL READY hands out)."""

    heartbeat_interval_ms = 41_250
    # Discord's ACK comes a network round trip after the heartbeat. discord.py's keep-alive thread notes a
    # heartbeat's send time only once the send has completed, and measures the ACK from that note: an ACK sooner
    # than the thread can run (loopback answers in microseconds) is measured from the heartbeat before, a whole
    # interval, and logged as "Can't keep up ... websocket is 41.3s behind". So the fake answers after a round trip.
    heartbeat_ack_delay = 0.03

    def __init__(
        self,
        state: SandboxState,
        *,
        privileged_intents: int,
        on_change: Callable[[], None],
    ) -> None:
        self.state = state
        self.privileged_intents = privileged_intents
        self._changed = on_change
        self.connections: list[Connection] = []
        self.sessions: dict[str, Session] = {}
        # The live session of each shard, by (shard id, shard count); an unsharded bot is (0, 1).
        self.shards: dict[tuple[int, int], Session] = {}
        self.revoked_tokens: set[str] = set()
        self.recommended_shards = 1

    @property
    def current(self) -> Session | None:
        """The session that gets the sandbox server's events: the newest of the shard that owns it."""
        owners = [s for s in self.shards.values() if s.valid and s.owns(self.state.guild_id)]
        if owners:
            return owners[-1]
        valid = [s for s in self.shards.values() if s.valid]
        return valid[-1] if valid else (list(self.shards.values())[-1] if self.shards else None)

    # -- websocket handling ----------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await ws.prepare(request)
        query = dict(request.query)
        compress = query.get("compress")
        conn = Connection(path=request.path, query=query, compressed=compress == "zlib-stream")
        self.connections.append(conn)
        self._changed()
        compressor = zlib.compressobj() if conn.compressed else None
        sender = _Sender(ws, conn, compressor)
        try:
            if query.get("v") != "10":
                await self._close(ws, conn, CLOSE_INVALID_API_VERSION, "Invalid API version.")
                return ws
            if query.get("encoding", "json") != "json" or (compress and compress != "zlib-stream"):
                await self._close(
                    ws, conn, CLOSE_DECODE_ERROR, "The sandbox serves json, plain or zlib-stream (not zstd-stream)."
                )
                return ws
            await sender.send(
                {"op": HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}, "s": None, "t": None}
            )
            session: Session | None = None
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    if msg.type is WSMsgType.BINARY:
                        await self._close(ws, conn, CLOSE_DECODE_ERROR, "Binary frames are not accepted.")
                    break
                try:
                    payload = json.loads(msg.data)
                    op = int(payload["op"])
                except (ValueError, KeyError, TypeError):
                    await self._close(ws, conn, CLOSE_DECODE_ERROR, "Error while decoding payload.")
                    break
                conn.received_ops.append(op)
                self._changed()
                data = payload.get("d")
                if op == HEARTBEAT:
                    # In order: what the client sent after the heartbeat is answered after its ACK, as by Discord.
                    await asyncio.sleep(self.heartbeat_ack_delay)
                    if ws.closed:
                        break
                    await sender.send({"op": HEARTBEAT_ACK, "d": None, "s": None, "t": None})
                elif op == IDENTIFY:
                    if session is not None:
                        await self._close(ws, conn, CLOSE_ALREADY_AUTHENTICATED, "Already authenticated.")
                        break
                    session = await self._identify(ws, conn, sender, data or {})
                    if session is None:
                        break
                elif op == RESUME:
                    if session is not None:
                        await self._close(ws, conn, CLOSE_ALREADY_AUTHENTICATED, "Already authenticated.")
                        break
                    session = await self._resume(ws, conn, sender, data or {})
                elif session is None:
                    await self._close(ws, conn, CLOSE_NOT_AUTHENTICATED, "Not authenticated.")
                    break
                elif op == REQUEST_GUILD_MEMBERS:
                    await self._members_chunk(session, data or {})
                elif op in (PRESENCE_UPDATE, VOICE_STATE_UPDATE):
                    continue
                else:
                    await self._close(ws, conn, CLOSE_UNKNOWN_OPCODE, "Unknown opcode.")
                    break
        finally:
            conn.closed = True
            if conn.close_code is None:
                conn.close_code = ws.close_code
            for known in self.sessions.values():
                if known.ws is ws:
                    known.ws = None
                    known.connection = None
            self._changed()
        return ws

    async def _close(self, ws: web.WebSocketResponse, conn: Connection, code: int, reason: str) -> None:
        log.info("gateway closes with %s: %s", code, reason)
        conn.close_code = code
        await ws.close(code=code, message=reason.encode())

    async def _identify(
        self, ws: web.WebSocketResponse, conn: Connection, sender: _Sender, data: dict[str, Any]
    ) -> Session | None:
        token = str(data.get("token") or "")
        if token.startswith("Bot "):
            token = token[4:]
        if token != self.state.token or token in self.revoked_tokens:
            await self._close(ws, conn, CLOSE_AUTHENTICATION_FAILED, "Authentication failed.")
            return None
        intents = data.get("intents")
        if not isinstance(intents, int) or intents & ~KNOWN_INTENTS:
            await self._close(ws, conn, CLOSE_INVALID_INTENTS, "Invalid intent(s).")
            return None
        privileged = intents & PRIVILEGED_INTENTS
        if privileged & ~self.privileged_intents:
            await self._close(ws, conn, CLOSE_DISALLOWED_INTENTS, "Disallowed intent(s).")
            return None
        shard = data.get("shard", [0, 1])
        if (
            not isinstance(shard, list)
            or len(shard) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in shard)
            or not 0 <= shard[0] < shard[1]
        ):
            await self._close(ws, conn, CLOSE_INVALID_SHARD, "Invalid shard.")
            return None
        key = (int(shard[0]), int(shard[1]))
        previous = self.shards.pop(key, None)
        if previous is not None:
            previous.valid = False
        session = Session(id=secrets.token_hex(16), intents=intents, ws=ws, connection=conn, sender=sender, shard=key)
        self.sessions[session.id] = session
        self.shards[key] = session
        conn.identified = True
        owned = session.owns(self.state.guild_id)
        ready = {
            "v": 10,
            "user": self.state.bot.user_json() | {"verified": True, "mfa_enabled": False, "flags": 0, "email": None},
            "guilds": [{"id": str(self.state.guild_id), "unavailable": True}] if owned else [],
            "shard": list(key),
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.resume_url,
            "application": {"id": str(self.state.application_id), "flags": self.state.application_json()["flags"]},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "user_settings": {},
            "geo_ordered_rtc_regions": [],
            "guild_join_requests": [],
            "_trace": ["sandbox-gateway"],
        }
        await self._dispatch_to(session, "READY", ready)
        if intents & GUILDS_INTENT and owned:
            await self._dispatch_to(session, "GUILD_CREATE", self.state.guild_json())
        return session

    async def _resume(
        self, ws: web.WebSocketResponse, conn: Connection, sender: _Sender, data: dict[str, Any]
    ) -> Session | None:
        session = self.sessions.get(str(data.get("session_id")))
        token = str(data.get("token") or "")
        seq = data.get("seq")
        if session is None or not session.valid or token != self.state.token or not isinstance(seq, int):
            await sender.send({"op": INVALID_SESSION, "d": False, "s": None, "t": None})
            return None
        session.ws = ws
        session.connection = conn
        session.sender = sender
        conn.resumed = True
        self.shards.pop(session.shard, None)
        self.shards[session.shard] = session
        for event_seq, event, payload in session.backlog:
            if event_seq > seq:
                await sender.send({"op": DISPATCH, "t": event, "s": event_seq, "d": payload})
        session.seq += 1
        session.backlog.append((session.seq, "RESUMED", {}))
        await sender.send({"op": DISPATCH, "t": "RESUMED", "s": session.seq, "d": {}})
        self._changed()
        return session

    async def _members_chunk(self, session: Session, data: dict[str, Any]) -> None:
        members = [m.member_json() for m in self.state.members.values()]
        chunk = {
            "guild_id": str(self.state.guild_id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if "nonce" in data:
            chunk["nonce"] = data["nonce"]
        await self._dispatch_to(session, "GUILD_MEMBERS_CHUNK", chunk)

    # -- dispatching ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"{self.state.base_url.replace('http://', 'ws://')}/gateway"

    @property
    def resume_url(self) -> str:
        return f"{self.state.base_url.replace('http://', 'ws://')}/gateway-resume"

    def wants(self, session: Session, event: str) -> bool:
        if event in _MESSAGE_EVENTS:
            return bool(session.intents & GUILD_MESSAGES_INTENT)
        if event in _GUILD_EVENTS:
            return bool(session.intents & GUILDS_INTENT)
        if event in _MEMBER_EVENTS:
            return bool(session.intents & GUILD_MEMBERS_INTENT)
        return True

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send an event to the session of the shard it belongs to; kept in its backlog between connections."""
        session = self._session_for(data)
        if session is None or not session.valid or not self.wants(session, event):
            return
        if event in _MESSAGE_EVENTS and not self._bot_sees(data.get("channel_id")):
            return  # Discord sends no message events from channels the bot cannot see
        if event in ("MESSAGE_CREATE", "MESSAGE_UPDATE") and not session.intents & MESSAGE_CONTENT_INTENT:
            data = self._without_content(data)
        await self._dispatch_to(session, event, data)

    def _session_for(self, data: dict[str, Any]) -> Session | None:
        """The shard an event goes to: its server's (every event here is of the one server, or a DM: shard 0)."""
        channel_id = data.get("channel_id") or data.get("id")
        guild_id: int | None = self.state.guild_id
        if "guild_id" not in data and channel_id is not None and int(channel_id) not in self.state.channels:
            guild_id = None  # a direct message channel
        owners = [s for s in self.shards.values() if s.owns(guild_id)]
        return owners[-1] if owners else None

    def _bot_sees(self, channel_id: Any) -> bool:
        if channel_id is None or int(channel_id) not in self.state.channels:
            return True
        return bool(self.state.permissions(self.state.bot.id, int(channel_id)) & VIEW_CHANNEL)

    def _without_content(self, data: dict[str, Any]) -> dict[str, Any]:
        """Without the message content intent a bot sees other users' messages empty, unless mentioned."""
        bot_id = str(self.state.bot.id)
        if data.get("author", {}).get("id") == bot_id or any(u.get("id") == bot_id for u in data.get("mentions", [])):
            return data
        return data | {"content": "", "embeds": [], "attachments": [], "components": []}

    async def _dispatch_to(self, session: Session, event: str, data: dict[str, Any]) -> None:
        session.seq += 1
        session.backlog.append((session.seq, event, data))
        sender = session.sender
        if session.ws is not None and sender is not None and not session.ws.closed:
            try:
                await sender.send({"op": DISPATCH, "t": event, "s": session.seq, "d": data})
            except ConnectionError:
                log.debug("connection dropped while sending %s; it stays in the backlog", event)
        self._changed()

    # -- what a test can make the gateway do ---------------------------------------------------------

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT, as Discord does before moving a session; the client must RESUME."""
        sender = self._current_sender()
        await sender.send({"op": RECONNECT, "d": None, "s": None, "t": None})

    async def invalidate_session(self, *, resumable: bool = False) -> None:
        """Send op 9; with ``resumable=False`` the session is gone and the client must IDENTIFY again."""
        sender = self._current_sender()
        if not resumable and self.current is not None:
            self.current.valid = False
        await sender.send({"op": INVALID_SESSION, "d": resumable, "s": None, "t": None})

    async def drop_connection(self, code: int = 1006) -> None:
        """Close the bot's socket abruptly (a network blip); the client should reconnect and RESUME."""
        session = self.current
        if session is None or session.ws is None:
            raise RuntimeError("no bot is connected to the gateway")
        if session.connection is not None:
            session.connection.close_code = code
        await session.ws.close(code=code, message=b"sandbox dropped the connection")

    def revoke_token(self) -> None:
        """Make the current token invalid, as a reset in the developer portal would (next IDENTIFY gets 4004)."""
        self.revoked_tokens.add(self.state.token)

    def _current_sender(self) -> _Sender:
        session = self.current
        if session is None or session.ws is None or session.sender is None:
            raise RuntimeError("no bot is connected to the gateway")
        return session.sender


class _Sender:
    """Writes gateway payloads, zlib-stream compressed on one shared context when asked for."""

    def __init__(self, ws: web.WebSocketResponse, conn: Connection, compressor: Any) -> None:
        self.ws = ws
        self.conn = conn
        self.compressor = compressor
        self.lock = asyncio.Lock()

    async def send(self, payload: dict[str, Any]) -> None:
        text = json.dumps(payload, separators=(",", ":"))
        async with self.lock:
            if self.ws.closed:
                raise ConnectionError("websocket closed")
            self.conn.sent_ops.append(int(payload["op"]))
            if self.compressor is not None:
                data = self.compressor.compress(text.encode()) + self.compressor.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(text)
