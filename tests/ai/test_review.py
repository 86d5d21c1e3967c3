"""The review's evaluation and classification: each move's loss against the search's best, graded by thresholds."""

from __future__ import annotations

import pytest

from bot.ai import choose_turn
from bot.ai.review import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    Evaluation,
    classify,
    evaluate_position,
    judge,
    review_from_json,
    review_game,
    review_json,
    turning_points,
)
from bot.rules.registry import find_game

FIVE = {"board": "5"}
# A random Veloop game on 5×5 (seed 8): White's 39th turn, a4<c3, lets Black confine at once, where the
# search finds White all but won before it.
THROWN = [
    "b4<c2",
    "c5<b3",
    "d4<b3",
    "a4<c3",
    "b5<c3",
    "a5<c4",
    "b2<c4",
    "a1<c2",
    "a3<c2",
    "e4<c5",
    "c3<d5",
    "c4<b2",
    "e3<c4",
    "c1<d3",
    "e5<d3",
    "d1<e3",
    "d2<c4",
    "d3<e5",
    "a2<c3",
    "d4<e2",
    "c2<a3",
    "c4<a5",
    "b4<a2",
    "e4<d2",
    "b4<c2",
    "a1<b3",
    "d4<b3",
    "c3<a4",
    "b2<d1",
    "c1<d3",
    "e1<d3",
    "c5<b3",
    "b1<d2",
    "d2<c4",
    "b5<c3",
    "a3<c4",
    "c2<e3",
    "e3<d5",
    "a4<c3",
    "d3<b2",
]


@pytest.mark.parametrize(
    ("loss", "grade"),
    [
        (0.0, None),
        (INACCURACY - 0.001, None),
        (INACCURACY, "inaccuracy"),
        (MISTAKE - 0.001, "inaccuracy"),
        (MISTAKE, "mistake"),
        (BLUNDER - 0.001, "mistake"),
        (BLUNDER, "blunder"),
        (1.0, "blunder"),
    ],
)
def test_losses_are_graded_by_the_documented_thresholds(loss: float, grade: str | None) -> None:
    assert (INACCURACY, MISTAKE, BLUNDER) == (0.10, 0.20, 0.30)
    assert classify(loss) == grade


def test_a_loss_is_counted_from_the_movers_side_and_a_gain_is_no_loss() -> None:
    # Veloop 5×5 under 122: Black plays turn 1, White turns 2 and 3, Black 4 and 5.
    turns = THROWN[:5]
    evaluations = [
        Evaluation(0.50, "e1<d3"),  # Black plays b4<c2 instead: 0.50 -> 0.35, a loss of 0.15
        Evaluation(0.35, "e1<d3"),  # White plays c5<b3: Black's chance 0.35 -> 0.90, White loses 0.55
        Evaluation(0.90, "e1<d3"),  # White plays d4<b3: Black's chance falls, a gain for White
        Evaluation(0.20, "e1<d3"),  # Black plays a4<c3: 0.20 -> 0.01, a loss of 0.19
        Evaluation(0.01, "e1<d3"),  # Black plays b5<c3: 0.01 -> 0.80, a gain
        Evaluation(0.80, None),
    ]
    review = judge("veloop", turns, FIVE, evaluations)
    assert [turn.colour for turn in review.turns] == ["black", "white", "white", "black", "black"]
    assert [turn.grade for turn in review.turns] == ["inaccuracy", "blunder", None, "inaccuracy", None]
    assert review.turns[1].loss == pytest.approx(0.55)
    assert review.turns[2].loss == 0.0
    assert review.counts("black") == {"inaccuracy": 2, "mistake": 0, "blunder": 0}
    assert review.counts("white") == {"inaccuracy": 0, "mistake": 0, "blunder": 1}
    assert review.evaluations == (0.50, 0.35, 0.90, 0.20, 0.01, 0.80)
    assert [turn.number for turn in turning_points(review, 2)] == [2, 4]
    assert [turn.number for turn in turning_points(review, 3)] == [1, 2, 4]


def test_the_searchs_own_move_loses_nothing_whatever_the_numbers_say() -> None:
    turns = THROWN[:2]
    evaluations = [Evaluation(0.9, "b4<c2"), Evaluation(0.1, "c5<b3"), Evaluation(0.95, None)]
    review = judge("veloop", turns, FIVE, evaluations)
    assert [turn.grade for turn in review.turns] == [None, None]
    assert [turn.best for turn in review.turns] == ["b4<c2", "c5<b3"]


def test_judging_needs_one_evaluation_per_position() -> None:
    with pytest.raises(ValueError, match="need 3 evaluations"):
        judge("veloop", THROWN[:2], FIVE, [Evaluation(0.5, None)] * 2)


def test_a_move_that_lets_the_opponent_win_at_once_is_a_blunder() -> None:
    game = find_game("veloop").replay(THROWN, FIVE)
    assert game.winner == "black"
    thrown = 39  # the number of White's last turn

    def evaluate(
        name: str, turns: tuple[str, ...], settings: tuple[tuple[str, str], ...], seconds: float, seed: int | None
    ) -> Evaluation:
        # The real search around the blunder; elsewhere a neutral stand-in, to keep the test short.
        if len(turns) >= thrown - 1:
            return evaluate_position(name, turns, settings, seconds, seed)
        return Evaluation(0.5, None)

    review = review_game("veloop", THROWN, FIVE, seconds=5.0, seed=1, evaluate=evaluate)
    blunder = review.turns[thrown - 1]
    assert (blunder.colour, blunder.played, blunder.grade) == ("white", "a4<c3", "blunder")
    assert blunder.best is not None and blunder.best != "a4<c3"
    assert review.evaluations[-1] == 1.0
    assert review.counts("white")["blunder"] == 1
    assert turning_points(review, 1) == [blunder]


@pytest.mark.slow
@pytest.mark.parametrize(("game", "settings", "plies"), [("veloop", FIVE, 4), ("veletas", {"variant": "small"}, 3)])
def test_a_game_played_as_the_search_wants_is_clean(game: str, settings: dict[str, str], plies: int) -> None:
    kind = find_game(game)
    state = kind.new(settings)
    pairs = tuple(sorted(settings.items()))
    seen: dict[tuple[str, ...], Evaluation] = {}

    def evaluate(
        name: str, turns: tuple[str, ...], settings: tuple[tuple[str, str], ...], seconds: float, seed: int | None
    ) -> Evaluation:
        # Each position searched once (briefly): the review sees the very verdicts the game was played by.
        if turns not in seen:
            seen[turns] = evaluate_position(name, turns, settings, seconds, seed)
        return seen[turns]

    while state.phase != "play":  # Veletas's setup and pie: the search judges moves only
        state = state.play(choose_turn(state, 1, seed=1))
    for _ in range(plies):
        best = evaluate(game, state.turns, pairs, 0.2, None).best
        assert best is not None
        state = state.play(best)
    review = review_game(game, state.turns, settings, seconds=0.2, evaluate=evaluate)
    judged = [turn for turn in review.turns if turn.colour is not None]
    assert len(judged) == plies
    assert all(turn.grade is None and turn.loss == 0.0 for turn in review.turns)
    assert all(0.0 <= value <= 1.0 for value in review.evaluations)


def test_a_review_reads_back_from_its_json_as_it_was() -> None:
    evaluations = [Evaluation(0.5, "e1<d3"), Evaluation(0.9, None), Evaluation(0.2, None)]
    review = judge("veloop", THROWN[:2], FIVE, evaluations)
    assert review_from_json(review_json(review)) == review
