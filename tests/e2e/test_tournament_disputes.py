"""Result disputes end to end, through the fake Discord on a simulated clock: a player disputes a game's result from
its final board, the organisers are told in the tournament's channel, the next round waits (across a restart),
the organiser decides with ``/tournament result``, the decision is logged and shown, and the round goes on;
refusals (not a player, twice, after the window, a forged id) are private and change nothing."""

from __future__ import annotations

import copy
import csv
import io
import sqlite3
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import Factory, ManualClock
from e2e.tourney import boards, finished, resign_in, round_open, rounds_stored

REASON = "What is wrong with the result?"
LABEL = "Dispute result"


def disputes(db_path: Path) -> list[tuple[int, int, int, str, str, int | None, str | None]]:
    """(round, board, who, reason, result, decided by, decision) of every dispute stored."""
    with sqlite3.connect(db_path) as db:
        return [
            (int(r[0]), int(r[1]), int(r[2]), str(r[3]), str(r[4]), r[5], r[6])
            for r in db.execute(
                "SELECT round, board, user_id, reason, result, decided_by, decision FROM tournament_disputes "
                "ORDER BY id"
            )
        ]


def advance_pending(db_path: Path) -> bool:
    with sqlite3.connect(db_path) as db:
        return bool(db.execute("SELECT 1 FROM due WHERE key = 'advance'").fetchall())


async def click_forged(sandbox: FakeDiscord, member: Member, message: Message, custom_id: str) -> Message:
    """Press a dispute button with this id on the board, as a client with stale or forged components would show
    it (the fake checks a press against the message it holds, so its components are swapped for the press)."""
    held = sandbox.message(message.id)
    kept = copy.deepcopy(held.data.get("components", []))
    button = {"type": 2, "style": 2, "label": LABEL, "custom_id": custom_id}
    held.data["components"] = [{"type": 1, "components": [button]}]
    try:
        return await sandbox.user(member, channel_id=message.channel_id).click(held, LABEL)
    finally:
        held.data["components"] = kept


async def final_board(sandbox: FakeDiscord, thread_id: int, cursor: int) -> Message:
    return await sandbox.wait_for_message(thread_id, lambda m: bool(m.embeds) and "resigned" in m.text(), after=cursor)


@pytest.mark.slow
async def test_a_disputed_result_holds_the_next_round_across_a_restart_until_the_organiser_decides(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    factory: Factory,
    alice: Member,
    bob: Member,
    carol: Member,
    db_path: Path,
    clock: ManualClock,
) -> None:
    bot = await sandbox_runner.start(factory, sync=False)
    await sandbox.grant(alice, "manage_guild")
    dave, erin = sandbox.add_member("dave"), sandbox.add_member("erin")
    field = (bob, carol, dave, erin)
    members = {m.id: m for m in field}
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Appeal Open", game="veloop", format="swiss", rounds=2, time="1d", settings="5"
    )
    for member in field:
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(alice).slash("tournament", "start")
    first, second = await round_open(sandbox, db_path, 1, 1)
    assert first.thread_id is not None and second.thread_id is not None

    cursor = sandbox.cursor()
    await resign_in(sandbox, members[first.black], first.thread_id, "veloop")
    board = await final_board(sandbox, first.thread_id, cursor)
    assert [b["label"] for b in board.buttons] == [LABEL, "Review"], board.buttons
    game_id = int(board.buttons[0]["custom_id"].split(":")[1])

    # Someone who did not play it is refused privately (in their language), without a modal; nothing is stored.
    outsider = next(m for m in field if m.id not in (first.white, first.black))
    outsider.locale = "es-419"
    refused = await sandbox.user(outsider, channel_id=first.thread_id).click(board, LABEL)
    assert refused.ephemeral, refused.content
    assert refused.content == "Solo los dos jugadores de esta partida pueden impugnar su resultado.", refused.content
    outsider.locale = "en-US"
    # A forged id: a game no one has, and the other board's game from this thread, are "no such game here".
    for custom_id in ("tdispute:999999999", f"tdispute:{second.game_id}"):
        answer = await click_forged(sandbox, members[first.white], board, custom_id)
        assert answer.ephemeral and "no such game" in answer.content.lower(), answer.content
    assert disputes(db_path) == []

    # The loser disputes: a modal asks why; the reason may be in any script and is shown as typed.
    player = sandbox.user(members[first.black], channel_id=first.thread_id)
    modal = await player.click_modal(board, LABEL)
    assert modal.fields[0].label == REASON and modal.fields[0].max_length == 300
    cursor = sandbox.cursor()
    # Discord refuses the organisers' post twice: it is owed, and tried again until it is out.
    refusing = sandbox.fail(
        "POST", rf"^/channels/{sandbox.channel_id}/messages$", 403, code=50013, message="Missing Permissions", times=2
    )
    said = await player.submit(modal, {REASON: "I hit **resign** by mistake @everyone — 誤って投了"})
    assert said.ephemeral and "round 1, board 1 is with the organisers" in said.content, said.content
    post = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: not m.ephemeral and "⚖️" in m.content, after=cursor
    )
    assert refusing.hits == 2
    assert f"<@{first.black}> disputes the result of round 1, board 1" in post.content, post.content
    assert "\\*\\*resign\\*\\*" in post.content and "@everyone" not in post.content and "誤って投了" in post.content
    assert f"<@{alice.id}>" in post.content and "`/tournament result round:1 board:1 result:…`" in post.content
    assert [m for m in sandbox.messages(sandbox.channel_id) if "⚖️" in m.content and not m.ephemeral] == [post]
    assert sandbox.message(board.id).buttons == [], "the board no longer offers the dispute"
    stored = [(1, 1, first.black, "I hit **resign** by mistake @everyone — 誤って投了", "1-0", None, None)]
    assert disputes(db_path) == stored
    # A second dispute of the same game, by either player, from a board that still shows the button: refused.
    members[first.white].locale = "ja"
    again = await click_forged(sandbox, members[first.white], board, f"tdispute:{game_id}")
    assert again.ephemeral and "この対局の結果にはすでに異議が出ています" in again.content, again.content
    members[first.white].locale = "en-US"
    assert disputes(db_path) == stored

    # The round's other game ends: the next round is not paired while the dispute is open.
    await resign_in(sandbox, members[second.black], second.thread_id, "veloop")
    await sandbox.wait_until(
        lambda: boards(db_path, 1, 1)[1].result is not None and not advance_pending(db_path),
        what="the round's end looked at by the advance step",
    )
    assert rounds_stored(db_path, 1) == 1
    info = await sandbox.user(alice).slash("tournament", "info")
    assert "The next round waits for 1 open dispute." in info.content, info.content
    assert "Not decided yet" in info.content

    # The other game's loser opens the dispute modal, and the bot restarts while they type: the first dispute
    # stands and the round still waits; the reason typed meanwhile lands (the submit needs no modal in memory).
    cursor = sandbox.cursor()
    other_board = await final_board(sandbox, second.thread_id, 0)
    late_player = sandbox.user(members[second.black], channel_id=second.thread_id)
    other_modal = await late_player.click_modal(other_board, LABEL)
    bot = await sandbox_runner.restart(factory)
    assert isinstance(bot, VeletasBot)
    await sandbox.wait_until(lambda: bot.scheduler._last_alive > 0, what="the scheduler")
    assert rounds_stored(db_path, 1) == 1 and disputes(db_path) == stored
    said = await late_player.submit(other_modal, {REASON: "just checking"})
    assert said.ephemeral and "round 1, board 2 is with the organisers" in said.content, said.content
    await sandbox.wait_for_message(sandbox.channel_id, lambda m: "round 1, board 2" in m.content, after=cursor)
    info = await sandbox.user(alice).slash("tournament", "info")
    assert "The next round waits for 2 open disputes." in info.content, info.content
    second_dispute = (1, 2, second.black, "just checking", "1-0", None, None)
    assert disputes(db_path) == [*stored, second_dispute]
    # Deciding one (the same result confirms it) leaves the round waiting for the dispute made before the restart.
    await sandbox.user(alice).slash("tournament", "result", round=1, board=2, result="1-0")
    await sandbox.wait_until(lambda: not advance_pending(db_path), what="the advance step after the decision")
    assert rounds_stored(db_path, 1) == 1
    info = await sandbox.user(alice).slash("tournament", "info")
    assert "The next round waits for 1 open dispute." in info.content, info.content
    stored.append((*second_dispute[:5], alice.id, "1-0"))

    # A member who is not an organiser cannot decide; the organiser does, and the round goes on.
    not_theirs = await sandbox.user(bob).slash("tournament", "result", round=1, board=1, result="1/2-1/2")
    assert not_theirs.ephemeral and "organiser" in not_theirs.content
    assert disputes(db_path) == stored
    clock.advance(0.5)  # half a minute: less than the gap the scheduler takes for its own downtime
    bot.scheduler.wake()  # it sleeps by the clock: a clock moved by hand is looked at again now
    cursor = sandbox.cursor()
    decided = await sandbox.user(alice).slash("tournament", "result", round=1, board=1, result="1/2-1/2")
    assert decided.ephemeral and decided.content.endswith(f"This decides <@{first.black}>'s dispute."), decided.content
    logged = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: not m.ephemeral and "🛠️" in m.content and "decides" in m.content, after=cursor
    )
    assert "set round 1, board 1" in logged.content and "**½-½**" in logged.content, logged.content
    found = await round_open(sandbox, db_path, 1, 2)
    assert len(found) == 2 and boards(db_path, 1, 1)[0].result == "1/2-1/2"
    assert disputes(db_path) == [(*stored[0][:5], alice.id, "1/2-1/2"), stored[1]]
    info = await sandbox.user(alice).slash("tournament", "info")
    assert "waits for" not in info.content, info.content
    assert f"<@{alice.id}> decided **½-½**" in info.content, info.content
    # The standings' exports carry every dispute with its decision.
    exported = await sandbox.user(alice).slash("tournament", "standings")
    row, _ = csv.DictReader(io.StringIO(exported.files["appeal-open-disputes.csv"].decode()))
    assert {
        k: row[k] for k in ("round", "board", "white", "black", "disputed_by", "result", "decided_by", "decision")
    } == {
        "round": "1",
        "board": "1",
        "white": str(first.white),
        "black": str(first.black),
        "disputed_by": str(first.black),
        "result": "1-0",
        "decided_by": str(alice.id),
        "decision": "1/2-1/2",
    }
    assert row["reason"] == stored[0][3] and row["disputed_at"] < row["decided_at"]

    # After the window (a day for a correspondence clock) the button is refused, and nothing is stored.
    last = found[0]
    assert last.thread_id is not None
    cursor = sandbox.cursor()
    await resign_in(sandbox, members[last.black], last.thread_id, "veloop")
    late_board = await final_board(sandbox, last.thread_id, cursor)
    other = found[1]
    assert other.thread_id is not None
    await resign_in(sandbox, members[other.black], other.thread_id, "veloop")
    await finished(sandbox, db_path, 1)
    podium = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "is over" in m.content)
    assert "appeal-open-disputes.csv" in podium.files, sorted(podium.files)
    assert "The disputes of results, with their decisions, as CSV." in podium.content, podium.content
    clock.advance(24 * 60 + 1)
    late = await sandbox.user(members[last.white], channel_id=last.thread_id).click(late_board, LABEL)
    assert late.ephemeral and "time to dispute this game's result has passed" in late.content, late.content
    assert len(disputes(db_path)) == 2


@pytest.mark.slow
async def test_in_a_veletas_bracket_the_decision_changes_who_plays_the_final(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path
) -> None:
    await sandbox.grant(alice, "manage_guild")
    field = [sandbox.add_member(f"k{i}") for i in range(1, 5)]
    members = {m.id: m for m in field}
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="KO", game="veletas", format="single_elimination", time="1d", settings="small"
    )
    for member in field:
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(alice).slash("tournament", "start")
    first, second = await round_open(sandbox, db_path, 1, 1)
    assert first.thread_id is not None and second.thread_id is not None
    cursor = sandbox.cursor()
    await resign_in(sandbox, members[first.black], first.thread_id, "veletas")
    board = await final_board(sandbox, first.thread_id, cursor)
    player = sandbox.user(members[first.black], channel_id=first.thread_id)
    blank = await player.submit(await player.click_modal(board, LABEL), {REASON: " \n\u200b "})
    assert blank.ephemeral and blank.content == "Say what is wrong with the result.", blank.content
    assert disputes(db_path) == [] and [b["label"] for b in sandbox.message(board.id).buttons] == [LABEL, "Review"]
    modal = await player.click_modal(board, LABEL)
    said = await player.submit(modal, {REASON: "My opponent's clock was stopped by a bug; we agreed I win"})
    assert said.ephemeral and "is with the organisers" in said.content
    await resign_in(sandbox, members[second.black], second.thread_id, "veletas")
    await sandbox.wait_until(
        lambda: boards(db_path, 1, 1)[1].result is not None and not advance_pending(db_path),
        what="the round's end looked at by the advance step",
    )
    assert rounds_stored(db_path, 1) == 1, "the final waits for the dispute"
    await sandbox.user(alice).slash("tournament", "result", round=1, board=1, result="0-1")
    [final] = await round_open(sandbox, db_path, 1, 2)
    assert {final.white, final.black} == {first.black, second.white}, "the decided winner plays the final"
