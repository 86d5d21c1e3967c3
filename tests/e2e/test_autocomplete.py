"""Autocomplete of /veletas move: at most 25 suggestions, every one legal, narrowing as the player types."""

from __future__ import annotations

import random

from bot.client import VeletasBot
from bot.rules import Move
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.table import start_game


async def test_suggestions_are_legal_and_narrow(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="standard")
    await table.play_setup(random.Random(11))
    position = table.game.position
    legal = {str(m) for m in position.legal_moves()}
    assert len(legal) > 25
    user = table.user_to_act()
    shooter = next(s for s in position.unclaimed() if position.destinations(s))
    destination = position.destinations(shooter)[0]
    for typed in ("", shooter[0], shooter, f"{shooter}-", f"{shooter}-{destination}", f"{shooter.upper()} x"):
        choices = await user.autocomplete("veletas", "move", move=typed)
        values = [c["value"] for c in choices]
        assert 0 < len(values) <= 25, typed
        assert set(values) <= legal, f"illegal suggestion for {typed!r}: {set(values) - legal}"
        assert len(set(values)) == len(values), "no suggestion twice"
        if typed.endswith("-") or "-" in typed:
            assert all(v.startswith(typed) for v in values), typed
    # Once the shooter is typed, the suggestions spread over its destinations rather than one of them.
    spread = await user.autocomplete("veletas", "move", move=f"{shooter}-")
    destinations = {Move.parse(c["value"]).destination for c in spread}
    assert len(destinations) == min(25, len(position.destinations(shooter)))
    # Stationary shots can be typed by naming the shooter; the suggestion is the canonical form.
    stationary = await user.autocomplete("veletas", "move", move=f"{shooter}/")
    assert stationary and all(Move.parse(c["value"]).is_stationary for c in stationary)
    assert {c["value"] for c in stationary} <= set(position.targets(shooter))
    # Nonsense gives nothing rather than something illegal.
    assert await user.autocomplete("veletas", "move", move="zz9") == []


async def test_no_suggestions_without_a_game(sandbox: FakeDiscord, bot: VeletasBot, alice: Member) -> None:
    assert await sandbox.user(alice).autocomplete("veletas", "move", move="d") == []
