"""Matches between two levels: paired games from random openings, and what the score says about strength.

Veletas setups can favour one colour, so every random setup is played twice with the colours
exchanged: a level only scores well by winning from both sides of the same board. Veloop has
no setup; its games start from the start position after a few random plies (an *opening*),
each opening played twice the same way. A Veloop draw counts half a game to each side. Moves are
chosen with seeds derived from the match seed, so a match is reproducible move for move and
its result does not depend on how loaded the machine was (unless ``clock`` asks for real time).

Level ``RANDOM`` (0) is no playing level: a uniformly random mover, every legal move equally likely
(a forced pass as it is), the yardstick the weakest levels are measured against.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bot.ai.veletas.players import LEVELS
from bot.lifeline import die_with_parent, spared_ctrl_c
from bot.rules import Game, random_setup, veloop

log = logging.getLogger(__name__)

Z95 = 1.959963984540054
RANDOM = 0
"""The level number of the uniformly random mover in a match."""


def player(level: int) -> str:
    """How a match names a side: ``level 3``, or ``random`` for the uniformly random mover."""
    return "random" if level == RANDOM else f"level {level}"


@dataclass(frozen=True)
class Pairing:
    """One game of a match: which setup, and whether level A has Black."""

    level_a: int
    level_b: int
    variant: str
    rules: str
    setup: int
    a_black: bool
    seed: int
    clock: bool
    game: str = "veletas"
    board: int = 8
    protocol: str = "122"


@dataclass(frozen=True)
class Outcome:
    """How one game ended: whether A won, its length in moves, the thinking time each side used."""

    pairing: Pairing
    a_won: bool
    moves: int
    seconds_a: float
    seconds_b: float
    record: str
    drawn: bool = False
    choices_a: int = -1
    choices_b: int = -1
    """Moves each side chose (forced passes left out); -1 when one side moved every other turn (Veletas)."""
    longest_a: float = 0.0
    longest_b: float = 0.0
    """Each side's longest decision in seconds (Veloop games)."""

    @property
    def verdict(self) -> str:
        return "drew" if self.drawn else "won" if self.a_won else "lost"


def setup_game(variant: str, rules: str, seed: int, setup: int) -> Game:
    """The random setup number ``setup`` of a match (the same for both games of a pair)."""
    return random_setup(variant, rules, random.Random(seed * 1_000_003 + setup))


SEEDED_CAP = 600.0
OPENING_PLIES = 3
"""Random plies before a Veloop match game: Black's first, then White's double turn under 122."""


def veloop_opening(board: int, protocol: str, seed: int, setup: int) -> veloop.Game:
    """The random opening number ``setup`` of a Veloop match (the same for both games of a pair)."""
    rng = random.Random(seed * 1_000_003 + setup)
    game = veloop.Game.new(board, protocol)
    for _ in range(OPENING_PLIES):
        game = game.play(rng.choice(game.position.legal_moves()))
    return game


def play(pairing: Pairing) -> Outcome:
    """Play one game to the end; a top-level function so a process pool can run it."""
    if pairing.game == "veloop":
        return _play_veloop(pairing)
    from bot.ai.veletas import choose_move

    game = setup_game(pairing.variant, pairing.rules, pairing.seed, pairing.setup)
    spent = [0.0, 0.0]
    rng = random.Random(f"{pairing.seed}/{pairing.setup}/{pairing.a_black}")
    while game.phase == "play":
        position = game.position
        a_to_move = (position.to_move == "black") == pairing.a_black
        level = pairing.level_a if a_to_move else pairing.level_b
        seed = None if pairing.clock else rng.getrandbits(32)
        start = time.perf_counter()
        move = rng.choice(position.legal_moves()) if level == RANDOM else choose_move(position, level, seed=seed)
        spent[0 if a_to_move else 1] += time.perf_counter() - start
        game = game.play(str(move))
    winner = game.winner
    a_colour = "black" if pairing.a_black else "white"
    headers = {
        "Black": player(pairing.level_a if pairing.a_black else pairing.level_b),
        "White": player(pairing.level_b if pairing.a_black else pairing.level_a),
    }
    return Outcome(pairing, winner == a_colour, len(game.moves), spent[0], spent[1], game.to_record(headers))


def _play_veloop(pairing: Pairing) -> Outcome:
    from bot.ai.veloop import choose_move as choose_veloop_move

    game = veloop_opening(pairing.board, pairing.protocol, pairing.seed, pairing.setup)
    spent = [0.0, 0.0]
    chosen = [0, 0]
    longest = [0.0, 0.0]
    rng = random.Random(f"veloop/{pairing.seed}/{pairing.setup}/{pairing.a_black}")
    while game.phase == "play":
        position = game.position
        a_to_move = (position.to_move == "black") == pairing.a_black
        level = pairing.level_a if a_to_move else pairing.level_b
        seed = None if pairing.clock else rng.getrandbits(32)
        start = time.perf_counter()
        forced = game.forced_turn
        # Seeded games lift the level's hard cap: only the iteration budget may end a search, so a
        # loaded machine plays the same games, only slower.
        limit = None if pairing.clock else SEEDED_CAP
        if forced is not None:
            move = forced
        elif level == RANDOM:
            move = str(rng.choice(position.legal_moves()))
        else:
            move = str(choose_veloop_move(position, level, seed=seed, time_limit=limit))
        took = time.perf_counter() - start
        side = 0 if a_to_move else 1
        spent[side] += took
        chosen[side] += forced is None
        longest[side] = max(longest[side], took)
        game = game.play(move)
    winner = game.winner
    a_colour = "black" if pairing.a_black else "white"
    headers = {
        "Black": player(pairing.level_a if pairing.a_black else pairing.level_b),
        "White": player(pairing.level_b if pairing.a_black else pairing.level_a),
    }
    plies = len(game.turns) - OPENING_PLIES
    return Outcome(
        pairing,
        winner == a_colour,
        plies,
        spent[0],
        spent[1],
        game.to_record(headers),
        drawn=winner is None,
        choices_a=chosen[0],
        choices_b=chosen[1],
        longest_a=longest[0],
        longest_b=longest[1],
    )


def pairings(
    level_a: int,
    level_b: int,
    games: int,
    variant: str,
    rules: str,
    seed: int,
    *,
    clock: bool = False,
    game: str = "veletas",
    board: int = 8,
    protocol: str = "122",
) -> list[Pairing]:
    """``games`` games (rounded up to pairs): each setup (opening) once with A as Black and once with A as White."""
    for level in (level_a, level_b):
        if level not in LEVELS and level != RANDOM:
            raise ValueError(f"the AI level must be from 1 to {max(LEVELS)} (or {RANDOM}: random), not {level}")
    if game not in ("veletas", "veloop"):
        raise ValueError(f"unknown game {game!r}: expected veletas or veloop")
    setups = max(1, math.ceil(games / 2))
    return [
        Pairing(level_a, level_b, variant, rules, setup, a_black, seed, clock, game, board, protocol)
        for setup in range(setups)
        for a_black in (True, False)
    ]


def run(plan: list[Pairing], jobs: int = 1) -> Iterator[Outcome]:
    """Outcomes as games finish; ``jobs`` > 1 plays that many games at once in worker processes."""
    if jobs <= 1:
        for pairing in plan:
            yield play(pairing)
        return
    # The workers die with this process, even killed with SIGKILL (the pool is started from this thread).
    with spared_ctrl_c():
        pool = multiprocessing.get_context("spawn").Pool(jobs, initializer=die_with_parent, initargs=(os.getpid(),))
    with pool:
        yield from pool.imap_unordered(play, plan)


@dataclass(frozen=True)
class Score:
    """A match result with its 95% Wilson interval and the Elo difference those imply; a draw is half a win."""

    wins: int
    games: int
    draws: int = 0

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def rate(self) -> float:
        return self.points / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        return wilson(self.points, self.games)

    def elo(self) -> float:
        return elo_difference(self.rate, self.games)

    def elo_interval(self) -> tuple[float, float]:
        lo, hi = self.interval()
        return elo_difference(lo, self.games), elo_difference(hi, self.games)


def wilson(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a win rate; honest near 0% and 100%, unlike the normal approximation."""
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1.0 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1.0 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_difference(rate: float, games: int) -> float:
    """Elo points that make ``rate`` the expected score; a clean sweep is clamped to half a game from perfect."""
    floor = 0.5 / max(1, games)
    p = min(1.0 - floor, max(floor, rate))
    return 400.0 * math.log10(p / (1.0 - p))


def summary(level_a: int, level_b: int, score: Score) -> str:
    lo, hi = score.interval()
    elo_lo, elo_hi = score.elo_interval()
    drawn = f" and {score.draws} drawn" if score.draws else ""
    return (
        f"{player(level_a)} vs {player(level_b)}: {score.wins}/{score.games} won{drawn} by {player(level_a)} "
        f"({score.rate:.0%}, 95% CI {lo:.0%}–{hi:.0%}); "
        f"Elo difference {score.elo():+.0f} (95% CI {elo_lo:+.0f} to {elo_hi:+.0f})"
    )


def match(
    level_a: int,
    level_b: int,
    games: int,
    *,
    variant: str = "medium",
    rules: str = "current",
    seed: int = 1,
    jobs: int = 1,
    clock: bool = False,
    progress: Callable[[Outcome], None] | None = None,
    game: str = "veletas",
    board: int = 8,
    protocol: str = "122",
) -> tuple[Score, list[Outcome]]:
    """Play a paired match and return A's score and every game's outcome (in the order they finished)."""
    plan = pairings(
        level_a, level_b, games, variant, rules, seed, clock=clock, game=game, board=board, protocol=protocol
    )
    outcomes = []
    for outcome in run(plan, jobs):
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    wins = sum(1 for o in outcomes if o.a_won)
    draws = sum(1 for o in outcomes if o.drawn)
    return Score(wins, len(outcomes), draws), outcomes
