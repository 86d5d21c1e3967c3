"""A game in play, and every way it ends: a turn (``play``), a resignation, a cancellation, a flag falling
(``flag``), an adjudication at a tournament round's deadline, an abort (a resignation or a flag before both
players have played, outside tournaments), a no-show (a first-move window missed; the first side's is claimed by
the second side, ``claim_no_show``, or left to become a double no-show); and rebuilding a row from its move log.

Every game has an append-only move log (``moves``); the ``games`` row caches what the log implies (ply,
turns, result). Both change in one transaction, and the cache can always be rebuilt by replaying the log
(``rebuild``). A turn is validated by the rules against the state that was read, then written with an
optimistic ``UPDATE … WHERE id = ? AND version = ?``. Every change bumps ``version`` (a ply repeats after an
undo, a version never does). If anything landed in between, the update touches no row and the action is
refused with ``RaceLost``: two racing moves never both land, and a move chosen for a position that was undone
and replayed never lands either. Every refusal is decided before the first write, so a refused action leaves
the database unchanged.

What one transaction writes, read top to bottom in ``play``: the row (turns, result, clock, versions), the
game's due rows (``_schedule``: its deadline and reminders), the move log; and when the turn ends the game,
``_on_game_end``: its end time, its tournament pairing's result (``_record_pairing``) and its players'
ratings (``rate_into``). Every other ending (resignation, flag, adjudication) goes through ``_on_game_end``
the same way.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from bot.clocks import DAY, Clock
from bot.db import Connection
from bot.errors import InvalidMove, NotYourTurn, RaceLost, TimeIsUp, UserError
from bot.ratings import RatedGame, pools_for
from bot.rules import RecordError
from bot.rules.protocol import GameState, IllegalMove, Outcome, Seat, Termination
from bot.store.checks import (
    MOVED_ON_MESSAGE,
    RACE_MESSAGE,
    check_in_play,
    check_participant,
    finished_message,
)
from bot.store.errors import StoreError
from bot.store.ratings import rate_into
from bot.store.rows import COLUMNS, clock_values, from_ts, info_from_row, join_turns, with_state
from bot.store.tournaments import Tournaments
from bot.store.values import GameInfo, Status

log = logging.getLogger(__name__)


class Games(Tournaments):
    """Games in play and their endings. It builds on the tournament part because a game's end writes its
    pairing's result in the same transaction (``_record_pairing``)."""

    async def play(
        self,
        game_id: int,
        user_id: int,
        text: str,
        *,
        expected_ply: int | None = None,
        expected_version: int | None = None,
        stamp: int | None = None,
    ) -> GameInfo:
        """Apply one turn (setup, pie choice or move) for ``user_id``.

        ``expected_version`` is the version of the game the player was looking at (a button or menu
        carries it; ``expected_ply`` is what older buttons carried); if the game has changed since, the
        turn is refused rather than applied to a position the player never saw. ``stamp`` says when the
        player acted (a snowflake): a turn sent before the game's latest change is refused for the
        same reason, and an accepted one becomes the game's latest change.
        """
        info = await self.get_game(game_id)
        check_in_play(info)
        check_participant(info, user_id)
        if expected_ply is not None and expected_ply != info.ply:
            raise RaceLost(RACE_MESSAGE)
        if expected_version is not None and expected_version != info.version:
            raise RaceLost(RACE_MESSAGE)
        if info.user_to_act != user_id:
            waiting = info.user_to_act
            raise NotYourTurn(waiting)
        if stamp is not None and stamp < info.changed_stamp:
            raise RaceLost(MOVED_ON_MESSAGE)
        now = self._now()
        if info.clock is not None and info.clock.flagged(now) is not None:
            raise TimeIsUp("refusal.time_is_up")
        try:
            game = info.state.play(text)
        except IllegalMove as exc:
            raise InvalidMove(exc.key, **exc.data) from exc
        if len(game.turns) != info.ply + 1:
            raise RuntimeError(f"game {game_id}: a turn added {len(game.turns) - info.ply} entries to the log")
        status: Status = "active"
        winner_id: int | None = None
        result: str | None = None
        termination: Termination | None = None
        outcome = game.outcome
        if outcome is not None:
            status = "finished"
            winner_id, result = _finish(with_state(replace(info, turns=game.turns), game), outcome)
            termination = outcome.termination
        clock = _clock_after(info, game, now)
        version = info.version + 1
        changed = max(info.changed_stamp, stamp or 0)
        # A move that ends the game also writes ratings, tournaments...: that takes the whole database.
        async with self._transaction(game=None if status == "finished" else game_id) as db:
            cursor = await db.execute(
                "UPDATE games SET ply = ?, turns = ?, status = ?, winner_id = ?, result = ?, termination = ?, "
                "undo_requested_by = NULL, updated_at = ?, version = ?, board_version = ?, changed_stamp = ?, "
                "clock_first = ?, clock_second = ?, clock_running = ?, clock_since = ? "
                "WHERE id = ? AND version = ? AND status = 'active'",
                (
                    info.ply + 1,
                    join_turns(game.turns),
                    status,
                    winner_id,
                    result,
                    termination,
                    now,
                    version,
                    version,
                    changed,
                    *clock_values(clock),
                    game_id,
                    info.version,
                ),
            )
            if cursor.rowcount != 1:
                raise RaceLost(RACE_MESSAGE)
            await self._schedule(db, game_id, clock)
            # Each seat's time left as the turn was played, before any increment: an undo gives exactly this back.
            left = (
                (None, None) if info.clock is None else (info.clock.left("first", now), info.clock.left("second", now))
            )
            await db.queue(
                "INSERT INTO moves (game_id, ply, turn, user_id, played_at, clock_first, clock_second) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, info.ply + 1, game.turns[-1], user_id, now, *left),
            )
            if status == "finished":
                await self._on_game_end(db, info, winner_id, now, termination)
        self._remember(game_id, game)
        if status == "finished":  # a game-scoped transaction tells the listeners itself; this one took the database
            self._game_changed(game_id)
        played = replace(
            info,
            ply=info.ply + 1,
            turns=game.turns,
            status=status,
            winner_id=winner_id,
            result=result,
            termination=termination,
            clock=clock,
            ended_at=now if status == "finished" else None,
            undo_requested_by=None,
            updated_at=from_ts(now),
            version=version,
            board_version=version,
            changed_stamp=changed,
        )
        if status == "finished":
            log.info("game %d: %s (turn %d)", game_id, result, played.ply)
        return with_state(played, game)

    async def _on_game_end(
        self,
        db: Connection,
        before: GameInfo,
        winner_id: int | None,
        now: float,
        termination: str | None = None,
    ) -> None:
        """Every path that ends a game calls this inside its transaction: the end time, a tournament pairing's
        result, and a rated game's ratings.

        Casual games and games against the AI change no rating; a draw counts half for each player. The
        changes land in the same transaction as the result, so a game never ends without them, nor they
        without it. A no-show (a side missed its first-move window) rates nobody; in a tournament it is a forfeit.
        An aborted game (``_aborts``) rates nobody either.
        """
        await db.execute("UPDATE games SET ended_at = ? WHERE id = ?", (now, before.id))
        if await self._record_pairing(db, before, winner_id, termination) == "forfeit" or termination == "no-show":
            return
        # Whoever just played here is a member of the server (again).
        await db.execute(
            "DELETE FROM departed WHERE guild_id = ? AND user_id IN (?, ?)",
            (before.guild_id, before.challenger_id, before.opponent_id or 0),
        )
        if not before.rated or before.is_ai_game or before.opponent_id is None or termination in ("aborted", "no-show"):
            return
        # The commit order of rating updates, for the rebuild: this transaction holds the whole database's write lock.
        await db.execute(
            "UPDATE games SET rating_seq = (SELECT COALESCE(MAX(rating_seq), 0) + 1 FROM games "
            "WHERE rating_seq IS NOT NULL) WHERE id = ?",
            (before.id,),
        )
        first_score = 0.5 if winner_id is None else 1.0 if winner_id == before.challenger_id else 0.0
        game = RatedGame(
            before.id,
            pools_for(before.guild_id, before.kind.name, before.settings),
            before.challenger_id,
            before.opponent_id,
            first_score,
            now,
        )
        await rate_into(db, game)

    async def _aborts(self, info: GameInfo) -> bool:
        """Whether a resignation or a time loss now aborts the game rather than deciding it: a game between two
        players, outside any tournament (whose no-shows are forfeits), that ends before both have played
        (``GameState.both_have_played``, which each game's rules decide)."""
        if info.opponent_id is None or info.state.both_have_played:
            return False
        rows = await self._fetchall("SELECT 1 FROM tournament_pairings WHERE game_id = ? LIMIT 1", (info.id,))
        return not rows

    async def resign(self, game_id: int, user_id: int, *, stamp: int | None = None) -> GameInfo:
        info = await self.get_game(game_id)
        check_in_play(info)
        check_participant(info, user_id)
        if info.awaiting_claim and user_id == info.claimant:
            # The opponent did not come: nothing to resign, the game is the claimant's to end as their no-show.
            raise UserError("refusal.resign_claim_instead")
        colour = info.colour_of_user(user_id)
        if colour is not None:
            result = f"{colour.capitalize()} resigned"
        else:
            result = f"The {info.seat_of_user(user_id)} player resigned"
        winner_id: int | None = next(p for p in info.participants if p != user_id)
        termination: Termination = "resignation"
        aborted_by: int | None = None
        if await self._aborts(info):
            winner_id, termination, aborted_by = None, "aborted", user_id
            result = f"Aborted: {result[0].lower()}{result[1:]} before both players had moved"
        now = self._now()
        if info.clock is not None and info.clock.flagged(now) is not None:
            # The game is already lost on time (the scheduler has not acted yet): that ending stands.
            raise TimeIsUp("refusal.resign_time_is_up")
        version = info.version + 1
        changed = max(info.changed_stamp, stamp or 0)
        clock = None if info.clock is None else info.clock.stopped(now)
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE games SET status = 'finished', winner_id = ?, result = ?, termination = ?, "
                "aborted_by = ?, aborted_how = ?, undo_requested_by = NULL, "
                "updated_at = ?, version = ?, board_version = ?, changed_stamp = ?, "
                "clock_first = ?, clock_second = ?, clock_running = ?, clock_since = ? "
                "WHERE id = ? AND version = ? AND status = 'active'",
                (
                    winner_id,
                    result,
                    termination,
                    aborted_by,
                    None if aborted_by is None else "resignation",
                    now,
                    version,
                    version,
                    changed,
                    *clock_values(clock),
                    game_id,
                    info.version,
                ),
            )
            if cursor.rowcount != 1:
                raise RaceLost(RACE_MESSAGE)
            await self._schedule(db, game_id, None)
            await self._on_game_end(db, info, winner_id, now, termination)
        log.info("game %d: %s", game_id, result)
        ended = finished(info, winner_id, result, termination, clock, now, aborted_by, "resignation")
        return self._attach(replace(ended, changed_stamp=changed))

    async def cancel_game(self, game_id: int, *, stamp: int | None = None) -> GameInfo:
        """End a challenge or a game without a winner (a server manager's decision)."""
        info = await self.get_game(game_id)
        if not info.is_open:
            raise finished_message(info)
        now = self._now()
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "UPDATE games SET status = 'cancelled', result = 'Cancelled', termination = 'cancelled', "
                "undo_requested_by = NULL, aborted_by = NULL, "
                "updated_at = ?, version = version + 1, board_version = version + 1, "
                "changed_stamp = MAX(changed_stamp, ?) "
                f"WHERE id = ? AND status IN ('challenge', 'active') RETURNING {COLUMNS}",
                (now, stamp or 0, game_id),
            )
            if not rows:
                raise RaceLost(RACE_MESSAGE)
            await self._schedule(db, game_id, None)
            await self._record_pairing(db, info, None, "cancelled")
        log.info("game %d: cancelled", game_id)
        return self._attach(info_from_row(next(iter(rows))))

    # --- ended by the clock ---------------------------------------------------------------------

    async def flag(self, game_id: int, *, due_id: int | None = None) -> GameInfo | None:
        """End the game on time if its running seat's time is up now; None, changing nothing else, if not.

        The player whose time ran out loses (Termination "time forfeit"); a casual game idle past its
        server's inactivity limit ends the same way. A move that landed first, or time given back,
        leaves the game going: the stale row (``due_id``) is dropped and the newer deadline stands.
        """
        now = self._now()
        info = await self.get_game(game_id)
        clock = info.clock
        loser = None if info.status != "active" or clock is None else clock.flagged(now)
        if loser is None:
            if due_id is not None:
                async with self._transaction() as db:
                    await db.execute("DELETE FROM due WHERE id = ? AND claimed_until IS NOT NULL", (due_id,))
            return None
        assert clock is not None
        if clock.awaiting_first_turn:
            return await self._first_turn_missed(info, loser, clock, now)
        colour = info.colour_of_seat(loser)
        who = colour.capitalize() if colour else f"The {loser} player"
        result = f"{who} lost on time"
        if info.time_control.family == "none":
            result += f" (no move for {round(info.time_control.start / DAY)} days)"
        loser_id = info.user_for_seat(loser)
        winner_id = next((p for p in info.participants if p != loser_id), None)
        termination: Termination = "time forfeit"
        aborted_by: int | None = None
        if await self._aborts(info):
            winner_id, termination, aborted_by = None, "aborted", loser_id
            result = f"Aborted: {who[0].lower()}{who[1:]}'s time ran out before both players had moved"
        stopped = clock.stopped(now)
        if not await self._end_by_clock(info, winner_id, result, termination, stopped, now, aborted_by=aborted_by):
            return None
        return self._attach(finished(info, winner_id, result, termination, stopped, now, aborted_by, "time forfeit"))

    async def _first_turn_missed(self, info: GameInfo, late: Seat, clock: Clock, now: float) -> GameInfo | None:
        """The side to act let its first-move window pass. At the second turn the second side did not come: a no-show
        of that side. At the first turn the second side could not have moved yet: it gets a window of its own (as long
        as the first) to claim the game (``claim_no_show``), and when that passes too, neither came: a double no-show.
        Against the AI, which always comes, a member who misses the first turn is a no-show at once."""
        absent = info.user_for_seat(late)
        if info.ply > 0 or info.is_ai_game or absent is None:
            return await self._no_show(info, absent, clock, now)
        if not info.awaiting_claim:
            return await self._open_claim(info, absent, clock, now)
        until = info.claim_deadline
        if until is not None and now < until:
            return None  # the second side may still claim the game
        return await self._no_show(info, None, clock, now)

    async def _open_claim(self, info: GameInfo, absent: int, clock: Clock, now: float) -> GameInfo | None:
        """In one transaction: the first side is marked as not come (``aborted_by`` of a game still active), the
        game moves on a version (older buttons go stale, the board is posted again with the claim button), and the
        second side's window is the game's due row, so it survives a restart and is moved on by downtime like any
        deadline. None if the game changed since ``info`` was read."""
        deadline, window = clock.deadline(), clock.window
        assert deadline is not None and window is not None
        until = deadline + window
        version = info.version + 1
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE games SET aborted_by = ?, aborted_how = NULL, updated_at = ?, version = ?, board_version = ? "
                "WHERE id = ? AND version = ? AND status = 'active' AND aborted_by IS NULL",
                (absent, now, version, version, info.id, info.version),
            )
            if cursor.rowcount != 1:
                return None
            await db.queue("DELETE FROM due WHERE game_id = ?", (info.id,))
            await db.queue(
                "INSERT INTO due (kind, game_id, key, due_at) VALUES ('deadline', ?, 'claim', ?)", (info.id, until)
            )
        if self.on_scheduled is not None:
            self.on_scheduled(until)
        log.info("game %d: the first side did not come; its opponent may claim the game", info.id)
        return self._attach(
            replace(info, aborted_by=absent, updated_at=from_ts(now), version=version, board_version=version)
        )

    async def claim_no_show(
        self, game_id: int, user_id: int, *, expected_version: int | None = None, stamp: int | None = None
    ) -> GameInfo:
        """The second side claims a game whose first side let its first-move window pass: a no-show of the first side
        alone (no result, no rating; a tournament scores it as a forfeit win for the claimant and pauses only the
        absent player). One transaction, at the version the claimant saw; anyone else, a game not waiting for a
        claim, or a claim after the second side's window is refused, changing nothing."""
        info = await self.get_game(game_id)
        if info.status == "finished" and info.no_show and info.aborted_by is None:
            raise UserError("refusal.claim_too_late")
        check_in_play(info)
        if not info.awaiting_claim:
            raise UserError("refusal.nothing_to_claim")
        if user_id == info.aborted_by:
            raise UserError("refusal.claim_absent")
        if user_id != info.claimant:
            raise UserError("refusal.claim_not_yours")
        if expected_version is not None and expected_version != info.version:
            raise RaceLost(RACE_MESSAGE)
        if stamp is not None and stamp < info.changed_stamp:
            raise RaceLost(MOVED_ON_MESSAGE)
        now = self._now()
        until = info.claim_deadline
        if until is None or now >= until:
            raise UserError("refusal.claim_too_late")
        assert info.clock is not None and info.aborted_by is not None
        seat = info.seat_of_user(info.aborted_by)
        colour = info.colour_of_seat(seat) if seat is not None else None
        who = colour if colour else f"the {seat} player"
        result = f"No-show: {who} did not make a first move in time"
        stopped = info.clock.stopped(now)
        version = info.version + 1
        changed = max(info.changed_stamp, stamp or 0)
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE games SET status = 'finished', winner_id = NULL, result = ?, termination = 'no-show', "
                "aborted_how = NULL, undo_requested_by = NULL, updated_at = ?, version = ?, board_version = ?, "
                "changed_stamp = ?, clock_first = ?, clock_second = ?, clock_running = ?, clock_since = ? "
                "WHERE id = ? AND version = ? AND status = 'active' AND aborted_by = ?",
                (
                    result,
                    now,
                    version,
                    version,
                    changed,
                    *clock_values(stopped),
                    game_id,
                    info.version,
                    info.aborted_by,
                ),
            )
            if cursor.rowcount != 1:
                raise RaceLost(RACE_MESSAGE)
            await self._schedule(db, game_id, None)
            await self._on_game_end(db, info, None, now, "no-show")
        log.info("game %d: %s (claimed by the opponent)", game_id, result)
        ended = finished(info, None, result, "no-show", stopped, now, info.aborted_by, "no-show")
        return self._attach(replace(ended, changed_stamp=changed))

    async def _no_show(self, info: GameInfo, absent: int | None, clock: Clock, now: float) -> GameInfo | None:
        """End a game as a no-show (no result, no rating, in no record; a tournament scores it as a forfeit,
        ``_record_pairing``): of ``absent`` alone, or of both sides (None: neither made a first move)."""
        seat = None if absent is None else info.seat_of_user(absent)
        colour = info.colour_of_seat(seat) if seat is not None else None
        who = colour if colour else f"the {seat} player"
        if absent is None:
            result = "Double no-show: neither player made a first move in time"
        else:
            result = f"No-show: {who} did not make a first move in time"
        stopped = clock.stopped(now)
        if not await self._end_by_clock(info, None, result, "no-show", stopped, now, aborted_by=absent, how=None):
            return None
        return self._attach(finished(info, None, result, "no-show", stopped, now, absent, "no-show"))

    async def adjudicate(self, game_id: int) -> GameInfo | None:
        """End a game still running at its round's deadline by the clock: whoever has more time left wins (equal:
        a draw); a player who never took a turn loses as a no-show. None if the game was already over."""
        info = await self.get_game(game_id)
        if info.status != "active" or info.opponent_id is None:
            return None
        now = self._now()
        moved = {user for _, _, user in await self.move_log(game_id)}
        first, second = info.challenger_id, info.opponent_id
        winner_id: int | None
        if first not in moved or second not in moved:
            winner_id = second if first not in moved and second in moved else first if second not in moved else None
            if first not in moved and second not in moved:
                winner_id = second if info.user_to_act == first else first
        elif info.clock is None:
            winner_id = None
        else:
            left_first, left_second = info.clock.left("first", now), info.clock.left("second", now)
            winner_id = None if abs(left_first - left_second) < 1e-6 else first if left_first > left_second else second
        if winner_id is None:
            result = "Drawn by adjudication at the round's deadline"
        else:
            colour = info.colour_of_user(winner_id)
            who = colour.capitalize() if colour else "The " + str(info.seat_of_user(winner_id)) + " player"
            result = f"{who} wins by adjudication at the round's deadline"
        stopped = None if info.clock is None else info.clock.stopped(now)
        if not await self._end_by_clock(info, winner_id, result, "adjudication", stopped, now):
            return None
        return await self.get_game(game_id)

    async def _end_by_clock(
        self,
        info: GameInfo,
        winner_id: int | None,
        result: str,
        termination: str,
        stopped: Clock | None,
        now: float,
        *,
        aborted_by: int | None = None,
        how: Termination | None = "time forfeit",
    ) -> bool:
        """End an active game the clock decided (lost on time, aborted on time, a no-show, adjudicated at a round's
        deadline) in one transaction with its consequences; False if the game changed since ``info`` was read.
        ``how`` is stored beside an aborted game's ``aborted_by`` (a no-show's has none)."""
        version = info.version + 1
        how = None if aborted_by is None else how
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE games SET status = 'finished', winner_id = ?, result = ?, termination = ?, "
                "aborted_by = ?, aborted_how = ?, "
                "undo_requested_by = NULL, updated_at = ?, version = ?, board_version = ?, "
                "clock_first = ?, clock_second = ?, clock_running = ?, clock_since = ? "
                "WHERE id = ? AND version = ? AND status = 'active'",
                (
                    winner_id,
                    result,
                    termination,
                    aborted_by,
                    how,
                    now,
                    version,
                    version,
                    *clock_values(stopped),
                    info.id,
                    info.version,
                ),
            )
            if cursor.rowcount != 1:
                return False
            await self._schedule(db, info.id, None)
            await self._on_game_end(db, info, winner_id, now, termination)
        log.info("game %d: %s", info.id, result)
        return True

    # --- the log is the truth -------------------------------------------------------------------

    async def rebuild(self, game_id: int) -> GameInfo:
        """Replay the move log and rewrite the cached state of the row from it.

        The log is the truth; the row's ply and turns are a cache of it. A game the rules say is won
        is marked finished, but a result the rules cannot see (a resignation, a cancellation) is kept.
        """
        async with self._transaction() as db:
            info = await self._peek(db, game_id)
            rows = await db.execute_fetchall(
                "SELECT turn FROM moves WHERE game_id = ? ORDER BY ply",
                (game_id,),
            )
            turns = tuple(str(row[0]) for row in rows)
            try:
                game = info.kind.replay(turns, info.settings)
            except RecordError as exc:
                raise StoreError(f"game {game_id}: its move log does not replay ({exc})") from exc
            status, winner_id, result, termination = info.status, info.winner_id, info.result, info.termination
            outcome = game.outcome
            if info.status == "active" and outcome is not None:
                status = "finished"
                winner_id, result = _finish(with_state(replace(info, turns=turns), game), outcome)
                termination = outcome.termination
            updated = await db.execute_fetchall(
                "UPDATE games SET ply = ?, turns = ?, status = ?, winner_id = ?, result = ?, termination = ?, "
                f"version = version + 1 WHERE id = ? RETURNING {COLUMNS}",
                (len(turns), join_turns(turns), status, winner_id, result, termination, game_id),
            )
        if len(turns) != info.ply or turns != info.turns:
            log.warning(
                "game %d: cached state disagreed with the move log (ply %d, log %d)", game_id, info.ply, len(turns)
            )
        self._remember(game_id, game)
        return with_state(info_from_row(next(iter(updated))), game)


def _clock_after(info: GameInfo, state: GameState, now: float) -> Clock | None:
    """The clock once ``state`` (one more turn) is stored: the mover's time charged, the next seat's running.

    A game from before clocks has none yet: it starts now, so its next player gets a whole allowance.
    """
    mover = info.state.seat_to_act
    if mover is None:
        return info.clock
    clock = info.clock if info.clock is not None else info.time_control.new_clock().started(mover, now)
    if clock.running != mover:
        clock = replace(clock, running=mover, since=now)
    if state.outcome is not None:
        return clock.stopped(now)
    # The first two turns are each side's first: after the first, the second side's first-move window starts.
    return clock.after_turn(mover, now, next_seat=state.seat_to_act, first_turn_next=info.ply + 1 < 2)


def _finish(info: GameInfo, outcome: Outcome) -> tuple[int | None, str]:
    """Who won a game the board ended and the result text: ``Black wins by claims``, or ``Drawn``."""
    if outcome.winner is None:
        return None, "Drawn"
    return info.user_for_colour(outcome.winner), f"{outcome.winner.capitalize()} wins by {outcome.termination}"


def finished(
    info: GameInfo,
    winner_id: int | None,
    result: str,
    termination: Termination,
    clock: Clock | None,
    now: float,
    aborted_by: int | None,
    how: Termination,
) -> GameInfo:
    """The snapshot of a game that has just ended (one version on), as the ending's transaction wrote it;
    ``how`` names the ending an aborted game records (``aborted_by`` set), else it is not stored (nor for a
    no-show, whose ``aborted_by`` names the side that did not come)."""
    version = info.version + 1
    return replace(
        info,
        status="finished",
        winner_id=winner_id,
        result=result,
        termination=termination,
        aborted_by=aborted_by,
        aborted_how=None if aborted_by is None or how == "no-show" else how,
        clock=clock,
        ended_at=now,
        undo_requested_by=None,
        updated_at=from_ts(now),
        version=version,
        board_version=version,
    )
