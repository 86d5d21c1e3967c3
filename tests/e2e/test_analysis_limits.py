"""Analysis under pressure: the AI's own turns first, a bounded queue, workers that are replaced alone and
recycled, only the games' boards, no hint near any live game between people, and a switch for managers."""

from __future__ import annotations

import asyncio
import random
import time
from functools import partial
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.i18n import words
from bot.rules import Geometry, Position
from bot.sandbox.errors import InjectionRefused
from bot.sandbox.rest import DEFERRED_CHANNEL_MESSAGE
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from bot.sandbox.users import SandboxUser
from cogs._ai_pool import PooledAi
from cogs.analyze import LIVE_POSITION, ONE_AT_A_TIME, QUEUE_FULL, TURNED_OFF
from e2e.ai_workers import hangs_once_at_level_1
from e2e.conftest import ManualClock, make_factory
from e2e.table import Table, random_setup_turn, start_game
from e2e.test_ai_game import ai_has_played
from e2e.test_analyze import SAMPLE, best_move

AI_FAILED = "I could not find my move"  # how delivery.ai_failed starts in English
TITLE = "Analysis · Your position"


def deferred(user: SandboxUser) -> bool:
    return any(i.response_type == DEFERRED_CHANNEL_MESSAGE for i in user.interactions)


def analysed(answer: Message) -> bool:
    return bool(answer.embeds) and answer.embeds[0]["title"] == TITLE


@pytest.mark.slow
async def test_the_ais_turn_comes_before_queued_analyses(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    bob: Member,
    carol: Member,
    db_path: Path,
    clock: ManualClock,
) -> None:
    # One worker, and a level-1 turn allowed 1.0 s + 0.5 s: four analyses of about a second each are
    # queued before the AI's turn, which must neither wait behind them nor time out for waiting.
    pool = PooledAi(1, grace=0.5)
    try:
        bot = await sandbox_runner.start(make_factory(db_path, clock, ai=pool), sync=False)
        assert isinstance(bot, VeletasBot)
        human = sandbox.user(alice)
        await human.slash("veletas", "challenge", opponent=sandbox.bot_member, variant="small", where="here", level=1)
        info = await bot.store.game_in_channel(sandbox.channel_id)
        table = Table(sandbox, human, human, sandbox.channel_id, info.game, info.id)
        side = sandbox.add_text_channel("analysis")
        askers = [
            sandbox.user(m).in_channel(side)
            for m in (bob, carol, sandbox.add_member("dave"), sandbox.add_member("erin"))
        ]
        asks = [asyncio.create_task(u.slash("veletas", "analyze", position=SAMPLE)) for u in askers]
        await sandbox.wait_until(lambda: all(deferred(u) for u in askers), what="four analyses under way")
        cursor = sandbox.cursor()
        await table.turn(random_setup_turn(table.game, random.Random(1)))
        await sandbox.wait_until(partial(ai_has_played, sandbox, db_path, info.id, info.ply + 1), timeout=30)
        answered_before = sum(a.done() for a in asks)
        answers = await asyncio.gather(*asks)
        assert all(analysed(a) and a.ephemeral for a in answers), [a.text() for a in answers]
        assert answered_before <= 2, "the AI's turn went before the analyses queued behind the first"
        assert pool.replaced == 0, "no worker was killed: the turn's clock started when a worker took it"
        assert not any(AI_FAILED in m.text() for m in sandbox.messages(sandbox.channel_id) if m.id > cursor)
    finally:
        pool.close()


@pytest.mark.slow
async def test_analyses_are_bounded_and_refused_politely(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    bob: Member,
    carol: Member,
    db_path: Path,
    clock: ManualClock,
) -> None:
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai_workers=1, analysis_queue=2), sync=False)
    assert isinstance(bot.ai, PooledAi)
    first_user = sandbox.user(alice)
    first = asyncio.create_task(first_user.slash("veletas", "analyze", position=SAMPLE))
    await sandbox.wait_until(lambda: deferred(first_user), what="alice's analysis under way")
    again = await sandbox.user(alice).slash("veletas", "analyze", position=SAMPLE)
    assert again.ephemeral and again.content == words()(ONE_AT_A_TIME), "one analysis in flight per member"
    second_user = sandbox.user(bob)
    second = asyncio.create_task(second_user.slash("veletas", "analyze", position=SAMPLE))
    await sandbox.wait_until(lambda: deferred(second_user), what="bob's analysis under way")
    full = await sandbox.user(carol).slash("veletas", "analyze", position=SAMPLE)
    assert full.ephemeral and full.content == words()(QUEUE_FULL), "two in flight is the whole queue here"
    assert not deferred(sandbox.user(carol)), "refused at once, without a thinking message"
    for answer in (await first, await second):
        assert answer.ephemeral and analysed(answer)
    later = await sandbox.user(carol).slash("veletas", "analyze", position=SAMPLE)
    assert analysed(later), "room again once the answers are out"


@pytest.mark.slow
async def test_a_stuck_worker_is_replaced_alone_and_other_games_go_on(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    bob: Member,
    db_path: Path,
    clock: ManualClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VELETAS_AI_MARKER", str(tmp_path / "misbehaved"))
    pool = PooledAi(2, worker=hangs_once_at_level_1, grace=1.0)
    try:
        bot = await sandbox_runner.start(make_factory(db_path, clock, ai=pool), sync=False)
        assert isinstance(bot, VeletasBot)
        # Bob plays the level-5 AI one channel over, up to his first move.
        side = sandbox.add_text_channel("bobs-game")
        bob_user = sandbox.user(bob).in_channel(side)
        await bob_user.slash(
            "veletas", "challenge", opponent=sandbox.bot_member, variant="small", where="here", level=5
        )
        bobs = await bot.store.game_in_channel(side)
        bob_table = Table(sandbox, bob_user, bob_user, side, bobs.game, bobs.id)
        rng = random.Random(5)
        while True:
            bobs = await bot.store.get_game(bobs.id)
            bob_table.game = bobs.game
            if bobs.user_to_act == sandbox.bot_member.id:
                await sandbox.wait_until(partial(ai_has_played, sandbox, db_path, bobs.id, bobs.ply), timeout=60)
            elif bob_table.game.phase == "play":
                break
            else:
                await bob_table.turn(random_setup_turn(bob_table.game, rng))
        # Alice's level-1 game: the AI's first search there hangs, while bob's level-5 move is searched.
        alice_user = sandbox.user(alice)
        await alice_user.slash(
            "veletas", "challenge", opponent=sandbox.bot_member, variant="small", where="here", level=1
        )
        alices = await bot.store.game_in_channel(sandbox.channel_id)
        alice_table = Table(sandbox, alice_user, alice_user, sandbox.channel_id, alices.game, alices.id)
        replaced_before = pool.replaced
        await alice_table.turn(random_setup_turn(alice_table.game, rng))
        started = time.monotonic()
        await bob_table.turn(str(bob_table.game.position.legal_moves()[0]))
        await sandbox.wait_until(partial(ai_has_played, sandbox, db_path, bobs.id, bobs.ply + 1), timeout=60)
        bob_waited = time.monotonic() - started
        await sandbox.wait_until(partial(ai_has_played, sandbox, db_path, alices.id, alices.ply + 1), timeout=60)
        assert (tmp_path / "misbehaved").exists(), "alice's first AI search did hang"
        assert pool.replaced - replaced_before == 1, "only the stuck worker was replaced"
        # Level 5 thinks 3 s (10 s at most); killing its worker too would have cost it its whole deadline.
        assert bob_waited < 9, f"bob's AI move took {bob_waited:.1f} s"
        for channel in (side, sandbox.channel_id):
            assert not any(AI_FAILED in m.text() for m in sandbox.messages(channel))
    finally:
        pool.close()


@pytest.mark.slow
async def test_workers_are_recycled_past_their_memory_bound(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai_workers=1, ai_worker_max_mb=1), sync=False)
    pool = bot.ai
    assert isinstance(pool, PooledAi)
    user = sandbox.user(alice)
    for _ in range(2):
        assert analysed(await user.slash("veletas", "analyze", position=SAMPLE))
    assert pool.recycled == 2, "every worker is past 1 MB after a search"
    assert len(set(pool.pids)) == 2, "the second analysis ran in a fresh process"
    # With room to spare, the same worker serves job after job.
    roomy = PooledAi(1, max_rss_mb=100_000)
    try:
        for _ in range(2):
            await roomy.analyze(SAMPLE, "current")
        assert roomy.recycled == 0 and len(roomy.pids) == 1
    finally:
        roomy.close()


def square_board(size: int) -> str:
    return "/".join([str(size)] * (size - 1) + [f"S{size - 1}"]) + " b"


@pytest.mark.slow
async def test_only_the_games_boards_are_analysed(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai_workers=1), sync=False)
    pool = bot.ai
    assert isinstance(pool, PooledAi)
    sizes_before = set(Geometry._cache)
    user = sandbox.user(alice)
    for size in (14, 26):
        refused = await user.slash("veletas", "analyze", position=square_board(size))
        assert refused.ephemeral and refused.content == (
            f"That is not a position I can read: the board is {size}×{size}, "
            "but games are played on 7×7, 9×9, 10×10 boards only."
        )
    assert set(Geometry._cache) == sizes_before, "nothing was built for a foreign board size"
    assert pool.pids == [], "no worker was asked"
    assert analysed(await user.slash("veletas", "analyze", position=square_board(9)))


@pytest.mark.slow
async def test_no_hint_within_two_plies_of_a_live_game(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    bob: Member,
    carol: Member,
    db_path: Path,
    clock: ManualClock,
) -> None:
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai_workers=1), sync=False)
    assert isinstance(bot, VeletasBot)
    table = await start_game(sandbox, alice, bob, variant="small", where="thread")
    rng = random.Random(7)
    await table.play_setup(rng)
    history = [table.game.position]
    for _ in range(3):
        await table.turn(str(rng.choice(table.game.position.legal_moves())))
        history.append(table.game.position)
    live = table.game.position
    side = sandbox.add_text_channel("side-room")
    spectator = sandbox.user(carol).in_channel(side)
    player = sandbox.user(alice if table.game.seat_to_act == "first" else bob).in_channel(side)
    candidate = live.play(live.legal_moves()[0])
    reply = candidate.play(candidate.legal_moves()[0])
    flipped = Position.from_string(str(live)[:-1] + ("w" if live.to_move == "black" else "b"))
    near = {
        "the live position, pasted by a spectator": (spectator, live),
        "the position after a candidate move": (player, candidate),
        "a candidate and the expected reply": (player, reply),
        "the live position with the other side to move": (spectator, flipped),
        "the position before the last move": (spectator, history[-2]),
        "the position two plies ago": (player, history[-3]),
    }
    for what, (user, position) in near.items():
        answer = await user.slash("veletas", "analyze", position=str(position))
        assert answer.ephemeral and answer.content == words()(LIVE_POSITION), what
    # Three plies ago is another question, and so is a different game altogether.
    far = await spectator.slash("veletas", "analyze", position=str(history[-4]))
    assert analysed(far) and best_move(far) in {str(m) for m in history[-4].legal_moves()}
    assert analysed(await spectator.slash("veletas", "analyze", position=SAMPLE))


@pytest.mark.slow
async def test_server_managers_switch_analysis_off_and_on(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    carol: Member,
    db_path: Path,
    clock: ManualClock,
) -> None:
    factory = make_factory(db_path, clock, ai_workers=1)
    await sandbox_runner.start(factory, sync=False)
    member = sandbox.user(alice)
    # /settings is a top-level command asking for Manage Server: Discord does not offer it to alice...
    with pytest.raises(InjectionRefused, match="manage_guild"):
        await member.slash("settings", analysis="off")
    # ...and if the server's integration settings let her use it anyway, the bot still refuses, privately.
    sandbox.permit_command("settings", alice)
    refused = await member.slash("settings", analysis="off")
    assert refused.ephemeral and "Manage Server" in refused.content
    await sandbox.grant(carol, "manage_guild")
    manager = sandbox.user(carol)
    shown = await manager.slash("settings")
    assert shown.ephemeral and "**Analysis** (`/veletas analyze`): **on**" in shown.content
    saved = await manager.slash("settings", analysis="off")
    assert saved.ephemeral and saved.content.startswith("Saved.") and "**off**" in saved.content
    off = await member.slash("veletas", "analyze", position=SAMPLE)
    assert off.ephemeral and off.content == words()(TURNED_OFF)
    # The choice is kept in the database: a restarted bot still refuses.
    await sandbox_runner.restart(factory)
    still_off = await sandbox.user(alice).slash("veletas", "analyze", position=SAMPLE)
    assert still_off.ephemeral and still_off.content == words()(TURNED_OFF)
    assert "**off**" in (await sandbox.user(carol).slash("settings")).content
    await sandbox.user(carol).slash("settings", analysis="on")
    assert analysed(await sandbox.user(alice).slash("veletas", "analyze", position=SAMPLE))
