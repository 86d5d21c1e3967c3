"""Clocks end to end, on a simulated clock: time controls chosen in the challenge, shown on boards,
enforced by the scheduler across restarts, reminders sent once, downtime given back."""

from __future__ import annotations

import re

import pytest

from bot.client import VeletasBot
from bot.rules.common import read_record
from bot.rules.veloop import Game
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import Factory, ManualClock
from e2e.table import pinged


async def start(
    sandbox: FakeDiscord, first: Member, second: Member, time: str, *, board: str = "5"
) -> tuple[Message, int]:
    challenge = await sandbox.user(first).slash(
        "veloop", "challenge", opponent=second, board=board, protocol="alternating", where="here", time=time
    )
    assert not challenge.ephemeral, challenge.content
    cursor = sandbox.cursor()
    await sandbox.user(second).click(challenge, "Accept")
    board_message = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "Veloop #" in m.text(), after=cursor
    )
    game_id = int(board_message.embeds[0]["title"].split("#")[1].split(" ")[0])
    return board_message, game_id


def field(message: Message, name: str) -> str:
    return next(f["value"] for f in message.embeds[0]["fields"] if f["name"] == name)


def first_move(board: str = "5") -> str:
    game = Game.new(int(board), "alternating")
    return str(game.position.legal_moves()[0])


def opening(count: int, board: str = "5") -> list[str]:
    """The first ``count`` turns of an alternating game, each the first legal move."""
    game, turns = Game.new(int(board), "alternating"), []
    for _ in range(count):
        turn = str(game.position.legal_moves()[0])
        turns.append(turn)
        game = game.play(turn)
    return turns


async def both_move(sandbox: FakeDiscord, first: Member, second: Member) -> None:
    """Each player's first move, at once: from here on a resignation or a flag decides the game (not aborted)."""
    for player, turn in zip((first, second), opening(2), strict=True):
        await sandbox.user(player).slash("veloop", "move", move=turn)


async def minutes_pass(sandbox: FakeDiscord, bot: VeletasBot, clock: ManualClock, minutes: float) -> None:
    clock.advance(minutes)
    assert bot.scheduler is not None
    bot.scheduler.wake()


def clocks_shown(board: Message) -> tuple[int, int]:
    """The two clocks a board shows, in seconds: Black's, then White's."""
    match = re.search(r"Black (\d+):(\d\d) · White (\d+):(\d\d)", field(board, "Clock"))
    assert match, field(board, "Clock")
    return int(match[1]) * 60 + int(match[2]), int(match[3]) * 60 + int(match[4])


@pytest.mark.slow
async def test_a_live_game_with_increments_is_lost_on_time(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    board, game_id = await start(sandbox, alice, bob, "1+3")
    assert "1 min + 3 s" in field(board, "Clock")
    black, white = clocks_shown(board)
    assert black == 60 and white == 60, "a minute each; nobody's runs before their first move"
    assert "<t:" in field(board, "Clock"), "the deadline is a Discord timestamp, in each reader's own zone"
    await both_move(sandbox, alice, bob)
    clock.advance(10 / 60)
    moved = await sandbox.user(alice).slash("veloop", "move", move=opening(3)[2])
    black, white = clocks_shown(moved)
    assert 51 <= black <= 53 and 58 <= white <= 60, "10 s spent (and a moment of real time), 3 s added"
    cursor = sandbox.cursor()
    await minutes_pass(sandbox, bot, clock, 1.2)
    final = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "lost on time" in m.text(), after=cursor
    )
    description = final.embeds[0]["description"]
    assert description.startswith(f"**{alice.mention} wins.**") and "White lost on time" in description
    record = read_record(final.files[f"veloop-{game_id}.txt"].decode()).headers
    assert record["Termination"] == "time forfeit" and record["Result"] == "1-0"
    assert [b["label"] for b in final.buttons] == ["Rematch", "Review"] and pinged(sandbox, final) == []
    info = await bot.store.get_game(game_id)
    assert info.status == "finished" and info.termination == "time forfeit" and info.winner_id == alice.id


async def test_a_move_after_the_flag_fell_is_refused(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    _, game_id = await start(sandbox, alice, bob, "1+0")
    clock.advance(2)  # not woken: the scheduler has not acted yet, the move arrives first
    late = await sandbox.user(alice).slash("veloop", "move", move=first_move())
    assert late.ephemeral and "time ran out" in late.content
    assert (await bot.store.get_game(game_id)).ply == 0


@pytest.mark.slow
async def test_downtime_is_given_back_then_the_correspondence_game_is_lost_on_time_after_the_restart(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    factory: Factory,
    alice: Member,
    bob: Member,
    clock: ManualClock,
) -> None:
    bot = await sandbox_runner.start(factory, sync=False)
    assert isinstance(bot, VeletasBot)
    board, game_id = await start(sandbox, alice, bob, "1d")
    assert "1 day per move" in field(board, "Clock")
    await both_move(sandbox, alice, bob)
    await sandbox_runner.stop()
    clock.advance(3 * 24 * 60)  # the bot is down for three days, past Black's deadline
    bot = await sandbox_runner.start(factory, sync=False)
    assert isinstance(bot, VeletasBot)
    assert bot.scheduler is not None
    await sandbox.wait_until(lambda: bot.scheduler is not None and bot.scheduler._last_alive > 0)
    bot.scheduler.wake()
    info = await bot.store.get_game(game_id)
    assert info.status == "active", "nobody loses on time because the bot was down"
    assert info.clock is not None and info.clock.deadline() is not None
    cursor = sandbox.cursor()
    await minutes_pass(sandbox, bot, clock, 24 * 60 + 1)
    final = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "lost on time" in m.text(), after=cursor
    )
    assert f"**{bob.mention} wins.**" in final.embeds[0]["description"]


@pytest.mark.slow
async def test_a_reminder_is_sent_once_even_across_a_restart(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    factory: Factory,
    alice: Member,
    bob: Member,
    clock: ManualClock,
) -> None:
    bot = await sandbox_runner.start(factory, sync=False)
    assert isinstance(bot, VeletasBot)
    _, game_id = await start(sandbox, alice, bob, "2d")
    await both_move(sandbox, alice, bob)
    cursor = sandbox.cursor()
    await minutes_pass(sandbox, bot, clock, 24 * 60 + 1)
    reminder = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: "left on your clock" in m.content, after=cursor
    )
    assert reminder.content.startswith(f"{alice.mention}, 1 day left on your clock in Veloop #{game_id} (<t:")
    assert pinged(sandbox, reminder) == [str(alice.id)]
    bot = await sandbox_runner.restart(factory)
    assert isinstance(bot, VeletasBot) and bot.scheduler is not None
    await sandbox.wait_until(lambda: bot.scheduler is not None and bot.scheduler._last_alive > 0)
    bot.scheduler.wake()
    await bot.scheduler.run_due()
    reminders = [m for m in sandbox.messages(sandbox.channel_id) if "left on your clock" in m.content]
    assert len(reminders) == 1, "the 24-hour reminder is not sent again"


@pytest.mark.slow
async def test_a_player_who_chose_direct_messages_gets_turns_and_reminders_there(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    chosen = await sandbox.user(bob).slash("player", "notify", how="dm")
    assert chosen.ephemeral and "a direct message" in chosen.content
    _, game_id = await start(sandbox, alice, bob, "2d")
    moved = await sandbox.user(alice).slash("veloop", "move", move=first_move())
    assert pinged(sandbox, moved) == [], "Bob chose direct messages: the board does not ping him"
    dm = await sandbox.wait_until(lambda: sandbox.direct_messages(bob))
    assert f"Your turn in Veloop #{game_id}" in dm[0].content
    cursor = sandbox.cursor()
    await minutes_pass(sandbox, bot, clock, 24 * 60 + 1)
    await sandbox.wait_until(lambda: len(sandbox.direct_messages(bob)) == 2)
    assert "left on your clock" in sandbox.direct_messages(bob)[1].content
    assert not [m for m in sandbox.messages(sandbox.channel_id) if m.id > cursor and "left on your clock" in m.content]


async def test_closed_direct_messages_fall_back_to_a_ping_and_are_not_tried_again(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    bob.accepts_dms = False
    await sandbox.user(bob).slash("player", "notify", how="dm")
    await start(sandbox, alice, bob, "2d")
    await sandbox.user(alice).slash("veloop", "move", move=first_move())
    refused = await sandbox.wait_until(lambda: sandbox.take_errors())
    assert [e.error_code for e in refused] == [50007]
    await sandbox.wait_until(lambda: bot.store._notify.get(bob.id) is not None and bot.store._notify[bob.id].dm_blocked)
    prefs = await bot.store.get_notify(bob.id)
    assert prefs.dm_blocked and prefs.wants_ping, "the refusal is remembered; Bob is pinged instead"
    again = await sandbox.user(alice).slash("veloop", "undo")
    assert not again.ephemeral
    shown = await sandbox.user(bob).slash("player", "notify")
    assert "refused" in shown.content
    assert sandbox.take_errors() == [], "a closed inbox is not tried again"


async def test_the_server_default_clock_and_a_bad_time_option(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    owner = sandbox.user(sandbox.state.owner)
    saved = await owner.slash("settings", time="3d", inactivity=21)
    assert saved.ephemeral and "3 days per move" in saved.content and "21 days" in saved.content
    challenge = await sandbox.user(alice).slash("veloop", "challenge", opponent=bob, where="here")
    assert "Clock: 3 days per move." in challenge.content
    bad = await sandbox.user(bob).slash("veletas", "challenge", opponent=alice, time="soon")
    assert bad.ephemeral and "is not a time control" in bad.content
    choices = await sandbox.user(bob).autocomplete("veletas", "challenge", time="10+")
    assert "10+5" in [c["value"] for c in choices] and all(c["value"].startswith("10+") for c in choices)


async def test_take_backs_give_both_clocks_back_as_they_were_and_keep_no_increment(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    """Five take-backs under 1+10, Black moving after 7 s each time: the 35 s stay spent, no increment is kept."""
    _, game_id = await start(sandbox, alice, bob, "1+10")
    await both_move(sandbox, alice, bob)  # each side's first move is free: the clocks run from here
    for _ in range(5):
        clock.advance(7 / 60)
        moved = await sandbox.user(alice).slash("veloop", "move", move=opening(3)[2])
        assert not moved.ephemeral, moved.content
        ask = await sandbox.user(alice).slash("veloop", "undo")
        clock.advance(4 / 60)  # White's time runs while the request waits; the answer gives it back
        cursor = sandbox.cursor()
        answered = await sandbox.user(bob).click(ask, "Allow the take-back")
        assert "allowed the take-back" in answered.content
        board = await sandbox.wait_for_message(
            sandbox.channel_id, lambda m: bool(m.embeds) and "was taken back" in m.text(), after=cursor
        )
    black, white = clocks_shown(board)
    # Real time runs too (the interactions take a moment of it): a little under 25 s on a loaded machine.
    assert 20 <= black <= 25 and white == 60, (black, white)
    info = await bot.store.get_game(game_id)
    assert info.ply == 2 and info.clock is not None and info.clock.running == "first"
    assert 20.0 <= info.clock.first <= 25.0 and info.clock.second == 60.0, info.clock


async def test_a_take_back_accepted_after_the_time_ran_out_is_refused_and_the_flag_falls(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    _, game_id = await start(sandbox, alice, bob, "1+0")
    await both_move(sandbox, alice, bob)
    clock.advance(10 / 60)
    await sandbox.user(alice).slash("veloop", "move", move=opening(3)[2])
    ask = await sandbox.user(alice).slash("veloop", "undo")
    clock.advance(61 / 60)  # not woken: the scheduler has not flagged White yet, the answer comes first
    cursor = sandbox.cursor()
    refused = await sandbox.user(bob).click(ask, "Allow the take-back")
    assert refused.ephemeral and "Time has already run out" in refused.content
    final = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "lost on time" in m.text(), after=cursor
    )
    assert final.embeds[0]["description"].startswith(f"**{alice.mention} wins.**")
    info = await bot.store.get_game(game_id)
    assert info.status == "finished" and info.termination == "time forfeit" and info.ply == 3
    assert info.clock is not None and info.clock.second <= 0.0


async def test_resigning_after_the_opponents_time_ran_out_is_refused_and_the_flag_falls(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    _, game_id = await start(sandbox, alice, bob, "1+0")
    await both_move(sandbox, alice, bob)
    asked = await sandbox.user(bob).slash("veloop", "resign")
    clock.advance(61 / 60)  # not woken: Black's time is up and the scheduler has not acted yet
    cursor = sandbox.cursor()
    refused = await sandbox.user(bob).click(asked, "Resign")
    assert refused.ephemeral and "lost on time, not resigned" in refused.content
    final = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "lost on time" in m.text(), after=cursor
    )
    assert final.embeds[0]["description"].startswith(f"**{bob.mention} wins.**")
    info = await bot.store.get_game(game_id)
    assert info.winner_id == bob.id and info.termination == "time forfeit"


async def test_the_image_header_names_the_players_plainly_with_their_clocks_beside_and_results_by_name(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    from bot import render
    from bot.i18n import words
    from bot.render.workers import Drawing
    from bot.rules.veloop import Position
    from e2e.table import resign

    drawn: list[Drawing] = []
    original = bot.drawers.draw

    async def recording(drawing: Drawing) -> bytes:
        drawn.append(drawing)
        return await original(drawing)

    bot.drawers.draw = recording  # type: ignore[method-assign]
    await start(sandbox, alice, bob, "5+3")
    first = drawn[-1]
    assert first.kwargs["players"] == {"black": "Alice", "white": "Bob"}, "names carry no clock"
    assert first.kwargs["clocks"] == {"first": "5:00", "second": "5:00", "black": "5:00", "white": "5:00"}
    # what the status line says: the name, then "to move", then the clock
    spoken: list[tuple[str, dict[str, object]]] = []
    english = words("en")

    class Listening:
        def __call__(self, key: str, /, **data: object) -> str:
            spoken.append((key, data))
            return english(key, **data)

    position = first.args[0]
    assert isinstance(position, Position)
    render.veloop_board_png(position, players=first.kwargs["players"], clocks=first.kwargs["clocks"], words=Listening())  # type: ignore[arg-type]
    said = [english(key, **data) for key, data in spoken if key.startswith("render.veloop_to_move")]
    assert said == ["Alice to move  ·  5:00"]

    await both_move(sandbox, alice, bob)
    await resign(sandbox, sandbox.user(alice), "veloop")
    assert drawn[-1].kwargs["result"] == "Bob wins · Alice resigned", "the result names both players"


async def test_no_clock_is_accepted_in_the_word_each_language_offers(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    """The time option's description offers "none" in the member's language: that word is accepted too."""
    owner = sandbox.user(sandbox.state.owner)
    await owner.slash("settings", time="3d")
    alice.locale = "ja"
    suggested = await sandbox.user(alice).autocomplete("veletas", "challenge", time="なし")
    assert [c["value"] for c in suggested][:1] == ["none"], suggested
    assert suggested[0]["name"].startswith("none：持ち時間なし（14日間"), suggested  # Japanese punctuation
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, time="なし", where="here")
    assert not challenge.ephemeral and "no clock" in challenge.content, challenge.content
    bob.locale = "es-419"
    challenge = await sandbox.user(bob).slash("veloop", "challenge", opponent=carol, time="Ninguno")
    assert not challenge.ephemeral and "no clock" in challenge.content, challenge.content
    # Other words are still refused, in the member's language, with the word to use.
    bad = await sandbox.user(bob).slash("veletas", "challenge", opponent=alice, time="nada")
    assert bad.ephemeral and "`ninguno`" in bad.content, bad.content


@pytest.mark.slow
async def test_a_reminder_says_the_time_left_in_words_of_the_players_language(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    """Time left in words with their plural forms (Discord shows no markup there), the deadline as a timestamp."""
    bob.locale = "ja"
    await sandbox.user(bob).slash("player", "notify", how="dm")
    await start(sandbox, alice, bob, "2d")
    await both_move(sandbox, alice, bob)
    await sandbox.user(alice).slash("veloop", "move", move=opening(3)[2])
    await sandbox.wait_until(lambda: len(sandbox.direct_messages(bob)) == 2)
    await minutes_pass(sandbox, bot, clock, 24 * 60 + 1)
    await sandbox.wait_until(lambda: len(sandbox.direct_messages(bob)) == 3)
    reminder = sandbox.direct_messages(bob)[2].content
    assert re.search(r"の残り時間は1日です（<t:\d+:R>）。", reminder), reminder


def test_spans_of_time_have_each_languages_plural_forms() -> None:
    from bot.i18n import words
    from cogs._clock_words import span_words

    en, es, ja = words("en"), words("es"), words("ja")
    assert [span_words(en, s) for s in (25, 60, 3600 + 59, 86400 + 4 * 3600 + 5, 14 * 86400)] == [
        "25 seconds",
        "1 minute",
        "1 hour",
        "1 day 4 hours",
        "14 days",
    ]
    assert [span_words(es, s) for s in (1, 2 * 86400 + 3600)] == ["1 segundo", "2 días y 1 hora"]
    assert span_words(ja, 86400 + 4 * 3600) == "1日4時間"


@pytest.mark.slow
async def test_a_rated_game_the_second_player_never_moves_in_is_a_no_show_and_rates_nobody(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    _, game_id = await start(sandbox, alice, bob, "1+0")
    assert (await bot.store.get_game(game_id)).rated
    moved = await sandbox.user(alice).slash("veloop", "move", move=first_move())
    assert f"First move: {bob.mention} has 30 seconds to make it" in field(moved, "Clock"), field(moved, "Clock")
    cursor = sandbox.cursor()
    await minutes_pass(sandbox, bot, clock, 0.55)  # Bob's 30-second first-move window passes
    final = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "No-show" in m.text(), after=cursor
    )
    description = final.embeds[0]["description"]
    assert description.startswith(
        f"**No-show:** {bob.mention} did not make a first move in time; the game is not rated and counts in no record."
    ), description
    assert "→" not in final.text(), "no rating change is shown"
    record = read_record(final.files[f"veloop-{game_id}.txt"].decode()).headers
    assert record["Termination"] == "no-show" and record["Result"] == "*"
    info = await bot.store.get_game(game_id)
    assert info.no_show and info.winner_id is None and info.aborted_by == bob.id and info.absent == (bob.id,)
    assert info.clock is not None and info.clock.second == 60.0, "Bob's bank never ran"
    assert await bot.store.rating_changes(game_id) == []
    for player in (alice, bob):
        assert await bot.store.player_ratings(sandbox.guild_id, player.id, "veloop") == [], "no rating, no record"
    history = await sandbox.user(alice).slash("player", "history")
    assert "no-show" in history.text() and "won" not in history.text()
    profile = await sandbox.user(bob).slash("player", "profile")
    assert "lost" not in profile.text() and "in a row" not in profile.text(), "a no-show makes no streak"


@pytest.mark.slow
async def test_a_game_nobody_moves_in_nor_claims_is_a_double_no_show(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    board, game_id = await start(sandbox, alice, bob, "5+3")
    # 5+3: a quarter of 5 minutes and 40 increments is 105 seconds.
    assert f"First move: {alice.mention} has 1 minute 45 seconds to make it" in field(board, "Clock")
    await minutes_pass(sandbox, bot, clock, 1.7)
    assert (await bot.store.get_game(game_id)).status == "active", "15 seconds of the window are left"
    cursor = sandbox.cursor()
    await minutes_pass(sandbox, bot, clock, 0.1)
    claim = await sandbox.wait_for_message(sandbox.channel_id, lambda m: bool(m.buttons), after=cursor)
    assert [b["label"] for b in claim.buttons] == ["End the game"], "Bob could not have moved: he may end it"
    assert (await bot.store.get_game(game_id)).status == "active", "Bob's own 105-second window runs"
    await minutes_pass(sandbox, bot, clock, 1.7)
    assert (await bot.store.get_game(game_id)).status == "active", "15 seconds of Bob's window are left"
    cursor = sandbox.cursor()
    await minutes_pass(sandbox, bot, clock, 0.1)
    final = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "no-show" in m.text(), after=cursor
    )
    assert final.embeds[0]["description"].startswith(
        "**Double no-show:** neither player made a first move in time; the game is not rated"
    )
    record = read_record(final.files[f"veloop-{game_id}.txt"].decode()).headers
    assert record["Termination"] == "no-show" and record["Result"] == "*"
    info = await bot.store.get_game(game_id)
    assert info.no_show and info.aborted_by is None and set(info.absent) == {alice.id, bob.id}
    assert await bot.store.rating_changes(game_id) == []


async def claim_offered(
    sandbox: FakeDiscord, bot: VeletasBot, clock: ManualClock, minutes: float, *, word: str = "No-show"
) -> Message:
    """Let the first side's window pass; the board that offers the second side to end the game."""
    cursor = sandbox.cursor()
    await minutes_pass(sandbox, bot, clock, minutes)
    return await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and bool(m.buttons) and word in m.text(), after=cursor
    )


@pytest.mark.slow
async def test_a_first_side_that_does_not_come_is_a_no_show_the_second_side_ends_the_game_with(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, clock: ManualClock
) -> None:
    await sandbox.user(bob).slash("player", "notify", how="both")
    _, game_id = await start(sandbox, alice, bob, "1+0")
    before = await bot.store.get_game(game_id)
    offered = await claim_offered(sandbox, bot, clock, 0.55)  # Alice's 30-second window passes
    [told] = await sandbox.wait_until(
        lambda: [m for m in sandbox.direct_messages(bob) if "did not come" in m.content], what="Bob told by DM"
    )
    assert told.content.startswith(f"Your opponent did not come in Veloop #{game_id}"), told.content
    assert offered.embeds[0]["description"].startswith(
        f"**No-show:** {alice.mention} did not make a first move in time. {bob.mention} could not have moved"
    )
    assert offered.content == (
        f"{bob.mention}, your opponent did not come: press **End the game** to record their no-show "
        "(the game is not rated)."
    )
    assert pinged(sandbox, offered) == [str(bob.id)], "only Bob is called"
    assert re.search(
        rf"{alice.mention} did not make a first move in time\. {bob.mention} has 30 seconds to claim the "
        r"game \(time is up <t:\d+:R>\)",
        field(offered, "Clock"),
    ), field(offered, "Clock")
    opened = await bot.store.get_game(game_id)
    assert opened.status == "active" and opened.version == before.version + 1 and opened.aborted_by == alice.id
    assert [b["custom_id"] for b in offered.buttons] == [f"noshow:claim:{game_id}:v{opened.version}"]

    # Alice (who did not come), Carol (not playing) and a forged button are refused privately; nothing changes.
    refused = await sandbox.user(alice).click(offered, "End the game")
    assert refused.ephemeral and refused.content == (
        "You did not make your first move in time, so only your opponent can end this game now."
    )
    refused = await sandbox.user(carol).click(offered, "End the game")
    assert refused.ephemeral and refused.content == "Only the player whose opponent did not come can press this button."
    stale = {"type": 2, "style": 3, "label": "End the game", "custom_id": f"noshow:claim:{game_id}:v{before.version}"}
    other = {"type": 2, "style": 3, "label": "Forged", "custom_id": f"noshow:claim:{game_id + 40}:v1"}
    offered.data["components"] = [{"type": 1, "components": [stale, other]}]
    refused = await sandbox.user(bob).click(offered, "End the game")
    assert refused.ephemeral and refused.content.startswith("Someone else acted on this game"), "a stale version"
    refused = await sandbox.user(bob).click(offered, "Forged")
    assert refused.ephemeral and "no such game" in refused.content.lower(), refused.content
    asked = await sandbox.user(bob).slash("veloop", "resign")
    refused = await sandbox.user(bob).click(asked, "Resign")
    assert refused.ephemeral and refused.content == (
        "Your opponent did not make a first move in time, so there is nothing to resign: end the game with the button "
        "on the board instead."
    ), refused.content
    late = await sandbox.user(alice).slash("veloop", "move", move=first_move())
    assert late.ephemeral and "time ran out" in late.content, "Alice's window is over: she cannot move any more"
    now = await bot.store.get_game(game_id)
    assert (now.status, now.version, now.ply, now.aborted_by, now.clock) == (
        "active",
        opened.version,
        0,
        alice.id,
        opened.clock,
    ), "nothing changed"

    real = {"type": 2, "style": 3, "label": "End the game", "custom_id": f"noshow:claim:{game_id}:v{opened.version}"}
    offered.data["components"] = [{"type": 1, "components": [real]}]
    clock.advance(20 / 60)  # within Bob's 30 seconds
    final = await sandbox.user(bob).click(offered, "End the game")
    assert not final.ephemeral
    assert final.embeds[0]["description"].startswith(
        f"**No-show:** {alice.mention} did not make a first move in time; the game is not rated and counts in no "
        "record."
    ), final.embeds[0]["description"]
    record = read_record(final.files[f"veloop-{game_id}.txt"].decode()).headers
    assert record["Termination"] == "no-show" and record["Result"] == "*"
    info = await bot.store.get_game(game_id)
    assert info.no_show and info.aborted_by == alice.id and info.absent == (alice.id,) and info.winner_id is None
    assert await bot.store.rating_changes(game_id) == []
    rows = await bot.store._fetchall("SELECT 1 FROM due WHERE game_id = ?", (game_id,))
    assert not list(rows), "nothing more is due"


@pytest.mark.slow
async def test_a_claim_pressed_after_the_second_window_is_refused_and_the_game_is_a_double_no_show(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    _, game_id = await start(sandbox, alice, bob, "1+0")
    offered = await claim_offered(sandbox, bot, clock, 0.55)
    claim_id = offered.buttons[0]["custom_id"]
    clock.advance(0.6)  # Bob's 30 seconds pass too; the scheduler is not woken: the press arrives first
    cursor = sandbox.cursor()
    refused = await sandbox.user(bob).click(offered, "End the game")
    assert refused.ephemeral and refused.content == (
        "Too late: the time to claim this game is over, so it is a double no-show."
    )
    final = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "Double no-show" in m.text(), after=cursor
    )
    assert final.embeds[0]["description"].startswith("**Double no-show:**")
    info = await bot.store.get_game(game_id)
    assert info.no_show and info.aborted_by is None and set(info.absent) == {alice.id, bob.id}
    await sandbox.wait_until(lambda: offered.buttons == [], what="the old board loses its button")
    kept = {"type": 2, "style": 3, "label": "End the game", "custom_id": claim_id}
    offered.data["components"] = [{"type": 1, "components": [kept]}]  # a client still showing it
    again = await sandbox.user(bob).click(offered, "End the game")
    assert again.ephemeral and again.content.startswith("Too late"), again.content


async def test_the_clock_does_not_run_before_a_sides_first_move(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    """Each side moves 25 s into its 30-second window: both banks are whole; from then on the clock runs."""
    _, game_id = await start(sandbox, alice, bob, "1+0")
    clock.advance(25 / 60)
    moved = await sandbox.user(alice).slash("veloop", "move", move=first_move())
    assert clocks_shown(moved) == (60, 60), "Black's first move cost nothing"
    clock.advance(25 / 60)
    moved = await sandbox.user(bob).slash("veloop", "move", move=opening(2)[1])
    assert clocks_shown(moved)[1] == 60, "nor White's"
    info = await bot.store.get_game(game_id)
    assert info.clock is not None and (info.clock.first, info.clock.second) == (60.0, 60.0)
    assert not info.clock.awaiting_first_turn and "First move" not in field(moved, "Clock")
    assert info.clock.deadline() == pytest.approx(bot.store.now() + 60.0), "Black's whole minute runs now"


@pytest.mark.slow
async def test_the_first_move_window_is_a_due_row_that_survives_a_restart(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    factory: Factory,
    alice: Member,
    bob: Member,
    clock: ManualClock,
) -> None:
    bot = await sandbox_runner.start(factory, sync=False)
    assert isinstance(bot, VeletasBot)
    board, game_id = await start(sandbox, alice, bob, "1d")
    assert f"First move: {alice.mention} has 1 day to make it" in field(board, "Clock")
    await sandbox.user(alice).slash("veloop", "move", move=first_move())
    started = bot.store.now()
    rows = await bot.store._fetchall("SELECT kind, due_at FROM due WHERE game_id = ? ORDER BY due_at", (game_id,))
    assert [(str(r[0]), float(r[1])) for r in rows] == [
        ("reminder", pytest.approx(started + 23 * 3600)),
        ("deadline", pytest.approx(started + 24 * 3600)),
    ], "Bob's window (a day) is due, not his bank"
    bot = await sandbox_runner.restart(factory)
    assert isinstance(bot, VeletasBot) and bot.scheduler is not None
    await sandbox.wait_until(lambda: bot.scheduler is not None and bot.scheduler._last_alive > 0)
    cursor = sandbox.cursor()
    await minutes_pass(sandbox, bot, clock, 24 * 60 + 1)
    final = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "No-show" in m.text(), after=cursor
    )
    assert final.embeds[0]["description"].startswith(f"**No-show:** {bob.mention} did not make a first move in time")


@pytest.mark.slow
async def test_the_window_to_claim_a_game_is_a_due_row_that_survives_a_restart(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    factory: Factory,
    alice: Member,
    bob: Member,
    clock: ManualClock,
) -> None:
    bot = await sandbox_runner.start(factory, sync=False)
    assert isinstance(bot, VeletasBot)
    _, game_id = await start(sandbox, alice, bob, "1d")
    started = bot.store.now()
    offered = await claim_offered(sandbox, bot, clock, 24 * 60 + 1)  # Alice's day passes
    rows = await bot.store._fetchall("SELECT kind, key, due_at FROM due WHERE game_id = ?", (game_id,))
    assert [(str(r[0]), str(r[1]), float(r[2])) for r in rows] == [
        ("deadline", "claim", pytest.approx(started + 2 * 86400))
    ], "Bob's day to claim the game is due"
    bot = await sandbox_runner.restart(factory)
    assert isinstance(bot, VeletasBot) and bot.scheduler is not None
    await sandbox.wait_until(lambda: bot.scheduler is not None and bot.scheduler._last_alive > 0)
    refused = await sandbox.user(alice).click(offered, "End the game")
    assert refused.ephemeral and refused.content.startswith("You did not make your first move in time")
    cursor = sandbox.cursor()
    await minutes_pass(sandbox, bot, clock, 24 * 60)
    final = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "Double no-show" in m.text(), after=cursor
    )
    assert final.embeds[0]["description"].startswith("**Double no-show:**")
    assert (await bot.store.get_game(game_id)).aborted_by is None


async def test_a_resignation_before_the_opponent_moved_aborts_the_game(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    from e2e.table import resign

    _, game_id = await start(sandbox, alice, bob, "5+3")
    await sandbox.user(alice).slash("veloop", "move", move=first_move())
    final = await resign(sandbox, sandbox.user(alice), "veloop")
    assert final.embeds[0]["description"].startswith(
        f"**Game aborted:** {alice.mention} resigned before both players had moved; it is not rated."
    )
    info = await bot.store.get_game(game_id)
    assert info.aborted and info.aborted_by == alice.id and await bot.store.rating_changes(game_id) == []


@pytest.mark.slow
async def test_a_game_both_players_moved_in_is_lost_on_time_and_rated(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    _, game_id = await start(sandbox, alice, bob, "1+0")
    await both_move(sandbox, alice, bob)
    cursor = sandbox.cursor()
    await minutes_pass(sandbox, bot, clock, 1.2)  # Alice's minute runs out: both have moved, so she loses
    final = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "lost on time" in m.text(), after=cursor
    )
    assert final.embeds[0]["description"].startswith(f"**{bob.mention} wins.**")
    info = await bot.store.get_game(game_id)
    assert info.termination == "time forfeit" and info.winner_id == bob.id and not info.aborted
    changes = {c.user_id: c for c in await bot.store.rating_changes(game_id) if c.scope == sandbox.guild_id}
    assert changes[bob.id].after > changes[bob.id].before and changes[alice.id].after < changes[alice.id].before


@pytest.mark.slow
async def test_the_claim_is_offered_and_refused_in_the_readers_language(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, clock: ManualClock
) -> None:
    """A Japanese server: the board offering the claim, its button and the final board are Japanese; a Spanish
    member's refusal is Spanish."""
    from e2e.test_languages import assert_no_english, in_language

    alice.locale, bob.locale, carol.locale = "ja", "ja", "es-419"
    await sandbox.set_guild_locale("ja")
    challenge = await sandbox.user(alice).slash(
        "veloop", "challenge", opponent=bob, board="5", protocol="alternating", where="here", time="1+0"
    )
    cursor = sandbox.cursor()
    await sandbox.user(bob).click(challenge, "受諾")
    await sandbox.wait_for_message(sandbox.channel_id, lambda m: bool(m.embeds), after=cursor)
    offered = await claim_offered(sandbox, bot, clock, 0.55, word="不戦")
    assert [b["label"] for b in offered.buttons] == ["対局を終える"]
    assert offered.content == (
        f"{bob.mention}さん、相手が来ませんでした。**対局を終える**を押すと相手の不戦として記録されます"
        "（レーティングには反映されません）。"
    )
    assert "双方不戦" in offered.text() and in_language(offered.embeds[0]["description"], "ja")
    refused = await sandbox.user(carol).click(offered, "対局を終える")
    assert refused.ephemeral and refused.content == (
        "Solo puede pulsar este botón quien se presentó y no encontró rival."
    )
    refused = await sandbox.user(alice).click(offered, "対局を終える")
    assert (
        refused.ephemeral
        and refused.content == "期限内に最初の着手をしなかったため、この対局を終わらせられるのは相手だけです。"
    )
    final = await sandbox.user(bob).click(offered, "対局を終える")
    assert final.embeds[0]["description"].startswith(f"**不戦。** {alice.mention}が期限内に最初の着手をしなかった")
    assert assert_no_english(sandbox, [alice, bob], [sandbox.channel_id]) >= 4
