"""Tournaments end to end, through the fake Discord: sign-up with the button, rounds with a thread and a game
per pairing, results from the games, standings and the podium."""

from __future__ import annotations

from pathlib import Path

from bot.client import VeletasBot
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.conftest import ManualClock
from e2e.tourney import csv_rows, finished, resign_in, round_open


async def test_a_small_swiss_runs_from_sign_up_to_podium(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path, clock: ManualClock
) -> None:
    await sandbox.grant(alice, "manage_guild")
    dave = sandbox.add_member("dave")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Winter Swiss", game="veloop", format="swiss", rounds=3, time="1d", board="5"
    )
    assert not announcement.ephemeral, announcement.content
    for member in (alice, bob, carol, dave):
        cursor = sandbox.cursor()
        await sandbox.user(member).click(announcement, "Join")
        said = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.ephemeral, after=cursor)
        assert "You are entered" in said.content
    assert "4" in next(f["value"] for f in announcement.embeds[0]["fields"] if f["name"] == "Players")
    started = await sandbox.user(alice).slash("tournament", "start")
    assert started.ephemeral, started.content
    tid = 1
    members = {m.id: m for m in (alice, bob, carol, dave)}
    for number in (1, 2, 3):
        found = await round_open(sandbox, db_path, tid, number)
        assert len(found) == 2
        for b in found:
            assert b.thread_id is not None
            await resign_in(sandbox, members[b.black], b.thread_id, "veloop")
    await finished(sandbox, db_path, tid)
    podium = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "is over" in m.content)
    rows = csv_rows(podium)
    assert len(rows) == 4
