"""The bot's mining job: in the AI's worker pool, behind AI turns, only while the pool is idle."""

from __future__ import annotations

import asyncio

import pytest
from test_mining_store import GUILD, finished_game

from bot.config import Settings, SettingsError
from bot.puzzle_mining import mining_round
from bot.puzzles.values import Puzzle
from bot.rules import Game
from bot.store import Store
from cogs._ai_pool import MINING, TURN, PooledAi


@pytest.mark.slow
async def test_a_round_mines_finished_games_in_the_worker_pool_once(store: Store) -> None:
    info = await finished_game(store, 1)
    pool = PooledAi(1)
    try:
        report = await mining_round(store, pool, [], seed=3)
        assert (report.games, report.self_play) == (1, 0) and report.new > 0
        assert pool.pids, "the search ran in a worker process"
        kept = await store.puzzles_for("veloop", GUILD)
        assert len(kept) == report.new and {(p.source_game_id, p.guild_id) for p in kept} == {(info.id, GUILD)}
        again = await mining_round(store, pool, [], seed=4)
        assert (again.games, again.new) == (0, 0)
    finally:
        await asyncio.to_thread(pool.close)


class BusyPool:
    """A pool with a job running: the round must start nothing."""

    asked = 0

    def idle(self) -> bool:
        return False

    async def mine_game(self, *args: object) -> list[Puzzle]:
        self.asked += 1
        return []

    async def mine_self_play(self, *args: object) -> list[Puzzle]:
        self.asked += 1
        return []


async def test_a_busy_pool_gets_no_mining_job(store: Store) -> None:
    await finished_game(store, 1)
    pool = BusyPool()
    report = await mining_round(store, pool, [GUILD], seed=3)
    assert (report.games, report.self_play, pool.asked) == (0, 0, 0)
    assert len(await store.games_to_mine(10)) == 1, "the game waits for the next round"


@pytest.mark.slow
async def test_an_ai_turn_asked_during_mining_goes_before_the_mining_queued() -> None:
    assert TURN < MINING
    pool = PooledAi(1)
    done: list[str] = []
    small = (("rules", "current"), ("variant", "small"))

    async def mining(name: str) -> None:
        await pool.mine_self_play("veletas", small, 5, 1.0)
        done.append(name)

    async def turn() -> None:
        await pool.choose_turn(Game.new("small"), 1)
        done.append("turn")

    try:
        first = asyncio.create_task(mining("first mining"))
        while pool.idle():
            await asyncio.sleep(0.01)
        second = asyncio.create_task(mining("second mining"))
        await asyncio.sleep(0)
        await asyncio.gather(first, second, turn())
    finally:
        await asyncio.to_thread(pool.close)
    assert done == ["first mining", "turn", "second mining"]


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, True),
        ({"AI_WORKERS": "0"}, False),
        ({"PUZZLE_MINING": "off"}, False),
        ({"AI_WORKERS": "0", "PUZZLE_MINING": "ON"}, True),
    ],
)
def test_mining_is_on_by_default_when_there_are_ai_workers(environ: dict[str, str], expected: bool) -> None:
    assert Settings.from_env({"DISCORD_TOKEN": "x", **environ}).puzzle_mining is expected


def test_a_mining_switch_that_is_neither_on_nor_off_is_refused() -> None:
    with pytest.raises(SettingsError, match="PUZZLE_MINING must be on or off"):
        Settings.from_env({"DISCORD_TOKEN": "x", "PUZZLE_MINING": "yes"})


class RecordingPool(BusyPool):
    """An idle pool that notes the self-play games asked of it."""

    def __init__(self) -> None:
        self.self_play: list[tuple[str, tuple[tuple[str, str], ...]]] = []

    def idle(self) -> bool:
        return True

    async def mine_self_play(self, *args: object) -> list[Puzzle]:
        game, settings = args[0], args[1]
        assert isinstance(game, str) and isinstance(settings, tuple)
        self.self_play.append((game, settings))
        return []


async def test_self_play_copies_the_settings_a_server_plays(store: Store) -> None:
    pool = RecordingPool()
    await mining_round(store, pool, [GUILD], seed=2)
    assert [game for game, _ in pool.self_play] == ["veletas", "veloop"], "short of both: one game of each"
    await finished_game(store, 1, settings={"board": "6", "protocol": "122"})
    pool.self_play.clear()
    await mining_round(store, pool, [GUILD], seed=2)
    assert pool.self_play[-1] == ("veloop", (("board", "6"), ("protocol", "122")))
    pool.self_play.clear()
    await mining_round(store, pool, [], seed=2)
    assert pool.self_play == [], "no server short of puzzles: no self-play"
