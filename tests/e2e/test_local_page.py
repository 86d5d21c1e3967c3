"""The local table's API answers its own page only: other sites in the same browser get nothing from it.

Each attack is sent over real HTTP to the page served on loopback, next to the same request as the page
itself sends it, which must still work (a table that refused everything would pass the attacks alone).
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from bot.local.page import Page
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Attachment, Member


@dataclass
class Table:
    url: str
    port: int

    @property
    def origin(self) -> str:
        return self.url


@pytest.fixture
async def table(sandbox: FakeDiscord) -> AsyncIterator[Table]:
    ready = asyncio.Event()
    ready.set()
    runner = web.AppRunner(Page(sandbox, ready=ready).app(), access_log=None)
    await runner.setup()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    await web.SockSite(runner, sock).start()
    port = sock.getsockname()[1]
    try:
        yield Table(f"http://127.0.0.1:{port}", port)
    finally:
        await runner.cleanup()


def said(sandbox: FakeDiscord, text: str) -> list[str]:
    return [m.content for m in sandbox.messages(sandbox.channel_id) if text in m.content]


async def post(table: Table, path: str, data: bytes, headers: dict[str, str]) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as http, http.post(table.url + path, data=data, headers=headers) as answer:
        text = await answer.text()
        return answer.status, (json.loads(text) if answer.content_type == "application/json" else text)


async def test_the_page_itself_may_post(sandbox: FakeDiscord, table: Table, alice: Member) -> None:
    body = json.dumps({"action": "say", "member": str(alice.id), "content": "hello from the page"}).encode()
    status, answer = await post(table, "/api/act", body, {"Content-Type": "application/json", "Origin": table.origin})
    assert (status, answer) == (200, {"ok": True})
    assert said(sandbox, "hello from the page") == ["hello from the page"]


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        # A cross-site form or fetch "simple request": text/plain needs no preflight, so it reaches the table.
        ({"Content-Type": "text/plain", "Origin": "http://evil.example"}, 403),
        ({"Content-Type": "application/json", "Origin": "http://evil.example"}, 403),
        ({"Content-Type": "application/json", "Origin": "null"}, 403),  # a sandboxed frame, a file: page
        # Same origin named, but a body no page of the table sends: refused all the same.
        ({"Content-Type": "text/plain", "Origin": "ORIGIN"}, 415),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
        # A DNS-rebinding page: the browser thinks it talks to evil.example, so Origin and Host agree.
        ({"Content-Type": "application/json", "Origin": "http://evil.example:PORT", "Host": "evil.example:PORT"}, 421),
    ],
)
async def test_another_site_cannot_post(
    sandbox: FakeDiscord, table: Table, alice: Member, headers: dict[str, str], status: int
) -> None:
    headers = {k: v.replace("ORIGIN", table.origin).replace("PORT", str(table.port)) for k, v in headers.items()}
    body = json.dumps({"action": "say", "member": str(alice.id), "content": "posted by another site"}).encode()
    got, answer = await post(table, "/api/act", body, headers)
    assert got == status
    assert isinstance(answer, dict) and answer["error"]
    members = await post(table, "/api/members", json.dumps({"name": "mallory"}).encode(), headers)
    assert members[0] == status
    assert said(sandbox, "posted by another site") == []
    assert not any(m.name == "mallory" for m in sandbox.state.members.values())


async def test_a_rebound_name_reads_nothing(sandbox: FakeDiscord, table: Table, alice: Member, bob: Member) -> None:
    await sandbox.user(alice).say("alice's secret plan")
    query = f"/api/messages?member={alice.id}&channel={sandbox.channel_id}"
    async with aiohttp.ClientSession() as http:
        async with http.get(table.url + query) as own:
            assert own.status == 200
            assert "alice's secret plan" in await own.text()
        for host in ("evil.example", f"evil.example:{table.port}", "127.0.0.1:1", f"127.0.0.2:{table.port}"):
            for path in (query, "/api/state", "/", "/static/app.js"):
                async with http.get(table.url + path, headers={"Host": host}) as other:
                    text = await other.text()
                    assert other.status == 421, (host, path)
                    assert "secret" not in text and "alice" not in text and "<html" not in text.lower()
        # The page's own address under its other loopback name still works.
        async with http.get(table.url + query, headers={"Host": f"localhost:{table.port}"}) as named:
            assert named.status == 200
        async with http.get(table.url + query, headers={"Origin": "http://evil.example"}) as cross:
            assert cross.status == 403
            assert "secret" not in await cross.text()


async def test_the_live_updates_answer_the_page_only(table: Table) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(table.url + "/api/events", origin=table.origin) as own:
            first = await own.receive_json(timeout=10)
            assert first["ready"] is True and isinstance(first["version"], int)
        for origin in ("http://evil.example", f"http://localhost:{table.port}"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(table.url + "/api/events", origin=origin)
            assert refused.value.status == 403


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"{not json", "not valid JSON"),
        (b"", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"action": "say", "member": ["x"], "content": "x"}', "no member"),
        (b'{"action": "say", "member": "MEMBER", "channel": {"id": 1}, "content": "x"}', "channel"),
        (b'{"action": "select", "member": "MEMBER", "message": [1], "values": ["a"]}', "no longer exists"),
        (b'{"action": "select", "member": "MEMBER", "message": "1", "values": "abc"}', "values must be a JSON array"),
        (b'{"action": "slash", "member": "MEMBER", "path": "veletas", "options": {}}', "path must be a JSON array"),
        (b'{"action": "submit", "member": "MEMBER", "modal": "x", "values": [1]}', "no longer open"),
    ],
)
async def test_malformed_requests_get_a_json_400(
    sandbox: FakeDiscord, table: Table, alice: Member, body: bytes, error: str
) -> None:
    before = len(sandbox.messages(sandbox.channel_id))
    data = body.replace(b"MEMBER", str(alice.id).encode())
    status, answer = await post(table, "/api/act", data, {"Content-Type": "application/json", "Origin": table.origin})
    assert status == 400
    assert isinstance(answer, dict) and error in answer["error"], answer
    assert len(sandbox.messages(sandbox.channel_id)) == before


async def test_only_a_real_attachment_is_served(sandbox: FakeDiscord, table: Table, alice: Member) -> None:
    message = await sandbox.user(alice).say("a file")
    message.attachments.append(
        Attachment(id=77, filename="board.png", data=b"\x89PNG-bytes", content_type="image/png", url="")
    )
    own = f"/attachments/{sandbox.channel_id}/77/board.png"
    async with aiohttp.ClientSession() as http:
        async with http.get(table.url + own) as found:
            assert found.status == 200 and await found.read() == b"\x89PNG-bytes"
        for path in (
            "/attachments/x/y/z",
            f"/attachments/{sandbox.channel_id}/y/board.png",
            f"/attachments/{sandbox.channel_id}/78/board.png",
            f"/attachments/{sandbox.channel_id}/77/other.png",
            f"/attachments/{sandbox.channel_id + 1}/77/board.png",
        ):
            async with http.get(table.url + path) as missing:
                assert missing.status == 404, path
                assert (await missing.json())["error"] == "no such attachment"


@pytest.mark.parametrize(
    ("filename", "content_type", "data"),
    [
        ("record.txt", "text/plain; charset=utf-8", "1. d4-g7/g2 — Ñandú 日本\n".encode()),
        ("standings.csv", "text/csv; charset=utf-8", b"rank,name\n1,ann\n"),
        ("board.png", "image/png", b"\x89PNG-bytes"),
        ("round.trf", None, b"012 Swiss\n"),
    ],
    ids=["txt", "csv", "png", "untyped"],
)
async def test_an_attachment_downloads_with_its_own_type(
    sandbox: FakeDiscord, table: Table, alice: Member, filename: str, content_type: str | None, data: bytes
) -> None:
    """A record's text file (a type with its charset, as Discord stores it) downloads as it was sent."""
    message = await sandbox.user(alice).say("a file")
    message.attachments.append(Attachment(id=91, filename=filename, data=data, content_type=content_type, url=""))
    url = f"{table.url}/attachments/{sandbox.channel_id}/91/{filename}"
    async with aiohttp.ClientSession() as http, http.get(url) as got:
        assert got.status == 200
        assert await got.read() == data
        assert got.headers["Content-Type"] == (content_type or "application/octet-stream")


async def get(table: Table, path: str) -> Any:
    async with aiohttp.ClientSession() as http, http.get(table.url + path) as answer:
        assert answer.status == 200, await answer.text()
        return await answer.json()


async def test_a_message_names_the_whole_command_as_discord_shows_it(
    sandbox: FakeDiscord, bot: Any, table: Table, alice: Member
) -> None:
    """Discord shows "alice used /veletas rules": the sub-command too, as the message's interaction carries it."""
    body = json.dumps({"action": "slash", "member": str(alice.id), "path": ["veletas", "rules"], "options": {}})
    status, answer = await post(table, "/api/act", body.encode(), {"Content-Type": "application/json"})
    assert (status, answer) == (200, {"ok": True})
    listed = await get(table, f"/api/messages?member={alice.id}&channel={sandbox.channel_id}")
    [answered] = [m for m in listed["messages"] if m["invoker"] == "alice"]
    assert answered["command"] == "veletas rules"
    [message] = [m for m in sandbox.messages(sandbox.channel_id) if str(m.id) == answered["id"]]
    assert message.data["interaction"]["name"] == "veletas rules"
    assert message.data["interaction_metadata"]["name"] == "veletas rules"


async def act_json(table: Table, body: dict[str, Any], path: str = "/api/act") -> tuple[int, Any]:
    return await post(table, path, json.dumps(body).encode(), {"Content-Type": "application/json"})


async def test_the_page_sets_a_members_language_and_who_manages_the_server(
    sandbox: FakeDiscord, bot: Any, table: Table, bob: Member
) -> None:
    """Without Discord, the page is where a member gets another language or Manage Server: each shows in what the
    bot answers them, and /tournament create, refused to a plain member, works for a server manager."""
    state = await get(table, f"/api/state?member={bob.id}")
    assert {m["name"]: (m["locale"], m["manager"]) for m in state["members"]}["bob"] == ("en-US", False)
    assert {"en-US", "es-ES", "es-419", "ja"} <= set(state["locales"]) and state["locale"] == "en-US"

    assert await act_json(table, {"member": str(bob.id), "locale": "es-ES"}, "/api/member") == (
        200,
        {"locale": "es-ES", "manager": False},
    )
    create = {
        "action": "slash",
        "member": str(bob.id),
        "path": ["tournament", "create"],
        "options": {"name": "Copa", "game": "veletas", "format": "swiss", "rounds": "3"},
    }
    assert await act_json(table, create) == (200, {"ok": True})
    refused = sandbox.messages(sandbox.channel_id)[-1]
    assert refused.ephemeral and "Solo los miembros con Gestionar servidor" in refused.text()

    assert await act_json(table, {"member": str(bob.id), "manager": True}, "/api/member") == (
        200,
        {"locale": "es-ES", "manager": True},
    )
    assert await act_json(table, create) == (200, {"ok": True})
    created = [m for m in sandbox.messages(sandbox.channel_id) if not m.ephemeral and "Copa" in m.text()]
    assert created, [m.text() for m in sandbox.messages(sandbox.channel_id)]
    settings = {"action": "slash", "member": str(bob.id), "path": ["settings"], "options": {}}
    status, _ = await act_json(table, settings)
    assert status == 200

    # Taken back: the Discord client no longer offers /settings.
    assert (await act_json(table, {"member": str(bob.id), "manager": False}, "/api/member"))[1]["manager"] is False
    status, answer = await act_json(table, settings)
    assert status == 400 and "manage_guild" in answer["error"]

    # The server's language reaches the bot as Discord's GUILD_UPDATE.
    assert await act_json(table, {"locale": "ja"}, "/api/server") == (200, {"locale": "ja"})
    guild = bot.get_guild(sandbox.guild_id)
    assert guild is not None and str(guild.preferred_locale) == "ja"


@pytest.mark.parametrize(
    ("path", "body", "error"),
    [
        ("/api/member", {"member": "BOB", "locale": "xx-YY"}, "not one of Discord's languages"),
        ("/api/member", {"member": "BOB", "manager": "yes"}, "manager must be true or false"),
        ("/api/member", {"member": "12", "locale": "ja"}, "no member"),
        ("/api/server", {"locale": "english"}, "not one of Discord's languages"),
    ],
)
async def test_a_bad_language_or_role_change_changes_nothing(
    sandbox: FakeDiscord, table: Table, bob: Member, path: str, body: dict[str, Any], error: str
) -> None:
    body = {k: (str(bob.id) if v == "BOB" else v) for k, v in body.items()}
    status, answer = await act_json(table, body, path)
    assert status == 400 and error in answer["error"]
    assert (bob.locale, bob.roles, sandbox.state.preferred_locale) == ("en-US", [], "en-US")


async def test_discords_side_of_the_activity_speaks_for_the_acting_member_only(
    sandbox: FakeDiscord, table: Table, alice: Member, bob: Member
) -> None:
    json_headers = {"Content-Type": "application/json", "Origin": table.origin}

    async def ask(path: str, body: dict[str, Any], headers: dict[str, str] = json_headers) -> tuple[int, Any]:
        return await post(table, path, json.dumps(body).encode(), headers)

    client_id = str(sandbox.application_id)
    status, answer = await ask("/api/activity/authorize", {"member": str(alice.id), "client_id": "1", "scopes": []})
    assert status == 400 and "application" in answer["error"], "another application's client id"
    status, answer = await ask("/api/activity/authorize", {"member": str(alice.id), "client_id": client_id})
    assert status == 400 and sandbox.state.oauth.codes == {}, "no scope asked"
    # Another site cannot obtain a member's code through the table.
    evil = {"Content-Type": "application/json", "Origin": "http://evil.example"}
    status, _ = await ask(
        "/api/activity/authorize", {"member": str(alice.id), "client_id": client_id, "scopes": ["identify"]}, evil
    )
    assert status == 403 and sandbox.state.oauth.codes == {}
    status, answer = await ask(
        "/api/activity/authorize", {"member": str(alice.id), "client_id": client_id, "scopes": ["identify"]}
    )
    assert status == 200 and sandbox.state.oauth.codes[answer["code"]].user_id == alice.id
    form = f"grant_type=authorization_code&code={answer['code']}&client_id={client_id}&client_secret="
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            sandbox.api_base + "/oauth2/token",
            data=(form + sandbox.client_secret).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        ) as exchanged,
    ):
        token = (await exchanged.json())["access_token"]
    status, answer = await ask("/api/activity/authenticate", {"member": str(bob.id), "access_token": token})
    assert status == 401 and "another member" in answer["error"]
    status, answer = await ask("/api/activity/authenticate", {"member": str(alice.id), "access_token": "forged"})
    assert status == 401
    status, answer = await ask("/api/activity/authenticate", {"member": str(alice.id), "access_token": token})
    assert status == 200 and answer["user"]["id"] == str(alice.id) and answer["scopes"] == ["identify"]
    assert answer["application"]["id"] == client_id and answer["access_token"] == token


async def test_without_a_board_server_the_board_path_says_so(table: Table) -> None:
    async with aiohttp.ClientSession() as http, http.get(table.url + "/board/") as answer:
        assert answer.status == 503 and "board page" in (await answer.json())["error"]


async def test_the_board_server_is_served_under_board_with_its_sockets(sandbox: FakeDiscord) -> None:
    """The table passes /board/ through to the bot's board server: requests with their JSON and Authorization,
    answers with their status, and WebSockets both ways with the subprotocol the server chose."""

    async def echo(request: web.Request) -> web.StreamResponse:
        body = await request.text()
        return web.json_response(
            {
                "path": request.path_qs,
                "method": request.method,
                "body": body,
                "auth": request.headers.get("Authorization"),
            },
            status=201 if request.method == "POST" else 200,
            headers={"Cache-Control": "no-store", "Set-Cookie": "kept=no"},
        )

    async def board_socket(request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(protocols=("board.v1",))
        await ws.prepare(request)
        async for message in ws:
            await ws.send_str(f"board heard {message.data} as {ws.ws_protocol}")
        return ws

    board = web.Application()
    board.router.add_get("/board/ws", board_socket)
    board.router.add_route("*", "/board/{tail:.*}", echo)
    board_runner = web.AppRunner(board, access_log=None)
    await board_runner.setup()
    board_sock = socket_on_loopback()
    await web.SockSite(board_runner, board_sock).start()
    ready = asyncio.Event()
    ready.set()
    page = Page(sandbox, ready=ready, board_url=f"http://127.0.0.1:{board_sock.getsockname()[1]}")
    runner = web.AppRunner(page.app(), access_log=None)
    await runner.setup()
    sock = socket_on_loopback()
    await web.SockSite(runner, sock).start()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(url + "/board/?frame_id=f&x=1") as answer:
                got = await answer.json()
                assert answer.status == 200 and got["path"] == "/board/?frame_id=f&x=1"
                assert answer.headers["Cache-Control"] == "no-store" and "Set-Cookie" not in answer.headers
            headers = {"Content-Type": "application/json", "Origin": url, "Authorization": "Bearer s"}
            async with http.post(url + "/board/api/move", data=b'{"to": "d4"}', headers=headers) as answer:
                got = await answer.json()
                assert answer.status == 201 and (got["body"], got["auth"]) == ('{"to": "d4"}', "Bearer s")
            # Another site gets nothing through it, as from the rest of the table's API.
            evil = {"Content-Type": "application/json", "Origin": "http://evil.example"}
            async with http.post(url + "/board/api/move", data=b"{}", headers=evil) as answer:
                assert answer.status == 403
            async with http.ws_connect(url + "/board/ws", protocols=("board.v1",), origin=url) as ws:
                assert ws.protocol == "board.v1"
                await ws.send_str("d4")
                assert await ws.receive_str() == "board heard d4 as board.v1"
    finally:
        await runner.cleanup()
        await board_runner.cleanup()


def socket_on_loopback() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock
