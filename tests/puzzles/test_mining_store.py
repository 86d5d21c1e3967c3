"""Mining stored games: the cursor, fair play, provenance, the command line (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_store import ALICE, BOB

from bot.puzzle_mining import _in_thread as mine_stored_default
from bot.puzzle_mining import main, mine_stored, top_up
from bot.puzzles.mine import self_play
from bot.puzzles.values import Puzzle
from bot.store import Store
from bot.store.values import GameInfo

LOOP = {"board": "5", "protocol": "alternating"}
GUILD = 1000
OTHER_GUILD = 3000
ROOT = Path(__file__).resolve().parents[2]


async def finished_game(
    store: Store,
    seed: int,
    *,
    guild: int = GUILD,
    channel: int = 2000,
    end: bool = True,
    settings: dict[str, str] = LOOP,
) -> GameInfo:
    """A Veloop game (5×5 unless ``settings`` say otherwise) between Alice and Bob, played to its end (or all but
    its last turn) with self-play turns."""
    info = await store.create_challenge(
        guild_id=guild,
        channel_id=channel,
        challenger_id=ALICE,
        opponent_id=BOB,
        where="here",
        expires_at=None,
        game="veloop",
        settings=settings,
    )
    info = await store.accept_challenge(info.id, BOB, channel_id=channel)
    turns = self_play("veloop", settings, seed)
    for turn in turns if end else turns[:-1]:
        actor = info.user_to_act
        assert actor is not None
        info = await store.play(info.id, actor, turn)
    assert (info.status == "finished") == end
    return info


@pytest.mark.slow
async def test_a_second_run_searches_no_game_again(store: Store) -> None:
    first = await finished_game(store, 1)
    report = await mine_stored(store, games=10)
    assert report.games == 1 and report.new == sum(report.found.values()) > 0
    kept = await store.puzzles_for("veloop", GUILD)
    assert kept and {(p.source_game_id, p.guild_id) for p in kept} == {(first.id, GUILD)}
    again = await mine_stored(store, games=10)
    assert (again.games, again.new) == (0, 0)
    assert await store.puzzles_for("veloop", GUILD) == kept
    second = await finished_game(store, 17, channel=2001)
    third = await mine_stored(store, games=10)
    assert third.games == 1 and {p.source_game_id for p in await store.puzzles_for("veloop", GUILD)} == {
        first.id,
        second.id,
    }


async def test_a_game_in_play_is_never_handed_to_the_miner(store: Store) -> None:
    playing = await finished_game(store, 1, end=False)
    assert playing.status == "active"
    assert await store.games_to_mine(10) == []
    assert (await mine_stored(store, games=10)).games == 0
    puzzle = Puzzle(
        game="veloop",
        settings=LOOP,
        before=playing.turns,
        solution=("a1<b3",),
        goal="confine",
        source_game_id=playing.id,
        guild_id=GUILD,
    )
    with pytest.raises(ValueError, match="only a finished game"):
        await store.record_mined(playing.id, [puzzle])
    assert await store.puzzles_for("veloop", GUILD) == []


@pytest.mark.slow
async def test_a_games_puzzles_go_to_its_own_server_only(store: Store) -> None:
    theirs = await finished_game(store, 1, guild=OTHER_GUILD, channel=2002)
    await mine_stored(store, games=10)
    assert await store.puzzles_for("veloop", GUILD) == []
    assert {p.guild_id for p in await store.puzzles_for("veloop", OTHER_GUILD)} == {OTHER_GUILD}
    mine = await finished_game(store, 17)
    found = await store.games_to_mine(10)
    assert [g.id for g in found] == [mine.id]
    wrong = Puzzle(
        game="veloop",
        settings=LOOP,
        before=(),
        solution=("a1<b3",),
        goal="confine",
        source_game_id=mine.id,
        guild_id=OTHER_GUILD,
    )
    with pytest.raises(ValueError, match="must carry its server"):
        await store.record_mined(mine.id, [wrong])
    assert [g.id for g in await store.games_to_mine(10)] == [mine.id], "nothing was written"
    assert theirs.id not in {p.source_game_id for p in await store.puzzles_for("veloop", GUILD)}


async def test_self_play_puzzles_belong_to_every_server(store: Store) -> None:
    report = await top_up(store, count=1, game="veloop", seed=4, choices=(("veloop", LOOP),))
    assert report.self_play == 1 and report.new > 0
    seen = await store.puzzles_for("veloop", GUILD)
    assert seen == await store.puzzles_for("veloop", OTHER_GUILD)
    assert all(p.guild_id is None and p.source_game_id is None for p in seen)
    assert await store.puzzle_count("veloop", GUILD) == len(seen) == report.new


@pytest.mark.slow
def test_the_command_mines_a_database_and_prints_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bot.db"

    async def prepare() -> None:
        store = await Store.open(path)
        try:
            await finished_game(store, 1)
        finally:
            await store.close()

    asyncio.run(prepare())
    assert main(["mine", "--games", "5", "--game", "veloop", "--self-play", "0"], path) == 0
    out = capsys.readouterr().out
    assert "Searched 1 finished game and 0 self-play games: found 3 puzzles, 3 of them new." in out
    assert "veloop: 3 (3 in 2 turns)" in out
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM puzzles").fetchone() == (3,)
        assert db.execute("SELECT COUNT(*) FROM puzzle_mined_games").fetchone() == (1,)
    assert main(["mine"], path) == 0
    assert "Searched 0 finished games and 0 self-play games: found 0 puzzles, 0 of them new." in capsys.readouterr().out


def test_the_command_runs_as_python_m_bot(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    done = subprocess.run(
        [sys.executable, "-m", "bot", "puzzles", "mine", "--database", str(missing)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and "no database at" in done.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "bot", "puzzles", "dig"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "usage: python -m bot puzzles mine" in bad.stderr


async def test_self_play_rounds_take_the_boards_in_turn(store: Store) -> None:
    played: list[tuple[str, tuple[tuple[str, str], ...]]] = []

    async def player(game: str, settings: tuple[tuple[str, str], ...], seed: int, seconds: float) -> list[Puzzle]:
        played.append((game, settings))
        return []

    choices = (("veloop", LOOP), ("veloop", {"board": "8", "protocol": "122"}))
    await top_up(store, count=4, game="veloop", seed=1, player=player, choices=choices)
    assert len(set(played)) == 2 and played[:2] == played[2:]
    firsts = set()
    for seed in range(8):
        played.clear()
        await top_up(store, count=1, game="veloop", seed=seed, player=player, choices=choices)
        firsts.add(played[0])
    assert len(firsts) == 2, "one game a round still reaches every board"


@pytest.mark.slow
async def test_a_game_the_search_fails_on_is_skipped_not_retried_for_ever(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    broken = await finished_game(store, 1)
    fine = await finished_game(store, 17, channel=2001)
    asked: list[int] = []

    async def miner(*args: object) -> list[Puzzle]:
        game_id = args[4]
        assert isinstance(game_id, int)
        asked.append(game_id)
        if game_id == broken.id:
            raise RuntimeError("the AI found no puzzle mining in 2 attempts")
        return await mine_stored_default(*args)

    report = await mine_stored(store, games=10, miner=miner)
    assert asked == [broken.id, fine.id] and report.games == 2
    assert f"Searching game {broken.id} for puzzles failed" in caplog.text
    assert {p.source_game_id for p in await store.puzzles_for("veloop", GUILD)} == {fine.id}
    assert await store.games_to_mine(10) == []
