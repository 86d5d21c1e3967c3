"""Who plays in a tournament: signing up (with a seed rating from the server's pool), checking in, entering
late (a Swiss, until half its rounds have started), and leaving or being taken out.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.db import Connection
from bot.errors import UserError
from bot.ratings import START_RATING, pools_for
from bot.store.rows import entrant_from_row
from bot.store.tournaments import Tournaments, count_rows
from bot.store.values import Entrant, Notice, NoticeKind, TournamentInfo
from bot.text import clean_name, fallback_name


class Entries(Tournaments):
    """A tournament's players: entries, check-in and withdrawals."""

    async def join_tournament(self, tournament_id: int, user_id: int, name: str) -> tuple[TournamentInfo, bool]:
        """Sign a member up (before the start), or enter them late (a Swiss until half its rounds have started:
        they come in at the next round, with a ½-point bye for the last round missed). Returns whether it was late.
        The name (from Discord) is kept without the characters no name may hold (``bot.text``).
        """
        name = clean_name(name, fallback_name(user_id))
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            rows = await db.execute_fetchall(
                "SELECT left_round FROM tournament_players WHERE tournament_id = ? AND user_id = ?",
                (tournament_id, user_id),
            )
            for row in rows:
                if row[0] is not None:
                    raise UserError("tournament.refusal.withdrew")
                raise UserError("tournament.refusal.already_entered")
            late = False
            joined_round = 1
            if info.status in ("running", "paused"):
                started = await count_rows(
                    db, "SELECT COUNT(*) FROM tournament_rounds WHERE tournament_id = ?", tournament_id
                )
                if info.is_arena:
                    # An arena takes players until its time is up: they wait to be paired at once.
                    if self._now() >= (info.started_at or 0) + info.round_minutes * 60:
                        raise UserError("tournament.refusal.late_closed")
                    seed = await count_rows(
                        db,
                        "SELECT COALESCE(MAX(seed), 0) FROM tournament_players WHERE tournament_id = ?",
                        tournament_id,
                    )
                    return await self._enter_arena(db, info, user_id, name, seed + 1), False
                if info.format != "swiss":
                    raise UserError("tournament.refusal.only_swiss_late")
                if info.rounds is None or started > info.rounds // 2:
                    raise UserError("tournament.refusal.late_closed")
                late = True
                joined_round = started + 1  # brought in when that round is paired
            elif info.status != "signup":
                raise UserError("tournament.refusal.over")
            count = await count_rows(
                db, "SELECT COUNT(*) FROM tournament_players WHERE tournament_id = ?", tournament_id
            )
            if info.max_players is not None and count >= info.max_players:
                raise UserError("tournament.refusal.full", count=info.max_players)
            rating = await self._seed_rating(db, info, user_id)
            await db.execute(
                "INSERT INTO tournament_players (tournament_id, user_id, name, rating, joined_round, late, joined_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (tournament_id, user_id, name, rating, joined_round, int(late), self._now()),
            )
        return info, late

    async def _enter_arena(
        self, db: Connection, info: TournamentInfo, user_id: int, name: str, seed: int
    ) -> TournamentInfo:
        """Inside a transaction: a member enters an arena under way, seeded last, and is paired as soon as possible."""
        count = await count_rows(db, "SELECT COUNT(*) FROM tournament_players WHERE tournament_id = ?", info.id)
        if info.max_players is not None and count >= info.max_players:
            raise UserError("tournament.refusal.full", count=info.max_players)
        rating = await self._seed_rating(db, info, user_id)
        await db.execute(
            "INSERT INTO tournament_players (tournament_id, user_id, name, rating, seed, joined_round, late, "
            "joined_at) VALUES (?, ?, ?, ?, ?, 1, 0, ?)",
            (info.id, user_id, name, rating, seed, self._now()),
        )
        await self._due_tournament(db, info.id, "advance", self._now())
        return info

    async def _seed_rating(self, db: Connection, info: TournamentInfo, user_id: int) -> int:
        """A player's rating in the server's pool of the tournament's game and settings (1500 when unrated)."""
        pool = pools_for(info.guild_id, info.game, info.settings)[0]
        rows = await db.execute_fetchall(
            "SELECT value FROM ratings WHERE scope = ? AND game = ? AND settings = ? AND user_id = ?",
            (pool.scope, pool.game, pool.settings, user_id),
        )
        for row in rows:
            return round(float(row[0]))
        return round(START_RATING)

    async def leave_tournament(self, tournament_id: int, user_id: int, *, actor_id: int | None = None) -> Entrant:
        """Take a player out: before the start the entry is simply removed; once running they are withdrawn from
        the next round on and keep every result so far (a game in progress is still played out)."""
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            rows = await db.execute_fetchall(
                "SELECT * FROM tournament_players WHERE tournament_id = ? AND user_id = ?", (tournament_id, user_id)
            )
            entries = [entrant_from_row(r) for r in rows]
            if not entries or entries[0].left_round is not None:
                raise UserError(
                    "tournament.refusal.not_playing_you" if actor_id is None else "tournament.refusal.not_playing"
                )
            entry = entries[0]
            if info.status == "signup" or entry.late:
                await db.execute(
                    "DELETE FROM tournament_players WHERE tournament_id = ? AND user_id = ?", (tournament_id, user_id)
                )
            elif info.status in ("running", "paused"):
                started = await count_rows(
                    db, "SELECT COUNT(*) FROM tournament_rounds WHERE tournament_id = ?", tournament_id
                )
                playing = await db.execute_fetchall(
                    "SELECT 1 FROM tournament_pairings WHERE tournament_id = ? AND round = ? "
                    "AND (white = ? OR black = ?) "
                    "UNION ALL SELECT 1 FROM tournament_byes WHERE tournament_id = ? AND round = ? AND user_id = ? "
                    "LIMIT 1",
                    (tournament_id, started, user_id, user_id, tournament_id, started, user_id),
                )
                round_open = await db.execute_fetchall(
                    "SELECT 1 FROM tournament_pairings WHERE tournament_id = ? AND round = ? AND result IS NULL "
                    "LIMIT 1",
                    (tournament_id, started),
                )
                # As the engine counts it: out from the current round if it is unfinished and they are not in it.
                left = started if round_open and not playing and started else started + 1
                await db.execute(
                    "UPDATE tournament_players SET left_round = ? WHERE tournament_id = ? AND user_id = ?",
                    (max(left, entry.joined_round), tournament_id, user_id),
                )
            else:
                raise UserError("tournament.refusal.over")
            if actor_id is not None:
                await self._log(db, tournament_id, actor_id, "remove", str(user_id))
        return entry

    async def rejoin_tournament(self, tournament_id: int, user_id: int) -> TournamentInfo:
        """An absent player (a no-show paused them) comes back: paired again from the next round to be paired.
        Refused, changing nothing, for a member who is not absent in it or a tournament that is over."""
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            if not info.is_live:
                raise UserError("tournament.refusal.over")
            cursor = await db.execute(
                "UPDATE tournament_players SET absent = 0, absent_notice = 0 "
                "WHERE tournament_id = ? AND user_id = ? AND absent = 1 AND left_round IS NULL",
                (tournament_id, user_id),
            )
            if cursor.rowcount != 1:
                raise UserError("tournament.refusal.not_absent")
            await self._log(db, tournament_id, user_id, "rejoin", str(user_id))
        return info

    async def check_in(self, tournament_id: int, user_id: int) -> None:
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            if info.status != "signup":
                raise UserError("tournament.refusal.checkin_over")
            opens = info.checkin_opens_at
            if opens is None or self._now() < opens:
                raise UserError("tournament.refusal.checkin_not_open")
            cursor = await db.execute(
                "UPDATE tournament_players SET checked_in = 1 WHERE tournament_id = ? AND user_id = ?",
                (tournament_id, user_id),
            )
            if cursor.rowcount != 1:
                raise UserError("tournament.refusal.not_entered")

    async def add_player(self, tournament_id: int, user_id: int, name: str, *, actor_id: int) -> bool:
        """The organiser enters a member: as a sign-up before the start, or late (a Swiss, as a late join)."""
        _, late = await self.join_tournament(tournament_id, user_id, name)
        async with self._transaction() as db:
            await self._log(db, tournament_id, actor_id, "add", str(user_id))
        return late

    # --- check-in notices -----------------------------------------------------------------------

    async def owe_checkin_reminders(self, tournament_id: int, due_id: int) -> int:
        """The ``remind`` step: a reminder is owed to every entrant who has not checked in (while sign-up is open),
        and the ``notices`` step that sends them falls due, in the transaction that ends the step. Returns how many
        are owed."""
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            owed = 0
            if info.status == "signup" and info.checkin_minutes:
                cursor = await db.execute(
                    "INSERT INTO tournament_notices (tournament_id, kind, user_id, name) "
                    "SELECT tournament_id, 'reminder', user_id, name FROM tournament_players "
                    "WHERE tournament_id = ? AND checked_in = 0 ON CONFLICT DO NOTHING",
                    (tournament_id,),
                )
                owed = cursor.rowcount
                if owed:
                    await self._due_tournament(db, tournament_id, "notices", self._now())
            await db.execute("DELETE FROM due WHERE id = ?", (due_id,))
        return owed

    async def owed_notices(self, tournament_id: int) -> list[Notice]:
        """The check-in notices not sent yet, reminders first, in the order the entrants joined. A reminder to
        someone who has checked in or left since is no longer owed, and not listed."""
        rows = await self._fetchall(
            "SELECT n.kind, n.user_id, n.name FROM tournament_notices n "
            "LEFT JOIN tournament_players p ON p.tournament_id = n.tournament_id AND p.user_id = n.user_id "
            "WHERE n.tournament_id = ? AND n.sent = 0 "
            "AND (n.kind = 'dropped' OR (p.user_id IS NOT NULL AND p.checked_in = 0)) "
            "ORDER BY n.kind DESC, COALESCE(p.joined_at, 0), n.user_id",
            (tournament_id,),
        )
        return [Notice(str(r[0]), int(r[1]), str(r[2])) for r in rows]  # type: ignore[arg-type]

    async def notices_sent(self, tournament_id: int, kind: NoticeKind, user_ids: Sequence[int]) -> None:
        """These entrants have their notice of ``kind`` (or no longer need it)."""
        if not user_ids:
            return
        marks = ", ".join("?" for _ in user_ids)
        async with self._transaction() as db:
            await db.execute(
                f"UPDATE tournament_notices SET sent = 1 WHERE tournament_id = ? AND kind = ? AND user_id IN ({marks})",
                (tournament_id, kind, *user_ids),
            )
