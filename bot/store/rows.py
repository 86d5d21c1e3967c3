"""How a row of the database becomes a value of ``bot.store.values``, and a clock the columns that hold it.

``COLUMNS`` names the columns of ``games`` every game query reads, so a snapshot is always built whole.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from types import MappingProxyType
from typing import cast

from bot.clocks import Clock, TimeControl
from bot.db import Row
from bot.rules.protocol import GameState, Seat, Termination
from bot.rules.registry import find_game
from bot.store.values import (
    Dispute,
    Entrant,
    GameInfo,
    GuildSettings,
    Pairing,
    Status,
    TournamentFormat,
    TournamentInfo,
    TournamentStatus,
    Where,
)

COLUMNS = (
    "id, guild_id, channel_id, origin_channel_id, status, game, settings, place, challenger_id, opponent_id, "
    "ai_level, ply, turns, winner_id, result, created_at, updated_at, expires_at, challenge_message_id, "
    "board_message_id, undo_requested_by, version, board_version, posted_version, changed_stamp, termination, "
    "time_control, inactivity_days, clock_first, clock_second, clock_running, clock_since, proposed_by, rated, "
    "ended_at, aborted_by, aborted_how, clock_bare"
)

GUILD_SETTINGS_SQL = (
    "SELECT analysis, time_control, inactivity_days, rated, language FROM guild_settings WHERE guild_id = ?"
)


# --- time ---------------------------------------------------------------------------------------


def to_ts(moment: dt.datetime) -> float:
    """Seconds since the epoch; a naive datetime is taken as UTC, which is what discord.py hands out."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()


def from_ts(value: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(value, dt.UTC)


# --- games --------------------------------------------------------------------------------------


def info_from_row(row: Row) -> GameInfo:
    """A snapshot from a row read with the ``COLUMNS`` names (by name, so a column added later moves nothing)."""
    expires = row["expires_at"]
    return GameInfo(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        origin_channel_id=row["origin_channel_id"],
        status=cast(Status, row["status"]),
        kind=find_game(row["game"]),
        settings=cast(dict[str, str], json.loads(row["settings"])),
        where=cast(Where, row["place"]),
        challenger_id=row["challenger_id"],
        opponent_id=row["opponent_id"],
        ai_level=row["ai_level"],
        ply=row["ply"],
        turns=tuple(row["turns"].split()),
        winner_id=row["winner_id"],
        result=row["result"],
        created_at=from_ts(row["created_at"]),
        updated_at=from_ts(row["updated_at"]),
        expires_at=None if expires is None else from_ts(expires),
        challenge_message_id=row["challenge_message_id"],
        board_message_id=row["board_message_id"],
        undo_requested_by=row["undo_requested_by"],
        version=row["version"],
        board_version=row["board_version"],
        posted_version=row["posted_version"],
        changed_stamp=row["changed_stamp"],
        termination=cast("Termination | None", row["termination"]),
        time_control=(control := parse_control(row["time_control"], row["inactivity_days"])),
        clock=clock_from_row(control, row),
        proposed_by=row["proposed_by"],
        rated=bool(row["rated"]),
        ended_at=row["ended_at"],
        aborted_by=row["aborted_by"],
        aborted_how=cast("Termination | None", row["aborted_how"]),
    )


def parse_control(text: str, inactivity_days: int) -> TimeControl:
    return TimeControl.parse(text, inactivity_days=inactivity_days)


def clock_from_row(control: TimeControl, row: Row) -> Clock | None:
    """The stored clock; while the side to act has not made its first turn (the first two turns are each side's
    first, in every game), its first-move window runs instead of its bank."""
    if row["clock_first"] is None:
        return None
    running = cast("Seat | None", row["clock_running"])
    window = control.first_move_window if running is not None and int(row["ply"]) < 2 else None
    bare = tuple(cast("Seat", seat) for seat in (row["clock_bare"] or "").split(",") if seat)
    return Clock(control, row["clock_first"], row["clock_second"], running, row["clock_since"], window, bare)


def clock_values(clock: Clock | None) -> tuple[float | None, float | None, str | None, float | None]:
    if clock is None:
        return None, None, None, None
    return clock.first, clock.second, clock.running, clock.since


def with_state(info: GameInfo, state: GameState) -> GameInfo:
    """A snapshot whose game is already known, so it is not replayed again (a fresh snapshot's own memo)."""
    if info._replayed.state is None:
        info._replayed.state = state
    return info


def join_turns(turns: Sequence[str]) -> str:
    # Canonical turn texts never contain whitespace, so a space is an unambiguous separator.
    return " ".join(turns)


# --- settings and tournaments -------------------------------------------------------------------


def guild_settings(row: Row) -> GuildSettings:
    return GuildSettings(
        bool(row[0]),
        None if row[1] is None else str(row[1]),
        int(row[2]),
        bool(row[3]),
        None if row[4] is None else str(row[4]),
    )


def tournament_from_row(row: Row) -> TournamentInfo:
    return TournamentInfo(
        id=int(row["id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        organiser_id=int(row["organiser_id"]),
        name=str(row["name"]),
        game=str(row["game"]),
        settings=MappingProxyType(cast(dict[str, str], json.loads(row["settings"]))),
        format=cast(TournamentFormat, row["format"]),
        rounds=row["rounds"],
        best_of=int(row["best_of"]),
        time_control=parse_control(row["time_control"], row["inactivity_days"]),
        rated=bool(row["rated"]),
        max_players=row["max_players"],
        division_size=row["division_size"],
        starts_at=row["starts_at"],
        checkin_minutes=int(row["checkin_minutes"]),
        round_minutes=int(row["round_minutes"]),
        status=cast(TournamentStatus, row["status"]),
        message_id=row["message_id"],
        created_at=float(row["created_at"]),
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        start_owed=bool(row["start_owed"]),
        end_owed=bool(row["end_owed"]),
        posts_done=int(row["posts_done"]),
        leaderboard_message_id=row["leaderboard_message_id"],
        berserk=bool(row["berserk"]),
    )


def entrant_from_row(row: Row) -> Entrant:
    return Entrant(
        int(row["user_id"]),
        str(row["name"]),
        int(row["rating"]),
        row["seed"],
        int(row["joined_round"]),
        row["left_round"],
        bool(row["checked_in"]),
        bool(row["late"]),
        bool(row["absent"]),
        bool(row["absent_notice"]),
        bool(row["paused"]),
    )


def pairing_from_row(row: Row) -> Pairing:
    return Pairing(
        int(row["id"]),
        int(row["round"]),
        int(row["board"]),
        int(row["white"]),
        int(row["black"]),
        row["match"],
        row["result"],
        str(row["state"]),
        row["thread_id"],
        row["game_id"],
        bool(row["intro_posted"]),
        bool(row["dms_owed"]),
        bool(row["white_berserk"]),
        bool(row["black_berserk"]),
        int(row["white_moves"]),
        int(row["black_moves"]),
        row["ended_at"],
    )


def dispute_from_row(row: Row) -> Dispute:
    return Dispute(
        int(row["id"]),
        int(row["tournament_id"]),
        int(row["pairing_id"]),
        int(row["round"]),
        int(row["board"]),
        int(row["user_id"]),
        str(row["reason"]),
        str(row["result"]),
        float(row["opened_at"]),
        None if row["decided_by"] is None else int(row["decided_by"]),
        row["decision"],
        None if row["decided_at"] is None else float(row["decided_at"]),
    )
