"""The other commands and buttons: the pie choice by button, undo, board, rules, export and games."""

from __future__ import annotations

import random

import pytest

from bot.client import VeletasBot
from bot.rules import Game
from bot.sandbox.errors import InjectionRefused
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.table import pinged, resign, start_game


async def test_pie_choice_by_button(sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member) -> None:
    table = await start_game(sandbox, alice, bob, variant="small")
    board = await table.turn("d4/b2")
    assert [b["label"] for b in board.buttons] == ["Keep colours", "Swap colours"]
    assert pinged(sandbox, board) == [str(bob.id)]
    wrong = await table.first.click(board, "Swap colours")
    assert wrong.ephemeral and "turn, not yours" in wrong.content
    after = await table.second.click(board, "Swap colours")
    table.game = table.game.play("swap")
    assert not after.ephemeral and f"Black <@{bob.id}> · White <@{alice.id}>" in after.text()
    # Pressing again (a double click, or the other button) cannot choose twice.
    # Either the press reaches the bot before the old board loses its buttons, and the bot says why it
    # changes nothing, or Discord refuses it because the buttons are gone; the game is the same after both.
    try:
        again = await table.second.click(board, "Keep colours")
    except InjectionRefused:
        assert board.buttons == []
    else:
        assert again.ephemeral and "Someone else acted" in again.content
    assert (await bot.store.get_game(table.game_id)).turns == ("d4/b2", "swap")


async def test_undo_asked_and_answered(sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member) -> None:
    rng = random.Random(2)
    table = await start_game(sandbox, alice, bob, variant="small")
    await table.play_setup(rng)
    mover, other = table.user_to_act(), table.other()
    move = str(table.game.position.legal_moves()[0])
    await table.turn(move)
    ask = await mover.slash("veletas", "undo")
    assert f"asks to take back `{move}`" in ask.content and pinged(sandbox, ask) == [str(other.member.id)]
    self_answer = await mover.click(ask, "Allow the take-back")
    assert self_answer.ephemeral and "your opponent has to answer" in self_answer.content
    cursor = sandbox.cursor()
    answered = await other.click(ask, "Allow the take-back")
    assert "allowed the take-back" in answered.content and answered.buttons == []
    board = await sandbox.wait_for_message(table.channel_id, lambda m: bool(m.embeds), after=cursor)
    assert f"`{move}` was taken back" in board.content
    info = await bot.store.get_game(table.game_id)
    assert info.turns == table.game.turns[:-1] and info.user_to_act == mover.member.id

    # Asked again and refused: the move stays taken back, nothing else changes.
    table.game = Game.replay(info.turns, variant="small", rules="current")
    await table.turn(move)
    ask = await mover.slash("veletas", "undo")
    refused = await other.click(ask, "Refuse")
    assert "refused the take-back" in refused.content
    assert (await bot.store.get_game(table.game_id)).turns == table.game.turns


async def test_board_rules_export_and_games(sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member) -> None:
    rng = random.Random(6)
    table = await start_game(sandbox, alice, bob, variant="small", rules="classic")
    await table.play_setup(rng)
    again = await table.first.slash("veletas", "board")
    assert not again.ephemeral and again.files["board.png"].startswith(b"\x89PNG")
    rules = await table.first.slash("veletas", "rules")
    assert rules.ephemeral and "Classic rules" in rules.content and "claim 2 of the 3 shooters" in rules.content
    assert "Black places 1 shooter," in rules.content and "Current rules" not in rules.content
    lobby = sandbox.user(bob).in_channel(sandbox.add_text_channel("lobby"))
    general = await lobby.slash("veletas", "rules")
    assert "Current rules (the default)" in general.content and "small 7×7: 2 of 3" in general.content
    asked = await lobby.slash("veletas", "rules", edition="classic")
    assert "Classic rules" in asked.content and "standard 10×10: 4 of 7" in asked.content
    exported = await table.second.slash("veletas", "export")
    assert exported.ephemeral
    record = exported.files[f"veletas-{table.game_id}.txt"].decode()
    assert Game.from_record(record).turns == table.game.turns
    assert '[Rules "classic"]' in record and "[Black " in record
    games = await sandbox.user(alice).slash("veletas", "games")
    assert games.ephemeral and f"**Veletas #{table.game_id}** small board, classic rules" in games.content
    assert f"/{table.channel_id}/" in games.content
    assert pinged(sandbox, games) == []

    await resign(sandbox, table.first)
    final = await table.second.slash("veletas", "export")
    assert final.files[f"veletas-{table.game_id}.gif"].startswith(b"GIF8")
    assert "resigned" in final.content
    nothing = await sandbox.user(alice).slash("veletas", "games")
    assert "No game is being played" in nothing.content
    # From another channel (a game played in a thread, say), a game is exported by its number.
    by_number = await lobby.slash("veletas", "export", game=table.game_id)
    assert (
        by_number.ephemeral
        and Game.from_record(by_number.files[f"veletas-{table.game_id}.txt"].decode()).turns
        == (await bot.store.get_game(table.game_id)).turns
    )
    missing = await lobby.slash("veletas", "export", game=table.game_id + 1)
    assert missing.ephemeral and missing.content == "There is no such game here."


async def test_a_server_manager_cancels_a_game(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    table = await start_game(sandbox, alice, bob)
    manager = sandbox.user(carol).in_channel(table.channel_id)
    refused = await manager.slash("veletas", "cancel")
    assert refused.ephemeral
    assert (
        refused.content
        == "Only members with the Manage Server permission can do this; ask one of this server's managers."
    )
    # Carol is made a server manager; the players are not.
    await sandbox.grant(carol, "manage_guild")
    player = await table.first.slash("veletas", "cancel")
    assert player.ephemeral and "Manage Server" in player.content
    cancelled = await manager.slash("veletas", "cancel")
    assert not cancelled.ephemeral and f"<@{carol.id}> cancelled Veletas #{table.game_id}" in cancelled.content
    assert "This game is cancelled." in cancelled.text() and cancelled.buttons == []
    assert pinged(sandbox, cancelled) == []
    info = await bot.store.get_game(table.game_id)
    assert info.status == "cancelled"
    gone = await table.first.slash("veletas", "board")
    assert gone.ephemeral and "No game is being played here" in gone.content


async def test_undo_edge_cases_refuse_privately(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="small")
    await table.play_setup(random.Random(11))
    mover, other = table.user_to_act(), table.other()
    await table.turn(str(table.game.position.legal_moves()[0]))
    ask = await mover.slash("veletas", "undo")
    twice = await mover.slash("veletas", "undo")
    assert twice.ephemeral and "already waiting for an answer" in twice.content
    outsider = await sandbox.user(carol).in_channel(table.channel_id).click(ask, "Allow the take-back")
    assert outsider.ephemeral and outsider.content == "You are not playing in this game."
    # The opponent plays on instead of answering: the request lapses and its buttons say so.
    await table.turn(str(table.game.position.legal_moves()[0]))
    late = await other.click(ask, "Allow the take-back")
    assert late.ephemeral and "out of date" in late.content
    info = await bot.store.get_game(table.game_id)
    assert info.turns == table.game.turns and info.undo_requested_by is None
    # Only one's own last move can be taken back.
    not_mine = await mover.slash("veletas", "undo")
    assert not_mine.ephemeral and "only take back your own last move" in not_mine.content


@pytest.mark.parametrize("rules", ["current", "classic"])
async def test_setup_options_missing_or_extra_are_explained(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, rules: str
) -> None:
    table = await start_game(sandbox, alice, bob, variant="small", rules=rules)
    first = table.user_to_act()
    if rules == "current":
        answer = await first.slash("veletas", "setup", shooters="c3")
        assert answer.ephemeral and answer.content.startswith(
            "This setup turn also places one black stone: add `stone:`"
        )
    else:
        answer = await first.slash("veletas", "setup", shooters="c3", stone="a1")
        assert answer.ephemeral and answer.content.startswith("No stone is placed in this setup turn")
    assert (await bot.store.get_game(table.game_id)).turns == ()
    # The player waiting for their turn hears that first, not about options.
    waiting = await table.other().slash("veletas", "setup", shooters="c3")
    assert waiting.ephemeral and "turn, not yours" in waiting.content


async def test_a_cancelled_challenge_loses_its_buttons(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small")
    await sandbox.grant(carol, "manage_guild")
    lobby = sandbox.user(carol).in_channel(sandbox.add_text_channel("mods"))
    done = await lobby.slash("veletas", "cancel", game=1)
    assert not done.ephemeral and f"<@{carol.id}> cancelled Veletas #1" in done.content
    struck = await sandbox.wait_until(lambda: (m := sandbox.message(challenge.id)) and m.edited and m)
    assert f"**Cancelled by <@{carol.id}>.**" in struck.content and struck.buttons == []
    assert (await bot.store.get_game(1)).status == "cancelled"
