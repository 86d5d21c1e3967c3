"""Robustness: restarts lose nothing, races apply once, and every refusal is private and changes nothing."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot import i18n, render
from bot.client import APOLOGY, VeletasBot
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import Factory
from e2e.table import Table, resign, start_game


def snapshot(db_path: Path) -> list[Any]:
    """Every row of the games and the move log, read from the file as another process would."""
    with sqlite3.connect(db_path) as db:
        games = db.execute("SELECT * FROM games ORDER BY id").fetchall()
        moves = db.execute("SELECT * FROM moves ORDER BY game_id, ply").fetchall()
    return [games, moves]


@pytest.mark.slow
async def test_restart_mid_game_keeps_the_game_and_its_buttons(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    factory: Factory,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    db_path: Path,
) -> None:
    rng = random.Random(21)
    table = await start_game(sandbox, alice, bob, variant="small")
    await table.play_setup(rng)
    for _ in range(2):
        await table.turn(str(rng.choice(table.game.position.legal_moves())))
    old_board = table.boards[-1]
    syncs = [r for r in sandbox.requests if r.method == "PUT" and r.path.endswith("/commands")]
    assert len(syncs) == 1 and bot.synced is True

    restarted = await sandbox_runner.restart(factory, sync=False)
    assert isinstance(restarted, VeletasBot) and restarted is not bot
    assert restarted.synced is False, "an unchanged command tree is not synced again"
    assert len([r for r in sandbox.requests if r.method == "PUT" and r.path.endswith("/commands")]) == 1

    # The Move button on the board posted before the restart still opens the guided move.
    mover = table.user_to_act()
    menu = await mover.click(old_board, "Move")
    assert menu.ephemeral and sorted(o["value"] for o in menu.selects[0]["options"]) == sorted(
        table.game.position.unclaimed()
    )
    # And the game goes on to its end with the new instance.
    while table.game.phase == "play":
        await table.turn(str(rng.choice(table.game.position.legal_moves())))
    info = await restarted.store.get_game(table.game_id)
    assert info.status == "finished" and info.turns == table.game.turns


async def board_recorded(fake: FakeDiscord, db_path: Path, table: Table) -> None:
    """Wait until the bot has noted the latest board in the store: it does so just after posting it."""

    def done() -> bool:
        with sqlite3.connect(db_path) as db:
            row = db.execute("SELECT board_message_id FROM games WHERE id = ?", (table.game_id,)).fetchone()
        return bool(row and row[0] == table.boards[-1].id)

    await fake.wait_until(done, what="the latest board to be recorded")


async def _ready_table(fake: FakeDiscord, alice: Member, bob: Member, seed: int) -> Table:
    table = await start_game(fake, alice, bob, variant="small")
    await table.play_setup(random.Random(seed))
    return table


async def test_two_simultaneous_moves_apply_once(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await _ready_table(sandbox, alice, bob, 4)
    mover = table.user_to_act()
    first, second = (str(m) for m in table.game.position.legal_moves()[:2])
    answers = await asyncio.gather(
        mover.slash("veletas", "move", move=first), mover.slash("veletas", "move", move=second)
    )
    public = [a for a in answers if not a.ephemeral]
    private = [a for a in answers if a.ephemeral]
    assert len(public) == 1 and len(private) == 1
    assert "Someone else acted on this game a moment before you" in private[0].content
    info = await bot.store.get_game(table.game_id)
    assert info.ply == len(table.game.turns) + 1
    assert info.turns[-1] in (first, second)


async def test_double_click_on_confirm_applies_once(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await _ready_table(sandbox, alice, bob, 8)
    mover = table.user_to_act()
    position = table.game.position
    step = await mover.click(table.boards[-1], "Move")
    shooter = position.unclaimed()[0]
    step = await mover.select(step, shooter)
    step = await mover.select(step, "stay")
    step = await mover.select(step, position.targets(shooter)[0])
    confirm = next(b["label"] for b in step.buttons if b["label"].startswith("Play"))
    results = await asyncio.gather(mover.click(step, confirm), mover.click(step, confirm), return_exceptions=True)
    assert (await bot.store.get_game(table.game_id)).ply == len(table.game.turns) + 1
    texts = [r.content for r in results if isinstance(r, Message)]
    assert any(t.startswith("You played") for t in texts)


async def test_bad_input_is_refused_privately_and_changes_nothing(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path
) -> None:
    table = await _ready_table(sandbox, alice, bob, 9)
    mover, waiting = table.user_to_act(), table.other()
    position = table.game.position
    illegal = next(f"{s}/{t}" for s in position.unclaimed() for t in position.pieces() if t not in position.unclaimed())
    legal = str(position.legal_moves()[0])
    outsider = sandbox.user(carol).in_channel(table.channel_id)
    elsewhere = sandbox.add_text_channel("elsewhere")
    await board_recorded(sandbox, db_path, table)
    cases = [
        (lambda: mover.slash("veletas", "move", move="hello"), "is not a move"),
        (lambda: mover.slash("veletas", "move", move=illegal), "is occupied"),
        (lambda: mover.slash("veletas", "move", move="z99-a1/a2"), "z99 is not on the 7×7 board"),
        (lambda: waiting.slash("veletas", "move", move=legal), "turn, not yours"),
        (lambda: outsider.slash("veletas", "move", move=legal), "You are not playing in this game."),
        (lambda: outsider.slash("veletas", "resign"), "You are not playing in this game."),
        (lambda: mover.slash("veletas", "pie", choice="keep"), "`/veletas pie` is not for now. Setup is over"),
        (lambda: mover.slash("veletas", "setup", shooters="c3"), "`/veletas setup` is not for now."),
        (
            lambda: sandbox.user(alice).in_channel(elsewhere).slash("veletas", "move", move=legal),
            "No game is being played here",
        ),
        (lambda: outsider.slash("veletas", "cancel"), "Manage Server"),
        (lambda: outsider.click(table.boards[-1], "Move"), "You are not playing in this game."),
        (lambda: mover.slash("veletas", "undo"), "only take back your own last move"),
    ]
    for action, words in cases:
        before = snapshot(db_path)
        answer = await action()
        assert answer.ephemeral, answer.content
        assert words in answer.content and answer.content, answer.content
        assert "went wrong" not in answer.content, answer.content
        assert snapshot(db_path) == before, answer.content

    # A finished game refuses everything too, and says it is over.
    last_board = table.boards[-1]
    menu = await mover.click(last_board, "Move")  # a private move menu, opened before the game ends
    resigned = await resign(sandbox, mover)
    assert "resigned" in resigned.text() and [b["label"] for b in resigned.buttons] == ["Rematch", "Review"]
    table.boards.append(resigned)
    await board_recorded(sandbox, db_path, table)
    await sandbox.wait_until(lambda: sandbox.message(last_board.id).buttons == [], what="the old board's buttons gone")
    before = snapshot(db_path)
    first_choice = menu.selects[0]["options"][0]["value"]
    late = await mover.select(menu, first_choice)
    assert late.ephemeral and "This game is over" in late.content
    again = await waiting.slash("veletas", "move", move=legal)
    assert again.ephemeral and "No game is being played here" in again.content
    assert f"Veletas #{table.game_id} is over" in again.content and "resigned" in again.content, again.content
    assert snapshot(db_path) == before


async def test_a_fault_of_ours_is_a_private_apology_never_a_traceback(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await _ready_table(sandbox, alice, bob, 14)
    mover = table.user_to_act()

    def broken(*args: Any, **kwargs: Any) -> bytes:
        raise RuntimeError("the renderer fell over")

    # Every way a Veletas board is drawn (a step after the setup marks its turn on the whole game's picture).
    monkeypatch.setattr(render, "board_png", broken)
    monkeypatch.setattr(render, "game_png", broken)
    answers = [
        await mover.click(table.boards[-1], "Move"),
        await mover.slash("veletas", "board"),
        await mover.slash("veletas", "move", move=str(table.game.position.legal_moves()[0])),
    ]
    for answer in answers:
        assert answer.ephemeral and answer.content == i18n.words()(APOLOGY)
        assert "Traceback" not in answer.text() and "RuntimeError" not in answer.text()
    # The move itself was committed before the board failed, so the apology points to /veletas board.
    monkeypatch.undo()
    board = await table.other().slash("veletas", "board")
    assert not board.ephemeral and board.files["board.png"].startswith(b"\x89PNG")


async def test_names_survive_a_restart_in_boards_and_records(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, factory: Factory, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await _ready_table(sandbox, alice, bob, 15)
    restarted = await sandbox_runner.restart(factory, sync=False)
    assert isinstance(restarted, VeletasBot) and restarted.names == {}
    # Only the resigning player acts after the restart; the other one is still named in the record.
    resigned = await resign(sandbox, table.user_to_act())
    record = resigned.files[f"veletas-{table.game_id}.txt"].decode()
    headers = dict(line[1:-1].split(" ", 1) for line in record.splitlines() if line.startswith("["))
    assert {headers["Black"], headers["White"]} == {'"Alice"', '"Bob"'}, headers
