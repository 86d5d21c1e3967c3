"""Which round is a tournament's last (its recap goes with the end) and a round's recap from stored rows, on
hand-made snapshots of every format."""

from __future__ import annotations

import dataclasses
import datetime as dt

from test_tournament_flow import entrant, pairing, snap

from bot.rules import veloop
from bot.store.values import GameInfo, TournamentSnapshot
from bot.tournament_flow import last_round, recap_games, round_recap_of
from bot.tournaments.recap import Longest, Upset

PLAYERS = [entrant(i, i) for i in (1, 2, 3, 4)]  # rated 1499, 1498, 1497, 1496


def test_a_swiss_round_is_the_last_once_its_rounds_are_played_or_the_end_is_owed() -> None:
    one = snap(PLAYERS, [pairing(1, 1, 1, 1, 2, "1-0"), pairing(2, 1, 2, 3, 4, "0-1")], 1, rounds=2)
    assert not last_round(one, 1)
    two = snap(PLAYERS, [*one.pairings, pairing(3, 2, 1, 1, 3, "1-0"), pairing(4, 2, 2, 2, 4, None)], 2, rounds=2)
    assert not last_round(two, 1), "a round after it"
    assert last_round(two, 2)
    early = snap(PLAYERS, list(one.pairings), 1, rounds=5, end_owed=True)
    assert last_round(early, 1), "a Swiss ended early (nobody left to pair) ends with the round played"
    assert last_round(snap(PLAYERS, list(one.pairings), 1, rounds=5, status="finished"), 1)


def test_a_round_robins_last_round_is_its_tables() -> None:
    rows = [pairing(1, 1, 1, 1, 4, "1-0"), pairing(2, 1, 2, 2, 3, "1-0")]
    assert not last_round(snap(PLAYERS, rows, 1, format="round_robin", rounds=None), 1)
    assert last_round(snap(PLAYERS, rows, 3, format="round_robin", rounds=None), 3)  # 4 players: 3 rounds
    assert not last_round(snap(PLAYERS, rows, 3, format="double_round_robin", rounds=None), 3)


def test_a_brackets_last_round_is_the_one_that_crowned_its_champion() -> None:
    semis = [pairing(1, 1, 1, 1, 4, "1-0", "W1-1"), pairing(2, 1, 2, 2, 3, "0-1", "W1-2")]
    semi_played = snap(PLAYERS, semis, 1, format="single_elimination", rounds=None)
    assert not last_round(semi_played, 1)
    final = snap(PLAYERS, [*semis, pairing(3, 2, 1, 1, 3, "0-1", "W2-1")], 2, format="single_elimination", rounds=None)
    assert last_round(final, 2)


def game(game_id: int, turns: tuple[str, ...]) -> GameInfo:
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    return GameInfo(
        game_id, 10, 30, 20, "finished", veloop.KIND, {"board": "5", "protocol": "122"}, "thread", 1, 2, None,
        len(turns), turns, None, None, now, now, None, None, None, None,
    )  # fmt: skip


def test_a_rounds_recap_reads_its_games_and_the_entry_ratings_and_skips_forfeits() -> None:
    rows = [
        dataclasses.replace(pairing(1, 1, 1, 1, 4, "0-1"), game_id=101),  # 4 (1496) beats 1 (1499)
        dataclasses.replace(pairing(2, 1, 2, 2, 3, "+-"), game_id=102),  # a no-show: not a game
        pairing(3, 2, 1, 1, 2, None),
    ]
    s: TournamentSnapshot = snap(PLAYERS, rows, 2)
    assert [p.id for p in recap_games(s, 1)] == [1]
    games = {101: game(101, ("d4<c2", "e5<d3")), 102: game(102, ("d4<c2", "e5<d3", "b2<d3"))}
    recap = round_recap_of(s, 1, games)
    assert recap is not None
    assert recap.upsets == (Upset(1, 4, 1, 1496, 1499),)
    assert recap.longest == Longest(1, 1, 4, 2)
    assert round_recap_of(s, 1, {}) is None, "without its games, nothing to say"
