"""Standings and tie-breaks against a plain computation (tourney_oracle.py), a hand-worked example,
head-to-head, wins, shared ranks and the CSV export."""

from __future__ import annotations

import csv
import io

import pytest
import tourney_oracle as oracle
from hypothesis import example, given, settings
from hypothesis import strategies as st
from random_events import random_swiss

from bot.tournaments import (
    SWISS_TIEBREAKS,
    Bye,
    Game,
    Player,
    Round,
    Tournament,
    standings,
    standings_csv,
)


def _t(rounds: list[Round], n: int = 4, fmt: str = "swiss") -> Tournament:
    players = tuple(Player(i + 1, 2000 - i, i + 1) for i in range(n))
    return Tournament(fmt, players, 9, tuple(rounds))  # type: ignore[arg-type]


def test_a_hand_worked_swiss() -> None:
    # Four players, three rounds, every game played:
    #   R1: 1-4 1-0, 2-3 ½        R2: 3-1 0-1, 4-2 0-1        R3: 1-2 ½, 3-4 1-0
    # Scores: 1: 2½, 2: 2, 3: 1½, 4: 0.
    # Buchholz 1: 0 + 1½ + 2 = 3½; 2: 1½ + 0 + 2½ = 4; 3: 2 + 2½ + 0 = 4½; 4: 2½ + 2 + 1½ = 6.
    # Cut-1 drops the lowest: 1: 3½ - 0 = 3½; 2: 4 - 0 = 4; 3: 4½ - 0 = 4½; 4: 6 - 1½ = 4½.
    # SB 1: 0·1 + 1½·1 + 2·½ = 2½; 2: 1½·½ + 0·1 + 2½·½ = 2; 3: 2·½ + 2½·0 + 0·1 = 1; 4: 0.
    rounds = [
        Round(1, (Game(1, 4, "1-0"), Game(2, 3, "1/2-1/2"))),
        Round(2, (Game(3, 1, "0-1"), Game(4, 2, "0-1"))),
        Round(3, (Game(1, 2, "1/2-1/2"), Game(3, 4, "1-0"))),
    ]
    table = standings(_t(rounds), ("buchholz_cut1", "buchholz", "sonneborn_berger", "wins"))
    assert [(s.rank, s.player, s.points) for s in table] == [(1, 1, 2.5), (2, 2, 2.0), (3, 3, 1.5), (4, 4, 0.0)]
    assert [s.tiebreaks for s in table] == [(3.5, 3.5, 2.5, 2), (4, 4, 2, 1), (4.5, 4.5, 1, 1), (4.5, 6, 0, 0)]


def test_unplayed_rounds_follow_fide_article_16_by_hand() -> None:
    # R1: 1-2 1-0, 3 has the pairing bye.  R2: 3-1 +- (1 did not come), 2 has a ½ bye.
    # Scores: 1: 1, 2: ½, 3: 2.  Adjusted (for opponents): 2 asked for a ½ bye and never played again,
    # so that round counts ½ (it does anyway): 1: 1, 2: ½, 3: 2.
    # Player 1: game v 2 -> 2's adjusted ½; forfeit loss v 3 -> dummy min(own 1, 3's 2) = 1, a VUR.
    #   BH = 1½; cut-1 drops the VUR element (1): ½. SB = ½·1 + 1·0 = ½.
    # Player 3: pairing bye -> dummy min(own 2, ½·2 rounds) = 1; forfeit win v 1 -> min(2, 1) = 1.
    #   BH = 2; cut-1 drops the lower: 1. SB = 1·1 + 1·1 = 2.
    rounds = [
        Round(1, (Game(1, 2, "1-0"),), (Bye(3, "pairing"),)),
        Round(2, (Game(3, 1, "+-"),), (Bye(2, "half"),)),
    ]
    table = {s.player: s for s in standings(_t(rounds, 3), ("buchholz_cut1", "buchholz", "sonneborn_berger"))}
    assert table[1].tiebreaks == (0.5, 1.5, 0.5)
    assert table[3].tiebreaks == (1.0, 2.0, 2.0)


def test_head_to_head_decides_between_the_tied_when_they_met() -> None:
    # 1 and 2 both end on 2 points; 2 beat 1, so 2 is ahead whatever the other tie-breaks say.
    rounds = [
        Round(1, (Game(1, 3, "1-0"), Game(2, 4, "1/2-1/2"))),
        Round(2, (Game(2, 1, "1-0"), Game(3, 4, "1/2-1/2"))),
        Round(3, (Game(1, 4, "1-0"), Game(3, 2, "1/2-1/2"))),
    ]
    table = standings(_t(rounds), ("head_to_head", "sonneborn_berger"))
    assert [s.player for s in table[:2]] == [2, 1]
    assert table[0].tiebreaks[0] == 1 and table[1].tiebreaks[0] == 0


def test_equal_on_everything_shares_a_rank() -> None:
    rounds = [Round(1, (Game(1, 2, "1/2-1/2"), Game(3, 4, "1/2-1/2")))]
    table = standings(_t(rounds), ("buchholz", "sonneborn_berger", "head_to_head", "wins"))
    assert [s.rank for s in table] == [1, 1, 1, 1]
    assert [s.player for s in table] == [1, 2, 3, 4]  # then by seed


def test_an_unfinished_round_does_not_count() -> None:
    rounds = [Round(1, (Game(1, 2, "1-0"), Game(3, 4, "0-1"))), Round(2, (Game(1, 4), Game(2, 3, "1-0")))]
    table = {s.player: s.points for s in standings(_t(rounds))}
    assert table == {1: 1.0, 2: 0.0, 3: 0.0, 4: 1.0}


def test_csv_export_reads_back() -> None:
    rounds = [Round(1, (Game(1, 2, "1-0"), Game(3, 4, "1/2-1/2")))]
    table = standings(_t(rounds))
    text = standings_csv(table, SWISS_TIEBREAKS, {1: "Ana, the first", 2: 'Bo "B"'})
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["rank", "player", "name", "points", "Buchholz cut 1", "Buchholz", "Sonneborn-Berger",
                       "head-to-head", "wins"]  # fmt: skip
    assert rows[1][:4] == ["1", "1", "Ana, the first", "1"]
    assert rows[2][:3] == ["2", "3", ""] and rows[2][3] == "0.5"
    assert rows[4][:4] == ["4", "2", 'Bo "B"', "0"]
    assert len(rows) == 5 and all(len(r) == 9 for r in rows)


@settings(max_examples=30)
@given(st.integers(min_value=4, max_value=20), st.integers(min_value=0, max_value=2**32 - 1))
@example(n=4, seed=683)  # withdrawals leave two players who have met: round 2 cannot be paired
def test_tiebreaks_equal_the_plain_computation_under_every_kind_of_unplayed_round(n: int, seed: int) -> None:
    t = random_swiss(n, seed)
    table = standings(t, ("buchholz_cut1", "buchholz", "sonneborn_berger"))
    bh1, bh, sb = oracle.buchholz_cut1(t), oracle.buchholz(t), oracle.sonneborn_berger(t)
    final = oracle.scores(t)
    for s in table:
        assert s.points == final[s.player]
        assert s.tiebreaks == pytest.approx((bh1[s.player], bh[s.player], sb[s.player])), s.player


def test_a_name_written_like_a_formula_stays_text_in_both_csv_exports() -> None:
    from bot.tournaments.crosstable import crosstable, crosstable_csv
    from bot.tournaments.standings import csv_name

    assert [csv_name(n) for n in ("=1+2", "+cmd", "-2", "@SUM(A1)", "\tx", "Ada", "a=b", "")] == [
        "'=1+2",
        "'+cmd",
        "'-2",
        "'@SUM(A1)",
        "'\tx",
        "Ada",
        "a=b",
        "",
    ]
    t = _t([Round(1, (Game(1, 2, "1-0"), Game(3, 4, "1/2-1/2")))])
    table = standings(t)
    names = {1: '=HYPERLINK("x")', 2: "Bo"}
    for text in (
        standings_csv(table, SWISS_TIEBREAKS, names),
        crosstable_csv([crosstable(t, table)], SWISS_TIEBREAKS, names),
    ):
        rows = list(csv.reader(io.StringIO(text)))
        column = rows[0].index("name")
        assert {row[column] for row in rows[1:]} >= {'\'=HYPERLINK("x")', "Bo"}
