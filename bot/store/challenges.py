"""Challenges: making one (within the limits), accepting it (the game starts, its clock with it), declining,
withdrawing and expiring it, and the messages that show it.

A ``here`` challenge claims its channel at once, a ``thread`` one only when accepted; the rule "one game per
channel" lives in the schema's unique index, so no interleaving of writers can break it. Accepting and
closing are single conditional updates: a simultaneous accept and withdrawal, whichever commits first wins.
"""

from __future__ import annotations

import datetime as dt
import logging
import sqlite3
from collections.abc import Mapping

from bot.clocks import DAY, DEFAULT_INACTIVITY_DAYS, TimeControl
from bot.db import Connection
from bot.errors import (
    ChallengeClosed,
    ChallengeExists,
    ChannelBusy,
    NoGameHere,
    NotAParticipant,
    OpenChallenge,
    TooManyChallenges,
    UserError,
)
from bot.ids import is_id
from bot.rules.registry import find_game
from bot.store.checks import check_can_answer, closed_message
from bot.store.due import DueRows
from bot.store.rows import COLUMNS, clock_values, from_ts, info_from_row, to_ts
from bot.store.values import GameInfo, Where, settings_json

log = logging.getLogger(__name__)


class Challenges(DueRows):
    """Challenges, from their making to the start of their game or their close."""

    async def create_challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int | None,
        where: Where,
        expires_at: dt.datetime | None,
        game: str = "veletas",
        settings: Mapping[str, str] | None = None,
        ai_level: int | None = None,
        max_open: int | None = None,
        time_control: TimeControl | None = None,
        proposed_by: int | None = None,
        rated: bool = False,
    ) -> GameInfo:
        """A new challenge. A ``here`` challenge claims the channel at once; a ``thread`` one only when accepted.

        Between members there is at most one open challenge per pair, whichever made it, and at most
        ``max_open`` open challenges by one member (a challenge to anyone counts); a challenge to the AI
        is accepted at once and counts for neither.

        ``game`` names a game of the registry and ``settings`` its settings (defaults fill the missing
        ones); an unknown game, setting or value is a ValueError, and nothing is written.
        """
        kind = find_game(game)
        chosen = kind.check_settings(settings or {})
        control = time_control or TimeControl.none()
        if proposed_by is not None and (opponent_id is None or proposed_by not in (challenger_id, opponent_id)):
            raise ValueError("a challenge is proposed by one of its two players")
        if where not in ("thread", "here"):
            raise ValueError(f"unknown place {where!r}")
        if opponent_id == challenger_id:
            raise UserError("refusal.challenge_yourself")
        now = self._now()
        expires = None if expires_at is None else to_ts(expires_at)
        try:
            async with self._transaction() as db:
                if where == "here":
                    busy = await db.execute_fetchall(
                        "SELECT status FROM games WHERE channel_id = ? AND "
                        "(status = 'active' OR (status = 'challenge' AND place = 'here')) LIMIT 1",
                        (channel_id,),
                    )
                    for row in busy:
                        raise ChannelBusy(_busy_message(str(row[0])))
                if ai_level is None:
                    await _check_challenge_limits(db, guild_id, challenger_id, opponent_id, max_open, now)
                rows = await db.execute_fetchall(
                    "INSERT INTO games (guild_id, channel_id, origin_channel_id, status, game, settings, place, "
                    "challenger_id, opponent_id, ai_level, created_at, updated_at, expires_at, time_control, "
                    "inactivity_days, proposed_by, rated) "
                    f"VALUES (?, ?, ?, 'challenge', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {COLUMNS}",
                    (
                        guild_id,
                        channel_id,
                        channel_id,
                        kind.name,
                        settings_json(chosen),
                        where,
                        challenger_id,
                        opponent_id,
                        ai_level,
                        now,
                        now,
                        expires,
                        control.text,
                        round(control.start / DAY) if control.family == "none" else DEFAULT_INACTIVITY_DAYS,
                        None if proposed_by == challenger_id else proposed_by,
                        int(rated and ai_level is None),  # games against the AI are never rated
                    ),
                )
                if expires is not None:
                    created = next(iter(rows))["id"]
                    await db.execute(
                        "INSERT INTO due (kind, game_id, key, due_at) VALUES ('expiry', ?, '', ?)", (created, expires)
                    )
                    if self.on_scheduled is not None:
                        self.on_scheduled(expires)
        except sqlite3.IntegrityError as exc:
            # The unique index is the last word when another writer claimed the channel first.
            if not _is_channel_clash(exc):
                raise
            raise ChannelBusy(_busy_message("active")) from exc
        info = info_from_row(next(iter(rows)))
        log.info("game %d: challenge by %d to %s in channel %d", info.id, challenger_id, opponent_id, channel_id)
        return info

    async def open_ai_challenges(self, guild_id: int) -> list[GameInfo]:
        """Challenges to the AI not started yet. The AI accepts at once, so these were interrupted (a restart)."""
        return await self._fetch_info(
            f"SELECT {COLUMNS} FROM games WHERE guild_id = ? AND status = 'challenge' AND ai_level IS NOT NULL "
            "ORDER BY id",
            (guild_id,),
        )

    async def accept_challenge(self, game_id: int, user_id: int, *, channel_id: int) -> GameInfo:
        """Start the game in ``channel_id`` (the challenge's channel, or the thread made for it)."""
        info = await self.get_game(game_id)
        self._check_can_answer(info, user_id)
        now = self._now()
        # The clock starts with the game: the seat that acts first (the challenger, in both games) is on the move.
        first_seat = info.state.seat_to_act or "first"
        clock = info.time_control.new_clock().opened(first_seat, now)
        try:
            async with self._transaction() as db:
                rows = await db.execute_fetchall(
                    # The first board is owed from here on: a start cut short before it was posted is
                    # announced by the next sweep, as any other change nobody was told of.
                    "UPDATE games SET status = 'active', opponent_id = COALESCE(opponent_id, ?), channel_id = ?, "
                    "updated_at = ?, "
                    "version = version + 1, board_version = version + 1, "
                    "clock_first = ?, clock_second = ?, clock_running = ?, clock_since = ? "
                    f"WHERE id = ? AND status = 'challenge' AND (expires_at IS NULL OR expires_at > ?) "
                    f"RETURNING {COLUMNS}",
                    (user_id, channel_id, now, *clock_values(clock), game_id, now),
                )
                if not rows:
                    current = await self._peek(db, game_id)
                    if current.status == "challenge":
                        raise ChallengeClosed("refusal.challenge_expired")
                    raise ChallengeClosed(closed_message(current))
                await self._schedule(db, game_id, clock)
        except sqlite3.IntegrityError as exc:
            if not _is_channel_clash(exc):
                raise
            raise ChannelBusy(_busy_message("active")) from exc
        accepted = self._attach(info_from_row(next(iter(rows))))
        log.info("game %d: accepted by %d, played in channel %d", game_id, user_id, channel_id)
        return accepted

    async def decline_challenge(self, game_id: int, user_id: int) -> GameInfo:
        info = await self.get_game(game_id)
        self._check_can_answer(info, user_id)
        declined = await self._close_challenge(game_id, "declined", "Declined")
        log.info("game %d: declined by %d", game_id, user_id)
        return declined

    async def withdraw_challenge(self, game_id: int, user_id: int) -> GameInfo:
        """The challenger takes back a challenge nobody has answered yet (it ends as cancelled, "Withdrawn").

        Atomic against an accept landing at the same moment: whichever commits first wins, so a
        game that has just started is never cancelled by a late withdrawal.
        """
        info = await self.get_game(game_id)
        if info.status != "challenge":
            raise ChallengeClosed(closed_message(info))
        if user_id != info.proposer:
            raise NotAParticipant("refusal.withdraw_not_yours")
        withdrawn = await self._close_challenge(game_id, "cancelled", "Withdrawn")
        log.info("game %d: challenge withdrawn by %d", game_id, user_id)
        return withdrawn

    async def _close_challenge(self, game_id: int, status: str, result: str) -> GameInfo:
        """End a challenge nobody has accepted, in one conditional update: a simultaneous accept wins or loses whole."""
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "UPDATE games SET status = ?, result = ?, updated_at = ? "
                f"WHERE id = ? AND status = 'challenge' RETURNING {COLUMNS}",
                (status, result, self._now(), game_id),
            )
            if not rows:
                raise ChallengeClosed(closed_message(await self._peek(db, game_id)))
            await self._schedule(db, game_id, None)
        return info_from_row(next(iter(rows)))

    async def expire_challenge(self, game_id: int) -> GameInfo | None:
        """Close one challenge whose deadline has passed (the scheduler's ``expiry`` row); None if it is not due."""
        now = self._now()
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "UPDATE games SET status = 'expired', result = 'Expired', updated_at = ? "
                f"WHERE id = ? AND status = 'challenge' AND expires_at <= ? RETURNING {COLUMNS}",
                (now, game_id, now),
            )
            found = [info_from_row(row) for row in rows]
            if found or not await db.execute_fetchall(
                "SELECT 1 FROM games WHERE id = ? AND status = 'challenge'", (game_id,)
            ):
                await self._schedule(db, game_id, None)
        if found:
            log.info("game %d: challenge expired", game_id)
        return found[0] if found else None

    async def expire_challenges(self, now: dt.datetime | None = None) -> list[GameInfo]:
        """Close every challenge whose deadline has passed; returns them so their messages can say so."""
        moment = self._now() if now is None else to_ts(now)
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "UPDATE games SET status = 'expired', result = 'Expired', updated_at = ? "
                f"WHERE status = 'challenge' AND expires_at <= ? RETURNING {COLUMNS}",
                (moment, moment),
            )
            for row in rows:
                await db.execute("DELETE FROM due WHERE game_id = ?", (row["id"],))
        expired = sorted((info_from_row(row) for row in rows), key=lambda info: info.id)
        if expired:
            log.info("expired %d challenge(s): %s", len(expired), ", ".join(str(i.id) for i in expired))
        return expired

    async def set_challenge_message(self, game_id: int, message_id: int) -> None:
        await self._set_column(game_id, "challenge_message_id", message_id)

    async def set_board_message(self, game_id: int, message_id: int) -> None:
        await self._set_column(game_id, "board_message_id", message_id)

    async def _set_column(self, game_id: int, column: str, value: int) -> None:
        if not is_id(game_id):
            raise NoGameHere("refusal.no_such_game")
        async with self._transaction() as db:
            cursor = await db.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, game_id))
            if cursor.rowcount != 1:
                raise NoGameHere("refusal.no_such_game")

    def _check_can_answer(self, info: GameInfo, user_id: int) -> None:
        check_can_answer(info, user_id, from_ts(self._now()))


async def _check_challenge_limits(
    db: Connection,
    guild_id: int,
    challenger_id: int,
    opponent_id: int | None,
    max_open: int | None,
    now: float,
) -> None:
    """Refuse a challenge past the limits; run inside the write transaction, so two made at once cannot both pass."""
    still_open = "guild_id = ? AND status = 'challenge' AND ai_level IS NULL AND (expires_at IS NULL OR expires_at > ?)"
    if opponent_id is not None:
        rows = await db.execute_fetchall(
            f"SELECT id, origin_channel_id, challenge_message_id, challenger_id FROM games WHERE {still_open} "
            "AND ((challenger_id = ? AND opponent_id = ?) OR (challenger_id = ? AND opponent_id = ?)) "
            "ORDER BY id LIMIT 1",
            (guild_id, now, challenger_id, opponent_id, opponent_id, challenger_id),
        )
        for row in rows:
            raise ChallengeExists(OpenChallenge(int(row[0]), int(row[1]), row[2]), challenger_id=int(row[3]))
    if max_open is not None:
        rows = await db.execute_fetchall(
            f"SELECT id, origin_channel_id, challenge_message_id FROM games WHERE {still_open} AND challenger_id = ? "
            "ORDER BY id",
            (guild_id, now, challenger_id),
        )
        mine = tuple(OpenChallenge(int(row[0]), int(row[1]), row[2]) for row in rows)
        if len(mine) >= max_open:
            raise TooManyChallenges(max_open, mine)


def _is_channel_clash(exc: sqlite3.IntegrityError) -> bool:
    return "UNIQUE" in str(exc) and "channel_id" in str(exc)


def _busy_message(status: str) -> str:
    return "refusal.busy_challenge" if status == "challenge" else "refusal.busy_game"
