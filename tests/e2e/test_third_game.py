"""A third game, added without editing any product file: the toy game of ``tests/toygame`` played end to end.

Its one descriptor is registered before the bot starts (``bot.rules.registry.register``); from then on the
client loads its cog, the renderer finds its drawer, the AI its player, the catalogue its words, the command
line its adapter, and the shared code (challenges, boards, the Move button, results, records, ratings)
serves it as it serves Veletas and Veloop. Without the registration there is no ``/toy`` at all.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from toygame import DESCRIPTOR
from toygame.rules import ToyGame

from bot import ai as real_ai
from bot import render
from bot.client import VeletasBot
from bot.rules import registry
from bot.rules.__main__ import main as rules_cli
from bot.rules.common import read_record
from bot.rules.protocol import GameState
from bot.sandbox.errors import InjectionRefused
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from bot.sandbox.users import SandboxUser
from cogs._tables import TABLES
from e2e.conftest import ManualClock, make_factory
from e2e.test_veloop import ai_has_played, newest_board_posted

PNG = b"\x89PNG"


@pytest.fixture
def toy() -> Iterator[None]:
    """The toy game registered for this test only, as a plug-in registers its game before the bot starts."""
    registry.register(DESCRIPTOR)
    try:
        yield
    finally:
        registry.unregister(DESCRIPTOR.name)
        TABLES.pop(DESCRIPTOR.name, None)


def board_of(message: Message) -> bytes:
    assert message.files["board.png"].startswith(PNG), message.files.keys()
    return message.files["board.png"]


async def start(fake: FakeDiscord, first: Member, second: Member) -> tuple[int, Message]:
    """Alice challenges Bob to a rated toy game here; Bob accepts. The game's id and its first board."""
    offer = await fake.user(first).slash("toy", "challenge", opponent=second, where="here", rated="yes")
    assert not offer.ephemeral and "to Toy (3×3 board)" in offer.content, offer.content
    cursor = fake.cursor()
    await fake.user(second).click(offer, "Accept")
    first_board = await fake.wait_for_message(predicate=lambda m: bool(m.embeds) and "Toy #" in m.text(), after=cursor)
    title = first_board.embeds[0]["title"]
    return int(title.split("#")[1].split(" ")[0]), first_board


async def typed(user: SandboxUser, square: str) -> Message:
    board = await user.slash("toy", "move", move=square)
    assert not board.ephemeral, board.content
    assert f"`{square}`" in board.text()
    return board


async def guided(fake: FakeDiscord, user: SandboxUser, board: Message, square: str, free: list[str]) -> Message:
    """The Move button under the board, then the square's button: the shared guided frame, the toy's one step."""
    step = await user.click(board, "Move")
    assert step.ephemeral and step.text().startswith("Your move as") and board_of(step)
    offered = [b["label"] for b in step.buttons if b["label"].startswith("Play ")]
    assert offered == [f"Play {each}" for each in free]
    cursor = fake.cursor()
    done = await user.click(step, f"Play {square}")
    assert done.content == f"You played `{square}`."
    return await fake.wait_for_message(
        fake.channel_id, lambda m: not m.ephemeral and bool(m.embeds) and f"`{square}`" in m.text(), after=cursor
    )


async def test_a_rated_toy_game_from_challenge_to_record_and_ratings(
    toy: None, sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, tmp_path: Path
) -> None:
    game_id, first_board = await start(sandbox, alice, bob)
    assert board_of(first_board) and [b["label"] for b in first_board.buttons] == ["Move"]
    assert "to move as Black: press **Move**, or type `/toy move`." in first_board.text()
    black, white = sandbox.user(alice), sandbox.user(bob)

    board = await typed(black, "b2")
    refused = await white.slash("toy", "move", move="b2")
    assert refused.ephemeral and refused.content == "b2 is taken.", "the toy game's refusal, from its own catalogue"
    wrong = await black.slash("toy", "move", move="b2")
    assert wrong.ephemeral and "turn" in wrong.content
    after = await guided(sandbox, white, board, "a2", ["a1", "b1", "c1", "a2", "c2", "a3", "b3", "c3"])
    assert board_of(after) != board_of(board), "each board shows the stones played"
    board = await typed(black, "a1")
    await guided(sandbox, white, board, "b1", ["b1", "c1", "c2", "a3", "b3", "c3"])
    final = await typed(black, "c3")

    description = final.embeds[0]["description"]
    assert description.startswith(f"**{alice.mention} wins.**"), description
    assert board_of(final) and [b["label"] for b in final.buttons] == ["Rematch"]
    info = await bot.store.get_game(game_id)
    assert info.status == "finished" and info.turns == ("b2", "a2", "a1", "b1", "c3") and info.winner_id == alice.id

    record = final.files[f"toy-{game_id}.txt"].decode()
    headers = read_record(record).headers
    assert headers["Game"] == "Toy" and headers["Result"] == "1-0" and headers["Black"] and headers["White"]
    exported = await black.slash("toy", "export")
    assert exported.ephemeral and exported.files[f"toy-{game_id}.txt"].decode() == record
    assert any(name.endswith(".gif") for name in exported.files), exported.files.keys()

    changes = await bot.store.rating_changes(game_id)
    mine = [c for c in changes if c.user_id == alice.id]
    theirs = [c for c in changes if c.user_id == bob.id]
    assert mine and theirs and all(c.after > c.before for c in mine) and all(c.after < c.before for c in theirs)
    assert await bot.store.player_ratings(sandbox.guild_id, alice.id, "toy")

    path = tmp_path / "toy.txt"
    path.write_text(record, encoding="utf-8")
    assert rules_cli(["--game", "toy", "replay", str(path)]) == 0


class ThreadedAi:
    """The bot's AI, in a thread: ``bot.ai.choose_turn``, which finds the toy game's player by its descriptor."""

    def __init__(self) -> None:
        self.games: list[str] = []

    async def choose_turn(self, game: GameState, level: int) -> str:
        self.games.append(game.kind.name)
        return await asyncio.to_thread(real_ai.choose_turn, game, level, seed=1)


async def test_a_toy_game_against_the_ai(
    toy: None, sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    ai = ThreadedAi()
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai=ai), sync=False)
    assert isinstance(bot, VeletasBot)
    human = sandbox.user(alice)
    intro = await human.slash("toy", "challenge", opponent=sandbox.bot_member, where="here", level=2)
    assert "against me, level 2" in intro.text(), intro.text()
    info = await bot.store.game_in_channel(sandbox.channel_id)
    while info.status == "active":
        if info.user_to_act == sandbox.bot_member.id:
            await sandbox.wait_until(
                partial(ai_has_played, sandbox, db_path, info.id, info.ply), what="the AI's turn", timeout=30
            )
        else:
            await sandbox.wait_until(partial(newest_board_posted, db_path, info.id), what="the newest board")
            info = await bot.store.get_game(info.id)
            state = info.state
            assert isinstance(state, ToyGame)
            answer = await human.slash("toy", "move", move=state.empty[-1])
            assert not answer.ephemeral, answer.content
        info = await bot.store.get_game(info.id)
    assert set(ai.games) == {"toy"} and len(ai.games) >= 2
    assert info.status == "finished" and len(info.turns) >= 5
    assert real_ai.choose_turn(ToyGame(("a1", "b2", "a2")), 3) == "a3", "the toy AI blocks through the dispatch"


async def test_without_its_descriptor_the_game_is_nowhere(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    """The same bot without the registration: no /toy command, no drawer, no AI, no game of that name."""
    assert "toy" not in registry.GAMES and "toy" not in render.DRAWERS
    assert "toy" not in {command["name"] for command in sandbox.commands()}
    with pytest.raises(InjectionRefused):
        await sandbox.user(alice).slash("toy", "challenge", opponent=bob)
    with pytest.raises(registry.UnknownGame):
        real_ai.choose_turn(ToyGame(), 3)


def test_the_descriptor_names_every_part_and_each_layer_finds_it(toy: None) -> None:
    assert registry.find_game("toy") is DESCRIPTOR.kind and list(registry.GAMES)[-1] == "toy"
    drawer = render.DRAWERS["toy"]
    assert drawer.board_png(ToyGame(("b2",))).startswith(PNG) and render.drawer("toy") is drawer
    assert real_ai.choose_turn(ToyGame(("b2", "a1", "c1")), 1) == "a3", "it completes a line when it can"


@pytest.mark.slow
def test_a_process_hosts_the_games_its_setting_names() -> None:
    """``VELETAS_GAMES=toygame.plugin``: the command line replays a toy record, and the bot's tree has ``/toy``."""
    tests = Path(__file__).resolve().parents[1]
    path = os.pathsep.join([str(tests), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "VELETAS_GAMES": "toygame.plugin", "PYTHONPATH": path}
    record = ToyGame(("b2", "a1", "c3", "a3", "a2", "c1")).to_record()
    replayed = subprocess.run(
        [sys.executable, "-m", "bot.rules", "--game", "toy", "replay", "-"],
        input=record, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert replayed.returncode == 0 and replayed.stdout == "6 turns, all legal; not finished\n", replayed.stderr
    sizes = subprocess.run(
        [sys.executable, "-m", "bot", "commands", "--sizes"], env=env, capture_output=True, text=True, check=False
    )
    assert sizes.returncode == 0 and "| `/toy` |" in sizes.stdout, sizes.stdout + sizes.stderr
    unknown = subprocess.run(
        [sys.executable, "-m", "bot.rules", "--game", "toy", "replay", "-"],
        input=record, env={**env, "VELETAS_GAMES": ""}, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert unknown.returncode == 2 and "invalid choice: 'toy'" in unknown.stderr
