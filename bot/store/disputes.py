"""Result disputes as stored: a player of a tournament game flags its result, once per game, within the window after
its end (``TournamentInfo.dispute_window``); an organiser decides it with ``/tournament result`` (``set_result`` in
``bot.store.tournaments`` closes it in the same transaction). While a dispute is open the next round is not paired
(``bot.tournament_flow.plan_next``), and the decision makes the tournament's next step due again. The post that
tells the organisers is owed in the dispute's own transaction: a ``dispute:<id>`` step, due until it is out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from bot.clocks import TimeControl
from bot.db import Row
from bot.errors import UserError
from bot.store.rows import dispute_from_row
from bot.store.tournaments import Tournaments
from bot.store.values import MAX_DISPUTE_REASON, Dispute, dispute_window
from bot.text import clean_name

Fetch = Callable[[str, Sequence[Any]], Awaitable[Iterable[Row]]]


def dispute_reason(text: str) -> str:
    """A reason as it is kept: on one line (every run of spaces and line breaks one space), control characters
    dropped; ``UserError`` if nothing visible is left or it is longer than ``MAX_DISPUTE_REASON``."""
    reason = clean_name(" ".join(text.split()), "")
    if not reason:
        raise UserError("dispute.refusal.no_reason")
    if len(reason) > MAX_DISPUTE_REASON:
        raise UserError("dispute.refusal.reason_long", count=MAX_DISPUTE_REASON)
    return reason


class Disputes(Tournaments):
    """Opening a dispute, checking one may be opened, and reading them."""

    async def check_dispute(self, game_id: int, user_id: int) -> None:
        """Refused (``UserError``) as ``open_dispute`` would refuse it, before the player is asked for a reason."""
        await self._dispute_target(self._fetchall, game_id, user_id)

    async def open_dispute(self, game_id: int, user_id: int, reason: str) -> Dispute:
        """``user_id`` disputes the result of the tournament game ``game_id``: refused (``UserError``, nothing
        written) unless they played it, it is over, nobody disputed it yet, and its window has not passed."""
        text = dispute_reason(reason)
        async with self._transaction() as db:
            tournament_id, pairing_id, number, board, result = await self._dispute_target(
                db.execute_fetchall, game_id, user_id
            )
            inserted = await db.execute_fetchall(
                "INSERT INTO tournament_disputes (tournament_id, pairing_id, round, board, user_id, reason, result, "
                "opened_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
                (tournament_id, pairing_id, number, board, user_id, text, result, self._now()),
            )
            dispute = dispute_from_row(next(iter(inserted)))
            await self._log(db, tournament_id, user_id, "dispute", f"{number}.{board} {result}")
            # The organisers' post is owed from now on: a step of its own, due until the post is out.
            await self._due_tournament(db, tournament_id, f"dispute:{dispute.id}", dispute.opened_at)
        return dispute

    async def _dispute_target(self, fetch: Fetch, game_id: int, user_id: int) -> tuple[int, int, int, int, str]:
        """The pairing ``user_id`` may dispute (tournament, pairing, round, board, its result); else ``UserError``."""
        rows = await fetch(
            "SELECT p.id, p.tournament_id, p.round, p.board, p.white, p.black, p.result, g.status, g.ended_at, "
            "t.status, t.time_control, EXISTS (SELECT 1 FROM tournament_disputes d WHERE d.pairing_id = p.id) "
            "FROM tournament_pairings p JOIN games g ON g.id = p.game_id "
            "JOIN tournaments t ON t.id = p.tournament_id WHERE p.game_id = ?",
            (game_id,),
        )
        found = list(rows)
        if not found:
            raise UserError("dispute.refusal.not_tournament")
        row = found[0]
        pairing_id, tournament_id, number, board = int(row[0]), int(row[1]), int(row[2]), int(row[3])
        if user_id not in (int(row[4]), int(row[5])):
            raise UserError("dispute.refusal.not_player")
        if row[6] is None or row[7] != "finished" or row[8] is None:
            raise UserError("dispute.refusal.not_over")
        if row[9] == "cancelled":
            raise UserError("tournament.refusal.status_cancelled")
        if row[11]:
            raise UserError("dispute.refusal.already")
        if self._now() > float(row[8]) + dispute_window(TimeControl.parse(str(row[10]))):
            raise UserError("dispute.refusal.too_late")
        return tournament_id, pairing_id, number, board, str(row[6])

    async def disputable(self, game_id: int) -> bool:
        """Whether a finished game's board still offers to dispute it: a tournament game nobody has disputed, its
        window still open, its tournament not cancelled."""
        rows = await self._fetchall(
            "SELECT g.ended_at, t.time_control, t.status FROM tournament_pairings p JOIN games g ON g.id = p.game_id "
            "JOIN tournaments t ON t.id = p.tournament_id WHERE p.game_id = ? AND p.result IS NOT NULL "
            "AND g.status = 'finished' AND NOT EXISTS (SELECT 1 FROM tournament_disputes d WHERE d.pairing_id = p.id)",
            (game_id,),
        )
        if not rows or rows[0][0] is None or rows[0][2] == "cancelled":
            return False
        return self._now() <= float(rows[0][0]) + dispute_window(TimeControl.parse(str(rows[0][1])))

    async def disputes(self, tournament_id: int) -> list[Dispute]:
        """A tournament's disputes, decided or not, in the order they were made."""
        rows = await self._fetchall(
            "SELECT * FROM tournament_disputes WHERE tournament_id = ? ORDER BY id", (tournament_id,)
        )
        return [dispute_from_row(r) for r in rows]
