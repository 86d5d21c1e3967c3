"""Autocomplete of /veletas move: at most 25 suggestions, every one legal, narrowing as the player types."""

from __future__ import annotations

import random

from bot.client import VeletasBot
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.table import start_game


async def test_suggestions_narrow_shooter_then_destination_then_target(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="standard")
    await table.play_setup(random.Random(11))
    position = table.game.position
    legal = {str(m) for m in position.legal_moves()}
    assert len(legal) > 25
    user = table.user_to_act()
    movable = sorted(s for s in position.unclaimed() if position.destinations(s))

    async def values(typed: str) -> list[str]:
        choices = await user.autocomplete("veletas", "move", move=typed)
        assert 0 < len(choices) <= 25, typed
        found = [c["value"] for c in choices]
        assert len(set(found)) == len(found), "no suggestion twice"
        return found

    # An empty field: the shooters that can move, each once, and nothing else.
    empty = await user.autocomplete("veletas", "move", move="")
    assert sorted(c["value"] for c in empty) == movable
    assert all("then where it goes" in c["name"] for c in empty), empty
    # A shooter: its destinations, written shooter-destination, then its shots without moving as `g2`.
    shooter = max(movable, key=lambda s: len(position.destinations(s)))
    destinations = position.destinations(shooter)
    for typed in (shooter, f"{shooter}-", f"{shooter.upper()} - "):
        step = await values(typed)
        moving = step[: min(25, len(destinations))]
        assert set(moving) <= {f"{shooter}-{d}" for d in destinations}, typed
        assert set(step[len(moving) :]) <= set(position.targets(shooter)) & legal, "then its shots without moving"
    # A destination: the whole moves through it, every one legal, spread over its targets.
    destination = destinations[0]
    through = {str(m) for m in position.legal_moves() if str(m).startswith(f"{shooter}-{destination}/")}
    for typed in (f"{shooter}-{destination}", f"{shooter}-{destination}/", f"{shooter}-{destination} x"):
        step = await values(typed)
        assert set(step) <= through and len(step) == min(25, len(through)), typed
    # A shot without moving is printed as its target alone (`g2`), as the notation and the refusals write it.
    stationary = await user.autocomplete("veletas", "move", move=f"{shooter}/")
    assert stationary and {c["value"] for c in stationary} <= set(position.targets(shooter)) & legal
    assert all(c["name"] == f"{c['value']} (shoot without moving)" for c in stationary), stationary
    assert not any("/" in c["name"] for c in stationary)
    # Typing a square that is no shooter finds the shots onto it.
    target = next(iter(sorted(position.targets(shooter))))
    onto = await user.autocomplete("veletas", "move", move=target)
    assert {"value": target, "name": f"{target} (shoot without moving)"} in onto, onto
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
