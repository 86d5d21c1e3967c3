"""Mining puzzles: finished games (and AI self-play) walked position by position, the solver asked at each.

Pure: a game comes in as its name, settings, turns and status, puzzles go out as values; the store and
the bot's job around it live in the CLI (``bot.puzzles.__main__``) and the cog layer.

- Fair play: only a game whose status is ``finished`` is mined (``InPlay`` otherwise): nothing is ever
  taken from a game still in play. A game that ended by resignation or on time is mined all the same.
- Positions: the play phase only (Veletas's setup and pie choice are skipped), not the first ``EARLY``
  turns of it, not a Veletas position with more than ``WIDEST`` legal turns (too early to hold a short
  forced line, and too wide to prove one in time). They are searched from the game's end backwards, where
  the forced lines are, so a time budget spends itself on the likeliest ones first.
- Per position, Veletas: ``claim`` first; when the claim is forced but not uniquely, ``decide`` (winning
  the game) is asked within the same turns. Veloop: ``confine``. Under Veloop's protocol 122 a side makes
  two turns in a row, which a puzzle's alternating solution cannot hold, so only one-turn puzzles come
  from those games.
- Deduplication: a position lying on the forced line of an earlier position of the same game, reached by
  that line's own turns, is the same puzzle shorter: only the earliest (longest) is kept.
- Provenance: puzzles from a server's game carry that game's id and server; self-play ones carry neither
  (any server may see them).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from bot.ai import choose_turn
from bot.puzzles.solve import MAX_TURNS, find_puzzle
from bot.puzzles.values import Puzzle
from bot.rules.protocol import GameState
from bot.rules.registry import find_game
from bot.rules.veletas import Game as VeletasGame
from bot.rules.veloop import Game as VeloopGame

__all__ = [
    "EARLY",
    "NODES",
    "SELF_PLAY",
    "WIDEST",
    "InPlay",
    "Mined",
    "max_turns_for",
    "mine_finished",
    "mine_game",
    "mine_self_play",
    "play_and_mine",
    "self_play",
]

EARLY: Final = 4
"""Turns of the play phase before the first position looked at."""
WIDEST: Final = 300
"""A Veletas position with more legal turns than this is not searched."""
NODES: Final = 20_000
"""The solver's node budget per position and goal."""
SECONDS: Final = 0.5
"""The solver's time budget per position and goal."""
MAX_PLIES: Final = 400
"""A self-play game longer than this is cut off (never reached in practice: both games end well before)."""

SELF_PLAY: Final[tuple[tuple[str, Mapping[str, str]], ...]] = (
    ("veletas", {"variant": "small", "rules": "current"}),
    ("veletas", {"variant": "medium", "rules": "current"}),
    ("veloop", {"board": "5", "protocol": "alternating"}),
    ("veloop", {"board": "8", "protocol": "alternating"}),
    ("veloop", {"board": "8", "protocol": "122"}),
)
"""The games and settings self-play tops puzzles up with: the small boards the servers play, where the
solver proves quickly, and Veloop's default board."""


class InPlay(ValueError):
    """The game is not finished: fair play forbids mining it."""


@dataclass
class Mined:
    """What mining found: the puzzles, and how the positions went."""

    puzzles: list[Puzzle] = field(default_factory=list)
    positions: int = 0
    unknown: int = 0
    nodes: int = 0

    def add(self, other: Mined) -> None:
        self.puzzles.extend(other.puzzles)
        self.positions += other.positions
        self.unknown += other.unknown
        self.nodes += other.nodes

    def counts(self) -> dict[str, Counter[int]]:
        """Per game, how many puzzles of each length (solver turns)."""
        out: dict[str, Counter[int]] = {}
        for puzzle in self.puzzles:
            out.setdefault(puzzle.game, Counter())[puzzle.solver_turns] += 1
        return out


def max_turns_for(state: GameState) -> int:
    """The longest puzzle a game's positions can give (1 under Veloop's protocol 122)."""
    if isinstance(state, VeloopGame) and state.protocol == "122":
        return 1
    return MAX_TURNS


def mine_game(
    game: str,
    settings: Mapping[str, str],
    turns: Sequence[str],
    *,
    status: str,
    game_id: int | None = None,
    guild_id: int | None = None,
    max_turns: int = MAX_TURNS,
    nodes: int = NODES,
    seconds: float = SECONDS,
    deadline: float | None = None,
    positions: int | None = None,
) -> Mined:
    """The puzzles of one finished game (``status`` as the store keeps it); ``InPlay`` for any other.

    ``deadline`` (``time.perf_counter()``) stops the walk early, ``positions`` after that many positions from the
    end; ``seconds`` and ``nodes`` bound each question.
    """
    if status != "finished":
        raise InPlay(f"game {game_id} is {status}, not finished: it is not mined")
    kind = find_game(game)
    state = kind.new(settings)
    states: list[GameState] = []
    for turn in turns:
        states.append(state)
        state = state.play(turn)
    play_start = next((i for i, s in enumerate(states) if s.phase == "play"), len(states))
    found: list[tuple[int, Puzzle]] = []
    mined = Mined()
    for index in range(len(states) - 1, play_start + EARLY - 1, -1):
        if (deadline is not None and time.perf_counter() > deadline) or mined.positions == positions:
            break
        position = states[index]
        if position.phase != "play" or _too_wide(position):
            continue
        mined.positions += 1
        puzzle, unknown, spent = _puzzle_at(position, min(max_turns, max_turns_for(position)), nodes, seconds)
        mined.nodes += spent
        mined.unknown += unknown
        if puzzle is not None:
            found.append((index, puzzle))
    mined.puzzles = [
        Puzzle(
            game=game,
            settings=dict(states[0].settings),
            before=tuple(turns[:index]),
            solution=puzzle.solution,
            goal=puzzle.goal,
            rating=puzzle.rating,
            tempting=puzzle.tempting,
            source_game_id=game_id,
            guild_id=guild_id if game_id is not None else None,
        )
        for index, puzzle in _earliest(found, turns)
    ]
    return mined


def _too_wide(state: GameState) -> bool:
    return isinstance(state, VeletasGame) and state.position.fast().count_moves() > WIDEST


def _puzzle_at(state: GameState, max_turns: int, nodes: int, seconds: float) -> tuple[Puzzle | None, int, int]:
    """The puzzle at one position (or None), whether a question ran out of budget, and the nodes searched."""
    goals = ("claim", "decide") if isinstance(state, VeletasGame) else ("confine",)
    spent = 0
    for goal in goals:
        verdict = find_puzzle(state, goal, max_turns, nodes=nodes, seconds=seconds)
        spent += verdict.nodes
        if verdict.status == "unknown":
            return None, 1, spent
        if verdict.status == "none":
            return None, 0, spent
        solution = verdict.solution
        if solution is not None:
            puzzle = Puzzle(
                game=state.kind.name,
                settings=dict(state.settings),
                before=state.turns,
                solution=solution.line,
                goal=goal,
                rating=solution.rating,
                tempting=solution.tempting,
            )
            return puzzle, 0, spent
        # A claim forced by several turns: winning the game may still be forced by one, in as many turns or more.
    return None, 0, spent


def _earliest(found: list[tuple[int, Puzzle]], turns: Sequence[str]) -> list[tuple[int, Puzzle]]:
    """The puzzles not lying on an earlier kept puzzle's line, as the game itself went on along it."""
    kept: list[tuple[int, Puzzle]] = []
    for index, puzzle in sorted(found, key=lambda item: item[0]):
        covered = any(
            start < index < start + len(earlier.solution)
            and tuple(turns[start:index]) == earlier.solution[: index - start]
            for start, earlier in kept
        )
        if not covered:
            kept.append((index, puzzle))
    return kept


def self_play(game: str, settings: Mapping[str, str], seed: int, level: int = 1) -> tuple[str, ...]:
    """A whole AI game's turns, reproducible from ``seed``."""
    rng = random.Random(seed)
    state = find_game(game).new(settings)
    while state.phase != "over" and len(state.turns) < MAX_PLIES:
        state = state.play(choose_turn(state, level, seed=rng.randrange(1 << 30)))
    return state.turns


def mine_self_play(
    game: str,
    settings: Mapping[str, str],
    seed: int,
    *,
    level: int = 1,
    nodes: int = NODES,
    seconds: float = SECONDS,
    deadline: float | None = None,
    positions: int | None = None,
) -> Mined:
    """One self-play game played and mined: its puzzles belong to no server."""
    turns = self_play(game, settings, seed, level)
    return mine_game(
        game, settings, turns, status="finished", nodes=nodes, seconds=seconds, deadline=deadline, positions=positions
    )


def mine_finished(
    game: str,
    settings: tuple[tuple[str, str], ...],
    turns: tuple[str, ...],
    status: str,
    game_id: int,
    guild_id: int,
    seconds: float,
) -> list[Puzzle]:
    """One stored game of a server, searched for at most ``seconds``: a top-level function of plain values, for a
    worker process. ``status`` is the game's as stored: anything but finished is refused (``InPlay``)."""
    found = mine_game(
        game,
        dict(settings),
        turns,
        status=status,
        game_id=game_id,
        guild_id=guild_id,
        deadline=time.perf_counter() + seconds,
    )
    return found.puzzles


def play_and_mine(game: str, settings: tuple[tuple[str, str], ...], seed: int, seconds: float) -> list[Puzzle]:
    """One self-play game played and searched for at most ``seconds`` (a top-level function, for a worker)."""
    return mine_self_play(game, dict(settings), seed, deadline=time.perf_counter() + seconds).puzzles
