"""The sandbox's interaction registry: by id as a dict, and by token as webhook routes look interactions up."""

from __future__ import annotations

import copy
from typing import Any

from bot.sandbox.clock import SimClock, Snowflakes
from bot.sandbox.state import Interaction, Interactions, SandboxState, json_copy


def make(state: SandboxState, interaction_id: int, token: str) -> Interaction:
    member = state.add_member(f"m{interaction_id}")
    return Interaction(interaction_id, token, 2, member, state.general_id, 0.0, {})


def test_interactions_are_found_by_token_through_every_change() -> None:
    state = SandboxState(SimClock(), Snowflakes(), "http://127.0.0.1:1")
    registry = state.interactions
    assert isinstance(registry, Interactions) and registry == {} and registry.by_token("a") is None
    first, second = make(state, 1, "a"), make(state, 2, "b")
    registry[1] = first
    registry[2] = second
    assert registry.by_token("a") is first and registry.by_token("b") is second
    assert dict(registry) == {1: first, 2: second} and list(registry) == [1, 2] and len(registry) == 2
    # The same id with another interaction: the old token no longer leads anywhere.
    replacement = make(state, 1, "c")
    registry[1] = replacement
    assert registry.by_token("a") is None and registry.by_token("c") is replacement
    assert registry.pop(2) is second and registry.by_token("b") is None
    del registry[1]
    assert registry.by_token("c") is None and registry == {}
    registry.update({3: make(state, 3, "d"), 4: make(state, 4, "d")})
    assert registry.by_token("d") is registry[3]  # two sharing a token: the first made, as a scan finds it
    del registry[3]
    assert registry.by_token("d") is registry[4]
    registry.clear()
    assert registry.by_token("d") is None and len(registry) == 0 and registry.get(4) is None


def test_json_copy_is_a_deep_copy() -> None:
    original: dict[str, Any] = {"a": [{"b": 1, "c": None}, "x", 2.5, True], "d": {"e": (1, 2)}, "f": 0}
    copied = json_copy(original)
    assert copied == copy.deepcopy(original)
    copied["a"][0]["b"] = 2
    copied["a"].append("y")
    copied["d"]["e"] = ()
    assert original == {"a": [{"b": 1, "c": None}, "x", 2.5, True], "d": {"e": (1, 2)}, "f": 0}
    assert copied["a"] is not original["a"] and copied["d"] is not original["d"]
