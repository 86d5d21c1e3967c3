"""What a newcomer meets at the local table: where to start, the keyboard, downloads, languages and roles.

A table of its own (the module's), so #general is still empty when the first test opens it.
"""

from __future__ import annotations

import re
from pathlib import Path

from browser.driver import Player

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def test_an_empty_general_says_where_to_start_and_the_list_starts_there(player: Player) -> None:
    page = player.page
    player.open()
    hint = page.locator("#messages #empty-hint")
    hint.wait_for()
    assert "/veletas challenge" in hint.inner_text() and "/veletas rules" in hint.inner_text()
    page.fill("#composer", "/")
    page.dispatch_event("#composer", "input")
    listed = page.locator("#suggestions li").evaluate_all("items => items.map(li => li.dataset.command)")
    assert listed[:2] == ["veletas challenge", "veletas rules"], listed[:6]
    veloop = [c for c in listed if c.startswith("veloop ")]
    assert veloop[:2] == ["veloop challenge", "veloop rules"], veloop
    # The hint goes once the channel has a message, and the message says which sub-command was used.
    page.fill("#composer", "")
    player.type("/veletas rules")
    said = player.last_message("used /veletas rules")
    assert "alice used /veletas rules" in said.inner_text()
    assert page.locator("#messages #empty-hint").count() == 0


def test_enter_sends_after_a_suggestion_picked_with_the_keyboard(player: Player) -> None:
    """The first member manages the server, so /tournament create works; its time is picked from the bot's
    suggestions with the arrow keys and Enter, and the next Enter sends the command."""
    page = player.page
    player.open()
    player.act_as("alice")
    assert page.locator("#member-manager").is_checked()
    page.fill("#composer", "/tour")
    page.click("#suggestions li[data-command='tournament create']")
    page.fill("#options [data-option='name']", "Keyboard Cup")
    page.locator("#options [data-option='game']").select_option(label="veletas")
    page.locator("#options [data-option='format']").select_option(label="swiss")
    time = page.locator("#options [data-option='time']")
    suggestions = time.locator("xpath=..").locator(".ac-list")  # the time option's own list (settings has one too)
    time.focus()
    suggestions.locator("li").first.wait_for()
    time.press("ArrowDown")
    chosen = suggestions.locator("li.sel").inner_text()
    time.press("Enter")
    assert time.input_value() == chosen
    assert suggestions.is_hidden()
    time.press("Enter")
    player._sent()
    announced = player.last_message("Keyboard Cup")
    assert "Only you can see this" not in announced.inner_text()


def test_a_record_downloads_as_text(player: Player, tmp_path: Path) -> None:
    page = player.page
    player.open()
    player.add_member("fay")
    player.add_member("gus")
    player.act_as("fay")
    player.type("/veletas challenge opponent:gus variant:small where:here")
    challenge = player.last_message("challenges")
    player.act_as("gus")
    challenge.get_by_role("button", name="Accept").click()
    player.wait_count("@gus", 2)
    player.type("/veletas export")
    link = page.locator("#messages .msg a.file", has_text=".txt").last
    link.wait_for()
    with page.expect_download() as started:
        link.click()
    download = started.value
    assert download.failure() is None
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    record = saved.read_text(encoding="utf-8")
    assert record.startswith('[Game "veletas"]'), record
    assert '[Black "Fay"]' in record and '[White "Gus"]' in record, record


def test_a_member_speaks_spanish_and_is_made_a_manager_on_the_page(player: Player) -> None:
    page = player.page
    player.open()
    player.add_member("hugo")
    player.act_as("hugo")
    assert not page.locator("#member-manager").is_checked()
    page.locator("#member-locale").select_option("es-ES")
    page.wait_for_function("() => document.getElementById('member-locale').value === 'es-ES'")
    player.command("tournament create", name="Copa Hugo", game="veletas", format="swiss")
    refused = player.last_message("Solo los miembros con Gestionar servidor")
    assert "Only you can see this" in refused.inner_text()

    page.locator("#member-manager").check()
    page.wait_for_selector("#members li[data-member='hugo'] .manager-tag")
    # A manager may cancel what another organiser started (the channel's open tournament), then start another.
    player.type("/tournament cancel")  # returns once the bot has answered
    page.locator("#server-locale").select_option("ja")
    page.wait_for_function("() => document.getElementById('server-locale').value === 'ja'")
    player.command("tournament create", name="Copa Hugo", game="veletas", format="swiss")
    announced = page.locator("#messages .msg:not(.ephemeral)", has_text="Copa Hugo").last
    announced.wait_for()
    assert JAPANESE.search(announced.inner_text()), announced.inner_text()
