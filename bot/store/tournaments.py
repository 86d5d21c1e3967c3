"""Tournaments as stored: making one, sign-up and check-in, late entries and withdrawals, its start, status and
results, its log of organiser actions; and, inside the transaction that ends a tournament game, its pairing's
result (``_record_pairing``). Its rounds, pairings' threads and games and owed posts are ``bot.store.rounds``.

A tournament is announced in one channel (one unfinished tournament per channel), members sign up, and the bot
runs its rounds; every step it takes falls due on the one scheduler (``DueRows._due_tournament``).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from bot.clocks import DAY, DEFAULT_INACTIVITY_DAYS, TimeControl
from bot.db import Connection
from bot.errors import ChannelBusy, UserError
from bot.ids import is_id
from bot.ratings import START_RATING, pools_for
from bot.rules.registry import find_game
from bot.store.due import DueRows
from bot.store.rows import entrant_from_row, pairing_from_row, tournament_from_row
from bot.store.values import (
    RESULTS,
    Entrant,
    GameInfo,
    Pairing,
    RoundRow,
    TournamentFormat,
    TournamentInfo,
    TournamentSnapshot,
    TournamentStatus,
    settings_json,
)
from bot.text import check_name, clean_name, fallback_name

log = logging.getLogger(__name__)


class Tournaments(DueRows):
    """A tournament's life from its making to its end, and its results."""

    async def create_tournament(
        self,
        *,
        guild_id: int,
        channel_id: int,
        organiser_id: int,
        name: str,
        game: str,
        settings: Mapping[str, str],
        format: TournamentFormat,
        rounds: int | None,
        best_of: int,
        time_control: TimeControl,
        rated: bool,
        max_players: int | None,
        starts_at: float | None,
        checkin_minutes: int,
        round_minutes: int,
        division_size: int | None = None,
    ) -> TournamentInfo:
        """A new tournament open for sign-up; its start time and check-in fall due on the scheduler. Its name is
        refused if it holds a control character or shows nothing (``bot.text``), on every database alike."""
        name = check_name(name)
        kind = find_game(game)
        chosen = kind.check_settings(settings)
        now = self._now()
        if starts_at is not None and starts_at <= now:
            raise UserError("tournament.refusal.start_passed")
        try:
            async with self._transaction() as db:
                rows = await db.execute_fetchall(
                    "INSERT INTO tournaments (guild_id, channel_id, organiser_id, name, game, settings, format, "
                    "rounds, best_of, time_control, inactivity_days, rated, max_players, starts_at, checkin_minutes, "
                    "round_minutes, division_size, status, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'signup', ?) RETURNING *",
                    (
                        guild_id,
                        channel_id,
                        organiser_id,
                        name,
                        kind.name,
                        settings_json(chosen),
                        format,
                        rounds,
                        best_of,
                        time_control.text,
                        round(time_control.start / DAY) if time_control.family == "none" else DEFAULT_INACTIVITY_DAYS,
                        int(rated),
                        max_players,
                        starts_at,
                        checkin_minutes,
                        round_minutes,
                        division_size,
                        now,
                    ),
                )
                info = tournament_from_row(next(iter(rows)))
                if starts_at is not None:
                    await self._due_tournament(db, info.id, "start", starts_at)
                    if checkin_minutes:
                        await self._due_tournament(db, info.id, "checkin", max(now, starts_at - checkin_minutes * 60))
                await self._log(db, info.id, organiser_id, "create", name)
        except sqlite3.IntegrityError as exc:
            if "tournaments.channel_id" not in str(exc):
                raise
            raise ChannelBusy("tournament.refusal.channel_busy") from exc
        log.info("tournament %d: created by %d in channel %d", info.id, organiser_id, channel_id)
        return info

    async def tournament(self, tournament_id: int) -> TournamentInfo:
        if not is_id(tournament_id):
            raise UserError("tournament.refusal.no_tournament")
        rows = await self._fetchall("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
        if not rows:
            raise UserError("tournament.refusal.no_tournament")
        return tournament_from_row(rows[0])

    async def tournaments(self, guild_id: int, *, limit: int = 25) -> list[TournamentInfo]:
        """A server's tournaments, those still to finish first, then the latest."""
        rows = await self._fetchall(
            "SELECT * FROM tournaments WHERE guild_id = ? "
            "ORDER BY status IN ('finished', 'cancelled'), id DESC LIMIT ?",
            (guild_id, limit),
        )
        return [tournament_from_row(r) for r in rows]

    async def live_tournaments(self) -> list[TournamentInfo]:
        rows = await self._fetchall("SELECT * FROM tournaments WHERE status IN ('running', 'paused') ORDER BY id")
        return [tournament_from_row(r) for r in rows]

    async def set_tournament_message(self, tournament_id: int, message_id: int) -> None:
        async with self._transaction() as db:
            await db.execute(
                "UPDATE tournaments SET message_id = ? WHERE id = ? AND message_id IS NULL", (message_id, tournament_id)
            )

    async def rounds_started(self, tournament_id: int) -> int:
        rows = await self._fetchall("SELECT COUNT(*) FROM tournament_rounds WHERE tournament_id = ?", (tournament_id,))
        return int(rows[0][0])

    async def entrants(self, tournament_id: int) -> list[Entrant]:
        rows = await self._fetchall(
            "SELECT * FROM tournament_players WHERE tournament_id = ? ORDER BY seed IS NULL, seed, joined_at, user_id",
            (tournament_id,),
        )
        return [entrant_from_row(r) for r in rows]

    async def snapshot(self, tournament_id: int) -> TournamentSnapshot:
        """Everything a tournament is, read in one transaction: settings, players, rounds, pairings and byes."""
        async with self._lock:
            await self._db.execute("BEGIN")
            try:
                info_rows = await self._db.execute_fetchall("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
                if not info_rows:
                    raise UserError("tournament.refusal.no_tournament")
                players = await self._db.execute_fetchall(
                    "SELECT * FROM tournament_players WHERE tournament_id = ? ORDER BY seed IS NULL, seed, joined_at",
                    (tournament_id,),
                )
                rounds = await self._db.execute_fetchall(
                    "SELECT number, started_at, deadline, announced, posts_done FROM tournament_rounds "
                    "WHERE tournament_id = ? "
                    "ORDER BY number",
                    (tournament_id,),
                )
                pairings = await self._db.execute_fetchall(
                    "SELECT * FROM tournament_pairings WHERE tournament_id = ? ORDER BY round, board", (tournament_id,)
                )
                byes = await self._db.execute_fetchall(
                    "SELECT round, user_id, kind FROM tournament_byes WHERE tournament_id = ? ORDER BY round, user_id",
                    (tournament_id,),
                )
            finally:
                await self._db.rollback()
        return TournamentSnapshot(
            tournament_from_row(next(iter(info_rows))),
            tuple(entrant_from_row(r) for r in players),
            tuple(RoundRow(int(r[0]), float(r[1]), float(r[2]), bool(r[3]), int(r[4])) for r in rounds),
            tuple(pairing_from_row(r) for r in pairings),
            tuple((int(r[0]), int(r[1]), str(r[2])) for r in byes),
        )

    async def _tournament_in(self, db: Connection, tournament_id: int) -> TournamentInfo:
        if not is_id(tournament_id):
            raise UserError("tournament.refusal.no_tournament")
        rows = await db.execute_fetchall("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
        for row in rows:
            return tournament_from_row(row)
        raise UserError("tournament.refusal.no_tournament")

    # --- entries --------------------------------------------------------------------------------

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

    # --- its course -----------------------------------------------------------------------------

    async def start_tournament(
        self,
        tournament_id: int,
        *,
        actor_id: int,
        rounds_for: Callable[[int], int | None],
        due_id: int | None = None,
    ) -> TournamentInfo:
        """Close sign-up: players who did not check in (when check-in was asked for) are dropped, the rest seeded
        by rating; the first round falls due at once."""
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            if info.status != "signup":
                raise UserError("tournament.refusal.already_started" if info.is_live else "tournament.refusal.over")
            if info.checkin_minutes:
                await db.execute(
                    "DELETE FROM tournament_players WHERE tournament_id = ? AND checked_in = 0", (tournament_id,)
                )
            rows = await db.execute_fetchall(
                "SELECT user_id, rating FROM tournament_players WHERE tournament_id = ?", (tournament_id,)
            )
            field_ = sorted(((int(r[0]), int(r[1])) for r in rows), key=lambda e: (-e[1], e[0]))
            if len(field_) < 2:
                raise UserError("tournament.refusal.too_few", count=len(field_))
            rounds = rounds_for(len(field_))
            if rounds is not None and info.format == "swiss" and rounds >= len(field_):
                raise UserError(
                    "tournament.refusal.rounds_need_players", rounds=rounds, need=rounds + 1, entered=len(field_)
                )
            for seed, (user_id, _) in enumerate(field_, start=1):
                await db.execute(
                    "UPDATE tournament_players SET seed = ? WHERE tournament_id = ? AND user_id = ?",
                    (seed, tournament_id, user_id),
                )
            now = self._now()
            await db.execute(
                "UPDATE tournaments SET status = 'running', rounds = ?, started_at = ? WHERE id = ?",
                (rounds, now, tournament_id),
            )
            await db.execute(
                "DELETE FROM due WHERE tournament_id = ? AND key IN ('start', 'checkin')", (tournament_id,)
            )
            if due_id is not None:
                await db.execute("DELETE FROM due WHERE id = ?", (due_id,))
            await self._due_tournament(db, tournament_id, "advance", now)
            await self._log(db, tournament_id, actor_id, "start", str(len(field_)))
            await self._owe_posts(db, tournament_id, start=True)
        return await self.tournament(tournament_id)

    async def set_tournament_status(
        self, tournament_id: int, status: TournamentStatus, *, actor_id: int, allowed: Sequence[TournamentStatus]
    ) -> TournamentInfo:
        """Pause, resume, cancel or finish; a cancellation cancels the games still running in it, all at once."""
        now = self._now()
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            if info.status not in allowed:
                raise UserError(f"tournament.refusal.status_{info.status}")
            ended = now if status in ("finished", "cancelled") else None
            await db.execute(
                "UPDATE tournaments SET status = ?, ended_at = COALESCE(?, ended_at) WHERE id = ?",
                (status, ended, tournament_id),
            )
            if status == "cancelled":
                games = await db.execute_fetchall(
                    "SELECT game_id FROM tournament_pairings WHERE tournament_id = ? AND game_id IS NOT NULL "
                    "AND result IS NULL",
                    (tournament_id,),
                )
                for row in games:
                    game_id = int(row[0])
                    cursor = await db.execute(
                        "UPDATE games SET status = 'cancelled', result = 'Cancelled', termination = 'cancelled', "
                        "updated_at = ?, version = version + 1, board_version = version + 1, ended_at = ? "
                        "WHERE id = ? AND status = 'active'",
                        (now, now, game_id),
                    )
                    if cursor.rowcount:
                        await self._schedule(db, int(game_id), None)
                await db.execute("DELETE FROM due WHERE tournament_id = ?", (tournament_id,))
            elif status == "finished":
                await db.execute("DELETE FROM due WHERE tournament_id = ?", (tournament_id,))
                # Its final standings and podium are owed from now on, until they are out.
                await self._owe_posts(db, tournament_id, end=True)
            elif status == "running" and info.status == "paused":
                await self._due_tournament(db, tournament_id, "advance", now)
            if actor_id:
                await self._log(db, tournament_id, actor_id, status, "")
        return await self.tournament(tournament_id)

    async def _owe_posts(
        self, db: Connection, tournament_id: int, *, start: bool = False, end: bool = False, at: float | None = None
    ) -> None:
        """Inside the transaction that makes a post owed (a start, a round stored, the end): the ``posts`` step
        that delivers it falls due now (``at``), and stays due until everything owed is out."""
        if start:
            await db.execute("UPDATE tournaments SET start_owed = 1, posts_done = 0 WHERE id = ?", (tournament_id,))
        if end:
            await db.execute("UPDATE tournaments SET end_owed = 1 WHERE id = ?", (tournament_id,))
        await self._due_tournament(db, tournament_id, "posts", self._now() if at is None else at)

    # --- results --------------------------------------------------------------------------------

    async def _record_pairing(
        self, db: Connection, before: GameInfo, winner_id: int | None, termination: str | None
    ) -> str | None:
        """Inside the transaction that ends a game: its tournament pairing's result, a no-show's withdrawal, and,
        once every game of the round has its result, the tournament's next step (``advance``) falls due now.

        Returns None for a game of no tournament (or one whose result was already set by its organiser),
        ``forfeit`` for a no-show (not rated), else ``game``.
        """
        rows = await db.execute_fetchall(
            "SELECT id, tournament_id, round, white, black, result FROM tournament_pairings WHERE game_id = ?",
            (before.id,),
        )
        found = [(int(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4]), r[5]) for r in rows]
        if not found or found[0][5] is not None:
            return None
        pairing_id, tournament_id, number, white, black, _ = found[0]
        kind = "game"
        result: str
        if termination == "cancelled":
            result = "--"  # neither scores; the organiser can set what it should have been
        elif winner_id is None:
            result = "1/2-1/2"
        else:
            loser = black if winner_id == white else white
            moved = await db.execute_fetchall(
                "SELECT 1 FROM moves WHERE game_id = ? AND user_id = ? LIMIT 1", (before.id, loser)
            )
            if termination in ("time forfeit", "adjudication") and not moved:
                # Lichess: a player who never came loses by forfeit and is withdrawn from the next round on.
                kind = "forfeit"
                result = "+-" if winner_id == white else "-+"
                await db.execute(
                    "UPDATE tournament_players SET left_round = ? "
                    "WHERE tournament_id = ? AND user_id = ? AND left_round IS NULL",
                    (number + 1, tournament_id, loser),
                )
                await self._log(db, tournament_id, 0, "no-show", str(loser))
            else:
                result = "1-0" if winner_id == white else "0-1"
        await db.execute("UPDATE tournament_pairings SET result = ? WHERE id = ?", (result, pairing_id))
        await self._advance_if_round_over(db, tournament_id, number)
        return kind

    async def _advance_if_round_over(self, db: Connection, tournament_id: int, number: int) -> None:
        open_left = await db.execute_fetchall(
            "SELECT 1 FROM tournament_pairings WHERE tournament_id = ? AND round = ? AND result IS NULL LIMIT 1",
            (tournament_id, number),
        )
        if not open_left:
            await self._due_tournament(db, tournament_id, "advance", self._now())

    async def set_result(self, tournament_id: int, pairing_id: int, result: str, *, actor_id: int) -> Pairing:
        """The organiser sets or corrects a pairing's result; a game still running in it is cancelled first (in the
        same transaction). Later rounds already paired keep their pairings; standings follow the new result."""
        if result not in RESULTS:
            raise UserError("tournament.refusal.not_a_result", result=repr(result), results=list(RESULTS))
        now = self._now()
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "SELECT * FROM tournament_pairings WHERE id = ? AND tournament_id = ?", (pairing_id, tournament_id)
            )
            found = [pairing_from_row(r) for r in rows]
            if not found:
                raise UserError("tournament.refusal.pairing_elsewhere")
            pairing = found[0]
            if pairing.game_id is not None:
                cursor = await db.execute(
                    "UPDATE games SET status = 'cancelled', result = 'Cancelled', termination = 'cancelled', "
                    "updated_at = ?, version = version + 1, board_version = version + 1, ended_at = ? "
                    "WHERE id = ? AND status = 'active'",
                    (now, now, pairing.game_id),
                )
                if cursor.rowcount:
                    await self._schedule(db, pairing.game_id, None)
            await db.execute(
                "UPDATE tournament_pairings SET result = ?, state = CASE WHEN game_id IS NULL THEN 'done' ELSE state "
                "END WHERE id = ?",
                (result, pairing_id),
            )
            await self._log(db, tournament_id, actor_id, "result", f"{pairing.round}.{pairing.board} {result}")
            await self._advance_if_round_over(db, tournament_id, pairing.round)
        return replace(pairing, result=result)

    # --- organisers -----------------------------------------------------------------------------

    async def _log(self, db: Connection, tournament_id: int, actor_id: int, action: str, detail: str) -> None:
        await db.execute(
            "INSERT INTO tournament_log (tournament_id, at, actor_id, action, detail) VALUES (?, ?, ?, ?, ?)",
            (tournament_id, self._now(), actor_id, action, detail),
        )

    async def tournament_log(self, tournament_id: int) -> list[tuple[float, int, str, str]]:
        rows = await self._fetchall(
            "SELECT at, actor_id, action, detail FROM tournament_log WHERE tournament_id = ? ORDER BY id",
            (tournament_id,),
        )
        return [(float(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]

    async def organiser_role(self, guild_id: int) -> int | None:
        rows = await self._fetchall("SELECT role_id FROM tournament_organisers WHERE guild_id = ?", (guild_id,))
        return None if not rows else int(rows[0][0])

    async def set_organiser_role(self, guild_id: int, role_id: int | None) -> None:
        async with self._transaction() as db:
            if role_id is None:
                await db.execute("DELETE FROM tournament_organisers WHERE guild_id = ?", (guild_id,))
            else:
                await db.execute(
                    "INSERT INTO tournament_organisers (guild_id, role_id) VALUES (?, ?) "
                    "ON CONFLICT (guild_id) DO UPDATE SET role_id = excluded.role_id",
                    (guild_id, role_id),
                )


async def count_rows(db: Connection, sql: str, *params: Any) -> int:
    rows = await db.execute_fetchall(sql, params)
    return int(next(iter(rows))[0])
