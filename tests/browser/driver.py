"""Driving the local table in headless Chromium: the table process, the browser, and a player's hands.

Shared by the browser tests and ``benchmarks/bench_local.py``. Chromium is Debian's package
(``apt-get install chromium``); Playwright's own browser download is not used.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Frame, Locator, Page, Playwright, sync_playwright
from playwright.sync_api import Error as PageError
from playwright.sync_api import TimeoutError as PageTimeout

from bot.board.sessions import mint

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_PATHS = ("/usr/lib/chromium/chromium", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
READY = re.compile(r"Local table ready at (http://127\.0\.0\.1:\d+)")
BOARD = re.compile(r"Board page at (http://127\.0\.0\.1:\d+/board/)")
BOARD_SECRET = "browser tests' board secret"  # the table's bot signs sessions with it, so tests can mint them


class NoChromium(RuntimeError):
    pass


def chromium_path() -> str:
    for candidate in (os.environ.get("CHROMIUM", ""), *CHROMIUM_PATHS):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise NoChromium(
        "Chromium not found at /usr/lib/chromium/chromium or /usr/bin/chromium: install Debian's chromium"
        " (apt-get install chromium; scripts/test does it when run as root) or set CHROMIUM"
    )


class TableProcess:
    """``python -m bot local --port 0`` in a scratch directory, until ``stop()``."""

    def __init__(self, members: str = "alice,bob,carol") -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="veletas-local-"))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD"))}
        env |= {"PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING", "AI_WORKERS": "1", "PYTHONUNBUFFERED": "1"}
        env |= {"BOARD_SECRET": BOARD_SECRET}
        env.pop("BOARD_PORT", None)
        self.board_url = ""
        self._games: set[int] = set()  # the games start_game has returned
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bot", "local", "--port", "0", "--members", members],
            cwd=self.directory,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.url = self._wait_ready()

    def _wait_ready(self, timeout: float = 90.0) -> str:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        lines = []
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            lines.append(line)
            board = BOARD.search(line)
            if board:
                self.board_url = board.group(1)
            found = READY.search(line)
            if found:
                return found.group(1)
        self.stop()
        raise RuntimeError(f"the local table did not start: {''.join(lines)!r}")

    # -- acting through the table's own API (the fake's user injectors), for what a test does not click --

    def api(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())

    def member_id(self, name: str) -> int:
        members = self.api("GET", "/api/state")["members"]
        return int(next(m["id"] for m in members if m["name"] == name))

    def general(self) -> int:
        return int(self.api("GET", "/api/state")["general"])

    def slash(self, name: str, path: list[str], channel: int | None = None, **options: str) -> Any:
        body = {"member": str(self.member_id(name)), "action": "slash", "path": path, "options": options}
        if channel is not None:
            body["channel"] = str(channel)
        return self.api("POST", "/api/act", body)

    def messages(self, name: str, channel: int) -> list[dict[str, Any]]:
        query = f"/api/messages?member={self.member_id(name)}&channel={channel}"
        return list(self.api("GET", query)["messages"])

    def start_game(
        self, challenger: str, opponent: str, game: str = "veletas", where: str = "thread", **options: str
    ) -> tuple[int, int]:
        """A challenge by slash command, accepted by a click: (game id, the channel it is played in), its own thread
        (``where="thread"``, the default) or #general (``where="here"``, where the board page opens as an Activity)."""
        channel = self.general()
        self.slash(challenger, [game, "challenge"], channel, opponent=opponent, where=where, **options)
        offer = next(m for m in reversed(self.messages(challenger, channel)) if "challenges" in m["content"])
        accept = next(
            b["custom_id"]
            for row in offer["components"]
            for b in row.get("components", [])
            if b.get("label") == "Accept"
        )
        body = {"member": str(self.member_id(opponent)), "action": "click", "message": offer["id"], "custom_id": accept}
        body["channel"] = str(channel)
        self.api("POST", "/api/act", body)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            threads = self.api("GET", f"/api/state?member={self.member_id(opponent)}")["channels"]
            for thread in reversed(threads):
                if thread["type"] not in ((11, 12) if where == "thread" else (0,)):
                    continue
                for message in self.messages(opponent, int(thread["id"])):
                    for embed in message["embeds"]:
                        found = re.search(r"#(\d+)", embed.get("title", ""))
                        if found and int(found.group(1)) not in self._games:
                            self._games.add(int(found.group(1)))
                            return int(found.group(1)), int(thread["id"])
            time.sleep(0.05)
        raise AssertionError("the game's first board never came")

    def resign(self, name: str, game: str, channel: int) -> None:
        """``name`` resigns the game played in ``channel`` (the command, then the private confirmation's button), so
        the channel is free for the next game."""
        self.slash(name, [game, "resign"], channel)
        confirm = next(m for m in reversed(self.messages(name, channel)) if m["ephemeral"])
        button = next(
            b["custom_id"]
            for row in confirm["components"]
            for b in row.get("components", [])
            if b.get("label") == "Resign"
        )
        body = {"member": str(self.member_id(name)), "action": "click", "message": confirm["id"], "custom_id": button}
        self.api("POST", "/api/act", body | {"channel": str(channel)})

    def session(self, name: str, game_id: int) -> str:
        """A session token for ``name`` on ``game_id``, as the bot would mint it."""
        return mint(BOARD_SECRET.encode(), self.member_id(name), game_id, time.time())

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)
        return self.process.returncode


@contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's Chromium, headless, talking to nothing but loopback.

    ``launch`` gives every browser a fresh temporary profile (user data directory) and removes it after.
    """
    playwright: Playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


class Player:
    """The page, used as a person would: click members, type commands, press buttons."""

    def __init__(self, page: Page, url: str) -> None:
        self.page = page
        self.url = url
        self.errors: list[str] = []
        self.foreign: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("request", self._request)
        page.set_default_timeout(20_000)

    def _request(self, request: Any) -> None:
        url = str(request.url)
        if not (url.startswith(self.url) or url.startswith(self.url.replace("http", "ws")) or url.startswith("data:")):
            self.foreign.append(url)

    def open(self) -> float:
        """Load the page; the ms from navigation start until it showed the table ready."""
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready='1']")
        return float(self.page.evaluate("window.__readyAt"))

    def act_as(self, name: str) -> None:
        self.page.click(f"#members li[data-member='{name}']")
        self.page.wait_for_selector(f"#members li[data-member='{name}'].active")
        self.page.wait_for_function("n => document.getElementById('status').textContent.endsWith(n)", arg=name)

    def add_member(self, name: str) -> None:
        self.page.fill("#new-member", name)
        self.page.press("#new-member", "Enter")
        self.page.wait_for_selector(f"#members li[data-member='{name}'].active")

    def open_channel(self, name: str) -> None:
        """Open the channel or thread whose name contains ``name`` (any case), once it is listed."""
        item = self.page.locator("#channels li", has_text=re.compile(re.escape(name), re.I)).first
        item.wait_for()
        item.click()
        self.page.wait_for_function(
            "n => document.getElementById('channel-title').textContent.toLowerCase().includes(n)", arg=name.lower()
        )

    def command(self, path: str, **options: str) -> None:
        """Pick ``/path`` from the suggestions, fill its option fields (selects by label), send."""
        self.page.fill("#composer", "/" + path.split()[0][:3])
        self.page.click(f"#suggestions li[data-command='{path}']")
        for name, value in options.items():
            field = self.page.locator(f"#options [data-option='{name}']")
            if field.evaluate("e => e.tagName") == "SELECT":
                field.select_option(label=value)
            else:
                field.fill(value)
        self.page.click("#send")
        self._sent()

    def type(self, text: str) -> None:
        """Type a whole command line (``/veletas move move:d4-g7/g2``) and press Enter."""
        self.page.fill("#composer", text)
        self.page.press("#composer", "Enter")
        self._sent()

    def _sent(self) -> None:
        self.page.wait_for_function("() => document.getElementById('composer').value === ''")

    def messages(self) -> Locator:
        return self.page.locator("#messages .msg")

    def last_message(self, text: str | re.Pattern[str]) -> Locator:
        found = self.page.locator("#messages .msg", has_text=text).last
        found.wait_for()
        return found

    def count(self, text: str) -> int:
        return self.page.locator("#messages .msg", has_text=text).count()

    def wait_count(self, text: str, at_least: int) -> None:
        self.page.wait_for_function(
            "([t, n]) => [...document.querySelectorAll('#messages .msg')]"
            ".filter(m => m.textContent.includes(t)).length >= n",
            arg=[text, at_least],
        )

    def boards(self) -> Locator:
        """Board images that finished loading, oldest first."""
        return self.page.locator("#messages .msg img[data-loaded-at]")

    def newest_board_shot(self, within: float = 10.0) -> tuple[str, bytes]:
        """The newest board's image address and a screenshot of it as shown.

        An edit to an earlier message (an AI board that stops saying it is thinking) re-renders the list,
        so the element found can be replaced before its screenshot: then the newest board is found again.
        """
        deadline = time.monotonic() + within
        while True:
            board = self.boards().last
            src = board.get_attribute("src") or ""
            try:
                return src, board.screenshot(timeout=2000)
            except PageError as exc:
                if "not attached" not in str(exc) or time.monotonic() > deadline:
                    raise

    def wait_boards(self, at_least: int) -> Locator:
        self.page.wait_for_function(
            "n => document.querySelectorAll('#messages .msg img[data-loaded-at]').length >= n", arg=at_least
        )
        return self.boards().nth(at_least - 1)

    def play_by_clicking(self) -> tuple[str, float]:
        """Move, then the first choice of each private menu, then Play; the move and ms from the click to its board.

        The time runs from the click on Play (the confirmation) until the new public board image has loaded.
        """
        page = self.page
        public = "#messages .msg:not(.ephemeral)"
        page.locator("#messages .msg:not(.ephemeral) button.component", has_text="Move").last.click()
        confirm = page.locator("#messages .msg.ephemeral button.component", has_text="Play")
        for _ in range(4):
            try:
                page.wait_for_function(
                    "() => { const m = [...document.querySelectorAll('#messages .msg.ephemeral')].at(-1);"
                    " return m && (m.querySelector('select.component:not([disabled])')"
                    " || [...m.querySelectorAll('button')].some(b => b.textContent.startsWith('Play'))); }"
                )
            except PageTimeout as exc:
                raise AssertionError(f"no move menu; the channel ends with: {self.tail()}") from exc
            if confirm.count():
                break
            last = page.locator("#messages .msg.ephemeral").last
            key = last.get_attribute("data-key")
            menu = last.locator("select.component").first
            values = [v for v in menu.locator("option").evaluate_all("os => os.map(o => o.value)") if v]
            menu.select_option(values[0])
            page.wait_for_function(
                "k => [...document.querySelectorAll('#messages .msg.ephemeral')].at(-1)?.dataset.key !== k", arg=key
            )
        label = confirm.last.inner_text()
        # The board this click brings is a public message newer than every one shown now.
        newest = page.evaluate(
            "s => [...document.querySelectorAll(s)].map(m => BigInt(m.dataset.id)).reduce((a, b) => a > b ? a : b, 0n)"
            ".toString()",
            public,
        )
        clicks = int(page.evaluate("window.__clicks.length"))
        confirm.last.click()
        # Read in the same evaluation that finds it: an older board losing its buttons re-renders the channel,
        # so an element found in one evaluation may be gone by the next.
        found = page.wait_for_function(
            """([s, newest, i]) => {
                const m = [...document.querySelectorAll(s)]
                    .find(m => BigInt(m.dataset.id) > BigInt(newest) && m.querySelector('img[data-loaded-at]'));
                return m ? Number(m.querySelector('img').dataset.loadedAt) - window.__clicks[i] : false;
            }""",
            arg=[public, newest, clicks],
        )
        return label.removeprefix("Play ").strip(), float(found.json_value())

    def settled(self) -> None:
        """Wait until only the newest board carries buttons: older ones lose theirs (a re-render) just after."""
        self.page.wait_for_function(
            """() => [...document.querySelectorAll('#messages .msg:not(.ephemeral)')]
                .filter(m => m.querySelector('img')).slice(0, -1)
                .every(m => !m.querySelector('button.component'))"""
        )

    def tail(self, count: int = 4) -> list[str]:
        """The last messages' text, for a failure to show what the page showed."""
        texts = self.messages().all_inner_texts()[-count:]
        return [" | ".join(text.split("\n"))[:500] for text in texts]


def open_board(
    browser: Browser, table: TableProcess, member: str, game_id: int, channel: int, **context: Any
) -> BoardPage:
    """``member``'s board page of ``game_id`` opened as a member opens it, in a fresh browser context.

    On the table's page, acting as ``member``: open ``channel`` (where the game is played), press "Play on the
    board" on the game's newest board; in a channel the table opens its panel as Discord opens the Activity, and
    the real Embedded App SDK in the page does the handshake, authorize, the code's exchange through the bot,
    authenticate and gets the session; in a thread the launch is refused (as Discord refuses it there), the bot
    answers with a personal link and the member clicks it, which opens the same panel. The ``BoardPage`` works
    inside the panel's frame once the board is drawn; ``board.launched`` is the ms from just before the press until
    then (the browser's clock: the table's page and the frame share it).
    """
    options = {"viewport": {"width": 1100, "height": 860}, "has_touch": True, **context}
    hands = Player(browser.new_context(**options).new_page(), table.url)
    hands.open()
    hands.act_as(member)
    page = hands.page
    page.click(f"#channels li[data-channel='{channel}']")
    page.wait_for_selector(f"#channels li[data-channel='{channel}'].active")
    game_board = page.locator("#messages .msg:not(.ephemeral)", has_text=re.compile(rf"#{game_id}(?!\d)"))
    play = game_board.filter(has=page.locator("button.component", has_text="Play on the board")).last
    play.wait_for()
    pressed = float(page.evaluate("() => performance.timeOrigin + performance.now()"))
    play.locator("button.component", has_text="Play on the board").click()
    frame = _panel(page, hands)
    board = BoardPage(frame, table.url + "/board/")
    board.hands = hands
    board.launched = float(frame.evaluate("() => performance.timeOrigin + window.__readyAt")) - pressed
    return board


def _panel(page: Page, hands: Player) -> Frame:
    """The panel's frame once its board page is drawn: the Activity's, or the personal link's when the launch was
    refused (the link in the bot's private answer is clicked, as a member would)."""
    link = page.locator("#messages .msg.ephemeral a[href*='/board/#session=']").last
    page.wait_for_function(
        "() => document.querySelector('#activity:not([hidden]) iframe#activity-frame')"
        " || [...document.querySelectorAll('#messages .msg.ephemeral a')]"
        ".some(a => a.href.includes('/board/#session='))"
    )
    if not page.locator("#activity:not([hidden]) iframe#activity-frame").count():
        link.click()
    element = page.wait_for_selector("#activity:not([hidden]) iframe#activity-frame")
    assert element is not None
    frame = element.content_frame()
    assert frame is not None
    try:
        frame.wait_for_selector("body[data-ready='1']")
    except PageTimeout as exc:
        status = frame.inner_text("#status") if frame.query_selector("#status") else "(no page)"
        raise AssertionError(f"the board page in the panel never got ready: {status!r}; {hands.tail()}") from exc
    return frame


def open_link(browser: Browser, table: TableProcess, member: str, game_id: int, **context: Any) -> BoardPage:
    """``member``'s board page of ``game_id`` in a tab of its own, from a personal session link minted for the table's
    bot (what the bot answers where Discord refuses the launch), as a browser opens it outside Discord."""
    options = {"viewport": {"width": 420, "height": 860}, "has_touch": True, **context}
    page = browser.new_context(**options).new_page()
    board = BoardPage(page.main_frame, table.board_url)
    page.goto(f"{table.board_url}#session={table.session(member, game_id)}")
    page.wait_for_selector("body[data-ready='1']")
    return board


class BoardPage:
    """A board page as a member uses it: clicks squares and buttons the page offers, reads what it shows.

    ``page`` is the frame the board page is in (the table's panel, or a tab's main frame); ``tab`` the browser tab.
    """

    def __init__(self, page: Frame, url: str) -> None:
        self.page = page
        self.tab = page.page
        self.url = url
        self.hands: Player | None = None  # the table's page it was opened from, if any
        self.launched = 0.0  # open_board: the ms from "Play on the board" until the board was drawn
        self.errors: list[str] = []
        self.foreign: list[str] = []
        self.tab.on("pageerror", lambda error: self.errors.append(str(error)))
        self.tab.on("request", self._request)
        self.tab.set_default_timeout(20_000)

    def close(self) -> None:
        self.tab.context.close()

    def _request(self, request: Any) -> None:
        url = str(request.url)
        origin = self.url.split("/board/")[0]
        if not (url.startswith(origin) or url.startswith(origin.replace("http", "ws"))):
            self.foreign.append(url)

    def state(self) -> dict[str, Any]:
        return dict(self.page.evaluate("() => window.__board.state"))

    def version(self) -> int:
        return int(self.page.evaluate("() => window.__board.state.version"))

    def wait_version(self, at_least: int) -> None:
        self.page.wait_for_function("v => window.__board.state && window.__board.state.version >= v", arg=at_least)

    def clicks(self) -> int:
        return int(self.page.evaluate("() => window.__clicks"))

    def click_square(self, square: str) -> None:
        self.page.click(f"#board [data-square='{square}']")

    def offered(self) -> list[str]:
        """The squares the page highlights for the next click."""
        return list(self.page.eval_on_selector_all("#board .sq.legal", "cells => cells.map(c => c.dataset.square)"))

    def play_turn(self, rng: random.Random) -> str:
        """One whole turn by clicking what the page offers (its own steps); the turn text, once stored."""
        state = self.state()
        before = int(state["version"])
        steps = state["board"]["steps"]
        if state["game"] == "veletas" and state["phase"] == "pie":
            choice = rng.choice(steps["pie"])
            self.page.click(f"#choices [data-choice='{choice}']")
            self.wait_version(before + 1)
            return str(choice)
        picks: list[str] = []
        while True:
            offered = self.offered()
            if not offered:
                notice = self.page.inner_text("#notice")
                now = self.page.evaluate(
                    "() => [window.__board.picks, window.__board.state.version, window.__board.busy]"
                )
                raise AssertionError(f"nothing offered after {picks} in {state['phase']}: {notice!r} {now} {steps}")
            square = rng.choice(offered)
            picks.append(square)
            self.click_square(square)
            outcome = self.page.wait_for_function(
                """([n, v]) => {
                    const b = window.__board;
                    if (b.busy === v || b.state.version > v) return 'sent';
                    return b.picks.length === n ? 'more' : false;
                }""",
                arg=[len(picks), before],
            ).json_value()
            if outcome == "sent":
                break  # the turn went to the server (or is stored already)
        try:
            self.wait_version(before + 1)
        except PageTimeout as exc:
            raise AssertionError(f"{picks} not played: {self.page.inner_text('#notice')!r}") from exc
        return ",".join(picks)
