"""What stored tournament rows mean to the engine (bot/tournament_flow.py), on hand-made snapshots, and the
Discord limits the posts are cut to (cogs/tournament/posts.paged)."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.clocks import TimeControl
from bot.i18n import LANGUAGES
from bot.i18n import words as catalogue
from bot.store.values import Entrant, Pairing, RoundPlan, RoundRow, TournamentInfo, TournamentSnapshot
from bot.tournament_flow import Finished, engine_tournament, parse_start, plan_next
from bot.tournaments import TournamentError
from cogs.tournament import words
from cogs.tournament.posts import paged

INFO = TournamentInfo(
    id=1,
    guild_id=10,
    channel_id=20,
    organiser_id=1,
    name="T",
    game="veloop",
    settings={"board": "5", "protocol": "122"},
    format="swiss",
    rounds=3,
    best_of=1,
    time_control=TimeControl.days(1),
    rated=False,
    max_players=None,
    division_size=None,
    starts_at=None,
    checkin_minutes=0,
    round_minutes=60,
    status="running",
    message_id=None,
    created_at=0.0,
    started_at=0.0,
    ended_at=None,
)


def entrant(pid: int, seed: int | None, *, joined: int = 1, left: int | None = None, late: bool = False) -> Entrant:
    return Entrant(pid, f"p{pid}", 1500 - pid, seed, joined, left, False, late)


def pairing(
    pid: int, number: int, board: int, white: int, black: int, result: str | None, match: str | None = None
) -> Pairing:
    return Pairing(pid, number, board, white, black, match, result, "game", None, None)


def snap(players: list[Entrant], pairings: list[Pairing], played: int, **info: object) -> TournamentSnapshot:
    return TournamentSnapshot(
        dataclasses.replace(INFO, **info),  # type: ignore[arg-type]
        tuple(players),
        tuple(RoundRow(n, 0.0, 60.0, True) for n in range(1, played + 1)),
        tuple(pairings),
        (),
    )


def test_nothing_is_paired_while_a_result_is_missing_and_the_end_comes_after_the_last_round() -> None:
    players = [entrant(i, i) for i in (1, 2, 3, 4)]
    running = snap(players, [pairing(1, 1, 1, 1, 2, "1-0"), pairing(2, 1, 2, 3, 4, None)], 1)
    assert plan_next(running) is None
    done = snap(players, [pairing(1, 1, 1, 1, 2, "1-0"), pairing(2, 1, 2, 3, 4, "0-1")], 1, rounds=1)
    assert isinstance(plan_next(done), Finished)


def test_a_late_entrant_is_seeded_next_with_a_half_point_bye_for_the_round_missed() -> None:
    players = [entrant(i, i) for i in (1, 2, 3, 4)] + [entrant(5, None, joined=2, late=True)]
    played = snap(players, [pairing(1, 1, 1, 1, 2, "1-0"), pairing(2, 1, 2, 3, 4, "0-1")], 1)
    plan = plan_next(played)
    assert not isinstance(plan, Finished) and plan is not None
    assert plan.number == 2 and plan.seeds == ((5, 5),)
    assert (1, 5, "half") in plan.byes, "the bye names the round missed"
    paired = {p for w, b, _, _ in plan.games for p in (w, b)} | {p for n, p, k in plan.byes if n == 2}
    assert paired == {1, 2, 3, 4, 5}


def test_a_swiss_whose_players_have_all_met_cannot_be_paired() -> None:
    players = [entrant(1, 1), entrant(2, 2), entrant(3, 3, left=2), entrant(4, 4, left=2)]
    played = snap(players, [pairing(1, 1, 1, 1, 2, "1-0"), pairing(2, 1, 2, 3, 4, "0-1")], 1)
    with pytest.raises(TournamentError):
        plan_next(played)


def test_a_withdrawn_players_next_bracket_match_is_a_forfeit() -> None:
    players = [entrant(1, 1), entrant(2, 2), entrant(3, 3, left=2), entrant(4, 4)]
    first = plan_next(snap(players, [], 0, format="single_elimination", rounds=None))
    assert not isinstance(first, Finished) and first is not None
    assert sorted((w, b) for w, b, _, _ in first.games) == [(1, 4), (2, 3)]
    # Seed 1 beats seed 4; seed 3 beats seed 2, then withdraws: the final is a forfeit for seed 1.
    games = [
        pairing(n, 1, n, w, b, "1-0" if w == 1 else "0-1", m) for n, (w, b, m, _) in enumerate(first.games, start=1)
    ]
    final = plan_next(snap(players, games, 1, format="single_elimination", rounds=None))
    assert not isinstance(final, Finished) and final is not None
    [(white, black, match, result)] = final.games
    assert {white, black} == {1, 3} and result == ("+-" if black == 3 else "-+") and match is not None


def test_the_engine_value_keeps_each_players_entry_and_exit() -> None:
    players = [entrant(1, 1), entrant(2, 2, left=2), entrant(3, 3, joined=2)]
    t = engine_tournament(snap(players, [pairing(1, 1, 1, 1, 2, "1/2-1/2")], 1))
    assert [(p.id, p.joined, p.left) for p in t.players] == [(1, 1, None), (2, 1, 2), (3, 2, None)]
    assert t.points() == {1: 0.5, 2: 0.5, 3: 0.0}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=120), min_size=0, max_size=700))
def test_posts_stay_within_discords_embed_limits(lines: list[str]) -> None:
    messages = paged("A title " * 40, lines, footer="legend " * 500)
    out: list[str] = []
    for embeds in messages:
        assert 1 <= len(embeds) <= 10
        assert sum(len(e) for e in embeds) <= 6000
        for e in embeds:
            assert len(e.description or "") <= 4096 and len(e.title or "") <= 256
            out += (e.description or "").split("\n") if e.description != "—" else []
    assert "\n".join(out) == "\n".join(lines) or (not lines and out == [])


def test_start_times_read_as_organisers_write_them() -> None:
    now = 1_800_000_000.0
    assert parse_start("30m", now) == now + 1800
    assert parse_start("in 2 hours", now) == now + 7200
    assert parse_start("<t:1800003600:F>", now) == 1_800_003_600
    assert parse_start("2027-01-15 18:00", now) == 1_800_036_000.0
    with pytest.raises(Exception, match="not a start time I can read"):
        parse_start("next tuesday", now)


@given(
    st.text(min_size=1, max_size=80),
    st.text(min_size=1, max_size=32),
    st.integers(1, 10**12),
    st.sampled_from(LANGUAGES),
)
def test_thread_names_fit_discord_and_always_name_their_tournament_round_and_board(
    tournament: str, player: str, tournament_id: int, language: str
) -> None:
    w = catalogue(language)
    name = words.thread_name(w, tournament, tournament_id, 12, 250, player, player)
    assert len(name) <= 100
    prefix = {"en": "R12 B250:", "es": "R12 M250:", "ja": "R12 卓250："}[language]
    assert words.thread_prefix(w, 12, 250) == prefix
    assert name.startswith(prefix) and name.endswith(f" #{tournament_id}")


def _store(snapshot: TournamentSnapshot, plan: RoundPlan, rng: random.Random) -> TournamentSnapshot:
    """What ``Store.save_round`` and the games do to the rows: the round, its pairings with results, byes, seeds."""
    seeds = dict(plan.seeds)
    players = [
        dataclasses.replace(e, seed=seeds[e.user_id], late=False)
        if e.user_id in seeds
        else (dataclasses.replace(e, joined_round=plan.number + 1) if e.late else e)
        for e in snapshot.players
    ]
    start = len(snapshot.pairings)
    pairings = [
        Pairing(start + i, plan.number, i, w, b, match, result or rng.choice(["1-0", "0-1", "1/2-1/2"]), "game", 1, 1)
        for i, (w, b, match, result) in enumerate(plan.games, start=1)
    ]
    return TournamentSnapshot(
        snapshot.info,
        tuple(players),
        (*snapshot.rounds, RoundRow(plan.number, 0.0, 60.0, True)),
        (*snapshot.pairings, *pairings),
        (*snapshot.byes, *plan.byes),
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(4, 11), st.integers(2, 4), st.randoms(use_true_random=False))
def test_every_swiss_round_planned_pairs_each_active_player_once_and_never_a_withdrawn_one(
    size: int, rounds: int, rng: random.Random
) -> None:
    rounds = min(rounds, size - 1)
    snapshot = snap([entrant(i, i) for i in range(1, size + 1)], [], 0, rounds=rounds)
    next_id = size + 1
    for number in range(1, rounds + 1):
        try:
            plan = plan_next(snapshot)
        except TournamentError:
            return  # the players left have all met: the bot ends the tournament there
        assert isinstance(plan, RoundPlan) and plan.number == number
        in_games = [p for w, b, _, _ in plan.games for p in (w, b)]
        in_byes = [p for n, p, _ in plan.byes if n == number]
        assert len(in_games) + len(in_byes) == len(set(in_games) | set(in_byes)), "nobody twice in a round"
        snapshot = _store(snapshot, plan, rng)
        active = {
            e.user_id
            for e in snapshot.players
            if e.seed is not None and e.joined_round <= number and (e.left_round is None or e.left_round > number)
        }
        assert set(in_games) | set(in_byes) == active, "every active player once, nobody else"
        played = [frozenset((p.white, p.black)) for p in snapshot.pairings if p.result in ("1-0", "0-1", "1/2-1/2")]
        assert len(played) == len(set(played)), "no two players meet twice"
        event = rng.random()
        if event < 0.3 and len(active) > 2:
            gone = rng.choice(sorted(active))
            snapshot = dataclasses.replace(
                snapshot,
                players=tuple(
                    dataclasses.replace(e, left_round=number + 1) if e.user_id == gone else e for e in snapshot.players
                ),
            )
        elif event < 0.6 and number <= rounds // 2:
            late = Entrant(next_id, f"p{next_id}", 1400, None, number + 1, None, False, True)
            snapshot = dataclasses.replace(snapshot, players=(*snapshot.players, late))
            next_id += 1
    assert isinstance(plan_next(snapshot), Finished)
