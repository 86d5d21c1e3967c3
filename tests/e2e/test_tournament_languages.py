"""A tournament on a Spanish server with Spanish and Japanese members: no English reaches them.

The server's language (its preferred locale) words every public post: the announcement and its buttons, the
round's pairings, the games' threads and first boards, the standings and their image, the podium. Each
member's own Discord language words what only they see: the answers to their presses and refusals. Every
message is checked with the net of ``test_languages`` (the English catalogue's fragments and English prose).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.i18n import words
from bot.render.tournament import standings_png
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from bot.tournament_flow import names, tables, tiebreak_labels
from cogs.tournament import words as tw
from cogs.tournament.posts import PUBLIC_THEME
from e2e.conftest import ManualClock
from e2e.test_languages import assert_no_english, in_language
from e2e.tourney import boards, finished, png, posts_with, resign_by_id, round_open


@pytest.mark.slow
async def test_a_spanish_server_runs_a_swiss_round_and_its_standings_without_english(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path, clock: ManualClock
) -> None:
    await sandbox.set_guild_locale("es-ES")
    dave = sandbox.add_member("dave")
    alice.locale, bob.locale, carol.locale, dave.locale = "es-419", "es-ES", "ja", "ja"
    everyone = [alice, bob, carol, dave]
    await sandbox.grant(alice, "manage_guild")

    # Refusals, each in the member's own language: not an organiser, no tournament here.
    refused = await sandbox.user(bob).slash("tournament", "create", name="Mía", game="veloop", format="swiss")
    assert refused.ephemeral and in_language(refused.content, "es"), refused.content
    nothing = await sandbox.user(carol).slash("tournament", "info")
    assert nothing.ephemeral and in_language(nothing.content, "ja"), nothing.content

    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Copa de Otoño", game="veloop", format="swiss", rounds=2, time="1d", settings="5"
    )
    assert not announcement.ephemeral and in_language(announcement.content, "es"), announcement.content
    join = words("es")("tournament.join.label")
    assert [b["label"] for b in announcement.buttons] == [join, words("es")("tournament.leave.label")]
    for member in everyone:
        cursor = sandbox.cursor()
        await sandbox.user(member).click(announcement, join)
        said = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.ephemeral, after=cursor)
        language = "ja" if member.locale == "ja" else "es"
        assert said.visible_to == member.id and in_language(said.content, language), said.content
    again = await sandbox.user(dave).click(announcement, join)
    assert again.ephemeral and in_language(again.content, "ja"), again.content  # already entered, in Japanese

    started = await sandbox.user(alice).slash("tournament", "start")
    assert started.ephemeral and in_language(started.content, "es"), started.content
    members = {m.id: m for m in everyone}
    threads: list[int] = []
    for number in (1, 2):
        found = await round_open(sandbox, db_path, 1, number)
        for b in found:
            assert b.thread_id is not None
            threads.append(b.thread_id)
            await resign_by_id(sandbox, members[b.black], b.thread_id, "veloop")
        if number == 1:
            table = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "standings.png" in m.files)
            assert table.embeds and in_language(str(table.embeds[0].get("title")), "es"), table.embeds
            assert png(table, "standings.png").width >= 800
    await finished(sandbox, db_path, 1)
    podium = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "podium.png" in m.files)
    assert in_language(podium.content, "es") and podium.content.startswith("🏆"), podium.content
    assert len(posts_with(sandbox, sandbox.channel_id, "standings.png")) == 2, "after round 1, and the final table"
    assert len(boards(db_path, 1)) == 4

    # The final standings' image is drawn with the Spanish catalogue's words (and would differ in English).
    final = posts_with(sandbox, sandbox.channel_id, "standings.png")[-1]
    snap = await bot.store.snapshot(1)
    [(_, rows)] = tables(snap)

    def drawn(language: str) -> bytes:
        w = words(language)
        return standings_png(
            rows,
            names(snap),
            title=tw.standings_title(w, snap.info, 2, True),
            tiebreak_labels=[tw.tiebreak_short(w, label) for label in tiebreak_labels(snap.info)],
            theme=PUBLIC_THEME,
            withdrawn=(),
            words=tw.image_words(w),
        )

    assert final.files["standings.png"] == drawn("es") != drawn("en")
    # Asked privately, the standings (and their image) come in the member's own language.
    mine = await sandbox.user(carol).slash("tournament", "standings", tournament=1)
    assert mine.ephemeral and in_language(mine.embeds[-1]["footer"]["text"], "ja"), mine.embeds
    assert mine.files["standings.png"] == drawn("ja")

    read = assert_no_english(sandbox, everyone, [sandbox.channel_id, *threads])
    assert read > 20, read
