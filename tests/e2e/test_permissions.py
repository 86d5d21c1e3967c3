"""Channel permissions a server manager can take away from the bot, and what players hear then.

Every refusal here is private, names the permissions as Discord's settings spell them, and leaves
no trace: no thread, no post, no game or challenge in the database, no request Discord refused.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.sandbox import permissions
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import ManualClock, make_factory
from e2e.table import stored_games
from e2e.test_ai_game import RandomAi

# discord.py's names of what a game needs, as a server manager reads them in Discord's settings.
SHOWN = {
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",
}


def deny_unannounced(sandbox: FakeDiscord, *names: str) -> None:
    """A manager takes permissions away and Discord applies it before the bot hears of the change.

    The bot's own reading of its permissions still says yes; Discord says no. (``sandbox.deny``
    would tell the bot at once, leaving no such moment.)
    """
    overwrites = sandbox.state.channels[sandbox.channel_id].setdefault("permission_overwrites", [])
    permissions.set_overwrite(
        overwrites, sandbox.state.bot_role_id, permissions.ROLE_OVERWRITE, deny=permissions.bits(names)
    )


def game_of(challenge: Message) -> int:
    return int(challenge.buttons[0]["custom_id"].rsplit(":", 1)[1])


async def accept_and_expect_refusal(sandbox: FakeDiscord, challenge: Message, bob: Member) -> Message:
    """Bob presses Accept and is refused privately; the challenge message stays exactly as it was."""
    before = copy.deepcopy(challenge.data)
    cursor = sandbox.cursor()
    await sandbox.user(bob).click(challenge, "Accept")
    refusal = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.ephemeral, after=cursor)
    assert refusal.visible_to == bob.id
    assert sandbox.message(challenge.id).data == before, "the challenge message is untouched, buttons and all"
    assert sandbox.threads() == []
    assert [m.id for m in sandbox.messages(sandbox.channel_id, include_ephemeral=False)] == [challenge.id]
    assert not [r for r in sandbox.requests if r.path.endswith("/threads")], "no thread was even attempted"
    return refusal


async def accept_and_expect_board_in_thread(sandbox: FakeDiscord, challenge: Message, bob: Member) -> None:
    cursor = sandbox.cursor()
    await sandbox.user(bob).click(challenge, "Accept")
    board = await sandbox.wait_for_message(predicate=lambda m: bool(m.embeds), after=cursor)
    [thread] = sandbox.threads(sandbox.channel_id)
    assert board.channel_id == int(thread["id"]) and "board.png" in board.files
    assert f"Accepted by <@{bob.id}>" in sandbox.message(challenge.id).content


async def test_thread_challenge_where_the_bot_may_not_start_threads_says_what_to_grant(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    await sandbox.deny(sandbox.channel_id, "create_public_threads")
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small")
    assert not challenge.ephemeral and challenge.buttons
    refusal = await accept_and_expect_refusal(sandbox, challenge, bob)
    # It names what is missing, and everything a thread game needs, so one visit to the settings is enough.
    assert "missing **Create Public Threads**" in refusal.content
    assert "Send Messages in Threads, Embed Links and Attach Files" in refusal.content
    assert "where:here" in refusal.content
    info = await bot.store.get_game(game_of(challenge))
    assert (info.status, info.opponent_id) == ("challenge", bob.id), "the challenge is still open"

    # Once the permission is granted the same challenge is accepted and played in its thread.
    await sandbox.allow(sandbox.channel_id, "create_public_threads")
    await accept_and_expect_board_in_thread(sandbox, challenge, bob)


@pytest.mark.parametrize("denied", ["send_messages_in_threads", "attach_files", "embed_links"])
async def test_thread_challenge_where_the_bot_may_start_threads_but_not_post_boards_in_them(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, denied: str
) -> None:
    await sandbox.deny(sandbox.channel_id, denied)
    assert sandbox.permissions_in(sandbox.channel_id).create_public_threads
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small")
    refusal = await accept_and_expect_refusal(sandbox, challenge, bob)
    assert f"missing **{SHOWN[denied]}**" in refusal.content
    assert "Create Public Threads, Send Messages in Threads, Embed Links and Attach Files" in refusal.content
    # Playing in the channel itself is offered only where the bot could post its boards there.
    assert ("where:here" in refusal.content) == (denied == "send_messages_in_threads")
    info = await bot.store.get_game(game_of(challenge))
    assert (info.status, info.channel_id) == ("challenge", sandbox.channel_id), "nothing was started"

    await sandbox.allow(sandbox.channel_id, denied)
    await accept_and_expect_board_in_thread(sandbox, challenge, bob)


@pytest.mark.parametrize("denied", ["send_messages", "attach_files", "embed_links"])
async def test_here_challenge_where_the_bot_may_not_post_boards_is_refused_at_once(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path, denied: str
) -> None:
    await sandbox.deny(sandbox.channel_id, denied)
    refusal = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small", where="here")
    assert refusal.ephemeral and refusal.visible_to == alice.id and not refusal.buttons
    assert f"missing **{SHOWN[denied]}**" in refusal.content
    assert "Send Messages, Embed Links and Attach Files" in refusal.content
    # A thread posts with Send Messages in Threads, so a channel closed to posts still hosts thread games.
    assert ("where:thread" in refusal.content) == (denied == "send_messages")
    assert stored_games(db_path) == [], "no challenge was stored, so the channel is not taken"
    assert sandbox.messages(sandbox.channel_id, include_ephemeral=False) == []


async def test_a_channel_closed_to_the_bots_posts_still_hosts_games_in_threads(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    await sandbox.deny(sandbox.channel_id, "send_messages")
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small")
    assert not challenge.ephemeral and challenge.buttons
    await accept_and_expect_board_in_thread(sandbox, challenge, bob)


async def test_the_ai_refuses_a_here_game_where_it_could_not_post_its_turns(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    await sandbox_runner.start(make_factory(db_path, clock, ai=RandomAi(seed=1)), sync=False)
    await sandbox.deny(sandbox.channel_id, "attach_files")
    refusal = await sandbox.user(alice).slash(
        "veletas", "challenge", opponent=sandbox.bot_member, variant="small", where="here"
    )
    assert refusal.ephemeral and "missing **Attach Files**" in refusal.content
    assert stored_games(db_path) == []
    assert sandbox.messages(sandbox.channel_id, include_ephemeral=False) == []


async def test_the_ai_refuses_a_thread_game_it_could_not_post_in_before_announcing_it(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    await sandbox_runner.start(make_factory(db_path, clock, ai=RandomAi(seed=1)), sync=False)
    await sandbox.deny(sandbox.channel_id, "send_messages_in_threads")
    refusal = await sandbox.user(alice).slash("veletas", "challenge", opponent=sandbox.bot_member, variant="small")
    assert refusal.ephemeral and refusal.visible_to == alice.id
    assert "missing **Send Messages in Threads**" in refusal.content and "where:here" in refusal.content
    assert stored_games(db_path) == []
    assert sandbox.threads() == [] and sandbox.messages(sandbox.channel_id, include_ephemeral=False) == []
    assert not [r for r in sandbox.requests if r.path.endswith("/threads")]


async def test_the_ai_game_whose_thread_discord_refuses_after_all_leaves_nothing_behind(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai=RandomAi(seed=1)), sync=False)
    assert isinstance(bot, VeletasBot)
    deny_unannounced(sandbox, "create_public_threads")
    cursor = sandbox.cursor()
    await sandbox.user(alice).slash("veletas", "challenge", opponent=sandbox.bot_member, variant="small")
    refusal = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.ephemeral, after=cursor)
    assert refusal.visible_to == alice.id
    assert "Create Public Threads" in refusal.content and "Sorry, something went wrong" not in refusal.content
    [refused] = sandbox.take_errors()
    assert refused.path.endswith("/threads") and refused.error_code == 50013
    # The intro announcing the game is gone, and the stored challenge is closed, not left open forever.
    assert sandbox.messages(sandbox.channel_id, include_ephemeral=False) == []
    assert sandbox.threads() == []
    assert stored_games(db_path) == [(1, "cancelled")]


async def test_a_first_board_discord_refuses_after_all_says_where_the_game_is_and_how_to_see_it(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small")
    deny_unannounced(sandbox, "send_messages_in_threads")
    cursor = sandbox.cursor()
    await sandbox.user(bob).click(challenge, "Accept")
    notice = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.ephemeral, after=cursor)
    [thread] = sandbox.threads(sandbox.channel_id)
    thread_id = int(thread["id"])
    assert notice.visible_to == bob.id and "Sorry, something went wrong" not in notice.content
    assert f"<#{thread_id}>" in notice.content and "Send Messages in Threads" in notice.content
    assert "`/veletas board`" in notice.content
    [refused] = sandbox.take_errors()
    assert refused.path == f"/channels/{thread_id}/messages" and refused.error_code == 50013
    # The board the notice points to answers a command, which Discord allows without those permissions.
    board = await sandbox.user(alice).in_channel(thread_id).slash("veletas", "board")
    assert not board.ephemeral and board.embeds and "board.png" in board.files
    # It says whose turn it is, without pinging: a board asked for again calls nobody.
    assert f"<@{alice.id}>: place" in board.embeds[0]["description"] and board.content == ""
