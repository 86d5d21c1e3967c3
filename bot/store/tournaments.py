"""Tournaments as stored: making one, reading it whole (``snapshot``), its start, status and results, its log
of organiser actions; and, inside the transaction that ends a tournament game, its pairing's result
(``_record_pairing``). Its players are ``bot.store.entries``; its rounds, pairings' threads and games and owed
posts are ``bot.store.rounds``.

A tournament is announced in one channel (one unfinished tournament per channel), members sign up, and the bot
runs its rounds; every step it takes falls due on the one scheduler (``DueRows._due_tournament``).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

from bot.clocks import DAY, DEFAULT_INACTIVITY_DAYS, TimeControl
from bot.db import Connection
from bot.errors import ChannelBusy, UserError
from bot.ids import is_id
from bot.rules.registry import find_game
from bot.store.due import DueRows
from bot.store.ratings import rerate_pools_of
from bot.store.rows import dispute_from_row, entrant_from_row, pairing_from_row, tournament_from_row
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
from bot.text import check_name

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
        berserk: bool = True,
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
                    "round_minutes, division_size, berserk, status, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'signup', ?) RETURNING *",
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
                        int(berserk),
                        now,
                    ),
                )
                info = tournament_from_row(next(iter(rows)))
                if starts_at is not None:
                    await self._due_tournament(db, info.id, "start", starts_at)
                    if checkin_minutes:
                        await self._due_tournament(db, info.id, "checkin", max(now, starts_at - checkin_minutes * 60))
                        await self._due_tournament(db, info.id, "remind", max(now, starts_at - checkin_minutes * 30))
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

    async def tournament_in_channel(self, guild_id: int, channel_id: int) -> TournamentInfo | None:
        """The tournament signing up or running in a channel, else the one that finished there last (None: neither)."""
        rows = await self._fetchall(
            "SELECT * FROM tournaments WHERE guild_id = ? AND channel_id = ? "
            "AND status IN ('signup', 'running', 'paused', 'finished') "
            "ORDER BY status = 'finished', COALESCE(ended_at, 0) DESC, id DESC LIMIT 1",
            (guild_id, channel_id),
        )
        return tournament_from_row(rows[0]) if rows else None

    async def finished_tournaments(self, guild_id: int, *, since: float, limit: int = 1000) -> list[TournamentInfo]:
        """A server's tournaments that finished at ``since`` or later, the most recently finished first."""
        rows = await self._fetchall(
            "SELECT * FROM tournaments WHERE guild_id = ? AND status = 'finished' AND ended_at >= ? "
            "ORDER BY ended_at DESC, id DESC LIMIT ?",
            (guild_id, since, limit),
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
                    "SELECT number, started_at, deadline, announced, posts_done, recap FROM tournament_rounds "
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
                disputes = await self._db.execute_fetchall(
                    "SELECT * FROM tournament_disputes WHERE tournament_id = ? ORDER BY id", (tournament_id,)
                )
            finally:
                await self._db.rollback()
        return TournamentSnapshot(
            tournament_from_row(next(iter(info_rows))),
            tuple(entrant_from_row(r) for r in players),
            tuple(RoundRow(int(r[0]), float(r[1]), float(r[2]), bool(r[3]), int(r[4]), str(r[5])) for r in rounds),
            tuple(pairing_from_row(r) for r in pairings),
            tuple((int(r[0]), int(r[1]), str(r[2])) for r in byes),
            tuple(dispute_from_row(r) for r in disputes),
        )

    async def _tournament_in(self, db: Connection, tournament_id: int) -> TournamentInfo:
        """Inside a transaction: the tournament as it stands under the write lock; refused when there is none."""
        if not is_id(tournament_id):
            raise UserError("tournament.refusal.no_tournament")
        rows = await db.execute_fetchall("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
        for row in rows:
            return tournament_from_row(row)
        raise UserError("tournament.refusal.no_tournament")

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
                # Those who did not check in are dropped, and told so (the ``notices`` step); a reminder still owed
                # to them is moot.
                await db.execute(
                    "DELETE FROM tournament_notices WHERE tournament_id = ? AND kind = 'reminder' AND sent = 0",
                    (tournament_id,),
                )
                dropped = await db.execute(
                    "INSERT INTO tournament_notices (tournament_id, kind, user_id, name) "
                    "SELECT tournament_id, 'dropped', user_id, name FROM tournament_players "
                    "WHERE tournament_id = ? AND checked_in = 0 ON CONFLICT DO NOTHING",
                    (tournament_id,),
                )
                if dropped.rowcount:
                    await self._due_tournament(db, tournament_id, "notices", self._now())
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
                "DELETE FROM due WHERE tournament_id = ? AND key IN ('start', 'checkin', 'remind')", (tournament_id,)
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
                # Its rounds' steps are done with it; what it still owes people (check-in notices, a dispute's post
                # to the organisers) goes out all the same.
                await db.execute(
                    "DELETE FROM due WHERE tournament_id = ? AND key <> 'notices' AND key NOT LIKE 'dispute:%'",
                    (tournament_id,),
                )
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
        """Inside the transaction that ends a game: its tournament pairing's result, a no-show's absence, and,
        once every game of the round has its result, the tournament's next step (``advance``) falls due now.

        Returns None for a game of no tournament (or one whose result was already set by its organiser),
        ``forfeit`` for a no-show (not rated), else ``game``.
        """
        rows = await db.execute_fetchall(
            "SELECT p.id, p.tournament_id, p.round, p.white, p.black, p.result, t.format FROM tournament_pairings p "
            "JOIN tournaments t ON t.id = p.tournament_id WHERE p.game_id = ?",
            (before.id,),
        )
        found = [(int(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4]), r[5], r[6]) for r in rows]
        if not found or found[0][5] is not None:
            return None
        pairing_id, tournament_id, number, white, black, _, format_ = found[0]
        arena = format_ == "arena"
        kind = "game"
        result: str
        if termination == "cancelled":
            result = "--"  # neither scores; the organiser can set what it should have been
        elif termination == "no-show":
            # A side missed its first-move window: the one the ending wrote as not come (``aborted_by``, in this
            # transaction) loses; neither came (NULL), both lose. A forfeit: nobody is rated.
            kind = "forfeit"
            rows = await db.execute_fetchall("SELECT aborted_by FROM games WHERE id = ?", (before.id,))
            named = [r[0] for r in rows]
            missing = None if not named or named[0] is None else int(named[0])
            absent = (white, black) if missing is None else (missing,)
            result = "--" if missing is None else "-+" if missing == white else "+-"
            await self._mark_absent(db, tournament_id, absent, arena=arena)
        elif winner_id is None:
            result = "1/2-1/2"
        else:
            loser = black if winner_id == white else white
            moved = await db.execute_fetchall(
                "SELECT 1 FROM moves WHERE game_id = ? AND user_id = ? LIMIT 1", (before.id, loser)
            )
            if termination in ("time forfeit", "adjudication") and not moved:
                # A player who never came loses by forfeit and is absent (paused) from the next round on.
                kind = "forfeit"
                result = "+-" if winner_id == white else "-+"
                await self._mark_absent(db, tournament_id, (loser,), arena=arena)
            else:
                result = "1-0" if winner_id == white else "0-1"
        await db.execute("UPDATE tournament_pairings SET result = ? WHERE id = ?", (result, pairing_id))
        if arena:
            # Its end orders the players' streaks, its moves decide a berserk point; its players wait again now.
            await db.execute(
                "UPDATE tournament_pairings SET ended_at = ?, "
                "white_moves = (SELECT COUNT(*) FROM moves WHERE game_id = ? AND user_id = ?), "
                "black_moves = (SELECT COUNT(*) FROM moves WHERE game_id = ? AND user_id = ?) WHERE id = ?",
                (self._now(), before.id, white, before.id, black, pairing_id),
            )
            await self._due_tournament(db, tournament_id, "advance", self._now())
            return kind
        await self._advance_if_round_over(db, tournament_id, number)
        return kind

    async def _mark_absent(
        self, db: Connection, tournament_id: int, players: Sequence[int], *, arena: bool = False
    ) -> None:
        """Inside the transaction that records a no-show: its absent players are paused (as Lichess's Swiss does:
        not paired in the next round, until they rejoin), not withdrawn, and each is owed a private notice. In an
        arena they leave the waiting pool instead, until they press Back in under its leaderboard."""
        for user_id in players:
            await db.execute(
                "UPDATE tournament_players SET paused = 1 WHERE tournament_id = ? AND user_id = ?"
                if arena
                else "UPDATE tournament_players SET absent = 1, absent_notice = 1 "
                "WHERE tournament_id = ? AND user_id = ? AND left_round IS NULL",
                (tournament_id, user_id),
            )
            await self._log(db, tournament_id, 0, "no-show", str(user_id))
        if arena:
            return
        # The notice goes out with the tournament's owed posts (``posts`` step), so a restart still sends it.
        await self._owe_posts(db, tournament_id)

    async def _advance_if_round_over(self, db: Connection, tournament_id: int, number: int) -> None:
        """Inside a transaction: once every pairing of round ``number`` has its result, the ``advance`` step
        (pairing the next round, or the end) falls due now, and the round's recap is owed (once: a result corrected
        later owes none)."""
        open_left = await db.execute_fetchall(
            "SELECT 1 FROM tournament_pairings WHERE tournament_id = ? AND round = ? AND result IS NULL LIMIT 1",
            (tournament_id, number),
        )
        if not open_left:
            owed = await db.execute(
                "UPDATE tournament_rounds SET recap = 'owed' WHERE tournament_id = ? AND number = ? "
                "AND recap = 'waiting'",
                (tournament_id, number),
            )
            if owed.rowcount:
                await self._owe_posts(db, tournament_id)
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
                else:
                    await self._rate_decision(db, pairing, result)
            await db.execute(
                "UPDATE tournament_pairings SET result = ?, state = CASE WHEN game_id IS NULL THEN 'done' ELSE state "
                "END WHERE id = ?",
                (result, pairing_id),
            )
            await self._log(db, tournament_id, actor_id, "result", f"{pairing.round}.{pairing.board} {result}")
            decided = await db.execute(
                "UPDATE tournament_disputes SET decided_by = ?, decision = ?, decided_at = ? "
                "WHERE pairing_id = ? AND decided_at IS NULL",
                (actor_id, result, now, pairing_id),
            )
            if decided.rowcount:
                await self._log(db, tournament_id, actor_id, "decision", f"{pairing.round}.{pairing.board} {result}")
            info = await self._tournament_in(db, tournament_id)
            if info.is_arena:
                # A game stopped by its result ends now (its players wait again); a correction keeps its end.
                await db.execute(
                    "UPDATE tournament_pairings SET ended_at = COALESCE(ended_at, ?) WHERE id = ?", (now, pairing_id)
                )
                await self._due_tournament(db, tournament_id, "advance", now)
            else:
                # Also after a decision: the round may have waited for it (``plan_next``), and pairs once it is taken.
                await self._advance_if_round_over(db, tournament_id, pairing.round)
        return replace(pairing, result=result)

    async def _rate_decision(self, db: Connection, pairing: Pairing, result: str) -> None:
        """Inside ``set_result``'s transaction, for a game played to its end: ratings follow the organiser's result.

        A game that was rated and now has another outcome gets it (its winner, or none for a draw) and its pools
        are rated again in order (``rerate_pools_of``), so the players' ratings and every later change follow; a
        forfeit or ``--`` takes it out of the ratings (a forfeit rates nobody). A game that was never rated (an
        unrated tournament, a no-show) stays unrated; one whose outcome is unchanged is left alone.
        """
        rows = await db.execute_fetchall(
            "SELECT winner_id FROM games WHERE id = ? AND status = 'finished' AND rating_seq IS NOT NULL",
            (pairing.game_id,),
        )
        found = list(rows)
        if not found:
            return
        winners = {"1-0": pairing.white, "0-1": pairing.black, "1/2-1/2": None}
        if result in winners and winners[result] == found[0][0]:
            return
        if result in winners:
            await db.execute("UPDATE games SET winner_id = ? WHERE id = ?", (winners[result], pairing.game_id))
        else:
            await db.execute("UPDATE games SET rating_seq = NULL WHERE id = ?", (pairing.game_id,))
            await db.execute("DELETE FROM rating_changes WHERE game_id = ?", (pairing.game_id,))
        await rerate_pools_of(db, cast(int, pairing.game_id))

    # --- organisers -----------------------------------------------------------------------------

    async def _log(self, db: Connection, tournament_id: int, actor_id: int, action: str, detail: str) -> None:
        """Inside a transaction: one line of the tournament's log (an organiser's action; ``actor_id`` 0: the bot's)."""
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
