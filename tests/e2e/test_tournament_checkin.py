"""Check-in as its entrants live it, on a simulated clock: the announcement lists who has checked in (a big field
summarised within Discord's limits), those who joined but have not checked in are reminded halfway through the
window and told when they are dropped at the start, each once (by direct message where they take them, else
named in one channel post), through refusals and a restart; and the start is said before round 1, each once."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import Factory, ManualClock
from e2e.table import would_ping
from e2e.tourney import posts_owed, round_open, status

POSTS = r"^/channels/{channel}/messages$"


def public(sandbox: FakeDiscord) -> list[Message]:
    return sandbox.messages(sandbox.channel_id, include_ephemeral=False)


def field(message: Message, name: str) -> str | None:
    return next((f["value"] for f in message.embeds[0].get("fields", []) if f["name"] == name), None)


def notices_owed(db_path: Path) -> int:
    with sqlite3.connect(db_path) as db:
        return int(db.execute("SELECT COUNT(*) FROM due WHERE key = 'notices'").fetchone()[0])


async def minutes_pass(sandbox: FakeDiscord, bot: VeletasBot, clock: ManualClock, minutes: float) -> None:
    # Time moves only once the bot's scheduler runs: a restarted bot would otherwise find the clock hours on at its
    # start, and give all of it back to every due row and clock as downtime.
    await asyncio.wait_for(bot.scheduler.started.wait(), timeout=10)
    clock.advance(minutes)
    bot.scheduler.wake()
    await sandbox.settle()


def reminders_posted(sandbox: FakeDiscord) -> list[Message]:
    return [m for m in public(sandbox) if "have not checked in yet" in m.content]


def drops_posted(sandbox: FakeDiscord) -> list[Message]:
    return [m for m in public(sandbox) if "started without you" in m.content]


@pytest.mark.slow
async def test_check_in_is_listed_reminded_and_dropped_once_each_and_the_start_comes_before_round_one(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    factory: Factory,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    carol: Member,
    db_path: Path,
    clock: ManualClock,
) -> None:
    dave, erin = sandbox.add_member("Dave"), sandbox.add_member("Erin")
    carol.accepts_dms = False
    for member in (bob, carol, erin):  # they chose direct messages; carol's inbox is closed to the bot
        await sandbox.user(member).slash("player", "notify", how="dm")
    await sandbox.grant(alice, "manage_guild")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Timed", game="veloop", format="swiss", rounds=1, start="30m", checkin=10
    )
    everyone = (alice, bob, carol, dave, erin)
    for member in everyone:
        await sandbox.user(member).click(announcement, "Join")
    assert field(announcement, "Checked in") is None
    await minutes_pass(sandbox, bot, clock, 20)  # check-in opens
    await sandbox.wait_until(lambda: [m for m in public(sandbox) if "Check-in for **Timed** is open" in m.content])
    for member in (dave, alice):
        await sandbox.user(member).click(announcement, "Check in")
    assert field(announcement, "Checked in") == "Alice, Dave", "in the order they joined"
    assert "(2 checked in)" in (field(announcement, "Check-in") or "")

    # Halfway through the window: bob and erin are reminded privately, carol (no DMs) named in the channel; the
    # channel refuses that post once, and the retry sends nobody a second reminder.
    refused = sandbox.fail("POST", POSTS.format(channel=sandbox.channel_id), 403, code=50013, message="refused")
    await minutes_pass(sandbox, bot, clock, 5)
    await sandbox.wait_until(lambda: refused.hits == 1, what="the reminder post refused")
    await sandbox.wait_until(lambda: sandbox.direct_messages(bob) and sandbox.direct_messages(erin))
    await minutes_pass(sandbox, bot, clock, 1.1)
    await sandbox.wait_until(lambda: reminders_posted(sandbox), what="the channel's reminder")
    await sandbox.wait_until(lambda: notices_owed(db_path) == 0, what="every reminder out")
    (reminder,) = reminders_posted(sandbox)
    assert would_ping(sandbox, reminder) == [str(carol.id)]
    assert "press **Check in** on its announcement" in sandbox.direct_messages(bob)[0].content
    assert [len(sandbox.direct_messages(m)) for m in everyone] == [0, 1, 0, 0, 1]
    # Carol's closed inbox refused the bot once (50007); it is remembered, and not tried again.
    assert [e.error_code for e in sandbox.take_errors()] == [50007]

    await sandbox.user(bob).click(announcement, "Check in")
    assert field(announcement, "Checked in") == "Alice, Bob, Dave"

    # The start: carol and erin are dropped and told, once; the channel refuses twice, the start still comes first.
    refused = sandbox.fail("POST", POSTS.format(channel=sandbox.channel_id), 429, times=2)
    await minutes_pass(sandbox, bot, clock, 4)
    await sandbox.wait_until(lambda: status(db_path, 1) == "running", what="the timed start")
    await round_open(sandbox, db_path, 1, 1)
    while posts_owed(db_path, 1) or notices_owed(db_path):
        await minutes_pass(sandbox, bot, clock, 1.1)
        await sandbox.wait_until(lambda: True)
    await sandbox.settle()
    assert refused.hits == 2
    started = [m for m in public(sandbox) if "has started with 3 players" in m.content]
    pairings = [m for m in public(sandbox) if m.embeds and "round 1 pairings" in m.text()]
    assert len(started) == 1 and len(pairings) == 1, ([m.content for m in started], len(pairings))
    assert started[0].id < pairings[0].id, "the start is said before round 1's pairings"
    (dropped,) = drops_posted(sandbox)
    assert started[0].id < dropped.id, "those dropped hear it after the start is said"
    assert would_ping(sandbox, dropped) == [str(carol.id)]
    assert "started without you" in sandbox.direct_messages(erin)[1].content
    # Bob, who plays and chose direct messages, is also told of his round 1 game there (owed, and sent after its intro).
    await sandbox.wait_until(lambda: len(sandbox.direct_messages(bob)) == 2, what="bob's message about his game")
    assert "Your game in round 1" in sandbox.direct_messages(bob)[1].content
    assert [len(sandbox.direct_messages(m)) for m in everyone] == [0, 2, 0, 0, 2]

    # A restart owes nobody anything again.
    bot = await sandbox_runner.restart(factory)
    await minutes_pass(sandbox, bot, clock, 2)
    assert len(reminders_posted(sandbox)) == 1 and len(drops_posted(sandbox)) == 1
    assert [len(sandbox.direct_messages(m)) for m in everyone] == [0, 2, 0, 0, 2]


@pytest.mark.slow
async def test_a_timed_start_refused_by_the_channel_across_a_restart_is_said_once_before_round_one(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    factory: Factory,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    carol: Member,
    db_path: Path,
    clock: ManualClock,
) -> None:
    await sandbox.grant(alice, "manage_guild")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Timed", game="veloop", format="swiss", rounds=1, start="30m", checkin=10
    )
    for member in (alice, bob, carol):
        await sandbox.user(member).click(announcement, "Join")
    await minutes_pass(sandbox, bot, clock, 21)
    await sandbox.wait_until(lambda: [m for m in public(sandbox) if "Check-in for **Timed** is open" in m.content])
    for member in (alice, bob):
        await sandbox.user(member).click(announcement, "Check in")
    # The channel takes no post from the start on; the bot is restarted while everything is still owed.
    refused = sandbox.fail("POST", POSTS.format(channel=sandbox.channel_id), 403, code=50013, times=None)
    await minutes_pass(sandbox, bot, clock, 9)
    await sandbox.wait_until(lambda: status(db_path, 1) == "running" and refused.hits, what="the start refused")
    await round_open(sandbox, db_path, 1, 1)
    bot = await sandbox_runner.restart(factory)
    sandbox.faults.remove(refused)
    while posts_owed(db_path, 1) or notices_owed(db_path):
        await minutes_pass(sandbox, bot, clock, 1.1)
    await sandbox.settle()
    started = [m for m in public(sandbox) if "has started with 2 players" in m.content]
    headers = [m for m in public(sandbox) if ": round 1 of" in m.content]
    pairings = [m for m in public(sandbox) if m.embeds and "round 1 pairings" in m.text()]
    assert (len(started), len(headers), len(pairings)) == (1, 1, 1)
    assert started[0].id < headers[0].id < pairings[0].id
    (dropped,) = drops_posted(sandbox)
    assert would_ping(sandbox, dropped) == [str(carol.id)] and dropped.id > started[0].id
