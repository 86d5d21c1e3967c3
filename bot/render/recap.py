"""A round's recap as an image in the board themes, drawn like the other tournament images (``tournament``).

Under the title, one section per fact the round has (its upsets, its longest game, its biggest claim or
confinement), each a heading and rows of two players: the first's name, a joining word ("beat", "vs"), the second's
name, and a figure on the right (the rating gap, the turns, the shooters claimed, the stones confined). A section
with nothing to say is left out. 800 px wide whatever the names: each name is shortened to its column, so a long
name in any script never runs into the next column.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from bot.render.text import DRAWING, TextFace, fit
from bot.render.tournament import PAD, TITLE_H, WIDTH, _look, _name, _Sheet, _title
from bot.tournaments.recap import Recap

__all__ = ["FIGURE_W", "JOIN_W", "ROW_H", "SECTION_H", "RecapWords", "recap_png", "recap_rows"]

SECTION_H = 52
ROW_H = 50
FIGURE_W = 190  # the figure's column, at the right
JOIN_W = 112  # the joining word between the two names (8 px clear of each)
RATING_W = 64  # a rating beside a name
HEADING = TextFace(24)
NAME = TextFace(26)
SMALL = TextFace(20, bold=False)
FIGURE = TextFace(24)


def _counted(one: str, many: str) -> Callable[[int], str]:
    return lambda n: (one if n == 1 else many).format(n=n)


@dataclass(frozen=True)
class RecapWords:
    """The fixed words of a recap image (English by default); the counted ones are functions of the count, so a
    caller gives its language's plural forms."""

    upsets: str = "Upsets"
    longest: str = "Longest game"
    claim: str = "Biggest claim"
    confinement: str = "Biggest confinement"
    beat: str = "beat"
    versus: str = "vs"
    gap: str = "+{n}"
    turns: Callable[[int], str] = field(default=_counted("{n} turn", "{n} turns"))
    shooters: Callable[[int], str] = field(default=_counted("{n} shooter", "{n} shooters"))
    stones: Callable[[int], str] = field(default=_counted("{n} stone", "{n} stones"))


ENGLISH = RecapWords()


@dataclass(frozen=True)
class Row:
    """One row: two players (each with a rating, or None), the word between them and the figure on the right."""

    first: int
    second: int
    join: str
    figure: str
    ratings: tuple[int | None, int | None] = (None, None)


def recap_rows(recap: Recap, words: RecapWords = ENGLISH) -> list[tuple[str, list[Row]]]:
    """The sections the image shows, in order, each with its rows; a fact the round lacks has no section."""
    out: list[tuple[str, list[Row]]] = []
    if recap.upsets:
        rows = [
            Row(u.winner, u.loser, words.beat, words.gap.format(n=u.gap), (u.winner_rating, u.loser_rating))
            for u in recap.upsets
        ]
        out.append((words.upsets, rows))
    if recap.longest is not None:
        g = recap.longest
        out.append((words.longest, [Row(g.white, g.black, words.versus, words.turns(g.turns))]))
    if recap.claim is not None:
        c = recap.claim
        out.append((words.claim, [Row(c.player, c.opponent, words.versus, words.shooters(c.count))]))
    if recap.confinement is not None:
        c = recap.confinement
        out.append((words.confinement, [Row(c.player, c.opponent, words.versus, words.stones(c.count))]))
    return out


def recap_png(
    recap: Recap, names: Mapping[int, str], *, title: str, theme: str = "dark", words: RecapWords = ENGLISH
) -> bytes:
    """The recap of a round as a PNG 800 px wide: a section per fact it has, names shortened to their columns."""
    look = _look(theme)
    t = look.theme
    sections = recap_rows(recap, words)
    height = TITLE_H + sum(SECTION_H + ROW_H * len(rows) for _, rows in sections) + PAD
    inner = WIDTH - 2 * PAD - FIGURE_W
    column = (inner - JOIN_W) / 2
    x_join = PAD + column
    x_second = x_join + JOIN_W
    x_figure = WIDTH - PAD  # right edge
    with DRAWING:
        sheet = _Sheet(look, (WIDTH, height))
        _title(sheet, title, TITLE_H, WIDTH)
        y = TITLE_H
        for heading, rows in sections:
            sheet.text(
                (PAD, y + SECTION_H / 2 + 6),
                fit(heading, HEADING, WIDTH - 2 * PAD),
                HEADING,
                t.accent,
                t.background,
                "lm",
            )
            y += SECTION_H
            for i, row in enumerate(rows):
                ground = look.stripe if i % 2 == 0 else t.background
                if ground != t.background:
                    sheet.rect((0, y, WIDTH, y + ROW_H - 1), ground)
                cy = y + ROW_H / 2
                for x, player, rating in ((PAD, row.first, row.ratings[0]), (x_second, row.second, row.ratings[1])):
                    room = column - 10
                    if rating is not None:
                        room -= RATING_W
                        sheet.text((x + column - 10, cy + 1), str(rating), SMALL, t.muted, ground, "rm")
                    sheet.text((x, cy), fit(_name(names, player), NAME, room), NAME, t.text, ground, "lm")
                join = fit(row.join, SMALL, JOIN_W - 16)
                sheet.text((x_join + JOIN_W / 2, cy + 1), join, SMALL, t.muted, ground, "mm")
                figure = fit(row.figure, FIGURE, FIGURE_W - 12)
                sheet.text((x_figure, cy), figure, FIGURE, look.figures, ground, "rm")
                y += ROW_H
    return sheet.png()
