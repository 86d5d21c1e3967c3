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


async def test_setup_squares_are_suggested(sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member) -> None:
    table = await start_game(sandbox, alice, bob, variant="standard")
    allowed = set(table.game.setup_squares())
    user = table.user_to_act()
    first = await user.autocomplete("veletas", "setup", shooters="c")
    assert first and all(c["value"].startswith("c") and c["value"] in allowed for c in first)
    assert "c1" not in {c["value"] for c in first}, "the edge is not a setup square in the current rules"
    more = await user.autocomplete("veletas", "setup", shooters="c3 e5 ")
    values = [c["value"] for c in more]
    assert 0 < len(values) <= 25 and all(v.startswith("c3 e5 ") for v in values)
    assert all(v.split()[2] in allowed and v.split()[2] not in ("c3", "e5") for v in values)
    stones = await user.autocomplete("veletas", "setup", shooters="c3 e5 h4", stone="a", focused="stone")
    assert [c["value"] for c in stones] == [f"a{rank}" for rank in range(1, 11)]
    played = await user.slash("veletas", "setup", shooters=values[0], stone=stones[0]["value"])
    assert not played.ephemeral, played.content
