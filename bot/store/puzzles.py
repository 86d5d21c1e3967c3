"""Puzzles as kept: one row per position (its key unique), written by the miner and read by the players' side.

The puzzle's own rating (its difficulty, on the Glicko-2 scale) lives on its row; what members do with puzzles
(their attempts, ratings, streaks, the server's daily puzzle) lives in tables of their own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from bot.db import Row
from bot.puzzles.values import Puzzle
from bot.store.base import StoreBase
from bot.store.values import settings_json

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
        added = 0
        async with self._transaction() as db:
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
