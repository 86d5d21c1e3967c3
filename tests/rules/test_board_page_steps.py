"""The board page's steps against the rules: every path of clicks the position JSON offers spells a legal turn,
and every legal turn can be clicked. Random games of both games, every board size, both Veletas editions."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import veletas, veloop
from bot.rules.registry import describe, load
from bot.rules.veletas.page import page_state as veletas_page
from bot.rules.veletas.page import turn_text as veletas_text
from bot.rules.veloop.page import page_state as veloop_page
from bot.rules.veloop.page import turn_text as veloop_text


def setup_paths(steps: dict[str, object]) -> set[str]:
    """Every setup turn the page's setup steps can spell (shooters in square order, then the stone)."""
    squares = list(steps["squares"])  # type: ignore[call-overload]
    excludes: dict[str, list[str]] = steps["excludes"]  # type: ignore[assignment]
    count = int(steps["count"])  # type: ignore[call-overload]
    found: set[str] = set()
    for chosen in itertools.combinations(squares, count):
        banned = {other for square in chosen for other in excludes.get(square, [])}
        if banned & set(chosen):
            continue
        stones = [s for s in steps["stones"] if s not in chosen] if steps["stone"] else [""]  # type: ignore[attr-defined]
        for stone in stones:
            found.add(veletas_text("setup", [*chosen, stone]))
    return found


def setup_turns(game: veletas.Game) -> set[str]:
    """Every legal setup turn, by the rules' own one-at-a-time choices (canonical text)."""
    found: set[str] = set()

    def extend(chosen: list[str]) -> None:
        if len(chosen) == game.shooters_to_place:
            ordered = sorted(chosen, key=game.setup_squares().index)
            stones = game.stone_choices(ordered) if game.stone_to_place else [""]
            for stone in stones:
                found.add(veletas_text("setup", [*ordered, stone]))
            return
        for square in game.setup_choices(chosen):
            if not chosen or game.setup_squares().index(square) > game.setup_squares().index(chosen[-1]):
                extend([*chosen, square])

    extend([])
    return found


def check_veletas(game: veletas.Game) -> None:
    state = veletas_page(game)
    json.dumps(state)  # plain JSON values
    steps = state["steps"]
    if game.phase == "setup":
        paths = setup_paths(steps)
        assert paths == setup_turns(game)
        for text in random.Random(len(game.turns)).sample(sorted(paths), min(20, len(paths))):
            game.play(text)  # no IllegalMove
    elif game.phase == "pie":
        assert steps == {"pie": ["keep", "swap"]}
    elif game.phase == "play":
        spelled = {
            veletas_text("play", [shooter, square, target])
            for shooter, ways in steps["moves"].items()
            for square, targets in ways.items()
            for target in targets
        }
        assert spelled == {str(move) for move in game.position.legal_moves()}
    else:
        assert steps == {}


@pytest.mark.parametrize("variant", ["small", "medium", "standard"])
@pytest.mark.parametrize("rules", ["current", "classic"])
def test_veletas_steps_are_the_legal_turns_through_a_whole_game(variant: str, rules: str) -> None:
    rng = random.Random(f"{variant}{rules}")
    game = veletas.Game.new(variant, rules)
    plies = 0
    while game.phase != "over" and plies < 60:
        if game.phase == "setup":
            if variant == "small":
                check_veletas(game)
            example = game.setup_example()
            assert example is not None
            shooters, stone = example
            text = veletas_text("setup", [*shooters, stone or ""])
        elif game.phase == "pie":
            check_veletas(game)
            text = rng.choice(["keep", "swap"])
        else:
            check_veletas(game)
            text = str(rng.choice(game.position.legal_moves()))
        game = game.play(text)
        plies += 1


def test_veletas_setup_steps_of_the_classic_edition_keep_shooters_apart() -> None:
    game = veletas.Game.new("small", "classic")
    steps = veletas_page(game)["steps"]
    assert steps["stone"] is None and steps["stones"] == []
    # d4's ring is out once d4 is chosen: the spacing rule, as data the page applies.
    assert {"c3", "c4", "c5", "d3", "d5", "e3", "e4", "e5"} <= set(steps["excludes"]["d4"])
    current = veletas_page(veletas.Game.new("small"))["steps"]
    assert current["excludes"] == {} and current["stone"] == "black" and "a1" in current["stones"]
    assert "a1" not in current["squares"]  # the current edition's setup keeps shooters off the edge


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.sampled_from(["5", "6", "8"]))
def test_veloop_steps_are_the_legal_moves(seed: int, size: str) -> None:
    rng = random.Random(seed)
    game = veloop.KIND.new({"board": size})
    for _ in range(rng.randrange(0, 30)):
        legal = game.position.legal_moves()
        if not legal:
            break
        game = game.play(rng.choice(legal))
    state = veloop_page(game)
    json.dumps(state)
    spelled = {
        veloop_text(target, support) for target, supports in state["steps"]["moves"].items() for support in supports
    }
    legal = {str(m) for m in game.position.legal_moves() if not m.is_pass}
    assert spelled == legal
    for text in spelled:
        game.play(text)


def test_the_descriptors_name_each_games_page() -> None:
    assert load(describe("veletas").page) is veletas_page
    assert load(describe("veloop").page) is veloop_page
