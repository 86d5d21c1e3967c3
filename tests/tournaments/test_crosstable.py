"""The crosstable: every game twice (once per side, opposite results and colours), points adding up to the
standings', cells as FIDE prints them, the square table of a round robin, and the CSV export."""

from __future__ import annotations

import csv
import io

from hypothesis import given, settings
from hypothesis import strategies as st
from random_events import random_swiss

from bot.tournaments import (
    ROUND_ROBIN_TIEBREAKS,
    SWISS_TIEBREAKS,
    Bye,
    Crosstable,
    Game,
    Player,
    Round,
    Tournament,
    crosstable,
    crosstable_csv,
    next_round,
    seed_by_rating,
    standings,
)

OPPOSITE = {"w": "b", "b": "w"}


def check_both_sides(table: Crosstable) -> None:
    by_player = {r.player: r for r in table.rows}
    for row in table.rows:
        assert [c.round for c in row.cells] == list(table.rounds)
        for cell in row.cells:
            if cell.opponent is None:
                assert cell.colour is None and cell.kind in ("bye", "absent")
                continue
            other = next(c for c in by_player[cell.opponent].cells if c.round == cell.round)
            assert other.opponent == row.player
            assert other.colour == OPPOSITE[cell.colour or ""]
            assert other.kind == cell.kind
            if (cell.kind, cell.points, other.points) != ("forfeit", 0.0, 0.0):  # a double forfeit: both lose
                assert cell.points + other.points == 1.0


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=4, max_value=16), st.integers(min_value=0, max_value=2**32 - 1))
def test_every_game_appears_twice_with_opposite_results_and_colours_and_points_add_up(n: int, seed: int) -> None:
    t = random_swiss(n, seed)
    ranked = standings(t)
    table = crosstable(t, ranked)
    assert not table.square
    assert [r.standing for r in table.rows] == list(ranked)
    assert [r.number for r in table.rows] == list(range(1, len(ranked) + 1))
    check_both_sides(table)
    games = sum(len(r.games) for r in t.completed_rounds())
    assert sum(1 for r in table.rows for c in r.cells if c.opponent is not None) == 2 * games
    for row in table.rows:
        assert sum(c.points for c in row.cells) == row.standing.points
        for cell in row.cells:
            text = table.cell_text(cell)
            if cell.kind == "game":
                assert text[0] == {1.0: "+", 0.5: "=", 0.0: "-"}[cell.points]
                assert text[1:] == f"{table.number(cell.opponent or 0)}{cell.colour}"


def test_cells_read_as_a_fide_crosstable() -> None:
    players = tuple(Player(i, 2000 - i, i) for i in range(1, 6))
    r1 = Round(1, (Game(1, 2, "1-0"), Game(3, 4, "1/2-1/2")), (Bye(5, "pairing"),))
    r2 = Round(2, (Game(2, 3, "+-"), Game(4, 1, "0-1")), (Bye(5, "half"),))
    r3 = Round(3, (Game(5, 1, "--"), Game(3, 4, "0-1")), (Bye(2, "zero"),))
    t = Tournament("swiss", players, 3, (r1, r2, r3))
    table = crosstable(t, standings(t))
    text = {r.player: [table.cell_text(c) for c in r.cells] for r in table.rows}
    n = {r.player: r.number for r in table.rows}
    assert text[1] == [f"+{n[2]}w", f"+{n[4]}b", "-F"]
    assert text[3] == [f"={n[4]}w", "-F", f"-{n[4]}w"]
    assert text[5] == ["+ bye", "½ bye", "-F"]
    assert text[2] == [f"-{n[1]}b", "+F", "0 bye"]
    assert table.cell_text(table.rows[0].cells[0], bye="descanso") == text[table.rows[0].player][0]
    assert next(c for c in table.rows if c.player == 5).cells[0].bye == "pairing"


def test_a_late_joiner_and_a_withdrawn_player_show_the_rounds_they_were_not_in() -> None:
    players = tuple(Player(i, 2000 - i, i) for i in range(1, 5))
    t = Tournament("swiss", players, 3, (Round(1, (Game(1, 2, "1-0"), Game(3, 4, "0-1"))),)).withdraw(4)
    t = t.with_round(Round(2, (Game(2, 1, "0-1"),), (Bye(3, "pairing"),)))
    table = crosstable(t, standings(t))
    row = next(r for r in table.rows if r.player == 4)
    assert [table.cell_text(c) for c in row.cells][1] == "–"
    assert row.cells[1].kind == "absent"


def test_a_round_robin_is_the_square_table_with_one_figure_per_cycle() -> None:
    t = Tournament("double_round_robin", seed_by_rating((i, 2000 - i) for i in range(1, 5)), 6)
    results = iter(["1-0", "1/2-1/2", "0-1", "+-", "1-0", "0-1"] * 4)
    while len(t.rounds) < t.total_rounds:
        t = t.with_round(next_round(t))
        for g in t.rounds[-1].games:
            t = t.record(g.white, next(results))  # type: ignore[arg-type]
    table = crosstable(t, standings(t))
    assert table.square and table.cycles == 2
    check_both_sides(table)
    for row in table.rows:
        assert table.square_text(row, row) == ""
        for column in table.rows:
            if column is row:
                continue
            mine, theirs = table.square_text(row, column).split(), table.square_text(column, row).split()
            assert len(mine) == len(theirs) == 2
            flip = {"1": "0", "0": "1", "½": "½", "+": "-", "-": "+"}
            assert [flip[m] for m in mine] == theirs
        assert sum(c.points for c in row.cells) == row.standing.points


def test_the_csv_has_a_row_per_player_with_each_rounds_opponent_colour_and_result() -> None:
    t = random_swiss(9, 7)
    ranked = standings(t)
    table = crosstable(t, ranked)
    names = {p.id: f"Ann, «{p.id}»" for p in t.players}
    rows = list(csv.DictReader(io.StringIO(crosstable_csv([table], SWISS_TIEBREAKS, names))))
    assert len(rows) == len(t.players)
    header = list(rows[0])
    assert header[:4] == ["number", "rank", "player", "name"]
    assert header[4 : 4 + 3 * len(table.rounds)] == [
        f"{k} {n}" for n in table.rounds for k in ("opponent", "colour", "result")
    ]
    assert header[4 + 3 * len(table.rounds) :] == [
        "points",
        "Buchholz cut 1",
        "Buchholz",
        "Sonneborn-Berger",
        "head-to-head",
        "wins",
    ]
    for line, row in zip(rows, table.rows, strict=True):
        assert int(line["player"]) == row.player  # the Discord id
        assert line["name"] == names[row.player]
        assert int(line["rank"]) == row.standing.rank
        total = 0.0
        for cell in row.cells:
            n = cell.round
            expected = str(table.number(cell.opponent)) if cell.opponent is not None else ""
            assert line[f"opponent {n}"] == expected
            assert line[f"colour {n}"] == (cell.colour or ("bye" if cell.kind == "bye" else ""))
            total += float(line[f"result {n}"] or 0)
        assert total == float(line["points"]) == row.standing.points


def test_divisions_share_one_csv_with_a_division_column() -> None:
    def played(ids: range) -> Tournament:
        t = Tournament("round_robin", seed_by_rating((i, 2000 - i) for i in ids), 3)
        while len(t.rounds) < t.total_rounds:
            t = t.with_round(next_round(t))
            for g in t.rounds[-1].games:
                t = t.record(g.white, "1-0")
        return t

    a, b = played(range(1, 5)), played(range(11, 14))
    tables = [crosstable(a, standings(a)), crosstable(b, standings(b))]
    rows = list(csv.DictReader(io.StringIO(crosstable_csv(tables, ROUND_ROBIN_TIEBREAKS))))
    assert [r["division"] for r in rows] == ["1"] * 4 + ["2"] * 3
    assert all(sum(float(r[f"result {n}"] or 0) for n in (1, 2, 3)) == float(r["points"]) for r in rows)
