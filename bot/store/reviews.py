"""Game reviews as kept: the AI's review of a finished game (as JSON), one row per game, written once.

A review is a pure value of the game's turns, so it never changes once written; a second writer (two presses
at once, two processes) keeps the first row.
"""

from __future__ import annotations

from bot.store.base import StoreBase


class Reviews(StoreBase):
    """Reading and keeping the review of a game."""

    async def get_review(self, game_id: int, turns: int) -> str | None:
        """The review kept for ``game_id`` over its ``turns`` turns (its JSON), or None if there is none yet."""
        rows = await self._fetchall("SELECT review FROM game_reviews WHERE game_id = ? AND turns = ?", (game_id, turns))
        return None if not rows else str(rows[0][0])

    async def save_review(self, game_id: int, turns: int, review: str) -> None:
        """Keep ``review`` (JSON) for ``game_id`` over ``turns`` turns, in one transaction; an existing one stays."""
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO game_reviews (game_id, turns, review, created_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (game_id) DO NOTHING",
                (game_id, turns, review, self._now()),
            )
