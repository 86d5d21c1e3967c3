"""Workers are spared the terminal's Ctrl+C while they start (bot/lifeline.py ``spared_ctrl_c``).

A terminal sends Ctrl+C to the whole foreground process group; a worker that is still starting its
interpreter when it arrives dies of it (with a traceback on the terminal), before its first line could
ignore the signal. These start real processes and send SIGINT the moment they exist.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time

from bot.lifeline import spared_ctrl_c
from bot.render.workers import Drawers, Drawing


def _pause() -> None:
    time.sleep(0.2)


def _start_and_interrupt(spared: bool) -> int | None:
    process = multiprocessing.get_context("spawn").Process(target=_pause)
    # As in the bot's own process: Python's Ctrl+C handler, whatever the test runner's process had (a pytest-xdist
    # worker may ignore SIGINT, and its children would then ignore it too, spared or not).
    runner_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        if spared:
            with spared_ctrl_c():
                process.start()
        else:
            process.start()
    finally:
        signal.signal(signal.SIGINT, runner_handler if runner_handler is not None else signal.default_int_handler)
    assert process.pid is not None
    os.kill(process.pid, signal.SIGINT)  # still starting: Python's own handler is not even set yet
    process.join(30)
    return process.exitcode


def test_a_child_started_spared_outlives_a_ctrl_c_sent_as_it_starts() -> None:
    # Unspared, the signal kills the child as it starts, unless it lands between the fork and the exec (the copy of
    # this process then takes it, and the exec forgets it): on a loaded machine that happens, so a few tries.
    unspared = [_start_and_interrupt(spared=False) for _ in range(5)]
    assert -signal.SIGINT in unspared, f"unspared, the signal never killed the starting child: {unspared}"
    assert [_start_and_interrupt(spared=True) for _ in range(3)] == [0, 0, 0]


def test_the_parent_still_hears_ctrl_c_once_its_children_are_started() -> None:
    before = signal.getsignal(signal.SIGINT)
    with spared_ctrl_c():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGINT) is before


def _one() -> bytes:
    return b"1"


async def test_a_drawing_worker_interrupted_as_it_starts_still_draws() -> None:
    drawers = Drawers(1)
    try:
        drawers.start()
        pool = drawers._executor()
        pids = [p.pid for p in pool._processes.values()]  # the pool's own record of its workers
        assert len(pids) == 1
        os.kill(pids[0], signal.SIGINT)
        drawn = await asyncio.wait_for(drawers.draw(Drawing(_one)), 60)
        assert drawn == b"1"
        assert [p.pid for p in pool._processes.values()] == pids, "the same worker drew it: none died"
    finally:
        drawers.close()
