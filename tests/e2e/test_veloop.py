"""Veloop (Square) played in Discord end to end: ``/veloop`` on the same shared code as Veletas.

Each game is driven the way members would play it, with the rules' own view kept beside it to know
who acts next; every board the bot posts is checked against that view.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bot import ai as real_ai
from bot.client import VeletasBot
from bot.rules.common import read_record
from bot.rules.protocol import GameState
from bot.rules.veloop import Game
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from bot.sandbox.users import SandboxUser
from e2e.conftest import Factory, ManualClock, make_factory
from e2e.table import pinged, resign


@dataclass
class VeloopTable:
    fake: FakeDiscord
    first: SandboxUser
    second: SandboxUser
    channel_id: int
    game: Game
    game_id: int
    boards: list[Message] = field(default_factory=list)

    def user_to_act(self) -> SandboxUser:
        seat = self.game.seat_to_act
        assert seat is not None, "the game is over"
        return self.first if seat == "first" else self.second

    def other(self) -> SandboxUser:
        return self.second if self.user_to_act() is self.first else self.first

    def follow(self, text: str) -> int:
        """Apply a move to the rules' view, then the passes the bot plays by itself; returns how many."""
        self.game = self.game.play(text)
        passes = 0
        while self.game.forced_turn is not None:
            self.game = self.game.play(self.game.forced_turn)
            passes += 1
        return passes

    async def move(self, text: str) -> Message:
        message = await self.user_to_act().slash("veloop", "move", move=text)
        assert not message.ephemeral, message.content
        passes = self.follow(text)
        assert message.content.count("had no legal move and passed") == passes, message.content
        self.boards.append(message)
        return message


async def start_veloop(
    fake: FakeDiscord, first: Member, second: Member, *, board: str = "8", protocol: str = "122", where: str = "here"
) -> VeloopTable:
    challenger = fake.user(first)
    message = await challenger.slash(
        "veloop", "challenge", opponent=second, board=board, protocol=protocol, where=where
    )
    assert not message.ephemeral, message.content
    assert f"to Veloop ({board}×{board} board, protocol {protocol})" in message.content
    cursor = fake.cursor()
    await fake.user(second).click(message, "Accept")
    first_board = await fake.wait_for_message(
        predicate=lambda m: bool(m.embeds) and "Veloop #" in m.text(), after=cursor
    )
    title = first_board.embeds[0]["title"]
    assert title.endswith(f"· {board}×{board} board, protocol {protocol}"), title
    game_id = int(title.split("#")[1].split(" ")[0])
    channel = first_board.channel_id
    table = VeloopTable(
        fake,
        fake.user(first).in_channel(channel),
        fake.user(second).in_channel(channel),
        channel,
        Game.new(int(board), protocol),
        game_id,
        [first_board],
    )
    assert pinged(fake, first_board) == [str(first.id)], "Black (the challenger) moves first and is called"
    return table


def shortest_seed(size: int, protocol: str, *, ending: str | None = None, seeds: int = 60) -> int:
    """The seed whose random game is shortest (among those ending as asked): quick whole games to drive."""
    best: tuple[int, int] | None = None
    for seed in range(seeds):
        rng = random.Random(seed)
        game = Game.new(size, protocol)
        while game.phase != "over":
            game = game.play(rng.choice(game.position.legal_moves()))
        outcome = game.outcome
        assert outcome is not None
        if ending is not None and outcome.termination != ending:
            continue
        if best is None or len(game.turns) < best[0]:
            best = (len(game.turns), seed)
    assert best is not None, f"no seed ends by {ending}"
    return best[1]


async def play_random(table: VeloopTable, seed: int) -> Message:
    """Play the seed's random game (typed moves; the bot plays forced passes) to its end."""
    rng = random.Random(seed)
    last = table.boards[-1]
    while table.game.phase != "over":
        legal = table.game.position.legal_moves()
        choice = rng.choice(legal)
        if choice.is_pass:
            raise AssertionError("a pass is never left to a player: the bot plays it")
        last = await table.move(str(choice))
    return last


def random_moves_replaying(seed: int, size: int, protocol: str) -> Game:
    """The seed's random game, as play_random drives it."""
    rng = random.Random(seed)
    game = Game.new(size, protocol)
    while game.phase != "over":
        game = game.play(rng.choice(game.position.legal_moves()))
    return game


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["122", "alternating"])
@pytest.mark.parametrize("board", ["5", "6", "8", "12"])
async def test_a_whole_game_on_every_board_and_protocol(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, board: str, protocol: str
) -> None:
    table = await start_veloop(sandbox, alice, bob, board=board, protocol=protocol)
    seed = shortest_seed(int(board), protocol)
    last = await play_random(table, seed)
    expected = random_moves_replaying(seed, int(board), protocol)
    info = await bot.store.get_game(table.game_id)
    assert info.status == "finished" and info.turns == expected.turns == table.game.turns
    outcome = expected.outcome
    assert outcome is not None and info.outcome == outcome
    description = last.embeds[0]["description"]
    if outcome.winner is None:
        assert description.startswith("**Drawn.**"), description
    else:
        winner = alice if outcome.winner == "black" else bob
        assert description.startswith(f"**{winner.mention} wins.**"), description
    assert [b["label"] for b in last.buttons] == ["Rematch", "Review"], "a finished board: a rematch, a review, no Move"
    record = last.files[f"veloop-{table.game_id}.txt"].decode()
    headers = read_record(record).headers
    assert headers["Game"].lower().startswith("veloop") and headers["Board"] == f"{board}x{board}"
    assert headers["Result"] == outcome.result_token
    assert Game.replay(expected.turns, int(board), protocol).turns == expected.turns


async def test_forced_passes_are_played_by_the_bot_and_a_draw_is_announced(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    seed = shortest_seed(5, "alternating", ending="passes")
    table = await start_veloop(sandbox, alice, bob, board="5", protocol="alternating")
    last = await play_random(table, seed)
    boards = [m for m in sandbox.messages(table.channel_id, include_ephemeral=False) if m.embeds]
    passed = [m for m in boards if "had no legal move and passed" in m.content]
    assert passed, "the forced passes were said on the boards"
    info = await bot.store.get_game(table.game_id)
    assert info.status == "finished" and info.winner_id is None and info.termination == "passes"
    assert info.result == "Drawn" and "pass" in info.turns
    assert last.embeds[0]["description"].startswith("**Drawn.**")
    assert pinged(sandbox, last) == [], "a finished game calls nobody"
    assert read_record(last.files[f"veloop-{table.game_id}.txt"].decode()).headers["Result"] == "1/2-1/2"


async def test_autocomplete_narrows_target_then_support(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_veloop(sandbox, alice, bob, board="8")
    rng = random.Random(5)
    for _ in range(6):
        await table.move(str(rng.choice(table.game.position.legal_moves())))
    legal = {str(m) for m in table.game.position.legal_moves()}
    mover = table.user_to_act()
    everything = await mover.autocomplete("veloop", "move", move="")
    values = [c["value"] for c in everything]
    assert 0 < len(values) <= 25 and set(values) <= legal
    targets = {str(m.target) for m in table.game.position.legal_moves()}
    assert {v.split("<")[0] for v in values} == targets or len(targets) > 25, "every target shows up first"
    target = sorted(targets)[0]
    narrowed = await mover.autocomplete("veloop", "move", move=target.upper() + " ")
    assert [c["value"] for c in narrowed] == sorted(
        (m for m in legal if m.startswith(target + "<")), key=lambda m: (m.split("<")[1][0], int(m.split("<")[1][1:]))
    )
    assert all("swaps" in c["name"] for c in narrowed)
    nothing = await mover.autocomplete("veloop", "move", move="z9")
    assert nothing == []


async def test_a_guided_move_target_support_confirm(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_veloop(sandbox, alice, bob, board="6", protocol="alternating")
    await table.move(str(table.game.position.legal_moves()[0]))
    board = table.boards[-1]
    mover, waiting = table.user_to_act(), table.other()
    refused = await waiting.click(board, "Move")
    assert refused.ephemeral and f"It is <@{mover.member.id}>'s turn" in refused.content
    step = await mover.click(board, "Move")
    moves = [m for m in table.game.position.legal_moves() if not m.is_pass]
    targets = list(dict.fromkeys(str(m.target) for m in moves))
    offered = [o["value"] for menu in step.selects for o in menu["options"]]
    assert step.ephemeral and offered == targets and step.files["board.png"].startswith(b"\x89PNG")
    target = targets[-1]
    step = await mover.select(step, target)
    supports = [str(m.support) for m in moves if str(m.target) == target]
    assert [o["value"] for menu in step.selects for o in menu["options"]] == supports
    assert f"target **{target}**" in step.text()
    step = await mover.select(step, supports[0])
    move = f"{target}<{supports[0]}"
    assert f"play **`{move}`**" in step.text() and "swaps" in step.text()
    assert (await bot.store.get_game(table.game_id)).ply == len(table.game.turns), "nothing before confirming"
    cursor = sandbox.cursor()
    done = await mover.click(step, f"Play {move}")
    assert done.content == f"You played `{move}`."
    public = await sandbox.wait_for_message(
        table.channel_id, lambda m: not m.ephemeral and bool(m.embeds), after=cursor
    )
    assert f"`{move}`" in public.text()
    table.follow(move)
    assert (await bot.store.get_game(table.game_id)).turns == table.game.turns


async def test_refusals_are_private_and_change_nothing(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_veloop(sandbox, alice, bob)
    before = await bot.store.get_game(table.game_id)
    mover = table.user_to_act()
    for text, expected in [
        ("a1<a2", "no stone of yours tops a2"),
        ("e4", "no legal move places on e4"),
        ("**@everyone**", "expected a target"),
        ("x" * 32, "expected a target"),
    ]:
        refused = await mover.slash("veloop", "move", move=text)
        assert refused.ephemeral and expected in refused.content.lower(), refused.content
        assert len(refused.content) <= 2000
    wrong_game = await mover.slash("veletas", "move", move="d4-g7/g2")
    assert wrong_game.ephemeral and "Veloop" in wrong_game.content and "/veloop move" in wrong_game.content
    after = await bot.store.get_game(table.game_id)
    assert after.version == before.version and after.turns == before.turns


async def test_resign_and_undo(sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member) -> None:
    table = await start_veloop(sandbox, alice, bob, protocol="alternating")
    first_move = str(table.game.position.legal_moves()[0])
    mover = table.user_to_act()
    await table.move(first_move)
    asked = await mover.slash("veloop", "undo")
    assert f"asks to take back `{first_move}`" in asked.content
    cursor = sandbox.cursor()
    await table.second.click(asked, "Allow the take-back")
    back = await sandbox.wait_for_message(
        table.channel_id, lambda m: bool(m.embeds) and "was taken back" in m.content, after=cursor
    )
    assert back.embeds[0]["footer"]["text"] == "Move 1"
    table.game = Game.new(8, "alternating")
    assert (await bot.store.get_game(table.game_id)).turns == ()
    await table.move(first_move)
    for _ in range(2):  # White has moved too: the resignation decides the game (before that it would abort it)
        await table.move(str(next(m for m in table.game.position.legal_moves() if not m.is_pass)))
    loser = table.user_to_act()
    resigned = await resign(sandbox, loser, "veloop")
    description = resigned.embeds[0]["description"]
    assert description.startswith(f"**{table.first.member.mention} wins.**") and "White resigned" in description
    record = read_record(resigned.files[f"veloop-{table.game_id}.txt"].decode()).headers
    assert record["Result"] == "1-0" and record["Termination"] == "resignation"
    info = await bot.store.get_game(table.game_id)
    assert info.termination == "resignation" and info.winner_id == alice.id


async def test_two_racing_moves_exactly_one_lands(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_veloop(sandbox, alice, bob, protocol="alternating")
    await table.move(str(table.game.position.legal_moves()[0]))
    mover = table.user_to_act()
    a, b = (str(m) for m in table.game.position.legal_moves()[:2])
    results = await asyncio.gather(mover.slash("veloop", "move", move=a), mover.slash("veloop", "move", move=b))
    landed = [r for r in results if not r.ephemeral]
    refused = [r for r in results if r.ephemeral]
    assert len(landed) == 1 and len(refused) == 1, [r.content for r in results]
    info = await bot.store.get_game(table.game_id)
    assert info.ply == 2 and info.turns[-1] in (a, b)


async def test_restart_mid_game_old_buttons_still_work(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, factory: Factory, alice: Member, bob: Member
) -> None:
    bot = await sandbox_runner.start(factory, sync=False)
    assert isinstance(bot, VeletasBot)
    table = await start_veloop(sandbox, alice, bob, board="6")
    await table.move(str(table.game.position.legal_moves()[0]))
    board = table.boards[-1]
    bot = await sandbox_runner.restart(factory)
    assert isinstance(bot, VeletasBot)
    mover = table.user_to_act()
    step = await mover.click(board, "Move")
    assert step.ephemeral and step.selects, step.content
    target = step.selects[0]["options"][0]["value"]
    step = await mover.select(step, target)
    support = step.selects[0]["options"][0]["value"]
    step = await mover.select(step, support)
    cursor = sandbox.cursor()
    await mover.click(step, f"Play {target}<{support}")
    await sandbox.wait_for_message(table.channel_id, lambda m: not m.ephemeral and bool(m.embeds), after=cursor)
    table.follow(f"{target}<{support}")
    assert (await bot.store.get_game(table.game_id)).turns == table.game.turns


async def test_the_veletas_custom_ids_of_old_boards_still_work(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    """Boards posted before games had their own prefix carry ``veletas:move:N``: that opens any game's menu."""
    table = await start_veloop(sandbox, alice, bob)
    board = table.boards[-1]
    move_button = next(b for b in board.buttons if b["label"] == "Move")
    assert move_button["custom_id"] == f"veloop:move:{table.game_id}"
    move_button["custom_id"] = f"veletas:move:{table.game_id}"
    step = await table.user_to_act().click(board, "Move")
    assert step.ephemeral and "Step 1 of 3" in step.text()


class LevelledAi:
    """The real AI of every level, in a thread, with a short thinking time so the test stays quick."""

    def __init__(self) -> None:
        self.levels: list[int] = []

    async def choose_turn(self, game: GameState, level: int) -> str:
        self.levels.append(level)
        return await asyncio.to_thread(real_ai.choose_turn, game, level, seed=level, time_limit=0.2)


def newest_board_posted(db_path: Path, game_id: int) -> bool:
    """The board of the game's newest change is out (and recorded), as a member sees it before choosing a move."""
    with sqlite3.connect(db_path) as db:
        row = db.execute("SELECT posted_version, version FROM games WHERE id = ?", (game_id,)).fetchone()
    return bool(row and row[0] == row[1])


def ai_has_played(fake: FakeDiscord, db_path: Path, game_id: int, ply: int) -> bool:
    with sqlite3.connect(db_path) as db:
        row = db.execute("SELECT ply, board_message_id, status FROM games WHERE id = ?", (game_id,)).fetchone()
    return bool(row and (row[0] > ply or row[2] != "active") and row[1] in fake.state.messages)


@pytest.mark.slow
@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
async def test_veloop_against_the_ai_at_every_level(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock, level: int
) -> None:
    ai = LevelledAi()
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai=ai), sync=False)
    assert isinstance(bot, VeletasBot)
    human = sandbox.user(alice)
    intro = await human.slash(
        "veloop", "challenge", opponent=sandbox.bot_member, board="5", protocol="alternating", where="here", level=level
    )
    assert f"plays Veloop (5×5 board, protocol alternating) against me, level {level}" in intro.text()
    info = await bot.store.game_in_channel(sandbox.channel_id)
    rng = random.Random(level)
    # Levels 1 and 2 play whole games; the searching levels a few turns each, which is what differs between them.
    turns = 200 if level <= 2 else 4
    for _ in range(turns):
        # As a member does: look at the newest board before choosing (a move sent before it is out is refused).
        await sandbox.wait_until(partial(newest_board_posted, db_path, info.id), what="the newest board")
        info = await bot.store.get_game(info.id)
        if info.status != "active":
            break
        if info.user_to_act == sandbox.bot_member.id:
            await sandbox.wait_until(
                partial(ai_has_played, sandbox, db_path, info.id, info.ply), what="the AI's turn", timeout=30
            )
            continue
        state = info.state
        assert isinstance(state, Game)
        moves = [m for m in state.position.legal_moves() if not m.is_pass]
        if not moves:
            # A lone forced pass: the bot plays it for the member by itself, as soon as the turn before is stored.
            await sandbox.wait_until(
                partial(ai_has_played, sandbox, db_path, info.id, info.ply), what="the forced pass", timeout=30
            )
            continue
        move = rng.choice(moves)
        answer = await human.slash("veloop", "move", move=str(move))
        assert not answer.ephemeral, answer.content
    assert ai.levels and set(ai.levels) == {level}
    final = await bot.store.get_game(info.id)
    assert final.ply >= 3, "the AI answered more than once"
    if level <= 2:
        assert final.status == "finished"


def _menu_values(message: Message) -> list[Any]:
    return [o["value"] for menu in message.selects for o in menu["options"]]
