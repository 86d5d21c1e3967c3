"""The game protocol and registry: both games behave as the rest of the bot expects of any game.

The properties are checked over random games of every setting of both games, through the protocol
only (``GAMES[...]``, ``GameState``), so code written against it is right for either game.
"""

from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules import GAMES, GameKind, GameState, Outcome, RecordError, UnknownGame, find_game, veletas, veloop
from bot.rules import protocol as gp

JAMMED = "(wb)(wb)(wb)(wb)(wb)/(wb)(wb)(wb)(wb)(wb)/(wb)(wb)(wb)(wb)(wb)/(wb)(bw)(wb)(wb)(wb)/1(wb)(wb)(wb)(wb)"


def random_turn(state: GameState, rng: random.Random, setup: tuple[str, ...]) -> str:
    """A random legal turn, whatever the game and phase (the protocol itself does not list setup turns).

    Veletas's setup and pie turns come from ``setup``, a random setup drawn once for the game.
    """
    if isinstance(state, veloop.Game):
        return str(rng.choice(state.position.legal_moves()))
    assert isinstance(state, veletas.Game)
    if state.phase in ("setup", "pie"):
        return setup[len(state.turns)]
    return str(rng.choice(state.position.legal_moves()))


def every_setting(kind: GameKind) -> list[dict[str, str]]:
    combos: list[dict[str, str]] = [{}]
    for name, values in kind.setting_choices.items():
        combos = [{**combo, name: value} for combo in combos for value in values]
    return combos


ALL_SETTINGS = [(kind, chosen) for kind in GAMES.values() for chosen in every_setting(kind)]


def test_the_registry_lists_both_games_and_finds_them_by_name() -> None:
    assert list(GAMES) == ["veletas", "veloop"]
    assert find_game(" VeLoop ") is GAMES["veloop"] and find_game("veletas") is veletas.KIND
    for name, kind in GAMES.items():
        assert isinstance(kind, GameKind) and kind.name == name and kind.phases[-1] == "over"
    with pytest.raises(UnknownGame, match="expected one of veletas, veloop") as caught:
        find_game("chess")
    assert isinstance(caught.value, ValueError) and caught.value.name == "chess"
    with pytest.raises(TypeError):
        GAMES["chess"] = veletas.KIND  # type: ignore[index]


@pytest.mark.parametrize(("kind", "chosen"), ALL_SETTINGS, ids=lambda v: getattr(v, "name", None) or str(v))
def test_settings_are_filled_and_checked(kind: GameKind, chosen: dict[str, str]) -> None:
    state = kind.new(chosen)
    assert isinstance(state, GameState) and state.kind is kind
    assert state.settings == kind.check_settings(chosen) == {**kind.check_settings({}), **chosen}
    assert state.phase == kind.phases[0] and state.turns == () and state.outcome is None
    assert state.seat_to_act == "first"


@pytest.mark.parametrize("kind", list(GAMES.values()), ids=lambda k: k.name)
def test_unknown_settings_are_refused_by_name(kind: GameKind) -> None:
    with pytest.raises(ValueError, match="unknown setting 'colour'"):
        kind.new({"colour": "black"})
    name = next(iter(kind.setting_choices))
    with pytest.raises(ValueError, match=f"unknown {name} 'huge'"):
        kind.new({name: "huge"})


@pytest.mark.parametrize("kind", list(GAMES.values()), ids=lambda k: k.name)
def test_every_refusal_is_one_illegal_move_family(kind: GameKind) -> None:
    state = kind.new()
    for text in ("", "z99", "hello world", "a1-a1/a1", "keep" if kind.name == "veloop" else "pass"):
        with pytest.raises(gp.IllegalMove) as caught:
            state.play(text)
        assert isinstance(caught.value, ValueError)
    assert issubclass(veletas.IllegalMove, gp.IllegalMove) and issubclass(veloop.IllegalMove, gp.IllegalMove)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(ALL_SETTINGS) - 1), seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_every_promise_of_the_protocol(index: int, seed: int) -> None:
    kind, chosen = ALL_SETTINGS[index]
    rng = random.Random(seed)
    state: GameState = kind.new(chosen)
    setup: tuple[str, ...] = ()
    if isinstance(state, veletas.Game):
        setup = veletas.random_setup(state.variant.name, state.rules, rng).turns
    seen_phases = [state.phase]
    for _ in range(400):
        if state.phase == "over":
            break
        seat, colour = state.seat_to_act, state.colour_to_act
        assert seat is not None
        if colour is not None and state.first_player_colour is not None:
            assert state.seat_of(colour) == seat
        forced = state.forced_turn
        turn = random_turn(state, rng, setup)
        if forced is not None:
            assert turn == forced
        state = state.play(turn)
        if state.phase != seen_phases[-1]:
            seen_phases.append(state.phase)
    # Every phase is one the game declares; once play begins it only goes on to the end.
    assert set(seen_phases) <= set(kind.phases)
    if "play" in seen_phases:
        assert seen_phases[seen_phases.index("play") :] in (["play"], ["play", "over"])
    rebuilt = kind.replay(state.turns, state.settings)
    assert rebuilt == state and hash(rebuilt) == hash(state)
    assert pickle.loads(pickle.dumps(state)) == state
    read = kind.from_record(state.to_record({"Black": 'A "quoted" name', "White": "b\\c"}))
    assert read == state and read.scores == state.scores
    if state.phase == "over":
        outcome = state.outcome
        assert outcome is not None and state.seat_to_act is None and state.colour_to_act is None
        black, white = state.scores
        if kind.name == "veletas":
            assert outcome.termination == "claims" and outcome.winner == ("black" if black > white else "white")
        else:
            assert outcome.termination in ("confinement", "passes")
            if outcome.termination == "confinement":
                expected = None if black == white else ("black" if black > white else "white")
                assert outcome.winner == expected
        assert f'[Result "{outcome.result_token}"]' in state.to_record()
    else:
        assert state.outcome is None and '[Result "*"]' in state.to_record()


def test_a_veloop_draw_by_passes_is_an_outcome_without_a_winner() -> None:
    start = veloop.Position.from_string(JAMMED + " b 1/2 0")
    game = veloop.Game(start).play("a1<b3")
    assert game.forced_turn == "pass"
    game = game.play("pass").play("pass")
    assert game.outcome is None and game.forced_turn == "pass"
    drawn = game.play("pass")
    assert drawn.outcome == Outcome(None, "passes") and drawn.outcome.is_draw
    assert drawn.outcome.result_token == "1/2-1/2" and drawn.phase == "over" and drawn.forced_turn is None


def test_veloop_games_start_black_and_never_change_colours() -> None:
    game = veloop.KIND.new({"board": "5"})
    assert game.first_player_colour == "black" and game.seat_of("white") == "second"
    moved = game.play(str(game.position.legal_moves()[0]))
    assert moved.colour_to_act == "white" and moved.seat_to_act == "second"  # 122: Black's first turn is one ply
    with pytest.raises(RecordError, match="turn 2"):
        veloop.KIND.replay([moved.turns[0], "a1<a1"], {"board": "5"})


def test_outcomes_are_checked_and_written_as_records_want() -> None:
    assert Outcome("black", "resignation").result_token == "1-0"
    assert Outcome("white", "time forfeit").result_token == "0-1"
    assert Outcome(None, "cancelled").result_token == "*" and not Outcome(None, "cancelled").is_draw
    with pytest.raises(ValueError, match="unknown termination"):
        Outcome("black", "boredom")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a winner is"):
        Outcome("red", "claims")  # type: ignore[arg-type]


def test_veloop_positions_and_games_are_immutable_and_hash_by_value() -> None:
    position = veloop.Position.start(8)
    before = hash(position)
    for name, value in (("size", 5), ("ply", 2), ("_top", ()), ("protocol", "alternating")):
        with pytest.raises(AttributeError, match="immutable"):
            setattr(position, name, value)
    assert hash(position) == before == hash(veloop.Position.start(8))
    position.legal_moves()  # fills a cache: still equal, same hash
    assert position == veloop.Position.start(8) and hash(position) == before
    assert pickle.loads(pickle.dumps(position)) == position
    game = veloop.Game.new()
    with pytest.raises(AttributeError, match="immutable"):
        game._turns = ("e5<e3",)  # type: ignore[misc]


def test_registering_a_game_is_once_per_name_and_the_built_in_games_stay() -> None:
    from dataclasses import replace

    from bot.rules.registry import DESCRIPTORS, describe, register, unregister

    veloop_descriptor = describe(" VeLoop ")
    assert register(veloop_descriptor) is veloop_descriptor and list(GAMES) == ["veletas", "veloop"]
    with pytest.raises(ValueError, match="already registered"):
        register(replace(veloop_descriptor, cog="cogs.veletas"))
    with pytest.raises(ValueError, match="built-in"):
        unregister("veletas")
    assert DESCRIPTORS["veloop"] is veloop_descriptor and find_game("veloop") is veloop.KIND
