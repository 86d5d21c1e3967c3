"""The board server's API against a real store: who may read and move, refusals that change nothing, live pushes
and premoves. The turn path here is the store's ``play`` alone; the end-to-end path (the board posted in the
thread) is the browser tests'."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer
from store_fixtures import Clock, fresh_sqlite

from bot.board.context import BoardContext
from bot.board.server import MAX_BODY, board_app, start
from bot.board.sessions import mint
from bot.clocks import TimeControl
from bot.config import Settings, SettingsError
from bot.render.theme import THEMES
from bot.store import Store
from bot.store.values import GameInfo

GUILD, CHANNEL = 1000, 2000
ALICE, BOB, CAROL = 11, 22, 33
SECRET = b"board test secret"


class Board:
    def __init__(self, store: Store, client: TestClient[Any, Any], context: BoardContext) -> None:
        self.store, self.client, self.context = store, client, context

    def token(self, user: int, game: int, secret: bytes = SECRET) -> str:
        return mint(secret, user, game, self.store.now())

    async def request(self, method: str, path: str, user: int | None, game: int, body: Any = None, **kw: Any) -> Any:
        headers = dict(kw.pop("headers", {}))
        if user is not None:
            headers["Authorization"] = f"Bearer {self.token(user, game)}"
        if body is not None:
            headers.setdefault("Content-Type", "application/json")
            kw["data"] = body if isinstance(body, (str, bytes)) else json.dumps(body)
        return await self.client.request(method, f"/board/api/{path}", headers=headers, **kw)


@pytest.fixture
async def board(sqlite_path: Path, clock: Clock) -> AsyncIterator[Board]:
    await fresh_sqlite(sqlite_path)
    store = await Store.open(sqlite_path, clock=clock)

    async def play(game: int, user: int, text: str, version: int) -> None:
        await store.play(game, user, text, expected_version=version)

    context = BoardContext(store=store, secret=SECRET, play=play, name_of=lambda user: f"<b>{user}</b>")
    client = TestClient(TestServer(board_app(context)))
    await client.start_server()
    try:
        yield Board(store, client, context)
    finally:
        await client.close()
        await store.close()


async def new_game(store: Store, game: str = "veletas", settings: dict[str, str] | None = None, **kw: Any) -> GameInfo:
    info = await store.create_challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=BOB,
        where="here",
        expires_at=None,
        game=game,
        settings=settings or ({"variant": "small"} if game == "veletas" else {"board": "5"}),
        **kw,
    )
    return await store.accept_challenge(info.id, BOB, channel_id=CHANNEL)


def first_setup(info: GameInfo) -> str:
    from bot.rules.veletas.page import page_state, turn_text

    steps = page_state(info.state)["steps"]  # type: ignore[arg-type]
    return turn_text("setup", [*steps["squares"][: steps["count"]], steps["stones"][-1] if steps["stone"] else ""])


async def test_a_player_reads_and_moves_and_the_answer_is_the_new_state(board: Board) -> None:
    info = await new_game(board.store)
    answer = await board.request("GET", "state", ALICE, info.id)
    assert answer.status == 200
    body = await answer.json()
    assert body["you"] == {**body["you"], "id": str(ALICE), "player": True, "seat": "first"}
    assert body["state"]["turn"] == str(ALICE) and body["state"]["phase"] == "setup"
    assert body["state"]["players"][0]["name"] == f"<b>{ALICE}</b>"  # as the bot names them: the page escapes it
    turn = first_setup(info)
    moved = await board.request("POST", "move", ALICE, info.id, {"turn": turn, "version": info.version})
    assert moved.status == 200, await moved.text()
    after = await board.store.get_game(info.id)
    assert after.turns == (turn.split("/")[0] + "/" + turn.split("/")[1],) and after.version == info.version + 1
    assert (await moved.json())["state"]["version"] == after.version


async def refused(board: Board, info: GameInfo, status: int, *args: Any, **kw: Any) -> dict[str, Any]:
    answer = await board.request(*args, **kw)
    assert answer.status == status, await answer.text()
    assert answer.content_type == "application/json"
    body = await answer.json()
    assert isinstance(body["error"], str) and body["error"]
    after = await board.store.get_game(info.id)
    assert (after.version, after.turns) == (info.version, info.turns)
    return dict(body)


async def test_no_session_a_forged_one_or_another_games_refuse_and_change_nothing(board: Board) -> None:
    info = await new_game(board.store)
    turn = first_setup(info)
    move = {"turn": turn, "version": info.version}
    await refused(board, info, 401, "POST", "move", None, info.id, move)
    await refused(board, info, 401, "GET", "state", None, info.id)
    forged = {"Authorization": f"Bearer {board.token(ALICE, info.id, b'another secret')}"}
    await refused(board, info, 401, "POST", "move", None, info.id, move, headers=forged)
    tampered = board.token(BOB, info.id).replace(f"{BOB}.", f"{ALICE}.", 1)
    await refused(
        board, info, 401, "POST", "move", None, info.id, move, headers={"Authorization": f"Bearer {tampered}"}
    )
    expired = mint(SECRET, ALICE, info.id, board.store.now() - 13 * 3600)
    await refused(board, info, 401, "GET", "state", None, info.id, headers={"Authorization": f"Bearer {expired}"})
    # A token names one game: a request naming another is refused, and a token for no game finds nothing.
    await refused(board, info, 404, "POST", "move", ALICE, info.id + 999, move)
    await refused(board, info, 403, "POST", "move", ALICE, info.id, {**move, "game": str(info.id + 1)})
    await refused(board, info, 403, "GET", f"state?game={info.id + 1}", ALICE, info.id)


async def test_a_spectator_watches_but_cannot_move(board: Board) -> None:
    info = await new_game(board.store)
    answer = await board.request("GET", "state", CAROL, info.id)
    assert (await answer.json())["you"]["player"] is False
    body = await refused(board, info, 403, "POST", "move", CAROL, info.id, {"turn": first_setup(info), "version": 0})
    assert body["key"] == "page.spectator"
    # Worded in the page's language when the bot does not know the member's own.
    spanish = {"X-Board-Language": "es-ES"}
    body = await refused(
        board, info, 403, "POST", "move", CAROL, info.id, {"turn": "c3", "version": 0}, headers=spanish
    )
    assert body["error"] == "Solo los dos jugadores pueden mover. Tú estás mirando."


async def test_not_your_turn_an_illegal_turn_and_a_stale_version_are_refused(board: Board) -> None:
    info = await new_game(board.store)
    turn = first_setup(info)
    body = await refused(board, info, 409, "POST", "move", BOB, info.id, {"turn": turn, "version": info.version})
    assert body["key"] == "refusal.other_players_turn"
    body = await refused(
        board, info, 409, "POST", "move", ALICE, info.id, {"turn": "a1,a2/a3", "version": info.version}
    )
    assert body["key"].startswith("rules.")
    body = await refused(board, info, 409, "POST", "move", ALICE, info.id, {"turn": turn, "version": info.version - 1})
    assert body["key"] == "refusal.race"


@pytest.mark.parametrize(
    ("body", "status", "headers"),
    [
        ("x" * (MAX_BODY + 10), 413, {}),
        ('{"turn": "c3", "version": 1', 400, {}),
        ("[1, 2]", 400, {}),
        ('{"turn": 5, "version": 1}', 400, {}),
        ('{"turn": "c3", "version": "1"}', 400, {}),
        ('{"turn": "c3", "version": true}', 400, {}),
        (json.dumps({"turn": "c" * 65, "version": 1}), 400, {}),
        ('{"turn": "c3", "version": 1}', 415, {"Content-Type": "text/plain"}),
        (b'{"turn": "\xff", "version": 1}', 400, {}),
    ],
)
async def test_malformed_and_oversized_bodies_are_refused_with_a_json_error(
    board: Board, body: Any, status: int, headers: dict[str, str]
) -> None:
    info = await new_game(board.store)
    await refused(board, info, status, "POST", "move", ALICE, info.id, body, headers=headers)


async def test_every_open_page_hears_each_stored_turn_and_a_bad_socket_is_closed(board: Board) -> None:
    info = await new_game(board.store)
    sockets = []
    for user in (ALICE, BOB, CAROL):
        socket = await board.client.ws_connect("/board/api/live")
        await socket.send_json({"token": board.token(user, info.id)})
        you = await socket.receive_json(timeout=5)
        assert you["type"] == "you" and you["you"]["player"] is (user != CAROL)
        first = await socket.receive_json(timeout=5)
        assert first["type"] == "state" and first["state"]["version"] == info.version
        sockets.append(socket)
    await board.store.play(info.id, ALICE, first_setup(info), expected_version=info.version)  # a slash command's
    for socket in sockets:
        pushed = await socket.receive_json(timeout=5)
        assert pushed["type"] == "state" and pushed["state"]["version"] == info.version + 1
        assert pushed["state"]["turn"] == str(BOB)
        await socket.close()
    bad = await board.client.ws_connect("/board/api/live")
    await bad.send_json({"token": board.token(ALICE, info.id, b"forged")})
    said = await bad.receive_json(timeout=5)
    assert said["type"] == "error"
    closing = await bad.receive(timeout=5)
    assert closing.type in (WSMsgType.CLOSE, WSMsgType.CLOSED) and bad.close_code == 4001


async def test_the_pages_words_come_from_the_catalogues(board: Board) -> None:
    answer = await board.client.get("/board/api/words?language=es-419")
    body = await answer.json()
    assert body["language"] == "es" and body["words"]["page.your_turn"] == "Te toca"
    assert (await (await board.client.get("/board/api/words?language=ja")).json())["words"][
        "page.wins"
    ] == "{name}の勝ち"
    page = await board.client.get("/board/")
    assert page.status == 200 and "app.js" in await page.text()
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    assert (await board.client.get("/board/../server.py")).status == 404
    for method, path, status in (("PUT", "/board/api/move", 405), ("GET", "/board/api/nothing", 404)):
        answer = await board.client.request(method, path, data="{}", headers={"Content-Type": "application/json"})
        assert answer.status == status and (await answer.json())["error"]


async def wait_for(check: Any, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.01)


async def test_a_premove_is_only_for_live_games(board: Board) -> None:
    info = await new_game(board.store, "veloop")  # no clock
    body = await refused(board, info, 409, "POST", "premove", BOB, info.id, {"turn": "c3<b1"})
    assert body["key"] == "page.premove_live_only" and not board.context.hub.premoves.get(info.id)


async def test_a_premove_is_played_when_the_turn_comes_and_an_illegal_one_is_cancelled(board: Board) -> None:
    info = await new_game(board.store, "veloop", time_control=TimeControl.parse("5+3"))
    steps = (await (await board.request("GET", "state", ALICE, info.id)).json())["state"]["board"]["steps"]["moves"]
    target, supports = next(iter(steps.items()))
    # Alice is to move: her premove is refused (it is her turn), Carol's too (a spectator).
    await refused(board, info, 409, "POST", "premove", ALICE, info.id, {"turn": "c3<b1"})
    await refused(board, info, 403, "POST", "premove", CAROL, info.id, {"turn": "c3<b1"})
    after_alice = info.state.play(f"{target}<{supports[0]}")
    white = {str(m) for m in after_alice.position.legal_moves()}  # type: ignore[attr-defined]
    queued = sorted(white)[0]
    answer = await board.request("POST", "premove", BOB, info.id, {"turn": queued})
    assert answer.status == 200 and (await answer.json())["you"]["premove"] == queued
    await board.request("POST", "move", ALICE, info.id, {"turn": f"{target}<{supports[0]}", "version": info.version})

    async def bob_played() -> bool:
        return len((await board.store.get_game(info.id)).turns) == 2

    await wait_for(bob_played)
    now = await board.store.get_game(info.id)
    assert now.turns[-1] == queued
    # 122: Bob plays a second stone; Alice queues a turn that will be illegal then, and is told it was cancelled.
    socket = await board.client.ws_connect("/board/api/live")
    await socket.send_json({"token": board.token(ALICE, info.id)})
    await socket.receive_json(timeout=5)
    await socket.receive_json(timeout=5)
    occupied = next(iter(now.state.position.stones()))  # type: ignore[attr-defined]
    assert (await board.request("POST", "premove", ALICE, info.id, {"turn": f"{occupied}<{occupied}"})).status == 200
    second = str(now.state.position.legal_moves()[0])  # type: ignore[attr-defined]
    await board.store.play(info.id, BOB, second, expected_version=now.version)
    got = [await socket.receive_json(timeout=5) for _ in range(2)]
    news = next(m for m in got if m["type"] == "premove")
    assert news["cancelled"] is True and news["turn"] == f"{occupied}<{occupied}" and news["error"]
    assert len((await board.store.get_game(info.id)).turns) == 3  # nothing played for Alice
    await socket.close()


def test_the_board_settings() -> None:
    assert Settings.from_env({"DISCORD_TOKEN": "t"}).board_port is None  # no board server unless asked
    chosen = Settings.from_env({"DISCORD_TOKEN": "t", "BOARD_PORT": "8080", "BOARD_SECRET": "s3cret"})
    assert (chosen.board_port, chosen.board_host, chosen.board_secret) == (8080, "127.0.0.1", b"s3cret")
    for bad in ("http", "70000", "-1"):
        with pytest.raises(SettingsError, match="BOARD_PORT"):
            Settings.from_env({"DISCORD_TOKEN": "t", "BOARD_PORT": bad})


async def test_a_player_sees_the_theme_they_chose_and_others_the_dark_one(board: Board) -> None:
    info = await new_game(board.store)
    await board.store.set_theme(ALICE, "contrast")
    await board.store.set_theme(CAROL, "light")  # a spectator's page keeps Discord's dark look

    async def theme(user: int) -> dict[str, list[int]]:
        return dict((await (await board.request("GET", "state", user, info.id)).json())["you"]["theme"])

    assert (await theme(ALICE))["background"] == list(THEMES["contrast"].background)
    assert (await theme(BOB))["background"] == list(THEMES["dark"].background)
    assert (await theme(CAROL))["shooter"] == list(THEMES["dark"].shooter)
    assert THEMES["contrast"].background != THEMES["dark"].background


async def test_a_port_in_use_fails_to_start_and_leaves_the_store_as_it_was(sqlite_path: Path, clock: Clock) -> None:
    await fresh_sqlite(sqlite_path)
    store = await Store.open(sqlite_path, clock=clock)
    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        context = BoardContext(store=store, secret=SECRET, play=lambda *_: asyncio.sleep(0))
        with pytest.raises(OSError):
            await start(context, "127.0.0.1", taken.getsockname()[1])
        assert store.game_listeners == []
        runner, port = await start(context, "127.0.0.1", 0)
        assert port != 0 and store.game_listeners == [context.hub.changed]
        await runner.cleanup()
        assert store.game_listeners == []
    finally:
        taken.close()
        await store.close()


async def test_the_page_its_way_in_and_the_sdk_are_served_and_nothing_else(board: Board) -> None:
    """The page imports connect.js, and connect.js Discord's SDK from vendor/: inside Discord (or the local table's
    panel) the page cannot start without them."""
    for name in ("app.js", "connect.js", "vendor/discord-embedded-app-sdk.js"):
        answer = await board.client.get(f"/board/{name}")
        assert answer.status == 200, name
        assert answer.headers["Content-Type"].startswith("text/javascript"), name
    sdk = await (await board.client.get("/board/vendor/discord-embedded-app-sdk.js")).text()
    assert "var DiscordSDK = class" in sdk
    for name in ("vendor/discord-embedded-app-sdk.VERSION", "vendor/", "index.html/x", "..%2Fserver.py", "sdk/x.js"):
        assert (await board.client.get(f"/board/{name}")).status == 404, name
