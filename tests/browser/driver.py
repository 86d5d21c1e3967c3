"""Driving the local table in headless Chromium: the table process, the browser, and a player's hands.

Shared by the browser tests and ``benchmarks/bench_local.py``. Chromium is Debian's package
(``apt-get install chromium``); Playwright's own browser download is not used.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Locator, Page, Playwright, sync_playwright
from playwright.sync_api import Error as PageError
from playwright.sync_api import TimeoutError as PageTimeout

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
            found = READY.search(line)
            if found:
                return found.group(1)
        self.stop()
        raise RuntimeError(f"the local table did not start: {''.join(lines)!r}")

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
