"""The review image: the evaluation graph, each side's counts, the turning points' boards, in every theme."""

from __future__ import annotations

import io
import math

import pytest
from PIL import Image

from bot.ai.review import Evaluation, Review, judge
from bot.i18n import words
from bot.render import THEMES
from bot.render.review import BAR, bar_box, graph_box, review_gif, review_png
from bot.rules.protocol import GameState
from bot.rules.registry import find_game

FIVE = {"board": "5"}
TURNS = ("b4<c2", "c5<b3", "d4<b3", "a4<c3", "b5<c3", "a5<c4", "b2<c4", "a1<c2", "a3<c2", "e4<c5")


def reviewed(values: list[float]) -> tuple[GameState, Review]:
    game = find_game("veloop").replay(TURNS, FIVE)
    evaluations = [Evaluation(v, "e1<d3") for v in values]
    return game, judge("veloop", TURNS, FIVE, evaluations)


def accent_rows(im: Image.Image, x: int, theme: str) -> list[int]:
    accent = THEMES[theme].accent
    rgb = im.convert("RGB")
    return [
        y for y in range(im.height) if max(abs(a - b) for a, b in zip(rgb.getpixel((x, y)), accent, strict=False)) <= 10
    ]


@pytest.mark.parametrize("theme", list(THEMES))
def test_the_graph_follows_the_evaluation_and_each_turning_point_gets_two_boards(theme: str) -> None:
    # Black all but winning at the start, then White's turn 2 throws it: three big swings in all.
    values = [0.5, 0.5, 0.95, 0.95, 0.95, 0.5, 0.5, 0.5, 0.1, 0.1, 0.1]
    game, review = reviewed(values)
    clean_game, clean = reviewed([0.5] * 11)
    names = {"black": "Ада Лавлейс", "white": "グレース・ホッパー" * 8}
    data = review_png(game, review, theme=theme, players=names, words=words("ja"))
    flat = review_png(clean_game, clean, theme=theme, players=names, words=words("ja"))
    im, plain = Image.open(io.BytesIO(data)), Image.open(io.BytesIO(flat))
    assert im.format == "PNG" and len(data) < 8 * 1024 * 1024
    # Three turning points, each with a board before and after it: far taller than the clean game's image.
    assert im.height > plain.height + 3 * 300
    left, top, right, bottom = graph_box(im.width)
    step = (right - left) / 10
    high = accent_rows(im, round(left + 3 * step), theme)  # Black at 95 %: the line near the top
    low = accent_rows(im, round(left + 9 * step), theme)  # White at 90 %: near the bottom
    assert high and low
    assert min(high) < top + 0.15 * (bottom - top)
    assert max(low) > bottom - 0.2 * (bottom - top)


def test_the_image_names_the_turning_points_the_counts_and_the_better_move() -> None:
    seen: list[tuple[str, dict[str, object]]] = []

    class Spy:
        def __call__(self, key: str, **data: object) -> str:
            seen.append((key, data))
            return words("en")(key, **data)

    game, review = reviewed([0.5, 0.5, 0.95, 0.95, 0.95, 0.5, 0.5, 0.5, 0.1, 0.1, 0.1])
    review_png(game, review, words=Spy())  # type: ignore[arg-type]
    points = [data for key, data in seen if key == "render.review_point"]
    assert [(p["number"], p["played"], p["best"], p["loss"]) for p in points] == [
        (2, "c5<b3", "e1<d3", 45),
        (5, "b5<c3", "e1<d3", 45),
        (8, "a1<c2", "e1<d3", 40),
    ]
    counts = {str(data["name"]): data for key, data in seen if key == "render.review_counts"}
    assert (counts["Black"]["blunders"], counts["White"]["blunders"]) == (2, 1)
    assert ("render.review_clean", {}) not in seen


def test_a_long_game_stays_within_discords_limits() -> None:
    turns: list[str] = []
    game = find_game("veloop").new({"board": "8"})
    import random

    rng = random.Random(3)
    while game.phase == "play" and len(turns) < 90:
        move = str(rng.choice(game.position.legal_moves()))  # type: ignore[attr-defined]
        game = game.play(move)
        turns.append(move)
    values = [0.5 + 0.45 * math.sin(i) for i in range(len(turns) + 1)]
    review = judge("veloop", turns, {"board": "8"}, [Evaluation(v, None) for v in values])
    data = review_png(game, review, theme="dark")
    assert len(data) < 8 * 1024 * 1024
    assert Image.open(io.BytesIO(data)).height < 4000


@pytest.mark.parametrize("theme", list(THEMES))
def test_the_replay_has_a_frame_a_turn_with_the_evaluation_bar_beside_the_board(theme: str) -> None:
    values = [0.5, 0.5, 0.95, 0.95, 0.95, 0.5, 0.5, 0.5, 0.1, 0.1, 0.1]
    game, review = reviewed(values)
    data = review_gif(game, review, theme=theme, size=300)
    im = Image.open(io.BytesIO(data))
    assert im.format == "GIF" and im.n_frames == len(TURNS) + 1
    look = THEMES[theme]

    def share_of_black(frame: int) -> float:
        im.seek(frame)
        rgb = im.convert("RGB")
        left, top, right, bottom = bar_box(rgb.height)
        x = (left + right) // 2
        column = [rgb.getpixel((x, y)) for y in range(round(top) + 2, round(bottom) - 1)]
        near = [max(abs(a - b) for a, b in zip(pixel, look.black, strict=True)) <= 12 for pixel in column]
        return sum(near) / len(column)

    assert share_of_black(3) == pytest.approx(0.95, abs=0.03)
    assert share_of_black(9) == pytest.approx(0.10, abs=0.03)
    assert share_of_black(0) == pytest.approx(0.5, abs=0.03)
    assert im.width > BAR + 300 * 0.9, "the board beside the bar"
    with pytest.raises(ValueError, match="positions but"):
        review_gif(game, Review(review.evaluations[:-1], review.turns))
