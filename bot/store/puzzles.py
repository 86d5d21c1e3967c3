"""Puzzles as kept: one row per position (its key unique), written by the miner and read by the players' side.

The puzzle's own rating (its difficulty, on the Glicko-2 scale) lives on its row; what members do with puzzles
(their attempts, ratings, streaks, the server's daily puzzle) lives in tables of their own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from bot.db import Connection, Row
from bot.puzzles.values import Puzzle
from bot.store.base import StoreBase
from bot.store.rows import COLUMNS, info_from_row
from bot.store.values import GameInfo, settings_json

PUZZLE_COLUMNS = (
    "id, game, settings, before_turns, solution, goal, rating, deviation, volatility, plays, tempting, "
    "source_game_id, guild_id"
)


def puzzle_from_row(row: Row) -> Puzzle:
    """A ``puzzles`` row (``PUZZLE_COLUMNS``, in order) as a ``Puzzle``."""
    return Puzzle(
        id=int(row[0]),
        game=str(row[1]),
        settings=json.loads(row[2]),
        before=tuple(json.loads(row[3])),
        solution=tuple(json.loads(row[4])),
        goal=str(row[5]),
        rating=float(row[6]),
        deviation=float(row[7]),
        volatility=float(row[8]),
        plays=int(row[9]),
        tempting=int(row[10]),
        source_game_id=None if row[11] is None else int(row[11]),
        guild_id=None if row[12] is None else int(row[12]),
    )


class Puzzles(StoreBase):
    """Keeping mined puzzles and reading them back."""

    async def add_puzzles(self, puzzles: Sequence[Puzzle]) -> int:
        """Keep ``puzzles`` in one transaction; a position already kept (same key) is skipped. How many were new."""
        async with self._transaction() as db:
            return await self._keep_puzzles(db, puzzles)

    async def get_puzzle(self, puzzle_id: int) -> Puzzle | None:
        """The puzzle kept under ``puzzle_id``, or None."""
        rows = await self._fetchall(f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = ?", (puzzle_id,))
        return puzzle_from_row(rows[0]) if rows else None

    async def puzzles_for(self, game: str, guild_id: int, limit: int = 1000) -> list[Puzzle]:
        """The puzzles of ``game`` a member of ``guild_id`` may see (that server's and self-play's), oldest first."""
        rows = await self._fetchall(
            f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE game = ? AND (guild_id IS NULL OR guild_id = ?) "
            "ORDER BY id LIMIT ?",
            (game, guild_id, limit),
        )
        return [puzzle_from_row(row) for row in rows]

    # --- the miner's side: which finished games are left to search, and what a search found -----------------

    async def games_to_mine(self, limit: int, game: str | None = None) -> list[GameInfo]:
        """Up to ``limit`` finished games (of ``game``, or any) not searched for puzzles yet, oldest first.

        Only ``finished`` games: a game still in play is never handed to the miner (fair play).
        """
        where = "status = 'finished' AND id NOT IN (SELECT game_id FROM puzzle_mined_games)"
        params: list[object] = []
        if game is not None:
            where += " AND game = ?"
            params.append(game)
        rows = await self._fetchall(f"SELECT {COLUMNS} FROM games WHERE {where} ORDER BY id LIMIT ?", (*params, limit))
        return [info_from_row(row) for row in rows]

    async def record_mined(self, game_id: int, puzzles: Sequence[Puzzle]) -> int:
        """Keep a finished game's puzzles and mark the game searched, in one transaction; how many were new.

        A puzzle must come from that game (``source_game_id``) and carry its server; a game already marked
        adds nothing (two miners racing: the second's work is dropped whole).
        """
        for puzzle in puzzles:
            if puzzle.source_game_id != game_id:
                raise ValueError(f"a puzzle of game {puzzle.source_game_id} is not one of game {game_id}")
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "SELECT g.guild_id, g.status, m.game_id FROM games g "
                "LEFT JOIN puzzle_mined_games m ON m.game_id = g.id WHERE g.id = ?",
                (game_id,),
            )
            found = list(rows)
            if not found:
                raise ValueError(f"no game {game_id}")
            guild_id, status, mined = int(found[0][0]), str(found[0][1]), found[0][2]
            if status != "finished":
                raise ValueError(f"game {game_id} is {status}: only a finished game is mined")
            if mined is not None:
                return 0
            if any(puzzle.guild_id != guild_id for puzzle in puzzles):
                raise ValueError(f"a puzzle of game {game_id} must carry its server, {guild_id}")
            added = await self._keep_puzzles(db, puzzles)
            await db.execute(
                "INSERT INTO puzzle_mined_games (game_id, found, mined_at) VALUES (?, ?, ?)",
                (game_id, added, self._now()),
            )
        return added

    async def add_self_play_puzzles(self, puzzles: Sequence[Puzzle]) -> int:
        """Keep puzzles from AI self-play (no game, no server); how many were new."""
        if any(puzzle.source_game_id is not None or puzzle.guild_id is not None for puzzle in puzzles):
            raise ValueError("a self-play puzzle has no source game and no server")
        async with self._transaction() as db:
            return await self._keep_puzzles(db, puzzles)

    async def puzzle_count(self, game: str, guild_id: int) -> int:
        """How many puzzles of ``game`` a member of ``guild_id`` may see (that server's and self-play's)."""
        rows = await self._fetchall(
            "SELECT COUNT(*) FROM puzzles WHERE game = ? AND (guild_id IS NULL OR guild_id = ?)", (game, guild_id)
        )
        return int(rows[0][0])

    async def _keep_puzzles(self, db: Connection, puzzles: Sequence[Puzzle]) -> int:
        """Insert ``puzzles`` inside the caller's transaction, skipping positions already kept; how many were new."""
        added = 0
        for puzzle in puzzles:
            rows = await db.execute_fetchall(
                "INSERT INTO puzzles (key, game, settings, before_turns, solution, goal, rating, deviation, "
                "volatility, plays, tempting, source_game_id, guild_id, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING RETURNING id",
                (
                    puzzle.key,
                    puzzle.game,
                    settings_json(puzzle.settings),
                    json.dumps(list(puzzle.before), ensure_ascii=False),
                    json.dumps(list(puzzle.solution), ensure_ascii=False),
                    puzzle.goal,
                    puzzle.rating,
                    puzzle.deviation,
                    puzzle.volatility,
                    puzzle.tempting,
                    puzzle.source_game_id,
                    puzzle.guild_id,
                    self._now(),
                ),
            )
            added += len(list(rows))
        return added

    async def settings_played(self, game: str, limit: int = 3) -> list[dict[str, str]]:
        """The settings of ``game`` most played in finished games (the most played first): what self-play copies."""
        rows = await self._fetchall(
            "SELECT settings, COUNT(*) AS played FROM games WHERE game = ? AND status = 'finished' "
            "GROUP BY settings ORDER BY played DESC, settings LIMIT ?",
            (game, limit),
        )
        return [dict(json.loads(row[0])) for row in rows]
