"""Challenges: open ones, declines, expiry, and the refusals around them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.i18n import words
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from cogs.challenge import AI_UNAVAILABLE, LEVEL_WITHOUT_AI
from e2e.conftest import ManualClock
from e2e.table import pinged, resign, start_game, stored_games


async def test_open_challenge_is_taken_by_anyone_but_the_challenger(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    challenge = await sandbox.user(alice).slash("veletas", "challenge", variant="medium", where="here")
    assert "Anyone may accept" in challenge.content
    assert pinged(sandbox, challenge) == []
    refusal = await sandbox.user(alice).click(challenge, "Accept")
    assert refusal.ephemeral and "your own challenge" in refusal.content
    cursor = sandbox.cursor()
    await sandbox.user(bob).click(challenge, "Accept")
    board = await sandbox.wait_for_message(sandbox.channel_id, lambda m: bool(m.embeds), after=cursor)
    assert f"Accepted by <@{bob.id}>" in sandbox.message(challenge.id).content
    assert sandbox.message(challenge.id).buttons == []
    # The challenger is the first player and places the first shooters of the medium board.
    assert f"<@{alice.id}>: place 2 shooters and one stone" in board.text()
    info = await bot.store.game_in_channel(sandbox.channel_id)
    assert (info.challenger_id, info.opponent_id, info.variant) == (alice.id, bob.id, "medium")


async def test_decline_only_by_the_challenged(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, where="here")
    assert pinged(sandbox, challenge) == [str(bob.id)], "the challenged member is the one to act"
    nosy = await sandbox.user(carol).click(challenge, "Decline")
    assert nosy.ephemeral and f"This challenge is for <@{bob.id}>" in nosy.content
    declined = await sandbox.user(bob).click(challenge, "Decline")
    assert declined.id == challenge.id and "Declined by" in declined.content and declined.buttons == []
    games = await bot.store.live_games(sandbox.guild_id)
    assert games == []
    # The channel is free again for a new challenge.
    again = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, where="here")
    assert not again.ephemeral


@pytest.mark.slow
async def test_challenge_expires_and_says_so(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, where="here")
    assert "expires <t:" in challenge.content
    clock.advance(minutes=16)
    late = await sandbox.user(bob).click(challenge, "Accept")
    assert late.ephemeral and "expired" in late.content
    # The one scheduler closes it: its expiry row fell due (nothing else has to look).
    bot.scheduler.wake()
    message = await sandbox.wait_until(
        lambda: sandbox.message(challenge.id) if "expired" in sandbox.message(challenge.id).content else None
    )
    assert "This challenge expired unanswered" in message.content and message.buttons == []
    assert (await bot.store.get_game(1)).status == "expired"


async def test_one_game_per_channel(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    first = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, where="here")
    second = await sandbox.user(bob).slash("veletas", "challenge", opponent=alice, where="here")
    assert second.ephemeral and "already waiting in this channel" in second.content
    cursor = sandbox.cursor()
    await sandbox.user(bob).click(first, "Accept")
    await sandbox.wait_for_message(sandbox.channel_id, lambda m: bool(m.embeds), after=cursor)
    third = await sandbox.user(carol).slash("veletas", "challenge", opponent=alice, where="here")
    assert third.ephemeral and "A game is already being played in this channel" in third.content
    # A challenge played in a thread of its own is still welcome here.
    threaded = await sandbox.user(carol).slash("veletas", "challenge", opponent=alice)
    assert not threaded.ephemeral and "played in a new thread" in threaded.content
    assert len(await bot.store.live_games(sandbox.guild_id)) == 1


async def test_challenging_myself_or_the_bot(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path
) -> None:
    me = await sandbox.user(alice).slash("veletas", "challenge", opponent=alice)
    assert me.ephemeral and me.content == "You cannot challenge yourself."
    ai = await sandbox.user(alice).slash("veletas", "challenge", opponent=sandbox.bot_member)
    assert ai.ephemeral and ai.content == words()(AI_UNAVAILABLE)
    assert stored_games(db_path) == [], "a refused challenge stores nothing, not even a challenge"


async def test_two_accepts_of_an_open_thread_challenge_start_one_game(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    challenge = await sandbox.user(alice).slash("veletas", "challenge", variant="small")
    await asyncio.gather(sandbox.user(bob).click(challenge, "Accept"), sandbox.user(carol).click(challenge, "Accept"))
    thread = (await sandbox.wait_until(lambda: sandbox.threads(sandbox.channel_id)))[0]
    await sandbox.wait_for_message(int(thread["id"]), lambda m: bool(m.embeds))
    refused = await sandbox.wait_for_message(sandbox.channel_id, lambda m: m.ephemeral and "accepted" in m.content)
    # When both presses got as far as making a thread, Discord refused the second one on the same message.
    assert [e.error_code for e in sandbox.take_errors()] in ([], [160004])
    games = await bot.store.live_games(sandbox.guild_id)
    assert len(games) == 1 and games[0].channel_id == int(thread["id"])
    assert refused.visible_to != games[0].opponent_id


async def test_a_level_needs_the_ai_as_opponent(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    refused = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, level=4)
    assert refused.ephemeral and refused.content == words()(LEVEL_WITHOUT_AI)
    assert stored_games(db_path) == [], "a refused challenge stores nothing, not even a challenge"
    assert sandbox.messages(sandbox.channel_id, include_ephemeral=False) == []


async def test_the_challenger_withdraws_and_nobody_else_kills_an_open_challenge(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path
) -> None:
    open_one = await sandbox.user(alice).slash("veletas", "challenge", where="here")
    assert [b["label"] for b in open_one.buttons] == ["Accept", "Withdraw"]
    troll = await sandbox.user(carol).click(open_one, "Withdraw")
    assert troll.ephemeral and "open challenge: nobody has to decline it" in troll.content
    assert (await bot.store.get_game(1)).status == "challenge"
    withdrawn = await sandbox.user(alice).click(open_one, "Withdraw")
    assert "Withdrawn by" in withdrawn.content and withdrawn.buttons == []
    assert (await bot.store.get_game(1)).status == "cancelled"

    # A challenge to one member: the challenger withdraws it with the same button.
    directed = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, where="here")
    assert [b["label"] for b in directed.buttons] == ["Accept", "Decline"]
    taken_back = await sandbox.user(alice).click(directed, "Decline")
    assert "Withdrawn by" in taken_back.content and taken_back.buttons == []
    assert stored_games(db_path) == [(1, "cancelled"), (2, "cancelled")]


async def test_a_rematch_in_a_games_thread_renames_the_thread_for_the_new_game(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="small", where="thread")
    assert "#1" in sandbox.thread(table.channel_id)["name"]
    final = await resign(sandbox, table.user_to_act())
    offer = await sandbox.user(alice, channel_id=table.channel_id).click(final, "Rematch")
    assert not offer.ephemeral and offer.buttons, offer.content
    cursor = sandbox.cursor()
    await sandbox.user(bob, channel_id=table.channel_id).click(offer, "Accept")
    await sandbox.wait_for_message(table.channel_id, lambda m: bool(m.embeds) and "#2" in m.text(), after=cursor)
    name = sandbox.thread(table.channel_id)["name"]
    assert "#2" in name and "#1" not in name, name
