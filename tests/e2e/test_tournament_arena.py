"""Arena tournaments end to end: a 30-player arena from sign-up to podium on a simulated clock, with berserk and
streaks; a restart mid-arena; and the refusals an arena makes privately."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.rules.veloop import Game
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import Factory, ManualClock
from e2e.tourney import Board, boards, finished, png, resign_in, status

GROUP = "veloop"


def opening(count: int) -> list[str]:
    """The first ``count`` turns of an alternating 5×5 Veloop game, each the first legal move."""
    game, turns = Game.new(5, "alternating"), []
    for _ in range(count):
        turn = str(game.position.legal_moves()[0])
        turns.append(turn)
        game = game.play(turn)
    return turns


def expected_points(outcomes: list[tuple[str, bool, int]]) -> int:
    """The test's own account of Lichess's arena scoring: (outcome, berserk, own moves) in the order played."""
    total, wins_in_a_row = 0, 0
    for outcome, berserk, moves in outcomes:
        base = {"win": 2, "draw": 1, "loss": 0}[outcome]
        total += base * (2 if wins_in_a_row >= 2 else 1) + (1 if berserk and outcome == "win" and moves >= 7 else 0)
        wins_in_a_row = wins_in_a_row + 1 if outcome == "win" else 0
    return total


def open_games(db_path: Path, tid: int) -> list[Board]:
    return [b for b in boards(db_path, tid) if b.result is None]


def settled(sandbox: FakeDiscord, db_path: Path, tid: int, berserk: bool = True) -> list[Board] | None:
    """The games on once the arena has nothing left to do (no pairing or opening step due) and every game made is
    on a board in its thread with its Berserk offer; None until then."""
    with sqlite3.connect(db_path) as db:
        steps = db.execute(
            "SELECT 1 FROM due WHERE tournament_id = ? AND key IN ('advance', 'play:1')", (tid,)
        ).fetchall()
    if steps:
        return None
    found = open_games(db_path, tid)
    for b in found:
        if b.state != "game" or b.thread_id is None:
            return None
        offered = any(m.buttons for m in sandbox.messages(b.thread_id) if "Berserk" in m.content)
        if (berserk and not offered) or not any(m.embeds for m in sandbox.messages(b.thread_id)):
            return None
    return found


async def games_on(sandbox: FakeDiscord, db_path: Path, tid: int, berserk: bool = True) -> list[Board]:
    try:
        return await sandbox.wait_until(
            lambda: settled(sandbox, db_path, tid, berserk), timeout=20, what="the arena to settle"
        )
    except Exception:
        with sqlite3.connect(db_path) as db:
            print("DUE", db.execute("SELECT * FROM due").fetchall())
            print("PLAYERS", db.execute("SELECT user_id, seed, left_round, paused FROM tournament_players").fetchall())
        for b in open_games(db_path, tid):
            print("OPEN", b, [m.content[:30] for m in sandbox.messages(b.thread_id)] if b.thread_id else None)
        raise


def shown_name(member: Member) -> str:
    """The name the bot knows a member by (their global name, as the fake gives it)."""
    return member.name.title()


def leaderboards(sandbox: FakeDiscord) -> list[Message]:
    return [
        m
        for m in sandbox.messages(sandbox.channel_id, include_ephemeral=False)
        if m.embeds and "arena leaderboard" in m.embeds[0].get("title", "")
    ]


def berserk_offer(sandbox: FakeDiscord, thread_id: int) -> Message:
    return next(m for m in sandbox.messages(thread_id) if "Berserk" in m.content and m.buttons)


async def _create(
    sandbox: FakeDiscord, organiser: Member, count: int, **options: object
) -> tuple[Message, list[Member]]:
    await sandbox.grant(organiser, "manage_guild")
    field = [sandbox.add_member(f"a{i:02d}") for i in range(1, count + 1)]
    announcement = await sandbox.user(organiser).slash(
        "tournament", "create", name="Friday Arena", game=GROUP, format="arena", settings="5, alternating", **options
    )
    assert not announcement.ephemeral, announcement.content
    length = next(f["value"] for f in announcement.embeds[0]["fields"] if f["name"] == "Arena")
    minutes = options.get("round_minutes", 60)
    berserk = "No berserk." if options.get("berserk") == "no" else "Berserk allowed."
    assert length == f"{minutes} minutes; games started by then are played out. {berserk}", length
    for member in field:
        await sandbox.user(member).click(announcement, "Join")
    return announcement, field


@pytest.mark.slow
async def test_a_30_player_arena_runs_from_start_to_podium_with_berserk_and_streaks(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    # Discord's per-channel bucket on the channel's message edits: the leaderboard keeps to its pace, never a 429.
    edits = sandbox.rate_limit("PATCH", rf"/channels/{sandbox.channel_id}/messages/\d+$", limit=5, per=5.0)
    _, field = await _create(sandbox, alice, 30, time="45+5", round_minutes=30)
    members = {m.id: m for m in field}
    await sandbox.user(alice).slash("tournament", "start")
    tid = 1
    found = await games_on(sandbox, db_path, tid)
    assert len(found) == 15
    assert sorted(p for b in found for p in (b.white, b.black)) == sorted(members), "everyone paired at once"

    # The top-rated are equal (1500): the lowest id leads. The hero wins every game; their first one berserk.
    hero = field[0].id
    record: dict[int, list[tuple[str, bool, int]]] = {m: [] for m in members}
    opponents: dict[int, list[int]] = {m: [] for m in members}
    first = next(b for b in found if hero in (b.white, b.black))
    assert first.thread_id is not None
    offer = berserk_offer(sandbox, first.thread_id)
    villain = first.black if first.white == hero else first.white
    # Only the game's players, only before their first move, only once.
    stranger = next(m for m in members if m not in (hero, villain))
    refused = await sandbox.user(members[stranger], channel_id=first.thread_id).click(offer, "Berserk")
    assert refused.ephemeral and "Only the two players" in refused.content, refused.content
    before_berserk = sandbox.cursor()
    done = await sandbox.user(members[hero], channel_id=first.thread_id).click(offer, "Berserk")
    assert done.ephemeral and "half your time" in done.content, done.content
    again = await sandbox.user(members[hero], channel_id=first.thread_id).click(offer, "Berserk")
    assert again.ephemeral and "already" in again.content, again.content
    said = await sandbox.wait_for_message(first.thread_id, lambda m: "went berserk!" in m.content and not m.ephemeral)
    assert said.content == f"⚡ {shown_name(members[hero])} went berserk!"
    # The board is shown again with the hero's halved clock; a move is made on it.
    await sandbox.wait_for_message(first.thread_id, lambda m: bool(m.embeds), after=before_berserk)
    # Seven moves each (the first seat, the pairing's white, moves first), then the villain resigns.
    seats = (first.white, first.black)
    for ply, turn in enumerate(opening(14)):
        mover = seats[ply % 2]
        moved = await sandbox.user(members[mover], channel_id=first.thread_id).slash(GROUP, "move", move=turn)
        assert not moved.ephemeral, (ply, moved.content)
        if ply == 1:
            late = await sandbox.user(members[villain], channel_id=first.thread_id).click(offer, "Berserk")
            assert late.ephemeral and "before your first move" in late.content, late.content
    with sqlite3.connect(db_path) as db:
        clock_row = db.execute("SELECT clock_bare FROM games WHERE id = ?", (first.game_id,)).fetchone()
    assert clock_row[0] == ("first" if hero == first.white else "second"), "the hero plays without increment"

    async def finish_game(b: Board) -> None:
        assert b.thread_id is not None
        # The hero wins every game; elsewhere the higher id loses, so the lower ones build streaks too.
        loser = (b.black if b.white == hero else b.white) if hero in (b.white, b.black) else max(b.white, b.black)
        winner = b.white if loser == b.black else b.black
        await resign_in(sandbox, members[loser], b.thread_id, GROUP)
        moves = 7 if b.pairing_id == first.pairing_id else 0
        record[winner].append(("win", b.pairing_id == first.pairing_id and winner == hero, moves))
        record[loser].append(("loss", False, moves))
        opponents[winner].append(loser)
        opponents[loser].append(winner)

    await finish_game(first)
    for b in found:
        if b.pairing_id != first.pairing_id:
            await finish_game(b)
    # Three more passes over the games on: a player is paired again as soon as someone else is free (never the
    # opponent just met); the hero's game ends first each time, so the hero plays once a pass.
    for _ in range(3):
        on = await games_on(sandbox, db_path, tid)
        assert len(on) >= 14, "at most the two who just met wait"
        on.sort(key=lambda b: hero not in (b.white, b.black))
        for b in on:
            await finish_game(b)
    # Each game on gets under way (both sides' first turns), so at the end its clock runs, not a first-move window.
    for b in await games_on(sandbox, db_path, tid):
        for ply, turn in enumerate(opening(2)):
            mover = (b.white, b.black)[ply % 2]
            moved = await sandbox.user(members[mover], channel_id=b.thread_id).slash(GROUP, "move", move=turn)
            assert not moved.ephemeral, moved.content
    # The arena's time is up: nobody is paired after it; the games on are played out.
    paired_before = len(boards(db_path, tid))
    clock.advance(31)
    assert bot.scheduler is not None
    bot.scheduler.wake()
    await sandbox.wait_until(
        lambda: (
            not any(
                r for r in sqlite3.connect(db_path).execute("SELECT 1 FROM due WHERE key = 'deadline:1'").fetchall()
            )
        ),
        what="the arena's end to be handled",
    )
    assert status(db_path, tid) == "running", "games started before the end are played out"
    for b in open_games(db_path, tid):
        await finish_game(b)
    await finished(sandbox, db_path, tid)
    assert len(boards(db_path, tid)) == paired_before, "nobody paired after the end"

    for player, games in opponents.items():
        assert len(games) >= 3, (player, games)
        assert all(a != b for a, b in itertools.pairwise(games)), f"an immediate rematch for {player}"
    points = {m: expected_points(r) for m, r in record.items()}
    assert len(record[hero]) == 5
    assert points[hero] == 3 + 2 + 4 * 3, "a berserk win, a win, then three on a streak"
    podium = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "podium.png" in m.files)
    assert png(podium, "podium.png").size[0] == 800
    assert shown_name(members[hero]) in podium.content
    # One leaderboard, edited in place, whose final lines agree with the test's own account.
    board_posts = leaderboards(sandbox)
    assert len(board_posts) == 1, "the leaderboard is edited, never posted again"
    final = board_posts[0]
    await sandbox.wait_until(lambda: "is over" in final.embeds[0]["fields"][0]["value"], what="the final leaderboard")
    assert final.edited
    assert final.buttons == []
    assert edits.limited == 0 and edits.busiest <= 5 and edits.served >= 2, (edits.served, edits.busiest)
    lines = final.embeds[0]["description"].split("\n")
    assert len(lines) == 30
    shown: dict[str, int] = {}
    for line in lines:
        name = line.split("**")[1]
        shown[name] = int(line.split("**: ")[1].split(" pts")[0])
    assert shown == {shown_name(members[m]): p for m, p in points.items()}
    hero_line = next(line for line in lines if f"**{shown_name(members[hero])}**" in line)
    assert hero_line.startswith("`1.`") and "🔥" in hero_line and "⚡" in hero_line
    assert sum("🔥" in line for line in lines) == sum(
        1 for r in record.values() if len(r) >= 2 and r[-1][0] == r[-2][0] == "win"
    )


@pytest.mark.slow
async def test_a_restart_mid_arena_keeps_scores_and_pause_and_pairs_whoever_waits(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, factory: Factory, alice: Member, db_path: Path
) -> None:
    bot = await sandbox_runner.start(factory, sync=False)
    bot.get_cog("Tournaments").leaderboard_pace = 0.05  # type: ignore[union-attr]
    _, field = await _create(sandbox, alice, 6, time="45+5", round_minutes=30)
    members = {m.id: m for m in field}
    await sandbox.user(alice).slash("tournament", "start")
    tid = 1
    g1, g2, g3 = await games_on(sandbox, db_path, tid)
    board_post = await sandbox.wait_until(lambda: next(iter(leaderboards(sandbox)), None), what="the leaderboard")
    # g1 ends: its two players wait rather than meet again while the others play.
    assert g1.thread_id is not None
    await resign_in(sandbox, members[g1.black], g1.thread_id, GROUP)
    assert [b.pairing_id for b in await games_on(sandbox, db_path, tid)] == [g2.pairing_id, g3.pairing_id]
    # g1's loser pauses: out of the pool, across the restart.
    paused = await sandbox.user(members[g1.black], channel_id=sandbox.channel_id).click(board_post, "Pause")
    assert paused.ephemeral and "You are paused" in paused.content, paused.content

    bot = await sandbox_runner.restart(factory)
    bot.get_cog("Tournaments").leaderboard_pace = 0.05  # type: ignore[union-attr]
    assert g2.thread_id is not None
    await resign_in(sandbox, members[g2.black], g2.thread_id, GROUP)
    on = await games_on(sandbox, db_path, tid)
    # g1's winner and g2's two players wait (g1's loser is paused): the two winners meet, g2's loser waits.
    new = [b for b in on if b.pairing_id not in (g3.pairing_id,)]
    assert len(new) == 1 and {new[0].white, new[0].black} == {g1.white, g2.white}, new
    # The paused player comes back after the restart and is paired with the one left waiting.
    back = await sandbox.user(members[g1.black], channel_id=sandbox.channel_id).click(board_post, "Back in")
    assert back.ephemeral and "You are back" in back.content, back.content
    on = await games_on(sandbox, db_path, tid)
    assert len(on) == 3 and any(g1.black in (b.white, b.black) for b in on)
    # The same leaderboard message, edited after the restart, with the wins stored before it.
    await sandbox.wait_until(
        lambda: all(
            f"**{shown_name(members[w])}**: 2 pts" in board_post.embeds[0]["description"] for w in (g1.white, g2.white)
        ),
        what="the leaderboard to show both wins",
    )
    assert len(leaderboards(sandbox)) == 1
    # Its standings are the leaderboard, privately; it has no rounds to explain or pair again.
    standings = await sandbox.user(members[g3.white]).slash("tournament", "standings")
    assert standings.ephemeral and standings.embeds[0]["description"] == board_post.embeds[0]["description"]
    why = await sandbox.user(members[g3.white]).slash("tournament", "pairings")
    assert why.ephemeral and "An arena has no rounds" in why.content, why.content
    repair = await sandbox.user(alice).slash("tournament", "repair", round=1)
    assert repair.ephemeral and "An arena has no rounds" in repair.content, repair.content
    # Someone deletes the leaderboard: the next change posts it afresh, once.
    await sandbox.rest.remove_message(board_post)
    assert g3.thread_id is not None
    await resign_in(sandbox, members[g3.black], g3.thread_id, GROUP)
    fresh = await sandbox.wait_until(lambda: next(iter(leaderboards(sandbox)), None), what="a new leaderboard")
    await sandbox.wait_until(
        lambda: f"**{shown_name(members[g3.white])}**: 2 pts" in fresh.embeds[0]["description"],
        what="the new leaderboard to show g3's win",
    )
    assert len(leaderboards(sandbox)) == 1 and fresh.id != board_post.id
    assert [e.status for e in sandbox.take_errors()] == [404], "one edit of the deleted message"


@pytest.mark.slow
async def test_an_arena_without_berserk_a_late_entry_and_a_result_set_by_the_organiser(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path
) -> None:
    await sandbox.grant(alice, "manage_guild")
    refused = await sandbox.user(alice).slash(
        "tournament", "create", name="Swiss", game=GROUP, format="swiss", berserk="no"
    )
    assert refused.ephemeral and "for arenas only" in refused.content, refused.content
    announcement, field = await _create(sandbox, alice, 2, time="5+3", berserk="no")
    await sandbox.user(alice).slash("tournament", "start")
    game = await sandbox.wait_until(
        lambda: next((b for b in boards(db_path, 1) if b.state == "game" and b.thread_id is not None), None),
        what="the game",
    )
    assert game.thread_id is not None
    board = await sandbox.wait_for_message(game.thread_id, lambda m: bool(m.embeds))
    assert not any("Berserk" in m.content for m in sandbox.messages(game.thread_id))
    forged = {"type": 2, "style": 4, "label": "Berserk", "custom_id": f"arena:berserk:{game.game_id}"}
    board.data["components"] = [{"type": 1, "components": [forged]}]
    pressed = await sandbox.user(field[0], channel_id=game.thread_id).click(board, "Berserk")
    assert pressed.ephemeral and "turned off" in pressed.content, pressed.content
    with sqlite3.connect(db_path) as db:
        assert db.execute("SELECT clock_bare FROM games WHERE id = ?", (game.game_id,)).fetchone() == (None,)
    # A member enters while it runs, and waits; the organiser sets the game's result, which frees its players:
    # the newcomer meets the winner, and the loser (who just met the winner) waits.
    late = sandbox.add_member("late")
    cursor = sandbox.cursor()
    await sandbox.user(late).click(announcement, "Join")
    said = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.ephemeral, after=cursor)
    assert "You are entered" in said.content, said.content
    await sandbox.user(alice).slash("tournament", "result", round=1, board=1, result="1-0")
    on = await games_on(sandbox, db_path, 1, berserk=False)
    assert [{b.white, b.black} for b in on] == [{game.white, late.id}]


async def test_an_arena_refuses_a_correspondence_clock_privately(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member
) -> None:
    await sandbox.grant(alice, "manage_guild")
    refused = await sandbox.user(alice).slash(
        "tournament", "create", name="Slow Arena", game=GROUP, format="arena", time="3d"
    )
    assert refused.ephemeral and "live clock" in refused.content, refused.content
    assert not leaderboards(sandbox) and len(sandbox.messages(sandbox.channel_id, include_ephemeral=False)) == 0
