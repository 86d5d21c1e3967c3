"""The crosstable as an image in the board themes, drawn like the standings (``tournament``).

A Swiss reads a column per round (``+12w``, ``=5b``, ``½ bye``), a round robin the square table (a column per
opponent, by row number, the diagonal shaded); then points and tie-breaks. A crosstable is as wide as its
rounds or players need (800 px at least, wider past a handful of rounds, never narrower, so a phone shrinks it
rather than cutting it), and at most ``MAX_CROSSTABLE_ROWS`` rows tall: the caller pages a bigger field, each
page keeping the whole table's numbers.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from bot.render.text import DRAWING, TextFace, fit
from bot.render.theme import RGB
from bot.render.tournament import (
    ENGLISH,
    LABEL,
    PAD,
    TITLE_H,
    WIDTH,
    TournamentWords,
    _edges,
    _headings,
    _look,
    _name,
    _Sheet,
    _title,
    score,
)
from bot.tournaments.crosstable import Cell, CrossRow, Crosstable

__all__ = ["MAX_CROSSTABLE_ROWS", "crosstable_png"]

MAX_CROSSTABLE_ROWS = 40
"""Rows one crosstable image holds; a bigger field is paged by the caller."""

HEAD_H = 50
ROW_H = 42
NAME = TextFace(24)
NUMBER = TextFace(22)
CELL = TextFace(22, bold=False)
NAME_W = 230  # the name column; names longer than it are shortened as the standings' are


def crosstable_png(
    table: Crosstable,
    names: Mapping[int, str],
    *,
    title: str,
    tiebreak_labels: Sequence[str],
    rows: Sequence[CrossRow] | None = None,
    theme: str = "dark",
    withdrawn: Collection[int] = (),
    words: TournamentWords = ENGLISH,
) -> bytes:
    """A crosstable (or the page ``rows`` of it) as a PNG: number, name, one column per round (a Swiss) or per
    opponent (a round robin's square table), points and one column per tie-break label.

    A won cell is in the text colour, a draw in the figures' and a loss or absence muted; ``withdrawn``
    players are greyed. At most ``MAX_CROSSTABLE_ROWS`` rows an image.
    """
    shown_rows = table.rows if rows is None else tuple(rows)
    if len(shown_rows) > MAX_CROSSTABLE_ROWS:
        raise ValueError(f"{len(shown_rows)} rows: one crosstable image holds at most {MAX_CROSSTABLE_ROWS}")
    look = _look(theme)
    t = look.theme
    shown = len(tiebreak_labels)
    with DRAWING:
        if table.square:
            heads = [str(r.number) for r in table.rows]
            cells = [[(table.square_text(r, c), _square_ink(r, c)) for c in table.rows] for r in shown_rows]
        else:
            heads = [str(n) for n in table.rounds]
            cells = [[(table.cell_text(c, words.crosstable_bye), _ink(c)) for c in r.cells] for r in shown_rows]
        cell_w = max([CELL.getlength(text) for line in cells for text, _ in line] + [LABEL.getlength(h) for h in heads])
        cell_w = max(cell_w + 14, 40)
        values = [[score(r.standing.points), *(score(v) for v in r.standing.tiebreaks[:shown])] for r in shown_rows]
        number_w = max([NUMBER.getlength(str(r.number)) for r in table.rows] + [LABEL.getlength(words.rank), 24]) + 8
        points_w = max([NUMBER.getlength(v[0]) for v in values] + [LABEL.getlength(words.points), 44]) + 16
        tb_w = [
            max([CELL.getlength(v[1 + i]) for v in values] + [LABEL.getlength(label), 36]) + 16
            for i, label in enumerate(tiebreak_labels)
        ]
        grid_w = cell_w * len(heads)
        width = max(WIDTH, round(2 * PAD + number_w + 12 + NAME_W + grid_w + points_w + sum(tb_w)))
        height = TITLE_H + HEAD_H + ROW_H * max(1, len(shown_rows)) + PAD
        sheet = _Sheet(look, (width, height))
        _title(sheet, title, TITLE_H, width)

        x_number = PAD + number_w  # right edge
        x_name = x_number + 12
        x_grid = x_name + NAME_W
        x_points = x_grid + grid_w + points_w  # right edge
        x_tb = _edges(x_points, tb_w)
        head_y = TITLE_H + HEAD_H / 2
        bg = t.background
        _headings(sheet, head_y, (x_number, x_name, x_points), (NAME_W - 8, points_w), words)
        for i, head in enumerate(heads):
            sheet.text((x_grid + (i + 0.5) * cell_w, head_y), head, LABEL, t.muted, bg, "mm")
        for label, right in zip(tiebreak_labels, x_tb, strict=True):
            sheet.text((right, head_y), label, LABEL, t.muted, bg, "rm")
        top = TITLE_H + HEAD_H
        sheet.rect((PAD, top - 2, width - PAD, top), look.rule)

        for i, (row, line, vals) in enumerate(zip(shown_rows, cells, values, strict=True)):
            y0 = top + i * ROW_H
            cy = y0 + ROW_H / 2
            ground = look.stripe if i % 2 else bg
            if ground != bg:
                sheet.rect((0, y0, width, y0 + ROW_H - 1), ground)
            out = row.player in withdrawn
            ink = t.muted if out else t.text
            sheet.text((x_number, cy), str(row.number), NUMBER, ink, ground, "rm")
            sheet.text((x_name, cy), fit(_name(names, row.player), NAME, NAME_W - 12), NAME, ink, ground, "lm")
            for k, (text, tone) in enumerate(line):
                cx = x_grid + (k + 0.5) * cell_w
                if table.square and table.rows[k].player == row.player:
                    sheet.rect((cx - cell_w / 2 + 2, y0 + 3, cx + cell_w / 2 - 2, y0 + ROW_H - 4), look.rule)
                    continue
                if text:
                    sheet.text(
                        (cx, cy), text, CELL, _colour(look.theme.text, look.figures, t.muted, tone), ground, "mm"
                    )
            sheet.text((x_points, cy), vals[0], NUMBER, ink, ground, "rm")
            for value, right in zip(vals[1:], x_tb, strict=False):
                sheet.text((right, cy), value, CELL, t.muted if out else look.figures, ground, "rm")
    return sheet.png()


def _ink(cell: Cell) -> int:
    """1 for points won in full, 0 for a half, -1 for none (or no round at all)."""
    if cell.kind == "absent":
        return -1
    return 1 if cell.points == 1 else 0 if cell.points == 0.5 else -1


def _square_ink(row: CrossRow, column: CrossRow) -> int:
    got = [c.points for c in row.cells if c.opponent == column.player]
    if not got:
        return -1
    mean = sum(got) / len(got)
    return 1 if mean > 0.5 else 0 if mean == 0.5 else -1


def _colour(won: RGB, drawn: RGB, lost: RGB, tone: int) -> RGB:
    return won if tone > 0 else drawn if tone == 0 else lost
