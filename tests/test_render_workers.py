"""Boards drawn in worker processes (bot/render/workers.py): the same bytes as drawn here, in another process,
and still drawn when a worker dies."""

from __future__ import annotations

import asyncio
import os
import pickle
import signal

import pytest

from bot import render
from bot.config import Settings, SettingsError
from bot.i18n import words
from bot.render.workers import Drawers, Drawing
from bot.rules import Game, veloop


def boards() -> list[Drawing]:
    """A Veloop board mid-game and a Veletas game in its setup, in Japanese with names in two scripts."""
    game = veloop.Game.new()
    for _ in range(6):
        game = game.play(str(next(m for m in game.position.legal_moves() if not m.is_pass)))
    names = {"black": "黒石 🎌", "white": "Émile *bold*"}
    ja = words("ja")
    return [
        Drawing(
            render.veloop_board_png,
            (game.position,),
            {"last_move": game.last_move, "players": names, "theme": "dark", "result": None, "words": ja},
        ),
        Drawing(render.game_png, (Game.new("standard"),), {"players": names, "theme": "light", "words": ja}),
    ]


def test_a_catalogue_crosses_to_another_process_as_its_language() -> None:
    ja = words("ja")
    assert len(pickle.dumps(ja)) < 100
    assert pickle.loads(pickle.dumps(ja)) is ja


@pytest.mark.slow
async def test_a_worker_draws_the_same_bytes_as_this_process_in_a_process_of_its_own() -> None:
    drawers = Drawers(1, languages=["en"])
    drawers.start()
    try:
        worker = await drawers.draw(Drawing(os.getpid))  # type: ignore[arg-type]
        assert worker != os.getpid()
        for drawing in boards():
            assert await drawers.draw(drawing) == drawing()
    finally:
        drawers.close()


@pytest.mark.slow
async def test_a_dead_worker_costs_no_board_and_a_fresh_one_takes_its_place_after_a_pause() -> None:
    drawers = Drawers(1, respawn_after=0.5)
    try:
        first = await drawers.draw(Drawing(os.getpid))  # type: ignore[arg-type]
        os.kill(int(first), signal.SIGKILL)
        drawing = boards()[0]
        assert await drawers.draw(drawing) == drawing(), "the board the dead worker held is drawn here"
        # No new worker at once (one that cannot start would otherwise cost a process start per board).
        assert await drawers.draw(Drawing(os.getpid)) == os.getpid()  # type: ignore[arg-type]
        await asyncio.sleep(0.6)
        second = await drawers.draw(Drawing(os.getpid))  # type: ignore[arg-type]
        assert second not in (first, os.getpid()), "a new worker process"
        assert await drawers.draw(drawing) == drawing()
    finally:
        drawers.close()


async def test_without_workers_or_once_closed_boards_are_drawn_in_this_process() -> None:
    assert await Drawers(0).draw(Drawing(os.getpid)) == os.getpid()  # type: ignore[arg-type]
    drawers = Drawers(1)
    drawers.close()
    assert await drawers.draw(Drawing(os.getpid)) == os.getpid()  # type: ignore[arg-type]
    drawing = boards()[1]
    assert await drawers.draw(drawing) == drawing()


def test_the_bot_draws_in_one_worker_unless_told_otherwise() -> None:
    def settings(**env: str) -> Settings:
        return Settings.from_env({"DISCORD_TOKEN": "t", **env}, dotenv=False)

    assert settings().drawing_workers == 1
    assert settings(DRAWING_WORKERS="3").drawing_workers == 3
    assert settings(DRAWING_WORKERS="0").drawing_workers == 0
    with pytest.raises(SettingsError, match="DRAWING_WORKERS must be a whole number"):
        settings(DRAWING_WORKERS="two")
