"""Time controls and game clocks: pure arithmetic on values, for both games, with no I/O and no asyncio.

Three families, as the communities that play these games by correspondence and live know them:

- **days per move** (``3d``): each turn may take that long; the allowance starts afresh every turn
  (Lichess correspondence).
- **Fischer** (``5+3`` live, in minutes and seconds; ``48h+12h/96h`` correspondence, in hours, with a
  cap): a bank that starts full, loses the time a turn takes and gains the increment after it, never
  above the cap (AbstractPlay, OGS).
- **none** (casual): no clock is shown, but a server's inactivity limit still ends a game nobody
  plays; it behaves as days per move with that limit.

Every turn of a game runs on the clock, setup and the pie choice included, except each side's first turn:
a side's time does not run before its first turn, which it must make within a first-move window instead
(``TimeControl.first_move_window``); a side that misses it is a no-show. Times are seconds since
the epoch (floats); a ``Clock`` knows whose time runs since when, so the deadline of the player to
act is a number the scheduler can index, and downtime of the bot can be given back to everybody
with ``Clock.paused_for``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Final, Literal

from bot.rules.protocol import Seat, other_seat

Family = Literal["days", "fischer", "none"]

MINUTE: Final = 60.0
HOUR: Final = 3600.0
DAY: Final = 86_400.0

DEFAULT_INACTIVITY_DAYS: Final = 14
MAX_DAYS_PER_MOVE: Final = 30
MAX_FISCHER_START: Final = 60 * DAY
LIVE_LIMIT: Final = 3 * HOUR
"""A Fischer bank up to this size is a live game (minutes and seconds); above it, correspondence (hours)."""
LIVE_WINDOW: Final = (30.0, 3 * MINUTE)
"""A live game's first-move window: a quarter of its expected length, within these bounds (seconds)."""
CORRESPONDENCE_WINDOW: Final = (DAY, 3 * DAY)
"""A correspondence game's first-move window: a third of a turn's allowance, within these bounds (seconds)."""


class TimeControlError(ValueError):
    """A time control that cannot be read or is out of range; the message says what is accepted.

    ``key`` and ``data`` name the same refusal for the bot's catalogue (``bot.i18n``), in any language.
    """

    def __init__(self, message: str, key: str, /, **data: str | int) -> None:
        super().__init__(message)
        self.key = key
        self.data = data


_DAYS_RE: Final = re.compile(r"(\d+)\s*(?:d|days?|days per move|d/move)")
_LIVE_RE: Final = re.compile(r"(\d+(?:\.\d+)?)\s*\+\s*(\d+)")
_CORR_RE: Final = re.compile(r"(\d+)\s*h?\s*\+\s*(\d+)\s*h\s*(?:/|max|cap)\s*(\d+)\s*h?")
_FORMS: Final = "none, days per move like 3d, live like 5+3 (minutes + seconds), or correspondence like 48h+12h/96h"


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A game's time control. ``start``, ``increment`` and ``cap`` are seconds; ``cap`` is None for no cap.

    For days per move and none, ``start`` is the allowance of every turn and ``increment`` is 0.
    """

    family: Family
    start: float
    increment: float = 0.0
    cap: float | None = None

    @classmethod
    def none(cls, inactivity_days: int = DEFAULT_INACTIVITY_DAYS) -> TimeControl:
        return cls("none", inactivity_days * DAY)

    @classmethod
    def days(cls, days: int) -> TimeControl:
        if not 1 <= days <= MAX_DAYS_PER_MOVE:
            raise TimeControlError(
                f"days per move go from 1 to {MAX_DAYS_PER_MOVE}, not {days}",
                "clock.error_days",
                count=MAX_DAYS_PER_MOVE,
                given=days,
            )
        return cls("days", days * DAY)

    @classmethod
    def fischer(cls, start: float, increment: float, cap: float | None = None) -> TimeControl:
        if not 0 < start <= MAX_FISCHER_START:
            raise TimeControlError("a clock starts with more than nothing and at most 60 days", "clock.error_start")
        if not 0 <= increment <= start:
            raise TimeControlError("the increment is at least 0 and at most the starting time", "clock.error_increment")
        if cap is not None and cap < start:
            raise TimeControlError("the cap is at least the starting time", "clock.error_cap")
        return cls("fischer", float(start), float(increment), None if cap is None else float(cap))

    @classmethod
    def parse(cls, text: str, *, inactivity_days: int = DEFAULT_INACTIVITY_DAYS) -> TimeControl:
        """Read what a player typed (forgiving about case and spaces); ``TimeControlError`` says the forms."""
        cleaned = " ".join(text.strip().lower().split())
        if cleaned in ("", "none", "casual", "no clock", "-"):
            return cls.none(inactivity_days)
        if (m := _DAYS_RE.fullmatch(cleaned)) is not None:
            return cls.days(int(m.group(1)))
        if (m := _CORR_RE.fullmatch(cleaned)) is not None:
            start, increment, cap = (int(g) * HOUR for g in m.groups())
            return cls.fischer(start, increment, cap)
        if (m := _LIVE_RE.fullmatch(cleaned)) is not None:
            minutes, seconds = float(m.group(1)), int(m.group(2))
            if minutes * MINUTE > LIVE_LIMIT:
                raise TimeControlError(
                    "a live clock has at most 180 minutes; for longer games use hours, like 48h+12h/96h",
                    "clock.error_live",
                )
            return cls.fischer(minutes * MINUTE, seconds)
        shown = cleaned if len(cleaned) <= 24 else cleaned[:23] + "…"
        raise TimeControlError(f"“{shown}” is not a time control: use {_FORMS}", "clock.error_form", text=shown)

    @property
    def is_live(self) -> bool:
        return self.family == "fischer" and self.start <= LIVE_LIMIT

    @property
    def text(self) -> str:
        """The canonical text, which ``parse`` reads back to the same control (stored, and shown in records)."""
        if self.family == "none":
            return "none"
        if self.family == "days":
            return f"{round(self.start / DAY)}d"
        if self.is_live and self.cap is None:
            return f"{_number(self.start / MINUTE)}+{_number(self.increment)}"
        cap = self.cap if self.cap is not None else self.start
        return f"{_number(self.start / HOUR)}h+{_number(self.increment / HOUR)}h/{_number(cap / HOUR)}h"

    def describe(self) -> str:
        """In words, for boards and challenges: "3 days per move", "5 min + 3 s", "48 h + 12 h (at most 96 h)"."""
        if self.family == "none":
            return f"no clock (a game idle for {round(self.start / DAY)} days ends)"
        if self.family == "days":
            days = round(self.start / DAY)
            return f"{days} day{'s' if days != 1 else ''} per move"
        if self.is_live and self.cap is None:
            return f"{_number(self.start / MINUTE)} min + {_number(self.increment)} s"
        cap = f" (at most {_number(self.cap / HOUR)} h)" if self.cap is not None else ""
        return f"{_number(self.start / HOUR)} h + {_number(self.increment / HOUR)} h{cap}"

    @property
    def first_move_window(self) -> float:
        """How long each side has for its first turn, in whole seconds, before it is a no-show.

        Live (Fischer up to 3 hours): a quarter of the game's expected length (the bank and 40 increments),
        at least 30 seconds and at most 3 minutes (``1+0``: 30 s, ``5+3``: 105 s, ``15+10``: 3 min).
        Correspondence (days per move, a Fischer bank in hours, no clock): a third of a turn's allowance, at
        least a day and at most three (``1d`` and ``3d``: 1 day, ``7d``: 2 days 8 hours, none: 3 days).
        """
        if self.is_live:
            low, high = LIVE_WINDOW
            return float(round(min(high, max(low, (self.start + 40 * self.increment) / 4))))
        low, high = CORRESPONDENCE_WINDOW
        return float(round(min(high, max(low, self.start / 3))))

    def new_clock(self) -> Clock:
        """Both banks full, nobody's time running yet (the game starts it with ``Clock.started``)."""
        return Clock(self, self.start, self.start, None, None)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@dataclass(frozen=True, slots=True)
class Clock:
    """Both seats' time left, and whose time runs since when. Immutable: every change returns a new Clock.

    ``first`` and ``second`` are the seconds left in each bank at the moment the running seat's
    time started (for days per move: the allowance of the current turn). ``window`` is set while the
    running seat has not made its first turn: its bank does not run, and it must act within ``window``
    seconds of ``since`` (``TimeControl.first_move_window``); it is not stored, the game's ply says it.
    """

    control: TimeControl
    first: float
    second: float
    running: Seat | None
    since: float | None
    window: float | None = None
    bare: tuple[Seat, ...] = ()
    """Seats that play without the increment (an arena player who went berserk)."""

    def left(self, seat: Seat, now: float) -> float:
        """Seconds ``seat`` has left at ``now`` (negative once flagged)."""
        bank = self.first if seat == "first" else self.second
        if self.running == seat and self.since is not None and self.window is None:
            return bank - max(0.0, now - self.since)
        return bank

    def deadline(self) -> float | None:
        """When the running seat's time (or first-move window) runs out; None when no time runs (not started, over)."""
        if self.running is None or self.since is None:
            return None
        if self.window is not None:
            return self.since + self.window
        return self.since + (self.first if self.running == "first" else self.second)

    @property
    def awaiting_first_turn(self) -> bool:
        """Whether the running seat has yet to make its first turn (its first-move window runs, not its bank)."""
        return self.window is not None and self.running is not None

    def window_left(self, now: float) -> float | None:
        """Seconds left of the running seat's first-move window at ``now``; None when no window runs."""
        deadline = self.deadline()
        return None if deadline is None or self.window is None else deadline - now

    def in_window(self, window: float | None) -> Clock:
        """The same clock with the running seat on its first turn (``window`` seconds from ``since``), or off it."""
        return replace(self, window=window)

    def flagged(self, now: float) -> Seat | None:
        """The seat whose time has run out at ``now``, if any."""
        deadline = self.deadline()
        return self.running if deadline is not None and now >= deadline else None

    def started(self, seat: Seat, now: float) -> Clock:
        """The clock with ``seat``'s time running from ``now``, its bank running."""
        return replace(self, running=seat, since=now, window=None)

    def opened(self, seat: Seat, now: float) -> Clock:
        """The clock of a game that starts at ``now`` with ``seat`` to act: its first-move window runs."""
        return replace(self, running=seat, since=now, window=self.control.first_move_window)

    def after_turn(
        self, seat: Seat, now: float, *, next_seat: Seat | None = None, first_turn_next: bool = False
    ) -> Clock:
        """The clock after ``seat`` played at ``now``: its time charged, the increment added, the next seat's running.

        ``next_seat`` is who acts next: the other seat by default, the same seat in Veloop's double
        turns (its increment then comes once per ply, as the turn's own plies are moves). A game that
        ended with this turn calls ``stopped`` instead. A turn played after the deadline is the
        caller's to refuse: here the bank simply goes negative. A first turn (in its window) costs nothing
        and earns nothing: the bank is as full after it as before. ``first_turn_next`` says the next seat
        has not played yet, so its first-move window starts now.
        """
        if self.running != seat:
            raise ValueError(f"it is not {seat}'s time that runs")
        spent = 0.0 if self.since is None or self.window is not None else max(0.0, now - self.since)
        control = self.control
        bank = (self.first if seat == "first" else self.second) - spent
        if self.window is not None:
            pass  # the first turn: the bank stays whole
        elif control.family == "fischer":
            bank += 0.0 if seat in self.bare else control.increment
            if control.cap is not None:
                bank = min(bank, control.cap)
        else:
            bank = control.start  # a fresh allowance for the next turn of this seat
        first, second = (bank, self.second) if seat == "first" else (self.first, bank)
        following = other_seat(seat) if next_seat is None else next_seat
        if control.family != "fischer":
            # Days per move: whoever acts next gets a whole allowance from now.
            if following == "first":
                first = control.start
            else:
                second = control.start
        window = control.first_move_window if first_turn_next else None
        return Clock(control, first, second, following, now, window, self.bare)

    def stopped(self, now: float) -> Clock:
        """The clock at the end of the game: the running seat's time charged up to ``now``, nothing running."""
        if self.running is None:
            return self
        left = self.left(self.running, now)
        first, second = (left, self.second) if self.running == "first" else (self.first, left)
        return Clock(self.control, first, second, None, None, None, self.bare)

    def paused_for(self, seconds: float) -> Clock:
        """The clock with ``seconds`` given back to the running seat (the bot was down: nobody loses by it)."""
        if self.running is None or self.since is None or seconds <= 0:
            return self
        return replace(self, since=self.since + seconds)

    def reminder_due(self, fraction_left: float) -> float | None:
        """When the running seat has ``fraction_left`` of this turn's time left (for "24 h left" notices)."""
        deadline = self.deadline()
        if deadline is None or self.since is None:
            return None
        return deadline - (deadline - self.since) * fraction_left

    def at_left(self, seconds_left: float) -> float | None:
        """When the running seat has ``seconds_left`` left; None if that moment has already passed at its start."""
        deadline = self.deadline()
        if deadline is None or self.since is None:
            return None
        moment = deadline - seconds_left
        return moment if moment > self.since else None


def format_left(seconds: float) -> str:
    """Time left as a clock face shows it: ``4:05`` under an hour, ``13 h 05`` under two days, ``3 d 4 h`` above."""
    seconds = max(0.0, seconds)
    if seconds < HOUR:
        whole = math.ceil(seconds)
        return f"{whole // 60}:{whole % 60:02d}"
    if seconds < 2 * DAY:
        minutes = math.floor(seconds / MINUTE)
        return f"{minutes // 60} h {minutes % 60:02d}"
    hours = math.floor(seconds / HOUR)
    return f"{hours // 24} d {hours % 24} h"
