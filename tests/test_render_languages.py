"""Board images in every language: the drawers take their words from the catalogue, chosen by the caller."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot import render
from bot.i18n import LANGUAGES, Words, words
from bot.rules import Game, Position
from bot.rules.veloop import Game as VeloopGame

MAX_BYTES = 150_000  # the renderer's own budget for a board image


class Recording(Words):
    """A language's words that remember which keys a drawer asked for, and with what."""

    def __init__(self, language: str) -> None:
        super().__init__(language, words("en"))
        self.asked: list[tuple[str, dict[str, object]]] = []

    def __call__(self, key: str, /, **data: object) -> str:
        self.asked.append((key, data))
        return super().__call__(key, **data)


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def play_position() -> Position:
    return Position.from_string("3S3/1bw4/5S1/7/5w1/5Sb/2b2w1 b")


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_phase_asks_its_words_and_draws_a_valid_image(language: str) -> None:
    w = Recording(language)
    game = Game.new("small", rules="current")
    setup = render.game_png(game, words=w, players={"first": "Ana", "second": "太郎"})
    assert ("render.setup_stone_black", {"who": "Ana", "count": 1}) in w.asked
    game = game.play("c3/d7")
    pie = render.game_png(game, words=w)
    assert any(key == "render.pie" for key, _ in w.asked)
    board = render.board_png(play_position(), words=w, players={"black": "Ana 🎲", "white": "太郎"})
    assert any(key == "render.to_move_need" and data["count"] == 2 for key, data in w.asked)
    for data in (setup, pie, board):
        image = decoded(data)
        assert image.format == "PNG" and image.width == 800 and len(data) <= MAX_BYTES


def test_the_words_change_the_image_and_the_same_words_give_the_same_bytes() -> None:
    position = play_position()
    images = {language: render.board_png(position, words=words(language)) for language in LANGUAGES}
    assert len(set(images.values())) == len(LANGUAGES), "each language draws its own header"
    assert images["en"] == render.board_png(position), "English is the default"
    assert images["ja"] == render.board_png(position, words=words("ja")), "deterministic in every language"


@pytest.mark.parametrize("language", LANGUAGES)
def test_veloop_headers_and_results_in_each_language(language: str) -> None:
    w = Recording(language)
    game = VeloopGame.new(5, "122")
    render.veloop_board_png(game.position, words=w)
    assert any(key == "render.veloop_to_move" for key, _ in w.asked)
    game = game.play(str(game.position.legal_moves()[0]))
    render.veloop_board_png(game.position, last_move=game.last_move, words=w)
    assert any(key == "render.veloop_to_move_ply" and data["ply"] == 1 for key, data in w.asked)
    gif = render.veloop_replay_gif(game, words=w)
    assert decoded(gif).format == "GIF"


def test_a_result_off_the_board_is_drawn_as_given() -> None:
    position = play_position()
    spanish = words("es")
    result = "Blanco gana · Negro abandonó"  # any text the caller gives, drawn as given
    with_result = render.board_png(position, words=spanish, result=result)
    assert with_result != render.board_png(position, words=spanish)
