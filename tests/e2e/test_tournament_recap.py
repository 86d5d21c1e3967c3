"""A round's recap in the tournament's channel: once its last result is in, one post with one image says its upsets,
its longest game and its biggest confinement, exactly once even when Discord refused the first try; the last round's
recap goes with the end, before the final standings."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.i18n import words
from bot.rules.veletas import Game as Veletas
from bot.rules.veloop import Game
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import ManualClock
from e2e.table import split_setup
from e2e.test_languages import assert_no_english
from e2e.tourney import Board, finished, png, resign_in, round_open

POSTS = r"^/channels/{channel}/messages$"
RATINGS = {"alice": 1800, "bob": 1700, "carol": 1600, "dave": 1500}
SEED = 452  # a random 5×5 game that ends in 17 moves, Black fencing in one white stone


def public(sandbox: FakeDiscord) -> list[Message]:
    return sandbox.messages(sandbox.channel_id, include_ephemeral=False)


def recaps(sandbox: FakeDiscord) -> list[Message]:
    return [m for m in public(sandbox) if "recap.png" in m.files]


def posts_taken(db_path: Path) -> bool:
    with sqlite3.connect(db_path) as db:
        row = db.execute("SELECT claimed_by FROM due WHERE key = 'posts'").fetchone()
    return row is not None and row[0] is not None


def rated(db_path: Path, guild_id: int, members: list[Member]) -> None:
    with sqlite3.connect(db_path) as db:
        for m in members:
            db.execute(
                "INSERT INTO ratings (scope, game, settings, user_id, value, deviation, volatility, games) "
                "VALUES (?, 'veloop', 'board=5,protocol=122', ?, ?, 80, 0.06, 20)",
                (guild_id, m.id, RATINGS[m.name]),
            )


def entrant_names(db_path: Path) -> dict[int, str]:
    """The players' names as the tournament keeps them (their display names when they joined)."""
    with sqlite3.connect(db_path) as db:
        return {int(r[0]): str(r[1]) for r in db.execute("SELECT user_id, name FROM tournament_players")}


async def play_seed(sandbox: FakeDiscord, board: Board, members: dict[int, Member]) -> tuple[Game, Member]:
    """The seed's random game typed move by move in the board's thread, by whoever is to move (the first seat plays
    Black); returns the game as the rules see it and who typed its last move."""
    assert board.thread_id is not None
    rng = random.Random(SEED)
    game = Game.new(5, "122")
    last = members[board.white]
    while game.phase != "over":
        move = rng.choice(game.position.legal_moves())
        last = members[board.white if game.seat_to_act == "first" else board.black]
        answer = await sandbox.user(last, channel_id=board.thread_id).slash("veloop", "move", move=str(move))
        assert not answer.ephemeral, answer.content
        game = game.play(move)
    return game, last


@pytest.mark.slow
async def test_a_rounds_recap_is_posted_once_after_its_last_result_even_after_discord_refused_it(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path, clock: ManualClock
) -> None:
    dave = sandbox.add_member("dave")
    field = [alice, bob, carol, dave]
    members = {m.id: m for m in field}
    rated(db_path, sandbox.guild_id, field)
    await sandbox.grant(alice, "manage_guild")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Recap Cup", game="veloop", format="swiss", rounds=2, time="1d", settings="5"
    )
    for member in field:
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(alice).slash("tournament", "start")

    # Round 1: Dave (1500) beats his higher-rated opponent by resignation; the other board is played to a confinement.
    boards = await round_open(sandbox, db_path, 1, 1)
    upset_board = next(b for b in boards if dave.id in (b.white, b.black))
    played = next(b for b in boards if b is not upset_board)
    favourite = members[upset_board.white if upset_board.black == dave.id else upset_board.black]
    assert upset_board.thread_id is not None
    await resign_in(sandbox, favourite, upset_board.thread_id, "veloop")
    fault = sandbox.fail("POST", POSTS.format(channel=sandbox.channel_id), 403, code=50013, message="refused")
    game, mover = await play_seed(sandbox, played, members)
    outcome = game.outcome
    assert outcome is not None and outcome.termination == "confinement" and outcome.winner == "black"
    confined = len(game.position.confined.black) + len(game.position.confined.white)

    # The first try is refused; the posts step is given back and tried again on the bot's clock.
    await sandbox.wait_until(lambda: fault.hits == 1, what="the recap refused")
    await sandbox.wait_until(lambda: not posts_taken(db_path), what="the failed posts given back")
    clock.advance(1.1)
    bot.scheduler.wake()
    await round_open(sandbox, db_path, 1, 2)
    await sandbox.wait_until(lambda: [m for m in public(sandbox) if "round 2 pairings" in m.text()], what="round 2")
    await sandbox.settle()
    [recap] = recaps(sandbox)
    assert recap.content.startswith("📰 **Recap Cup**: round 1 recap"), recap.content
    shown = entrant_names(db_path)
    winner, loser = members[played.white], members[played.black]  # Black, the first seat, won

    def beat(board: Board, won: Member, lost: Member) -> tuple[int, str]:
        gap = RATINGS[lost.name] - RATINGS[won.name]
        line = (
            f"{shown[won.id]} ({RATINGS[won.name]}) beat {shown[lost.id]} ({RATINGS[lost.name]}) on board {board.board}"
        )
        return gap, line

    upsets = [beat(upset_board, dave, favourite)]
    if RATINGS[winner.name] < RATINGS[loser.name]:
        upsets.append(beat(played, winner, loser))
    expected = [line for _, line in sorted(upsets, key=lambda u: -u[0])]
    lines = recap.content.split("\n")
    assert lines[1:2] == ["**Upsets**"] and lines[2 : 2 + len(expected)] == expected, lines
    rest = lines[2 + len(expected) :]
    white, black = shown[played.white], shown[played.black]
    other = loser if mover is winner else winner
    assert rest == [
        f"**Longest game:** {white} vs {black} on board {played.board}, {len(game.turns)} turns",
        f"**Biggest confinement:** {shown[mover.id]} fenced in {confined} stone with turn {len(game.turns)} against "
        f"{shown[other.id]} on board {played.board}",
    ], rest
    image = png(recap, "recap.png")
    assert image.width == 800 and image.height > 300
    # Before round 2's standings and pairings.
    round_two = next(m for m in public(sandbox) if "standings after round 1" in m.text())
    assert recap.id < round_two.id

    # Round 2: both favourites resign before a move. Its recap says the upsets only (no game had a turn), and goes with
    # the end, before the final standings.
    for b in await round_open(sandbox, db_path, 1, 2):
        assert b.thread_id is not None
        higher = b.white if RATINGS[members[b.white].name] > RATINGS[members[b.black].name] else b.black
        await resign_in(sandbox, members[higher], b.thread_id, "veloop")
    await finished(sandbox, db_path, 1)
    await sandbox.settle()
    assert len(recaps(sandbox)) == 2, [m.content for m in recaps(sandbox)]
    last = recaps(sandbox)[1]
    assert last.content.startswith("📰 **Recap Cup**: round 2 recap\n**Upsets**\n"), last.content
    assert "Longest game" not in last.content and "confinement" not in last.content
    final = next(m for m in public(sandbox) if "final standings" in m.text())
    assert recap.id < round_two.id < last.id < final.id
    assert len(recaps(sandbox)) == 2 and fault.hits == 1


# A small-board Veletas game whose 30th turn, d2-c1/d2, claims the shooters on b1 and c1 at once for Black (the second
# seat: the first seat swapped to White at the pie choice), by a group of 3 stones; it wins the game.
TWO_CLAIMS = (
    "d6/f6", "swap", "b6,c5/e2", "d6-c6/a6", "c6-e4/e7", "f3", "c5-d5/d1", "d5-c6/c5", "e4-d5/a2", "b6-b1/c2",
    "b1-b3/c3", "d5-e5/f4", "c6-e4/e6", "b3-b4/b6", "e5-g5/f5", "e4-e3/e5", "e3-g1/e3", "b4-b1/b4", "g5-g4/g2",
    "b1-a1/b2", "a1-b1/a1", "g1-f1/f2", "g4-g5/g7", "g1", "g4", "g6", "f1-e1/f1", "e1-d2/e1", "d6", "d2-c1/d2",
)  # fmt: skip


@pytest.mark.slow
async def test_the_last_rounds_recap_goes_with_the_end_in_the_servers_language(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path
) -> None:
    """A two-player Veletas round robin on a Japanese server: its only round is its last, so its recap (the longest
    game and the biggest claim, read from the moves typed) comes with the end, before the final standings. A name
    written like markdown or a mention is shown as typed."""
    await sandbox.set_guild_locale("ja")
    bob = sandbox.add_member("**zed** <@123456789012345678>")
    alice.locale = bob.locale = "ja"
    await sandbox.grant(alice, "manage_guild")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="札幌杯", game="veletas", format="round_robin", time="1d", settings="small"
    )
    join = words("ja")("tournament.join.label")
    for member in (alice, bob):
        await sandbox.user(member).click(announcement, join)
    await sandbox.user(alice).slash("tournament", "start")
    [board] = await round_open(sandbox, db_path, 1, 1)
    assert board.thread_id is not None
    members = {alice.id: alice, bob.id: bob}
    seats = {"first": members[board.white], "second": members[board.black]}
    state = Veletas.new("small", "current")
    for text in TWO_CLAIMS:
        seat = state.seat_to_act
        assert seat is not None
        user = sandbox.user(seats[seat], channel_id=board.thread_id)
        if state.phase == "setup":
            answer = await user.slash("veletas", "setup", **split_setup(text))
        elif state.phase == "pie":
            answer = await user.slash("veletas", "pie", choice=text)
        else:
            answer = await user.slash("veletas", "move", move=text)
        assert not answer.ephemeral, answer.content
        state = state.play(text)
    assert state.phase == "over" and state.winner == "black"
    await finished(sandbox, db_path, 1)
    await sandbox.settle()
    [recap] = recaps(sandbox)
    shown = entrant_names(db_path)
    assert shown[bob.id] == "**Zed** <@123456789012345678>"
    escaped = {
        alice.id: shown[alice.id],
        bob.id: r"\*\*Zed\*\* <@" + "\u200b123456789012345678>",
    }  # as typed, pinging nobody
    white, black = escaped[board.white], escaped[board.black]
    assert recap.content.split("\n") == [
        "📰 **札幌杯** ラウンド1のふりかえり",
        f"**最長対局：** 1番卓の{white} 対 {black}、30手",
        f"**最大の獲得：** 1番卓、{black}が{white}戦の30手目で、3個の石のグループによりシューター2個（b1、c1）を獲得",
    ], recap.content
    assert png(recap, "recap.png").width == 800
    final = next(m for m in public(sandbox) if "standings.png" in m.files)
    assert recap.id < final.id
    assert assert_no_english(sandbox, [alice, bob], [sandbox.channel_id]) > 3
