"""A tournament's rounds as stored. A round is written whole in one transaction before any thread exists
(``save_round``); each pairing then goes paired -> thread_pending (a thread is being made; written before
asking Discord) -> thread (its id kept) -> game (its game stored), or straight to done (a forfeit, a walkover),
so a restart finishes each step once. The channel posts a tournament owes (its start, each round's standings
and pairings, each round's recap, its end) are delivered in order by the ``posts`` step and counted as they go out.
"""

from __future__ import annotations

import json
import logging
from typing import Literal

from bot.errors import UserError
from bot.rules.registry import find_game
from bot.store.rows import clock_values, pairing_from_row, parse_control
from bot.store.tournaments import Tournaments, count_rows
from bot.store.values import Claim, GameInfo, Pairing, RoundPlan

log = logging.getLogger(__name__)


class TournamentRounds(Tournaments):
    """Rounds: pairing them, opening their games, closing them, and the posts they owe."""

    async def save_round(
        self,
        tournament_id: int,
        plan: RoundPlan,
        *,
        due_id: int | None,
    ) -> bool:
        """Store a freshly paired round whole, before any thread exists: its pairings (a walkover or forfeit
        already decided), its byes, late entrants brought in, its deadline and the step that opens its games.

        False, writing nothing, when that round was already stored (two runs never pair a round twice) or
        the tournament is no longer running.
        """
        now = self._now()
        deadline = now + plan.minutes * 60
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            if due_id is not None:
                await db.execute("DELETE FROM due WHERE id = ?", (due_id,))
            if info.status != "running":
                return False
            exists = await db.execute_fetchall(
                "SELECT 1 FROM tournament_rounds WHERE tournament_id = ? AND number = ?", (tournament_id, plan.number)
            )
            if exists:
                return False
            paired = sorted({p for w, b, _, result in plan.games if result is None for p in (w, b)})
            if paired:
                marks = ", ".join("?" for _ in paired)
                gone = await db.execute_fetchall(
                    f"SELECT 1 FROM tournament_players WHERE tournament_id = ? AND user_id IN ({marks}) "
                    "AND left_round IS NOT NULL AND left_round <= ? LIMIT 1",
                    (tournament_id, *paired, plan.number),
                )
                if gone:
                    # Someone withdrew while the round was being paired: pair it again without them.
                    await self._due_tournament(db, tournament_id, "advance", now)
                    return False
            for user_id, seed in plan.seeds:
                await db.execute(
                    "UPDATE tournament_players SET seed = ?, late = 0 WHERE tournament_id = ? AND user_id = ?",
                    (seed, tournament_id, user_id),
                )
            # A late entry that arrived after this round was paired waits for the next one.
            await db.execute(
                "UPDATE tournament_players SET joined_round = ? WHERE tournament_id = ? AND late = 1",
                (plan.number + 1, tournament_id),
            )
            await db.execute(
                "INSERT INTO tournament_rounds (tournament_id, number, started_at, deadline) VALUES (?, ?, ?, ?)",
                (tournament_id, plan.number, now, deadline),
            )
            for board, (white, black, match, result) in enumerate(plan.games, start=1):
                await db.execute(
                    "INSERT INTO tournament_pairings (tournament_id, round, board, white, black, match, result, state) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (tournament_id, plan.number, board, white, black, match, result, "done" if result else "paired"),
                )
            for round_number, user_id, kind in plan.byes:
                await db.execute(
                    "INSERT INTO tournament_byes (tournament_id, round, user_id, kind) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (tournament_id, round, user_id) DO UPDATE SET kind = excluded.kind",
                    (tournament_id, round_number, user_id, kind),
                )
            # Its standings and pairings first: due at the same moment, the older row is taken first (``claim_due``),
            # and a new row is written before the step that opens the games.
            await self._owe_posts(db, tournament_id, at=now)
            await self._due_tournament(db, tournament_id, f"play:{plan.number}", now)
            await self._due_tournament(db, tournament_id, f"deadline:{plan.number}", deadline)
            await self._advance_if_round_over(db, tournament_id, plan.number)
        log.info("tournament %d: round %d paired (%d games)", tournament_id, plan.number, len(plan.games))
        return True

    async def pairing_thread_pending(self, pairing_id: int, *, claim: Claim | None = None) -> bool:
        """About to ask Discord for this pairing's thread: a restart then looks for it before making another.

        True when the caller may ask now; False when it lost: the pairing has its thread already, or the step
        ``claim`` holds was taken over by another process (which opens the pairing instead)."""
        async with self._transaction() as db:
            if not await self._holds(db, claim):
                return False
            rows = await db.execute_fetchall(
                "UPDATE tournament_pairings SET state = 'thread_pending' WHERE id = ? "
                "AND state IN ('paired', 'thread_pending') RETURNING id",
                (pairing_id,),
            )
            return bool(list(rows))

    async def pairing_thread(self, pairing_id: int, thread_id: int, *, claim: Claim | None = None) -> bool:
        """The pairing's thread is ``thread_id``. False when the caller lost: the pairing has another thread, or the
        step ``claim`` holds was taken over (the caller removes the thread it made)."""
        async with self._transaction() as db:
            if not await self._holds(db, claim):
                return False
            rows = await db.execute_fetchall(
                "UPDATE tournament_pairings SET state = 'thread', thread_id = ? "
                "WHERE id = ? AND state IN ('paired', 'thread_pending') RETURNING id",
                (thread_id, pairing_id),
            )
            if list(rows):
                return True
            same = await db.execute_fetchall(
                "SELECT 1 FROM tournament_pairings WHERE id = ? AND thread_id = ?", (pairing_id, thread_id)
            )
            return bool(list(same))

    async def pairing(self, pairing_id: int) -> Pairing:
        rows = await self._fetchall("SELECT * FROM tournament_pairings WHERE id = ?", (pairing_id,))
        if not rows:
            raise UserError("tournament.refusal.no_pairing")
        return pairing_from_row(rows[0])

    async def intro_posted(self, pairing_id: int) -> None:
        """The pairing's game was introduced in its thread (with its first board, or after it); the direct messages
        to its players who asked for them are owed from now on (``pairing_dms_sent``)."""
        async with self._transaction() as db:
            await db.execute(
                "UPDATE tournament_pairings SET intro_posted = 1, dms_owed = 1 WHERE id = ? AND intro_posted = 0",
                (pairing_id,),
            )

    async def pairing_dms_sent(self, pairing_id: int) -> None:
        """The direct messages telling the pairing's players of its game are out (or nobody asked for one)."""
        async with self._transaction() as db:
            await db.execute("UPDATE tournament_pairings SET dms_owed = 0 WHERE id = ?", (pairing_id,))

    async def start_pairing_game(self, pairing_id: int) -> GameInfo:
        """The pairing's game, in its thread, with the tournament's settings: white is the first seat (in Veletas
        the one who sets up first). Made once: a second call returns the game already made."""
        now = self._now()
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "SELECT p.state, p.game_id, p.thread_id, p.white, p.black, p.result, t.* FROM tournament_pairings p "
                "JOIN tournaments t ON t.id = p.tournament_id WHERE p.id = ?",
                (pairing_id,),
            )
            row = next(iter(rows), None)
            if row is None:
                raise UserError("tournament.refusal.no_pairing")
            if row["game_id"] is not None:
                game_id = int(row["game_id"])
            else:
                if row["thread_id"] is None or row["result"] is not None:
                    raise UserError("tournament.refusal.no_game_to_start")
                control = parse_control(row["time_control"], row["inactivity_days"])
                kind = find_game(row["game"])
                first = kind.replay((), json.loads(row["settings"])).seat_to_act or "first"
                clock = control.new_clock().opened(first, now)
                created = await db.execute_fetchall(
                    "INSERT INTO games (guild_id, channel_id, origin_channel_id, status, game, settings, place, "
                    "challenger_id, opponent_id, created_at, updated_at, time_control, inactivity_days, rated, "
                    "version, board_version, clock_first, clock_second, clock_running, clock_since) "
                    "VALUES (?, ?, ?, 'active', ?, ?, 'thread', ?, ?, ?, ?, ?, ?, ?, 1, 1, ?, ?, ?, ?) RETURNING id",
                    (
                        row["guild_id"],
                        row["thread_id"],
                        row["channel_id"],
                        row["game"],
                        row["settings"],
                        row["white"],
                        row["black"],
                        now,
                        now,
                        row["time_control"],
                        row["inactivity_days"],
                        row["rated"],
                        *clock_values(clock),
                    ),
                )
                game_id = int(next(iter(created))[0])
                await db.execute(
                    "UPDATE tournament_pairings SET state = 'game', game_id = ? WHERE id = ?", (game_id, pairing_id)
                )
                await self._schedule(db, game_id, clock)
        return await self.get_game(game_id)

    async def finish_opening(
        self, tournament_id: int, number: int, due_id: int | None, claim: Claim | None = None
    ) -> bool:
        """The round's games are all made and introduced: its ``play`` step is done. False if a pairing still lacks
        its game or its intro, or the step ``claim`` holds was taken over."""
        async with self._transaction() as db:
            missing = await db.execute_fetchall(
                "SELECT 1 FROM tournament_pairings WHERE tournament_id = ? AND round = ? AND result IS NULL "
                "AND (state NOT IN ('game', 'done') OR (state = 'game' AND (intro_posted = 0 OR dms_owed = 1))) "
                "LIMIT 1",
                (tournament_id, number),
            )
            if missing or not await self._holds(db, claim):
                return False
            if due_id is not None:
                await db.execute("DELETE FROM due WHERE id = ?", (due_id,))
            else:
                await db.execute(
                    "DELETE FROM due WHERE tournament_id = ? AND key = ?", (tournament_id, f"play:{number}")
                )
        return True

    async def close_round(self, tournament_id: int, number: int, due_id: int | None) -> None:
        """At the round's deadline, after its games were adjudicated: a pairing that never got a game scores
        nothing for either player (``--``), so the round ends."""
        async with self._transaction() as db:
            await db.execute(
                "UPDATE tournament_pairings SET result = '--', state = 'done' WHERE tournament_id = ? AND round = ? "
                "AND result IS NULL AND game_id IS NULL",
                (tournament_id, number),
            )
            if due_id is not None:
                await db.execute("DELETE FROM due WHERE id = ?", (due_id,))
            await self._advance_if_round_over(db, tournament_id, number)

    async def repair_round(self, tournament_id: int, number: int, *, actor_id: int) -> None:
        """Throw away a round none of whose games has started (no turn taken), so it is paired again: its games
        and threads are forgotten (the caller removes the threads), its pairings and byes deleted."""
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            if not info.is_live:
                raise UserError(f"tournament.refusal.status_{info.status}")
            last = await count_rows(db, "SELECT COUNT(*) FROM tournament_rounds WHERE tournament_id = ?", tournament_id)
            if number != last or not last:
                raise UserError("tournament.refusal.only_current_round", round=last)
            started = await db.execute_fetchall(
                "SELECT 1 FROM tournament_pairings p JOIN games g ON g.id = p.game_id "
                "WHERE p.tournament_id = ? AND p.round = ? AND (g.ply > 0 OR g.status <> 'active') LIMIT 1",
                (tournament_id, number),
            )
            decided = await db.execute_fetchall(
                "SELECT 1 FROM tournament_pairings WHERE tournament_id = ? AND round = ? AND game_id IS NULL "
                "AND state = 'done' AND match IS NULL LIMIT 1",
                (tournament_id, number),
            )
            if started or decided:
                raise UserError("tournament.refusal.round_begun", round=number)
            games = await db.execute_fetchall(
                "SELECT game_id FROM tournament_pairings WHERE tournament_id = ? AND round = ? AND game_id IS NOT NULL",
                (tournament_id, number),
            )
            await db.execute(
                "DELETE FROM tournament_pairings WHERE tournament_id = ? AND round = ?", (tournament_id, number)
            )
            for row in games:
                await db.execute("DELETE FROM games WHERE id = ?", (int(row[0]),))
            await db.execute(
                "DELETE FROM tournament_byes WHERE tournament_id = ? AND round = ? AND kind <> 'half'",
                (tournament_id, number),
            )
            await db.execute(
                "DELETE FROM tournament_rounds WHERE tournament_id = ? AND number = ?", (tournament_id, number)
            )
            await db.execute(
                "DELETE FROM due WHERE tournament_id = ? AND key IN (?, ?)",
                (tournament_id, f"play:{number}", f"deadline:{number}"),
            )
            await self._log(db, tournament_id, actor_id, "repair", str(number))
            await self._due_tournament(db, tournament_id, "advance", self._now())

    # --- posts owed -----------------------------------------------------------------------------

    async def owe_posts(self, tournament_id: int) -> None:
        """Make the ``posts`` step due if something is owed and it is not due already (after a restart)."""
        async with self._transaction() as db:
            owed = await db.execute_fetchall(
                "SELECT 1 FROM tournaments WHERE id = ? AND (start_owed = 1 OR end_owed = 1) UNION ALL "
                "SELECT 1 FROM tournament_rounds WHERE tournament_id = ? AND (announced = 0 OR recap = 'owed') "
                "UNION ALL "
                "SELECT 1 FROM tournament_players WHERE tournament_id = ? AND absent_notice = 1",
                (tournament_id, tournament_id, tournament_id),
            )
            if not list(owed):
                return
            await db.execute(
                "INSERT INTO due (kind, tournament_id, key, due_at) VALUES ('tournament', ?, 'posts', ?) "
                "ON CONFLICT (kind, tournament_id, key) DO NOTHING",
                (tournament_id, self._now()),
            )
        if self.on_scheduled is not None:
            self.on_scheduled(self._now())

    async def posts_progress(self, tournament_id: int, number: int | None, done: int) -> None:
        """``done`` messages of what is being delivered are out: of the start or end (``number`` None), or a round's."""
        async with self._transaction() as db:
            if number is None:
                await db.execute("UPDATE tournaments SET posts_done = ? WHERE id = ?", (done, tournament_id))
            else:
                await db.execute(
                    "UPDATE tournament_rounds SET posts_done = ? WHERE tournament_id = ? AND number = ?",
                    (done, tournament_id, number),
                )

    async def posts_delivered(
        self, tournament_id: int, what: Literal["start", "round", "end"], number: int = 0
    ) -> None:
        """Everything of the start, of round ``number`` or of the end is out."""
        async with self._transaction() as db:
            if what == "start":
                await db.execute("UPDATE tournaments SET start_owed = 0, posts_done = 0 WHERE id = ?", (tournament_id,))
            elif what == "end":
                await db.execute("UPDATE tournaments SET end_owed = 0, posts_done = 0 WHERE id = ?", (tournament_id,))
                # The last round's recap goes with the end.
                await db.execute(
                    "UPDATE tournament_rounds SET recap = 'done' WHERE tournament_id = ? AND recap = 'owed'",
                    (tournament_id,),
                )
            else:
                await db.execute(
                    "UPDATE tournament_rounds SET announced = 1 WHERE tournament_id = ? AND number = ?",
                    (tournament_id, number),
                )

    async def absent_notice_sent(self, tournament_id: int, user_id: int) -> None:
        """The private notice of a player's absence is out (by direct message or in the channel)."""
        async with self._transaction() as db:
            await db.execute(
                "UPDATE tournament_players SET absent_notice = 0 WHERE tournament_id = ? AND user_id = ?",
                (tournament_id, user_id),
            )

    async def recap_posted(self, tournament_id: int, number: int) -> None:
        """Round ``number``'s recap is out (or had nothing to say): it is owed no more."""
        async with self._transaction() as db:
            await db.execute(
                "UPDATE tournament_rounds SET recap = 'done' WHERE tournament_id = ? AND number = ? AND recap = 'owed'",
                (tournament_id, number),
            )

    async def finish_posts(self, claim: Claim) -> bool:
        """Nothing is owed any more: the ``posts`` step is done (unless something new was owed meanwhile, which made
        it due afresh: then it stays, and runs again)."""
        async with self._transaction() as db:
            cursor = await db.execute("DELETE FROM due WHERE id = ? AND claimed_by = ?", (claim.due_id, claim.token))
            return cursor.rowcount == 1
