"""A board asked for again pings nobody: only a new turn calls the player to move.

Anyone in the channel may run ``/veletas board`` as often as they like; were it to ping the player
to move, a spectator could ping a player ten times in ten commands.
"""

from __future__ import annotations

import random

from bot.client import VeletasBot
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.table import pinged, random_setup_turn, start_game, would_ping


async def test_asking_for_the_board_again_pings_nobody(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    table = await start_game(sandbox, alice, bob)
    spectator = sandbox.user(carol)
    for _ in range(10):
        board = await spectator.slash("veletas", "board")
        assert not board.ephemeral and board.embeds
        assert pinged(sandbox, board) == [] and "<@" not in board.content
        # Whose turn it is still shows, in the embed (an embed never pings).
        assert f"<@{alice.id}>: place" in board.embeds[0]["description"]
    for asker in (table.first, table.second):
        board = await asker.slash("veletas", "board")
        assert pinged(sandbox, board) == [] and "<@" not in board.content
    private = await spectator.slash("veletas", "board", private=True)
    assert private.ephemeral and "<@" not in private.content
    # A new turn still calls the player to move, once.
    played = await table.turn(random_setup_turn(table.game, random.Random(3)))
    assert would_ping(sandbox, played) == [str(table.user_to_act().member.id)]
