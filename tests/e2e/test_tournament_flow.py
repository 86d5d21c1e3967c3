"""Tournaments end to end, through the fake Discord: sign-up with the button, rounds with a thread and a game
per pairing, results from the games, standings and the podium."""

from __future__ import annotations

import csv
import io
import random
import sqlite3
from pathlib import Path

import pytest
from tournaments import tourney_oracle as oracle

from bot.client import VeletasBot
from bot.i18n import words
from bot.render.tournament import standings_png
from bot.rules.veloop import Game
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from bot.tournament_flow import names, tables, tiebreak_labels
from bot.tournaments import Player
from cogs.tournament import words as tw
from cogs.tournament.posts import PUBLIC_THEME
from e2e.conftest import Factory, ManualClock
from e2e.tourney import (
    Board,
    Record,
    boards,
    csv_rows,
    finished,
    png,
    posts_with,
    resign_in,
    round_open,
    rounds_stored,
    status,
    thread_count,
)
from e2e.tourney import byes as db_byes
from e2e.tourney import players as db_players


@pytest.mark.slow
async def test_a_small_swiss_runs_from_sign_up_to_podium(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path, clock: ManualClock
) -> None:
    await sandbox.grant(alice, "manage_guild")
    dave = sandbox.add_member("dave")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Winter Swiss", game="veloop", format="swiss", rounds=3, time="1d", settings="5"
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
            cursor = sandbox.cursor()
            await resign_in(sandbox, members[b.black], b.thread_id, "veloop")
            final = await sandbox.wait_for_message(
                b.thread_id, lambda m: bool(m.embeds) and "resigned" in m.text(), after=cursor
            )
            # A pairing is played once: its final board offers no Rematch (only to dispute its result), and a forged
            # one is refused.
            assert [b["label"] for b in final.buttons] == ["Dispute result", "Review"], final.buttons
            game_id = int(final.embeds[0]["title"].split("#")[1].split(" ")[0])
            forged = {"type": 2, "style": 1, "label": "Rematch", "custom_id": f"veloop:rematch:{game_id}"}
            final.data["components"] = [{"type": 1, "components": [forged]}]
            refused = await sandbox.user(members[b.white], channel_id=b.thread_id).click(final, "Rematch")
            assert refused.ephemeral and "played once" in refused.content, refused.content
    await finished(sandbox, db_path, tid)
    podium = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "is over" in m.content)
    rows = csv_rows(podium)
    assert len(rows) == 4
    # Standings with their image after every round (the last one final), and the podium's image.
    tables = posts_with(sandbox, sandbox.channel_id, "standings.png")
    assert len(tables) == 3
    images = [png(m, "standings.png") for m in tables]
    assert all(i.width == 800 and i.height > 200 for i in images)
    assert len({i.tobytes() for i in images}) == 3, "each round's standings differ from the last"
    assert png(podium, "podium.png").size[0] == 800
    threads = [b.thread_id for b in boards(db_path, tid)]
    assert len(threads) == 6 and all(t is not None for t in threads)
    await sandbox.wait_until(
        lambda: all(sandbox.thread(t)["thread_metadata"]["archived"] for t in threads if t is not None),
        what="finished games' threads archived",
    )


def _oracle_table(record: Record) -> dict[int, tuple[float, float, float, float]]:
    t = record.tournament()
    points = oracle.scores(t)
    bh1, bh, sb = oracle.buchholz_cut1(t), oracle.buchholz(t), oracle.sonneborn_berger(t)
    return {pid: (points[pid], bh1[pid], bh[pid], sb[pid]) for pid in points}


@pytest.mark.slow
async def test_a_40_player_swiss_of_7_rounds_with_a_drop_a_no_show_and_a_late_joiner(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    rng = random.Random(7)
    await sandbox.grant(alice, "manage_guild")
    field = [sandbox.add_member(f"p{i:02d}") for i in range(1, 41)]
    members = {m.id: m for m in field}
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Big Swiss", game="veloop", format="swiss", rounds=7, time="1d", settings="5"
    )
    tid = 1
    for member in field[:39]:
        await sandbox.user(member).click(announcement, "Join")
    assert "39: " in next(f["value"] for f in announcement.embeds[0]["fields"] if f["name"] == "Players")
    # Twenty threads go out at once when the round starts: Discord's rate limit answers 429 on some of them.
    limited = sandbox.fail("POST", r"^/channels/\d+/threads$", 429, retry_after=0.05, times=3)
    paced = sandbox.rate_limit("POST", r"^/channels/\d+/threads$", limit=10, per=0.5)
    await sandbox.user(alice).slash("tournament", "start")
    record = Record("swiss", 7)
    entered = {pid: (seed, joined) for pid, _, seed, joined, _ in db_players(db_path, tid)}
    assert len(entered) == 39 and sorted(s for s, _ in entered.values()) == list(range(1, 40))
    late, dropped, absent = field[39], field[4].id, 0
    left_at: dict[int, int] = {}
    all_byes: list[tuple[int, int, str]] = []
    for number in range(1, 8):
        found = await round_open(sandbox, db_path, tid, number)
        if number == 1:
            assert limited.hits == 3, "the rate limit was met and waited out"
            assert paced.served == 19 and paced.limited == 0, "paced by the bucket's headers, never past it"
            assert len(found) == 19 and thread_count(db_path, tid) == 19
            assert len({t["id"] for t in sandbox.threads(sandbox.channel_id)}) == 19, "no thread twice"
        labels = [b["label"] for b in sandbox.message(announcement.id).buttons]
        assert labels == (["Join", "Leave"] if number <= 3 else ["Leave"]), "late entries close as round 4 starts"
        games: list[tuple[int, int, str]] = []
        draw_board = rng.randrange(1, len(found) + 1)
        for b in found:
            if b.result is not None:
                games.append((b.white, b.black, b.result))
                continue
            assert b.thread_id is not None
            if number == 4 and absent == 0 and b.board == 3:
                # White makes a first move; Black never does: a no-show, paused (not withdrawn) from round 5 on.
                absent = b.black
                first = str(Game.new(5, "alternating").position.legal_moves()[0])
                await sandbox.user(members[b.white], channel_id=b.thread_id).slash("veloop", "move", move=first)
                continue
            if b.board == draw_board:
                await sandbox.user(alice).slash("tournament", "result", round=number, board=b.board, result="1/2-1/2")
                games.append((b.white, b.black, "1/2-1/2"))
                continue
            loser = rng.choice((b.white, b.black))
            await resign_in(sandbox, members[loser], b.thread_id, "veloop")
            games.append((b.white, b.black, "0-1" if loser == b.white else "1-0"))
            if number == 2 and b.board == 1:
                # The late joiner arrives while round 2 is played: in from round 3, with a ½-point bye for round 2.
                cursor = sandbox.cursor()
                await sandbox.user(late).click(announcement, "Join")
                said = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.ephemeral, after=cursor)
                assert "from the next round on" in said.content
            if number == 3 and b.board == 1:
                asked = await sandbox.user(members[dropped]).click(announcement, "Leave")
                assert asked.ephemeral and "Withdraw from **Big Swiss**?" in asked.content
                said = await sandbox.user(members[dropped]).click(asked, "Withdraw for good")
                assert "withdrew" in said.content and said.buttons == []
                left_at[dropped] = 4
        if number == 4:
            assert absent
            board_of = next(b for b in found if b.black == absent)
            clock.advance(24 * 60 + 1)
            bot.scheduler.wake()
            index = board_of.board - 1
            await sandbox.wait_until(
                lambda i=index: boards(db_path, tid, 4)[i].result is not None,  # type: ignore[misc]
                what="the no-show's forfeit",
            )
            assert boards(db_path, tid, 4)[index].result == "+-"
            games.append((board_of.white, board_of.black, "+-"))
        paired = {p for w, b, _ in games for p in (w, b)}
        round_byes: list[tuple[int, str]] = []
        for pid in members:
            joined = 3 if pid == late.id else 1
            active = joined <= number and (pid not in left_at or number < left_at[pid])
            if pid == late.id and number == 2:
                round_byes.append((pid, "half"))
            elif pid == absent and number >= 5:
                round_byes.append((pid, "zero"))  # paused: never pressed Rejoin
            elif active and pid not in paired:
                round_byes.append((pid, "pairing"))
        assert len(round_byes) <= (2 if number == 2 else 1)
        all_byes += [(number, p, k) for p, k in round_byes]
        record.add_round(number, games, round_byes)
    await finished(sandbox, db_path, tid)
    assert sorted(db_byes(db_path, tid)) == sorted(all_byes)
    for pid, _, seed, joined, left in db_players(db_path, tid):
        record.players[pid] = Player(pid, 1500, seed, joined, left)
    assert record.players[late.id].joined == 3 and record.players[dropped].left == 4
    assert record.players[absent].left is None, "a no-show is not a withdrawal"
    podium = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "is over" in m.content)
    rows = csv_rows(podium)
    expected = _oracle_table(record)
    assert len(rows) == 40
    got = {
        int(r["player"]): (
            float(r["points"]),
            float(r["Buchholz cut 1"]),
            float(r["Buchholz"]),
            float(r["Sonneborn-Berger"]),
        )
        for r in rows
    }
    assert got == expected
    keys = [got[int(r["player"])] for r in rows]
    assert keys == sorted(keys, reverse=True), "ranked by points, then the tie-breaks in order"
    assert any(name.endswith(".trf") for name in podium.files)
    posted = [
        m
        for m in sandbox.messages(sandbox.channel_id)
        if m.embeds and "standings after round" in m.embeds[0].get("title", "")
    ]
    assert len(posted) == 6
    final = [
        m
        for m in sandbox.messages(sandbox.channel_id)
        if m.embeds and "final standings" in m.embeds[0].get("title", "")
    ]
    assert len(final) == 1 and sum(e["description"].count("\n") + 1 for e in final[0].embeds) == 40
    # Its image: the whole field of 40 in one picture, the one who left marked as withdrawn.
    snap = await bot.store.snapshot(tid)
    [(_, table)] = tables(snap)
    gone = {e.user_id for e in snap.players if e.left_round is not None}
    assert gone == {dropped}

    def drawn(withdrawn: set[int]) -> bytes:
        w = words("en")
        return standings_png(
            table,
            names(snap),
            title=tw.standings_title(w, snap.info, 7, True),
            tiebreak_labels=[tw.tiebreak_short(w, label) for label in tiebreak_labels(snap.info)],
            theme=PUBLIC_THEME,
            withdrawn=withdrawn,
            words=tw.image_words(w),
        )

    image = final[-1].files.get("standings.png", b"")
    assert image == drawn(gone) != drawn(set()), "the posted image marks exactly the withdrawn players"
    assert png(final[-1], "standings.png").height > 40 * 20, "forty rows"
    # The crosstable with it: the forty rows on one image; its CSV agrees with the oracle round by round.
    assert png(final[-1], "crosstable.png").height > 40 * 20
    cross_csv = next(name for name in podium.files if name.endswith("-crosstable.csv"))
    cross = list(csv.DictReader(io.StringIO(podium.files[cross_csv].decode())))
    assert [int(r["player"]) for r in cross] == [int(r["player"]) for r in rows], "rows in standings order"
    number = {int(r["player"]): r["number"] for r in cross}
    for r in cross:
        pid = int(r["player"])
        assert sum(float(r[f"result {n}"] or 0) for n in range(1, 8)) == float(r["points"]) == expected[pid][0]
        for n, rnd in enumerate(record.rounds, start=1):
            game = next((g for g in rnd.games if pid in (g.white, g.black)), None)
            if game is not None:
                other = game.black if game.white == pid else game.white
                assert (r[f"opponent {n}"], r[f"colour {n}"]) == (number[other], "w" if game.white == pid else "b")


async def _sign_up(
    sandbox: FakeDiscord, organiser: Member, count: int, **options: object
) -> tuple[Message, list[Member]]:
    await sandbox.grant(organiser, "manage_guild")
    field = [sandbox.add_member(f"q{i:02d}") for i in range(1, count + 1)]
    announcement = await sandbox.user(organiser).slash("tournament", "create", **options)
    assert not announcement.ephemeral, announcement.content
    for member in field:
        await sandbox.user(member).click(announcement, "Join")
    return announcement, field


async def _play_out(
    sandbox: FakeDiscord, found: list[Board], members: dict[int, Member], rng: random.Random, group: str
) -> list[tuple[int, int, str]]:
    games = []
    for b in found:
        if b.result is not None:
            games.append((b.white, b.black, b.result))
            continue
        assert b.thread_id is not None
        loser = rng.choice((b.white, b.black))
        await resign_in(sandbox, members[loser], b.thread_id, group)
        games.append((b.white, b.black, "0-1" if loser == b.white else "1-0"))
    return games


@pytest.mark.slow
async def test_a_9_player_round_robin_of_veletas_plays_everyone_once_with_a_rest_each_round(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path
) -> None:
    rng = random.Random(9)
    announcement, field = await _sign_up(
        sandbox, alice, 9, name="Autumn RR", game="veletas", format="round_robin", time="3d", settings="small"
    )
    members = {m.id: m for m in field}
    fmt = next(f["value"] for f in announcement.embeds[0]["fields"] if f["name"] == "Format")
    assert fmt == "round robin, divisions of at most 16", "nine players play one table"
    await sandbox.user(alice).slash("tournament", "start")
    record = Record("round_robin", 9)
    met: list[frozenset[int]] = []
    for number in range(1, 10):
        found = await round_open(sandbox, db_path, 1, number)
        assert len(found) == 4
        games = await _play_out(sandbox, found, members, rng, "veletas")
        met += [frozenset((w, b)) for w, b, _ in games]
        resting = [p for p in members if p not in {x for w, b, _ in games for x in (w, b)}]
        assert len(resting) == 1
        record.add_round(number, games, [(resting[0], "rest")])
    await finished(sandbox, db_path, 1)
    assert len(met) == 36 and len(set(met)) == 36, "each pair met exactly once"
    for pid, _, seed, joined, left in db_players(db_path, 1):
        record.players[pid] = Player(pid, 1500, seed, joined, left)
    t = record.tournament()
    points, sb = oracle.scores(t), oracle.sonneborn_berger(t)
    wins = dict.fromkeys(members, 0.0)
    for w, b, result in (g for r in t.rounds for g in ((x.white, x.black, x.result) for x in r.games)):
        wins[w if result == "1-0" else b] += 1.0
    podium = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "is over" in m.content)
    rows = csv_rows(podium)
    assert {int(r["player"]): (float(r["points"]), float(r["Sonneborn-Berger"]), float(r["wins"])) for r in rows} == {
        pid: (points[pid], sb[pid], wins[pid]) for pid in members
    }
    assert not any(name.endswith(".trf") for name in podium.files), "TRF is for a Swiss"


@pytest.mark.slow
async def test_a_13_player_double_elimination_seeded_by_rating_ends_with_everyone_but_the_champion_twice_beaten(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path
) -> None:
    rng = random.Random(13)
    await sandbox.grant(alice, "manage_guild")
    field = [sandbox.add_member(f"e{i:02d}") for i in range(1, 14)]
    ratings = {m.id: 1200 + 37 * ((i * 5) % 13) for i, m in enumerate(field)}
    with sqlite3.connect(db_path) as db:
        for pid, value in ratings.items():
            db.execute(
                "INSERT INTO ratings (scope, game, settings, user_id, value, deviation, volatility, games) "
                "VALUES (?, 'veloop', 'board=5,protocol=122', ?, ?, 80, 0.06, 20)",
                (sandbox.guild_id, pid, value),
            )
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Cup", game="veloop", format="double_elimination", time="1d", settings="5"
    )
    for member in field:
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(alice).slash("tournament", "start")
    members = {m.id: m for m in field}
    seeds = {pid: seed for pid, _, seed, _, _ in db_players(db_path, 1)}
    assert sorted(seeds, key=seeds.__getitem__) == sorted(ratings, key=lambda p: (-ratings[p], p)), "seeded by rating"
    losses = dict.fromkeys(members, 0)
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
        for w, b, result in await _play_out(sandbox, found, members, rng, "veloop"):
            losses[b if result == "1-0" else w] += 1
    await finished(sandbox, db_path, 1)
    podium = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "is over" in m.content)
    rows = csv_rows(podium)
    champion = int(next(r["player"] for r in rows if r["place"] == "1"))
    assert all(n == 2 for pid, n in losses.items() if pid != champion), losses
    assert losses[champion] <= 1
    assert len(rows) == 13 and sorted(int(r["place"]) for r in rows)[:2] == [1, 2]
    assert "🥇" in podium.content and "🥈" in podium.content and "🥉" in podium.content


@pytest.mark.slow
async def test_a_restart_mid_round_then_the_deadline_adjudicates_the_game_still_running(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, factory: Factory, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    bot = await sandbox_runner.start(factory, sync=False)
    _, field = await _sign_up(
        sandbox,
        alice,
        4,
        name="Night Swiss",
        game="veloop",
        format="swiss",
        rounds=2,
        time="1d",
        settings="5, alternating",
        round_minutes=60,
    )
    members = {m.id: m for m in field}
    await sandbox.user(alice).slash("tournament", "start")
    found = await round_open(sandbox, db_path, 1, 1)
    first, second = found
    assert first.thread_id is not None and second.thread_id is not None
    await resign_in(sandbox, members[first.black], first.thread_id, "veloop")
    # Both players of the other game move once; then the bot goes down and comes back mid-round.
    game = Game.new(5, "alternating")
    for player in (second.white, second.black):
        move = str(game.position.legal_moves()[0])
        moved = await sandbox.user(members[player], channel_id=second.thread_id).slash("veloop", "move", move=move)
        assert not moved.ephemeral, moved.content
        game = game.play(move)
        clock.advance(1)
    bot = await sandbox_runner.restart(factory)
    assert isinstance(bot, VeletasBot)
    assert rounds_stored(db_path, 1) == 1 and boards(db_path, 1, 1)[1].result is None
    await sandbox.wait_until(lambda: bot.scheduler._last_alive > 0, what="the scheduler")
    cursor = sandbox.cursor()
    clock.advance(61)
    bot.scheduler.wake()
    final = await sandbox.wait_for_message(
        second.thread_id, lambda m: bool(m.embeds) and "adjudication" in m.text(), after=cursor
    )
    assert f"<@{second.black}> wins" in final.embeds[0]["description"], "more time left on the clock wins"
    assert boards(db_path, 1, 1)[1].result == "0-1"
    found = await round_open(sandbox, db_path, 1, 2)
    assert rounds_stored(db_path, 1) == 2 and len(found) == 2
    for b in found:
        assert b.thread_id is not None
        await resign_in(sandbox, members[b.white], b.thread_id, "veloop")
    await finished(sandbox, db_path, 1)
    assert len(sandbox.threads(sandbox.channel_id)) == 4


@pytest.mark.slow
async def test_a_big_round_robin_is_played_in_even_divisions_each_with_its_own_table_and_podium(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path
) -> None:
    rng = random.Random(10)
    _, field = await _sign_up(
        sandbox, alice, 10, name="League", game="veloop", format="round_robin", settings="5", division_size=5
    )
    members = {m.id: m for m in field}
    await sandbox.user(alice).slash("tournament", "start")
    met: list[frozenset[int]] = []
    for number in range(1, 6):
        found = await round_open(sandbox, db_path, 1, number)
        assert len(found) == 4 and {b.match for b in found} == {"Division 1", "Division 2"}
        met += [frozenset((w, b)) for w, b, _ in await _play_out(sandbox, found, members, rng, "veloop")]
    await finished(sandbox, db_path, 1)
    assert rounds_stored(db_path, 1) == 5
    seeds = {pid: seed for pid, _, seed, _, _ in db_players(db_path, 1)}
    snake = {pid: ("A" if (seeds[pid] - 1) % 4 in (0, 3) else "B") for pid in seeds}
    assert all(len({snake[p] for p in pair}) == 1 for pair in met), "games only within a division (snake-dealt seeds)"
    assert len(met) == len(set(met)) == 20, "each pair of a division met once"
    podium = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "is over" in m.content)
    assert "**Division 1**" in podium.content and "**Division 2**" in podium.content
    rows = csv_rows(podium)
    assert sorted(r["division"] for r in rows) == ["1"] * 5 + ["2"] * 5
    for division in ("1", "2"):
        group = {int(r["player"]) for r in rows if r["division"] == division}
        assert len({snake[p] for p in group}) == 1
    final = next(m for m in sandbox.messages(sandbox.channel_id) if m.embeds and "final standings" in m.text())
    assert "**Division 2**" in final.embeds[0]["description"]
