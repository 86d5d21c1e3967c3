"""The board page as an Activity at the local table, in Chromium, with the real Embedded App SDK in the real page.

A member clicks "Play on the board"; the table opens its panel with Discord's query parameters and plays
Discord's side of the SDK's postMessage protocol; ``connect.js`` in the board page does the handshake,
``authorize``, the code's exchange through the bot, ``authenticate``, and gets a session from the bot. The table
runs in this process (the fake Discord, the page, and the bot with its own board server), on an event loop of its
own thread, so the test reads the bot's store and the fake directly.
"""

from __future__ import annotations

import asyncio
import random
import socket
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from aiohttp import web
from e2e.table import Table, start_game
from playwright.sync_api import Browser, Frame

from bot.board.sessions import verify
from bot.client import VeletasBot, make_bot
from bot.config import Settings
from bot.local.page import Page
from bot.sandbox.server import FakeDiscord
from bot.store import Store
from browser.driver import BoardPage, Player

SECRET = b"board-secret-of-the-browser-test"
T = TypeVar("T")


def listen(app: web.Application) -> tuple[web.AppRunner, socket.socket]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    return web.AppRunner(app, access_log=None, handle_signals=False), sock


class InProcessTable:
    """The local table's parts on one event loop in a thread of their own; ``run`` awaits a coroutine there."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.runners: list[web.AppRunner] = []
        self.run(self._start())

    def run(self, work: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout)

    async def _serve(self, app: web.Application) -> str:
        runner, sock = listen(app)
        await runner.setup()
        await web.SockSite(runner, sock).start()
        self.runners.append(runner)
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    async def _start(self) -> None:
        self.fake = FakeDiscord(lifetime=300)
        await self.fake.start()
        for name in ("alice", "bob", "carol"):
            self.fake.add_member(name)
        fake = self.fake
        self.store = await Store.open(self.directory / "table.sqlite3")
        settings = Settings(
            token=fake.token,
            database_path=self.directory / "table.sqlite3",
            api_base=fake.api_base,
            gateway_url=fake.gateway_url,
            client_id=fake.application_id,
            client_secret=fake.client_secret,
            board_port=0,  # the bot's own board server, on a free loopback port
            board_secret=SECRET,
        )

        async def factory(_: FakeDiscord) -> VeletasBot:
            return make_bot(settings, self.store)

        bot = await fake.start_bot(factory, sync=True)
        assert isinstance(bot, VeletasBot)
        self.bot = bot
        server = bot.get_cog("Board")
        port = getattr(server, "port", None)
        assert port, "the bot's board server did not start"
        ready = asyncio.Event()
        self.page = Page(fake, ready=ready, board_url=f"http://127.0.0.1:{port}")
        self.url = await self._serve(self.page.app())
        ready.set()
        self.page._changed()

    async def _stop(self) -> None:
        await self.fake.runner.close()
        for runner in self.runners:
            await runner.cleanup()
        await self.fake.stop()

    def stop(self) -> None:
        self.run(self._stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessTable]:
    running = InProcessTable(tmp_path_factory.mktemp("activity-table"))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def game(table: InProcessTable) -> Table:
    fake = table.fake
    return table.run(start_game(fake, fake.member("alice"), fake.member("bob")))


@pytest.fixture
def hands(table: InProcessTable, browser: Browser) -> Iterator[Player]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    player = Player(context.new_page(), table.url)
    try:
        yield player
    finally:
        context.close()
    assert not player.errors, f"the page threw: {player.errors}"
    assert not player.foreign, f"the page reached beyond the table: {player.foreign}"


def launch_as(player: Player, name: str) -> Frame:
    """Act as ``name``, press "Play on the board" on the newest board; the panel's frame once its board is drawn."""
    player.open()
    player.act_as(name)
    page = player.page
    page.locator("#messages .msg:not(.ephemeral) button.component", has_text="Play on the board").last.click()
    element = page.wait_for_selector("#activity:not([hidden]) iframe#activity-frame")
    assert element is not None
    frame = element.content_frame()
    assert frame is not None
    frame.wait_for_selector("body[data-ready='1']")
    return frame


def test_a_player_launches_the_board_and_the_sdk_gets_her_session(
    table: InProcessTable, game: Table, hands: Player
) -> None:
    frame = launch_as(hands, "alice")
    alice = table.fake.member("alice")
    query = dict(part.split("=", 1) for part in frame.url.split("?", 1)[1].split("&"))
    assert set(query) == {"frame_id", "instance_id", "platform", "guild_id", "channel_id", "location_id"}
    assert (query["guild_id"], query["channel_id"]) == (str(table.fake.guild_id), str(game.channel_id))
    session = verify(SECRET, frame.evaluate("window.__board.token"), table.store.now())
    assert session is not None and (session.user_id, session.game_id) == (alice.id, game.game_id)
    # Discord's side was played: the code exchanged once through the bot, the launch recorded by the fake.
    assert table.fake.state.oauth.exchanges >= 1
    assert [launch.channel_id for launch in table.fake.activity_launches(alice)] == [game.channel_id]
    # She moves by clicking the page: her setup is stored as her turn.
    board = BoardPage(frame, hands.url + "/board/")
    assert frame.evaluate("window.__board.you.id") == str(alice.id)
    before = table.run(table.store.get_game(game.game_id)).version
    board.play_turn(random.Random(1))
    after = table.run(table.store.get_game(game.game_id))
    assert after.version == before + 1 and after.ply == 1


def test_a_spectator_gets_a_page_of_her_own_and_a_forged_token_gets_nothing(
    table: InProcessTable, game: Table, hands: Player
) -> None:
    frame = launch_as(hands, "carol")
    carol = table.fake.member("carol")
    session = verify(SECRET, frame.evaluate("window.__board.token"), table.store.now())
    assert session is not None and (session.user_id, session.game_id) == (carol.id, game.game_id)
    assert carol.id not in table.run(table.store.get_game(game.game_id)).participants
    # A spectator's page offers nothing to click and no typing; a move sent with her session is refused.
    board = BoardPage(frame, hands.url + "/board/")
    assert board.offered() == [] and not frame.is_visible("#keyboard")
    version = board.version()
    refused = frame.evaluate(
        """async (version) => {
            const headers = {"Content-Type": "application/json", Authorization: `Bearer ${window.__board.token}`};
            const body = JSON.stringify({turn: "a1", version});
            const answer = await fetch("api/move", {method: "POST", headers, body});
            return answer.status;
        }""",
        version,
    )
    assert refused == 403 and table.run(table.store.get_game(game.game_id)).version == version
    # A page that sends a made-up access token, to the bot or to the table's Discord side, is refused.
    refused = frame.evaluate(
        """async () => {
            const body = JSON.stringify({access_token: "forged-token", guild_id: "1", channel_id: "2"});
            const headers = {"Content-Type": "application/json"};
            const answer = await fetch("api/session", {method: "POST", headers, body});
            return [answer.status, await answer.json()];
        }"""
    )
    assert refused[0] == 401 and "session" not in refused[1]
    reply = frame.evaluate(
        """() => new Promise((resolve) => {
            window.addEventListener("message", (event) => {
                const frame = Array.isArray(event.data) ? event.data[1] : null;
                if (frame && frame.nonce === "forged") resolve(frame);
            });
            window.parent.postMessage(
                [1, {cmd: "AUTHENTICATE", args: {access_token: "forged-token"}, nonce: "forged"}], location.origin);
        })"""
    )
    assert reply["evt"] == "ERROR" and reply["data"]["code"] == 5000
