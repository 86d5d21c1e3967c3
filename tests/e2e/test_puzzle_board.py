"""Solve on the board: a puzzle's private message offers the board page while its server runs; the click edits the
message with the member's own puzzle link, the page plays through the store's puzzle path, and the same button back
in Discord shows how the attempt stands. Nothing is posted publicly; another member's attempt is refused."""

from __future__ import annotations

import re
from pathlib import Path

import aiohttp
import pytest
from puzzle_positions import veloop_two, wrong_first

from bot.board.sessions import verify, verify_puzzle
from bot.client import VeletasBot
from bot.i18n import words
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from e2e.conftest import Factory, ManualClock, make_factory
from e2e.test_languages import assert_no_english, english_in, in_language
from e2e.test_puzzles import description, edited, everything, kept, labels, public

SOLVE = "Solve on the board"
SECRET = b"a-board-secret"
LINK = re.compile(r"(http://127\.0\.0\.1:[0-9]+)/board/#puzzle=(\S+)")


@pytest.fixture
def board_factory(db_path: Path, clock: ManualClock) -> Factory:
    return make_factory(db_path, clock, board_port=0, board_host="127.0.0.1", board_secret=SECRET)


@pytest.fixture
async def board_bot(sandbox_runner: BotRunner, board_factory: Factory) -> VeletasBot:
    started = await sandbox_runner.start(board_factory, sync=False)
    assert isinstance(started, VeletasBot)
    return started


async def test_solving_on_the_board_plays_the_attempt_and_discord_shows_how_it_stands(
    sandbox: FakeDiscord, board_bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    (puzzle,) = (await kept(board_bot, veloop_two())).values()
    me = sandbox.user(alice)
    shown = await me.slash("veloop", "puzzle")
    assert labels(shown) == ["Move", "Type a move", SOLVE, "Give up", "Next puzzle", "Leaderboard"]
    attempt = await board_bot.store.open_attempt(alice.id, "veloop")
    assert attempt is not None

    # Bob's own puzzle message, its button forged to name Alice's attempt: refused privately, nothing changes.
    theirs = await sandbox.user(bob).slash("veloop", "puzzle")
    before = everything(db_path)
    forged = sandbox.message(theirs.id)
    forged.buttons[2]["custom_id"] = f"pz:board:{attempt.id}"
    refused = await sandbox.user(bob).click(forged, f"pz:board:{attempt.id}")
    assert refused.ephemeral and refused.content == words()("puzzle.not_yours")
    assert everything(db_path) == before

    opened = await edited(sandbox, shown, me.click(shown, SOLVE))
    assert opened.id == shown.id and opened.ephemeral
    text = description(opened)
    assert text.startswith("Black to move: confine a stone in 2 turns")
    assert "Your own link to solve this puzzle on the board page, good for 12 hours:" in text
    found = LINK.search(text)
    assert found is not None, text
    base, token = found[1], found[2]
    session = verify_puzzle(SECRET, token, board_bot.store.now())
    assert session is not None and (session.user_id, session.attempt_id) == (alice.id, attempt.id)
    assert verify(SECRET, token, board_bot.store.now()) is None, "not a game's session"

    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
        answer = await http.post(f"{base}/board/api/puzzle/move", json={"turn": puzzle.solution[0], "version": 0})
        assert answer.status == 200, await answer.text()
        assert (await answer.json())["puzzle"]["verdict"] == "right"

        # Back in Discord, the button shows the attempt where the page left it (a fresh link with it).
        halfway = await edited(sandbox, opened, me.click(opened, SOLVE))
        assert description(halfway).startswith("Black to move: confine a stone in 1 turn")
        assert LINK.search(description(halfway)) is not None and SOLVE in labels(halfway)

        answer = await http.post(f"{base}/board/api/puzzle/move", json={"turn": puzzle.solution[2], "version": 2})
        assert answer.status == 200, await answer.text()
        view = (await answer.json())["puzzle"]
        assert view["verdict"] == "solved" and view["status"] == "solved"

    # The same store path as Discord's turns: rated, streak 1; nothing public.
    standing = await board_bot.store.puzzle_standing(alice.id, "veloop")
    assert standing.streak == 1 and standing.rating.value > 1500
    assert public(sandbox) == 0

    # Back in Discord, the stale message's turn is refused (the attempt is over); the button shows how it ended.
    stale = await me.click(halfway, "Type a move")
    assert stale.ephemeral and stale.id != shown.id and stale.content == words()("puzzle.over")
    ended = await edited(sandbox, halfway, me.click(halfway, SOLVE))
    text = description(ended)
    assert f"Solved on the board page with {puzzle.solution[2]}!" in text
    assert re.search(r"Puzzle rating: 1500 → [0-9]+ \(\+[0-9]+\)", text), text
    assert "streak 1 (best 1)" in text and LINK.search(text) is None
    assert labels(ended) == ["Share", "Next puzzle", "Leaderboard"]
    assert public(sandbox) == 0, "solving on the board posts nothing"


async def test_without_the_board_server_no_puzzle_offers_it(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member
) -> None:
    await kept(bot, veloop_two())
    shown = await sandbox.user(alice).slash("veloop", "puzzle")
    assert SOLVE not in labels(shown)
    attempt = await bot.store.open_attempt(alice.id, "veloop")
    assert attempt is not None
    # A button from when the server ran (a restart without BOARD_PORT): refused privately, the message unchanged.
    forged = sandbox.message(shown.id)
    forged.buttons[2]["custom_id"] = f"pz:board:{attempt.id}"
    refused = await sandbox.user(alice).click(forged, f"pz:board:{attempt.id}")
    assert refused.ephemeral and refused.content == words()("puzzle.board.off")


async def test_a_wrong_turn_on_the_board_is_shown_back_in_discord_with_the_rating_lost(
    sandbox: FakeDiscord, board_bot: VeletasBot, alice: Member
) -> None:
    (puzzle,) = (await kept(board_bot, veloop_two())).values()
    me = sandbox.user(alice)
    shown = await me.slash("veloop", "puzzle")
    opened = await edited(sandbox, shown, me.click(shown, SOLVE))
    found = LINK.search(description(opened))
    assert found is not None
    wrong = wrong_first(puzzle)
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {found[2]}"}) as http:
        answer = await http.post(f"{found[1]}/board/api/puzzle/move", json={"turn": wrong, "version": 0})
        assert answer.status == 200, await answer.text()
        assert (await answer.json())["puzzle"]["verdict"] == "wrong"
    ended = await edited(sandbox, opened, me.click(opened, SOLVE))
    text = description(ended)
    assert f"Not solved on the board page: {wrong} was played, and the winning turn was {puzzle.solution[0]}." in text
    assert re.search(r"Puzzle rating: 1500 → 1[0-4][0-9]{2} \(-[0-9]+\)", text), text
    assert "streak 0 (best 0)" in text and labels(ended) == ["Next puzzle", "Leaderboard"]
    assert public(sandbox) == 0


@pytest.mark.parametrize(
    ("settings", "address"),
    [
        ({"board_public_url": "https://board.example.org", "board_host": "0.0.0.0"}, "https://board.example.org"),
        ({"board_host": "0.0.0.0"}, None),  # listening everywhere, no public address: no link to give
        ({"board_host": "localhost"}, "http://localhost:"),
    ],
)
async def test_the_link_is_the_public_address_else_loopback_else_none(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    alice: Member,
    db_path: Path,
    clock: ManualClock,
    settings: dict[str, str],
    address: str | None,
) -> None:
    factory = make_factory(db_path, clock, board_port=0, board_secret=SECRET, **settings)
    started = await sandbox_runner.start(factory, sync=False)
    assert isinstance(started, VeletasBot)
    await kept(started, veloop_two())
    shown = await sandbox.user(alice).slash("veloop", "puzzle")
    if address is None:
        assert SOLVE not in labels(shown)
        return
    opened = await edited(sandbox, shown, sandbox.user(alice).click(shown, SOLVE))
    found = re.search(r"good for 12 hours: (\S+)/board/#puzzle=(\S+)", description(opened))
    assert found is not None and found[1].startswith(address), description(opened)
    session = verify_puzzle(SECRET, found[2], started.store.now())
    assert session is not None and session.user_id == alice.id


async def test_spanish_and_japanese_members_solve_on_the_board_without_a_word_of_english(
    sandbox: FakeDiscord, board_bot: VeletasBot, alice: Member, bob: Member
) -> None:
    alice.locale, bob.locale = "ja", "es-419"
    (puzzle,) = (await kept(board_bot, veloop_two())).values()
    for member, button, language in ((alice, "盤面で解く", "ja"), (bob, "Resolver en el tablero", "es")):
        user = sandbox.user(member)
        shown = await user.slash("veloop", "puzzle")
        opened = await edited(sandbox, shown, user.click(shown, button))
        assert in_language(description(opened), language), description(opened)
        found = LINK.search(description(opened))
        assert found is not None, description(opened)
        turn = puzzle.solution[0] if language == "ja" else wrong_first(puzzle)
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {found[2]}"}) as http:
            answer = await http.post(f"{found[1]}/board/api/puzzle/move", json={"turn": turn, "version": 0})
            view = (await answer.json())["puzzle"]
        # The page's words are the member's language, as the bot knows it from Discord.
        for text in (view["task"] or view["lines"][-1], view["lines"][0], view["standing"]):
            assert in_language(text, language), view
        assert not english_in([view["task"], *view["lines"], view["standing"], view["title"]]), view
        again = await edited(sandbox, opened, user.click(opened, button))
        assert in_language(description(again), language), description(again)
    assert assert_no_english(sandbox, [alice, bob], [sandbox.channel_id]) >= 2
