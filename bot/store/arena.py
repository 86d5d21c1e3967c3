"""Arena tournaments as stored. An arena is one round (number 1) that lasts the tournament's ``round_minutes``;
its pairings are made a few at a time as players come free (``pair_arena``), each written in one transaction
with the step that opens its game, so a restart loses nothing: the waiting pool is not stored apart, it is every
player in the arena (not withdrawn, not paused) who has no game without a result. A game's end writes its
pairing's result, its end time and each player's own moves (``Tournaments._record_pairing``) and makes the
pairing step due at once. Berserk (``arena_berserk``) halves a player's own time and drops their increment,
before their first move, in the same transaction that marks it on the pairing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from bot.errors import UserError
from bot.rules.protocol import Seat
from bot.store.rounds import TournamentRounds
from bot.store.rows import clock_from_row, pairing_from_row, parse_control
from bot.store.values import GameInfo, Pairing
from bot.tournaments.arena import ArenaGame, Outcome, Waiting, berserk_clock, leaderboard, pair_waiting

log = logging.getLogger(__name__)

ARENA_ROUND = 1


@dataclass(frozen=True)
class ArenaPairing:
    """What ``pair_arena`` did: the pairings it made (white, black), and whether the arena is over (its time is
    up and no game is left to play out)."""

    made: tuple[tuple[int, int], ...]
    over: bool


def arena_games(pairings: Sequence[Pairing]) -> dict[int, list[ArenaGame]]:
    """Each player's finished arena games, in the order they ended; games never played (no result over the
    board) are left out."""
    out: dict[int, list[ArenaGame]] = {}
    done = [p for p in pairings if p.result in ("1-0", "0-1", "1/2-1/2", "+-", "-+")]
    done.sort(key=lambda p: (p.ended_at or 0.0, p.id))
    for p in done:
        white_won = p.result in ("1-0", "+-")
        black_won = p.result in ("0-1", "-+")
        for player, opponent, won, lost, berserk, moves in (
            (p.white, p.black, white_won, black_won, p.white_berserk, p.white_moves),
            (p.black, p.white, black_won, white_won, p.black_berserk, p.black_moves),
        ):
            outcome: Outcome = "win" if won else "loss" if lost else "draw"
            out.setdefault(player, []).append(ArenaGame(opponent, outcome, berserk, moves))
    return out


class Arenas(TournamentRounds):
    """Arena tournaments: pairing from the waiting pool, berserk, pausing, the leaderboard's message."""

    async def pair_arena(self, tournament_id: int, *, due_id: int | None = None) -> ArenaPairing:
        """Pair whoever is waiting, in one transaction with the step that opens their games. Nobody is paired once
        the arena's time is up; ``over`` then says whether every game has been played out."""
        now = self._now()
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            if due_id is not None:
                await db.execute("DELETE FROM due WHERE id = ?", (due_id,))
            if info.status != "running" or not info.is_arena:
                return ArenaPairing((), False)
            ends = (info.started_at or now) + info.round_minutes * 60
            rounds = await db.execute_fetchall(
                "SELECT 1 FROM tournament_rounds WHERE tournament_id = ? AND number = ?", (tournament_id, ARENA_ROUND)
            )
            if not rounds:
                # The arena's one round: announced (it owes no pairings post), ending when the arena does.
                await db.execute(
                    "INSERT INTO tournament_rounds (tournament_id, number, started_at, deadline, announced) "
                    "VALUES (?, ?, ?, ?, 1)",
                    (tournament_id, ARENA_ROUND, info.started_at or now, ends),
                )
                await self._due_tournament(db, tournament_id, f"deadline:{ARENA_ROUND}", ends)
            pairing_rows = await db.execute_fetchall(
                "SELECT * FROM tournament_pairings WHERE tournament_id = ? ORDER BY id", (tournament_id,)
            )
            pairings = [pairing_from_row(r) for r in pairing_rows]
            playing = {p for q in pairings if q.result is None for p in (q.white, q.black)}
            if now >= ends:
                return ArenaPairing((), not playing)
            players = await db.execute_fetchall(
                "SELECT user_id, rating, seed, left_round, paused FROM tournament_players WHERE tournament_id = ?",
                (tournament_id,),
            )
            ratings = {int(r[0]): int(r[1]) for r in players}
            active = [int(r[0]) for r in players if r[3] is None and not r[4]]
            games = arena_games(pairings)
            scores = {line.player: line.points for line in leaderboard(games, ratings)}
            last: dict[int, tuple[int, bool]] = {}
            balance: dict[int, int] = {}
            for p in pairings:  # in the order they were paired
                last[p.white], last[p.black] = (p.black, True), (p.white, False)
                balance[p.white] = balance.get(p.white, 0) + 1
                balance[p.black] = balance.get(p.black, 0) - 1
            waiting = [
                Waiting(
                    player,
                    scores.get(player, 0),
                    ratings[player],
                    last[player][0] if player in last else None,
                    balance.get(player, 0),
                    last[player][1] if player in last else None,
                )
                for player in active
                if player not in playing
            ]
            made = pair_waiting(waiting, others_playing=bool(playing))
            if not made:
                return ArenaPairing((), False)
            board = max((p.board for p in pairings), default=0)
            for white, black in made:
                board += 1
                await db.execute(
                    "INSERT INTO tournament_pairings (tournament_id, round, board, white, black, state, paired_at) "
                    "VALUES (?, ?, ?, ?, ?, 'paired', ?)",
                    (tournament_id, ARENA_ROUND, board, white, black, now),
                )
            # Due unless it is due or running already: a run in progress looks again before it ends.
            await db.execute(
                "INSERT INTO due (kind, tournament_id, key, due_at) VALUES ('tournament', ?, ?, ?) "
                "ON CONFLICT (kind, tournament_id, key) DO NOTHING",
                (tournament_id, f"play:{ARENA_ROUND}", now),
            )
        if self.on_scheduled is not None:
            self.on_scheduled(now)
        log.info("tournament %d: arena paired %d games", tournament_id, len(made))
        return ArenaPairing(tuple(made), False)

    async def arena_berserk(self, game_id: int, user_id: int) -> tuple[GameInfo, int]:
        """``user_id`` goes berserk in their arena game: half their own starting time taken off, no increment for
        them, before their first move. Refused (and nothing written) otherwise. Returns the game and its arena."""
        now = self._now()
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "SELECT p.id, p.white, p.black, p.white_berserk, p.black_berserk, p.result, t.format, t.status, t.id, "
                "t.berserk "
                "FROM tournament_pairings p JOIN tournaments t ON t.id = p.tournament_id WHERE p.game_id = ?",
                (game_id,),
            )
            row = next(iter(rows), None)
            if row is None or row[6] != "arena":
                raise UserError("arena.berserk_not_arena")
            if not row[9]:
                raise UserError("arena.berserk_off")
            pairing_id, white, black = int(row[0]), int(row[1]), int(row[2])
            if user_id not in (white, black):
                raise UserError("arena.berserk_not_yours")
            if row[5] is not None or row[7] != "running":
                raise UserError("arena.berserk_over")
            if row[3 if user_id == white else 4]:
                raise UserError("arena.berserk_already")
            moved = await db.execute_fetchall(
                "SELECT 1 FROM moves WHERE game_id = ? AND user_id = ? LIMIT 1", (game_id, user_id)
            )
            if moved:
                raise UserError("arena.berserk_too_late")
            games = await db.execute_fetchall("SELECT * FROM games WHERE id = ?", (game_id,))
            game = next(iter(games), None)
            if game is None or game["status"] != "active":
                raise UserError("arena.berserk_over")
            control = parse_control(game["time_control"], game["inactivity_days"])
            clock = clock_from_row(control, game)
            if clock is None or control.family != "fischer":
                raise UserError("arena.berserk_over")
            seat: Seat = "first" if user_id == int(game["challenger_id"]) else "second"
            half, _ = berserk_clock(control.start, control.increment)
            cut = control.start - half
            first, second = (clock.first - cut, clock.second) if seat == "first" else (clock.first, clock.second - cut)
            bare = ",".join(sorted({*clock.bare, seat}))
            await db.execute(
                "UPDATE games SET clock_first = ?, clock_second = ?, clock_bare = ?, updated_at = ?, "
                "version = version + 1, board_version = version + 1 WHERE id = ?",
                (first, second, bare, now, game_id),
            )
            column = "white_berserk" if user_id == white else "black_berserk"
            await db.execute(f"UPDATE tournament_pairings SET {column} = 1 WHERE id = ?", (pairing_id,))
            fresh = await db.execute_fetchall("SELECT * FROM games WHERE id = ?", (game_id,))
            new_clock = clock_from_row(control, next(iter(fresh)))
            await self._schedule(db, game_id, new_clock)
        return await self.get_game(game_id), int(row[8])

    async def arena_pause(self, tournament_id: int, user_id: int, *, paused: bool) -> None:
        """An arena player leaves the waiting pool (a game on is still played) or comes back to it."""
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            if not info.is_arena or info.status != "running":
                raise UserError("arena.not_running")
            rows = await db.execute_fetchall(
                "UPDATE tournament_players SET paused = ? WHERE tournament_id = ? AND user_id = ? "
                "AND left_round IS NULL RETURNING user_id",
                (int(paused), tournament_id, user_id),
            )
            if not list(rows):
                raise UserError("tournament.refusal.not_playing_you")
            if not paused:
                await self._due_tournament(db, tournament_id, "advance", self._now())

    async def set_leaderboard_message(self, tournament_id: int, message_id: int) -> None:
        async with self._transaction() as db:
            await db.execute(
                "UPDATE tournaments SET leaderboard_message_id = ? WHERE id = ?", (message_id, tournament_id)
            )
