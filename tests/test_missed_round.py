"""The absence notice names the round of the game the player missed, even once the next round is stored."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from cogs.tournament.steps import missed_round


def pairing(number: int, white: int, black: int, result: str | None) -> SimpleNamespace:
    return SimpleNamespace(round=number, white=white, black=black, result=result)


def snap(*pairings: SimpleNamespace, rounds: int) -> Any:
    return SimpleNamespace(pairings=list(pairings), rounds=[object()] * rounds)


def test_the_notice_names_the_round_missed_not_the_round_stored_last() -> None:
    history = snap(pairing(1, 1, 2, "+-"), pairing(1, 3, 4, "1-0"), pairing(2, 1, 3, None), rounds=2)
    assert missed_round(history, 2) == 1, "black forfeited round 1; round 2 is already paired"
    assert missed_round(history, 1) == 2, "white won by forfeit: nothing missed, the latest round"


def test_each_side_of_a_double_no_show_missed_it_and_the_latest_miss_counts() -> None:
    history = snap(pairing(1, 5, 6, "--"), pairing(3, 7, 5, "-+"), rounds=3)
    assert missed_round(history, 6) == 1
    assert missed_round(history, 5) == 1, "in round 3 white (7) forfeited, not 5"
    assert missed_round(history, 7) == 3
