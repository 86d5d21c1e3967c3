"""Channel permissions a server manager can take away from the bot, and what players hear then."""

from __future__ import annotations

import copy

from bot.client import VeletasBot
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member


async def test_thread_challenge_where_the_bot_may_not_start_threads_says_what_to_grant(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    await sandbox.deny(sandbox.channel_id, "create_public_threads")
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small")
    assert not challenge.ephemeral and challenge.buttons
    before = copy.deepcopy(challenge.data)
    cursor = sandbox.cursor()
    await sandbox.user(bob).click(challenge, "Accept")
    refusal = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.ephemeral, after=cursor)
    # Only the player who pressed Accept reads it, and it names both permissions a manager must grant.
    assert refusal.visible_to == bob.id
    assert "Create Public Threads" in refusal.content and "Send Messages in Threads" in refusal.content
    assert "where:here" in refusal.content
    # Discord refused the thread once; nothing else went wrong and nothing changed.
    [refused] = sandbox.take_errors()
    assert refused.path.endswith(f"/messages/{challenge.id}/threads") and refused.error_code == 50013
    assert sandbox.threads() == []
    assert sandbox.message(challenge.id).data == before, "the challenge message is untouched, buttons and all"
    assert [m.id for m in sandbox.messages(sandbox.channel_id, include_ephemeral=False)] == [challenge.id]
    game_id = int(challenge.buttons[0]["custom_id"].rsplit(":", 1)[1])
    info = await bot.store.get_game(game_id)
    assert (info.status, info.opponent_id) == ("challenge", bob.id), "the challenge is still open"

    # Once the permission is granted the same challenge is accepted and played in its thread.
    await sandbox.allow(sandbox.channel_id, "create_public_threads")
    cursor = sandbox.cursor()
    await sandbox.user(bob).click(challenge, "Accept")
    board = await sandbox.wait_for_message(predicate=lambda m: bool(m.embeds), after=cursor)
    [thread] = sandbox.threads(sandbox.channel_id)
    assert board.channel_id == int(thread["id"])
    assert f"Accepted by <@{bob.id}>" in sandbox.message(challenge.id).content
