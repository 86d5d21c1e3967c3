"""Hostile input: what a stale or forged client can send is refused privately, briefly, and changes nothing.

The fake users' ``unchecked=True`` sends what the Discord client would not (values past an option's
``max_length``, outside its choices) but Discord's servers still carry, up to 6,000 characters.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot import i18n, render
from bot.client import APOLOGY, VeletasBot
from bot.clocks import TimeControl
from bot.rules import Game
from bot.rules.common import header_value, quote, read_record
from bot.rules.protocol import GameState
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from bot.sandbox.users import BOOLEAN, INTEGER, NUMBER, STRING, SUB_COMMAND, SUB_COMMAND_GROUP, USER
from cogs._ai_pool import Verdict
from cogs._board import ending_text, render_board
from e2e.conftest import ManualClock, make_factory
from e2e.table import Table, random_setup_turn, resign, start_game

DISCORD_MAX_CONTENT = 2000
HEARTBEAT = "scheduler_alive_at"  # the scheduler's own row in meta
LONG = "x" * 6000


def everything(db_path: Path) -> list[Any]:
    """Every row of every table, read from the file as another process would; but the scheduler's heartbeat,
    which it writes by itself now and then."""
    with sqlite3.connect(db_path) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return [
            (name, [r for r in db.execute(f"SELECT * FROM {name}").fetchall() if r[0] != HEARTBEAT]) for name in tables
        ]


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
    # The bot's own spans (an example written as options, an option's name) pair up; the input's is closed.
    assert answer.content.replace(quoted, "").count("`") % 2 == 0, "the input opened or closed a code span"
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


# --- values that name a game, tournament or member -------------------------------------------------

OTHER_GUILD = 424_242_424_242_424_242
STRANGER = 515_151_515_151_515_151  # a member of the other server only
TOO_BIG = 2**63  # one past the largest id a snowflake or a row can have
THIRTY_DIGITS = "9" * 30
NO_SUCH_GAME = "There is no such game here."


async def other_servers_games(bot: VeletasBot, member: Member) -> tuple[int, int]:
    """Two games of another server, both with ``member`` in them: one finished, one in play."""
    store = bot.store
    finished = await store.create_challenge(
        guild_id=OTHER_GUILD, channel_id=OTHER_GUILD + 1, challenger_id=member.id, opponent_id=STRANGER,
        where="here", expires_at=None,
    )  # fmt: skip
    await store.accept_challenge(finished.id, STRANGER, channel_id=OTHER_GUILD + 1)
    await store.resign(finished.id, STRANGER)
    live = await store.create_challenge(
        guild_id=OTHER_GUILD, channel_id=OTHER_GUILD + 2, challenger_id=member.id, opponent_id=STRANGER + 1,
        where="here", expires_at=None,
    )  # fmt: skip
    await store.accept_challenge(live.id, STRANGER + 1, channel_id=OTHER_GUILD + 2)
    return finished.id, live.id


def public_count(sandbox: FakeDiscord) -> int:
    return sum(len(sandbox.messages(c, include_ephemeral=False)) for c in sandbox.state.channels)


async def finished_here(sandbox: FakeDiscord, alice: Member, bob: Member, db_path: Path) -> tuple[Table, Message]:
    """A game of this server that ``alice`` resigned: its final board carries a Rematch button."""
    table = await start_game(sandbox, alice, bob, variant="small")
    await play_to(table, "play", random.Random(11), db_path)
    final = await resign(sandbox, table.first)
    return table, final


@pytest.mark.parametrize("forged", ["other", "²", "٣", THIRTY_DIGITS, str(TOO_BIG), "0", "-1", ""])
async def test_a_forged_play_again_value_is_refused_privately_and_posts_and_stores_nothing(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    db_path: Path,
    caplog: pytest.LogCaptureFixture,
    forged: str,
) -> None:
    """The menu under ``games`` offers the member's finished games of this server; a forged value naming
    another server's (where the member played someone who is not here) used to post a public rematch here."""
    table, _ = await finished_here(sandbox, alice, bob, db_path)
    other, _ = await other_servers_games(bot, alice)
    listing = await table.first.slash("veletas", "games")
    menu = sandbox.message(listing.id).selects[0]
    assert [o["value"] for o in menu["options"]] == [str(table.game_id)]
    menu["options"][0]["value"] = str(other) if forged == "other" else forged
    before, public = everything(db_path), public_count(sandbox)
    with caplog.at_level(logging.ERROR):
        answer = await table.first.select(listing, menu["options"][0]["value"])
    assert_private_refusal(answer)
    assert answer.content == NO_SUCH_GAME
    assert everything(db_path) == before
    assert public_count(sandbox) == public
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def test_the_play_again_menu_still_offers_a_rematch_here(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    table, _ = await finished_here(sandbox, alice, bob, db_path)
    listing = await table.first.slash("veletas", "games")
    offered = await table.first.select(listing, str(table.game_id))
    assert (
        not offered.ephemeral and bob.mention in offered.content and "Accept" in [b["label"] for b in offered.buttons]
    )


FORGED_BUTTONS = [
    "veletas:rematch:{id}",
    "veletas:accept:{id}",
    "veletas:decline:{id}",
    "veletas:move:{id}",
    "veletas:gx:{id}",
    "veletas:gb:{id}:v3",
    "veletas:gc:{id}:v3:b1-b2",
    "veletas:resign:{id}:yes",
    "veletas:undo:{id}:v3:yes",
    "veletas:pie:{id}:v3:keep",
    "veletas:setup:{id}",
    "veletas:sx:{id}:v3",
    "veletas:gs:{id}:v3:0",
    "veloop:rematch:{id}",
    "veloop:gt:{id}:v3:0",
    "review:{id}",
]


@pytest.mark.parametrize("template", FORGED_BUTTONS)
async def test_a_forged_button_naming_another_servers_game_or_no_game_is_refused_privately(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    db_path: Path,
    caplog: pytest.LogCaptureFixture,
    template: str,
) -> None:
    """Every control a message can carry that names a game: another server's (finished or in play, with the
    presser in it), a 30-digit id and one past 63 bits are each refused as no game here, changing nothing."""
    table, final = await finished_here(sandbox, alice, bob, db_path)
    finished, live = await other_servers_games(bot, alice)
    for game in (finished, live, THIRTY_DIGITS, TOO_BIG, table.game_id + 1000):
        board = sandbox.message(final.id)
        board.buttons[0]["custom_id"] = template.format(id=game)
        before, public = everything(db_path), public_count(sandbox)
        with caplog.at_level(logging.ERROR):
            answer = await table.first.click(board, board.buttons[0]["custom_id"])
        assert_private_refusal(answer)
        assert answer.content == NO_SUCH_GAME, (game, answer.content)
        assert everything(db_path) == before, game
        assert public_count(sandbox) == public, game
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def test_a_board_control_pressed_in_another_channel_of_the_server_is_refused(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    """A board's controls act on the game of the channel they are in: one forged into another channel's
    message (naming this server's game) changes nothing there either."""
    table = await start_game(sandbox, alice, bob, variant="small", where="thread")
    await play_to(table, "play", random.Random(12), db_path)
    user = sandbox.user(table.user_to_act().member)
    lobby = await user.slash("veletas", "games")
    elsewhere = sandbox.message(lobby.id)
    assert elsewhere.channel_id != table.channel_id
    before = everything(db_path)
    forged = {"type": 2, "style": 4, "label": "Resign", "custom_id": f"veletas:resign:{table.game_id}:yes"}
    elsewhere.data.setdefault("components", []).append({"type": 1, "components": [forged]})
    answer = await user.click(elsewhere, "Resign")
    assert_private_refusal(answer)
    assert answer.content == NO_SUCH_GAME
    assert everything(db_path) == before


@pytest.mark.parametrize(
    ("path", "options", "refusal"),
    [
        (("veletas", "export"), {"game": "other"}, NO_SUCH_GAME),
        (("veletas", "export"), {"game": TOO_BIG}, NO_SUCH_GAME),
        (("veletas", "export"), {"game": int(THIRTY_DIGITS)}, NO_SUCH_GAME),
        (("veletas", "cancel"), {"game": "other"}, NO_SUCH_GAME),
        (("veletas", "cancel"), {"game": "live"}, NO_SUCH_GAME),
        (("veletas", "cancel"), {"game": TOO_BIG}, NO_SUCH_GAME),
        (("tournament", "start"), {"tournament": TOO_BIG}, "There is no such tournament here."),
        (("tournament", "info"), {"tournament": 10**29}, "There is no such tournament here."),
        (("tournament", "info"), {"tournament": "other"}, "There is no such tournament here."),
        (("veletas", "challenge"), {"opponent": "role"}, "That is not a member of this server."),
        (("veletas", "challenge"), {"opponent": STRANGER}, "That is not a member of this server."),
        (("veloop", "challenge"), {"opponent": "role"}, "That is not a member of this server."),
        (("player", "profile"), {"member": STRANGER}, "That is not a member of this server."),
        (("player", "history"), {"against": "role"}, "That is not a member of this server."),
        (("tournament", "add"), {"member": STRANGER}, "That is not a member of this server."),
        (("tournament", "remove"), {"member": "role"}, "That is not a member of this server."),
    ],
)
async def test_a_forged_option_naming_a_game_tournament_or_member_not_here_is_refused_privately(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    db_path: Path,
    caplog: pytest.LogCaptureFixture,
    path: tuple[str, ...],
    options: dict[str, Any],
    refusal: str,
) -> None:
    finished, live = await other_servers_games(bot, alice)
    tournament = await bot.store.create_tournament(
        guild_id=OTHER_GUILD, channel_id=OTHER_GUILD + 3, organiser_id=STRANGER, name="Elsewhere", game="veletas",
        settings={}, format="swiss", rounds=3, best_of=1, time_control=TimeControl.parse("none"), rated=False,
        max_players=None, starts_at=None, checkin_minutes=0, round_minutes=60,
    )  # fmt: skip
    named = {"other": finished, "live": live, "role": sandbox.state.bot_role_id}
    if "tournament" in options and options["tournament"] == "other":
        named["other"] = tournament.id
    sent = {name: named.get(value, value) if isinstance(value, str) else value for name, value in options.items()}
    await sandbox.grant(alice, "manage_guild")
    before, public = everything(db_path), public_count(sandbox)
    with caplog.at_level(logging.ERROR):
        answer = await sandbox.user(alice).slash(*path, unchecked=True, **sent)
    assert_private_refusal(answer)
    assert answer.content == refusal, answer.content
    assert everything(db_path) == before
    assert public_count(sandbox) == public
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


@pytest.mark.parametrize("tournament", ["other", THIRTY_DIGITS, str(TOO_BIG)])
async def test_a_forged_tournament_button_is_refused_privately(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path, tournament: str
) -> None:
    other = await bot.store.create_tournament(
        guild_id=OTHER_GUILD, channel_id=OTHER_GUILD + 3, organiser_id=STRANGER, name="Elsewhere", game="veletas",
        settings={}, format="swiss", rounds=3, best_of=1, time_control=TimeControl.parse("none"), rated=False,
        max_players=None, starts_at=None, checkin_minutes=0, round_minutes=60,
    )  # fmt: skip
    await sandbox.grant(alice, "manage_guild")
    announcement = await sandbox.user(alice).slash("tournament", "create", name="Here", game="veletas", format="swiss")
    forged = sandbox.message(announcement.id)
    join = next(b for b in forged.buttons if b["label"] == "Join")
    join["custom_id"] = f"tour:join:{other.id if tournament == 'other' else tournament}"
    before, public = everything(db_path), public_count(sandbox)
    answer = await sandbox.user(bob).click(forged, join["custom_id"])
    assert_private_refusal(answer)
    assert answer.content == "This button does not belong to that tournament."
    assert everything(db_path) == before
    assert public_count(sandbox) == public


@pytest.mark.parametrize("page", ["999999", "1000000", THIRTY_DIGITS])
async def test_a_forged_leaderboard_page_shows_the_last_page(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, caplog: pytest.LogCaptureFixture, page: str
) -> None:
    first = await sandbox.user(alice).slash("veletas", "leaderboard")
    assert "Page 1 of 1" in first.embeds[0]["footer"]["text"]
    forged = sandbox.message(first.id)
    following = next(b for b in forged.buttons if b["label"] == "Next")
    following["custom_id"] = re.sub(r":-?[0-9]+:([01]):n$", rf":{page}:\1:n", following["custom_id"])
    following["disabled"] = False
    with caplog.at_level(logging.ERROR):
        turned = await sandbox.user(alice).click(forged, following["custom_id"])
    assert turned.ephemeral and turned.content != i18n.words()(APOLOGY)
    assert "Page 1 of 1" in turned.embeds[0]["footer"]["text"]
    assert "Nobody is rated here yet." in turned.embeds[0]["description"], turned.embeds[0]["description"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


class IdleAnalyst:
    """An AI that is never asked anything: a refused analysis must not reach it."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def reserve(self, member: int) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    async def analyze(self, position: str, rules: str) -> Verdict:
        self.asked.append(position)
        raise AssertionError("a refused analysis reached the AI")

    async def choose_turn(self, game: GameState, level: int) -> str:
        raise AssertionError("no game against the AI here")


async def test_analysis_of_a_game_not_of_this_server_is_refused_privately(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    analyst = IdleAnalyst()
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai=analyst), sync=False)
    assert isinstance(bot, VeletasBot)
    finished, live = await other_servers_games(bot, alice)
    for game in (finished, live, TOO_BIG, int(THIRTY_DIGITS)):
        before = everything(db_path)
        answer = await sandbox.user(alice).slash("veletas", "analyze", unchecked=True, game=game)
        assert_private_refusal(answer)
        assert answer.content == NO_SUCH_GAME, answer.content
        assert everything(db_path) == before
    assert analyst.asked == []


async def test_forged_values_in_the_guided_move_menus_are_refused_privately(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    db_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each step's menu (shooter, destination, target) offers squares; a forged value (not a square, a square
    off the board, one the step never offered) is refused as out of date, never reaching the rules' parser."""
    table = await start_game(sandbox, alice, bob, variant="small")
    await play_to(table, "play", random.Random(13), db_path)
    position = table.game.position
    mover = table.user_to_act()
    shooter = next(s for s in position.unclaimed() if position.destinations(s))
    destination = position.destinations(shooter)[-1]
    step = await mover.click(table.boards[-1], "Move")
    for chosen in (shooter, destination, None):
        for forged in ("²", "z99", THIRTY_DIGITS, "a1" if chosen != "a1" else "g7"):
            live = sandbox.message(step.id)
            option = live.selects[0]["options"][0]
            real = option["value"]
            option["value"] = forged
            before = everything(db_path)
            with caplog.at_level(logging.ERROR):
                answer = await mover.select(live, forged, menu=live.selects[0]["custom_id"])
            option["value"] = real
            if answer.id == step.id:  # an offered square after all: the step moved on; go back to where it was
                continue
            assert_private_refusal(answer, "out of date")
            assert everything(db_path) == before
        if chosen is not None:
            menu = next(m for m in step.selects if chosen in [o["value"] for o in m["options"]])
            step = await mover.select(step, chosen, menu=menu["custom_id"])
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


@pytest.mark.parametrize("chosen", ["z99", "a1.a1", "c3.c3.c3.c3.c3.c3.c3.c3.c3"])
@pytest.mark.parametrize("what", ["sp", "sk"])
async def test_a_forged_setup_menu_naming_squares_it_never_offered_is_refused_privately(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    db_path: Path,
    caplog: pytest.LogCaptureFixture,
    what: str,
    chosen: str,
) -> None:
    """The setup menus carry the squares placed so far in their custom id; squares no step offered (off the
    board, twice the same, more than a turn places) are a stale or forged menu, not a turn to draw."""
    table = await start_game(sandbox, alice, bob, variant="small")
    await play_to(table, "setup", random.Random(14), db_path)
    mover = table.user_to_act()
    step = await mover.click(table.boards[-1], "Set up")
    live = sandbox.message(step.id)
    menu = live.selects[0]
    menu["custom_id"] = re.sub(
        r"^veletas:sp:([0-9]+):([^:]+):[^:]*:", rf"veletas:{what}:\1:\2:{chosen}:", menu["custom_id"]
    )
    before = everything(db_path)
    with caplog.at_level(logging.ERROR):
        answer = await mover.select(live, menu["options"][0]["value"], menu=menu["custom_id"])
    assert_private_refusal(answer, "out of date")
    assert everything(db_path) == before
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


@pytest.mark.parametrize(
    "custom_id",
    ["veletas:rematch:²", "veletas:rematch:", "veletas:move:٣", "veletas:gs:1:v3:²", "x" * 100, "tour:join:"],
)
async def test_a_custom_id_no_control_reads_is_answered_privately_not_left_unanswered(
    sandbox: FakeDiscord,
    bot: VeletasBot,
    alice: Member,
    bob: Member,
    db_path: Path,
    caplog: pytest.LogCaptureFixture,
    custom_id: str,
) -> None:
    """A custom id that matches none of the bot's templates used to go unanswered ('The application did not
    respond'); now it is refused as out of date, and nothing changes."""
    table, final = await finished_here(sandbox, alice, bob, db_path)
    board = sandbox.message(final.id)
    board.buttons[0]["custom_id"] = custom_id
    before, public = everything(db_path), public_count(sandbox)
    with caplog.at_level(logging.ERROR):
        answer = await table.first.click(board, custom_id)
    assert_private_refusal(answer)
    assert answer.content == "This button or menu is out of date: ask again for what it showed."
    assert everything(db_path) == before
    assert public_count(sandbox) == public
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def test_no_game_here_suggests_only_the_challenge_commands_that_exist(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member
) -> None:
    answer = await sandbox.user(alice).slash("veletas", "board")
    assert_private_refusal(answer, "`/veletas challenge`", "`/veloop challenge`")
    assert "/tournament" not in answer.content and "/player" not in answer.content, answer.content
    synced = {(path[0], path[1]) for path, _ in leaf_commands(sandbox) if len(path) > 1}
    for group, sub in re.findall(r"`/(\w+) (\w+)`", answer.content):
        assert (group, sub) in synced, f"/{group} {sub} is suggested but is no command"


async def test_refusal_examples_come_from_the_games_own_board_in_the_form_used(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="small")
    user = table.user_to_act()
    on_board = re.compile(r"\b[a-g][1-7]\b")
    # Options: the example is written as the options, with squares of this 7×7 board, and it is a legal turn.
    count = await user.slash("veletas", "setup", shooters="c3 e5", stone="d6")
    example = re.search(r"`shooters:([a-z0-9 ]+) stone:([a-z0-9]+)`", count.content)
    assert example is not None, count.content
    assert all(on_board.fullmatch(sq) for sq in [*example.group(1).split(), example.group(2)]), count.content
    table.game.play(f"{','.join(example.group(1).split())}/{example.group(2)}")  # a real turn here
    bad_stone = await user.slash("veletas", "setup", shooters="d4", stone="zz")
    assert_private_refusal(bad_stone, "`zz`", "`stone:`", "`shooters:")
    assert "after /" not in bad_stone.content, bad_stone.content
    slashes = await user.slash("veletas", "setup", shooters="c3/d6", stone="a1")
    assert_private_refusal(slashes, "`shooters:`", "`stone:`", "`shooters:")
    assert "c3,e5,h4" not in slashes.content, slashes.content
    assert table.game.phase == "setup", "nothing was played"
    await table.play_setup(random.Random(5))
    legal = {str(move) for move in table.game.position.legal_moves()}
    refused = await table.user_to_act().slash("veletas", "move", move="zz9")
    assert_private_refusal(refused)
    shown = re.findall(r"\b[a-z]\d+(?:-[a-z]\d+/[a-z]\d+)?\b", refused.content)
    assert shown and all(move in legal for move in shown), (shown, refused.content)
    no_shot_move = next(str(m) for m in table.game.position.legal_moves() if not m.is_stationary).split("/")[0]
    no_shot = await table.user_to_act().slash("veletas", "move", move=no_shot_move)
    example = re.search(rf"like ({re.escape(no_shot_move)}/[a-z]\d+)", no_shot.content)
    assert example is not None and example.group(1) in legal, no_shot.content


async def test_a_veloop_refusal_shows_real_moves_of_its_own_board(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    challenge = await sandbox.user(alice).slash(
        "veloop", "challenge", opponent=bob, board="5", protocol="alternating", where="here"
    )
    cursor = sandbox.cursor()
    await sandbox.user(bob).click(challenge, "Accept")
    await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "Veloop #" in m.text(), after=cursor
    )
    info = await bot.store.game_in_channel(sandbox.channel_id)
    legal = {str(move) for move in info.state.position.legal_moves()}
    mover = alice if info.user_to_act == alice.id else bob
    refused = await sandbox.user(mover).slash("veloop", "move", move="zz")
    assert_private_refusal(refused, "`zz`")
    moves = re.findall(r"\b([a-e][1-5])[<\- ]([a-e][1-5])\b", refused.content)
    assert len(moves) == 3 and all(f"{t}<{s}" in legal for t, s in moves), refused.content
    assert not re.search(r"\b[f-z]\d", refused.content), "no square off this 5×5 board"
