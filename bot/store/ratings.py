"""Ratings as stored: a rated game's Glicko-2 updates written inside the transaction that ends it
(``rate_into``, called by ``bot.store.games``), what players and leaderboards read, and the rebuild of every
rating from the stored games. The arithmetic is ``bot.ratings``'; this module only reads and writes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from bot.db import Connection, Row
from bot.ratings import PROVISIONAL_DEVIATION, PoolKey, RatedGame, Rating, apply_game, pools_for
from bot.store.base import StoreBase
from bot.store.values import RatingChange, settings_json


class Ratings(StoreBase):
    """Reading ratings, marking members who left, and rebuilding every rating."""

    async def rating_changes(self, game_id: int) -> list[RatingChange]:
        """What a finished game did to its players' ratings, in its server's pool then the global one."""
        rows = await self._fetchall(
            "SELECT scope, user_id, before, before_dev, after, after_dev FROM rating_changes WHERE game_id = ? "
            "ORDER BY scope DESC, user_id",
            (game_id,),
        )
        return [RatingChange(int(r[0]), int(r[1]), float(r[2]), float(r[3]), float(r[4]), float(r[5])) for r in rows]

    async def leaderboard(
        self, scope: int, game: str, settings: Mapping[str, str], *, offset: int, limit: int, established: bool
    ) -> tuple[list[tuple[int, Rating, tuple[int, int, int]]], int]:
        """One page of a pool's players by rating (highest first) and how many there are in all.

        ``established``: leave out provisional players. The page is read down the pool's index.
        """
        pool = PoolKey.of(scope, game, settings)
        where = (
            "scope = ? AND game = ? AND settings = ? "
            "AND NOT EXISTS (SELECT 1 FROM departed d WHERE d.guild_id = ratings.scope AND d.user_id = ratings.user_id)"
        )
        params: list[Any] = [pool.scope, pool.game, pool.settings]
        if established:
            where += " AND deviation <= ?"
            params.append(PROVISIONAL_DEVIATION)
        rows = await self._fetchall(
            "SELECT user_id, value, deviation, volatility, games, last_played, wins, losses, draws FROM ratings "
            f"WHERE {where} ORDER BY value DESC, user_id LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        total = await self._fetchall(f"SELECT COUNT(*) FROM ratings WHERE {where}", params)
        page = [
            (
                int(r[0]),
                Rating(float(r[1]), float(r[2]), float(r[3]), int(r[4]), r[5]),
                (int(r[6]), int(r[7]), int(r[8])),
            )
            for r in rows
        ]
        return page, int(total[0][0])

    async def rating_pools(self, scope: int, game: str) -> list[tuple[dict[str, str], int]]:
        """The pools of one game that have players in a scope: their settings and how many players, busiest first."""
        rows = await self._fetchall(
            "SELECT settings, COUNT(*) FROM ratings WHERE scope = ? AND game = ? "
            "AND NOT EXISTS (SELECT 1 FROM departed d "
            "WHERE d.guild_id = ratings.scope AND d.user_id = ratings.user_id) "
            "GROUP BY settings ORDER BY COUNT(*) DESC, settings",
            (scope, game),
        )
        return [(dict(part.split("=", 1) for part in str(r[0]).split(",") if "=" in part), int(r[1])) for r in rows]

    async def player_ratings(
        self, scope: int, user_id: int, game: str
    ) -> list[tuple[str, Rating, tuple[int, int, int]]]:
        """A player's ratings in every pool of one game in a scope (a server, or 0): pool settings, rating, record."""
        rows = await self._fetchall(
            "SELECT settings, value, deviation, volatility, games, last_played, wins, losses, draws FROM ratings "
            "WHERE scope = ? AND game = ? AND user_id = ? ORDER BY games DESC, settings",
            (scope, game, user_id),
        )
        return [
            (str(r[0]), Rating(float(r[1]), float(r[2]), float(r[3]), int(r[4]), r[5]), (r[6], r[7], r[8]))
            for r in rows
        ]

    async def rating_history(
        self, scope: int, user_id: int, game: str, settings: Mapping[str, str]
    ) -> list[tuple[float, float]]:
        """A player's rating (and deviation) after each of their rated games in one pool, oldest first."""
        rows = await self._fetchall(
            "SELECT rc.after, rc.after_dev FROM rating_changes rc JOIN games g ON g.id = rc.game_id "
            "WHERE rc.user_id = ? AND rc.scope = ? AND g.game = ? AND g.settings = ? ORDER BY g.rating_seq",
            (user_id, scope, game, settings_json(settings)),
        )
        return [(float(r[0]), float(r[1])) for r in rows]

    async def mark_departed(self, guild_id: int, user_ids: Sequence[int]) -> None:
        """These members have left the server: its leaderboard no longer shows them."""
        async with self._transaction() as db:
            await db.executemany(
                "INSERT INTO departed (guild_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [(guild_id, user) for user in user_ids],
            )

    async def rebuild_ratings(self) -> int:
        """Recompute every rating from the stored rated games, in the order their ratings were written (each
        game's ``rating_seq``, given under the write lock), whatever their end times say; returns how many games.

        The games are read in one query and rated in memory by the same arithmetic as at a game's end
        (``bot.ratings.apply_game``); both tables are then rewritten in one transaction, so readers see
        the old ratings or the new ones, never a half-rebuilt table.
        """
        rows = await self._fetchall(f"SELECT {RATED_COLUMNS} FROM games {RATED_GAMES} ORDER BY rating_seq")
        table, records, changes = replay(rows)
        async with self._transaction() as db:
            await db.execute("DELETE FROM ratings")
            await db.execute("DELETE FROM rating_changes")
            await write_ratings(db, table, records, changes)
        return len(rows)


RATED_COLUMNS = "id, guild_id, game, settings, challenger_id, opponent_id, winner_id, ended_at"
RATED_GAMES = "WHERE rating_seq IS NOT NULL AND opponent_id IS NOT NULL"

Table = dict[tuple[PoolKey, int], Rating]
Change = tuple[int, int, int, float, float, float, float]


def replay(
    rows: Iterable[Row], only: frozenset[PoolKey] | None = None
) -> tuple[Table, dict[tuple[PoolKey, int], list[int]], list[Change]]:
    """Rate games (rows of ``RATED_COLUMNS``, in their ``rating_seq`` order) from nothing, as each was rated at its
    end: the ratings, each player's wins, losses and draws, and every change (game, scope, player, before and
    after). ``only``: these pools alone."""
    table: Table = {}
    records: dict[tuple[PoolKey, int], list[int]] = {}
    changes: list[Change] = []
    for r in rows:
        first, second, winner = int(r[4]), int(r[5]), r[6]
        score = 0.5 if winner is None else 1.0 if winner == first else 0.0
        settings = cast(dict[str, str], json.loads(r[3]))
        pools = tuple(p for p in pools_for(int(r[1]), str(r[2]), settings) if only is None or p in only)
        game = RatedGame(int(r[0]), pools, first, second, score, float(r[7]))
        for change in apply_game(table, game):
            won = score if change.player == first else 1.0 - score
            record = records.setdefault((change.pool, change.player), [0, 0, 0])
            record[0 if won == 1.0 else 1 if won == 0.0 else 2] += 1
            before, after = change.before, change.after
            changes.append(
                (
                    game.game_id,
                    change.pool.scope,
                    change.player,
                    before.value,
                    before.deviation,
                    after.value,
                    after.deviation,
                )
            )
    return table, records, changes


async def write_ratings(
    db: Connection, table: Table, records: dict[tuple[PoolKey, int], list[int]], changes: list[Change]
) -> None:
    """Inside a transaction: ratings and their changes as ``replay`` computed them (the old rows already gone)."""
    await db.executemany(
        "INSERT INTO ratings (scope, game, settings, user_id, value, deviation, volatility, games, "
        "last_played, wins, losses, draws) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                pool.scope,
                pool.game,
                pool.settings,
                player,
                rating.value,
                rating.deviation,
                rating.volatility,
                rating.games,
                rating.last_played,
                *records[(pool, player)],
            )
            for (pool, player), rating in table.items()
        ],
    )
    await db.executemany(
        "INSERT INTO rating_changes (game_id, scope, user_id, before, before_dev, after, after_dev) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        changes,
    )


async def rerate_pools_of(db: Connection, game_id: int) -> None:
    """Inside the transaction that changed a rated game's outcome (an organiser's decision): the two pools it counts
    in (its server's and the global one) rated again from their games in order, so every later rating follows."""
    rows = list(await db.execute_fetchall("SELECT guild_id, game, settings FROM games WHERE id = ?", (game_id,)))
    if not rows:
        return
    guild_id, game, settings = int(rows[0][0]), str(rows[0][1]), str(rows[0][2])
    pools = frozenset(pools_for(guild_id, game, cast(dict[str, str], json.loads(settings))))
    games = await db.execute_fetchall(
        f"SELECT {RATED_COLUMNS} FROM games {RATED_GAMES} AND game = ? AND settings = ? ORDER BY rating_seq",
        (game, settings),
    )
    table, records, changes = replay(games, pools)
    for pool in pools:
        await db.execute(
            "DELETE FROM ratings WHERE scope = ? AND game = ? AND settings = ?", (pool.scope, pool.game, pool.settings)
        )
        await db.execute(
            "DELETE FROM rating_changes WHERE scope = ? AND game_id IN (SELECT id FROM games WHERE game = ? "
            "AND settings = ?)",
            (pool.scope, game, settings),
        )
    await write_ratings(db, table, records, changes)


async def rate_into(db: Connection, game: RatedGame) -> None:
    """Rate one game into the tables, pool by pool: read both players, apply Glicko-2, write ratings and changes."""
    for pool in game.pools:
        table: dict[tuple[PoolKey, int], Rating] = {}
        records: dict[int, tuple[int, int, int]] = {}
        for player in (game.first, game.second):
            rows = await db.execute_fetchall(
                "SELECT value, deviation, volatility, games, last_played, wins, losses, draws FROM ratings "
                "WHERE scope = ? AND game = ? AND settings = ? AND user_id = ?",
                (pool.scope, pool.game, pool.settings, player),
            )
            for r in rows:
                table[(pool, player)] = Rating(float(r[0]), float(r[1]), float(r[2]), int(r[3]), r[4])
                records[player] = (int(r[5]), int(r[6]), int(r[7]))
        single = RatedGame(game.game_id, (pool,), game.first, game.second, game.first_score, game.ended_at)
        for change in apply_game(table, single):
            score = game.first_score if change.player == game.first else 1.0 - game.first_score
            wins, losses, draws = records.get(change.player, (0, 0, 0))
            wins, losses, draws = wins + (score == 1.0), losses + (score == 0.0), draws + (score == 0.5)
            after = change.after
            await db.execute(
                "INSERT INTO ratings (scope, game, settings, user_id, value, deviation, volatility, games, "
                "last_played, wins, losses, draws) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (scope, game, settings, user_id) DO UPDATE SET value = excluded.value, "
                "deviation = excluded.deviation, volatility = excluded.volatility, games = excluded.games, "
                "last_played = excluded.last_played, wins = excluded.wins, losses = excluded.losses, "
                "draws = excluded.draws",
                (
                    pool.scope,
                    pool.game,
                    pool.settings,
                    change.player,
                    after.value,
                    after.deviation,
                    after.volatility,
                    after.games,
                    after.last_played,
                    wins,
                    losses,
                    draws,
                ),
            )
            await db.execute(
                "INSERT INTO rating_changes (game_id, scope, user_id, before, before_dev, after, after_dev) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    game.game_id,
                    pool.scope,
                    change.player,
                    change.before.value,
                    change.before.deviation,
                    after.value,
                    after.deviation,
                ),
            )
