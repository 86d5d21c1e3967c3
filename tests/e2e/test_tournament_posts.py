"""What a tournament owes its channel gets there: owed in the store and tried again until Discord takes it (posts
refused or rate-limited at the start), the organiser answered before the channel is told, and a tournament's
name shown as typed (its markdown and mentions escaped), a name no database may keep or that shows nothing
refused privately on SQLite and PostgreSQL alike."""

from __future__ import annotations

import csv
import io
import sqlite3
from pathlib import Path

import pytest

from bot.client import VeletasBot, make_bot
from bot.config import Settings
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from bot.store import Store
from e2e.conftest import ManualClock
from e2e.tourney import finished, png, posts_owed, resign_in, round_open, status

POSTS = r"^/channels/{channel}/messages$"


def public(sandbox: FakeDiscord) -> list[Message]:
    return sandbox.messages(sandbox.channel_id, include_ephemeral=False)


def pairings_posts(sandbox: FakeDiscord, number: int) -> list[Message]:
    return [m for m in public(sandbox) if m.embeds and f"round {number} pairings" in m.text()]


def posts_taken(db_path: Path) -> bool:
    """Whether a run of the ``posts`` step holds it (it is not waiting for its next try)."""
    with sqlite3.connect(db_path) as db:
        row = db.execute("SELECT claimed_by FROM due WHERE key = 'posts'").fetchone()
    return row is not None and row[0] is not None


def round_headers(sandbox: FakeDiscord, number: int) -> list[Message]:
    return [m for m in public(sandbox) if f": round {number} of" in m.content and "own thread" in m.content]


def started_lines(sandbox: FakeDiscord) -> list[Message]:
    return [m for m in public(sandbox) if "has started" in m.content]


async def sign_up(sandbox: FakeDiscord, organiser: Member, members: list[Member], name: str = "Owed Cup") -> Message:
    await sandbox.grant(organiser, "manage_guild")
    announcement = await sandbox.user(organiser).slash(
        "tournament", "create", name=name, game="veloop", format="swiss", rounds=2, time="1d", settings="5"
    )
    for member in members:
        await sandbox.user(member).click(announcement, "Join")
    return announcement


@pytest.mark.parametrize(
    ("status_code", "code", "times"),
    [(403, 50013, 4), (429, 0, 30)],
    ids=["403x4", "429x30"],
)
@pytest.mark.slow
async def test_a_rounds_posts_refused_at_the_start_are_owed_and_arrive_once_when_discord_takes_them_again(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    carol: Member,
    db_path: Path,
    clock: ManualClock,
    status_code: int,
    code: int,
    times: int,
) -> None:
    dave = sandbox.add_member("dave")
    await sign_up(sandbox, alice, [alice, bob, carol, dave])
    fault = sandbox.fail(
        "POST", POSTS.format(channel=sandbox.channel_id), status_code, code=code, message="refused", times=times
    )
    answer = await sandbox.user(alice).slash("tournament", "start")
    assert answer.ephemeral and "started the tournament" in answer.content, answer.content
    assert status(db_path, 1) == "running"
    await round_open(sandbox, db_path, 1, 1)  # the games open meanwhile, in their threads
    # Every failed try gives the posts back to the scheduler, to be tried again after a pause on the bot's clock.
    while fault.hits < times or posts_owed(db_path, 1):
        before = fault.hits
        await sandbox.wait_until(lambda: not posts_taken(db_path), what="the failed posts given back")
        clock.advance(1.1)  # minutes: past the longest pause so far
        bot.scheduler.wake()
        await sandbox.wait_until(
            lambda before=before: fault.hits > before or not posts_owed(db_path, 1),  # type: ignore[misc]
            what="the owed posts to be tried again",
        )
    await sandbox.settle()
    assert fault.hits == times
    assert len(pairings_posts(sandbox, 1)) == 1, "round 1's pairings arrive once"
    assert len(round_headers(sandbox, 1)) == 1
    assert len(started_lines(sandbox)) == 1, "the start is said once"
    said = [m.content for m in public(sandbox) if "started the tournament" in m.content]
    assert len(said) == 1, "the organiser's action is said once"
    # In order: the start, then round 1's header and pairings.
    order = [m.id for m in (*started_lines(sandbox), *pairings_posts(sandbox, 1))]
    assert order == sorted(order)


@pytest.mark.slow
async def test_the_organiser_is_answered_before_the_channel_hears_of_the_start(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path
) -> None:
    """A 500 on the channel post (discord.py tries again itself, with pauses longer than Discord's 3 s to answer):
    the organiser gets a real answer at once, the tournament runs, and the channel's line comes after."""
    await sign_up(sandbox, alice, [alice, bob, carol])
    fault = sandbox.fail("POST", POSTS.format(channel=sandbox.channel_id), 500, times=2)
    answer = await sandbox.user(alice).slash("tournament", "start")
    assert answer.ephemeral and "started the tournament" in answer.content, answer.content
    assert status(db_path, 1) == "running"
    await sandbox.wait_until(lambda: not posts_owed(db_path, 1), timeout=30, what="the start and round 1 said")
    await sandbox.settle()
    assert fault.hits == 2
    assert len(started_lines(sandbox)) == 1 and len(pairings_posts(sandbox, 1)) == 1


@pytest.mark.slow
async def test_a_tournament_name_is_shown_as_typed_in_every_public_post(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path
) -> None:
    name = "**Big** _Cup_ @everyone"
    shown = r"\*\*Big\*\* \_Cup\_ @" + "\u200beveryone"
    announcement = await sign_up(sandbox, alice, [alice, bob, carol], name=name)
    await sandbox.user(alice).slash("tournament", "start")
    [board] = await round_open(sandbox, db_path, 1, 1)
    await sandbox.wait_until(lambda: started_lines(sandbox) and pairings_posts(sandbox, 1), what="round 1 said")
    await sandbox.settle()
    assert board.thread_id is not None
    intro = await sandbox.wait_for_message(board.thread_id, lambda m: bool(m.embeds) and "<@" in m.content)
    posts = [announcement, *started_lines(sandbox), *round_headers(sandbox, 1), *pairings_posts(sandbox, 1), intro]
    assert len(posts) == 5
    for message in posts:
        assert shown in message.text(), message.text()
        assert "**Big**" not in message.text().replace(r"\*\*Big\*\*", "")
    assert all("@everyone" not in m.text() for m in public(sandbox))


async def pg_or_sqlite_bot(
    sandbox_runner: BotRunner, clock: ManualClock, tmp_path: Path, url: str | None
) -> VeletasBot:
    path = tmp_path / "data" / "veletas.sqlite3"

    async def factory(fake: FakeDiscord) -> VeletasBot:
        settings = Settings(
            token=fake.token,
            database_path=path,
            database_url=url,
            api_base=fake.api_base,
            gateway_url=fake.gateway_url,
            log_level="DEBUG",
        )
        return make_bot(settings, await Store.open(settings.database, clock=clock), clock=clock)

    started = await sandbox_runner.start(factory, sync=False)
    assert isinstance(started, VeletasBot)
    return started


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str | None:
    """No URL (the SQLite file), or a fresh PostgreSQL database's. A fixture of its own, taken before the
    sandbox, so the database outlives the bot: dropping it under the bot's open connections would wait for
    their locks while the bot, on the same event loop, waits for the drop."""
    return str(request.getfixturevalue("pg_url")) if request.param == "postgresql" else None


async def test_a_tournament_name_no_database_may_keep_or_that_shows_nothing_is_refused_privately(
    database_url: str | None,
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    clock: ManualClock,
    tmp_path: Path,
) -> None:
    bot = await pg_or_sqlite_bot(sandbox_runner, clock, tmp_path, database_url)
    await sandbox.grant(alice, "manage_guild")
    cases = [
        ("Spring\x00Open", "cannot hold control characters or line breaks (U+0000 is one)"),
        ("Spring\u0007Open", "(U+0007 is one)"),
        ("\u200b\u200b\u200b", "has no visible character"),
        ("\u200d \u2060\u3164", "has no visible character"),
    ]
    for name, said in cases:
        answer = await sandbox.user(alice).slash(
            "tournament", "create", name=name, game="veloop", format="swiss", unchecked=True
        )
        assert answer.ephemeral and said in answer.content, (name, answer.content)
        assert "went wrong" not in answer.content
    assert await bot.store.tournaments(sandbox.state.guild_id) == []
    kept = await sandbox.user(alice).slash("tournament", "create", name="Spring Open", game="veloop", format="swiss")
    assert not kept.ephemeral
    assert [t.name for t in await bot.store.tournaments(sandbox.state.guild_id)] == ["Spring Open"]


@pytest.mark.slow
async def test_check_in_opening_refused_by_the_channel_is_said_when_it_takes_posts_again(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    await sandbox.grant(alice, "manage_guild")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Timed", game="veloop", format="swiss", start="30m", checkin=10
    )
    await sandbox.user(bob).click(announcement, "Join")
    fault = sandbox.fail("POST", POSTS.format(channel=sandbox.channel_id), 403, code=50013, message="refused")
    clock.advance(21)
    bot.scheduler.wake()
    await sandbox.wait_until(lambda: fault.hits == 1, what="the check-in line refused")
    clock.advance(1.1)  # the step's lease runs out: it is tried again
    bot.scheduler.wake()

    def opened() -> list[Message]:
        return [m for m in public(sandbox) if "Check-in for **Timed** is open" in m.content]

    await sandbox.wait_until(opened, what="the check-in line")
    await sandbox.settle()
    assert len(opened()) == 1


@pytest.mark.slow
async def test_a_timed_start_that_cannot_start_says_why_even_when_the_channel_refused_it_first(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path, clock: ManualClock
) -> None:
    await sandbox.grant(alice, "manage_guild")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Lonely", game="veloop", format="swiss", start="30m"
    )
    await sandbox.user(bob).click(announcement, "Join")
    fault = sandbox.fail("POST", POSTS.format(channel=sandbox.channel_id), 403, code=50013, message="refused")
    clock.advance(31)
    bot.scheduler.wake()
    await sandbox.wait_until(lambda: fault.hits == 1, what="the line refused")
    clock.advance(1.1)  # the step's lease runs out: it is tried again
    bot.scheduler.wake()

    def said() -> list[Message]:
        return [m for m in public(sandbox) if "could not start at its time" in m.content]

    await sandbox.wait_until(lambda: said() and status(db_path, 1) == "cancelled", what="the cancellation said")
    await sandbox.settle()
    assert len(said()) == 1 and "at least 2 players" in said()[0].content


@pytest.mark.slow
async def test_a_finished_swiss_posts_the_crosstable_with_the_final_standings_and_names_its_players_in_the_trf(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path, clock: ManualClock
) -> None:
    dave = sandbox.add_member("Zoë Ñúñez, la campeona de la ciudad de Buenos Aires")
    field = [alice, bob, carol, dave]
    await sign_up(sandbox, alice, field, name="Cross Cup")
    await sandbox.user(alice).slash("tournament", "start")
    members = {m.id: m for m in field}
    for number in (1, 2):
        for b in await round_open(sandbox, db_path, 1, number):
            assert b.thread_id is not None
            await resign_in(sandbox, members[b.black], b.thread_id, "veloop")
    await finished(sandbox, db_path, 1)
    final = [m for m in public(sandbox) if "crosstable.png" in m.files]
    assert len(final) == 1 and "standings.png" in final[0].files  # with the final standings, once
    assert "final standings" in final[0].text()
    image = png(final[0], "crosstable.png")
    assert image.width >= 800 and image.height > 4 * 40
    podium = next(m for m in public(sandbox) if "is over" in m.content)
    assert "crosstable as CSV" in podium.content
    cross = next(n for n in podium.files if n.endswith("-crosstable.csv"))
    rows = list(csv.DictReader(io.StringIO(podium.files[cross].decode())))
    assert {int(r["player"]) for r in rows} == set(members)  # the Discord ids
    assert [r["number"] for r in rows] == ["1", "2", "3", "4"]
    for r in rows:
        assert r["colour 1"] in ("w", "b") and r["colour 2"] in ("w", "b")
        assert float(r["result 1"]) + float(r["result 2"]) == float(r["points"])
    trf = podium.files[next(n for n in podium.files if n.endswith(".trf"))].decode()
    shown = {line[14:47].rstrip() for line in trf.splitlines() if line.startswith("001")}
    assert shown == {r["name"][:33].rstrip() for r in rows}  # the display names the CSV gives with the ids
    assert any(name.startswith("Zoë Ñúñez") and len(name) == 33 for name in shown)
    # A member asking for the finished tournament's standings privately gets the crosstable too.
    private = await sandbox.user(bob).slash("tournament", "standings", tournament=1)
    assert private.ephemeral and "crosstable.png" in private.files, sorted(private.files)
    assert cross in private.files
