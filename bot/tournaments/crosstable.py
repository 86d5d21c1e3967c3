"""The crosstable of a round-played tournament: every player's opponent, colour and result in each round.

Rows follow the final standings and are numbered 1..n in that order; a cell names the opponent by that
number, as FIDE crosstables do. A Swiss reads round by round (``+12w``: won with white against number 12;
``=5b``: drew with black against 5; ``-3w``: lost with white against 3; ``+F`` / ``-F`` a forfeit won or
lost; ``+ bye``, ``½ bye``, ``0 bye`` a bye worth 1, ½ or 0; ``–`` a round the player was not in). A round
robin reads as the classic square table, row by column: ``1``, ``½``, ``0`` (``+``/``-`` for forfeits), one
figure per cycle of a double round robin, the diagonal blank. Values only: the CSV is here, the image in
``bot.render.crosstable``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from bot.tournaments.model import Bye, ByeKind, Tournament
from bot.tournaments.standings import TIEBREAK_LABELS, Standing, Tiebreak, csv_name, csv_number

CellKind = Literal["game", "forfeit", "bye", "absent"]
"""``game``: played over the board; ``forfeit``: a game not played (a no-show on either side); ``bye``: no
opponent, with the bye's points; ``absent``: not in the round (not yet joined, withdrawn, a round robin's rest)."""

Colour = Literal["w", "b"]


@dataclass(frozen=True)
class Cell:
    """One player's round: what kind it was, the points it scored, and the opponent and colour of a game."""

    round: int
    kind: CellKind
    points: float
    opponent: int | None = None
    colour: Colour | None = None
    bye: ByeKind | None = None


@dataclass(frozen=True)
class CrossRow:
    """A player's line: the standing (rank, points, tie-breaks) and one cell per finished round."""

    number: int
    """The row's number, 1..n in standings order, by which the other rows name this player."""
    standing: Standing
    cells: tuple[Cell, ...]

    @property
    def player(self) -> int:
        return self.standing.player


@dataclass(frozen=True)
class Crosstable:
    """Rows in standings order and the finished rounds they cover; ``square`` for a round robin."""

    rows: tuple[CrossRow, ...]
    rounds: tuple[int, ...]
    square: bool
    cycles: int = 1
    """Games two players of a round robin play each other (2 in a double round robin)."""

    def number(self, player: int) -> int:
        """The row number of ``player``."""
        return self._numbers[player]

    @cached_property
    def _numbers(self) -> dict[int, int]:
        return {r.player: r.number for r in self.rows}

    def cell_text(self, cell: Cell, bye: str = "bye") -> str:
        """A round's cell as a Swiss crosstable prints it: ``+12w``, ``=5b``, ``-3w``, ``+F``, ``½ bye``, ``–``
        (``bye`` is the word for a bye, in the reader's language)."""
        if cell.kind == "game" and cell.opponent is not None:
            return f"{_sign(cell.points)}{self._numbers[cell.opponent]}{cell.colour}"
        if cell.kind == "forfeit":
            return "+F" if cell.points == 1 else "-F"
        if cell.kind == "bye":
            return {1.0: "+", 0.5: "½"}.get(cell.points, "0") + f" {bye}"
        return "–"

    def square_text(self, row: CrossRow, column: CrossRow) -> str:
        """The square table's cell of ``row`` against ``column``: its results in round order (``1``, ``½``,
        ``0``, ``+``/``-`` for forfeits), blank on the diagonal and where they have not met."""
        if row.player == column.player:
            return ""
        return " ".join(_square_mark(c) for c in row.cells if c.opponent == column.player)


def _sign(points: float) -> str:
    """A game's result in a Swiss cell: ``+`` won, ``=`` drawn, ``-`` lost."""
    return "+" if points == 1 else "=" if points == 0.5 else "-"


def _square_mark(cell: Cell) -> str:
    """A game's result in the square table: ``1``, ``½``, ``0``, or ``+``/``-`` for a forfeit."""
    if cell.kind == "forfeit":
        return "+" if cell.points == 1 else "-"
    return "1" if cell.points == 1 else "½" if cell.points == 0.5 else "0"


def _cells(t: Tournament) -> dict[int, list[Cell]]:
    """Each player's cells over the finished rounds, in round order."""
    out: dict[int, list[Cell]] = {p.id: [] for p in t.players}
    for rnd in t.completed_rounds():
        seen: set[int] = set()
        for g in rnd.games:
            wp, bp = g.points()
            kind: CellKind = "game" if g.played else "forfeit"
            out[g.white].append(Cell(rnd.number, kind, wp, g.black, "w"))
            out[g.black].append(Cell(rnd.number, kind, bp, g.white, "b"))
            seen.update((g.white, g.black))
        for bye in rnd.byes:
            seen.add(bye.player)
            out[bye.player].append(_bye_cell(bye, rnd.number))
        for pid, cells in out.items():
            if pid not in seen:
                cells.append(Cell(rnd.number, "absent", 0.0))
    return out


def _bye_cell(bye: Bye, number: int) -> Cell:
    if bye.kind == "rest":
        return Cell(number, "absent", 0.0, bye=bye.kind)
    return Cell(number, "bye", bye.points, bye=bye.kind)


def crosstable(t: Tournament, table: Sequence[Standing]) -> Crosstable:
    """The crosstable of ``t`` with ``table`` (its standings, ``standings(t)``) giving the rows' order."""
    cells = _cells(t)
    rows = tuple(CrossRow(i, s, tuple(cells[s.player])) for i, s in enumerate(table, start=1))
    rounds = tuple(r.number for r in t.completed_rounds())
    square = t.format != "swiss"
    return Crosstable(rows, rounds, square, 2 if t.format == "double_round_robin" else 1)


def crosstable_csv(
    tables: Sequence[Crosstable], tiebreaks: Sequence[Tiebreak], names: Mapping[int, str] | None = None
) -> str:
    """Crosstables as CSV text, one row per player: its number and rank, Discord id and name, then per round
    the opponent's number, the colour (``w``/``b``, ``bye`` for a bye) and the points scored (empty for a round
    the player was not in), then points and tie-breaks. Several tables (a round robin's divisions) get a
    leading ``division`` column (1, 2, ...) and the rounds of the longest; a shorter one leaves the rest empty."""
    rounds = max((t.rounds for t in tables), key=len, default=())
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    per_round = [f"{name} {n}" for n in rounds for name in ("opponent", "colour", "result")]
    head = ["number", "rank", "player", "name", *per_round, "points", *(TIEBREAK_LABELS[c] for c in tiebreaks)]
    several = len(tables) > 1
    writer.writerow(["division", *head] if several else head)
    for division, table in enumerate(tables, start=1):
        numbers = {r.player: r.number for r in table.rows}
        for row in table.rows:
            s = row.standing
            by_round = {c.round: c for c in row.cells}
            cols: list[str] = []
            for n in rounds:
                c = by_round.get(n)
                if c is None:
                    cols += ["", "", ""]
                    continue
                opponent = str(numbers[c.opponent]) if c.opponent is not None else ""
                result = "" if c.kind == "absent" else csv_number(c.points)
                cols += [opponent, c.colour or ("bye" if c.kind == "bye" else ""), result]
            name = csv_name((names or {}).get(s.player, ""))
            line = [
                row.number,
                s.rank,
                s.player,
                name,
                *cols,
                csv_number(s.points),
                *(csv_number(v) for v in s.tiebreaks),
            ]
            writer.writerow([division, *line] if several else line)
    return buf.getvalue()
