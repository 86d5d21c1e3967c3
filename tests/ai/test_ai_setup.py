"""Setup placements and pie choices are turns the game accepts, for every board and edition."""

import random

import pytest

from bot.ai.budget import Budget
from bot.ai.veletas import choose_move, choose_pie, choose_setup, setup
from bot.rules import EDITIONS, VARIANTS, Game


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("rules", EDITIONS)
@pytest.mark.parametrize("level", [1, 3])
def test_the_ai_sets_up_a_whole_game_the_rules_accept(variant: str, rules: str, level: int) -> None:
    game = Game.new(variant, rules)
    turns = 0
    while game.phase in ("setup", "pie"):
        if game.phase == "pie":
            choice = choose_pie(game, level, seed=turns, time_limit=0.2)
            assert choice in ("keep", "swap")
            game = game.play(choice)
        else:
            game = game.play(choose_setup(game, level, seed=turns, time_limit=0.2))
        turns += 1
    assert game.phase == "play"
    assert len(game.position.unclaimed()) == game.variant.shooters
    assert game.position.is_legal(choose_move(game.position, level, seed=1, time_limit=0.2))


@pytest.mark.slow
def test_a_seed_fixes_the_setup_and_the_pie_choice() -> None:
    game = Game.new("medium", "current")
    first = choose_setup(game, 2, seed=9)
    assert first == choose_setup(game, 2, seed=9)
    after = game.play(first)
    assert choose_pie(after, 2, seed=4) == choose_pie(after, 2, seed=4)


@pytest.mark.parametrize(("black", "choice"), [(0.8, "swap"), (0.2, "keep")])
def test_the_pie_takes_the_colour_that_looks_better(monkeypatch: pytest.MonkeyPatch, black: float, choice: str) -> None:
    # "swap" makes the first player White, so the chooser plays Black: right when Black looks better.
    monkeypatch.setattr(setup, "black_estimate", lambda *_args: black)
    game = Game.new("medium", "current")
    game = game.play(choose_setup(game, 1, seed=1))
    assert choose_pie(game, 3, seed=1) == choice


def test_the_first_placement_of_the_current_edition_aims_at_balance(monkeypatch: pytest.MonkeyPatch) -> None:
    # The pie lets the other player take the better colour, so the first player wants neither to be better.
    estimates = iter([0.9, 0.52, 0.1, 0.7] * 50)
    seen: list[float] = []

    def fake(*_args: object) -> float:
        value = next(estimates)
        seen.append(value)
        return value

    monkeypatch.setattr(setup, "black_estimate", fake)
    game = Game.new("medium", "current")
    rng = random.Random(5)
    text = setup.choose_placement(game, 3, rng, Budget(4 * setup.PLAYOUTS * setup.ANSWERS, 60.0))
    assert seen == [0.9, 0.52, 0.1, 0.7]
    replay = random.Random(5)
    drawn = [setup.random_placement(game, replay) for _ in range(4)]
    assert text == drawn[1]


def test_setup_refuses_a_game_that_is_not_in_setup() -> None:
    game = Game.new("small", "classic")
    game = game.play(choose_setup(game, 1, seed=1))
    game = game.play(choose_setup(game, 1, seed=2))
    with pytest.raises(ValueError, match="not setup"):
        choose_setup(game, 1)
    with pytest.raises(ValueError, match="not at the pie"):
        choose_pie(game, 1)


def test_level_one_places_at_random_but_legally_in_classic_spacing() -> None:
    rng = random.Random(3)
    for _ in range(20):
        game = Game.new("standard", "classic")
        text = choose_setup(game, 1, seed=rng.randrange(1000))
        assert game.play(text).phase == "setup"
