"""The clock in words and in the image header, and reading the ``time`` option: shared by the board and challenges.

Not an extension: pure wording over ``bot.clocks``, so the board message can show a clock without
depending on the feature that runs the scheduler.
"""

from __future__ import annotations

import math

from discord import app_commands

from bot.clocks import DAY, HOUR, MINUTE, TimeControl, TimeControlError
from bot.errors import UserError
from bot.i18n import LANGUAGES, Words, words
from bot.rules.protocol import SEATS
from bot.store.values import GameInfo

SUGGESTED = ("none", "1d", "2d", "3d", "7d", "5+3", "10+5", "15+10", "30+20", "24h+6h/72h", "48h+12h/96h")


def no_clock_words() -> frozenset[str]:
    """ "No clock" as each language writes it (``none``, ``ninguno``, ``なし``): the descriptions offer their own."""
    return frozenset(words(language)("clock.none_word").casefold() for language in LANGUAGES)


def parse_time(text: str | None, default: TimeControl, *, inactivity_days: int) -> TimeControl:
    """A challenge's ``time`` option as a control (the server's default when left out); refusals say the forms."""
    if text is None or not text.strip():
        return default
    if text.strip().casefold() in no_clock_words():
        text = "none"
    try:
        return TimeControl.parse(text, inactivity_days=inactivity_days)
    except TimeControlError as exc:
        raise UserError(exc.key, **exc.data) from exc


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def describe_control(w: Words, control: TimeControl) -> str:
    """A time control in words: "3 days per move", "5 min + 3 s", "48 h + 12 h (at most 96 h)"."""
    if control.family == "none":
        return w("clock.none", count=round(control.start / DAY))
    if control.family == "days":
        return w("clock.days", count=round(control.start / DAY))
    if control.is_live and control.cap is None:
        return w("clock.live", minutes=_number(control.start / MINUTE), seconds=_number(control.increment))
    start, increment = _number(control.start / HOUR), _number(control.increment / HOUR)
    if control.cap is None:
        return w("clock.corr", start=start, increment=increment)
    return w("clock.corr_cap", start=start, increment=increment, cap=_number(control.cap / HOUR))


def format_left(w: Words, seconds: float) -> str:
    """Time left as a clock face shows it: ``4:05`` under an hour, ``13 h 05`` under two days, ``3 d 4 h`` above."""
    seconds = max(0.0, seconds)
    if seconds < HOUR:
        whole = math.ceil(seconds)
        return w("clock.left_minutes", minutes=str(whole // 60), seconds=f"{whole % 60:02d}")
    if seconds < 2 * DAY:
        minutes = math.floor(seconds / MINUTE)
        return w("clock.left_hours", hours=str(minutes // 60), minutes=f"{minutes % 60:02d}")
    hours = math.floor(seconds / HOUR)
    return w("clock.left_days", days=str(hours // 24), hours=str(hours % 24))


_SPANS = (("days", DAY), ("hours", HOUR), ("minutes", MINUTE), ("seconds", 1))


def span_words(w: Words, seconds: float) -> str:
    """A span of time in words, for text where Discord shows no timestamp of its own: its two largest units,
    each with its plural form ("1 day 4 hours", "24 hours", "25 seconds"; "1日4時間")."""
    left = max(0, math.floor(seconds))
    parts: list[tuple[str, int]] = []
    for name, size in _SPANS:
        amount, left = divmod(left, int(size))
        if amount or (parts and len(parts) < 2):
            parts.append((name, amount))
        if len(parts) == 2:
            break
    parts = [(name, amount) for name, amount in parts if amount] or [("seconds", 0)]
    shown = [w(f"clock.span_{name}", count=amount) for name, amount in parts]
    return shown[0] if len(shown) == 1 else w("clock.span_pair", larger=shown[0], smaller=shown[1])


def time_suggestions(current: str, w: Words | None = None) -> list[app_commands.Choice[str]]:
    """Common controls first; what is being typed, when it reads as a control, on top."""
    w = w or words()
    typed = current.strip()
    if typed.casefold() in no_clock_words():
        typed = "none"
    found: list[app_commands.Choice[str]] = []
    if typed:
        try:
            control = TimeControl.parse(typed)
        except TimeControlError:
            pass
        else:
            shown = w("separator.label", label=control.text, text=describe_control(w, control))
            found.append(app_commands.Choice(name=shown[:100], value=control.text))
    for text in SUGGESTED:
        if text.startswith(typed.lower()) and all(choice.value != text for choice in found):
            shown = w("separator.label", label=text, text=describe_control(w, TimeControl.parse(text)))
            found.append(app_commands.Choice(name=shown[:100], value=text))
    return found[:25]


def clock_text(w: Words, info: GameInfo, now: float) -> str | None:
    """Each side's time left and, while a clock runs, the deadline as a Discord timestamp (every reader's own zone)."""
    clock = info.clock
    if clock is None:
        return None
    control = info.time_control
    parts = []
    for seat in SEATS:
        colour = info.colour_of_seat(seat)
        who = w(f"clock.{colour or seat}")
        if control.family == "fischer":
            parts.append(f"{who} {format_left(w, clock.left(seat, now))}")
    deadline = clock.deadline()
    line = " · ".join(parts)
    claim_until = info.claim_deadline
    if claim_until is not None and info.claimant is not None:
        # The first side let its window pass: the second, who could not have moved yet, has as long to claim the game.
        claim = w(
            "clock.claim_window",
            absent=f"<@{info.aborted_by}>",
            who=f"<@{info.claimant}>",
            window=span_words(w, clock.window or 0.0),
            when=f"<t:{int(claim_until)}:R>",
        )
        line = f"{line}\n{claim}" if line else claim
    elif deadline is not None and info.status == "active" and clock.awaiting_first_turn and clock.running is not None:
        # Before a side's first turn its clock waits: it has its first-move window, and missing it is a no-show.
        user = info.user_for_seat(clock.running)
        who = f"<@{user}>" if user is not None else w(f"clock.{info.colour_of_seat(clock.running) or clock.running}")
        window = span_words(w, clock.window or 0.0)
        first = w("clock.first_move", who=who, window=window, when=f"<t:{int(deadline)}:R>")
        line = f"{line}\n{first}" if line else first
    elif deadline is not None and info.status == "active":
        user = info.user_for_seat(clock.running) if clock.running else None
        when = f"<t:{int(deadline)}:R>"
        if control.family == "none":
            due = w("clock.ends_if_idle", when=when)
        else:
            due = w("clock.move_due" if user is None else "clock.runs_out", when=when)
        line = f"{line} · {due}" if line else due
    described = describe_control(w, control)
    return f"{described}\n{line}" if line else described


def times_left(w: Words, info: GameInfo, now: float) -> dict[str, str]:
    """Each side's time left for the image header (Fischer clocks), keyed by seat and, once known, by colour."""
    clock = info.clock
    if clock is None or info.time_control.family != "fischer":
        return {}
    shown: dict[str, str] = {}
    for seat in SEATS:
        left = format_left(w, clock.left(seat, now))
        colour = info.colour_of_seat(seat)
        for key in (seat, colour):
            if key is not None:
                shown[key] = left
    return shown
