"""Every stored change is announced, and only on the position its player saw.

Discord may refuse or lose an answer after a turn was stored (the interaction expired, 429s, 500s),
and the process may die between the commit and the post. Whatever happens, the board of what is
stored reaches the game's channel, the AI plays on from what is stored, and a turn sent before the
game changed is refused instead of landing on a position its player never saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
import os
import random
import re
import signal
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest

import cogs._delivery
from bot.client import VeletasBot
from bot.rules import Game
from bot.sandbox.errors import SandboxError
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import ManualClock
from e2e.table import pinged, random_setup_turn, start_game
from e2e.test_ai_game import _ai_game_at_play, ai_has_played

ROOT = Path(__file__).resolve().parents[2]
CALLBACK = r"^/interactions/\d+/[^/]+/callback$"
CHANNEL_POSTS = r"^/channels/\d+/messages$"


def posted_boards(fake: FakeDiscord, channel_id: int, after: int = 0) -> list[Message]:
    """Boards the bot posted to the channel itself (not as the answer to an interaction)."""
    return [
        m
        for m in fake.messages(channel_id, include_ephemeral=False)
        if m.id > after and m.interaction_id is None and m.embeds and "Veletas #" in m.text()
    ]


def last_turn(board: Message) -> str:
    fields = {field["name"]: field["value"] for field in board.embeds[0].get("fields", [])}
    return fields["Last turn"].strip("`")


def row(db_path: Path, game_id: int) -> dict[str, Any]:
    """The game's row as committed, read by another connection (as another process would)."""
    with sqlite3.connect(db_path) as db:
        db.row_factory = sqlite3.Row
        found = db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
    assert found is not None
    return dict(found)


async def announced(fake: FakeDiscord, db_path: Path, game_id: int) -> dict[str, Any]:
    """Wait until the board of the newest stored change is marked as posted; returns the row then."""
    await fake.wait_until(
        lambda: row(db_path, game_id)["posted_version"] == row(db_path, game_id)["version"], what="the board's mark"
    )
    return row(db_path, game_id)


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Board posts are retried after a few hundredths of a second instead of seconds."""
    monkeypatch.setattr(cogs._delivery, "RETRY_DELAYS", (0.05, 0.1, 0.2), raising=False)


@contextmanager
def stale_id_next(fake: FakeDiscord, stale: int) -> Iterator[None]:
    """Make the next interaction carry ``stale`` as its id: sent then, delivered now."""
    snowflakes = fake.state.snowflakes
    original = snowflakes.next

    def once() -> int:
        snowflakes.next = original  # type: ignore[method-assign]
        return stale

    snowflakes.next = once  # type: ignore[method-assign]
    try:
        yield
    finally:
        snowflakes.next = original  # type: ignore[method-assign]


# --- a move stored just before the process dies ---------------------------------------------------


def _env(fake: FakeDiscord, db_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD"))}
    return env | {
        "PYTHONPATH": str(ROOT),
        "DISCORD_TOKEN": fake.token,
        "DISCORD_API_BASE": fake.api_base,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "DATABASE_PATH": str(db_path),
        "LOG_LEVEL": "WARNING",
        "AI_WORKERS": "0",
    }


async def _start_process(fake: FakeDiscord, db_path: Path, cwd: Path) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", env=_env(fake, db_path), cwd=cwd)
    await fake.wait_until(
        lambda: fake.commands() and fake.gateway.current is not None, timeout=60, what="the bot to connect"
    )
    return process


@pytest.mark.slow
async def test_a_move_stored_just_before_a_kill_is_posted_after_the_restart(
    sandbox: FakeDiscord, tmp_path: Path, alice: Member, bob: Member
) -> None:
    db_path = tmp_path / "veletas.sqlite3"
    process = await _start_process(sandbox, db_path, tmp_path)
    try:
        challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small", where="here")
        cursor = sandbox.cursor()
        await sandbox.user(bob).click(challenge, "Accept")
        game_id = 1
        await sandbox.wait_for_message(sandbox.channel_id, lambda m: bool(m.embeds), after=cursor, timeout=30)
        # Discord holds the answer back (a long rate limit): the turn is committed, its board not yet posted.
        sandbox.fail("POST", CALLBACK, 429, retry_after=60, times=None)
        setup = asyncio.create_task(sandbox.user(alice).slash("veletas", "setup", shooters="d4", stone="a1"))
        await sandbox.wait_until(lambda: row(db_path, game_id)["ply"] == 1, timeout=30, what="the turn to be committed")
        process.send_signal(signal.SIGKILL)
        await asyncio.wait_for(process.wait(), timeout=30)
        with pytest.raises(SandboxError):
            await setup
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    sandbox.faults.clear()
    cursor = sandbox.cursor()
    process = await _start_process(sandbox, db_path, tmp_path)
    try:
        board = await sandbox.wait_for_message(
            sandbox.channel_id,
            lambda m: m.interaction_id is None and bool(m.embeds) and "Veletas #1" in m.text(),
            after=cursor,
            timeout=30,
        )
        assert last_turn(board) == "d4/a1"
        assert f"<@{bob.id}>, your turn." in board.content
        assert pinged(sandbox, board) == [str(bob.id)], "the next player is pinged, and only them"
        await announced(sandbox, db_path, game_id)
        # Posted once: a second sweep (another start) finds nothing left to announce.
        assert len(posted_boards(sandbox, sandbox.channel_id, after=cursor)) == 1
    finally:
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), timeout=30) == 0
    sandbox.take_errors()


# --- answers that fail after the turn was stored -------------------------------------------------


@pytest.mark.slow
async def test_a_turn_whose_interaction_expired_is_posted_to_the_channel(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    table = await start_game(sandbox, alice, bob)
    await table.play_setup(random.Random(11))
    move = str(table.game.position.legal_moves()[0])
    mover, waiting = table.user_to_act(), table.other()
    ply_before = row(db_path, table.game_id)["ply"]
    expired = sandbox.fail("POST", CALLBACK, 404, code=10062, message="Unknown interaction", times=None)
    cursor = sandbox.cursor()
    sent = asyncio.create_task(mover.slash("veletas", "move", move=move))
    board = await sandbox.wait_for_message(
        table.channel_id, lambda m: m.interaction_id is None and bool(m.embeds), after=cursor, timeout=15
    )
    assert expired.hits >= 1
    assert last_turn(board) == move
    assert pinged(sandbox, board) == [str(waiting.member.id)]
    after = await announced(sandbox, db_path, table.game_id)
    assert after["ply"] == ply_before + 1 and after["posted_version"] == after["board_version"] == after["version"]
    sandbox.faults.remove(expired)
    with pytest.raises(SandboxError):
        await sent
    # The next player plays on from the board that was posted.
    table.game = table.game.play(move)
    answered = await table.turn(str(table.game.position.legal_moves()[0]))
    assert not answered.ephemeral and answered.embeds


@pytest.mark.slow
async def test_the_ai_moves_though_discord_refused_the_board_of_the_human_move(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    bot, _, table, ply = await _ai_game_at_play(sandbox, sandbox_runner, alice, db_path, clock, seed=3, rng=5)
    move = str(table.game.position.legal_moves()[0])
    # discord.py tries an answer five times on 429s; all five are refused.
    refused = sandbox.fail("POST", CALLBACK, 429, times=5)
    cursor = sandbox.cursor()
    sent = asyncio.create_task(table.first.slash("veletas", "move", move=move))
    await sandbox.wait_until(lambda: row(db_path, table.game_id)["ply"] == ply + 2, what="the AI's move")
    assert refused.hits == 5
    info = await bot.store.get_game(table.game_id)
    assert info.turns[ply] == move
    board = await sandbox.wait_for_message(
        table.channel_id,
        lambda m: m.interaction_id is None and bool(m.embeds) and last_turn(m) == info.turns[-1],
        after=cursor,
    )
    assert pinged(sandbox, board) == [str(alice.id)], "the human hears it is their turn again"
    with pytest.raises(SandboxError):
        await sent


async def test_the_ai_board_is_posted_though_discord_keeps_failing_it(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    db_path: Path,
    clock: ManualClock,
    fast_retries: None,
) -> None:
    bot, _, table, ply = await _ai_game_at_play(sandbox, sandbox_runner, alice, db_path, clock, seed=8, rng=9)
    # Two whole attempts at the AI's board fail (five 429s each, as discord.py retries); the third gets through.
    failing = sandbox.fail("POST", CHANNEL_POSTS, 429, times=10)
    cursor = sandbox.cursor()
    await table.turn(str(table.game.position.legal_moves()[0]))
    board = await sandbox.wait_for_message(
        table.channel_id, lambda m: m.interaction_id is None and bool(m.embeds), after=cursor, timeout=20
    )
    assert failing.hits == 10
    info = await bot.store.get_game(table.game_id)
    assert info.ply == ply + 2 and last_turn(board) == info.turns[-1]
    assert pinged(sandbox, board) == [str(alice.id)]
    await announced(sandbox, db_path, table.game_id)
    info = await bot.store.get_game(table.game_id)
    assert info.posted_version == info.board_version == info.version
    assert info.board_message_id == board.id


@pytest.mark.slow
async def test_a_channel_that_refuses_for_good_is_not_retried_forever(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    db_path: Path,
    clock: ManualClock,
    fast_retries: None,
) -> None:
    _, _, table, ply = await _ai_game_at_play(sandbox, sandbox_runner, alice, db_path, clock, seed=12, rng=13)
    forbidden = sandbox.fail("POST", CHANNEL_POSTS, 403, code=50013, message="Missing Permissions", times=None)
    await table.turn(str(table.game.position.legal_moves()[0]))
    await sandbox.wait_until(lambda: row(db_path, table.game_id)["ply"] == ply + 2, what="the AI's move")
    await sandbox.wait_until(lambda: forbidden.hits > 0, what="the AI's board to be refused")
    # Windows in which retries must not come: fast_retries would send all three within 0.35 s, so 1.3 s in all
    # leaves room for a loaded machine's late timers.
    await asyncio.sleep(0.3)
    hits = forbidden.hits
    assert 1 <= hits <= 2, "a 403 is final: no retries with backoff"
    await asyncio.sleep(1)
    assert forbidden.hits == hits, "and nothing tries again"
    sandbox.faults.remove(forbidden)


# --- a turn sent for a position that has since changed --------------------------------------------


async def test_a_move_typed_before_the_opponent_moved_is_refused(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    table = await start_game(sandbox, alice, bob)
    await table.play_setup(random.Random(21))
    mover, waiting = table.user_to_act(), table.other()
    # The waiting player presses Enter on a move now; Discord delivers it only after the opponent's move.
    sent_at = sandbox.cursor()
    first = str(table.game.position.legal_moves()[0])
    await table.turn(first)
    reply = str(table.game.position.legal_moves()[0])
    before = row(db_path, table.game_id)["turns"]
    with stale_id_next(sandbox, sent_at):
        late = await waiting.slash("veletas", "move", move=reply)
    assert late.ephemeral and "moved on after you sent this" in late.content
    assert row(db_path, table.game_id)["turns"] == before, "nothing was played"
    # The same move, sent after the board was seen, is played.
    played = await waiting.slash("veletas", "move", move=reply)
    assert not played.ephemeral and last_turn(played) == reply
    assert mover is not waiting


async def test_an_undo_and_replay_while_the_ai_thinks_never_lands_the_stale_move(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    bot, ai, table, ply = await _ai_game_at_play(sandbox, sandbox_runner, alice, db_path, clock, seed=14, rng=15)
    asked: list[tuple[str, ...]] = []
    choose = ai.choose_turn

    async def recording(game: Game, level: int) -> str:
        asked.append(game.turns)
        return await choose(game, level)

    ai.choose_turn = recording  # type: ignore[method-assign]
    human, game_id = table.first, table.game_id
    ai.gate.clear()
    first, second = (str(m) for m in table.game.position.legal_moves()[:2])
    await table.turn(first)
    await sandbox.wait_until(lambda: game_id in bot.ai_thinking, what="the AI to start thinking")
    await human.slash("veletas", "undo")
    replayed = await human.slash("veletas", "move", move=second)
    assert last_turn(replayed) == second, "same ply, another position"
    ai.gate.set()
    await sandbox.wait_until(partial(ai_has_played, sandbox, db_path, game_id, ply + 1), what="the AI's move")
    info = await bot.store.get_game(game_id)
    assert info.turns[ply] == second and info.ply == ply + 2
    assert asked[-1] == info.turns[: ply + 1], "the move that landed was searched on the replayed position"
    assert not any("could not find my move" in m.text() for m in sandbox.messages(sandbox.channel_id))
    assert info.user_to_act == alice.id


# --- answering in time when the bot is late --------------------------------------------------------


async def test_an_interaction_that_already_waited_is_deferred_at_once(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob)
    # An interaction created 1.5 s ago (the bot was busy): the answer must not wait for a 1.2 s timer.
    old = sandbox.cursor() - (1500 << 22)
    with stale_id_next(sandbox, old):
        board = await table.first.slash("veletas", "board")
    interaction = sandbox.state.interactions[old]
    assert interaction.response_type == 5, "deferred (thinking...) first"
    assert board.embeds and not board.loading


# --- buttons posted before versions existed --------------------------------------------------------


async def test_pie_buttons_posted_before_the_upgrade_still_work_and_stale_ones_refuse(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob)
    board = await table.turn(random_setup_turn(table.game, random.Random(31)))
    assert table.game.phase == "pie"
    ids = [b["custom_id"] for b in board.buttons]
    assert all(re.fullmatch(r"veletas:pie:\d+:v\d+:(keep|swap)", i) for i in ids), ids
    # The same board as an older bot posted it: its buttons carry the ply instead of a version.
    for row_ in board.data["components"]:
        for item in row_["components"]:
            item["custom_id"] = re.sub(r":v\d+:", ":1:", item["custom_id"])
    stale = copy.deepcopy(board.data)
    kept = await table.second.click(board, "Keep colours")
    assert not kept.ephemeral and kept.embeds, kept.content
    # A ply-carrying button for a ply that has passed is refused, as before (shown again on the old board
    # once the bot has taken its buttons away, as a client that missed the edit would still show it).
    await sandbox.wait_until(lambda: board.buttons == [], what="the old board losing its buttons")
    board.data.update(stale)
    late = await table.first.click(board, "Swap colours")
    assert late.ephemeral and "a moment before" in late.content


async def test_background_work_cancelled_before_it_began_is_dropped_without_a_warning(bot: VeletasBot) -> None:
    """A board's buttons being taken off, spawned just as the bot closes, is cancelled before it runs: it is closed
    (dropped quietly), not left as a coroutine nobody awaited, which Python warns about."""
    ran: list[int] = []

    async def work() -> None:
        ran.append(1)

    coro = work()
    task = bot.spawn(coro, name="cancelled-at-once")
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert ran == []
    assert inspect.getcoroutinestate(coro) == inspect.CORO_CLOSED


async def test_a_retired_board_that_discord_cannot_be_reached_for_is_left_as_it_is_without_an_error(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Taking the buttons off the previous board is best effort: a connection that fails (Discord unreachable
    for a moment) is not an error of the bot's, and the game goes on."""
    import aiohttp
    import discord

    table = await start_game(sandbox, alice, bob)
    await table.play_setup(random.Random(4))
    tried: list[int] = []

    async def unreachable(self: discord.PartialMessage, **_: Any) -> None:
        tried.append(self.id)
        raise aiohttp.ClientOSError(104, "Connection reset by peer")

    monkeypatch.setattr(discord.PartialMessage, "edit", unreachable)
    caplog.set_level("DEBUG", logger="bot.client")
    await table.turn(str(table.game.position.legal_moves()[0]))
    await sandbox.wait_until(lambda: bool(tried), what="an attempt to take the old board's buttons off")
    await asyncio.sleep(0.05)
    assert not [r for r in caplog.records if r.levelname == "ERROR" and "retire-board" in r.getMessage()]
    after = await table.turn(str(table.game.position.legal_moves()[0]))
    assert "board.png" in after.files and not after.ephemeral


@pytest.mark.slow
@pytest.mark.parametrize(("status", "retry_after"), [(500, 0.05), (502, 0.05), (429, 0.3)])
async def test_the_ai_board_follows_discord_taking_posts_again_within_moments_and_a_sign_of_life_comes_first(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    db_path: Path,
    clock: ManualClock,
    status: int,
    retry_after: float,
) -> None:
    """Discord refuses the AI's board five times. discord.py alone retried server errors after 1, 3, 5, 7 and
    9 s, then the bot waited 1 s more: the board came about 26 s after the first refusal, with nothing shown
    meanwhile. Now the first refusal shows the bot typing in the channel, a server error is retried on the
    bot's own schedule (0.1, 0.2, 0.4, 0.8, 1.6 s) and a 429 after its Retry-After, so the board arrives
    moments after Discord takes posts again. Times are the fake's clock at each request it received."""
    bot, ai, table, ply = await _ai_game_at_play(sandbox, sandbox_runner, alice, db_path, clock, seed=8, rng=9)
    await announced(sandbox, db_path, table.game_id)  # the AI's last board is out: the next post is its next
    ai.gate.clear()
    failing = sandbox.fail("POST", CHANNEL_POSTS, status, retry_after=retry_after, times=5)
    cursor, seen = sandbox.cursor(), len(sandbox.requests)
    await table.turn(str(table.game.position.legal_moves()[0]))
    ai.gate.set()
    board = await sandbox.wait_for_message(
        table.channel_id, lambda m: m.interaction_id is None and bool(m.embeds), after=cursor, timeout=60
    )
    assert failing.hits == 5
    info = await bot.store.get_game(table.game_id)
    assert info.ply == ply + 2 and last_turn(board) == info.turns[-1]
    requests = sandbox.requests[seen:]
    posts = [r for r in requests if r.method == "POST" and re.fullmatch(CHANNEL_POSTS, r.path)]
    refused, taken = [r for r in posts if r.faulted], [r for r in posts if not r.faulted]
    assert len(refused) == 5 and len(taken) == 1 and taken[0].at > refused[-1].at
    typing = [r for r in requests if r.method == "POST" and r.path == f"/channels/{table.channel_id}/typing"]
    after_last_refusal = taken[0].at - refused[-1].at
    to_board = taken[0].at - refused[0].at
    assert typing, "nothing showed the player that the bot was still at it"
    assert 0 <= typing[0].at - refused[0].at < 0.5
    if status == 429:
        # discord.py waits each Retry-After (the fifth too) before the failure comes back; then 0.1 s.
        assert to_board < 5 * retry_after + 0.1 + 1.0
    else:
        # Each attempt draws the newest board again, which takes a moment on a busy machine.
        assert to_board < 0.1 + 0.2 + 0.4 + 0.8 + 1.6 + 2.0
        assert after_last_refusal < 1.6 + 0.8
    assert pinged(sandbox, board) == [str(alice.id)]
    await announced(sandbox, db_path, table.game_id)
