"""Boards owed to the players: a change players must be told of records its version in ``board_version``; a
posted board records the version it shows in ``posted_version``. A change no board shows yet (the process
died, the post failed) is found by ``unannounced_games`` and posted then.
"""

from __future__ import annotations

from bot.store.base import StoreBase
from bot.store.rows import COLUMNS
from bot.store.values import GameInfo


class Announcing(StoreBase):
    """What was posted, and what is still owed (the sweeps of boards and of the AI's turns)."""

    async def mark_posted(self, game_id: int, version: int, message_id: int) -> None:
        """A board showing ``version`` was posted as ``message_id``.

        The first board of a version also moves the game's change stamp to the message: a turn sent
        before the players could see the change is refused like one sent before the change itself.
        A board of an older version than one already posted changes nothing.
        """
        async with self._transaction(game=game_id) as db:
            await db.queue(
                "UPDATE games SET board_message_id = ?, "
                "changed_stamp = CASE WHEN ? > posted_version THEN MAX(changed_stamp, ?) ELSE changed_stamp END, "
                "posted_version = ? WHERE id = ? AND posted_version <= ?",
                (message_id, version, message_id, version, game_id, version),
            )

    async def give_up_posting(self, game_id: int, version: int) -> None:
        """Stop trying to post ``version``'s board (its channel refuses for good); the game stays as it is."""
        async with self._transaction() as db:
            await db.execute(
                "UPDATE games SET posted_version = ? WHERE id = ? AND posted_version < ?",
                (version, game_id, version),
            )

    async def unannounced_games(self) -> list[GameInfo]:
        """Games in play or just finished whose latest change no posted board shows, oldest change first."""
        found = await self._fetch_info(
            f"SELECT {COLUMNS} FROM games WHERE board_version > posted_version AND status IN ('active', 'finished') "
            # A tournament game's first board goes with its intro, which the step opening its round posts.
            "AND NOT EXISTS (SELECT 1 FROM tournament_pairings p WHERE p.game_id = games.id AND p.intro_posted = 0 "
            "AND p.result IS NULL) ORDER BY updated_at, id",
        )
        return [info for info in found if self.owns_guild(info.guild_id)]

    async def games_with_player(self, user_id: int) -> list[GameInfo]:
        """Games in play where ``user_id`` is a participant (the AI finds the games it owes a turn in)."""
        found = await self._fetch_info(
            f"SELECT {COLUMNS} FROM games WHERE status = 'active' AND (challenger_id = ? OR opponent_id = ?) "
            "ORDER BY id",
            (user_id, user_id),
        )
        return [info for info in found if self.owns_guild(info.guild_id)]
