"""Taking turns back: a player asks, the opponent answers; against the AI, at once. One change rewinds the
row, the move log, the clock and what is due (``_rewind``)."""

from __future__ import annotations

import logging
from dataclasses import replace

from bot.clocks import Clock
from bot.errors import RaceLost, TimeIsUp, UndoRefused
from bot.store.checks import RACE_MESSAGE, check_in_play, check_participant
from bot.store.due import DueRows
from bot.store.rows import clock_values, from_ts, join_turns, with_state
from bot.store.values import GameInfo

log = logging.getLogger(__name__)


class Undo(DueRows):
    """Take-backs."""

    async def request_undo(self, game_id: int, user_id: int) -> GameInfo:
        """Ask to take back one's own last turn; allowed only while it is still the last entry of the log."""
        info = await self.get_game(game_id)
        check_in_play(info)
        check_participant(info, user_id)
        if info.undo_requested_by is not None:
            raise UndoRefused("refusal.undo_pending")
        last = await self._fetchall(
            "SELECT user_id FROM moves WHERE game_id = ? AND ply = ?",
            (game_id, info.ply),
        )
        if not last or int(last[0][0]) != user_id:
            raise UndoRefused("refusal.undo_own_last")
        now = self._now()
        _check_time_left(info, now)
        version = info.version + 1
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE games SET undo_requested_by = ?, updated_at = ?, version = ? "
                "WHERE id = ? AND version = ? AND status = 'active' AND undo_requested_by IS NULL",
                (user_id, now, version, game_id, info.version),
            )
            if cursor.rowcount != 1:
                raise RaceLost(RACE_MESSAGE)
        log.info("game %d: %d asks to take back turn %d", game_id, user_id, info.ply)
        return self._attach(replace(info, undo_requested_by=user_id, updated_at=from_ts(now), version=version))

    async def answer_undo(
        self,
        game_id: int,
        user_id: int,
        accept: bool,
        *,
        expected_version: int | None = None,
        stamp: int | None = None,
    ) -> GameInfo:
        """The opponent's answer; accepting removes the last entry of the log.

        ``expected_version`` is the version the request was made at (its buttons carry it).
        """
        info = await self.get_game(game_id)
        check_in_play(info)
        check_participant(info, user_id)
        if expected_version is not None and expected_version != info.version:
            raise RaceLost("refusal.undo_stale")
        requester = info.undo_requested_by
        if requester is None:
            raise UndoRefused("refusal.undo_none")
        if requester == user_id:
            raise UndoRefused("refusal.undo_yours")
        now = self._now()
        version = info.version + 1
        if not accept:
            async with self._transaction() as db:
                cursor = await db.execute(
                    "UPDATE games SET undo_requested_by = NULL, updated_at = ?, version = ? "
                    "WHERE id = ? AND version = ? AND status = 'active' AND undo_requested_by = ?",
                    (now, version, game_id, info.version, requester),
                )
                if cursor.rowcount != 1:
                    raise RaceLost(RACE_MESSAGE)
            log.info("game %d: undo declined by %d", game_id, user_id)
            return self._attach(replace(info, undo_requested_by=None, updated_at=from_ts(now), version=version))
        undone = await self._rewind(info, info.ply - 1, stamp=stamp, requester=requester)
        log.info("game %d: turn %d taken back", game_id, info.ply)
        return undone

    async def _rewind(self, info: GameInfo, keep: int, *, stamp: int | None, requester: int | None) -> GameInfo:
        """Take a game back to its first ``keep`` turns in one change: the row, the move log, the clock, what is due.

        The turn taken back is to play again: both clocks are as they stood the moment that turn was played
        (its increment, and the fresh allowance of a days-per-move clock, go with it; the time since is
        nobody's), and the seat that played it runs from now. A clock already run out is not wound back:
        ``TimeIsUp``, and the flag falls instead. With a ``requester`` the change lands only while that
        player's undo request still stands.
        """
        game_id = info.id
        turns = info.turns[:keep]
        game = info.kind.replay(turns, info.settings)
        now = self._now()
        _check_time_left(info, now)
        version = info.version + 1
        changed = max(info.changed_stamp, stamp or 0)
        seat = game.seat_to_act
        clock = info.clock
        if clock is not None and seat is not None:
            rows = await self._fetchall(
                "SELECT clock_first, clock_second FROM moves WHERE game_id = ? AND ply = ?", (game_id, keep + 1)
            )
            kept = next(iter(rows), None)
            if kept is not None and kept[0] is not None and kept[1] is not None:
                clock = Clock(clock.control, float(kept[0]), float(kept[1]), seat, now)
            else:  # a turn played before the clocks were kept with it: the time each seat has now
                clock = replace(clock.stopped(now), running=seat, since=now)
            # Back before the seat's first turn: its first-move window runs again, not its bank.
            clock = clock.in_window(clock.control.first_move_window if keep < 2 else None)
        guard = "" if requester is None else " AND undo_requested_by = ?"
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE games SET ply = ?, turns = ?, undo_requested_by = NULL, updated_at = ?, version = ?, "
                "board_version = ?, changed_stamp = ?, clock_first = ?, clock_second = ?, clock_running = ?, "
                f"clock_since = ? WHERE id = ? AND version = ? AND status = 'active'{guard}",
                (
                    keep,
                    join_turns(turns),
                    now,
                    version,
                    version,
                    changed,
                    *clock_values(clock),
                    game_id,
                    info.version,
                    *(() if requester is None else (requester,)),
                ),
            )
            if cursor.rowcount != 1:
                raise RaceLost(RACE_MESSAGE)
            await self._schedule(db, game_id, clock)
            await db.execute("DELETE FROM moves WHERE game_id = ? AND ply > ?", (game_id, keep))
        self._remember(game_id, game)
        undone = replace(
            info,
            ply=keep,
            turns=turns,
            clock=clock,
            undo_requested_by=None,
            updated_at=from_ts(now),
            version=version,
            board_version=version,
            changed_stamp=changed,
        )
        return with_state(undone, game)

    async def take_back_against_ai(
        self, game_id: int, user_id: int, ai_id: int, *, stamp: int | None = None
    ) -> GameInfo:
        """Take back the player's last move and every reply the AI made since, in one change.

        The AI never minds a take-back, so nobody is asked; what is taken back is exactly the tail of the
        log from the player's own last move, which must be followed only by the AI's turns.
        """
        info = await self.get_game(game_id)
        check_in_play(info)
        check_participant(info, user_id)
        if ai_id not in info.participants or not info.is_ai_game:
            raise UndoRefused("refusal.undo_not_ai")
        log_rows = await self.move_log(game_id)
        mine = [ply for ply, _, user in log_rows if user == user_id]
        if not mine:
            raise UndoRefused("refusal.undo_nothing")
        first = mine[-1]
        if any(user not in (user_id, ai_id) for ply, _, user in log_rows if ply > first):
            raise UndoRefused("refusal.undo_ai_own")
        undone = await self._rewind(info, first - 1, stamp=stamp, requester=None)
        log.info("game %d: plies %d to %d taken back against the AI", game_id, first, info.ply)
        return undone


def _check_time_left(info: GameInfo, now: float) -> None:
    """A take-back is refused once the running seat's time is up: the game is lost on time, not wound back."""
    if info.clock is not None and info.clock.flagged(now) is not None:
        raise TimeIsUp("refusal.undo_time_is_up")
