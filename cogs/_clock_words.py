"""The clock in words and in the image header, and reading the ``time`` option: shared by the board and challenges.

Not an extension: pure wording over ``bot.clocks``, so the board message can show a clock without
depending on the feature that runs the scheduler.
"""

from __future__ import annotations

from discord import app_commands

from bot.clocks import TimeControl, TimeControlError, format_left
from bot.errors import UserError
from bot.rules.protocol import SEATS
from bot.store import GameInfo

SUGGESTED = ("none", "1d", "2d", "3d", "7d", "5+3", "10+5", "15+10", "30+20", "24h+6h/72h", "48h+12h/96h")


def parse_time(text: str | None, default: TimeControl, *, inactivity_days: int) -> TimeControl:
    """A challenge's ``time`` option as a control (the server's default when left out); refusals say the forms."""
    if text is None or not text.strip():
        return default
    try:
        return TimeControl.parse(text, inactivity_days=inactivity_days)
    except TimeControlError as exc:
        raise UserError(exc.key, **exc.data) from exc


def time_suggestions(current: str) -> list[app_commands.Choice[str]]:
    """Common controls first; what is being typed, when it reads as a control, on top."""
    typed = current.strip()
    found: list[app_commands.Choice[str]] = []
    if typed:
        try:
            control = TimeControl.parse(typed)
        except TimeControlError:
            pass
        else:
            found.append(app_commands.Choice(name=f"{control.text}: {control.describe()}"[:100], value=control.text))
    for text in SUGGESTED:
        if text.startswith(typed.lower()) and all(choice.value != text for choice in found):
            found.append(app_commands.Choice(name=f"{text}: {TimeControl.parse(text).describe()}"[:100], value=text))
    return found[:25]


def clock_text(info: GameInfo, now: float) -> str | None:
    """Each side's time left and, while a clock runs, the deadline as a Discord timestamp (every reader's own zone)."""
    clock = info.clock
    if clock is None:
        return None
    control = info.time_control
    parts = []
    for seat in SEATS:
        colour = info.colour_of_seat(seat)
        who = colour.capitalize() if colour else ("First" if seat == "first" else "Second")
        if control.family == "fischer":
            parts.append(f"{who} {format_left(clock.left(seat, now))}")
    deadline = clock.deadline()
    line = " · ".join(parts)
    if deadline is not None and info.status == "active":
        user = info.user_for_seat(clock.running) if clock.running else None
        due = f"<t:{int(deadline)}:R>"
        if control.family == "none":
            due = f"ends if nobody moves {due}"
        else:
            due = f"{'move due' if user is None else 'time runs out'} {due}"
        line = f"{line} · {due}" if line else due
    return f"{control.describe()}\n{line}" if line else control.describe()


def names_with_time(info: GameInfo, names: dict[str, str], now: float) -> dict[str, str]:
    """Names for the image header with each side's time left (Fischer clocks), keyed as ``names`` is."""
    clock = info.clock
    if clock is None or info.time_control.family != "fischer":
        return names
    shown = dict(names)
    for seat in SEATS:
        colour = info.colour_of_seat(seat)
        for key in (seat, colour):
            if key is not None and key in shown:
                shown[key] = f"{shown[key]} · {format_left(clock.left(seat, now))}"
    return shown
