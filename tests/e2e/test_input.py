"""Hostile input: what a stale or forged client can send is refused privately, briefly, and changes nothing.

The fake users' ``unchecked=True`` sends what the Discord client would not (values past an option's
``max_length``, outside its choices) but Discord's servers still carry, up to 6,000 characters.
"""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot import i18n, render
from bot.client import APOLOGY, VeletasBot
from bot.rules import Game
from bot.rules.common import header_value, quote, read_record
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from bot.sandbox.users import BOOLEAN, INTEGER, NUMBER, STRING, SUB_COMMAND, SUB_COMMAND_GROUP, USER
from cogs._board import ending_text, render_board
from e2e.table import Table, random_setup_turn, resign, start_game

DISCORD_MAX_CONTENT = 2000
LONG = "x" * 6000


def everything(db_path: Path) -> list[Any]:
    """Every row of every table, read from the file as another process would."""
    with sqlite3.connect(db_path) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return [(name, db.execute(f"SELECT * FROM {name}").fetchall()) for name in tables]


def leaf_commands(sandbox: FakeDiscord) -> list[tuple[tuple[str, ...], list[dict[str, Any]]]]:
    """Every synced command that runs, as (path, its options)."""
    found: list[tuple[tuple[str, ...], list[dict[str, Any]]]] = []

    def walk(path: tuple[str, ...], options: list[dict[str, Any]]) -> None:
        subs = [o for o in options if o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        if not subs:
            found.append((path, options))
        for sub in subs:
            walk((*path, sub["name"]), sub.get("options") or [])

    for command in sandbox.commands() + sandbox.commands(guild=True):
        if command["type"] == 1:
            walk((command["name"],), command.get("options") or [])
    return found


def filler(option: dict[str, Any], member: Member) -> Any:
    """A value the client would send for a required option that is not under test."""
    if option.get("choices"):
        return option["choices"][0]["value"]
    return {STRING: "c3", INTEGER: option.get("min_value", 1), NUMBER: 1, BOOLEAN: False, USER: member}[option["type"]]


def assert_private_refusal(answer: Message, *words: str) -> None:
    assert answer.ephemeral, answer.content
    assert len(answer.content) <= 200 < DISCORD_MAX_CONTENT, len(answer.content)
    assert answer.content != i18n.words()(APOLOGY) and "x" * 50 not in answer.content
    for word in words:
        assert word in answer.content, (word, answer.content)


async def test_every_option_refuses_what_it_never_offered_privately_and_changes_nothing(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Over the synced command list, so an option added later cannot escape: every string option
    declares a max_length or choices (whose values bound it: a max_length beside choices is left out of
    what is synced, as Discord's documentation pairs neither), a 6,000-character value is refused
    naming the option, and a value outside an option's choices is refused naming the valid ones."""
    table = await start_game(sandbox, alice, bob, variant="small")
    await play_to(table, "setup", random.Random(1), db_path)
    user = table.first
    # /settings asks for Manage Server, which the Discord client checks before anything is sent: the server lets
    # this member use it (its integration settings), so a stale client of theirs reaches the bot's own checks.
    sandbox.permit_command("settings", user.member)
    tested = 0
    for path, options in leaf_commands(sandbox):
        for option in options:
            if option["type"] != STRING:
                continue
            name = option["name"]
            if option.get("choices"):
                assert "max_length" not in option and all(len(c["value"]) <= 200 for c in option["choices"])
            else:
                assert 1 <= option.get("max_length", 6001) <= 200, (
                    f"/{' '.join(path)} {name} declares no fitting max_length"
                )
            required = {o["name"]: filler(o, bob) for o in options if o.get("required") and o["name"] != name}
            stale = ["stale-choice", LONG] if option.get("choices") else [LONG]
            for value in stale:
                before = everything(db_path)
                public = len(sandbox.messages(table.channel_id, include_ephemeral=False))
                with caplog.at_level(logging.ERROR):
                    answer = await user.slash(*path, unchecked=True, **required, **{name: value})
                words = [f"`{name}`"] + [f"`{c['value']}`" for c in option.get("choices") or []]
                assert_private_refusal(answer, *words)
                assert everything(db_path) == before, f"/{' '.join(path)} {name} changed the database"
                assert len(sandbox.messages(table.channel_id, include_ephemeral=False)) == public
                tested += 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], "a refusal was logged as an error"
    assert tested >= 12, tested  # setup (2), move, pie, analyze (2), challenge (3), rules, theme: each at least once


async def play_to(table: Table, phase: str, rng: random.Random, db_path: Path) -> None:
    """Play random turns until ``phase``, then wait until the bot has recorded its newest board."""
    while table.game.phase != phase:
        await table.turn(random_setup_turn(table.game, rng))

    def recorded() -> bool:
        with sqlite3.connect(db_path) as db:
            row = db.execute("SELECT board_message_id FROM games WHERE id = ?", (table.game_id,)).fetchone()
        return bool(row) and row[0] == table.boards[-1].id

    await table.fake.wait_until(recorded, what="the newest board to be recorded")


@pytest.mark.parametrize(
    ("phase", "command", "options"),
    [
        ("setup", "setup", {"shooters": LONG, "stone": "d4"}),
        ("setup", "setup", {"shooters": "c3", "stone": LONG}),
        ("pie", "pie", {"choice": LONG}),
        ("play", "move", {"move": LONG}),
    ],
)
async def test_a_6000_character_turn_is_refused_in_its_own_phase(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    db_path: Path,
    phase: str,
    command: str,
    options: dict[str, str],
) -> None:
    """Where the value reaches the rules, whose refusal used to quote it in full (past 2,000 characters)."""
    table = await start_game(sandbox, alice, bob, variant="small")
    await play_to(table, phase, random.Random(4), db_path)
    before = everything(db_path)
    answer = await table.user_to_act().slash("veletas", command, unchecked=True, **options)
    assert_private_refusal(answer)
    assert everything(db_path) == before


async def test_a_6000_character_position_is_refused(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, db_path: Path
) -> None:
    before = everything(db_path)
    answer = await sandbox.user(alice).slash("veletas", "analyze", unchecked=True, position="10/" * 1999 + " b")
    assert_private_refusal(answer, "`position`")
    assert everything(db_path) == before


@pytest.mark.parametrize(
    ("phase", "command", "options", "typed"),
    [
        ("setup", "setup", {"shooters": "c3 <@1>``` **x**", "stone": "d4"}, "<@1>```"),
        ("setup", "setup", {"shooters": "c3", "stone": "`@here`"}, "`@here`"),
        ("play", "move", {"move": "`d4`-**g7**/<@&1>\n@everyone"}, "`d4`-**g7**/<@&1>\n@everyone"),
    ],
)
async def test_refusals_quote_input_in_a_span_it_cannot_break(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    db_path: Path,
    phase: str,
    command: str,
    options: dict[str, str],
    typed: str,
) -> None:
    table = await start_game(sandbox, alice, bob, variant="small")
    await play_to(table, phase, random.Random(5), db_path)
    before = everything(db_path)
    answer = await table.user_to_act().slash("veletas", command, **options)
    assert_private_refusal(answer)
    quoted = quote(typed)
    assert quoted in answer.content, answer.content
    assert answer.content.count("`") == 2 * answer.content.count(quoted), "the input opened or closed a code span"
    assert everything(db_path) == before


@pytest.mark.parametrize(
    ("command", "options", "named"),
    [
        (("veletas", "challenge"), {"variant": "huge"}, ["`standard`", "`medium`", "`small`"]),
        (("veletas", "challenge"), {"rules": "modern"}, ["`current`", "`classic`"]),
        (("veletas", "challenge"), {"where": "dm"}, ["`thread`", "`here`"]),
        (("veletas", "rules"), {"edition": "modern"}, ["`current`", "`classic`"]),
        (("player", "theme"), {"choice": "neon"}, ["`light`", "`dark`", "`contrast`"]),
        (("player", "profile"), {"game": "chess"}, ["`veletas`", "`veloop`"]),
        (("player", "history"), {"game": "chess"}, ["`veletas`", "`veloop`"]),
        (("veletas", "challenge"), {"level": 9}, ["`level`", "1 to 5"]),
    ],
)
async def test_a_stale_choice_is_a_private_refusal_naming_the_valid_ones(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    db_path: Path,
    caplog: pytest.LogCaptureFixture,
    command: tuple[str, ...],
    options: dict[str, Any],
    named: list[str],
) -> None:
    before = everything(db_path)
    with caplog.at_level(logging.ERROR):
        answer = await sandbox.user(alice).slash(*command, unchecked=True, **options)
    assert_private_refusal(answer, *named)
    assert everything(db_path) == before
    assert sandbox.messages(sandbox.channel_id, include_ephemeral=False) == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def test_a_resigned_game_with_hostile_names_writes_a_record_that_reads_back(
    sandbox: FakeDiscord, bot: VeletasBot, db_path: Path
) -> None:
    fence = sandbox.add_member('```py\nprint("hi")\n```')
    quoted = sandbox.add_member('say "hi" [\\]\u2028x')
    table = await start_game(sandbox, fence, quoted, variant="small")
    await play_to(table, "play", random.Random(6), db_path)
    loser = table.user_to_act()
    loser_colour = table.game.colour_to_act
    resigned = await resign(sandbox, loser)

    record = resigned.files[f"veletas-{table.game_id}.txt"].decode()
    headers = read_record(record).headers
    black, white = (fence, quoted) if table.game.first_player_colour == "black" else (quoted, fence)
    assert headers["Black"] == header_value(black.name.title()) and headers["White"] == header_value(white.name.title())
    assert headers["Result"] == ("0-1" if loser_colour == "black" else "1-0")
    assert headers["Termination"] == "resignation"
    assert Game.from_record(record).turns == table.game.turns

    winner = table.other().member
    description = resigned.embeds[0]["description"]
    assert f"{winner.mention} wins" in description, description
    assert f"{(loser_colour or '').capitalize()} resigned" in description, description
    exported = await table.first.slash("veletas", "export")
    assert read_record(exported.files[f"veletas-{table.game_id}.txt"].decode()).headers == headers

    # The last board says how the game ended where the turn used to be, not whose move it is.
    info = await bot.store.get_game(table.game_id)
    ending = f"{'White' if loser_colour == 'black' else 'Black'} wins · {(loser_colour or '').capitalize()} resigned"
    assert ending_text(i18n.words(), info) == ending
    with_ending = await render_board(bot, info, theme="light", w=i18n.words())
    assert resigned.files["board.png"] == with_ending
    names = {"black": black.name.title(), "white": white.name.title()}
    without = await asyncio.to_thread(
        render.board_png, info.game.position, last_move=info.game.last_move, players=names, theme="light"
    )
    assert with_ending != without


@pytest.mark.parametrize(
    ("phase", "command", "options"), [("setup", "setup", {"shooters": LONG}), ("play", "move", {"move": LONG})]
)
async def test_autocomplete_copes_with_6000_characters_typed(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    db_path: Path,
    caplog: pytest.LogCaptureFixture,
    phase: str,
    command: str,
    options: dict[str, str],
) -> None:
    table = await start_game(sandbox, alice, bob, variant="small")
    await play_to(table, phase, random.Random(7), db_path)
    with caplog.at_level(logging.ERROR):
        choices = await table.user_to_act().autocomplete("veletas", command, unchecked=True, **options)
    assert choices == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
