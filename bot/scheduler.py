"""One scheduler for everything that falls due: deadlines (time forfeits), reminders and challenge expiry for every
game, and tournaments' steps (start, check-in, pairing the next round, opening a round's games, its deadline).

Discord-free: what to do with a row is a handler per kind, given by the bot. The rows live in the
store's ``due`` table, written in the same transaction as the change that makes them due; the loop
sleeps until the earliest one (one step down an index, never a scan), takes the rows due in small
batches under a lease, and hands each to its handler, which removes it in the same transaction as
its action. So a row is acted on once, a restart loses none, and a second process on the same
database (PostgreSQL) can share the work. A step is held for as long as it runs (``Hold``: its lease
renewed, its writes checked against its claim), so a slow step is never taken over while it runs, and
a step whose process died is taken over once its lease ends. The clock is injectable: tests run it simulated.

At start-up and every ``heartbeat`` seconds it tells the store it is alive; a gap longer than
``gap_allowed`` since the last time (the bot was down) is given back to every running clock first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable, Mapping

from bot.store import Store
from bot.store.values import Claim, DueRow

log = logging.getLogger(__name__)

Handler = Callable[[DueRow], Awaitable[None]]

TICK = 30.0
"""The longest sleep: the loop looks again at least this often, even with nothing due."""
LEASE = 60.0
"""How long a taken row is left to its taker before it falls due again for anyone."""
BATCH = 50
HEARTBEAT = 30.0
GAP_ALLOWED = 90.0
"""A pause longer than this since the last heartbeat is downtime, given back to every clock."""


class Hold:
    """A taken due row kept for as long as its step runs: its lease is renewed every third of it, so no other
    process takes the step over while this one works on it, however long that takes; a process that dies stops
    renewing, and its step falls due for the others when the lease ends. ``still_held`` renews at once and says
    whether the row is still this claim's; the step's writes also check the claim (``Claim``), and a step that
    lost it stops. Without a row (a step run directly, not taken from the scheduler) it holds nothing and never
    loses."""

    def __init__(self, store: Store, row: DueRow | None, lease: float) -> None:
        self.store = store
        self.row = row
        self.lease = lease
        self.lost = False
        self._task: asyncio.Task[None] | None = None

    @property
    def claim(self) -> Claim | None:
        return None if self.row is None else self.row.claim

    async def __aenter__(self) -> Hold:
        if self.row is not None:
            self._task = asyncio.create_task(self._renew(), name=f"hold-due-{self.row.id}")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _renew(self) -> None:
        while not self.lost:
            await asyncio.sleep(self.lease / 3)
            try:
                await self.still_held()
            except Exception:
                # The database did not answer this time (busy): the lease still runs; try again shortly.
                log.warning("Could not renew the lease of due row %s", self.claim, exc_info=True)

    async def still_held(self) -> bool:
        """Renew the lease now; False (and ``lost`` from then on) if another process took the row over."""
        claim = self.claim
        if claim is None:
            return True
        if not self.lost and not await self.store.renew_claim(claim, lease=self.lease):
            self.lost = True
            log.info("Due row %d is no longer this claim's (taken over, or due afresh): its step stops", claim.due_id)
        return not self.lost


class Scheduler:
    def __init__(
        self,
        store: Store,
        handlers: Mapping[str, Handler],
        *,
        owner: str = "",
        now: Callable[[], float] | None = None,
        tick: float = TICK,
        lease: float = LEASE,
        batch: int = BATCH,
        heartbeat: float = HEARTBEAT,
        gap_allowed: float = GAP_ALLOWED,
    ) -> None:
        self.store = store
        self.handlers = dict(handlers)
        # Who this process is when it takes rows (``Store.claimant``); given, its earlier runs' claims end at start.
        self.owner = owner
        self.now = now or store.now
        self.tick = tick
        self.lease = lease
        self.batch = batch
        self.heartbeat = heartbeat
        self.gap_allowed = gap_allowed
        self.acted = 0
        self.failed = 0
        self._wake = asyncio.Event()
        self.started = asyncio.Event()
        """Set once downtime was given back and the loop acts on due rows (``run``)."""
        self._last_alive = 0.0
        # When the loop will look next anyway (on the store's clock): -inf while it is looking, so a row
        # scheduled meanwhile always wakes the next sleep.
        self._looks_at = -math.inf
        store.on_scheduled = self.scheduled

    def wake(self) -> None:
        """Look again now (a test moved the clock)."""
        self._wake.set()

    def scheduled(self, due_at: float) -> None:
        """A row falling due at ``due_at`` was scheduled: look again now if the loop sleeps past that moment.

        Every move schedules its game's new deadline, later than what is due already: those wake nobody.
        """
        if due_at < self._looks_at:
            self._wake.set()

    def hold(self, row: DueRow | None) -> Hold:
        """Keep ``row`` for as long as the step acting on it runs (``async with``); see ``Hold``."""
        return Hold(self.store, row, self.lease)

    async def start(self) -> float:
        """Give back downtime before anything is acted on; returns the seconds given back. The steps an earlier
        run of this process left unfinished (it was stopped or killed holding them) fall due at once."""
        given = await self.store.keep_alive(gap_allowed=self.gap_allowed)
        self._last_alive = time.monotonic()
        if self.owner:
            released = await self.store.release_claims(self.owner)
            if released:
                log.info("%d step(s) an earlier run left unfinished fall due now", released)
        return given

    async def run(self) -> None:
        """Act on due rows until cancelled."""
        await self.start()
        self.started.set()
        while True:
            # Cleared before looking, so a row scheduled while this round runs wakes the next sleep at once.
            self._wake.clear()
            self._looks_at = -math.inf
            try:
                # Alive first: after a stall (the machine slept), time is given back before anything is acted on.
                if time.monotonic() - self._last_alive >= self.heartbeat:
                    await self.store.keep_alive(gap_allowed=self.gap_allowed)
                    self._last_alive = time.monotonic()
                await self.run_due()
                delay = await self._sleep_for()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("The scheduler failed a round; trying again shortly")
                delay = min(self.tick, 5.0)
            self._looks_at = self.now() + delay
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)

    async def _sleep_for(self) -> float:
        next_at = await self.store.next_due_at()
        if next_at is None:
            return self.tick
        return max(0.0, min(self.tick, next_at - self.now()))

    async def run_due(self) -> int:
        """Act on everything due now, batch by batch; returns how many rows were handled."""
        handled = 0
        while True:
            rows = await self.store.claim_due(self.now(), lease=self.lease, limit=self.batch, owner=self.owner)
            if not rows:
                return handled
            for row in rows:
                handler = self.handlers.get(row.kind)
                if handler is None:
                    log.error("No handler for due rows of kind %r (row %d)", row.kind, row.id)
                    continue
                try:
                    # Held while its handler runs (a handler that starts a longer step in the background holds
                    # the row there itself, with ``hold``).
                    async with self.hold(row):
                        await handler(row)
                    self.acted += 1
                except Exception:
                    # The row stays leased: it falls due again when the lease ends.
                    self.failed += 1
                    subject = f"tournament {row.tournament_id}" if row.tournament_id else f"game {row.game_id}"
                    log.exception("Acting on due row %d (%s, %s) failed", row.id, row.kind, subject)
                handled += 1
