"""The solver and the miner, checked against an independent plain search (``puzzle_plain``) over the rules' API."""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from puzzle_plain import check_line, turn_wins, turns, wins

from bot.puzzles.mine import InPlay, Mined, mine_game, mine_self_play, self_play
from bot.puzzles.solve import find_puzzle, forced_win, rating, winning_turns
from bot.puzzles.values import Puzzle
from bot.rules.protocol import GameState
from bot.rules.registry import find_game

SMALL = {"variant": "small", "rules": "current"}
LOOP = {"board": "5", "protocol": "alternating"}
LOOP_122 = {"board": "5", "protocol": "122"}
CORPUS = (
    ("veletas", "small", 0),
    ("veletas", "small", 4),
    ("veloop", "alternating", 1),
    ("veloop", "alternating", 4),
    ("veloop", "alternating", 17),
    ("veloop", "alternating", 29),
    ("veloop", "122", 3),
)
"""Fixed self-play games whose last positions hold puzzles of both games, of one to four turns."""
SETTINGS = {"small": SMALL, "alternating": LOOP, "122": LOOP_122}


@cache
def mined(game: str, name: str, seed: int) -> Mined:
    return mine_self_play(game, SETTINGS[name], seed, positions=10 if game == "veletas" else 14)


def start_of(puzzle: Puzzle) -> GameState:
    return find_game(puzzle.game).replay(puzzle.before, puzzle.settings)


@pytest.mark.parametrize(("game", "name", "seed"), CORPUS)
def test_mined_puzzles_are_unique_by_a_plain_search(game: str, name: str, seed: int) -> None:
    puzzles = mined(game, name, seed).puzzles
    assert puzzles, "the corpus game gives puzzles"
    for puzzle in puzzles:
        assert puzzle.game == game and puzzle.source_game_id is None and puzzle.guild_id is None
        assert puzzle.rating == rating(puzzle.solver_turns, puzzle.tempting)
        check_line(start_of(puzzle), puzzle.solution, puzzle.goal)


def test_the_corpus_holds_one_and_two_turn_puzzles_of_both_games() -> None:
    lengths = {(game, p.solver_turns) for game, name, seed in CORPUS for p in mined(game, name, seed).puzzles}
    assert {("veletas", 1), ("veletas", 2), *(("veloop", n) for n in range(1, 5))} <= lengths, lengths


def random_position(game: str, settings: dict[str, str], seed: int, back: int) -> GameState | None:
    """A position reached by legal turns: a self-play game but its last ``back`` turns, then random legal turns."""
    rng = random.Random(seed)
    full = self_play(game, settings, seed % 7)
    state = find_game(game).new(settings)
    for turn in full[: max(0, len(full) - back)]:
        state = state.play(turn)
    while state.phase != "over" and rng.random() < 0.5:
        state = state.play(rng.choice(turns(state)) if state.phase == "play" else full[len(state.turns)])
    return state if state.phase == "play" else None


GOALS = {"veletas": ("claim", "decide"), "veloop": ("confine",)}


def agree(state: GameState, k: int) -> bool:
    """The solver and the plain search agree on the forced win within k, and (k = 1) on every winning turn."""
    solver = state.colour_to_act
    assert solver is not None
    verdict = None
    for goal in GOALS[state.kind.name]:
        verdict = forced_win(state, goal, k, nodes=10**6)
        assert verdict is not None
        assert verdict == wins(state, solver, goal, k), (state.turns, goal, k)
        if k == 1:
            plain = tuple(t for t in turns(state) if turn_wins(state, t, solver, goal, 1))
            assert set(winning_turns(state, goal, 1) or ()) == set(plain)
    return bool(verdict)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([("veletas", SMALL), ("veloop", LOOP), ("veloop", LOOP_122)]),
    st.integers(0, 10**6),
    st.integers(1, 12),
)
def test_the_solvers_one_turn_verdict_is_the_plain_searchs(
    game: tuple[str, dict[str, str]], seed: int, back: int
) -> None:
    state = random_position(game[0], game[1], seed, back)
    if state is not None:
        agree(state, 1)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([("veletas", SMALL), ("veloop", LOOP), ("veloop", LOOP_122)]),
    st.integers(0, 10**6),
    st.integers(1, 8),
)
def test_the_solvers_two_turn_verdict_is_the_plain_searchs_on_the_smallest_boards(
    game: tuple[str, dict[str, str]], seed: int, back: int
) -> None:
    state = random_position(game[0], game[1], seed, back)
    if state is not None:
        agree(state, 2)


def test_the_verdicts_compared_include_wins_and_no_wins() -> None:
    seen: set[tuple[str, int, bool]] = set()
    for game, chosen in (("veletas", SMALL), ("veloop", LOOP)):
        for seed in range(6):
            full = self_play(game, chosen, seed)
            state = find_game(game).replay(full[:-3], chosen)
            for turn in full[-3:]:
                if state.phase == "play":
                    for k in (1, 2):
                        seen.add((game, k, agree(state, k)))
                state = state.play(turn)
    assert {(game, k, won) for game in GOALS for k in (1, 2) for won in (True, False)} <= seen, seen


def test_a_position_with_two_winning_turns_is_not_a_puzzle() -> None:
    for seed in range(20):
        full = self_play("veloop", LOOP, seed)
        state = find_game("veloop").new(LOOP)
        for index, turn in enumerate(full):
            if state.phase == "play":
                verdict = find_puzzle(state, "confine", 1)
                if verdict.status == "win" and len(verdict.first) > 1:
                    solver = state.colour_to_act
                    assert solver is not None
                    plain = [t for t in turns(state) if turn_wins(state, t, solver, "confine", 1)]
                    assert sorted(plain) == sorted(verdict.first) and len(plain) > 1
                    assert verdict.solution is None
                    found = mine_game("veloop", LOOP, full[: index + 1], status="finished", positions=1)
                    assert found.positions == 1 and found.puzzles == []
                    return
            state = state.play(turn)
    pytest.fail("no position with two winning turns in 20 games")


def test_a_line_whose_later_step_is_not_unique_is_not_a_puzzle() -> None:
    # Veletas small, self-play seed 4, after 35 turns: one first turn decides the game in two turns, but
    # against the longest resistance the solver then has two ways to finish.
    full = self_play("veletas", SMALL, 4)
    state = find_game("veletas").replay(full[:35], SMALL)
    verdict = find_puzzle(state, "decide", 2)
    assert (verdict.status, verdict.turns, len(verdict.first), verdict.solution) == ("win", 2, 1, None)
    solver = state.colour_to_act
    assert solver is not None
    assert [t for t in turns(state) if turn_wins(state, t, solver, "decide", 2)] == list(verdict.first)
    assert not [
        p for p in mine_game("veletas", SMALL, full[:36], status="finished", positions=1).puzzles if p.goal == "decide"
    ]


@pytest.mark.parametrize("status", ["active", "challenge", "cancelled"])
def test_a_game_not_finished_is_never_mined(status: str) -> None:
    turns_played = self_play("veloop", LOOP, 1)
    with pytest.raises(InPlay):
        mine_game("veloop", LOOP, turns_played, status=status, game_id=7, guild_id=70)


def test_a_servers_game_gives_its_puzzles_its_id_and_server() -> None:
    turns_played = self_play("veloop", LOOP, 1)
    found = mine_game("veloop", LOOP, turns_played, status="finished", game_id=7, guild_id=70, positions=10)
    assert found.puzzles
    assert {(p.source_game_id, p.guild_id) for p in found.puzzles} == {(7, 70)}
    assert all(p.before == turns_played[: len(p.before)] for p in found.puzzles)


def test_consecutive_positions_of_one_forced_line_are_one_puzzle() -> None:
    # Veloop 5×5 seed 27: the position after 34 turns holds a three-turn line whose first two turns the game
    # played; the position after 36 turns, on that line, is the same line's last two turns: only the first is kept.
    full = self_play("veloop", LOOP, 27)
    first = find_puzzle(find_game("veloop").replay(full[:34], LOOP), "confine", 4).solution
    later = find_puzzle(find_game("veloop").replay(full[:36], LOOP), "confine", 4).solution
    assert first is not None and later is not None
    assert first.line[:2] == tuple(full[34:36]) and later.line == first.line[2:]
    found = mine_game("veloop", LOOP, full, status="finished", positions=14)
    starts = [len(p.before) for p in found.puzzles]
    assert 34 in starts and 36 not in starts
    assert found.puzzles[starts.index(34)].solution == first.line


def test_a_position_too_hard_for_the_budget_is_unknown_not_a_verdict() -> None:
    full = self_play("veletas", SMALL, 0)
    state = find_game("veletas").replay(full[:8], SMALL)
    assert state.phase == "play"
    verdict = find_puzzle(state, "claim", 4, nodes=300)
    assert (verdict.status, verdict.solution) == ("unknown", None) and verdict.nodes == 301
    assert forced_win(state, "claim", 4, nodes=300) is None
    assert winning_turns(state, "claim", 4, nodes=300) is None
    timed = find_puzzle(state, "claim", 4, nodes=10**9, seconds=0.05)
    assert timed.status == "unknown"


def test_a_puzzle_starts_in_the_play_phase_with_its_games_goal() -> None:
    setup = find_game("veletas").new(SMALL)
    with pytest.raises(ValueError, match="play phase"):
        find_puzzle(setup, "claim")
    loop = find_game("veloop").new(LOOP)
    with pytest.raises(ValueError, match="confine"):
        find_puzzle(loop, "claim")
    with pytest.raises(ValueError, match="1 to 4"):
        find_puzzle(loop, "confine", 5)
