"""Board page launches: which game a member opened the board page for, from which channel, until when.

A click on "Play on the board" records its game here before Discord opens the Activity; the page, served by
any of the bot's processes, then asks for a session naming only the member (as Discord says) and the channel,
and the game is the one recorded. A row is the member's and the channel's, replaced by the next launch there.
"""

from __future__ import annotations

from bot.store.base import StoreBase

LAUNCH_SECONDS = 15 * 60


class Launches(StoreBase):
    """Recording a member's board page launch and finding it again."""

    async def record_launch(
        self, user_id: int, guild_id: int, channel_id: int, game_id: int, seconds: float = LAUNCH_SECONDS
    ) -> None:
        """``user_id`` launched the board page for ``game_id`` from ``channel_id``, valid ``seconds`` from now."""
        now = self._now()
        async with self._transaction() as db:
            await db.execute("DELETE FROM board_launches WHERE expires_at <= ?", (now,))
            await db.execute(
                "INSERT INTO board_launches (user_id, channel_id, guild_id, game_id, expires_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, channel_id) DO UPDATE SET "
                "guild_id = excluded.guild_id, game_id = excluded.game_id, expires_at = excluded.expires_at",
                (user_id, channel_id, guild_id, game_id, now + seconds),
            )

    async def launched_game(self, user_id: int, guild_id: int, channel_id: int) -> int | None:
        """The game ``user_id`` last launched the board page for from ``channel_id`` of ``guild_id``, while valid."""
        rows = await self._fetchall(
            "SELECT game_id FROM board_launches WHERE user_id = ? AND channel_id = ? AND guild_id = ? "
            "AND expires_at > ?",
            (user_id, channel_id, guild_id, self._now()),
        )
        return int(rows[0][0]) if rows else None
