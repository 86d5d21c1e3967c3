"""Puzzles end to end: ``/veloop puzzle`` and ``/veletas puzzle`` answer privately with the position and buttons; a
right line solves (rating up, streak 1) posting nothing; a wrong turn is refuted privately (rating down, streak 0);
Next gives another; everyone gets the same daily puzzle; Share is the one public post; what is not the member's
(a forged button, another member's puzzle) and an illegal turn are refused privately and change nothing."""

from __future__ import annotations

import io
import random
import re
import sqlite3
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from PIL import Image
from puzzle_positions import veletas_one, veloop_more, veloop_one, veloop_two, wrong_first

from bot import render
from bot.client import VeletasBot
from bot.i18n import words
from bot.puzzles.play import replay
from bot.puzzles.values import Puzzle
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from bot.sandbox.users import SandboxUser
from cogs._ai_pool import PooledAi
from cogs.puzzles import PUZZLE_FILE
from e2e.conftest import ManualClock, make_factory
from e2e.table import resign
from e2e.test_languages import assert_no_english, in_language
from e2e.test_veloop import start_veloop

MOVE_FIELD = "Your move, in notation"


def description(message: Message) -> str:
    return str(message.embeds[0]["description"])


def puzzle_id(message: Message) -> int:
    found = re.search(r"#([0-9]+)", str(message.embeds[0]["title"]))
    assert found is not None, message.embeds
    return int(found[1])


def labels(message: Message) -> list[str]:
    return [str(b.get("label")) for b in message.buttons]


def public(sandbox: FakeDiscord) -> int:
    return sum(len(sandbox.messages(c, include_ephemeral=False)) for c in sandbox.state.channels)


def everything(db_path: Path) -> dict[str, list[tuple[Any, ...]]]:
    with sqlite3.connect(db_path) as db:
        return {
            table: [tuple(r) for r in db.execute(f"SELECT * FROM {table} ORDER BY 1")]
            for table in ("puzzles", "puzzle_attempts", "puzzle_ratings", "puzzle_daily")
        }


async def kept(bot: VeletasBot, *puzzles: Puzzle) -> dict[int, Puzzle]:
    assert await bot.store.add_puzzles(puzzles) == len(puzzles)
    found: dict[int, Puzzle] = {}
    for game in {p.game for p in puzzles}:
        found.update({p.id: p for p in await bot.store.puzzles_for(game, 0)})
    return found


async def edited(sandbox: FakeDiscord, message: Message, action: Awaitable[Message]) -> Message:
    """What an action on the puzzle's private message answered: that message once its edit has landed (a slow
    answer is deferred first, and the edit follows), or the new message (a refusal)."""
    before = len(sandbox.message(message.id).history)
    answer = await action
    if answer.id != message.id:
        return answer
    return await sandbox.wait_until(
        lambda: len(sandbox.message(message.id).history) > before and sandbox.message(message.id),
        what="the puzzle's message edited",
    )


async def play(sandbox: FakeDiscord, user: SandboxUser, message: Message, turn: str) -> Message:
    modal = await user.click_modal(message, "Type a move")
    return await edited(sandbox, message, user.submit(modal, {MOVE_FIELD: turn}))


async def test_a_whole_veloop_puzzle_session(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    puzzles = await kept(bot, veloop_two(), veloop_one(), veloop_more(0))
    me = sandbox.user(alice)
    shown = await me.slash("veloop", "puzzle")
    assert shown.ephemeral and labels(shown) == ["Move", "Type a move", "Give up", "Next puzzle", "Leaderboard"]
    assert Image.open(io.BytesIO(shown.files[PUZZLE_FILE])).format == "PNG"
    puzzle = puzzles[puzzle_id(shown)]
    task = f"Black to move: confine a stone in {puzzle.solver_turns} turn"
    assert description(shown).startswith(task) and "Your puzzle rating: 1500? · streak 0 (best 0)" in description(shown)
    # Everyone gets the same puzzle today.
    assert puzzle_id(await sandbox.user(bob).slash("veloop", "puzzle")) == puzzle.id

    # An illegal turn: refused privately, the puzzle's message and the store unchanged.
    before = everything(db_path)
    refused = await play(sandbox, me, shown, "a1<a1")
    assert refused.ephemeral and refused.id != shown.id and refused.content
    assert everything(db_path) == before and description(sandbox.message(shown.id)) == description(shown)

    # The right line, played after the first answer's 15-minute token has expired (every turn is an interaction of
    # its own): each reply shown at once, then solved, rated up, streak 1; nothing public.
    sandbox.clock.advance(16 * 60)
    answer = shown
    for index in range(0, len(puzzle.solution), 2):
        answer = await play(sandbox, me, answer, puzzle.solution[index])
        assert answer.id == shown.id, "the same private message, edited"
        if index + 1 < len(puzzle.solution):
            assert f"Right: {puzzle.solution[index]}. The reply: {puzzle.solution[index + 1]}." in description(answer)
    assert f"Solved with {puzzle.solution[-1]}!" in description(answer)
    change = re.search(r"Puzzle rating: 1500 → ([0-9]+) \(\+([0-9]+)\)", description(answer))
    assert change is not None and int(change[1]) > 1500, description(answer)
    assert "streak 1 (best 1)" in description(answer)
    assert labels(answer) == ["Share", "Next puzzle", "Leaderboard"]
    assert public(sandbox) == 0, "solving posts nothing"

    # Next: another puzzle, and a wrong turn there: said privately with the solution, rated down, streak 0.
    following = await edited(sandbox, answer, me.click(answer, "Next puzzle"))
    other = puzzles[puzzle_id(following)]
    assert other.id != puzzle.id and following.id == shown.id
    wrong = wrong_first(other)
    lost = await play(sandbox, me, following, wrong)
    assert f"Not this one: {wrong}. The winning turn was {other.solution[0]}." in description(lost)
    down = re.search(r"Puzzle rating: ([0-9]+) → ([0-9]+) \(-([0-9]+)\)", description(lost))
    assert down is not None and int(down[2]) < int(down[1]) == int(change[1]), description(lost)
    assert "streak 0 (best 1)" in description(lost)
    assert labels(lost) == ["Next puzzle", "Leaderboard"]


async def test_share_posts_the_solved_puzzle_publicly_and_what_is_not_yours_is_refused(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    puzzles = await kept(bot, veletas_one())
    (puzzle,) = puzzles.values()
    me, them = sandbox.user(alice), sandbox.user(bob)
    shown = await me.slash("veletas", "puzzle")
    assert description(shown).startswith("Black to move: claim a region in 1 turn")
    theirs = await them.slash("veletas", "puzzle")
    mine_attempt = await bot.store.open_attempt(alice.id, "veletas")
    assert mine_attempt is not None

    # Bob's own message, its button forged to name Alice's attempt: refused privately, nothing changes.
    before = everything(db_path)
    forged = sandbox.message(theirs.id)
    forged.buttons[0]["custom_id"] = f"pz:type:{mine_attempt.id}"
    refused = await them.click(forged, f"pz:type:{mine_attempt.id}")
    assert refused.ephemeral and refused.content == words()("puzzle.not_yours")
    forged.buttons[0]["custom_id"] = f"pz:share:{mine_attempt.id}"
    refused = await them.click(forged, f"pz:share:{mine_attempt.id}")
    assert refused.ephemeral and refused.content == words()("puzzle.not_yours")
    assert everything(db_path) == before and public(sandbox) == 0

    solved = await play(sandbox, me, shown, puzzle.solution[0])
    assert "Solved with" in description(solved) and public(sandbox) == 0
    posted = await me.click(solved, "Share")
    assert not posted.ephemeral and public(sandbox) == 1
    text = description(posted)
    assert f"{alice.mention} solved Veletas puzzle #{puzzle.id}." in text and "claim a region in 1 turn" in text
    assert re.search(r"Puzzle rating: 1500 → [0-9]+ \(\+[0-9]+\)", text), text
    assert Image.open(io.BytesIO(posted.files[PUZZLE_FILE])).format == "PNG"
    again = await me.click(solved, "Share")
    assert again.ephemeral and again.content == words()("puzzle.shared_already") and public(sandbox) == 1


def refutations(pool: PooledAi) -> list[tuple[str, ...]]:
    """The positions the pool is asked to refute (their turns)."""
    asked: list[tuple[str, ...]] = []
    original = pool.best_turn

    async def best_turn(game: str, turns: tuple[str, ...], settings: tuple[tuple[str, str], ...]) -> str | None:
        asked.append(turns)
        return await original(game, turns, settings)

    pool.best_turn = best_turn  # type: ignore[method-assign]
    return asked


async def test_a_wrong_turn_shows_the_refutation_on_the_board(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    started = await sandbox_runner.start(make_factory(db_path, clock, ai_workers=1), sync=False)
    assert isinstance(started, VeletasBot) and isinstance(started.ai, PooledAi)
    started.ai.review_seconds = 0.05
    asked = refutations(started.ai)
    puzzles = await kept(started, veloop_one())
    (puzzle,) = puzzles.values()
    me = sandbox.user(alice)
    shown = await me.slash("veloop", "puzzle")
    first_image = shown.files[PUZZLE_FILE]
    wrong = wrong_first(puzzle)
    lost = await play(sandbox, me, shown, wrong)
    found = re.search(r"What refutes it: (\S+) \(marked on the board\)\.", description(lost))
    assert found is not None, description(lost)
    after = replay(puzzle, (wrong,))
    assert found[1] in {after.play(str(m)).turns[-1] for m in after.position.legal_moves()}  # type: ignore[attr-defined]
    w = words()
    refuted = after.play(found[1])
    drawn = render.drawer("veloop").game_png(
        refuted, theme=render.DEFAULT_THEME, players={"black": "Black", "white": "White"}, words=w
    )
    assert lost.files[PUZZLE_FILE] == drawn != first_image, "the position after the refutation, its turn marked"
    assert asked == [(*puzzle.before, wrong)], "one position searched, as an analysis"


async def test_the_source_game_is_named_only_while_it_is_this_servers_finished_game(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path
) -> None:
    table = await start_veloop(sandbox, alice, bob, board="5", protocol="alternating")
    rng = random.Random(2)
    for _ in range(2):
        await table.move(str(rng.choice(table.game.position.legal_moves())))
    await resign(sandbox, table.first, group="veloop")
    await kept(bot, veloop_one(guild_id=sandbox.guild_id, source_game_id=table.game_id))
    shown = await sandbox.user(carol).slash("veloop", "puzzle")
    link = f"https://discord.com/channels/{sandbox.guild_id}/{table.channel_id}/"
    assert f"From Veloop (Square) #{table.game_id}, {alice.mention} against {bob.mention}: {link}" in description(shown)

    # Its game in play again (as an undo or an organiser's decision leaves it): the puzzle is not shown at all.
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE games SET status = 'active' WHERE id = ?", (table.game_id,))
    refused = await sandbox.user(bob).slash("veloop", "puzzle")
    assert refused.ephemeral and refused.content == words()("puzzle.none_yet", game="Veloop")
    refused = await sandbox.user(carol).click(shown, "Next puzzle")
    assert refused.ephemeral and refused.content == words()("puzzle.all_tried")


async def test_the_leaderboard_lists_this_servers_members_with_five_rated_puzzles(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    puzzles = list((await kept(bot, veloop_one(), veloop_two(), *(veloop_more(i) for i in range(3)))).values())
    for member, count in ((alice, 5), (bob, 4)):
        for puzzle in puzzles[:count]:
            attempt = await bot.store.start_attempt(member.id, sandbox.guild_id, 1, puzzle.id)
            await bot.store.play_puzzle_turn(attempt.id, member.id, puzzle.solution[0])
            if len(puzzle.solution) > 1:
                await bot.store.play_puzzle_turn(attempt.id, member.id, puzzle.solution[2])
    standing = await bot.store.puzzle_standing(alice.id, "veloop")
    assert standing.best_streak == 5 and standing.rating.games == 5
    shown = await sandbox.user(bob).slash("veloop", "puzzle")
    board = await sandbox.user(bob).click(shown, "Leaderboard")
    assert board.ephemeral and board.id != shown.id
    embed = board.embeds[0]
    assert embed["title"] == "Puzzle leaderboard · Veloop"
    assert embed["description"] == f"1. {alice.mention} · {standing.rating.shown} · best streak 5", "Bob has four"


async def test_the_move_command_plays_into_the_members_puzzle_unless_a_game_here_waits_for_their_turn(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    (puzzle,) = (await kept(bot, veloop_more(0))).values()
    table = await start_veloop(sandbox, alice, bob, board="5", protocol="alternating")
    me = sandbox.user(alice)
    shown = await me.slash("veloop", "puzzle")
    assert shown.ephemeral and shown.channel_id == table.channel_id
    # Alice is to move in the game here: her move is the game's, and the puzzle is untouched.
    board = await table.move(str(table.game.position.legal_moves()[0]))
    assert not board.ephemeral
    attempt = await bot.store.open_attempt(alice.id, "veloop")
    assert attempt is not None and attempt.turns == ()
    # Bob is to move now: what Alice types (and is offered) is her puzzle's.
    target = puzzle.solution[0].split("<")[0]
    offered = [c["value"] for c in await me.autocomplete("veloop", "move", move=target)]
    assert puzzle.solution[0] in offered
    assert [c["value"] for c in await sandbox.user(bob).autocomplete("veloop", "move", move=target)] != offered
    solved = await me.slash("veloop", "move", move=puzzle.solution[0])
    assert solved.ephemeral and f"Solved with {puzzle.solution[0]}!" in description(solved)
    assert labels(solved) == ["Share", "Next puzzle", "Leaderboard"]
    # The puzzle over, her move here is the game's again: refused, not her turn.
    refused = await me.slash("veloop", "move", move=puzzle.solution[0])
    assert refused.ephemeral and "turn" in refused.content and not refused.embeds


def menu_with(message: Message, value: str) -> str:
    menu: dict[str, Any] = next(m for m in message.selects if value in [o["value"] for o in m["options"]])
    return str(menu["custom_id"])


async def test_the_guided_move_plays_a_puzzle_in_the_same_private_message(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    puzzles = await kept(bot, veloop_more(0), veletas_one())
    veloop_puzzle = next(p for p in puzzles.values() if p.game == "veloop")
    veletas_puzzle = next(p for p in puzzles.values() if p.game == "veletas")
    me = sandbox.user(alice)

    # Veloop: target, support, confirm; Cancel on the way brings the puzzle back as it was.
    shown = await me.slash("veloop", "puzzle")
    step = await edited(sandbox, shown, me.click(shown, "Move"))
    assert step.id == shown.id and step.selects, "the games' own menus, in the puzzle's message"
    back = await edited(sandbox, shown, me.click(step, "Cancel"))
    assert description(back).startswith("Black to move: confine a stone in 1 turn")
    assert labels(back) == ["Move", "Type a move", "Give up", "Next puzzle", "Leaderboard"]
    target, support = veloop_puzzle.solution[0].split("<")
    step = await edited(sandbox, shown, me.click(back, "Move"))
    step = await edited(sandbox, shown, me.select(step, target, menu=menu_with(step, target)))
    step = await edited(sandbox, shown, me.select(step, support, menu=menu_with(step, support)))
    # A menu's id names the puzzle, never an attempt: Alice's confirm forged into Bob's message acts on his own attempt
    # (the same daily puzzle), and without one open it is refused; Alice's attempt is untouched either way.
    confirm = next(b for b in step.buttons if b["label"] == f"Play {veloop_puzzle.solution[0]}")
    carol_view = sandbox.user(carol)
    theirs = await carol_view.slash("veletas", "puzzle")
    forged = sandbox.message(theirs.id)
    forged.buttons[0]["custom_id"] = confirm["custom_id"]
    refused = await carol_view.click(forged, confirm["custom_id"])
    assert refused.ephemeral and refused.id != theirs.id and refused.content == words()("puzzle.over")
    their = await sandbox.user(bob).slash("veloop", "puzzle")
    forged = sandbox.message(their.id)
    forged.buttons[0]["custom_id"] = confirm["custom_id"]
    await edited(sandbox, their, sandbox.user(bob).click(forged, confirm["custom_id"]))
    bobs = await bot.store.open_attempt(bob.id, "veloop")
    assert bobs is None and "Solved with" in description(sandbox.message(their.id))
    alices = await bot.store.open_attempt(alice.id, "veloop")
    assert alices is not None and alices.turns == (), "Alice's puzzle untouched"
    solved = await edited(sandbox, shown, me.click(step, f"Play {veloop_puzzle.solution[0]}"))
    assert f"Solved with {veloop_puzzle.solution[0]}!" in description(solved)

    # Veletas: shooter, destination, target, confirm.
    shown = await me.slash("veletas", "puzzle")
    turn = veletas_puzzle.solution[0]
    shooter, rest = turn.split("-")
    destination, target = rest.split("/")
    step = await edited(sandbox, shown, me.click(shown, "Move"))
    for value in (shooter, destination, target):
        step = await edited(sandbox, shown, me.select(step, value, menu=menu_with(step, value)))
    solved = await edited(sandbox, shown, me.click(step, f"Play {turn}"))
    assert f"Solved with {turn}!" in description(solved)


async def test_spanish_and_japanese_members_play_puzzles_without_a_word_of_english(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    alice.locale, bob.locale = "ja", "es-419"
    (puzzle,) = (await kept(bot, veloop_one())).values()
    for member, field, button, language in (
        (alice, "あなたの手（棋譜の表記で）", "手を入力", "ja"),
        (bob, "Tu jugada, en notación", "Escribir jugada", "es"),
    ):
        user = sandbox.user(member)
        shown = await user.slash("veloop", "puzzle")
        assert in_language(description(shown), language), description(shown)
        modal = await user.click_modal(shown, button)
        turn = puzzle.solution[0] if language == "ja" else wrong_first(puzzle)
        answer = await edited(sandbox, shown, user.submit(modal, {field: turn}))
        assert in_language(description(answer), language), description(answer)
        assert "1500 → " in description(answer)
        board = await user.click(answer, "ランキング" if language == "ja" else "Clasificación")
        assert in_language(board.text(), language), board.text()
    assert assert_no_english(sandbox, [alice, bob], [sandbox.channel_id]) >= 4


async def test_giving_up_is_a_rated_loss_and_shows_the_rest_of_the_solution(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member
) -> None:
    (puzzle,) = (await kept(bot, veloop_two())).values()
    me = sandbox.user(alice)
    shown = await me.slash("veloop", "puzzle")
    right = await play(sandbox, me, shown, puzzle.solution[0])
    begun = await bot.store.open_attempt(alice.id, "veloop")
    assert begun is not None
    gave_up = await edited(sandbox, shown, me.click(right, "Give up"))
    assert f"You gave up. The solution from here: {puzzle.solution[2]}" in description(gave_up)
    assert re.search(r"Puzzle rating: 1500 → 1[0-4][0-9]{2} \(-[0-9]+\)", description(gave_up)), description(gave_up)
    attempt = await bot.store.get_attempt(begun.id)
    assert attempt is not None and attempt.status == "failed" and attempt.turns == puzzle.solution[:2]
    assert labels(gave_up) == ["Next puzzle", "Leaderboard"]
