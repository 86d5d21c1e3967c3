"""A tournament's game settings: one ``settings`` option that the chosen game reads, its autocomplete offering
the game's whole combinations (narrowing as one types, labelled in the member's language), its refusals private,
in the member's language and creating nothing, and the games played with the settings chosen."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.client import VeletasBot
from bot.i18n import words
from bot.rules.veloop import Game
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.test_languages import english_in, in_language
from e2e.tourney import round_open

CUP = {"name": "Cup", "format": "swiss"}


def tournaments_stored(db_path: Path) -> int:
    with sqlite3.connect(db_path) as db:
        return int(db.execute("SELECT COUNT(*) FROM tournaments").fetchone()[0])


def values(choices: list[dict[str, str]]) -> list[str]:
    return [c["value"] for c in choices]


@pytest.mark.slow
async def test_a_veloop_tournament_created_with_settings_plays_its_games_with_them(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    await sandbox.grant(alice, "manage_guild")
    announcement = await sandbox.user(alice).slash(
        "tournament", "create", name="Six", game="veloop", format="swiss", rounds=1, time="1d", settings="6 Alternating"
    )
    assert not announcement.ephemeral
    assert "6×6 board, protocol alternating" in announcement.text()
    for member in (alice, bob):
        await sandbox.user(member).click(announcement, "Join")
    await sandbox.user(alice).slash("tournament", "start")
    (pairing,) = await round_open(sandbox, db_path, 1, 1)
    assert pairing.game_id is not None and pairing.thread_id is not None
    stored = await bot.store.get_game(pairing.game_id)
    assert stored.settings == {"board": "6", "protocol": "alternating"}
    first = alice if pairing.white == alice.id else bob
    move = str(Game.new(6, "alternating").position.legal_moves()[0])
    played = await sandbox.user(first, channel_id=pairing.thread_id).slash("veloop", "move", move=move)
    assert not played.ephemeral, played.content


async def test_the_settings_autocomplete_offers_the_chosen_game_s_combinations_narrowing_as_one_types(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member
) -> None:
    u = sandbox.user(alice)
    veloop = await u.autocomplete("tournament", "create", **CUP, game="veloop", settings="")
    assert values(veloop) == [f"{b}, {p}" for b in ("8", "5", "6", "12") for p in ("122", "alternating")]
    assert veloop[0]["name"] == "8, 122 (8×8 board, protocol 122)"
    assert values(await u.autocomplete("tournament", "create", **CUP, game="veloop", settings="5")) == [
        "5, 122",
        "5, alternating",
    ]
    assert values(await u.autocomplete("tournament", "create", **CUP, game="veloop", settings="5, alt")) == [
        "5, alternating"
    ]
    assert await u.autocomplete("tournament", "create", **CUP, game="veloop", settings="small") == []
    classic = await u.autocomplete("tournament", "create", **CUP, game="veletas", settings="cla")
    assert values(classic) == ["standard, classic", "medium, classic", "small, classic"]
    assert classic[2]["name"] == "small, classic (small board, classic rules)"
    # Words of the label narrow too: "board" is in every Veletas label, "medium" in two.
    assert values(await u.autocomplete("tournament", "create", **CUP, game="veletas", settings="medium board")) == [
        "medium, current",
        "medium, classic",
    ]
    assert await u.autocomplete("tournament", "create", **CUP, settings="") == []  # no game chosen yet


async def test_settings_are_labelled_in_the_member_s_language(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    alice.locale, bob.locale = "es-419", "ja"
    for member, language in ((alice, "es"), (bob, "ja")):
        w = words(language)
        choices = await sandbox.user(member).autocomplete(
            "tournament", "create", **CUP, game="veletas", settings="small, classic"
        )
        label = w("veletas.settings", board=w("veletas.variant.small"), rules=w("veletas.edition.classic"))
        assert choices == [
            {"name": w("separator.aside", text="small, classic", aside=label), "value": "small, classic"}
        ]
        assert in_language(choices[0]["name"], language), choices
    # Words of the member's own language narrow the choices as well.
    japanese = await sandbox.user(bob).autocomplete("tournament", "create", **CUP, game="veletas", settings="小型")
    assert values(japanese) == ["small, current", "small, classic"]


async def test_bad_settings_are_refused_privately_in_the_member_s_language_and_create_nothing(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    alice.locale, bob.locale = "es-ES", "ja"
    await sandbox.grant(alice, "manage_guild")
    await sandbox.grant(bob, "manage_guild")
    cases = [
        (alice, "veloop", "small", ["`small`", "Veletas", "`8` / `5` / `6` / `12`", "`122` / `alternating`"]),
        (bob, "veloop", "huge", ["`huge`", "`8` / `5` / `6` / `12`"]),
        (bob, "veletas", "small medium", ["`small`", "`medium`", "`standard` / `medium` / `small`"]),
        (alice, "veletas", "5, classic", ["`5`", "Veloop", "`current` / `classic`"]),
    ]
    for member, game, typed, shown in cases:
        language = "ja" if member is bob else "es"
        answer = await sandbox.user(member).slash("tournament", "create", **CUP, game=game, settings=typed)
        assert answer.ephemeral and in_language(answer.content, language), answer.content
        assert all(part in answer.content for part in shown), answer.content
        assert not english_in([answer.content]), answer.content
    assert tournaments_stored(db_path) == 0
    assert not [m for m in sandbox.messages(sandbox.channel_id, include_ephemeral=False) if m.embeds]
