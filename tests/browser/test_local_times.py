"""Discord's timestamp markup on the local table reads as Discord's client shows it: the largest whole
unit, in the reader's language."""

from __future__ import annotations

from browser.driver import Player


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


def test_the_page_reads_times_in_the_members_language(player: Player) -> None:
    player.open()
    # The table's members speak Discord's default, American English, as the fake sends it to the bot.
    assert player.page.evaluate("readerLocale()") == "en-US"
    assert player.page.evaluate("timestamp(Date.now() / 1000 + 20160 * 60, 'R')") == "in 14 days"
