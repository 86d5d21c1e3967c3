"""Time controls and clocks: reading what players type, charging turns, deadlines, downtime, caps."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.clocks import DAY, HOUR, MINUTE, Clock, TimeControl, TimeControlError, format_left


@pytest.mark.parametrize(
    ("typed", "canonical", "words"),
    [
        ("none", "none", "no clock (a game idle for 14 days ends)"),
        ("3d", "3d", "3 days per move"),
        (" 1 Day ", "1d", "1 day per move"),
        ("7 days", "7d", "7 days per move"),
        ("5+3", "5+3", "5 min + 3 s"),
        ("10 + 5", "10+5", "10 min + 5 s"),
        ("0.5+0", "0.5+0", "0.5 min + 0 s"),
        ("48h+12h/96h", "48h+12h/96h", "48 h + 12 h (at most 96 h)"),
        ("72h + 24h max 168h", "72h+24h/168h", "72 h + 24 h (at most 168 h)"),
    ],
)
def test_time_controls_read_forgivingly_and_write_canonically(typed: str, canonical: str, words: str) -> None:
    control = TimeControl.parse(typed)
    assert control.text == canonical and control.describe() == words
    assert TimeControl.parse(control.text) == control


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("0d", "from 1 to 30"),
        ("31d", "from 1 to 30"),
        ("181+0", "at most 180 minutes"),
        ("5+400", "at most the starting time"),
        ("48h+12h/24h", "cap is at least"),
        ("blitz", "is not a time control"),
        ("x" * 6000, "is not a time control"),
    ],
)
def test_bad_time_controls_are_refused_with_a_short_reason(typed: str, reason: str) -> None:
    with pytest.raises(TimeControlError, match=reason) as caught:
        TimeControl.parse(typed)
    assert len(str(caught.value)) < 200


def test_fischer_charges_the_turn_adds_the_increment_and_respects_the_cap() -> None:
    control = TimeControl.parse("48h+12h/60h")
    clock = control.new_clock().started("first", 0.0)
    assert clock.deadline() == 48 * HOUR
    clock = clock.after_turn("first", 2 * HOUR)
    assert clock.left("first", 2 * HOUR) == 58 * HOUR  # 46 h + 12 h
    assert clock.running == "second" and clock.deadline() == 2 * HOUR + 48 * HOUR
    clock = clock.after_turn("second", 3 * HOUR)  # 47 h + 12 h = 59 h
    assert clock.left("second", 3 * HOUR) == 59 * HOUR
    clock = clock.after_turn("first", 3 * HOUR + 60)  # 58 h - 1 min + 12 h > cap: 60 h
    assert clock.left("first", 0) == 60 * HOUR


def test_days_per_move_restart_every_turn() -> None:
    clock = TimeControl.parse("2d").new_clock().started("first", 100.0)
    assert clock.deadline() == 100.0 + 2 * DAY
    clock = clock.after_turn("first", 100.0 + 1.9 * DAY)
    assert clock.deadline() == 100.0 + 1.9 * DAY + 2 * DAY
    assert clock.flagged(100.0 + 3.8 * DAY) is None
    assert clock.flagged(100.0 + 3.9 * DAY) == "second"


def test_live_clock_flags_the_running_seat_only() -> None:
    clock = TimeControl.parse("5+3").new_clock().started("first", 0.0)
    clock = clock.after_turn("first", 10.0)  # 293 s left for first
    assert clock.left("first", 1e9) == 5 * MINUTE - 10 + 3
    assert clock.flagged(5 * MINUTE + 9.9) is None and clock.flagged(5 * MINUTE + 10) == "second"


def test_downtime_is_given_back_to_the_running_seat() -> None:
    clock = TimeControl.parse("1d").new_clock().started("second", 0.0)
    later = clock.paused_for(3 * HOUR)
    assert later.deadline() == DAY + 3 * HOUR and later.left("second", DAY) == pytest.approx(3 * HOUR)
    assert clock.paused_for(-5) == clock and TimeControl.parse("1d").new_clock().paused_for(9).running is None


def test_stopping_charges_the_running_seat_and_stops_time() -> None:
    clock = TimeControl.parse("10+0").new_clock().started("first", 0.0).stopped(125.0)
    assert clock.running is None and clock.deadline() is None and clock.first == 600 - 125


def test_reminders_fall_at_the_asked_time_left() -> None:
    clock = TimeControl.parse("3d").new_clock().started("first", 0.0)
    assert clock.at_left(DAY) == 2 * DAY and clock.at_left(HOUR) == 3 * DAY - HOUR
    assert clock.at_left(4 * DAY) is None  # already less than that at the turn's start
    assert clock.reminder_due(0.5) == 1.5 * DAY


@settings(max_examples=200, deadline=None)
@given(
    start=st.integers(1, 180),
    increment=st.integers(0, 60),
    turns=st.lists(st.floats(0, 600), min_size=1, max_size=40),
)
def test_a_fischer_bank_is_start_plus_increments_minus_time_spent(
    start: int, increment: int, turns: list[float]
) -> None:
    control = TimeControl.fischer(start * MINUTE, min(increment, start * 60))
    clock = control.new_clock().started("first", 0.0)
    now = 0.0
    spent = {"first": 0.0, "second": 0.0}
    count = {"first": 0, "second": 0}
    seat = "first"
    for taken in turns:
        now += taken
        clock = clock.after_turn(seat, now)  # type: ignore[arg-type]
        spent[seat] += taken
        count[seat] += 1
        seat = "second" if seat == "first" else "first"
    for who in ("first", "second"):
        expected = control.start + count[who] * control.increment - spent[who]
        assert clock.left(who, now) == pytest.approx(expected)  # type: ignore[arg-type]
    assert clock.deadline() == pytest.approx(now + clock.left(clock.running, now))  # type: ignore[arg-type]


def test_time_left_reads_like_a_clock_face() -> None:
    assert [format_left(s) for s in (0, 59.2, 245, 3599.5)] == ["0:00", "1:00", "4:05", "60:00"]
    assert format_left(13 * HOUR + 5 * MINUTE + 30) == "13 h 05"
    assert format_left(3 * DAY + 4 * HOUR + 59 * MINUTE) == "3 d 4 h"
    assert format_left(-5) == "0:00"


def test_the_clock_refuses_to_charge_a_seat_whose_time_does_not_run() -> None:
    clock = Clock(TimeControl.parse("1d"), DAY, DAY, "first", 0.0)
    with pytest.raises(ValueError, match="not second's time"):
        clock.after_turn("second", 5.0)


def test_the_first_move_window_scales_with_the_time_control() -> None:
    windows = {text: TimeControl.parse(text).first_move_window for text in ("1+0", "3+2", "5+3", "15+10", "60+30")}
    assert windows == {"1+0": 30.0, "3+2": 65.0, "5+3": 105.0, "15+10": 180.0, "60+30": 180.0}
    days = {text: TimeControl.parse(text).first_move_window for text in ("1d", "3d", "7d", "30d", "48h+12h/96h")}
    assert days == {"1d": DAY, "3d": DAY, "7d": 2 * DAY + 8 * HOUR, "30d": 3 * DAY, "48h+12h/96h": DAY}
    assert TimeControl.none(14).first_move_window == 3 * DAY


def test_a_first_turn_runs_on_its_window_and_leaves_the_bank_whole() -> None:
    control = TimeControl.parse("1+0")
    clock = control.new_clock().opened("first", 100.0)
    assert clock.awaiting_first_turn and clock.deadline() == 130.0 and clock.flagged(129.9) is None
    assert clock.left("first", 125.0) == 60.0 and clock.window_left(125.0) == 5.0
    assert clock.flagged(130.0) == "first"
    second = clock.after_turn("first", 125.0, first_turn_next=True)
    assert (second.first, second.second) == (60.0, 60.0), "no time charged"
    assert second.running == "second" and second.deadline() == 155.0
    running = second.after_turn("second", 150.0)
    assert not running.awaiting_first_turn and running.deadline() == 210.0, "Black's whole minute from now"
    assert running.after_turn("first", 170.0).first == 60.0 - 20.0
