"""The board server: the page at ``/board/`` and its API under ``/board/api/``, on the bot's own aiohttp server.

Every API request carries the member's session token (``bot.board.sessions``): ``Authorization: Bearer
<token>`` on HTTP, and the first message of the live WebSocket (``{"token": ...}``). The token is checked on
every request, and names the only game the request can read or act on; only a player of that game may move
(a spectator watches). The server is reachable from the internet when deployed, so a body over
``MAX_BODY`` bytes, malformed JSON or a field of the wrong type is refused with a 4xx and ``{"error": ...}``
before anything is read from the store, and nothing from the page is trusted but the turn text, which goes
through the store's own checks like a slash command's.

Routes: ``state`` (GET: the game as the page draws it), ``move`` (POST ``{"turn", "version"}``: one turn,
through the same path as ``/veletas move``), ``premove`` (POST ``{"turn"}`` to queue one turn for when the
opponent has moved, in a live game; DELETE to take it back), ``live`` (the WebSocket), ``words`` (GET
``?language=``: the page's words from the catalogues; no session needed). ``token``, ``session`` and
``config`` are the Activity's (``bot.board.activity``).

A member's puzzle attempt has routes of its own, under a puzzle session (``bot.board.sessions.mint_puzzle``: one
member, one of their attempts); a game's token is refused there, and a puzzle's on every game route. ``puzzle`` (GET)
is the attempt as the page draws it: the position with its click steps, the task line, the member's puzzle rating and
streak. ``puzzle/move`` (POST ``{"turn", "version"}``, the version being the turns played in the attempt) plays one
turn through the store's ``play_puzzle_turn``, the path of the Discord puzzle's turns: the same judging, rating and
streak in one transaction. A right turn comes back with the defender's reply played, the last one with the rating
change, a wrong one with the solution's turn and, when the AI finds one (``BoardContext.refute``), the refutation
played and marked. Nothing is posted anywhere: the page is the member's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from bot.board import activity
from bot.board.context import BoardContext
from bot.board.sessions import PuzzleSession, Session, verify, verify_puzzle
from bot.errors import InvalidMove, NoGameHere, RaceLost, UserError
from bot.i18n import DEFAULT, LANGUAGES, Words, language_of, words
from bot.puzzles.play import replay, solver
from bot.puzzles.values import Puzzle
from bot.ratings import Change, PoolKey, Rating
from bot.render.theme import THEMES
from bot.rules.protocol import SEATS, GameState, IllegalMove
from bot.rules.registry import describe, load
from bot.store.puzzle_play import Attempt, PuzzleTurn, Standing
from bot.store.values import GameInfo

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
# What the page loads: its script, its style, and its way in from Discord (connect.js and the SDK it imports).
STATIC_FILES = {
    "app.js": "text/javascript",
    "app.css": "text/css",
    "connect.js": "text/javascript",
    "vendor/discord-embedded-app-sdk.js": "text/javascript",
}
MAX_BODY = 4096
MAX_TURN = 64
HELLO_SECONDS = 10.0
PAGE_THEME = "dark"  # Discord's own look; a member who chose a theme for their boards gets theirs
PAGE_AREA = "page."
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "frame-ancestors https://discord.com https://*.discord.com https://*.discordsays.com 'self' "
    "http://127.0.0.1:* http://localhost:*",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
CONTEXT: web.AppKey[BoardContext] = web.AppKey("board_context", BoardContext)


def refusal(status: type[web.HTTPError], message: str, **more: Any) -> web.HTTPError:
    """An HTTP error whose body is the page's JSON error, ``{"error": message}``."""
    return status(text=json.dumps({"error": message, **more}), content_type="application/json")


def too_large(size: int) -> web.HTTPError:
    message = json.dumps({"error": f"the body is over {MAX_BODY} bytes"})
    return web.HTTPRequestEntityTooLarge(MAX_BODY, size, text=message, content_type="application/json")


@web.middleware
async def guarded(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Oversized and non-JSON bodies are refused before any handler reads them; every answer gets the headers."""
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        length = request.content_length
        if length is not None and length > MAX_BODY:
            raise too_large(length)
        if request.method != "DELETE" and request.content_type != "application/json":
            raise refusal(web.HTTPUnsupportedMediaType, "send JSON (Content-Type: application/json)")
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        # aiohttp's own refusals (an unknown path, a wrong method) get the same JSON body as ours.
        body = exc.text if exc.content_type == "application/json" else json.dumps({"error": exc.reason})
        answer = web.Response(status=exc.status, text=body, content_type="application/json")
        answer.headers.update(SECURITY_HEADERS)
        if "Allow" in exc.headers:
            answer.headers["Allow"] = exc.headers["Allow"]
        return answer
    if not isinstance(response, web.WebSocketResponse):
        response.headers.update(SECURITY_HEADERS)
    return response


async def json_body(request: web.Request) -> dict[str, Any]:
    """The request's JSON object (at most ``MAX_BODY`` bytes), or a 4xx saying what is wrong with it."""
    raw = await request.content.read(MAX_BODY + 1)
    if len(raw) > MAX_BODY:
        raise too_large(len(raw))
    try:
        body = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise refusal(web.HTTPBadRequest, "the body is not valid JSON") from None
    if not isinstance(body, dict):
        raise refusal(web.HTTPBadRequest, "the body must be a JSON object")
    return body


def turn_field(body: dict[str, Any]) -> str:
    turn = body.get("turn")
    if not isinstance(turn, str) or not turn.strip() or len(turn) > MAX_TURN:
        raise refusal(web.HTTPBadRequest, f"turn must be a turn's text of 1 to {MAX_TURN} characters")
    return turn


def version_field(body: dict[str, Any]) -> int:
    version = body.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise refusal(web.HTTPBadRequest, "version must be the game's version the page shows (a whole number)")
    return version


def page_words(language: str) -> dict[str, str]:
    """The page's words in ``language`` (the catalogues' ``page`` area)."""
    w = words(language)
    return {key: w.template(key) for key in sorted(w.keys()) if key.startswith(PAGE_AREA)}


class Board:
    """The handlers, bound to one ``BoardContext``."""

    def __init__(self, context: BoardContext) -> None:
        self.context = context
        context.hub.state_of = self.state_of
        context.hub.after_change = self.play_premove
        self.premove_words: dict[tuple[int, int], str] = {}  # (game, member): the language of the page that queued

    # -- who asks -----------------------------------------------------------------------------------

    def session(self, token: object) -> Session:
        found = verify(self.context.secret, token, self.context.store.now()) if isinstance(token, str) else None
        if found is None:
            raise refusal(web.HTTPUnauthorized, "no valid session: open the board from Discord again")
        return found

    def bearer(self, request: web.Request) -> Session:
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise refusal(web.HTTPUnauthorized, "no session: send Authorization: Bearer <session token>")
        return self.session(token.strip())

    def same_game(self, session: Session, named: object) -> None:
        """A request that names a game (``?game=`` or ``"game"``) must name the session's own."""
        if named is not None and str(named) != str(session.game_id):
            raise refusal(web.HTTPForbidden, "this session is for another game")

    async def game(self, session: Session) -> GameInfo:
        try:
            info = await self.context.store.get_game(session.game_id)
        except NoGameHere:
            raise refusal(web.HTTPNotFound, "no such game") from None
        if info.status not in ("active", "finished") or not describe(info.kind.name).page:
            raise refusal(web.HTTPNotFound, "this game has no board to show")
        return info

    def words_for(self, user_id: int, request: web.Request | None = None) -> Words:
        """The member's language as the bot knows it, else the page's (``X-Board-Language``), else English."""
        known = self.context.language_of(user_id)
        if known is None and request is not None:
            known = language_of(request.headers.get("X-Board-Language", "")[:35])
        return words(known or DEFAULT)

    # -- what the page draws ------------------------------------------------------------------------

    async def state_of(self, game_id: int) -> dict[str, Any] | None:
        try:
            info = await self.context.store.get_game(game_id)
        except NoGameHere:
            return None
        return await self.game_state(info)

    async def game_state(self, info: GameInfo) -> dict[str, Any]:
        """The game as every page shows it (what differs by viewer, ``you``, is added per request)."""
        state = info.state
        draw = load(describe(info.kind.name).page)
        now = self.context.store.now()
        fischer = info.clock if info.time_control.family == "fischer" else None
        players = []
        for seat in SEATS:
            user = info.user_for_seat(seat)
            players.append(
                {
                    "id": str(user) if user is not None else None,
                    "name": self.context.name_of(user) if user is not None else "",
                    "seat": seat,
                    "colour": info.colour_of_seat(seat),
                    "left": fischer.left(seat, now) if fischer is not None else None,
                }
            )
        result: dict[str, Any] | None = None
        if info.status == "finished":
            outcome = info.outcome
            changes = [c for c in await self.context.store.rating_changes(info.id) if c.scope == info.guild_id]
            result = {
                "winner": str(info.winner_id) if info.winner_id is not None else None,
                "draw": bool(outcome is not None and outcome.is_draw),
                "termination": outcome.termination if outcome is not None else None,
                "ratings": {str(c.user_id): c.text for c in changes},
            }
        to_act = info.user_to_act if info.status == "active" else None
        return {
            "game": info.kind.name,
            "id": str(info.id),
            "version": info.version,
            "status": info.status,
            "phase": state.phase,
            "ply": info.ply,
            "turn": str(to_act) if to_act is not None else None,
            "colour": state.colour_to_act,
            "seat": state.seat_to_act,
            "players": players,
            "scores": list(state.scores),
            "live": info.time_control.is_live,
            "clock": {
                "running": info.clock.running if info.clock is not None else None,
                "now": now,
            },
            "last_turn": state.turns[-1] if state.turns else None,
            "updated": info.updated_at.timestamp(),  # when the latest change was stored (the store's clock)
            "result": result,
            "board": draw(state),
        }

    async def viewer_state(self, session: Session, info: GameInfo) -> dict[str, Any]:
        state = await self.game_state(info)
        return {"state": state, "you": await self.you(session, info)}

    async def you(self, session: Session, info: GameInfo) -> dict[str, Any]:
        player = session.user_id in info.participants
        theme = await self.context.store.get_theme(session.user_id) if player else None
        chosen = THEMES.get(theme or PAGE_THEME, THEMES[PAGE_THEME])
        return {
            "id": str(session.user_id),
            "player": player,
            "seat": info.seat_of_user(session.user_id) if player else None,
            "language": self.context.language_of(session.user_id),
            "theme": {name: list(value) for name, value in vars(chosen).items() if isinstance(value, tuple)},
            "premove": self.context.hub.premoves.get(info.id, {}).get(session.user_id),
        }

    # -- routes ---------------------------------------------------------------------------------------

    async def index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Content-Type": "text/html; charset=utf-8"})

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        kind = STATIC_FILES.get(name)
        if kind is None:
            raise refusal(web.HTTPNotFound, "no such file")
        return web.FileResponse(STATIC / name, headers={"Content-Type": f"{kind}; charset=utf-8"})

    async def words(self, request: web.Request) -> web.StreamResponse:
        asked = request.query.get("language", "")[:35]
        language = language_of(asked)
        return web.json_response({"language": language, "languages": list(LANGUAGES), "words": page_words(language)})

    async def state(self, request: web.Request) -> web.StreamResponse:
        session = self.bearer(request)
        self.same_game(session, request.query.get("game"))
        info = await self.game(session)
        return web.json_response(await self.viewer_state(session, info))

    async def move(self, request: web.Request) -> web.StreamResponse:
        session = self.bearer(request)
        body = await json_body(request)
        turn, version = turn_field(body), version_field(body)
        self.same_game(session, body.get("game"))
        info = await self.game(session)
        self.check_player(session, info, request)
        try:
            await self.context.play(info.id, session.user_id, turn.strip(), version)
        except UserError as refused:
            w = self.words_for(session.user_id, request)
            raise refusal(web.HTTPConflict, refused.worded(w), key=refused.key) from None
        return web.json_response(await self.viewer_state(session, await self.game(session)))

    def check_player(self, session: Session, info: GameInfo, request: web.Request) -> None:
        if session.user_id not in info.participants:
            w = self.words_for(session.user_id, request)
            raise refusal(web.HTTPForbidden, w("page.spectator"), key="page.spectator")

    async def premove(self, request: web.Request) -> web.StreamResponse:
        session = self.bearer(request)
        premoves = self.context.hub.premoves
        if request.method == "DELETE":
            info = await self.game(session)
            premoves[info.id].pop(session.user_id, None)
            self.premove_words.pop((info.id, session.user_id), None)
            return web.json_response(await self.viewer_state(session, info))
        body = await json_body(request)
        turn = turn_field(body)
        self.same_game(session, body.get("game"))
        info = await self.game(session)
        self.check_player(session, info, request)
        w = self.words_for(session.user_id, request)
        if info.status != "active" or not info.time_control.is_live:
            raise refusal(web.HTTPConflict, w("page.premove_live_only"), key="page.premove_live_only")
        if info.user_to_act == session.user_id:
            raise refusal(web.HTTPConflict, w("page.premove_your_turn"), key="page.premove_your_turn")
        premoves[info.id][session.user_id] = turn.strip()
        self.premove_words[(info.id, session.user_id)] = w.language  # the cancellation is worded in it later
        return web.json_response(await self.viewer_state(session, info))

    async def play_premove(self, game_id: int, state: dict[str, Any]) -> None:
        """After a change: the queued turn of the player now to act is played at once, or cancelled."""
        queued = self.context.hub.premoves.get(game_id)
        if not queued:
            self.context.hub.premoves.pop(game_id, None)
            return
        if state["status"] != "active":
            for user in list(queued):
                del queued[user]
                self.premove_words.pop((game_id, user), None)
                self.context.hub.tell(game_id, user, {"type": "premove", "turn": None, "cancelled": True})
            return
        user_text = state["turn"]
        if user_text is None or int(user_text) not in queued:
            return
        user = int(user_text)
        turn = queued.pop(user)
        try:
            await self.context.play(game_id, user, turn, int(state["version"]))
        except UserError as refused:
            message = refused.worded(words(self.premove_words.pop((game_id, user), DEFAULT)))
            self.context.hub.tell(game_id, user, {"type": "premove", "turn": turn, "cancelled": True, "error": message})
        else:
            self.premove_words.pop((game_id, user), None)
            self.context.hub.tell(game_id, user, {"type": "premove", "turn": turn, "played": True})

    async def live(self, request: web.Request) -> web.StreamResponse:
        """The WebSocket: the first message is ``{"token": ...}``; then the game's state at once and after each
        change, and ``{"type": "premove", ...}`` when the member's queued turn was cancelled."""
        socket = web.WebSocketResponse(heartbeat=30, max_msg_size=MAX_BODY)
        await socket.prepare(request)
        try:
            hello = await socket.receive(timeout=HELLO_SECONDS)
        except TimeoutError:
            await socket.close(code=4001, message=b"no session")
            return socket
        session: Session | None = None
        if hello.type == WSMsgType.TEXT:
            try:
                token = json.loads(hello.data).get("token")
            except (ValueError, AttributeError):
                token = None
            session = verify(self.context.secret, token, self.context.store.now()) if isinstance(token, str) else None
        if session is None:
            await socket.send_json({"type": "error", "error": "no valid session: open the board from Discord again"})
            await socket.close(code=4001, message=b"no session")
            return socket
        try:
            info = await self.game(session)
        except web.HTTPError:
            await socket.send_json({"type": "error", "error": "this game has no board to show"})
            await socket.close(code=4004, message=b"no game")
            return socket
        hub = self.context.hub
        watcher = hub.watch(info.id, session.user_id)
        watcher.offer(await self.game_state(info))
        await socket.send_json({"type": "you", "you": await self.you(session, info)})

        async def drain() -> None:
            async for message in socket:
                if message.type in (WSMsgType.CLOSE, WSMsgType.ERROR):
                    break

        reader = asyncio.create_task(drain())
        try:
            while not socket.closed and not reader.done():
                waiting = asyncio.create_task(watcher.next())
                await asyncio.wait({waiting, reader}, return_when=asyncio.FIRST_COMPLETED)
                if reader.done():
                    waiting.cancel()
                    break
                for message in waiting.result():
                    await socket.send_json(message)
        except (ConnectionError, RuntimeError):
            pass
        finally:
            hub.leave(watcher)
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
        return socket


# -- a member's puzzle attempt (``/board/api/puzzle``) ---------------------------------------------------

NOT_YOURS = "puzzle.not_yours"
MOVED_ON = "page.puzzle_moved_on"


def task_line(w: Words, puzzle: Puzzle, played: int) -> str:
    """``Black to move: claim a region in 2``, counting the solver's turns still due after ``played`` turns."""
    left = (len(puzzle.solution) - played + 1) // 2
    return w(f"puzzle.task.{puzzle.goal}", colour=w(f"result.{solver(puzzle)}"), count=left)


def standing_line(w: Words, standing: Standing) -> str:
    return w("puzzle.standing", rating=standing.rating.shown, streak=standing.streak, best=standing.best_streak)


def rating_change(before: Rating, after: Rating) -> str:
    return Change(PoolKey(0, "", ""), 0, before, after).text


class PuzzleBoard:
    """The puzzle routes, bound to the board's handlers (their context, refusals and languages)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.context = board.context

    def session(self, request: web.Request) -> PuzzleSession:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        found = None
        if scheme.lower() == "bearer" and token:
            found = verify_puzzle(self.context.secret, token.strip(), self.context.store.now())
        if found is None:
            raise refusal(web.HTTPUnauthorized, "no valid puzzle session: open the puzzle from Discord again")
        return found

    async def attempt(self, session: PuzzleSession, request: web.Request) -> tuple[Attempt, Puzzle]:
        store = self.context.store
        attempt = await store.get_attempt(session.attempt_id)
        if attempt is None or attempt.user_id != session.user_id:
            w = self.board.words_for(session.user_id, request)
            raise refusal(web.HTTPForbidden, w(NOT_YOURS), key=NOT_YOURS)
        puzzle = await store.get_puzzle(attempt.puzzle_id)
        if puzzle is None:
            raise refusal(web.HTTPNotFound, "no such puzzle")
        return attempt, puzzle

    async def view(
        self,
        session: PuzzleSession,
        attempt: Attempt,
        puzzle: Puzzle,
        w: Words,
        *,
        state: GameState | None = None,
        lines: list[str] | None = None,
        verdict: str | None = None,
    ) -> dict[str, Any]:
        """The attempt as the page draws it: ``state`` (default: as stored) and what the last turn did (``lines``)."""
        shown = state if state is not None else replay(puzzle, attempt.turns)
        draw = load(describe(puzzle.game).page)
        colour = solver(puzzle)
        open_ = attempt.status == "open"
        standing = await self.context.store.puzzle_standing(session.user_id, puzzle.game)
        theme = await self.context.store.get_theme(session.user_id)
        chosen = THEMES.get(theme or PAGE_THEME, THEMES[PAGE_THEME])
        return {
            "puzzle": {
                "kind": "puzzle",
                "game": puzzle.game,
                "id": str(puzzle.id),
                "attempt": str(attempt.id),
                "version": len(attempt.turns),
                "status": attempt.status,
                "phase": shown.phase,
                "colour": colour,
                "turn": str(session.user_id) if open_ else None,
                "task": task_line(w, puzzle, len(attempt.turns)) if open_ else "",
                "title": w("puzzle.title", game=describe(puzzle.game).kind.title, id=puzzle.id),
                "standing": standing_line(w, standing),
                "verdict": verdict,
                "lines": lines or [],
                "last_turn": shown.turns[-1] if shown.turns else None,
                "board": draw(shown),
            },
            "you": {
                "id": str(session.user_id),
                "language": self.context.language_of(session.user_id),
                "theme": {name: list(value) for name, value in vars(chosen).items() if isinstance(value, tuple)},
            },
        }

    # -- routes ---------------------------------------------------------------------------------------

    async def state(self, request: web.Request) -> web.StreamResponse:
        session = self.session(request)
        attempt, puzzle = await self.attempt(session, request)
        w = self.board.words_for(session.user_id, request)
        return web.json_response(await self.view(session, attempt, puzzle, w))

    async def move(self, request: web.Request) -> web.StreamResponse:
        session = self.session(request)
        body = await json_body(request)
        turn, version = turn_field(body), version_field(body)
        attempt, puzzle = await self.attempt(session, request)
        w = self.board.words_for(session.user_id, request)
        try:
            try:
                played = await self.context.store.play_puzzle_turn(
                    attempt.id, session.user_id, turn.strip(), expected_turns=version
                )
            except IllegalMove as exc:
                raise InvalidMove(exc.key, **exc.data) from exc
            except RaceLost:  # the page showed fewer (or more) turns than the attempt has now
                raise UserError(MOVED_ON) from None
        except UserError as refused:
            raise refusal(web.HTTPConflict, refused.worded(w), key=refused.key) from None
        state, lines = await self.outcome(session, puzzle, played, w)
        return web.json_response(
            await self.view(session, played.attempt, puzzle, w, state=state, lines=lines, verdict=played.step.verdict)
        )

    async def outcome(
        self, session: PuzzleSession, puzzle: Puzzle, played: PuzzleTurn, w: Words
    ) -> tuple[GameState, list[str]]:
        """What the turn did, in words, and the position to show (a wrong turn's refutation played on it)."""
        step = played.step
        state = replay(puzzle, played.attempt.turns)
        lines: list[str] = []
        if step.verdict == "right":
            lines.append(w("puzzle.right", turn=step.turn, reply=step.reply))
        elif step.verdict == "solved":
            lines.append(w("puzzle.solved", turn=step.turn))
        else:
            lines.append(w("puzzle.wrong", turn=step.turn, expected=step.expected))
            try:
                answer = await self.context.refute(session.user_id, state)
                refuted = None if answer is None else state.play(answer)
            except Exception:  # the turn is kept: it is shown without a refutation, as in Discord
                log.warning("No refutation for a puzzle's wrong turn on the board page", exc_info=True)
                refuted = None
            if refuted is not None:
                state = refuted
                lines.append(w("puzzle.refutation", turn=state.turns[-1]))
        if played.before is not None:
            lines.append(w("puzzle.rating_change", change=rating_change(played.before, played.standing.rating)))
        elif step.verdict != "right":
            lines.append(w("puzzle.unrated"))
        return state, lines


def board_app(context: BoardContext) -> web.Application:
    """The board server's application: the page, its API, then the Activity's routes."""
    app = web.Application(middlewares=[guarded], client_max_size=MAX_BODY)
    app[CONTEXT] = context
    board = Board(context)
    context.store.game_listeners.append(context.hub.changed)

    async def forget(_app: web.Application) -> None:
        with contextlib.suppress(ValueError):
            context.store.game_listeners.remove(context.hub.changed)
        await context.hub.close()

    app.on_cleanup.append(forget)
    app.router.add_get("/board/", board.index)
    app.router.add_get("/board/api/words", board.words)
    app.router.add_get("/board/api/state", board.state)
    app.router.add_post("/board/api/move", board.move)
    app.router.add_post("/board/api/premove", board.premove)
    app.router.add_delete("/board/api/premove", board.premove)
    app.router.add_get("/board/api/live", board.live)
    puzzles = PuzzleBoard(board)
    app.router.add_get("/board/api/puzzle", puzzles.state)
    app.router.add_post("/board/api/puzzle/move", puzzles.move)
    app.router.add_get("/board/{name:(?:vendor/)?[^/]+}", board.static)
    activity.add_routes(app, context)
    return app


async def start(context: BoardContext, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serve the board on ``host:port`` (port 0: any free one); the runner (to clean up) and the port."""
    runner = web.AppRunner(board_app(context), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()  # the store forgets the hub again
        raise
    server = site._server
    sockets = getattr(server, "sockets", None) or []
    bound = sockets[0].getsockname()[1] if sockets else port
    return runner, int(bound)
