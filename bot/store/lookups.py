"""Finding games: the one played in a channel, a server's games in play, a member's past games."""

from __future__ import annotations

from typing import Any

from bot.errors import NoGameHere
from bot.store.base import StoreBase
from bot.store.checks import ending_phrase
from bot.store.rows import COLUMNS
from bot.store.values import GameInfo


class Lookups(StoreBase):
    """Reads of games by channel, server and player (one game by id is ``StoreBase.get_game``)."""

    async def game_in_channel(self, channel_id: int) -> GameInfo:
        """The game being played in this channel or thread."""
        found = await self._fetch_info(
            f"SELECT {COLUMNS} FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,)
        )
        if not found:
            # In the thread of a finished game, say so: "no game" alone reads like a lost game.
            try:
                last = await self.latest_game_in_channel(channel_id)
            except NoGameHere:
                raise NoGameHere("refusal.no_game_here", channel_empty=True) from None
            ending = ending_phrase(last)
            if ending is None:
                raise NoGameHere(
                    "refusal.no_game_here_over", channel_empty=True, title=last.kind.title, id=str(last.id)
                )
            raise NoGameHere(
                "refusal.no_game_here_over_result",
                channel_empty=True,
                title=last.kind.title,
                id=str(last.id),
                result=ending,
            )
        return found[0]

    async def latest_game_in_channel(self, channel_id: int) -> GameInfo:
        """The most recent game that was actually played here (in play, finished or cancelled), for export."""
        found = await self._fetch_info(
            f"SELECT {COLUMNS} FROM games WHERE channel_id = ? AND status IN ('active', 'finished', 'cancelled') "
            "ORDER BY id DESC LIMIT 1",
            (channel_id,),
        )
        if not found:
            raise NoGameHere("refusal.no_game_yet")
        return found[0]

    async def live_games(self, guild_id: int) -> list[GameInfo]:
        """Games in play in a server, the most recently active first."""
        return await self._fetch_info(
            f"SELECT {COLUMNS} FROM games WHERE guild_id = ? AND status = 'active' ORDER BY updated_at DESC, id DESC",
            (guild_id,),
        )

    async def live_games_between_people(self, guild_id: int) -> list[GameInfo]:
        """Games in play in a server with no AI seat: the ones analysis must never give hints in."""
        return await self._fetch_info(
            f"SELECT {COLUMNS} FROM games WHERE guild_id = ? AND status = 'active' AND ai_level IS NULL",
            (guild_id,),
        )

    async def finished_games_of(self, guild_id: int, user_id: int, *, limit: int = 25) -> list[GameInfo]:
        """A member's finished games in a server, the most recent first (to play one of them again): tournament
        games are left out, since a pairing is played once."""
        return await self._fetch_info(
            f"SELECT {COLUMNS} FROM games WHERE guild_id = ? AND status = 'finished' "
            "AND (challenger_id = ? OR opponent_id = ?) "
            "AND NOT EXISTS (SELECT 1 FROM tournament_pairings tp WHERE tp.game_id = games.id) "
            "ORDER BY updated_at DESC, id DESC LIMIT ?",
            (guild_id, user_id, user_id, limit),
        )

    async def past_games(
        self, guild_id: int, user_id: int, *, game: str | None = None, against: int | None = None, limit: int = 25
    ) -> list[GameInfo]:
        """A member's finished (or cancelled) games in a server, latest first; of one game or rival if asked."""
        where = "guild_id = ? AND status IN ('finished', 'cancelled') AND (challenger_id = ? OR opponent_id = ?)"
        params: list[Any] = [guild_id, user_id, user_id]
        if game is not None:
            where += " AND game = ?"
            params.append(game)
        if against is not None:
            where += " AND (challenger_id = ? OR opponent_id = ?)"
            params += [against, against]
        return await self._fetch_info(
            f"SELECT {COLUMNS} FROM games WHERE {where} ORDER BY COALESCE(ended_at, updated_at) DESC, id DESC LIMIT ?",
            (*params, limit),
        )

    async def in_tournament(self, game_id: int) -> bool:
        """Whether a game is a tournament's pairing (played once: no rematch)."""
        rows = await self._fetchall("SELECT 1 FROM tournament_pairings WHERE game_id = ? LIMIT 1", (game_id,))
        return bool(rows)
