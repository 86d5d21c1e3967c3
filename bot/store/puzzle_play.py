"""Members playing puzzles, as kept: their attempts, their puzzle ratings and streaks, and each server's daily puzzle.

Puzzle ratings are a Glicko-2 pool of their own (per member and game, the same in every server), never the games'
ratings. As on Lichess the puzzle is the member's opponent: a solved puzzle is a win, a wrong turn a loss, and both
ratings move in the one transaction that ends the attempt (``bot.ratings.rate_game``). Only a member's first attempt
at a puzzle is rated (one left for another puzzle before its first turn does not count as one); a replay is played
the same way and counts for nothing. A streak is the rated puzzles solved
in a row: a rated failure sets it back to 0, and the best one is kept.

A member has at most one open attempt per game (an index says so); starting another puzzle of that game abandons the
open one, unrated. A server's daily puzzle is chosen once per game and UTC date, in a transaction, from what that
server may see (``bot.puzzles.play.daily_index``), and kept: everyone gets the same one all day.

Fair play: a puzzle is offered only while its source game is finished (an undo or an organiser's decision can make a
game active again), and never another server's (``puzzles_for``'s rule, written here in SQL).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, replace
from typing import Final, Literal

from bot.db import Connection, Row
from bot.errors import RaceLost, UserError
from bot.puzzles.play import Step, daily_index, judge
from bot.puzzles.values import Puzzle
from bot.ratings import Rating, rate_game
from bot.rules.registry import find_game
from bot.store.base import StoreBase
from bot.store.puzzles import PUZZLE_COLUMNS, puzzle_from_row
from bot.store.rows import from_ts
from bot.store.values import GameInfo

Status = Literal["open", "solved", "failed", "abandoned"]

LEADERBOARD_MINIMUM: Final = 5
"""Rated attempts a member needs before the server's puzzle leaderboard lists them."""

ATTEMPT_COLUMNS = (
    "id, puzzle_id, user_id, guild_id, channel_id, game, status, rated, turns, started_at, finished_at, "
    "rating_before, rating_after"
)

# A puzzle a server may be shown: its own or self-play's, from a game that is over (or from no game).
SHOWABLE = (
    "(guild_id IS NULL OR guild_id = ?) AND (source_game_id IS NULL OR EXISTS "
    "(SELECT 1 FROM games g WHERE g.id = puzzles.source_game_id AND g.status = 'finished'))"
)
VISIBLE = "game = ? AND " + SHOWABLE

NOT_YOURS: Final = "puzzle.not_yours"
OVER: Final = "puzzle.over"
UNAVAILABLE: Final = "puzzle.unavailable"


@dataclass(frozen=True, slots=True)
class Attempt:
    """One member's go at one puzzle: where it was started, how it stands, and the turns played (both sides')."""

    id: int
    puzzle_id: int
    user_id: int
    guild_id: int
    channel_id: int
    game: str
    status: Status
    rated: bool
    turns: tuple[str, ...]
    started_at: float
    finished_at: float | None = None
    rating_before: float | None = None
    rating_after: float | None = None


@dataclass(frozen=True, slots=True)
class Standing:
    """A member's puzzle rating in one game, their current streak and their best."""

    rating: Rating
    streak: int = 0
    best_streak: int = 0


@dataclass(frozen=True, slots=True)
class PuzzleTurn:
    """What a member's turn did: the step (right, solved, wrong), the attempt after it, and their standing after it
    (``before``: their rating before, when the attempt ended rated)."""

    step: Step
    attempt: Attempt
    standing: Standing
    before: Rating | None = None


@dataclass(frozen=True)
class PuzzleView(GameInfo):
    """A member's open attempt as the guided move reads a game: the puzzle's position now (``id`` is the puzzle's,
    ``version`` the turns played in the attempt), in play, with the member in both seats, so the steps built for games
    (their menus, images and checks) serve a puzzle unchanged. Never stored, never a game."""

    attempt_id: int = 0


def attempt_from_row(row: Row) -> Attempt:
    return Attempt(
        id=int(row[0]),
        puzzle_id=int(row[1]),
        user_id=int(row[2]),
        guild_id=int(row[3]),
        channel_id=int(row[4]),
        game=str(row[5]),
        status=str(row[6]),  # type: ignore[arg-type]
        rated=bool(row[7]),
        turns=tuple(json.loads(row[8])),
        started_at=float(row[9]),
        finished_at=None if row[10] is None else float(row[10]),
        rating_before=None if row[11] is None else float(row[11]),
        rating_after=None if row[12] is None else float(row[12]),
    )


def _standing(rows: list[Row]) -> Standing:
    if not rows:
        return Standing(Rating())
    r = rows[0]
    rating = Rating(float(r[0]), float(r[1]), float(r[2]), int(r[3]), None if r[4] is None else float(r[4]))
    return Standing(rating, int(r[5]), int(r[6]))


STANDING_SQL = (
    "SELECT value, deviation, volatility, games, last_played, streak, best_streak FROM puzzle_ratings "
    "WHERE user_id = ? AND game = ?"
)


class PuzzlePlay(StoreBase):
    """Starting, playing and rating members' puzzle attempts; daily and next puzzles; the puzzle leaderboard."""

    async def puzzle_standing(self, user_id: int, game: str) -> Standing:
        """A member's puzzle rating and streaks in ``game`` (the starting rating before their first rated attempt)."""
        return _standing(await self._fetchall(STANDING_SQL, (user_id, game)))

    async def get_attempt(self, attempt_id: int) -> Attempt | None:
        rows = await self._fetchall(f"SELECT {ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE id = ?", (attempt_id,))
        return attempt_from_row(rows[0]) if rows else None

    async def open_attempt(self, user_id: int, game: str) -> Attempt | None:
        """The member's open attempt of ``game``, if any."""
        rows = await self._fetchall(
            f"SELECT {ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE user_id = ? AND game = ? AND status = 'open'",
            (user_id, game),
        )
        return attempt_from_row(rows[0]) if rows else None

    async def daily_puzzle(self, guild_id: int, game: str, day: dt.date) -> Puzzle | None:
        """The server's puzzle of ``game`` on ``day`` (a UTC date): chosen at the first ask, the same for everyone
        after it (unless its source game is in play again: then another is chosen). A puzzle not shown as this server's
        daily before is preferred. None when there is none to show."""
        async with self._transaction() as db:
            chosen = await self._daily(db, guild_id, game, day)
            if chosen is not None:
                return chosen
            # A day's puzzle whose source game is in play again (an undo, an organiser's decision) is chosen anew.
            await db.execute(
                "DELETE FROM puzzle_daily WHERE guild_id = ? AND game = ? AND day = ?",
                (guild_id, game, day.isoformat()),
            )
            rows = list(
                await db.execute_fetchall(
                    f"SELECT id FROM puzzles WHERE {VISIBLE} AND id NOT IN "
                    "(SELECT puzzle_id FROM puzzle_daily WHERE guild_id = ? AND game = ?) ORDER BY id",
                    (game, guild_id, guild_id, game),
                )
            )
            if not rows:
                rows = list(
                    await db.execute_fetchall(f"SELECT id FROM puzzles WHERE {VISIBLE} ORDER BY id", (game, guild_id))
                )
            if not rows:
                return None
            picked = int(rows[daily_index(guild_id, game, day, len(rows))][0])
            await db.execute(
                "INSERT INTO puzzle_daily (guild_id, game, day, puzzle_id) VALUES (?, ?, ?, ?)",
                (guild_id, game, day.isoformat(), picked),
            )
            return await self._daily(db, guild_id, game, day)

    async def _daily(self, db: Connection, guild_id: int, game: str, day: dt.date) -> Puzzle | None:
        rows = list(
            await db.execute_fetchall(
                f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = "
                f"(SELECT puzzle_id FROM puzzle_daily WHERE guild_id = ? AND game = ? AND day = ?) AND {SHOWABLE}",
                (guild_id, game, day.isoformat(), guild_id),
            )
        )
        return puzzle_from_row(rows[0]) if rows else None

    async def next_puzzle(self, user_id: int, guild_id: int, game: str) -> Puzzle | None:
        """A puzzle of ``game`` this server may show that the member never tried, the nearest to their puzzle rating
        (the lower id of two as near); None when they tried them all."""
        standing = await self.puzzle_standing(user_id, game)
        rows = await self._fetchall(
            f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE {VISIBLE} AND NOT EXISTS "
            "(SELECT 1 FROM puzzle_attempts a WHERE a.puzzle_id = puzzles.id AND a.user_id = ?) "
            "ORDER BY ABS(rating - ?), id LIMIT 1",
            (game, guild_id, user_id, standing.rating.value),
        )
        return puzzle_from_row(rows[0]) if rows else None

    async def start_attempt(self, user_id: int, guild_id: int, channel_id: int, puzzle_id: int) -> Attempt:
        """The member's attempt at the puzzle: their open one if it is this puzzle, else a new one (abandoning their
        other open attempt of the game), rated unless they finished an attempt at this puzzle before or played a turn
        in one (an attempt left before its first turn leaves the puzzle unseen but for its position).

        Refused (``puzzle.unavailable``) for a puzzle this server may not show now: another server's, or one whose
        source game is not finished."""
        async with self._transaction() as db:
            rows = list(
                await db.execute_fetchall(
                    f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = ? AND {SHOWABLE}", (puzzle_id, guild_id)
                )
            )
            if not rows:
                raise UserError(UNAVAILABLE)
            puzzle = puzzle_from_row(rows[0])
            open_rows = list(
                await db.execute_fetchall(
                    f"SELECT {ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE user_id = ? AND game = ? AND status = 'open'",
                    (user_id, puzzle.game),
                )
            )
            if open_rows:
                current = attempt_from_row(open_rows[0])
                if current.puzzle_id == puzzle_id:
                    return current
                await db.execute(
                    "UPDATE puzzle_attempts SET status = 'abandoned', finished_at = ? WHERE id = ?",
                    (self._now(), current.id),
                )
            done = list(
                await db.execute_fetchall(
                    "SELECT 1 FROM puzzle_attempts WHERE user_id = ? AND puzzle_id = ? "
                    "AND (status IN ('solved', 'failed') OR turns <> '[]')",
                    (user_id, puzzle_id),
                )
            )
            created = list(
                await db.execute_fetchall(
                    "INSERT INTO puzzle_attempts (puzzle_id, user_id, guild_id, channel_id, game, status, rated, "
                    "turns, started_at) VALUES (?, ?, ?, ?, ?, 'open', ?, '[]', ?) RETURNING id",
                    (puzzle_id, user_id, guild_id, channel_id, puzzle.game, 0 if done else 1, self._now()),
                )
            )
            found = list(
                await db.execute_fetchall(
                    f"SELECT {ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE id = ?", (int(created[0][0]),)
                )
            )
            return attempt_from_row(found[0])

    async def puzzle_view(self, user_id: int, puzzle_id: int) -> PuzzleView:
        """The member's open attempt at ``puzzle_id`` as a game's snapshot (``PuzzleView``) for the guided move;
        refused (``puzzle.over``) when they have none open at that puzzle."""
        rows = await self._fetchall(
            f"SELECT {ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE user_id = ? AND puzzle_id = ? AND status = 'open'",
            (user_id, puzzle_id),
        )
        found = await self._fetchall(f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = ?", (puzzle_id,)) if rows else []
        if not found:
            raise UserError(OVER)
        puzzle = puzzle_from_row(found[0])
        attempt = attempt_from_row(rows[0])
        started = from_ts(attempt.started_at)
        return PuzzleView(
            id=puzzle.id,
            guild_id=attempt.guild_id,
            channel_id=attempt.channel_id,
            origin_channel_id=attempt.channel_id,
            status="active",
            kind=find_game(puzzle.game),
            settings=puzzle.settings,
            where="here",
            challenger_id=user_id,
            opponent_id=user_id,
            ai_level=None,
            ply=len(puzzle.before) + len(attempt.turns),
            turns=(*puzzle.before, *attempt.turns),
            winner_id=None,
            result=None,
            created_at=started,
            updated_at=started,
            expires_at=None,
            challenge_message_id=None,
            board_message_id=None,
            undo_requested_by=None,
            version=len(attempt.turns),
            attempt_id=attempt.id,
        )

    async def give_up_puzzle(self, attempt_id: int, user_id: int) -> PuzzleTurn:
        """The member gives their open attempt up: it ends as a wrong turn would (a rated loss, the streak back to 0),
        in one transaction; the step's ``expected`` is the solution's turn that was due. Refused as a turn is."""
        return await self._puzzle_step(attempt_id, user_id, None, None)

    async def play_puzzle_turn(
        self, attempt_id: int, user_id: int, typed: str, *, expected_turns: int | None = None
    ) -> PuzzleTurn:
        """The member's next turn in their open attempt, judged against the solution (``bot.puzzles.play.judge``),
        in one transaction: the turn (and the defender's reply) kept; on the last right turn or a wrong one the
        attempt ends, and a rated one moves the member's and the puzzle's ratings and the member's streak.

        Refused: someone else's attempt (``puzzle.not_yours``), an ended one (``puzzle.over``); a turn the rules
        refuse raises their ``IllegalMove``; ``expected_turns`` (a menu's view of the attempt) other than the turns
        played is out of date (``RaceLost``). Nothing is written then."""
        return await self._puzzle_step(attempt_id, user_id, typed, expected_turns)

    async def _puzzle_step(
        self, attempt_id: int, user_id: int, typed: str | None, expected_turns: int | None
    ) -> PuzzleTurn:
        """A turn (``typed``) or giving up (None) in the member's open attempt, in one transaction."""
        async with self._transaction() as db:
            rows = list(
                await db.execute_fetchall(f"SELECT {ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE id = ?", (attempt_id,))
            )
            if not rows or int(rows[0][2]) != user_id:
                raise UserError(NOT_YOURS)
            attempt = attempt_from_row(rows[0])
            if attempt.status != "open":
                raise UserError(OVER)
            if expected_turns is not None and expected_turns != len(attempt.turns):
                raise RaceLost("guided.menu_out_of_date")
            found = list(
                await db.execute_fetchall(
                    f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = ? AND {SHOWABLE}",
                    (attempt.puzzle_id, attempt.guild_id),
                )
            )
            if not found:  # its source game in play again since the attempt began: nothing is played or rated
                raise UserError(UNAVAILABLE)
            puzzle = puzzle_from_row(found[0])
            if typed is None:
                step = Step("gave_up", "", expected=puzzle.solution[len(attempt.turns)])
                turns = attempt.turns
            else:
                step = judge(puzzle, attempt.turns, typed)
                turns = (*attempt.turns, step.turn, *((step.reply,) if step.reply else ()))
            standing = _standing(list(await db.execute_fetchall(STANDING_SQL, (user_id, puzzle.game))))
            now = self._now()
            if step.verdict == "right":
                await db.execute(
                    "UPDATE puzzle_attempts SET turns = ? WHERE id = ?", (json.dumps(list(turns)), attempt.id)
                )
                return PuzzleTurn(step, replace(attempt, turns=turns), standing)
            solved = step.verdict == "solved"
            status: Status = "solved" if solved else "failed"
            before: Rating | None = None
            if attempt.rated:
                before = standing.rating
                mine, theirs = rate_game(
                    standing.rating,
                    Rating(puzzle.rating, puzzle.deviation, puzzle.volatility, puzzle.plays),
                    1.0 if solved else 0.0,
                    now,
                )
                streak = standing.streak + 1 if solved else 0
                standing = Standing(mine, streak, max(streak, standing.best_streak))
                await db.execute(
                    "INSERT INTO puzzle_ratings (user_id, game, value, deviation, volatility, games, last_played, "
                    "streak, best_streak) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, game) DO UPDATE "
                    "SET value = excluded.value, deviation = excluded.deviation, volatility = excluded.volatility, "
                    "games = excluded.games, last_played = excluded.last_played, streak = excluded.streak, "
                    "best_streak = excluded.best_streak",
                    (
                        user_id,
                        puzzle.game,
                        mine.value,
                        mine.deviation,
                        mine.volatility,
                        mine.games,
                        mine.last_played,
                        standing.streak,
                        standing.best_streak,
                    ),
                )
                await db.execute(
                    "UPDATE puzzles SET rating = ?, deviation = ?, volatility = ?, plays = plays + 1 WHERE id = ?",
                    (theirs.value, theirs.deviation, theirs.volatility, puzzle.id),
                )
            await db.execute(
                "UPDATE puzzle_attempts SET turns = ?, status = ?, finished_at = ?, rating_before = ?, "
                "rating_after = ? WHERE id = ?",
                (
                    json.dumps(list(turns)),
                    status,
                    now,
                    None if before is None else before.value,
                    None if before is None else standing.rating.value,
                    attempt.id,
                ),
            )
            ended = replace(
                attempt,
                turns=turns,
                status=status,
                finished_at=now,
                rating_before=None if before is None else before.value,
                rating_after=None if before is None else standing.rating.value,
            )
            return PuzzleTurn(step, ended, standing, before)

    async def share_attempt(self, attempt_id: int, user_id: int) -> Attempt:
        """Mark the member's solved attempt as shared, once: refused for someone else's (``puzzle.not_yours``), one
        not solved (``puzzle.share_unsolved``) and one shared already (``puzzle.shared_already``)."""
        async with self._transaction() as db:
            rows = list(
                await db.execute_fetchall(
                    f"SELECT {ATTEMPT_COLUMNS}, shared FROM puzzle_attempts WHERE id = ?", (attempt_id,)
                )
            )
            if not rows or int(rows[0][2]) != user_id:
                raise UserError(NOT_YOURS)
            attempt = attempt_from_row(rows[0])
            if attempt.status != "solved":
                raise UserError("puzzle.share_unsolved")
            if int(rows[0][13]):
                raise UserError("puzzle.shared_already")
            await db.execute("UPDATE puzzle_attempts SET shared = 1 WHERE id = ?", (attempt_id,))
            return attempt

    async def puzzle_leaderboard(
        self, guild_id: int, game: str, *, offset: int, limit: int, minimum: int = LEADERBOARD_MINIMUM
    ) -> tuple[list[tuple[int, Standing]], int]:
        """One page of the server's members by puzzle rating in ``game`` (highest first) and how many there are:
        members who played a puzzle in this server, with at least ``minimum`` rated attempts, still members."""
        where = (
            "r.game = ? AND r.games >= ? AND EXISTS (SELECT 1 FROM puzzle_attempts a WHERE a.user_id = r.user_id "
            "AND a.guild_id = ? AND a.game = r.game) AND NOT EXISTS "
            "(SELECT 1 FROM departed d WHERE d.guild_id = ? AND d.user_id = r.user_id)"
        )
        params = (game, minimum, guild_id, guild_id)
        rows = await self._fetchall(
            "SELECT r.value, r.deviation, r.volatility, r.games, r.last_played, r.streak, r.best_streak, r.user_id "
            f"FROM puzzle_ratings r WHERE {where} ORDER BY r.value DESC, r.user_id LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        total = await self._fetchall(f"SELECT COUNT(*) FROM puzzle_ratings r WHERE {where}", params)
        return [(int(row[7]), _standing([row])) for row in rows], int(total[0][0])
