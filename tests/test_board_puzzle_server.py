"""A member's puzzle attempt on the board server: read and played through the store's puzzle path (the same judging,
rating and streak as the Discord puzzle's turns), under a puzzle session that nothing else accepts; every refusal
leaves the database as it was."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from dbtools import snapshot
from puzzle_positions import veloop_one, veloop_two, wrong_first
from store_fixtures import Clock, fresh_sqlite

from bot.board.context import BoardContext
from bot.board.server import MAX_BODY, board_app
from bot.board.sessions import mint, mint_puzzle
from bot.puzzles.play import replay
from bot.puzzles.values import Puzzle
from bot.rules.protocol import GameState
from bot.store import Store
from bot.store.puzzle_play import Attempt

GUILD, CHANNEL = 1000, 2000
ALICE, BOB = 11, 22
SECRET = b"board test secret"


class PuzzleBoard:
    def __init__(self, store: Store, client: TestClient[Any, Any], path: Path) -> None:
        self.store, self.client, self.path = store, client, path
        self.refuted: list[tuple[int, tuple[str, ...]]] = []
        self.refutation: str | None = None

    def token(self, user: int, attempt: int, secret: bytes = SECRET) -> str:
        return mint_puzzle(secret, user, attempt, self.store.now())

    async def request(self, method: str, path: str, token: str | None, body: Any = None, **kw: Any) -> Any:
        headers = dict(kw.pop("headers", {}))
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if body is not None:
            headers.setdefault("Content-Type", "application/json")
            kw["data"] = body if isinstance(body, (str, bytes)) else json.dumps(body)
        return await self.client.request(method, f"/board/api/{path}", headers=headers, **kw)

    async def refused(self, status: int, method: str, path: str, token: str | None, body: Any = None, **kw: Any) -> Any:
        """A request refused with ``status`` and a JSON error, the database exactly as before it."""
        before = snapshot(self.path)
        answer = await self.request(method, path, token, body, **kw)
        assert answer.status == status, await answer.text()
        assert answer.content_type == "application/json"
        found = await answer.json()
        assert isinstance(found["error"], str) and found["error"]
        assert snapshot(self.path) == before
        return found


@pytest.fixture
async def board(sqlite_path: Path, clock: Clock) -> AsyncIterator[PuzzleBoard]:
    await fresh_sqlite(sqlite_path)
    store = await Store.open(sqlite_path, clock=clock)

    async def play(game: int, user: int, text: str, version: int) -> None:
        await store.play(game, user, text, expected_version=version)

    holder: list[PuzzleBoard] = []

    async def refute(user: int, state: GameState) -> str | None:
        holder[0].refuted.append((user, state.turns))
        return holder[0].refutation

    context = BoardContext(store=store, secret=SECRET, play=play, refute=refute)
    client = TestClient(TestServer(board_app(context)))
    await client.start_server()
    holder.append(PuzzleBoard(store, client, sqlite_path))
    try:
        yield holder[0]
    finally:
        await client.close()
        await store.close()


async def attempt_at(store: Store, puzzle: Puzzle, user: int = ALICE) -> tuple[Attempt, Puzzle]:
    await store.add_puzzles([puzzle])
    (kept,) = [p for p in await store.puzzles_for(puzzle.game, GUILD) if p.before == puzzle.before]
    return await store.start_attempt(user, GUILD, CHANNEL, kept.id), kept


async def test_the_right_line_is_played_through_the_store_and_solves_rated(board: PuzzleBoard) -> None:
    attempt, puzzle = await attempt_at(board.store, veloop_two())
    token = board.token(ALICE, attempt.id)
    shown = await board.request("GET", "puzzle", token)
    assert shown.status == 200, await shown.text()
    view = (await shown.json())["puzzle"]
    assert view["task"] == "Black to move: confine a stone in 2 turns"
    assert (view["game"], view["id"], view["attempt"], view["version"]) == (
        "veloop",
        str(puzzle.id),
        str(attempt.id),
        0,
    )
    assert view["status"] == "open" and view["turn"] == str(ALICE) and view["colour"] == "black"
    assert view["standing"] == "Your puzzle rating: 1500? · streak 0 (best 0)"
    target, support = puzzle.solution[0].split("<")
    assert support in view["board"]["steps"]["moves"][target]

    right = await board.request("POST", "puzzle/move", token, {"turn": puzzle.solution[0], "version": 0})
    assert right.status == 200, await right.text()
    view = (await right.json())["puzzle"]
    assert view["verdict"] == "right" and view["version"] == 2 and view["status"] == "open"
    assert view["lines"] == [f"Right: {puzzle.solution[0]}. The reply: {puzzle.solution[1]}."]
    assert view["last_turn"] == puzzle.solution[1] and view["task"] == "Black to move: confine a stone in 1 turn"
    assert view["board"] == (await (await board.request("GET", "puzzle", token)).json())["puzzle"]["board"]
    stored = await board.store.get_attempt(attempt.id)
    assert stored is not None and stored.turns == puzzle.solution[:2] and stored.status == "open"

    solved = await board.request("POST", "puzzle/move", token, {"turn": puzzle.solution[2], "version": 2})
    assert solved.status == 200, await solved.text()
    view = (await solved.json())["puzzle"]
    assert view["verdict"] == "solved" and view["status"] == "solved" and view["turn"] is None
    assert view["lines"][0] == f"Solved with {puzzle.solution[2]}!"
    change = re.fullmatch(r"Puzzle rating: 1500 → ([0-9]+) \(\+[0-9]+\)", view["lines"][1])
    assert change is not None and int(change[1]) > 1500
    standing = await board.store.puzzle_standing(ALICE, "veloop")
    assert (standing.streak, standing.best_streak, round(standing.rating.value)) == (1, 1, int(change[1]))
    assert view["standing"] == f"Your puzzle rating: {standing.rating.shown} · streak 1 (best 1)"
    stored = await board.store.get_attempt(attempt.id)
    assert stored is not None and stored.status == "solved" and stored.turns == puzzle.solution
    assert board.refuted == []
    # Over: another turn is refused and changes nothing.
    body = await board.refused(409, "POST", "puzzle/move", token, {"turn": puzzle.solution[2], "version": 3})
    assert body["key"] == "puzzle.over"


async def test_a_wrong_turn_fails_rated_and_shows_the_refutation_marked(board: PuzzleBoard) -> None:
    attempt, puzzle = await attempt_at(board.store, veloop_two())
    token = board.token(ALICE, attempt.id)
    wrong = wrong_first(puzzle)
    after = replay(puzzle).play(wrong)
    board.refutation = str(next(iter(after.position.legal_moves())))  # type: ignore[attr-defined]
    refuted = after.play(board.refutation).turns[-1]
    answer = await board.request("POST", "puzzle/move", token, {"turn": wrong, "version": 0})
    assert answer.status == 200, await answer.text()
    view = (await answer.json())["puzzle"]
    assert view["verdict"] == "wrong" and view["status"] == "failed" and view["turn"] is None
    assert view["lines"][:2] == [
        f"Not this one: {wrong}. The winning turn was {puzzle.solution[0]}.",
        f"What refutes it: {refuted} (marked on the board).",
    ]
    assert re.fullmatch(r"Puzzle rating: 1500 → 1[0-4][0-9]{2} \(-[0-9]+\)", view["lines"][2]), view["lines"]
    assert view["last_turn"] == refuted and view["board"]["last"] == refuted.split("<")
    assert board.refuted == [(ALICE, (*puzzle.before, wrong))]
    standing = await board.store.puzzle_standing(ALICE, "veloop")
    assert standing.streak == 0 and standing.rating.value < 1500
    stored = await board.store.get_attempt(attempt.id)
    assert stored is not None and stored.status == "failed" and stored.turns == (wrong,)


async def test_a_wrong_turn_without_a_refutation_says_so_and_shows_the_position_after_it(board: PuzzleBoard) -> None:
    attempt, puzzle = await attempt_at(board.store, veloop_two())
    wrong = wrong_first(puzzle)
    answer = await board.request("POST", "puzzle/move", board.token(ALICE, attempt.id), {"turn": wrong, "version": 0})
    view = (await answer.json())["puzzle"]
    assert view["verdict"] == "wrong" and len(view["lines"]) == 2 and view["last_turn"] == wrong


async def test_a_refutation_that_fails_leaves_the_wrong_turn_shown_and_kept(board: PuzzleBoard) -> None:
    attempt, puzzle = await attempt_at(board.store, veloop_two())
    board.refutation = "not a turn at all"  # the AI's answer unplayable: the page still gets the verdict
    wrong = wrong_first(puzzle)
    answer = await board.request("POST", "puzzle/move", board.token(ALICE, attempt.id), {"turn": wrong, "version": 0})
    assert answer.status == 200, await answer.text()
    view = (await answer.json())["puzzle"]
    assert view["verdict"] == "wrong" and view["last_turn"] == wrong and len(view["lines"]) == 2
    stored = await board.store.get_attempt(attempt.id)
    assert stored is not None and stored.status == "failed"


async def test_sessions_that_are_not_this_members_puzzle_are_refused_and_change_nothing(board: PuzzleBoard) -> None:
    attempt, puzzle = await attempt_at(board.store, veloop_two())
    theirs, _ = await attempt_at(board.store, veloop_two(), user=BOB)
    move = {"turn": puzzle.solution[0], "version": 0}
    await board.refused(401, "POST", "puzzle/move", None, move)
    await board.refused(401, "GET", "puzzle", None)
    await board.refused(401, "POST", "puzzle/move", board.token(ALICE, attempt.id, b"another secret"), move)
    await board.refused(401, "POST", "puzzle/move", "Basic " + board.token(ALICE, attempt.id), move)
    expired = mint_puzzle(SECRET, ALICE, attempt.id, board.store.now() - 13 * 3600)
    await board.refused(401, "GET", "puzzle", expired)
    # Another member's id put into Alice's token breaks its signature.
    tampered = board.token(ALICE, attempt.id).replace(f"p{ALICE}.", f"p{BOB}.", 1)
    await board.refused(401, "POST", "puzzle/move", tampered, move)
    # A game's token with the same numbers is no puzzle session; a puzzle's is no game session.
    await board.refused(401, "POST", "puzzle/move", mint(SECRET, ALICE, attempt.id, board.store.now()), move)
    await board.refused(401, "GET", "puzzle", mint(SECRET, ALICE, attempt.id, board.store.now()))
    await board.refused(401, "GET", "state", board.token(ALICE, attempt.id))
    await board.refused(401, "POST", "move", board.token(ALICE, attempt.id), move)
    await board.refused(401, "POST", "premove", board.token(ALICE, attempt.id), {"turn": "a1<b2"})
    socket = await board.client.ws_connect("/board/api/live")
    await socket.send_json({"token": board.token(ALICE, attempt.id)})
    assert (await socket.receive_json(timeout=5))["type"] == "error"
    await socket.close()
    # A token the bot minted naming another member's attempt: neither read nor played.
    found = await board.refused(403, "GET", "puzzle", board.token(ALICE, theirs.id))
    assert found["key"] == "puzzle.not_yours" and str(theirs.id) not in json.dumps(found)
    await board.refused(403, "POST", "puzzle/move", board.token(ALICE, theirs.id), move)
    await board.refused(403, "GET", "puzzle", board.token(ALICE, theirs.id + 99))


async def test_illegal_out_of_date_and_ended_turns_are_refused_in_words(board: PuzzleBoard) -> None:
    attempt, puzzle = await attempt_at(board.store, veloop_two())
    token = board.token(ALICE, attempt.id)
    found = await board.refused(409, "POST", "puzzle/move", token, {"turn": "a1<a1", "version": 0})
    assert found["key"].startswith("rules.") and "a1" in found["error"]
    found = await board.refused(409, "POST", "puzzle/move", token, {"turn": puzzle.solution[0], "version": 2})
    assert found["key"] == "page.puzzle_moved_on"
    # Spanish when the page says so and the bot does not know the member's language.
    found = await board.refused(
        409,
        "POST",
        "puzzle/move",
        token,
        {"turn": puzzle.solution[0], "version": 1},
        headers={"X-Board-Language": "es"},
    )
    assert found["error"].startswith("Este problema")
    # Another puzzle started in Discord abandons this attempt: the page's turn is refused.
    await attempt_at(board.store, veloop_one())
    found = await board.refused(409, "POST", "puzzle/move", token, {"turn": puzzle.solution[0], "version": 0})
    assert found["key"] == "puzzle.over"


@pytest.mark.parametrize(
    ("body", "status", "headers"),
    [
        ("x" * (MAX_BODY + 10), 413, {}),
        ('{"turn": "b5<c3", "version": 0', 400, {}),
        ("[1, 2]", 400, {}),
        ('{"turn": 5, "version": 0}', 400, {}),
        ('{"turn": "b5<c3", "version": "0"}', 400, {}),
        ('{"turn": "b5<c3", "version": true}', 400, {}),
        ('{"turn": "b5<c3"}', 400, {}),
        (json.dumps({"turn": "c" * 65, "version": 0}), 400, {}),
        ('{"turn": "b5<c3", "version": 0}', 415, {"Content-Type": "text/plain"}),
        (b'{"turn": "\xff", "version": 0}', 400, {}),
    ],
)
async def test_malformed_and_oversized_bodies_are_refused_before_the_store(
    board: PuzzleBoard, body: Any, status: int, headers: dict[str, str]
) -> None:
    attempt, _ = await attempt_at(board.store, veloop_two())
    await board.refused(status, "POST", "puzzle/move", board.token(ALICE, attempt.id), body, headers=headers)
