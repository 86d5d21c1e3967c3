"""A finished game reviewed by the AI: one evaluation per position, and each move's loss against the best one.

Every position is judged by the analysis search (level 4's search with the solver) within a fixed time
per position, ``POSITION_SECONDS``, so a 60-turn game takes about 60 × that in a worker (measured by
``python -m benchmarks.bench_review``; the pool runs each position as a job of its own behind the AI's
turns). The evaluation is one number per position, Black's (the first player's) chance of winning from 0
to 1, whoever is to move.

A move's *loss* is the mover's chance of winning before it (the search's value of the position, that is
with its best move) less the mover's chance after it (the value of the position the move led to),
never below zero. A move the search itself would have played loses nothing. Losses are classified as
Lichess classifies them on winning chances: ``INACCURACY`` (0.10), ``MISTAKE`` (0.20), ``BLUNDER``
(0.30) and more.

Pure: values in, values out (no Discord, no store); ``evaluate_position`` is a top-level function whose
arguments and result pickle, for the worker pool.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

from bot.ai.budget import Budget
from bot.rules.protocol import GameState
from bot.rules.registry import find_game

__all__ = [
    "BLUNDER",
    "INACCURACY",
    "MISTAKE",
    "POSITION_SECONDS",
    "REVIEWED",
    "Evaluation",
    "Judged",
    "Review",
    "classify",
    "evaluate_position",
    "judge",
    "review_from_json",
    "review_game",
    "review_json",
    "turning_points",
]

INACCURACY = 0.10
MISTAKE = 0.20
BLUNDER = 0.30
"""The loss in winning chances (0 to 1) from which a move is an inaccuracy, a mistake, a blunder."""

POSITION_SECONDS = 0.25
"""The search's time for one position of a review (a hard cap; with a seed, its iterations end it first)."""

REVIEWED: tuple[str, ...] = ("veletas", "veloop")
"""The games whose positions the AI can judge, so the games a review is offered for."""

Grade = Literal["inaccuracy", "mistake", "blunder"]
GRADES: tuple[Grade, ...] = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class Evaluation:
    """The search's view of one position: Black's chance of winning, and its best move (None when over or not
    a move: a setup or the pie choice, which a review does not judge)."""

    black: float
    best: str | None


@dataclass(frozen=True)
class Judged:
    """One turn of the game: its 1-based number, who played it, what, the search's better move, the loss, the grade.

    ``before`` and ``after`` are Black's chances around it; ``colour`` is None for a turn not judged (setup, pie).
    """

    number: int
    colour: str | None
    played: str
    best: str | None
    before: float
    after: float
    loss: float
    grade: Grade | None


@dataclass(frozen=True)
class Review:
    """A whole game reviewed: the evaluations (one per position, the start included) and every turn judged."""

    evaluations: tuple[float, ...]
    turns: tuple[Judged, ...]

    def counts(self, colour: str) -> dict[Grade, int]:
        """How many inaccuracies, mistakes and blunders ``colour`` played (each move counted once, at its grade)."""
        found: dict[Grade, int] = dict.fromkeys(GRADES, 0)
        for turn in self.turns:
            if turn.colour == colour and turn.grade is not None:
                found[turn.grade] += 1
        return found


def classify(loss: float) -> Grade | None:
    """The grade of a move that lost ``loss`` of its side's winning chances; None below ``INACCURACY``."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return None


def _finished(state: GameState) -> float:
    outcome = state.outcome
    if outcome is None or outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner == "black" else 0.0


def _evaluate(state: GameState, seconds: float, seed: int | None) -> Evaluation:
    if state.phase == "over":
        return Evaluation(_finished(state), None)
    if state.phase != "play":
        return Evaluation(0.5, None)
    position = getattr(state, "position", None)
    if state.kind.name == "veletas":
        from bot.ai.veletas import analyze

        found = analyze(position, time_limit=seconds, seed=seed)  # type: ignore[arg-type]
        return Evaluation(found.black, None if found.best_move is None else str(found.best_move))
    if state.kind.name == "veloop":
        from bot.ai import veloop

        board = veloop.Board(position)  # type: ignore[arg-type]
        budget = Budget.for_level(
            veloop.LEVELS[4],
            seeded=seed is not None,
            time_limit=seconds,
            size=board.size,
            reference=veloop.REFERENCE,
            power=1.0,
        )
        choice = veloop.choose(board, 4, random.Random(seed), budget)
        black = choice.black
        if choice.proven < 0 and choice.iterations <= 1:
            # One sensible move only: the search did not weigh it, the position after it says what it is worth.
            black = veloop.black_chance(board.after(choice.ply))
        return Evaluation(black, str(board.move_of(choice.ply)))
    raise ValueError(f"the AI does not review {state.kind.title}")


def evaluate_position(
    game: str, turns: tuple[str, ...], settings: tuple[tuple[str, str], ...], seconds: float, seed: int | None = None
) -> Evaluation:
    """The evaluation of the position these turns lead to in ``game`` (a worker pool's job)."""
    return _evaluate(find_game(game).replay(turns, dict(settings)), seconds, seed)


def _same(state: GameState, played: str, best: str | None) -> bool:
    """Whether the move played is the search's own (the same position follows, however it was written)."""
    if best is None:
        return False
    try:
        return getattr(state.play(played), "position", None) == getattr(state.play(best), "position", None)
    except ValueError:
        return False


def judge(game: str, turns: Sequence[str], settings: Mapping[str, str], evaluations: Sequence[Evaluation]) -> Review:
    """Every turn judged from the evaluations of the positions before and after it (``len(turns) + 1`` of them)."""
    if len(evaluations) != len(turns) + 1:
        raise ValueError(f"{len(turns)} turns need {len(turns) + 1} evaluations, not {len(evaluations)}")
    state = find_game(game).new(settings)
    judged: list[Judged] = []
    for number, played in enumerate(turns, start=1):
        before, after = evaluations[number - 1], evaluations[number]
        colour = state.colour_to_act if state.phase == "play" else None
        grade: Grade | None = None
        loss = 0.0
        if colour is not None and not _same(state, played, before.best):
            mine_before = before.black if colour == "black" else 1.0 - before.black
            mine_after = after.black if colour == "black" else 1.0 - after.black
            loss = max(0.0, mine_before - mine_after)
            grade = classify(loss)
        judged.append(Judged(number, colour, played, before.best, before.black, after.black, loss, grade))
        state = state.play(played)
    return Review(tuple(e.black for e in evaluations), tuple(judged))


def review_game(
    game: str,
    turns: Sequence[str],
    settings: Mapping[str, str],
    *,
    seconds: float = POSITION_SECONDS,
    seed: int | None = None,
    evaluate: Callable[[str, tuple[str, ...], tuple[tuple[str, str], ...], float, int | None], Evaluation] = (
        evaluate_position
    ),
) -> Review:
    """The whole review in this process (the bot runs ``evaluate_position`` per position in its pool instead)."""
    pairs = tuple(sorted(settings.items()))
    evaluations = [evaluate(game, tuple(turns[:n]), pairs, seconds, seed) for n in range(len(turns) + 1)]
    return judge(game, turns, settings, evaluations)


def turning_points(review: Review, count: int = 3) -> list[Judged]:
    """The ``count`` judged moves that lost the most (at least an inaccuracy), in the order they were played."""
    graded = [turn for turn in review.turns if turn.grade is not None]
    largest = sorted(graded, key=lambda turn: -turn.loss)[:count]
    return sorted(largest, key=lambda turn: turn.number)


def review_json(review: Review) -> str:
    """The review as JSON text, as the store keeps it."""
    return json.dumps({"evaluations": list(review.evaluations), "turns": [asdict(turn) for turn in review.turns]})


def review_from_json(text: str) -> Review:
    """A review from ``review_json``'s text."""
    data = json.loads(text)
    turns = tuple(Judged(**turn) for turn in data["turns"])
    return Review(tuple(float(value) for value in data["evaluations"]), turns)
