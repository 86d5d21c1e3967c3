"""``/tournament pairings`` end to end: why each board and bye of a round was paired so, read by members through
the fake Discord: a Swiss with an odd field (the bye's reasons, a float and its cause, the colour rule), a round
robin's Berger row, the refusals (privately), an organiser's public copy, and Spanish and Japanese readers."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.test_languages import english_in, in_language, seen_texts
from e2e.tourney import boards, byes, finished, players, resign_in, round_open


def entered_names(db_path: Path) -> dict[int, str]:
    """The names the tournament shows its players by, as stored."""
    with sqlite3.connect(db_path) as db:
        return {int(uid): str(n) for uid, n in db.execute("SELECT user_id, name FROM tournament_players")}


async def announced_and_started(sandbox: FakeDiscord, entrants: list[Member], name: str, format: str) -> None:
    """The first member, made an organiser, announces a Veloop tournament; everyone joins; it starts."""
    await sandbox.grant(entrants[0], "manage_guild")
    announcement = await sandbox.user(entrants[0]).slash(
        "tournament", "create", name=name, game="veloop", format=format, time="1d", settings="5"
    )
    for member in entrants:
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(entrants[0]).slash("tournament", "start")


@pytest.mark.slow
async def test_a_swiss_with_an_odd_field_explains_its_bye_its_float_and_its_colours(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    await sandbox.grant(alice, "manage_guild")
    organiser, reader = sandbox.user(alice), sandbox.user(bob)
    nothing = await reader.slash("tournament", "pairings")
    assert nothing.ephemeral and "No tournament is signing up or running in this channel" in nothing.content
    entrants = [sandbox.add_member(f"P{i}") for i in range(1, 6)]
    members = {m.id: m for m in entrants}
    announcement = await organiser.slash(
        "tournament", "create", name="Why", game="veloop", format="swiss", rounds=3, time="1d", settings="5"
    )
    for member in entrants:
        await sandbox.user(member).click(announcement, "Join")
    early = await reader.slash("tournament", "pairings")
    assert early.ephemeral and early.content == "No round has been paired yet."
    await organiser.slash("tournament", "start")
    first = await round_open(sandbox, db_path, 1, 1)
    name = entered_names(db_path)
    assert [name[m.id] for m in entrants] == ["P1", "P2", "P3", "P4", "P5"]

    # Round 1: everyone has 0 points and no colour history; the bye goes to the lowest ranked of the 5.
    answer = await reader.slash("tournament", "pairings")
    text = answer.text()
    assert answer.ephemeral and "Why: why round 1 is paired so" in text
    assert byes(db_path, 1) == [(1, entrants[4].id, "pairing")]
    assert "**Bye:** P5 (0 pts): the lowest score among the players who may get it." in text
    assert "↳ Of those with 0 pts and as few unplayed games, P5 is the lowest ranked." in text
    assert "↳ Float" not in text, "nobody floats between equal scores"
    assert "**1.** P1 (0 pts) – P3 (0 pts) · group 0 pts" in text
    assert "the higher-ranked P1 has pairing number 1, so gets playing first" in text
    assert "**2.** P4 (0 pts) – P2 (0 pts) · group 0 pts" in text
    assert "the higher-ranked P2 has pairing number 2, so gets playing second" in text

    for b in first:
        assert b.thread_id is not None
        await resign_in(sandbox, members[b.black], b.thread_id, "veloop")
    second = await round_open(sandbox, db_path, 1, 2)
    one_point = {b.white for b in first} | {entrants[4].id}
    (moved,) = [b for b in second if (b.white in one_point) != (b.black in one_point)]
    down, up = (moved.white, moved.black) if moved.white in one_point else (moved.black, moved.white)
    (bye2,) = [pid for n, pid, kind in byes(db_path, 1) if n == 2 and kind == "pairing"]
    assert bye2 not in one_point

    text = (await reader.slash("tournament", "pairings")).text()
    assert "Why: why round 2 is paired so" in text
    assert (
        f"↳ Float: {name[down]} moved down from 1 pt to meet {name[up]} (0 pts): "
        "the 1 pt group had an odd number of players." in text
    )
    assert f"**Bye:** {name[bye2]} (0 pts): the lowest score among the players who may get it." in text
    assert "**Bye:** P5" not in text, "P5 scored its point without playing: not eligible again"
    assert text.count("↳ Sides:") == 2
    # The round asked for, not the latest.
    again = (await reader.slash("tournament", "pairings", round=1)).text()
    assert "**Bye:** P5 (0 pts)" in again and "Why: why round 1 is paired so" in again

    # Refusals, privately: a round not paired, a tournament not here, a public copy by someone not organising.
    later = await reader.slash("tournament", "pairings", round=7)
    assert later.ephemeral and later.content == "Round 7 has not been paired (the latest is round 2)."
    elsewhere = await reader.slash("tournament", "pairings", tournament=999)
    assert elsewhere.ephemeral and elsewhere.content == "There is no such tournament here."
    loud = await reader.slash("tournament", "pairings", public=True)
    assert loud.ephemeral and "organiser" in loud.content
    shown = await organiser.slash("tournament", "pairings", public=True)
    assert not shown.ephemeral and "Why: why round 2 is paired so" in shown.text()

    # A Spanish reader reads the same round in Spanish.
    bob.locale = "es-419"
    spanish = await reader.slash("tournament", "pairings")
    assert spanish.ephemeral and in_language(spanish.text(), "es")
    assert (
        f"↳ Flotante: {name[down]} bajó de 1 pto. para jugar con {name[up]} (0 ptos.): "
        "el grupo de 1 pto. tenía un número impar de jugadores." in spanish.text()
    )
    assert not english_in(seen_texts(spanish))


@pytest.mark.slow
async def test_a_round_robin_names_its_berger_row_and_a_japanese_reader_reads_it(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path
) -> None:
    await announced_and_started(sandbox, [alice, bob, carol], "Liga", "round_robin")
    (game,) = await round_open(sandbox, db_path, 1, 1)
    (rest,) = [pid for n, pid, kind in byes(db_path, 1) if n == 1 and kind == "rest"]
    name = entered_names(db_path)
    text = (await sandbox.user(bob).slash("tournament", "pairings")).text()
    assert "Round robin: row 1 of the Berger table for 4 players; pairings and sides are the table's." in text
    assert f"1. {name[game.white]} – {name[game.black]}" in text
    assert f"{name[rest]}: sits this round out" in text
    assert "Float" not in text and "Bye:" not in text, "a round robin has no score groups"
    carol.locale = "ja"
    japanese = await sandbox.user(carol).slash("tournament", "pairings")
    assert japanese.ephemeral and "総当たり：4人用バーガー表の1行目" in japanese.text()
    assert "Liga：ラウンド1の組み合わせの理由" in japanese.text()
    assert not english_in(seen_texts(japanese))
    assert boards(db_path, 1, 1) == [game]


@pytest.mark.slow
async def test_a_bracket_names_where_each_side_came_from_even_after_the_tournament_has_finished(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member, db_path: Path
) -> None:
    await announced_and_started(sandbox, [alice, bob, carol], "Cup", "single_elimination")
    (semi,) = await round_open(sandbox, db_path, 1, 1)
    name = entered_names(db_path)
    seed = {pid: s for pid, _, s, _, _ in players(db_path, 1)}
    by_seed = {s: pid for pid, s in seed.items()}
    text = (await sandbox.user(bob).slash("tournament", "pairings")).text()
    assert "Elimination: standard seeding" in text
    # Four places, three players: seed 1 goes through W1-1 on a walkover, seeds 2 and 3 play W1-2.
    assert (
        f"1. W1-2: {name[semi.white]} – {name[semi.black]} ← seed 2 ({name[by_seed[2]]}) · seed 3 ({name[by_seed[3]]})"
        in text
    )
    members = {m.id: m for m in (alice, bob, carol)}
    assert semi.thread_id is not None
    await resign_in(sandbox, members[semi.black], semi.thread_id, "veloop")
    (final,) = await round_open(sandbox, db_path, 1, 2)
    assert final.thread_id is not None
    await resign_in(sandbox, members[final.black], final.thread_id, "veloop")
    await finished(sandbox, db_path, 1)
    # Finished, it is still the channel's tournament: asked without a name, its last round is explained.
    unnamed = await sandbox.user(bob).slash("tournament", "pairings")
    assert unnamed.ephemeral and "Cup: why round 2 is paired so" in unnamed.text()
    after = (await sandbox.user(bob).slash("tournament", "pairings", tournament=1)).text()
    assert after == unnamed.text()
    assert "Cup: why round 2 is paired so" in after
    assert f"1. W2-1: {name[final.white]} – {name[final.black]} ← winner of W1-1 · winner of W1-2" in after
    first = (await sandbox.user(bob).slash("tournament", "pairings", round=1, tournament=1)).text()
    assert "← seed 2 (" in first and "Cup: why round 1 is paired so" in first
