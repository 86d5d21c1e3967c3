"""Challenging the bot itself: the challenge flow hands turns to whatever AI the bot was given."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from functools import partial
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.rules import Game
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.conftest import ManualClock, make_factory
from e2e.table import Table, pinged, random_setup_turn


class RandomAi:
    """A stand-in opponent: any legal turn, chosen off the event loop like a real AI would be."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.levels: list[int] = []

    async def choose_turn(self, game: Game, level: int) -> str:
        self.levels.append(level)
        return await asyncio.to_thread(self._choose, game)

    def _choose(self, game: Game) -> str:
        if game.phase in ("setup", "pie"):
            return random_setup_turn(game, self.rng)
        return str(self.rng.choice(game.position.legal_moves()))


@pytest.mark.slow
async def test_a_whole_game_against_the_ai(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    ai = RandomAi(seed=1)
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai=ai), sync=False)
    assert isinstance(bot, VeletasBot)
    human = sandbox.user(alice)
    first = await human.slash(
        "veletas", "challenge", opponent=sandbox.bot_member, variant="small", where="here", level=2
    )
    assert "against me, level 2" in first.text()
    info = await bot.store.game_in_channel(sandbox.channel_id)
    assert info.ai_level == 2 and info.opponent_id == sandbox.bot_member.id
    listed = await human.slash("veletas", "games")
    assert f"<@{alice.id}> vs <@{sandbox.bot_member.id}> (AI level 2)" in listed.content
    table = Table(sandbox, human, human, sandbox.channel_id, Game.new("small"), info.id)
    rng = random.Random(3)
    while True:
        info = await bot.store.get_game(info.id)
        table.game = info.game
        if info.status != "active":
            break
        if info.user_to_act == sandbox.bot_member.id:
            await sandbox.wait_until(partial(ai_has_played, sandbox, db_path, info.id, info.ply), what="the AI's turn")
            continue
        if table.game.phase == "play":
            await table.turn(str(rng.choice(table.game.position.legal_moves())))
        else:
            await table.turn(random_setup_turn(table.game, rng))
    assert info.status == "finished" and info.winner_id in (alice.id, sandbox.bot_member.id)
    assert set(ai.levels) == {2}
    # The AI's boards ping the human when it is their turn, and nobody else.
    ai_boards = [m for m in sandbox.messages(sandbox.channel_id) if m.interaction_id is None and m.embeds]
    assert ai_boards, "the AI posts its own turns in the channel"
    for board in ai_boards:
        assert pinged(sandbox, board) in ([], [str(alice.id)])


def ai_has_played(fake: FakeDiscord, db_path: Path, game_id: int, ply: int) -> bool:
    """The AI's turn is done once it is committed and its board is posted and recorded."""
    with sqlite3.connect(db_path) as db:
        row = db.execute(
            "SELECT ply, board_message_id, posted_version, version FROM games WHERE id = ?", (game_id,)
        ).fetchone()
    # The newest change's board, not an older one: a move typed before the AI's board is out is refused.
    return bool(row and row[0] > ply and row[1] in fake.state.messages and row[2] == row[3])


class StuckAi:
    """An AI that never answers, like a process that dies mid-search."""

    async def choose_turn(self, game: Game, level: int) -> str:
        await asyncio.Event().wait()
        raise AssertionError("unreachable: the event is never set")


@pytest.mark.slow
async def test_the_ai_resumes_its_turn_after_a_restart(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai=StuckAi()), sync=False)
    assert isinstance(bot, VeletasBot)
    intro = await sandbox.user(alice).slash("veletas", "challenge", opponent=sandbox.bot_member, variant="small")
    # By default the game gets its own thread, started from the message announcing it.
    thread = await sandbox.wait_until(lambda: sandbox.threads(sandbox.channel_id))
    assert thread[0]["id"] == str(intro.id)
    assert bot.user is not None
    assert thread[0]["name"] == f"Veletas #1: Alice vs {bot.user.display_name} (AI)"
    await sandbox.wait_for_message(int(thread[0]["id"]), lambda m: bool(m.embeds))
    info = await bot.store.game_in_channel(int(thread[0]["id"]))
    human = sandbox.user(alice).in_channel(info.channel_id)
    game = info.game
    await human.slash("veletas", "setup", shooters="d4", stone="a1")
    game = game.play("d4/a1")
    assert game.seat_to_act == "second", "now the AI chooses colours"

    restarted = await sandbox_runner.restart(make_factory(db_path, clock, ai=RandomAi(seed=5)), sync=False)
    assert isinstance(restarted, VeletasBot)
    await sandbox.wait_until(partial(ai_has_played, sandbox, db_path, info.id, 1), what="the AI's pie choice")
    after = await restarted.store.get_game(info.id)
    assert after.turns[:1] == ("d4/a1",) and after.turns[1] in ("keep", "swap")


class GatedAi(RandomAi):
    """A random AI that thinks only while its gate is open, and can be made to fail its next turn."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail_next = False

    async def choose_turn(self, game: Game, level: int) -> str:
        await self.gate.wait()
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("the AI found no turn in 2 attempts")
        return await super().choose_turn(game, level)


async def _to_play(fake: FakeDiscord, bot: VeletasBot, db_path: Path, table: Table, rng: random.Random) -> int:
    """Setup and pie against the AI until it is the human's move; returns the game's ply then."""
    while True:
        info = await bot.store.get_game(table.game_id)
        table.game = info.game
        if info.user_to_act == fake.bot_member.id:
            await fake.wait_until(partial(ai_has_played, fake, db_path, info.id, info.ply), what="the AI's turn")
        elif table.game.phase == "play":
            return info.ply
        else:
            await table.turn(random_setup_turn(table.game, rng))


async def _ai_game_at_play(
    fake: FakeDiscord, runner: BotRunner, player: Member, db_path: Path, clock: ManualClock, seed: int, rng: int
) -> tuple[VeletasBot, GatedAi, Table, int]:
    """A small-board game here against a GatedAi, played through setup and pie to the human's first move."""
    ai = GatedAi(seed=seed)
    bot = await runner.start(make_factory(db_path, clock, ai=ai), sync=False)
    assert isinstance(bot, VeletasBot)
    human = fake.user(player)
    await human.slash("veletas", "challenge", opponent=fake.bot_member, variant="small", where="here")
    info = await bot.store.game_in_channel(fake.channel_id)
    table = Table(fake, human, human, fake.channel_id, info.game, info.id)
    ply = await _to_play(fake, bot, db_path, table, random.Random(rng))
    return bot, ai, table, ply


async def test_a_failed_ai_turn_is_announced_and_asked_again_with_board(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    bot, ai, table, ply = await _ai_game_at_play(sandbox, sandbox_runner, alice, db_path, clock, seed=2, rng=4)
    human, game_id = table.first, table.game_id
    ai.fail_next = True
    cursor = sandbox.cursor()
    await table.turn(str(table.game.position.legal_moves()[0]))
    notice = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: "could not find my move" in m.text(), after=cursor
    )
    assert not notice.embeds and pinged(sandbox, notice) == []
    assert (await bot.store.get_game(game_id)).ply == ply + 1, "nothing was played for the AI"
    # Posting the board again hands the turn back to the AI, which now plays.
    await human.slash("veletas", "board")
    await sandbox.wait_until(partial(ai_has_played, sandbox, db_path, game_id, ply + 1), what="the AI's retry")


async def test_an_undo_while_the_ai_thinks_drops_its_stale_answer(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    bot, ai, table, ply = await _ai_game_at_play(sandbox, sandbox_runner, alice, db_path, clock, seed=6, rng=7)
    human, game_id = table.first, table.game_id
    ai.gate.clear()
    move = str(table.game.position.legal_moves()[0])
    await table.turn(move)
    await sandbox.wait_until(lambda: game_id in bot.ai_thinking, what="the AI to start thinking")
    taken_back = await human.slash("veletas", "undo")
    assert f"Taken back: `{move}`" in taken_back.text()
    ai.gate.set()
    await sandbox.wait_until(lambda: game_id not in bot.ai_thinking, what="the AI to finish")
    after = await bot.store.get_game(game_id)
    assert after.ply == ply and after.user_to_act == alice.id, "the AI's answer to the taken-back move is dropped"
    assert not any("could not find my move" in m.text() for m in sandbox.messages(sandbox.channel_id))


async def test_a_board_that_said_the_ai_was_thinking_says_it_moved_once_it_has(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai=RandomAi(seed=2)), sync=False)
    assert isinstance(bot, VeletasBot)
    human = sandbox.user(alice)
    await human.slash("veletas", "challenge", opponent=sandbox.bot_member, variant="small", where="here", level=1)
    info = await bot.store.game_in_channel(sandbox.channel_id)
    table = Table(sandbox, human, human, sandbox.channel_id, info.game, info.id)
    rng = random.Random(4)
    thinking = f"<@{sandbox.bot_member.id}> is thinking about its move…"
    for _ in range(3):
        info = await bot.store.get_game(info.id)
        if info.user_to_act == sandbox.bot_member.id:
            await sandbox.wait_until(partial(ai_has_played, sandbox, db_path, info.id, info.ply), what="the AI's turn")
            continue
        table.game = info.game
        await table.turn(random_setup_turn(table.game, rng))
    moved = f"<@{sandbox.bot_member.id}> has moved: the board below shows its move."
    await sandbox.wait_until(
        lambda: all(
            m.embeds[0].get("description") != thinking
            for m in sandbox.messages(sandbox.channel_id)[:-1]
            if m.embeds and not m.ephemeral
        ),
        what="earlier boards no longer say the AI is thinking",
    )
    assert any(m.embeds and m.embeds[0].get("description") == moved for m in sandbox.messages(sandbox.channel_id))
