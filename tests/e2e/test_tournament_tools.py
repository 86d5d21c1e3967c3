"""Organisers' tools and refusals end to end: bad input refused privately and changing nothing, forged buttons,
re-pairing, pause and resume, corrections, removals and additions, cancellation, check-in and a timed start."""

from __future__ import annotations

import csv
import io
import sqlite3
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.render.tournament import BRACKET_WIDTH
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import ManualClock
from e2e.tourney import boards, finished, players, png, posts_with, resign_in, round_open, rounds_stored, status


def tournaments_stored(db_path: Path) -> int:
    with sqlite3.connect(db_path) as db:
        return int(db.execute("SELECT COUNT(*) FROM tournaments").fetchone()[0])


def field(message: Message, name: str) -> str:
    return next(f["value"] for f in message.embeds[0]["fields"] if f["name"] == name)


def organiser_lines(sandbox: FakeDiscord) -> list[str]:
    return [m.content for m in sandbox.messages(sandbox.channel_id, include_ephemeral=False) if "🛠️" in m.content]


async def test_bad_organiser_input_is_refused_privately_and_changes_nothing(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    refused = await sandbox.user(bob).slash("tournament", "create", name="Mine", game="veloop", format="swiss")
    assert refused.ephemeral and "Manage Server" in refused.content
    await sandbox.grant(alice, "manage_guild")
    organiser = sandbox.user(alice)
    cases = [
        ({"start": "2020-01-01 10:00"}, "already passed"),
        ({"start": "next tuesday"}, "not a start time I can read"),
        ({"rounds": 5, "max_players": 4}, "5 rounds need at least 6 players"),
        ({"checkin": 15}, "needs a start time"),
        ({"settings": "small"}, "`small` is a Veletas setting, not a Veloop (Square) one"),
        ({"settings": "huge"}, "`huge` is not a Veloop (Square) setting"),
        ({"settings": "5, 6"}, "`5` and `6` are two values of the same Veloop (Square) setting"),
        ({"format": "round_robin", "rounds": 3}, "`rounds` is for a Swiss only"),
        ({"best_of": "bo3"}, "elimination brackets only"),
        ({"time": "soon"}, "not a time control"),
    ]
    for options, words in cases:
        answer = await organiser.slash(
            "tournament", "create", **({"name": "Open", "game": "veloop", "format": "swiss"} | options)
        )
        assert answer.ephemeral and words in answer.content, (options, answer.content)
    assert tournaments_stored(db_path) == 0
    announcement = await organiser.slash("tournament", "create", name="Open", game="veloop", format="swiss", rounds=3)
    assert not announcement.ephemeral
    second = await organiser.slash("tournament", "create", name="Two", game="veloop", format="swiss")
    assert second.ephemeral and "already signing up or running in this channel" in second.content
    empty = await organiser.slash("tournament", "start")
    assert empty.ephemeral and "at least 2 players; 0 are entered" in empty.content
    for member in (alice, bob):
        await sandbox.user(member).click(announcement, "Join")
    too_many = await organiser.slash("tournament", "start")
    assert too_many.ephemeral and "3 rounds need at least 4 players; 2 are entered" in too_many.content
    not_yours = await sandbox.user(bob).slash("tournament", "start")
    assert not_yours.ephemeral and "organiser" in not_yours.content
    assert status(db_path, 1) == "signup" and rounds_stored(db_path, 1) == 0
    forged = sandbox.message(announcement.id)
    button = next(b for b in forged.buttons if b["label"] == "Join")
    button["custom_id"] = "tour:join:999"
    answer = await sandbox.user(bob).click(forged, "Join")
    assert answer.ephemeral and "does not belong" in answer.content
    assert len(players_signed(db_path)) == 2


def players_signed(db_path: Path) -> list[int]:
    with sqlite3.connect(db_path) as db:
        return [int(r[0]) for r in db.execute("SELECT user_id FROM tournament_players")]


@pytest.mark.slow
async def test_organiser_tools_repair_pause_resume_correct_remove_add_and_cancel_are_logged_in_the_channel(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path
) -> None:
    await sandbox.grant(alice, "manage_guild")
    organiser = sandbox.user(alice)
    entrants = [sandbox.add_member(f"t{i}") for i in range(1, 7)]
    members = {m.id: m for m in entrants}
    announcement = await organiser.slash(
        "tournament", "create", name="Tools", game="veloop", format="swiss", rounds=3, time="1d", settings="5"
    )
    for member in entrants[:5]:
        await sandbox.user(member).click(announcement, "Join")
    await organiser.slash("tournament", "start")
    first = await round_open(sandbox, db_path, 1, 1)
    old_threads = {b.thread_id for b in first}
    await organiser.slash("tournament", "add", member=entrants[5])  # late: from round 2, ½-point bye for round 1
    answer = await organiser.slash("tournament", "repair", round=1)
    assert answer.ephemeral and "paired again" in answer.content
    first = await round_open(sandbox, db_path, 1, 1)
    assert not old_threads & {b.thread_id for b in first}
    assert {int(t["id"]) for t in sandbox.threads(sandbox.channel_id)} == {b.thread_id for b in first}
    await organiser.slash("tournament", "pause")
    for b in first:
        assert b.thread_id is not None
        await resign_in(sandbox, members[b.black], b.thread_id, "veloop")
    await sandbox.wait_until(lambda: all(b.result for b in boards(db_path, 1, 1)), what="round 1's results")
    assert rounds_stored(db_path, 1) == 1, "paused: the next round waits"
    await organiser.slash("tournament", "resume")
    second = await round_open(sandbox, db_path, 1, 2)
    assert len(second) == 3, "the late entry plays from round 2"
    target = second[0]
    await organiser.slash("tournament", "result", round=2, board=1, result="1/2-1/2")
    assert boards(db_path, 1, 2)[0].result == "1/2-1/2"
    stopped = await sandbox.wait_for_message(target.thread_id, lambda m: bool(m.embeds) and "cancelled" in m.text())
    assert stopped.embeds
    removed = second[1].white
    await organiser.slash("tournament", "remove", member=members[removed])
    for b in second[1:]:
        assert b.thread_id is not None
        await resign_in(sandbox, members[b.black], b.thread_id, "veloop")
    third = await round_open(sandbox, db_path, 1, 3)
    assert removed not in {p for b in third for p in (b.white, b.black)}
    left = {pid: gone for pid, _, _, _, gone in players(db_path, 1)}
    assert left[removed] == 3
    await organiser.slash("tournament", "cancel")
    assert status(db_path, 1) == "cancelled"
    with sqlite3.connect(db_path) as db:
        states = {
            r[0]
            for r in db.execute(
                "SELECT status FROM games WHERE id IN (SELECT game_id FROM tournament_pairings WHERE round = 3)"
            )
        }
    assert states == {"cancelled"}
    # The organiser is answered first; the channel's line follows.
    await sandbox.wait_until(
        lambda: any("cancelled the tournament" in line.lower() for line in organiser_lines(sandbox)),
        what="the cancellation said in the channel",
    )
    said = organiser_lines(sandbox)
    for words in ("added t6", "threw away", "paused", "resumed", "to **½-½**", "removed", "cancelled the tournament"):
        assert any(words in line.lower() for line in said), (words, said)
    assert sandbox.message(announcement.id).buttons == [], "a cancelled tournament takes no more sign-ups"


@pytest.mark.slow
async def test_check_in_then_a_timed_start_pairs_only_those_who_checked_in(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path, clock: ManualClock
) -> None:
    await sandbox.grant(alice, "manage_guild")
    dave = sandbox.add_member("dave")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Timed", game="veletas", format="single_elimination", start="30m", checkin=10
    )
    assert "<t:" in field(announcement, "Starts") and ":R>" in field(announcement, "Starts")
    for member in (alice, bob, carol, dave):
        await sandbox.user(member).click(announcement, "Join")
    early = await sandbox.user(bob).click(announcement, "Check in")
    assert early.ephemeral and "has not opened yet" in early.content
    cursor = sandbox.cursor()
    clock.advance(21)
    bot.scheduler.wake()
    await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: "Check-in for **Timed** is open" in m.content, after=cursor
    )
    for member in (bob, carol):
        await sandbox.user(member).click(sandbox.message(announcement.id), "Check in")
    assert "2 checked in" in field(sandbox.message(announcement.id), "Check-in")
    clock.advance(10)
    bot.scheduler.wake()
    found = await round_open(sandbox, db_path, 1, 1)
    assert {p for b in found for p in (b.white, b.black)} == {bob.id, carol.id}
    assert {pid for pid, *_ in players(db_path, 1)} == {bob.id, carol.id}
    assert found[0].thread_id is not None
    await resign_in(sandbox, bob if found[0].white == bob.id else carol, found[0].thread_id, "veletas")
    await finished(sandbox, db_path, 1)


@pytest.mark.slow
async def test_a_timed_start_without_players_cancels_the_tournament_and_says_why(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    await sandbox.grant(alice, "manage_guild")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Lonely", game="veloop", format="swiss", start="5m"
    )
    cursor = sandbox.cursor()
    clock.advance(6)
    bot.scheduler.wake()
    said = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "could not start" in m.content, after=cursor)
    assert "at least 2 players; 0 are entered" in said.content
    # Said first (a refused post is tried again before anything changes), then cancelled.
    await sandbox.wait_until(
        lambda: status(db_path, 1) == "cancelled" and sandbox.message(announcement.id).buttons == [],
        what="the tournament cancelled",
    )


@pytest.mark.slow
async def test_a_swiss_whose_remaining_players_have_all_met_ends_with_the_rounds_played(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path
) -> None:
    await sandbox.grant(alice, "manage_guild")
    dave = sandbox.add_member("dave")
    members = {m.id: m for m in (alice, bob, carol, dave)}
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Short", game="veloop", format="swiss", rounds=3, time="1d", settings="5"
    )
    for member in members.values():
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(alice).slash("tournament", "start")
    first, second = await round_open(sandbox, db_path, 1, 1)
    for pid in (second.white, second.black):
        asked = await sandbox.user(members[pid]).click(sandbox.message(announcement.id), "Leave")
        await sandbox.user(members[pid]).click(asked, "Withdraw for good")
    kept = await sandbox.user(members[first.white]).click(sandbox.message(announcement.id), "Leave")
    assert kept.ephemeral and "Withdraw from" in kept.content, "asked first; not pressing it changes nothing"
    for b in (first, second):
        assert b.thread_id is not None
        await resign_in(sandbox, members[b.black], b.thread_id, "veloop")
    said = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "cannot be paired" in m.content)
    assert "Round 2 of **Short**" in said.content
    started = next(m for m in sandbox.messages(sandbox.channel_id, include_ephemeral=False) if "🛠️" in m.content)
    assert f"<@{alice.id}> started the tournament" in started.content, "the start is an organiser action, shown"
    await finished(sandbox, db_path, 1)
    podium = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "is over" in m.content)
    assert rounds_stored(db_path, 1) == 1 and podium.files


@pytest.mark.slow
async def test_an_organiser_role_runs_a_best_of_three_bracket_and_members_read_list_info_and_standings(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path
) -> None:
    await sandbox.grant(alice, "manage_guild")
    arbiters = await sandbox.grant(carol, role="Arbiters")
    refused = await sandbox.user(carol).slash("tournament", "create", name="Cup", game="veloop", format="swiss")
    assert refused.ephemeral and "organiser role" in refused.content
    chosen = await sandbox.user(alice).slash("tournament", "organisers", role=arbiters)
    assert chosen.ephemeral and f"<@&{arbiters}>" in chosen.content
    announcement = await sandbox.user(carol).slash(
        "tournament", "create", name="Cup", game="veloop", format="single_elimination", best_of="bo3", settings="5"
    )
    assert not announcement.ephemeral and "best of 3" in field(announcement, "Format")
    entrants = [sandbox.add_member(f"b{i}") for i in range(1, 5)]
    members = {m.id: m for m in entrants}
    for member in entrants:
        await sandbox.user(member).click(announcement, "Join")
    choices = await sandbox.user(bob).autocomplete("tournament", "info", tournament="1")
    assert choices == [{"name": "#1 Cup (open for sign-up)", "value": 1}]
    listed = await sandbox.user(bob).slash("tournament", "list")
    assert listed.ephemeral and "**Cup**" in listed.embeds[0]["description"] and "4 players" in listed.text()
    nothing_yet = await sandbox.user(bob).slash("tournament", "standings")
    assert nothing_yet.ephemeral and "No round has finished yet" in nothing_yet.content
    await sandbox.user(carol).slash("tournament", "start")
    seeds = {pid: seed for pid, _, seed, _, _ in players(db_path, 1)}
    colours: dict[str, list[int]] = {}
    number = 0
    while True:
        number += 1
        await sandbox.wait_until(
            lambda n=number: status(db_path, 1) == "finished" or rounds_stored(db_path, 1) >= n,  # type: ignore[misc]
            what="the next round or the end",
        )
        if status(db_path, 1) == "finished":
            break
        found = await round_open(sandbox, db_path, 1, number)
        if number == 1:
            info = await sandbox.user(bob).slash("tournament", "info")
            assert info.ephemeral and "Cup" in info.content and "round 1" in info.content
        for b in found:
            assert b.match is not None and b.thread_id is not None
            colours.setdefault(b.match, []).append(b.white)
            weaker = max((b.white, b.black), key=seeds.__getitem__)
            await resign_in(sandbox, members[weaker], b.thread_id, "veloop")
    assert number - 1 == 4, "two games per match, each won 2-0: two rounds for the semi-finals, two for the final"
    for match, whites in colours.items():
        assert len(whites) == 2 and whites[0] != whites[1], f"{match}: the first seat alternates within a match"
    table = await sandbox.user(bob).slash("tournament", "standings", tournament=1)
    assert table.ephemeral and "bracket" in table.embeds[0]["title"]
    assert any(name.endswith(".csv") for name in table.files)
    assert png(table, "bracket.png").width == BRACKET_WIDTH, "the bracket's image comes with it"
    champion = min(seeds, key=seeds.__getitem__)
    podium = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "is over" in m.content)
    with sqlite3.connect(db_path) as db:
        name = db.execute("SELECT name FROM tournament_players WHERE user_id = ?", (champion,)).fetchone()[0]
    assert f"🥇 {name}" in podium.content, "the top seed won every game"
    # The bracket as an image after every round (the final one too), changing as matches are decided.
    brackets = [png(m, "bracket.png") for m in posts_with(sandbox, sandbox.channel_id, "bracket.png")]
    assert len(brackets) == 4 and all(b.width == BRACKET_WIDTH for b in brackets)
    assert brackets[0].tobytes() != brackets[1].tobytes() != brackets[3].tobytes()
    assert png(podium, "podium.png").width == 800


@pytest.mark.slow
async def test_threads_refused_mid_tournament_are_said_once_and_the_round_opens_when_allowed_again(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path, clock: ManualClock
) -> None:
    await sandbox.grant(alice, "manage_guild")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Locked", game="veloop", format="swiss", rounds=1, settings="5"
    )
    for member in (alice, bob):
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.deny(sandbox.channel_id, "create_public_threads")
    await sandbox.user(alice).slash("tournament", "start")
    said = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "cannot open the games of round 1" in m.content)
    assert "Create Public Threads" in said.content and sandbox.threads(sandbox.channel_id) == []
    refused = sandbox.take_errors()
    assert refused and all(r.status == 403 for r in refused)
    await sandbox.allow(sandbox.channel_id, "create_public_threads")
    clock.advance(1.1)  # the step's lease runs out: it is tried again
    bot.scheduler.wake()
    [board] = await round_open(sandbox, db_path, 1, 1)
    assert board.thread_id is not None and len(sandbox.threads(sandbox.channel_id)) == 1
    notes = [m for m in sandbox.messages(sandbox.channel_id) if "cannot open the games" in m.content]
    assert len(notes) == 1, "said once"


@pytest.mark.slow
async def test_the_podiums_of_many_divisions_are_paged_into_embeds_within_discords_limits(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path
) -> None:
    await sandbox.grant(alice, "manage_guild")
    organiser = sandbox.user(alice)
    field_ = [sandbox.add_member(f"a-rather-long-display-name-{i:05d}") for i in range(54)]
    announcement = await organiser.slash(
        "tournament", "create", name="Club night", game="veloop", format="round_robin", settings="5", division_size=3
    )
    for member in field_:
        await sandbox.user(member).click(announcement, "Join")
    await organiser.slash("tournament", "start")
    for number in (1, 2, 3):
        found = await round_open(sandbox, db_path, 1, number)
        assert len(found) == 18, "eighteen divisions of three: one game and one rest each"
        for b in found:
            await organiser.slash("tournament", "result", round=number, board=b.board, result="1-0")
    await finished(sandbox, db_path, 1)
    podium = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "is over" in m.embeds[0].get("title", "")
    )
    text = "\n".join(e["description"] for e in podium.embeds)
    assert text.count("**Division") == 18 and text.count("🥇") >= 18, "every division has its podium"
    assert (
        all(len(e["description"]) <= 4096 for e in podium.embeds)
        and sum(len(e["description"]) for e in podium.embeds) > 2000
    )
    assert any(name.endswith(".csv") for name in podium.files)
    # Each division's podium as an image, ten files a message at most, the exports with the podium's words.
    pictures = [
        png(m, name)
        for m in sandbox.messages(sandbox.channel_id, include_ephemeral=False)
        for name in m.files
        if name.startswith("podium-")
    ]
    assert len(pictures) == 18 and all(p.width == 800 for p in pictures)
    assert len({p.tobytes() for p in pictures}) == 18, "each division's podium shows its own players"
    tables = posts_with(sandbox, sandbox.channel_id, "standings-18.png")
    assert len(tables) == 3, "standings after each of the three rounds, one image per division"
    # With the final standings, each division's crosstable (its square table), ten files a message at most.
    crosstables = [
        name
        for m in sandbox.messages(sandbox.channel_id, include_ephemeral=False)
        for name in m.files
        if name.startswith("crosstable-")
    ]
    assert sorted(crosstables) == sorted(f"crosstable-{i}.png" for i in range(1, 19))
    cross_csv = next(name for name in podium.files if name.endswith("-crosstable.csv"))
    rows = list(csv.DictReader(io.StringIO(podium.files[cross_csv].decode())))
    assert len(rows) == 54 and {r["division"] for r in rows} == {str(i) for i in range(1, 19)}


@pytest.mark.slow
async def test_a_resume_landing_while_the_paused_advance_step_gives_up_still_pairs_the_next_round(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path
) -> None:
    """The round ends while the tournament is paused: its ``advance`` step finds it paused and drops itself. A resume
    landing between that look and the drop makes the step due afresh, and the drop leaves that new one to run."""
    await sandbox.grant(alice, "manage_guild")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Pause", game="veloop", format="swiss", rounds=2, time="1d", settings="5"
    )
    field = [alice, bob, carol, sandbox.add_member("dave")]
    members = {m.id: m for m in field}
    for member in field:
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(alice).slash("tournament", "start")
    first = await round_open(sandbox, db_path, 1, 1)
    await sandbox.user(alice).slash("tournament", "pause")
    drop = bot.store.drop_due
    resumed: list[int] = []

    async def resume_first(due_id: int, claim: object = None) -> None:
        with sqlite3.connect(db_path) as db:
            key = db.execute("SELECT key FROM due WHERE id = ?", (due_id,)).fetchone()
        if key == ("advance",) and not resumed:
            resumed.append(due_id)  # the organiser resumes just as the step gives up
            await bot.store.set_tournament_status(1, "running", actor_id=alice.id, allowed=("paused",))
        await drop(due_id, claim)  # type: ignore[arg-type]

    bot.store.drop_due = resume_first  # type: ignore[method-assign]
    for board in first:
        assert board.thread_id is not None
        await resign_in(sandbox, members[board.black], board.thread_id, "veloop")
    await sandbox.wait_until(lambda: resumed, what="the paused advance step giving up")
    await round_open(sandbox, db_path, 1, 2)
    assert rounds_stored(db_path, 1) == 2
