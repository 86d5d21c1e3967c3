"""The "Play on the board" button through the fake Discord: shown only when the Activity is set up, a click
launches it (LAUNCH_ACTIVITY) after recording the game, a refused launch answers privately, a forged id too."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.board.sessions import verify
from bot.client import VeletasBot
from bot.sandbox.errors import InjectionRefused
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.conftest import Factory, ManualClock, make_factory
from e2e.table import resign, start_game

PLAY = "Play on the board"
PUBLIC = "https://board.example.org"
SECRET = b"a-board-secret"


@pytest.fixture
def activity_factory(db_path: Path, clock: ManualClock, sandbox: FakeDiscord) -> Factory:
    return make_factory(
        db_path,
        clock,
        client_id=sandbox.application_id,
        client_secret=sandbox.client_secret,
        board_public_url=PUBLIC,
        board_secret=SECRET,
    )


@pytest.fixture
async def activity_bot(sandbox_runner: BotRunner, activity_factory: Factory) -> VeletasBot:
    started = await sandbox_runner.start(activity_factory, sync=False)
    assert isinstance(started, VeletasBot)
    return started


def labels(message: object) -> list[str]:
    return [str(b.get("label")) for b in getattr(message, "buttons", [])]


async def test_without_the_activity_settings_no_board_offers_the_button(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob)
    assert PLAY not in labels(table.boards[-1])
    finished = await resign(sandbox, table.first)
    assert PLAY not in labels(finished) and "Rematch" in labels(finished)


async def test_a_click_records_the_game_and_launches_the_activity(
    sandbox: FakeDiscord, activity_bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob)
    board = table.boards[-1]
    assert PLAY in labels(board), labels(board)
    carol = sandbox.member("carol")
    assert await sandbox.user(carol).press(board, PLAY) is None  # a spectator may open the board too
    launches = sandbox.activity_launches(carol)
    assert [(launch.channel_id, launch.guild_id) for launch in launches] == [(table.channel_id, sandbox.guild_id)]
    store = activity_bot.store
    assert await store.launched_game(carol.id, sandbox.guild_id, table.channel_id) == table.game_id
    assert await store.launched_game(alice.id, sandbox.guild_id, table.channel_id) is None
    # The callback was LAUNCH_ACTIVITY (12) and nothing was posted for it.
    answered = sandbox.state.interactions[launches[0].interaction_id]
    assert answered.response_type == 12 and answered.original_message_id is None
    # A finished game's board offers it as well (to look at the game), beside Rematch.
    finished = await resign(sandbox, table.first)
    assert PLAY in labels(finished) and "Rematch" in labels(finished)


async def test_a_refused_launch_answers_privately_with_a_personal_link(
    sandbox: FakeDiscord, activity_bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, where="thread")
    board = table.boards[-1]
    assert sandbox.state.is_thread_payload(sandbox.thread(table.channel_id))
    answer = await sandbox.user(bob).in_channel(table.channel_id).click(board, PLAY)
    refused = sandbox.take_errors()
    assert [(e.status, e.error_code) for e in refused] == [(400, 50024)], "Discord refused the launch in a thread"
    assert answer.ephemeral and sandbox.activity_launches() == []
    link = next(word for word in answer.content.split() if word.startswith(PUBLIC))
    assert link.startswith(f"{PUBLIC}/board/#session=")
    session = verify(SECRET, link.split("#session=", 1)[1], activity_bot.store.now())
    assert session is not None and (session.user_id, session.game_id) == (bob.id, table.game_id)


async def test_without_a_public_address_a_refused_launch_says_where_the_button_works(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, db_path: Path, clock: ManualClock, alice: Member, bob: Member
) -> None:
    factory = make_factory(db_path, clock, client_id=sandbox.application_id, client_secret=sandbox.client_secret)
    await sandbox_runner.start(factory, sync=False)
    sandbox.set_activities(False)
    table = await start_game(sandbox, alice, bob)
    answer = await table.first.click(table.boards[-1], PLAY)
    assert [e.error_code for e in sandbox.take_errors()] == [50035]
    assert answer.ephemeral and "text channels" in answer.content and "http" not in answer.content


async def test_a_member_without_use_activities_gets_the_link_instead(
    sandbox: FakeDiscord, activity_bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob)
    await sandbox.deny(table.channel_id, "use_embedded_activities", target=bob)
    answer = await table.second.click(table.boards[-1], PLAY)
    assert [(e.status, e.error_code) for e in sandbox.take_errors()] == [(403, 50013)]
    assert answer.ephemeral and f"{PUBLIC}/board/#session=" in answer.content
    assert sandbox.activity_launches() == []


async def test_a_forged_custom_id_is_refused_privately(
    sandbox: FakeDiscord, activity_bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob)
    elsewhere = sandbox.add_text_channel("elsewhere")
    other = await sandbox.user(alice).in_channel(elsewhere).say("a message to hang a forged button on")
    # This game's button, on a message of another channel; and a button naming no game at all.
    here = {"type": 2, "style": 2, "label": PLAY, "custom_id": f"board:play:{table.game_id}"}
    nothing = {"type": 2, "style": 2, "label": "Forged", "custom_id": f"board:play:{table.game_id + 40}"}
    other.data["components"] = [{"type": 1, "components": [here, nothing]}]
    for label in (PLAY, "Forged"):
        answer = await sandbox.user(alice).in_channel(elsewhere).click(other, label)
        assert answer.ephemeral and "no such game" in answer.content.lower(), answer.content
    assert sandbox.activity_launches() == []
    assert await activity_bot.store.launched_game(alice.id, sandbox.guild_id, elsewhere) is None
    with pytest.raises(InjectionRefused):
        await sandbox.user(alice).click(table.boards[-1], "board:play:999")


async def test_an_old_button_after_the_settings_are_gone_says_so_privately(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    activity_bot: VeletasBot,
    factory: Factory,
    alice: Member,
    bob: Member,
) -> None:
    table = await start_game(sandbox, alice, bob)
    board = table.boards[-1]
    await sandbox_runner.restart(factory)  # the same database, without DISCORD_CLIENT_ID and _SECRET
    answer = await table.first.click(board, PLAY)
    assert answer.ephemeral and answer.content == "The board page is not set up on this bot."
    assert sandbox.activity_launches() == []
