"""Discord's timestamp markup on the local table reads as Discord's client shows it: the largest whole
unit, in the reader's language."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from browser.driver import Player, TableProcess


@pytest.fixture
def japanese(table: TableProcess, browser: Browser) -> Iterator[Player]:
    """The page in a browser whose language is Japanese, as a Japanese member's Discord client would be."""
    context = browser.new_context(viewport={"width": 1100, "height": 900}, locale="ja-JP")
    hands = Player(context.new_page(), table.url)
    try:
        yield hands
    finally:
        context.close()
    assert not hands.errors, f"the page threw: {hands.errors}"


def relative(player: Player, ahead: float, locale: str) -> str:
    return str(
        player.page.evaluate("([ahead, locale]) => timestamp(Date.now() / 1000 + ahead, 'R', locale)", [ahead, locale])
    )


def test_relative_times_use_the_largest_unit_in_the_readers_language(player: Player) -> None:
    player.open()
    assert relative(player, 25.4, "en-US") == "in 25 seconds"
    assert relative(player, 14 * 86400 + 5, "en-US") == "in 14 days"
    assert relative(player, 3 * 3600 + 60, "en-US") == "in 3 hours"
    assert relative(player, -130 * 60, "en-US") == "2 hours ago"
    assert relative(player, 14 * 86400 + 5, "ja") == "14 日後"
    assert relative(player, 25.4, "ja") == "25 秒後"
    assert relative(player, 14 * 86400 + 5, "es-419") == "dentro de 14 días"
    assert relative(player, 60, "es-ES") == "dentro de 1 minuto"


def test_the_page_reads_times_in_the_browsers_language(player: Player) -> None:
    player.open()
    assert player.page.evaluate("readerLocale()") == "en-US"
    assert player.page.evaluate("timestamp(Date.now() / 1000 + 20160 * 60, 'R')") == "in 14 days"


def test_a_japanese_browser_is_a_japanese_client_for_the_bot_and_the_timestamps(japanese: Player) -> None:
    japanese.open()
    japanese.add_member("hanako")
    # An open challenge, posted in the server's language (English): its expiry is a Discord timestamp,
    # which the client shows in its own language, as Discord's does.
    japanese.type("/veletas challenge")
    challenge = japanese.last_message("looking for an opponent").inner_text()
    assert re.search(r"The challenge expires 15 分後 \(at ", challenge), challenge
    # A private answer follows the member's client language, which the page sends with each action.
    japanese.type("/veletas move move:d4-g7/g2")
    answer = japanese.last_message("Only you can see this").inner_text()
    assert "ここでは対局が行われていません。" in answer, answer
