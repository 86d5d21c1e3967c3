"""A finished tournament stays readable: ``/tournament info``, ``standings`` (with its exports and images) and
``pairings`` work for it, named or as the channel's last; it is offered by name for a year after its end, and a
tournament that finished longer ago is neither offered nor shown."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import ManualClock
from e2e.tourney import finished, png, resign_in, round_open

MONTH = 30.5 * 24 * 60
"""A month, in the ManualClock's minutes."""


async def play_out(sandbox: FakeDiscord, db_path: Path, tid: int, name: str, winner: Member, loser: Member) -> None:
    """A one-round Swiss of two, made by alice (an organiser), signed up with the button and won by ``winner``
    (``loser`` resigns)."""
    organiser = sandbox.user(sandbox.member("alice"))
    announcement = await organiser.slash(
        "tournament", "create", name=name, game="veloop", format="swiss", rounds=1, time="1d", settings="5"
    )
    for member in (winner, loser):
        await sandbox.user(member).click(announcement, "Join")
    await organiser.slash("tournament", "start")
    (board,) = await round_open(sandbox, db_path, tid, 1)
    assert board.thread_id is not None
    await resign_in(sandbox, loser, board.thread_id, "veloop")
    await finished(sandbox, db_path, tid)


async def later(bot: VeletasBot, clock: ManualClock, minutes: float) -> None:
    """Months later: the scheduler is told the time went by while it ran (nothing is due), so it gives none of it
    back to what falls due next, and looks again now (it slept until a moment on the old time)."""
    clock.advance(minutes)
    assert await bot.store.keep_alive(gap_allowed=0) > 0
    bot.scheduler.wake()


def csv_named(message: Message, suffix: str) -> list[dict[str, str]]:
    name = next(n for n in message.files if n.endswith(suffix))
    return list(csv.DictReader(io.StringIO(message.files[name].decode())))


@pytest.mark.slow
async def test_a_finished_tournaments_info_standings_exports_images_and_pairings_are_shown_in_its_channel(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path
) -> None:
    await sandbox.grant(alice, "manage_guild")
    await play_out(sandbox, db_path, 1, "Spring Open", alice, bob)
    reader = sandbox.user(carol)  # not a player: anyone may read it
    info = await reader.slash("tournament", "info")
    assert info.ephemeral and "**Spring Open** (#1)" in info.content and ": finished" in info.content, info.content
    assert "2 players" in info.content and "round 1" in info.content
    standings = await reader.slash("tournament", "standings")
    assert standings.ephemeral and "final standings" in standings.text()
    rows = csv_named(standings, "-standings.csv")
    assert [(r["rank"], int(r["player"]), r["points"]) for r in rows] == [("1", alice.id, "1"), ("2", bob.id, "0")]
    cross = csv_named(standings, "-crosstable.csv")
    assert [int(r["player"]) for r in cross] == [alice.id, bob.id] and cross[0]["result 1"] == "1"
    trf = standings.files["spring-open.trf"].decode()
    assert trf.startswith("012 Spring Open") and sum(line.startswith("001") for line in trf.splitlines()) == 2
    assert png(standings, "standings.png").width >= 800
    assert png(standings, "crosstable.png").width >= 800
    why = await reader.slash("tournament", "pairings")
    assert why.ephemeral and "Spring Open: why round 1 is paired so" in why.text()
    named = await reader.slash("tournament", "info", tournament=1)
    assert named.content == info.content


@pytest.mark.slow
async def test_finished_tournaments_are_offered_by_name_for_a_year_and_refused_after(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path, clock: ManualClock
) -> None:
    await sandbox.grant(alice, "manage_guild")
    await play_out(sandbox, db_path, 1, "Spring Open", alice, bob)
    reader = sandbox.user(carol)
    assert await reader.autocomplete("tournament", "standings", tournament="SPRING") == [
        {"name": "#1 Spring Open (finished)", "value": 1}
    ]
    await later(bot, clock, 13 * MONTH)
    await play_out(sandbox, db_path, 2, "Ünïcode 春の大会", bob, alice)
    offered = await reader.autocomplete("tournament", "info", tournament="")
    assert offered == [{"name": "#2 Ünïcode 春の大会 (finished)", "value": 2}], "the 13-month-old one is not offered"
    assert await reader.autocomplete("tournament", "info", tournament="Spring") == []
    for typed in ("ÜNÏ", "春の", "＃2", "2"):  # any case, any script, full-width as typed on a Japanese keyboard
        assert await reader.autocomplete("tournament", "standings", tournament=typed) == offered, typed
    old = await reader.slash("tournament", "standings", tournament=1)
    assert old.ephemeral and not old.files
    assert old.content == "**Spring Open** finished more than a year ago: its results are no longer shown."
    for command in ("info", "pairings"):
        refused = await reader.slash("tournament", command, tournament=1)
        assert refused.ephemeral and "more than a year ago" in refused.content
    # Without a name, the channel's most recent one is shown: the one that finished last.
    latest = await reader.slash("tournament", "info")
    assert latest.ephemeral and "**Ünïcode 春の大会** (#2)" in latest.content
    # A server with a newer and an older tournament offers the newest end first, at most 25.
    await later(bot, clock, MONTH)
    for tid in range(3, 5):
        await play_out(sandbox, db_path, tid, f"Cup {tid}", alice, bob)
    assert [c["value"] for c in await reader.autocomplete("tournament", "info", tournament="")] == [4, 3, 2]
    # One signing up comes first, and is the channel's tournament again.
    await sandbox.user(alice).slash("tournament", "create", name="Next", game="veloop", format="swiss")
    assert [c["value"] for c in await reader.autocomplete("tournament", "info", tournament="")] == [5, 4, 3, 2]
    assert "**Next** (#5)" in (await reader.slash("tournament", "info")).content
    # The refusal speaks the member's language.
    carol.locale = "ja"
    japanese = await reader.slash("tournament", "info", tournament=1)
    assert (
        japanese.ephemeral
        and japanese.content == "**Spring Open** は終了から1年以上たっているため、結果はもう表示されません。"
    )
