"""No-shows in a live Swiss, end to end on a simulated clock: a player who never makes a first move loses by
forfeit, is paused (not paired) for the next round and told so privately, rejoins with one button, and plays
again; the button is refused to anyone else, and a forged one changes nothing."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.rules.veloop import Game
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import Factory, ManualClock
from e2e.table import pinged
from e2e.tourney import boards, byes, finished, players, posts_with, resign_in, round_open

FIRST_MOVE = str(Game.new(5, "alternating").position.legal_moves()[0])


def absent_flags(db_path: Path, tournament_id: int) -> dict[int, tuple[int, int]]:
    """(absent, notice owed) of every player."""
    with sqlite3.connect(db_path) as db:
        rows = db.execute(
            "SELECT user_id, absent, absent_notice FROM tournament_players WHERE tournament_id = ?", (tournament_id,)
        ).fetchall()
    return {int(r[0]): (int(r[1]), int(r[2])) for r in rows}


def field(message: Message, name: str) -> str:
    return next(f["value"] for f in message.embeds[0]["fields"] if f["name"] == name)


@pytest.mark.slow
async def test_a_live_swiss_no_show_is_paused_told_privately_rejoins_and_plays_round_3(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path, clock: ManualClock
) -> None:
    await sandbox.grant(alice, "manage_guild")
    dave = sandbox.add_member("dave")
    await sandbox.user(carol).slash("player", "notify", how="dm")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Blitz", game="veloop", format="swiss", rounds=3, time="1+0", settings="5"
    )
    for member in (alice, bob, carol, dave):
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(alice).slash("tournament", "start")
    tid = 1
    members = {m.id: m for m in (alice, bob, carol, dave)}

    # Round 1: on one board Black resigns; on the other (Carol's not) White moves and Black never comes.
    first_round = await round_open(sandbox, db_path, tid, 1)
    missed = next(b for b in first_round if carol.id not in (b.white, b.black))
    played = next(b for b in first_round if b is not missed)
    assert played.thread_id is not None and missed.thread_id is not None
    absent = members[missed.black]
    intro = next(m for m in sandbox.messages(missed.thread_id) if m.embeds)
    assert sorted(pinged(sandbox, intro)) == sorted([str(missed.white), str(missed.black)]), "both players called"
    assert f"First move: <@{missed.white}> has 30 seconds to make it" in field(intro, "Clock")
    await resign_in(sandbox, members[played.black], played.thread_id, "veloop")
    moved = await sandbox.user(members[missed.white], channel_id=missed.thread_id).slash(
        "veloop", "move", move=FIRST_MOVE
    )
    assert f"First move: {absent.mention} has 30 seconds to make it" in field(moved, "Clock")
    cursor = sandbox.cursor()
    clock.advance(0.6)  # Black's 30-second first-move window passes
    assert bot.scheduler is not None
    bot.scheduler.wake()
    final = await sandbox.wait_for_message(
        missed.thread_id, lambda m: bool(m.embeds) and "No-show" in m.text(), after=cursor
    )
    assert final.embeds[0]["description"].startswith(f"**No-show:** {absent.mention} did not make a first move")
    results = {b.pairing_id: b.result for b in boards(db_path, tid, 1)}
    assert (results[played.pairing_id], results[missed.pairing_id]) == ("1-0", "+-"), "a forfeit loss for Black"

    # Round 2: paused, not withdrawn: an absence (0 points) instead of a game, and told so in the channel.
    second_round = await round_open(sandbox, db_path, tid, 2)
    assert all(absent.id not in (b.white, b.black) for b in second_round), "paused: not paired"
    assert (2, absent.id, "zero") in byes(db_path, tid)
    assert next(p for p in players(db_path, tid) if p[0] == absent.id)[4] is None, "not withdrawn"
    notice = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "Rejoin" in m.content and bool(m.buttons))
    assert notice.content == (
        f"{absent.mention}, you are paused in **Blitz** and will not be paired in the next round. "
        "Press **Rejoin** to be paired again."
    )
    assert pinged(sandbox, notice) == [str(absent.id)], "the notice calls only the absent player"
    assert [b["custom_id"] for b in notice.buttons] == [f"tour:rejoin:{tid}:{absent.id}"]
    await sandbox.wait_until(lambda: absent_flags(db_path, tid)[absent.id] == (1, 0), what="the notice marked out")

    # Only that member may press it; a forged one (another tournament's id) is refused too; neither changes anything.
    other = next(m for m in members.values() if m.id != absent.id)
    refused = await sandbox.user(other).click(notice, "Rejoin")
    assert refused.ephemeral and refused.content == "This Rejoin button is for another player."
    standings = posts_with(sandbox, sandbox.channel_id, "standings.png")[-1]
    forged = {"type": 2, "style": 3, "label": "Rejoin", "custom_id": f"tour:rejoin:{tid + 41}:{absent.id}"}
    standings.data["components"] = [{"type": 1, "components": [forged]}]
    refused = await sandbox.user(absent).click(standings, "Rejoin")
    assert refused.ephemeral and refused.content == "This button does not belong to that tournament."
    assert absent_flags(db_path, tid)[absent.id] == (1, 0)

    rejoined = await sandbox.user(absent).click(notice, "Rejoin")
    assert rejoined.buttons == [], "the notice loses its button"
    said = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.ephemeral and "Welcome back" in m.content)
    assert said.content == "Welcome back to **Blitz**: you will be paired from the next round on."
    assert absent_flags(db_path, tid)[absent.id] == (0, 0)
    for b in second_round:
        if b.result is None:
            assert b.thread_id is not None
            await resign_in(sandbox, members[b.black], b.thread_id, "veloop")

    # Round 3: back in the pairings, and plays.
    third_round = await round_open(sandbox, db_path, tid, 3)
    mine = next(b for b in third_round if absent.id in (b.white, b.black))
    assert mine.thread_id is not None
    if mine.white != absent.id:
        await sandbox.user(members[mine.white], channel_id=mine.thread_id).slash("veloop", "move", move=FIRST_MOVE)
        turn = str(Game.new(5, "alternating").play(FIRST_MOVE).position.legal_moves()[0])
    else:
        turn = FIRST_MOVE
    played_now = await sandbox.user(absent, channel_id=mine.thread_id).slash("veloop", "move", move=turn)
    assert not played_now.ephemeral, played_now.content
    for b in third_round:
        if b.result is None:
            assert b.thread_id is not None
            await resign_in(sandbox, members[b.black], b.thread_id, "veloop")
    await finished(sandbox, db_path, tid)
    # Carol asked for direct messages: each of her games was announced to her once there (and in its thread).
    carols = [b for b in boards(db_path, tid) if carol.id in (b.white, b.black)]
    told = [m.content for m in sandbox.direct_messages(carol) if m.content.startswith("Your game in round")]
    assert len(told) == len(carols) >= 2, told
    assert [int(t.split()[4]) for t in told] == [b.round for b in carols]
    podium = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "is over" in m.content)
    trf = podium.files["blitz.trf"].decode()
    seed = next(p[2] for p in players(db_path, tid) if p[0] == absent.id)
    line = next(row for row in trf.splitlines() if row.startswith("001") and row[4:8].strip() == str(seed))
    results = re.findall(r"(\d+) ([wb-]) ([-+=01HFUZ])(?=\s|$)", line[91:])
    assert [code for _, _, code in results][:2] == ["-", "Z"], ("a forfeit loss, then an absence", line)
    assert results[2][1] in "wb" and results[2][2] in "10=", ("round 3 played over the board", line)


@pytest.mark.slow
async def test_a_paused_player_who_chose_direct_messages_is_told_there_with_the_rejoin_button(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path, clock: ManualClock
) -> None:
    await sandbox.grant(alice, "manage_guild")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Dash", game="veloop", format="swiss", rounds=2, time="1+0", settings="5"
    )
    for member in (alice, bob, carol):
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(alice).slash("tournament", "start")
    members = {m.id: m for m in (alice, bob, carol)}
    [game] = await round_open(sandbox, db_path, 1, 1)
    assert game.thread_id is not None
    absent = members[game.black]
    absent.locale = "es-419"
    await sandbox.user(absent).slash("player", "notify", how="dm")
    await sandbox.user(members[game.white], channel_id=game.thread_id).slash("veloop", "move", move=FIRST_MOVE)
    clock.advance(0.6)
    assert bot.scheduler is not None
    bot.scheduler.wake()
    # The scheduler acts on the missed window at once when woken, else at its next look (at most 30 s on).
    [notice] = await sandbox.wait_until(
        lambda: [m for m in sandbox.direct_messages(absent) if m.buttons], timeout=45, what="the notice by DM"
    )
    assert notice.content.startswith(
        "No hiciste tu primera jugada a tiempo en la ronda 1 de **Dash**, así que esa partida cuenta como derrota"
    ), notice.content
    assert [(b["label"], b["custom_id"]) for b in notice.buttons] == [("Volver a jugar", f"tour:rejoin:1:{absent.id}")]
    await sandbox.wait_until(lambda: absent_flags(db_path, 1)[absent.id] == (1, 0), what="the notice marked out")
    second = await round_open(sandbox, db_path, 1, 2)
    assert all(absent.id not in (b.white, b.black) for b in second) and (2, absent.id, "zero") in byes(db_path, 1)
    assert not [m for m in sandbox.messages(sandbox.channel_id) if m.buttons and "Rejoin" in m.content], (
        "told by direct message only"
    )


@pytest.mark.slow
async def test_a_pairings_direct_message_owed_at_a_restart_is_sent_once(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    factory: Factory,
    alice: Member,
    bob: Member,
    db_path: Path,
) -> None:
    """The bot stopped between a game's intro and the direct message it owed: the next run sends it, once."""
    bot = await sandbox_runner.start(factory, sync=False)
    assert isinstance(bot, VeletasBot)
    await sandbox.grant(alice, "manage_guild")
    await sandbox.user(bob).slash("player", "notify", how="dm")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Post", game="veloop", format="swiss", rounds=1, time="1d", settings="5"
    )
    for member in (alice, bob):
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(alice).slash("tournament", "start")
    [pairing] = await round_open(sandbox, db_path, 1, 1)
    assert pairing.thread_id is not None

    def told() -> list[str]:
        return [m.content for m in sandbox.direct_messages(bob) if m.content.startswith("Your game in round 1")]

    await sandbox.wait_until(lambda: len(told()) == 1, what="Bob's direct message")
    assert "of **Post** is ready: https://discord.com/channels/" in told()[0]

    def opening_due() -> bool:
        with sqlite3.connect(db_path) as db:
            return bool(db.execute("SELECT 1 FROM due WHERE key = 'play:1'").fetchall())

    await sandbox.wait_until(lambda: not opening_due(), what="the round's opening done")
    await sandbox_runner.stop()
    with sqlite3.connect(db_path) as db:  # as if the process had died after the intro, before the message
        db.execute("UPDATE tournament_pairings SET dms_owed = 1 WHERE id = ?", (pairing.pairing_id,))
    bot = await sandbox_runner.start(factory, sync=False)
    assert isinstance(bot, VeletasBot)
    await sandbox.wait_until(lambda: len(told()) == 2, what="the owed message sent after the restart")

    def owed() -> bool:
        with sqlite3.connect(db_path) as db:
            row = db.execute("SELECT dms_owed FROM tournament_pairings WHERE id = ?", (pairing.pairing_id,)).fetchone()
        return bool(row[0])

    await sandbox.wait_until(lambda: not owed(), what="the message marked sent")
    assert len([m for m in sandbox.messages(pairing.thread_id) if m.embeds]) == 1, "the game is not introduced twice"
    bot = await sandbox_runner.restart(factory, sync=False)
    assert isinstance(bot, VeletasBot) and bot.scheduler is not None
    await sandbox.wait_until(lambda: bot.scheduler is not None and bot.scheduler._last_alive > 0)
    await bot.scheduler.run_due()
    assert len(told()) == 2, "nothing owed: not sent again"


@pytest.mark.slow
async def test_a_swiss_game_whose_white_never_comes_is_claimed_by_black_and_only_white_is_paused(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path, clock: ManualClock
) -> None:
    """Round 1 of a live Swiss: on one board White never comes and Black claims the win (a forfeit, only White paused);
    on another nobody moves and nobody claims (a double no-show, both paused); the third is played."""
    await sandbox.grant(alice, "manage_guild")
    everyone = [alice, bob, carol, sandbox.add_member("dave"), sandbox.add_member("erin"), sandbox.add_member("frank")]
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Claims", game="veloop", format="swiss", rounds=2, time="1+0", settings="5"
    )
    for member in everyone:
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(alice).slash("tournament", "start")
    members = {m.id: m for m in everyone}
    claimed, unclaimed, played = await round_open(sandbox, db_path, 1, 1)
    assert claimed.thread_id is not None and unclaimed.thread_id is not None and played.thread_id is not None
    white, black = members[claimed.white], members[claimed.black]
    await resign_in(sandbox, members[played.black], played.thread_id, "veloop")

    cursor = sandbox.cursor()
    clock.advance(0.55)  # both Whites' 30-second first-move windows pass
    assert bot.scheduler is not None
    bot.scheduler.wake()
    offers = {}
    for board in (claimed, unclaimed):
        assert board.thread_id is not None
        offers[board.pairing_id] = await sandbox.wait_for_message(
            board.thread_id, lambda m: bool(m.buttons) and "No-show" in m.text(), after=cursor
        )
    offer = offers[claimed.pairing_id]
    assert [b["label"] for b in offer.buttons] == ["Claim the win"]
    assert offer.content == (
        f"{black.mention}, your opponent did not come: press **Claim the win** to take the game by forfeit."
    )
    assert pinged(sandbox, offer) == [str(black.id)], "only Black is called"
    assert [b.result for b in boards(db_path, 1, 1)] == [None, None, "1-0"], "nothing decided before the claim"
    refused = await sandbox.user(white).click(offer, "Claim the win")
    assert refused.ephemeral and refused.content.startswith("You did not make your first move in time")
    assert absent_flags(db_path, 1)[white.id] == (0, 0), "the refusal changed nothing"

    final = await sandbox.user(black).click(offer, "Claim the win")
    assert final.embeds[0]["description"].startswith(f"**No-show:** {white.mention} did not make a first move in time")
    flags = absent_flags(db_path, 1)
    assert flags[white.id][0] == 1 and flags[black.id] == (0, 0), "only the absent White is paused"
    assert [b.result for b in boards(db_path, 1, 1)] == ["-+", None, "1-0"], "a forfeit win for Black"

    cursor = sandbox.cursor()
    clock.advance(0.55)  # the other board's Black lets his own window pass too
    bot.scheduler.wake()
    assert unclaimed.thread_id is not None
    double = await sandbox.wait_for_message(
        unclaimed.thread_id, lambda m: bool(m.embeds) and "Double no-show" in m.text(), after=cursor
    )
    assert double.embeds[0]["description"].startswith("**Double no-show:**")
    assert [b.result for b in boards(db_path, 1, 1)] == ["-+", "--", "1-0"]

    second = await round_open(sandbox, db_path, 1, 2)
    paused = {white.id, unclaimed.white, unclaimed.black}
    assert all(not paused & {b.white, b.black} for b in second), "the absent are not paired"
    assert [(n, u) for n, u, kind in byes(db_path, 1) if kind == "zero"] == sorted((2, u) for u in paused)
    assert any(black.id in (b.white, b.black) for b in second) or (2, black.id, "pairing") in byes(db_path, 1), (
        "Black, who came, plays on"
    )
