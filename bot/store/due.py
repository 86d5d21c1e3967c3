"""What falls due, and the scheduler's side of the store: a game's deadline and reminders (written in the
transaction that changes its clock), a challenge's expiry, a tournament's steps; taking rows with a lease,
renewing and giving them back; reminders; and giving back the time the bot was away.

One scheduler serves everything that falls due: a row per thing, written in the same transaction as the
change that makes it due, removed in the same transaction as the action it asks for, so it is acted on
once, whichever process gets it first. Acting on a deadline ends a game (``flag``: ``bot.store.games``), or,
when the first side missed its first-move window, gives the second side its window to claim the game (a deadline
row with the key ``claim``); acting on an expiry closes a challenge (``bot.store.challenges``).
"""

from __future__ import annotations

import logging

from bot.clocks import HOUR, Clock
from bot.db import Connection
from bot.store.base import StoreBase
from bot.store.values import Claim, DueRow, GameInfo

log = logging.getLogger(__name__)

REMINDERS_LEFT: tuple[float, ...] = (24 * HOUR, HOUR)
"""Correspondence players are reminded when this much of their time is left (if their turn lasts longer)."""


class DueRows(StoreBase):
    """Due rows: what the other parts write inside their transactions (``_schedule``, ``_due_tournament``), and
    what the scheduler (bot/scheduler.py) calls to take, keep and give back rows."""

    # --- written by the changes that make something due -----------------------------------------

    async def _schedule(self, db: Connection, game_id: int, clock: Clock | None) -> None:
        """Replace a game's due rows with those of its clock now: the deadline, and reminders before it.

        Whatever else was due for it goes too (an accepted or closed challenge's expiry).

        Runs inside the transaction that changed the clock, so a deadline is never out of step with it.
        """
        await db.queue("DELETE FROM due WHERE game_id = ?", (game_id,))
        deadline = None if clock is None else clock.deadline()
        if clock is None or deadline is None:
            return
        await db.queue(
            "INSERT INTO due (kind, game_id, key, due_at) VALUES ('deadline', ?, '', ?)", (game_id, deadline)
        )
        earliest = deadline
        if clock.control.family != "none" and not clock.control.is_live:
            for left in REMINDERS_LEFT:
                moment = clock.at_left(left)
                if moment is not None:
                    await db.queue(
                        "INSERT INTO due (kind, game_id, key, due_at) VALUES ('reminder', ?, ?, ?)",
                        (game_id, str(int(left)), moment),
                    )
                    earliest = min(earliest, moment)
        if self.on_scheduled is not None:
            self.on_scheduled(earliest)

    async def _due_tournament(self, db: Connection, tournament_id: int, key: str, at: float) -> None:
        """Inside a transaction: the tournament's step ``key`` falls due at ``at``; a row already there for it is
        moved to ``at`` and freed of its claim."""
        await db.execute(
            "INSERT INTO due (kind, tournament_id, key, due_at) VALUES ('tournament', ?, ?, ?) "
            "ON CONFLICT (kind, tournament_id, key) DO UPDATE SET due_at = excluded.due_at, claimed_until = NULL, "
            "claimed_by = NULL",
            (tournament_id, key, at),
        )
        if self.on_scheduled is not None:
            self.on_scheduled(at)

    async def schedule_tournament(self, tournament_id: int, key: str, at: float | None = None) -> None:
        """Make a tournament step fall due (now unless ``at``): the bot's own nudge after a change it made."""
        async with self._transaction() as db:
            await self._due_tournament(db, tournament_id, key, self._now() if at is None else at)

    async def owe_step(self, tournament_id: int, key: str) -> None:
        """Make a tournament step due now unless it is due (or being run) already."""
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO due (kind, tournament_id, key, due_at) VALUES ('tournament', ?, ?, ?) "
                "ON CONFLICT (kind, tournament_id, key) DO NOTHING",
                (tournament_id, key, self._now()),
            )
        if self.on_scheduled is not None:
            self.on_scheduled(self._now())

    async def drop_due(self, due_id: int, claim: Claim | None = None) -> None:
        """Remove a due row its handler found nothing to do for; with ``claim``, only while the row is still that
        claim's (a row made due afresh since the handler looked, by a resume say, stays to be run)."""
        async with self._transaction() as db:
            if claim is None:
                await db.execute("DELETE FROM due WHERE id = ?", (due_id,))
            else:
                await db.execute("DELETE FROM due WHERE id = ? AND claimed_by = ?", (due_id, claim.token))

    # --- the scheduler --------------------------------------------------------------------------

    async def next_due_at(self) -> float | None:
        """When the earliest due row falls due (the scheduler sleeps until then); one step down an index."""
        rows = await self._fetchall("SELECT due_at FROM due ORDER BY due_at LIMIT 1")
        return None if not rows else float(rows[0][0])

    async def claim_due(self, now: float, *, lease: float, limit: int, owner: str = "") -> list[DueRow]:
        """Take up to ``limit`` rows due at ``now``, oldest first, for ``lease`` seconds.

        A taken row moves to the end of its lease: if the process acting on it dies, it falls due again
        then, for whichever process looks next. Acting on a row removes it in the same transaction as the
        action (``flag``, ``take_reminder``), so a row is acted on once. Each taken row carries a token of
        this claim (``owner``: who claims, see ``release_claims``); a step that runs longer than its lease
        renews it (``renew_claim``) and its writes check the token, so it is never taken over while it runs.
        """
        self._claims += 1
        token = f"{owner}|{self._run}|{self._claims}"
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "SELECT id, kind, game_id, key, due_at, tournament_id FROM due WHERE due_at <= ? "
                "ORDER BY due_at, id LIMIT ?",
                (now, limit),
            )
            taken = [
                DueRow(int(r[0]), str(r[1]), int(r[2] or 0), str(r[3]), float(r[4]), r[5] and int(r[5]), token)
                for r in rows
            ]
            if taken:
                marks = ", ".join("?" for _ in taken)
                await db.execute(
                    f"UPDATE due SET due_at = ?, claimed_until = ?, claimed_by = ? WHERE id IN ({marks})",
                    (now + lease, now + lease, token, *(row.id for row in taken)),
                )
        return taken

    async def renew_claim(self, claim: Claim, *, lease: float) -> bool:
        """Keep a taken row for another ``lease`` seconds from now; False if it is no longer this claim's (another
        process took it over, or it was done or made due afresh meanwhile)."""
        until = self._now() + lease
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE due SET due_at = ?, claimed_until = ? WHERE id = ? AND claimed_by = ?",
                (until, until, claim.due_id, claim.token),
            )
            return cursor.rowcount == 1

    async def retry_due(self, claim: Claim, at: float) -> bool:
        """Give a taken row back, to fall due again at ``at`` (its step failed and is to be tried again then)."""
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE due SET due_at = ?, claimed_until = NULL, claimed_by = NULL WHERE id = ? AND claimed_by = ?",
                (at, claim.due_id, claim.token),
            )
        if cursor.rowcount == 1 and self.on_scheduled is not None:
            self.on_scheduled(at)
        return cursor.rowcount == 1

    async def release_claims(self, owner: str) -> int:
        """At start-up: rows that an earlier run of this ``owner`` took and never finished fall due now, without
        waiting for their leases (that run is over: one process runs a set of gateway shards at a time)."""
        now = self._now()
        mine, this_run = f"{owner}|", f"{owner}|{self._run}|"
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE due SET due_at = ?, claimed_until = NULL, claimed_by = NULL WHERE claimed_by IS NOT NULL "
                "AND substr(claimed_by, 1, ?) = ? AND substr(claimed_by, 1, ?) <> ?",
                (now, len(mine), mine, len(this_run), this_run),
            )
        if cursor.rowcount and self.on_scheduled is not None:
            self.on_scheduled(now)
        return cursor.rowcount

    @staticmethod
    async def _holds(db: Connection, claim: Claim | None) -> bool:
        """Inside a transaction: whether ``claim`` (None: no claim asked for) still holds its row."""
        if claim is None:
            return True
        rows = await db.execute_fetchall(
            "SELECT 1 FROM due WHERE id = ? AND claimed_by = ?", (claim.due_id, claim.token)
        )
        return bool(list(rows))

    async def take_reminder(self, due_id: int) -> tuple[GameInfo, float] | None:
        """Remove a reminder row and return its game and the seconds it said would be left; None if it is gone.

        Removed before it is sent: a reminder is sent at most once, even if the process dies sending it.
        """
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "DELETE FROM due WHERE id = ? AND kind = 'reminder' RETURNING game_id, key", (due_id,)
            )
            found = [(int(r[0]), str(r[1])) for r in rows]
        if not found:
            return None
        game_id, key = found[0]
        info = await self.get_game(game_id)
        if info.status != "active":
            return None
        return info, float(key)

    async def keep_alive(self, *, gap_allowed: float) -> float:
        """Record that the scheduler is running; give back the time it was not, if that was more than ``gap_allowed``.

        Called at start-up and then every little while. When the last call is more than ``gap_allowed``
        ago (the bot was down), every running clock and every due row is moved on by the gap, in one
        transaction: nobody loses on time, or is reminded early, because the bot was away. Returns the gap
        given back (0 when none).
        """
        now = self._now()
        async with self._transaction() as db:
            rows = await db.execute_fetchall("SELECT value FROM meta WHERE key = 'scheduler_alive_at'")
            last = [float(r[0]) for r in rows]
            gap = now - last[0] if last else 0.0
            given = gap if gap > gap_allowed else 0.0
            if given:
                await db.execute(
                    "UPDATE games SET clock_since = clock_since + ? "
                    "WHERE status = 'active' AND clock_since IS NOT NULL",
                    (given,),
                )
                await db.execute("UPDATE due SET due_at = due_at + ?", (given,))
            await db.execute(
                "INSERT INTO meta (key, value) VALUES ('scheduler_alive_at', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (repr(now),),
            )
        if given:
            log.warning("The scheduler was away %.0f s: every running clock and due row was moved on by that", given)
        return given
