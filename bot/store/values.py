"""What the store hands out: plain, frozen values of its rows, and the names of what a row may hold.

Nothing here reads or writes the database (no SQL, no connection, no store): the scheduler, the
tournament flow and the cogs import these values without the store's machinery. How a row becomes one
of them is ``bot.store.rows``.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from bot.clocks import DAY, DEFAULT_INACTIVITY_DAYS, MINUTE, Clock, TimeControl
from bot.rules import Game
from bot.rules.protocol import Colour, GameKind, GameState, Outcome, Seat, Termination, other_colour

Status = Literal["challenge", "active", "finished", "declined", "expired", "cancelled"]

Where = Literal["thread", "here"]

_OPEN_STATUSES: tuple[Status, ...] = ("challenge", "active")


# --- games --------------------------------------------------------------------------------------


def settings_json(settings: Mapping[str, str]) -> str:
    """A game's settings as the store keeps them: canonical JSON, sorted keys, no spaces (SQLite's json_object)."""
    return json.dumps(dict(settings), sort_keys=True, separators=(",", ":"))


class _Replayed:
    """Where a snapshot keeps its game once replayed: owned by one snapshot, never copied by ``replace``.

    The snapshot itself stays frozen; only this memo is filled in, at most once, with the value the
    turns imply, so reading it never changes what the snapshot is or compares equal to.
    """

    __slots__ = ("remember", "state")

    def __init__(self) -> None:
        self.state: GameState | None = None
        # Where a freshly replayed game is handed so the store can reuse it for later snapshots.
        self.remember: Callable[[int, GameState], None] | None = None


@dataclass(frozen=True)
class GameInfo:
    """One row of ``games``: a challenge or a game, as the bot last committed it.

    It is a snapshot: acting on a game goes through the store, which hands back a new snapshot.
    Seats follow the challenge: the challenger is the first player, the opponent the second.
    Which game it is (``kind``) and its ``settings`` come from the registry and the row; the rules'
    view of it (``state``) is replayed from ``turns`` by that game, at most once per snapshot.
    """

    id: int
    guild_id: int
    channel_id: int
    origin_channel_id: int
    status: Status
    kind: GameKind
    settings: Mapping[str, str]
    where: Where
    challenger_id: int
    opponent_id: int | None
    ai_level: int | None
    ply: int
    turns: tuple[str, ...]
    winner_id: int | None
    result: str | None
    created_at: dt.datetime
    updated_at: dt.datetime
    expires_at: dt.datetime | None
    challenge_message_id: int | None
    board_message_id: int | None
    undo_requested_by: int | None
    # Bumped by every change, never repeated (a ply repeats after an undo): what optimistic updates check.
    version: int = 0
    # The version whose board must be posted, and the newest version a posted board showed.
    board_version: int = 0
    posted_version: int = 0
    # When the latest change happened, as an ordering stamp on the chat service's clock (a snowflake).
    changed_stamp: int = 0
    # How a finished (or cancelled) game ended; None while it goes on, and for challenges never played.
    termination: Termination | None = None
    # The time control (``TimeControl.none(inactivity_days)`` for a casual game) and, once started, the clock.
    time_control: TimeControl = field(default_factory=TimeControl.none)
    clock: Clock | None = None
    # Who asked for this challenge when it was not the challenger (a rematch with the seats swapped).
    proposed_by: int | None = None
    # Whether the game counts for ratings (never against the AI), and when it ended.
    rated: bool = False
    ended_at: float | None = None
    # An aborted game (termination ``aborted``): who ended it before both players had played, and how
    # (``resignation`` or ``time forfeit``); a no-show's side that did not come (None: neither came). While the game
    # is still active, the first side that let its first-move window pass: its opponent may claim the game
    # (``awaiting_claim``). None for every other game.
    aborted_by: int | None = None
    aborted_how: Termination | None = None
    _replayed: _Replayed = field(default_factory=_Replayed, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # A read-only copy: a snapshot's settings cannot be changed behind its back either.
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))

    def __hash__(self) -> int:
        # Equal snapshots share id and version; settings (a mapping) cannot be hashed field by field.
        return hash((self.id, self.version, self.ply, self.status))

    @property
    def state(self) -> GameState:
        """The rules' view of this game, whichever game it is, replayed by ``kind`` at most once per snapshot."""
        memo = self._replayed
        if memo.state is None:
            memo.state = self.kind.replay(self.turns, self.settings)
            if memo.remember is not None:
                memo.remember(self.id, memo.state)
        return memo.state

    @property
    def game(self) -> Game:
        """The Veletas game, for the parts of the bot that only host Veletas so far; TypeError for another game."""
        state = self.state
        if not isinstance(state, Game):
            raise TypeError(f"game {self.id} is a {self.kind.name} game, not a Veletas one")
        return state

    @property
    def variant(self) -> str:
        """The Veletas board (``standard``, ``medium``, ``small``), read from the settings."""
        return self._veletas_setting("variant")

    @property
    def rules(self) -> str:
        """The Veletas rules edition (``current``, ``classic``), read from the settings."""
        return self._veletas_setting("rules")

    def _veletas_setting(self, name: str) -> str:
        value = self.settings.get(name)
        if value is None:
            raise TypeError(f"game {self.id} is a {self.kind.name} game: it has no {name}")
        return value

    @property
    def unannounced(self) -> bool:
        """Whether a change was stored that no posted board shows yet."""
        return self.board_version > self.posted_version

    @property
    def is_open(self) -> bool:
        """Whether anything can still happen to it (a pending challenge or a game in play)."""
        return self.status in _OPEN_STATUSES

    @property
    def proposer(self) -> int:
        """Who made the challenge: its challenger, or for a rematch with the seats swapped, the one who asked."""
        return self.challenger_id if self.proposed_by is None else self.proposed_by

    @property
    def answerer(self) -> int | None:
        """Who answers the challenge: the participant who did not propose it (None: anyone, an open challenge)."""
        if self.opponent_id is None:
            return None
        return self.opponent_id if self.proposer == self.challenger_id else self.challenger_id

    @property
    def is_ai_game(self) -> bool:
        return self.ai_level is not None

    @property
    def participants(self) -> tuple[int, ...]:
        """The challenger, then the opponent once known."""
        if self.opponent_id is None:
            return (self.challenger_id,)
        return (self.challenger_id, self.opponent_id)

    def user_for_seat(self, seat: Seat) -> int | None:
        if seat == "first":
            return self.challenger_id
        if seat == "second":
            return self.opponent_id
        raise ValueError(f"unknown seat {seat!r}: expected 'first' or 'second'")

    def seat_of_user(self, user_id: int) -> Seat | None:
        """'first', 'second', or None for someone outside the game."""
        if user_id == self.challenger_id:
            return "first"
        if self.opponent_id is not None and user_id == self.opponent_id:
            return "second"
        return None

    def colour_of_seat(self, seat: Seat) -> Colour | None:
        """The colour a seat plays; None while colours are not fixed (before Veletas's pie choice).

        The one place where seats become colours: everything else (names on images, records,
        results, who resigned) asks here.
        """
        first_colour = self.state.first_player_colour
        if first_colour is None:
            return None
        return first_colour if seat == "first" else other_colour(first_colour)

    def record_colour_of_seat(self, seat: Seat) -> Colour:
        """The colour a seat is written as in a record: its colour, or Black for the first seat before the pie."""
        return self.colour_of_seat(seat) or ("black" if seat == "first" else "white")

    def user_for_colour(self, colour: Colour) -> int | None:
        """Who plays ``colour``; None while colours are not fixed yet (before Veletas's pie choice)."""
        first_colour = self.state.first_player_colour
        if first_colour is None:
            return None
        return self.user_for_seat("first" if colour == first_colour else "second")

    def colour_of_user(self, user_id: int) -> Colour | None:
        """The colour ``user_id`` plays; None for outsiders and while colours are not fixed."""
        seat = self.seat_of_user(user_id)
        return None if seat is None else self.colour_of_seat(seat)

    @property
    def user_to_act(self) -> int | None:
        """Who the game is waiting for; None unless the game is in play."""
        if self.status != "active":
            return None
        seat = self.state.seat_to_act
        return None if seat is None else self.user_for_seat(seat)

    @property
    def aborted(self) -> bool:
        """Whether the game was aborted: ended before both players had played, so it counts for nothing."""
        return self.status == "finished" and self.termination == "aborted"

    @property
    def no_show(self) -> bool:
        """Whether a side did not come (its first turn not made within its first-move window): no result, no rating,
        in no record."""
        return self.status == "finished" and self.termination == "no-show"

    @property
    def absent(self) -> tuple[int, ...]:
        """The players of a no-show who did not come: the one named (``aborted_by``), or both (a double no-show)."""
        if not self.no_show:
            return ()
        if self.aborted_by is not None:
            return (self.aborted_by,)
        return tuple(self.participants)

    @property
    def awaiting_claim(self) -> bool:
        """Whether the first side let its first-move window pass and the second side, who could not have moved yet,
        has its own first-move window to claim the game (a no-show of the first side alone); when that window passes
        unclaimed, the game is a double no-show."""
        return self.status == "active" and self.aborted_by is not None and self.ply == 0

    @property
    def claimant(self) -> int | None:
        """The player who may claim the game while ``awaiting_claim`` (the side that was there)."""
        if not self.awaiting_claim:
            return None
        return next((p for p in self.participants if p != self.aborted_by), None)

    @property
    def claim_deadline(self) -> float | None:
        """When the window to claim the game ends: the first side's window, then as long again for the second."""
        clock = self.clock
        if not self.awaiting_claim or clock is None or clock.window is None:
            return None
        deadline = clock.deadline()
        return None if deadline is None else deadline + clock.window

    @property
    def counts_for_nothing(self) -> bool:
        """An aborted game or a no-show: not rated, in no record or streak."""
        return self.aborted or self.no_show

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended, as a fact of its own: the winner's colour (None for a draw) and the termination.

        None while the game goes on, and for challenges that were never played. A cancelled game has no
        winner. The winner's colour is the seat's record colour, so a game resigned before the pie choice
        has one too.
        """
        if self.termination is None or self.status not in ("finished", "cancelled"):
            return None
        winner: Colour | None = None
        if self.winner_id is not None:
            seat = self.seat_of_user(self.winner_id)
            winner = None if seat is None else self.record_colour_of_seat(seat)
        return Outcome(winner, self.termination)


# --- the scheduler ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DueRow:
    """Something that falls due: a game's deadline, or a reminder (``key``: seconds left it speaks of), or a
    tournament's step (kind ``tournament``: ``game_id`` is 0 and ``tournament_id`` names it; ``key`` says which)."""

    id: int
    kind: str
    game_id: int
    key: str
    due_at: float
    tournament_id: int | None = None
    token: str = ""
    """Whose claim this is (``claim_due`` wrote it): writes made for the row check it is still theirs."""

    @property
    def claim(self) -> Claim:
        return Claim(self.id, self.token)


@dataclass(frozen=True)
class Claim:
    """A due row as its taker holds it: the row and the taker's token. A write made for it lands only while the
    row is still claimed with that token (another process took it over after its lease ran out: it lost)."""

    due_id: int
    token: str


# --- preferences and settings -------------------------------------------------------------------

THEMES: tuple[str, ...] = ("light", "dark", "contrast")
"""The board themes a player may choose; the renderer draws each (a test keeps the two lists equal)."""

NOTIFY_MODES: tuple[str, ...] = ("ping", "dm", "both")

MAX_INACTIVITY_DAYS = 90

FOLLOW_SERVER = "auto"
"""``set_guild_settings(language=FOLLOW_SERVER)``: public posts follow the server's locale again."""


@dataclass(frozen=True)
class NotifyPrefs:
    """How a player hears of their turn: a ping on the board, a direct message, or both; and clock reminders."""

    mode: str = "ping"
    reminders: bool = True
    dm_blocked: bool = False  # a direct message to them was refused: not tried again until they choose DMs anew

    @property
    def wants_dm(self) -> bool:
        return self.mode in ("dm", "both") and not self.dm_blocked

    @property
    def wants_ping(self) -> bool:
        return self.mode in ("ping", "both") or self.dm_blocked


@dataclass(frozen=True)
class GuildSettings:
    """What a server's managers chose; the defaults stand for a server that never chose anything."""

    analysis: bool = True  # whether members may ask for analyses (off during a tournament, say)
    time_control: str | None = None  # the default time control of challenges (canonical text); None: no clock
    inactivity_days: int = DEFAULT_INACTIVITY_DAYS  # a game without a clock ends after this long without a move
    rated: bool = True  # whether challenges between members are rated unless they say otherwise
    language: str | None = None  # the language of public posts (bot.i18n.LANGUAGES); None: the server's locale

    def default_control(self) -> TimeControl:
        """The time control a challenge gets when its maker names none."""
        if self.time_control is None:
            return TimeControl.none(self.inactivity_days)
        return TimeControl.parse(self.time_control, inactivity_days=self.inactivity_days)


# --- ratings ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RatingChange:
    """One player's rating before and after one game, in one pool (scope: the server, or 0 for all servers)."""

    scope: int
    user_id: int
    before: float
    before_deviation: float
    after: float
    after_deviation: float

    @property
    def text(self) -> str:
        """``1523 → 1538 (+15)``, the sign always written."""
        delta = round(self.after) - round(self.before)
        return f"{round(self.before)} → {round(self.after)} ({delta:+d})"


# --- tournaments --------------------------------------------------------------------------------

TournamentFormat = Literal[
    "swiss", "round_robin", "double_round_robin", "single_elimination", "double_elimination", "arena"
]

TournamentStatus = Literal["signup", "running", "paused", "finished", "cancelled"]

TOURNAMENT_FORMATS: tuple[TournamentFormat, ...] = (
    "swiss",
    "round_robin",
    "double_round_robin",
    "single_elimination",
    "double_elimination",
)

RESULTS: tuple[str, ...] = ("1-0", "0-1", "1/2-1/2", "+-", "-+", "--")
LIVE_DISPUTE_WINDOW = 15 * MINUTE
"""How long after its end a game of a live time control (``TimeControl.is_live``) may have its result disputed."""
SLOW_DISPUTE_WINDOW = DAY
"""The same for every other time control (correspondence, days per move, none)."""


def dispute_window(control: TimeControl) -> float:
    """Seconds after a game's end during which its players may dispute its result, by its time control."""
    return LIVE_DISPUTE_WINDOW if control.is_live else SLOW_DISPUTE_WINDOW


MAX_DISPUTE_REASON = 300
"""The longest reason a dispute carries, in characters (the modal's limit, checked again by the store)."""

FINISHED_SHOWN = 365 * 24 * 3600.0
"""How long after its end a finished tournament is still read (info, standings, pairings, exports) and offered by
name; after that it is refused."""


@dataclass(frozen=True)
class TournamentInfo:
    """One row of ``tournaments``: what the organiser chose and where the tournament stands."""

    id: int
    guild_id: int
    channel_id: int
    organiser_id: int
    name: str
    game: str
    settings: Mapping[str, str]
    format: TournamentFormat
    rounds: int | None
    best_of: int
    time_control: TimeControl
    rated: bool
    max_players: int | None
    division_size: int | None
    starts_at: float | None
    checkin_minutes: int
    round_minutes: int
    status: TournamentStatus
    message_id: int | None
    created_at: float
    started_at: float | None
    ended_at: float | None
    start_owed: bool = False
    """Its start is still to be said in its channel (the ``posts`` step)."""
    end_owed: bool = False
    """Its final standings and podium are still to be posted."""
    posts_done: int = 0
    """Messages of the start (or the end) being delivered that are out already."""
    leaderboard_message_id: int | None = None
    """An arena's leaderboard, the one message edited in place as games end."""
    berserk: bool = True
    """Whether an arena's players may go berserk."""

    @property
    def is_arena(self) -> bool:
        return self.format == "arena"

    @property
    def is_elimination(self) -> bool:
        return self.format in ("single_elimination", "double_elimination")

    @property
    def is_live(self) -> bool:
        return self.status in ("running", "paused")

    @property
    def dispute_window(self) -> float:
        """Seconds after a game's end during which either player may dispute its result: minutes for a live
        round, a day for correspondence."""
        return dispute_window(self.time_control)

    @property
    def checkin_opens_at(self) -> float | None:
        if not self.checkin_minutes or self.starts_at is None:
            return None
        return self.starts_at - self.checkin_minutes * 60

    @property
    def checkin_reminder_at(self) -> float | None:
        """When entrants who have not checked in are reminded: halfway through the check-in window."""
        if not self.checkin_minutes or self.starts_at is None:
            return None
        return self.starts_at - self.checkin_minutes * 30

    def shown_until(self) -> float | None:
        """Until when a finished tournament is read and offered (None: it has not finished)."""
        if self.status != "finished" or self.ended_at is None:
            return None
        return self.ended_at + FINISHED_SHOWN


NoticeKind = Literal["reminder", "dropped"]


@dataclass(frozen=True)
class Notice:
    """A check-in notice owed to one entrant: a ``reminder`` to check in, or ``dropped`` for not having."""

    kind: NoticeKind
    user_id: int
    name: str


@dataclass(frozen=True)
class Entrant:
    user_id: int
    name: str
    rating: int
    seed: int | None
    joined_round: int
    left_round: int | None
    checked_in: bool
    late: bool
    absent: bool = False
    """Missed a game (a no-show): not paired in the next Swiss rounds until they rejoin."""
    absent_notice: bool = False
    """The private notice that they are absent (with its Rejoin button) is owed to them."""
    paused: bool = False
    """An arena player out of the waiting pool until they come back."""


@dataclass(frozen=True)
class Pairing:
    id: int
    round: int
    board: int
    white: int
    black: int
    match: str | None
    result: str | None
    state: str
    thread_id: int | None
    game_id: int | None
    intro_posted: bool = True
    dms_owed: bool = False
    """Its players who asked for direct messages (``/player notify``) are still to be told of the game by one."""
    white_berserk: bool = False
    black_berserk: bool = False
    white_moves: int = 0
    black_moves: int = 0
    ended_at: float | None = None
    """An arena game's end (its result's), which orders a player's games for their streak."""


@dataclass(frozen=True)
class RoundRow:
    number: int
    started_at: float
    deadline: float
    announced: bool
    posts_done: int = 0
    """Messages of its announcement (the standings before it, its pairings) that are out already."""
    recap: str = "done"
    """Its recap: ``waiting`` while it is played, ``owed`` once it is over, ``done`` once posted."""


@dataclass(frozen=True)
class Dispute:
    """A player's dispute of a tournament game's result and, once an organiser has ruled, the decision."""

    id: int
    tournament_id: int
    pairing_id: int
    round: int
    board: int
    user_id: int
    reason: str
    result: str
    """The result as it stood when it was disputed."""
    opened_at: float
    decided_by: int | None = None
    decision: str | None = None
    decided_at: float | None = None

    @property
    def is_open(self) -> bool:
        return self.decided_at is None


@dataclass(frozen=True)
class TournamentSnapshot:
    info: TournamentInfo
    players: tuple[Entrant, ...]
    rounds: tuple[RoundRow, ...]
    pairings: tuple[Pairing, ...]
    byes: tuple[tuple[int, int, str], ...]
    """(round, player, kind)"""
    disputes: tuple[Dispute, ...] = ()
    """Every dispute of its games' results, decided or not, in the order they were made."""

    @property
    def open_disputes(self) -> tuple[Dispute, ...]:
        return tuple(d for d in self.disputes if d.is_open)

    def round_pairings(self, number: int) -> tuple[Pairing, ...]:
        return tuple(p for p in self.pairings if p.round == number)


@dataclass(frozen=True)
class RoundPlan:
    """A paired round as ``save_round`` stores it: games (white, black, match id, a result decided already or
    None), byes (round, player, kind; a late joiner's ½-point bye names an earlier round), the seeds of late
    entrants, and the minutes until its deadline."""

    number: int
    games: tuple[tuple[int, int, str | None, str | None], ...]
    byes: tuple[tuple[int, int, str], ...]
    seeds: tuple[tuple[int, int], ...]
    minutes: int
