"""The crosstable image: its size, the square table of a round robin, a page of a big field, long names
shortened, and a known cell drawn in each theme's colours."""

from __future__ import annotations

import io
import random
from itertools import pairwise

import pytest
from PIL import Image

from bot.render import THEMES
from bot.render import crosstable as cr
from bot.render.crosstable import MAX_CROSSTABLE_ROWS, crosstable_png
from bot.render.theme import theme_named
from bot.render.tournament import TournamentWords
from bot.tournaments import Crosstable, Tournament, crosstable, next_round, seed_by_rating, standings

THEME_NAMES = sorted(THEMES)
SWISS_LABELS = ["BH-1", "BH", "SB", "H2H", "W"]


def decode(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG")
    return Image.open(io.BytesIO(data)).convert("RGB")


def played(fmt: str, n: int, rounds: int, seed: int = 3) -> Tournament:
    rng = random.Random(seed)
    t = Tournament(fmt, seed_by_rating((i, 1200 + 7 * i) for i in range(1, n + 1)), rounds)  # type: ignore[arg-type]
    while len(t.rounds) < t.total_rounds:
        t = t.with_round(next_round(t))
        for g in t.rounds[-1].games:
            t = t.record(g.white, rng.choice(["1-0", "0-1", "1/2-1/2"]))  # type: ignore[arg-type]
    return t


def table_of(t: Tournament) -> Crosstable:
    return crosstable(t, standings(t))


def names(t: Tournament) -> dict[int, str]:
    return {p.id: f"Player {p.id}" for p in t.players}


def test_a_swiss_has_a_column_per_round_and_a_row_per_player() -> None:
    t = played("swiss", 12, 5)
    table = table_of(t)
    im = decode(crosstable_png(table, names(t), title="Spring Swiss", tiebreak_labels=SWISS_LABELS))
    assert im.height == cr.TITLE_H + cr.HEAD_H + 12 * cr.ROW_H + cr.PAD
    assert im.width >= cr.WIDTH
    wider = played("swiss", 12, 9)
    im9 = decode(crosstable_png(table_of(wider), names(wider), title="Long Swiss", tiebreak_labels=SWISS_LABELS))
    assert im9.width > im.width  # four more round columns widen it, never shrink the names


def test_a_big_field_is_paged_and_every_page_keeps_the_whole_tables_numbers() -> None:
    t = played("swiss", 60, 3)
    table = table_of(t)
    with pytest.raises(ValueError, match="at most 40"):
        crosstable_png(table, names(t), title="Big", tiebreak_labels=SWISS_LABELS)
    pages = [table.rows[i : i + MAX_CROSSTABLE_ROWS] for i in range(0, len(table.rows), MAX_CROSSTABLE_ROWS)]
    assert [len(p) for p in pages] == [40, 20]
    images = [decode(crosstable_png(table, names(t), title="Big", tiebreak_labels=SWISS_LABELS, rows=p)) for p in pages]
    assert images[1].height == cr.TITLE_H + cr.HEAD_H + 20 * cr.ROW_H + cr.PAD
    assert images[0].width == images[1].width  # the widest number is the whole table's, on every page


def test_a_round_robin_is_square_with_a_shaded_diagonal() -> None:
    t = played("round_robin", 6, 5)
    table = table_of(t)
    assert table.square
    im = decode(crosstable_png(table, names(t), title="RR", tiebreak_labels=["H2H", "SB", "W"], theme="light"))
    look = cr._look("light")
    y = cr.TITLE_H + cr.HEAD_H + cr.ROW_H // 2
    starts = []
    for i in range(6):  # row i's diagonal cell is column i's: a block of the rule colour, a cell further right
        row = [im.getpixel((px, y + i * cr.ROW_H)) for px in range(im.width)]
        runs = [px for px in range(im.width - 30) if all(c == look.rule for c in row[px : px + 30])]
        assert runs, i
        starts.append(runs[0])
    steps = {b - a for a, b in pairwise(starts)}
    assert len(steps) == 1 and steps.pop() > 30


def test_long_names_are_shortened_and_names_in_any_script_draw() -> None:
    t = played("swiss", 6, 3)
    table = table_of(t)
    long = {p.id: "Wolfgang Amadeus Mozart von Salzburg " * 3 for p in t.players}
    scripts = {
        p.id: name for p, name in zip(t.players, ["山田太郎", "Ελένη", "محمد", "Zoë", "Иван", "🦀 Crab"], strict=True)
    }
    a = decode(crosstable_png(table, long, title="Names", tiebreak_labels=SWISS_LABELS))
    b = decode(crosstable_png(table, scripts, title="Names", tiebreak_labels=SWISS_LABELS))
    assert a.size == b.size  # a long name is cut to its column, never widening the image


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_a_known_cell_is_drawn_in_each_themes_colours(theme: str) -> None:
    t = played("swiss", 8, 3)
    table = table_of(t)
    im = decode(crosstable_png(table, names(t), title="Themes", tiebreak_labels=SWISS_LABELS, theme=theme))
    colours = theme_named(theme)
    top = cr.TITLE_H + cr.HEAD_H
    # the first row: the theme's background, with the theme's text colour in its name and its won cells
    box = im.crop((0, top + 2, im.width, top + cr.ROW_H - 2))
    found = {c for _, c in box.getcolors(maxcolors=box.width * box.height) or []}
    assert colours.background in found
    assert colours.text in found


def test_the_first_round_cell_differs_by_theme() -> None:
    t = played("swiss", 8, 3)
    table = table_of(t)
    crops = set()
    for theme in THEME_NAMES:
        im = decode(crosstable_png(table, names(t), title="Themes", tiebreak_labels=SWISS_LABELS, theme=theme))
        top = cr.TITLE_H + cr.HEAD_H
        crops.add(im.crop((cr.PAD + 300, top, cr.PAD + 360, top + cr.ROW_H)).tobytes())
    assert len(crops) == len(THEME_NAMES)


def test_a_bye_is_written_in_the_readers_language() -> None:
    t = played("swiss", 7, 3)  # an odd field: a pairing bye every round
    table = table_of(t)
    english = decode(crosstable_png(table, names(t), title="Byes", tiebreak_labels=SWISS_LABELS))
    words = TournamentWords(crosstable_bye="descanso")
    spanish = decode(crosstable_png(table, names(t), title="Byes", tiebreak_labels=SWISS_LABELS, words=words))
    assert spanish.width > english.width  # "+ descanso" needs wider round columns than "+ bye"
