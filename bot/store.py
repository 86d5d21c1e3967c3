"""Everything the bot keeps, in one SQLite file or one PostgreSQL database, and the only module that speaks SQL.

The design follows from what must survive: a restart, a crash at any instant, two players
clicking at the same moment. So:

- Every game has an append-only move log (``moves``); the ``games`` row caches what the log
  implies (ply, turns, result). Both change in one transaction, and the cache can always be
  rebuilt by replaying the log (``rebuild``).
- A move is validated by the rules against the state that was read, then written with an
  optimistic ``UPDATE … WHERE id = ? AND version = ?``. Every change bumps ``version`` (a ply
  repeats after an undo, a version never does). If anything landed in between, the update touches
  no row and the action is refused with ``RaceLost``: two racing moves never both land, whether
  they come from one process or several, and a move chosen for a position that was undone and
  replayed never lands either.
- A change players must be told of records its version in ``board_version``; a posted board records
  the version it shows in ``posted_version``. A change no board shows yet (the process died, the
  post failed) is found by ``unannounced_games`` and posted then.
- Every refusal is decided before the first write, so a refused action leaves the file unchanged.
- Migrations are an append-only list; each runs in one transaction together with its version
  bump (SQLite's ``PRAGMA user_version``, PostgreSQL's ``schema_version`` table), so a crash
  mid-migration leaves the previous version intact.
- Games are loaded on demand, one row at a time; only a small LRU of rebuilt ``Game`` values is
  kept in memory so that replaying the log is not repeated on every move.

One connection writes for the process (bot/db: aiosqlite for a file, asyncpg for a ``postgresql://``
URL; the SQL is written once, in SQLite's dialect, and translated there for PostgreSQL). A connection
has one open transaction at a time, so an asyncio lock keeps coroutines from interleaving statements;
reads outside transactions go to connections of their own (``concurrent_reads``) and see only what is
committed. Write transactions take the database's write lock (on PostgreSQL, a game's own writes take
it shared with that game's lock), so on either backend the checks a transaction makes hold until it
commits, whatever other processes do.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import sqlite3
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import Any, Literal, cast

from bot.clocks import DAY, DEFAULT_INACTIVITY_DAYS, HOUR, Clock, TimeControl
from bot.db import Busy, Connection, Database, Row, open_database, redact
from bot.errors import (
    ChallengeClosed,
    ChallengeExists,
    ChannelBusy,
    GameFinished,
    InvalidMove,
    NoGameHere,
    NotAParticipant,
    NotYourTurn,
    OpenChallenge,
    RaceLost,
    TimeIsUp,
    TooManyChallenges,
    UndoRefused,
    UserError,
)
from bot.i18n import LANGUAGES, Phrase
from bot.ids import is_id
from bot.ratings import PROVISIONAL_DEVIATION, START_RATING, PoolKey, RatedGame, Rating, apply_game, pools_for
from bot.rules import Game, RecordError
from bot.rules.protocol import Colour, GameKind, GameState, IllegalMove, Outcome, Seat, Termination, other_colour
from bot.rules.registry import find_game
from bot.text import check_name, clean_name, fallback_name

log = logging.getLogger(__name__)

Status = Literal["challenge", "active", "finished", "declined", "expired", "cancelled"]
Where = Literal["thread", "here"]

DEFAULT_CACHE_SIZE = 512
"""Rebuilt games kept in memory: enough for every game being played at once on a busy server,
small enough that tens of thousands of stored games cost nothing until someone opens them."""


MAX_CACHED_THEMES = 50_000
"""Players whose theme (or lack of one) is remembered in memory: a few megabytes at most."""


class StoreError(RuntimeError):
    """The database file cannot be used by this version of the bot (newer schema, failed migration)."""


class StoreBusy(RuntimeError):
    """Another connection held the write lock for all of ``BUSY_TIMEOUT_MS``: nothing was written.

    Not a refusal: the action was fine and may be tried again. Where a retry is safe and the first
    write of an action failed, the caller says so; elsewhere it is a fault like any other.
    """


# --- schema -------------------------------------------------------------------------------------

# Append only: a released migration is never edited, a change is a new entry. Entry N brings the
# database from user_version N-1 to N. Each entry is a sequence of single statements because
# sqlite3's executescript() would commit the surrounding transaction.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) STRICT, WITHOUT ROWID
        """,
        """
        CREATE TABLE games (
            id                   INTEGER PRIMARY KEY,
            guild_id             INTEGER NOT NULL,
            channel_id           INTEGER NOT NULL,
            origin_channel_id    INTEGER NOT NULL,
            status               TEXT NOT NULL CHECK (status IN
                                     ('challenge', 'active', 'finished', 'declined', 'expired', 'cancelled')),
            variant              TEXT NOT NULL,
            rules                TEXT NOT NULL,
            place                TEXT NOT NULL CHECK (place IN ('thread', 'here')),
            challenger_id        INTEGER NOT NULL,
            opponent_id          INTEGER CHECK (opponent_id IS NULL OR opponent_id <> challenger_id),
            ai_level             INTEGER,
            ply                  INTEGER NOT NULL DEFAULT 0 CHECK (ply >= 0),
            turns                TEXT NOT NULL DEFAULT '',
            winner_id            INTEGER,
            result               TEXT,
            created_at           REAL NOT NULL,
            updated_at           REAL NOT NULL,
            expires_at           REAL,
            challenge_message_id INTEGER,
            board_message_id     INTEGER,
            undo_requested_by    INTEGER,
            CHECK (status NOT IN ('active', 'finished') OR opponent_id IS NOT NULL)
        ) STRICT
        """,
        """
        CREATE TABLE moves (
            game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            ply       INTEGER NOT NULL CHECK (ply >= 1),
            turn      TEXT NOT NULL,
            user_id   INTEGER NOT NULL,
            played_at REAL NOT NULL,
            PRIMARY KEY (game_id, ply)
        ) STRICT, WITHOUT ROWID
        """,
        # The rule "one game per channel" lives in the schema, so no interleaving of writers can break it.
        """
        CREATE UNIQUE INDEX games_one_per_channel ON games (channel_id)
            WHERE status = 'active' OR (status = 'challenge' AND place = 'here')
        """,
        "CREATE INDEX games_by_guild ON games (guild_id, status)",
        "CREATE INDEX games_by_channel ON games (channel_id, id)",
        "CREATE INDEX games_open_challenges ON games (expires_at) WHERE status = 'challenge'",
    ),
    (
        # Each player's own settings; a row exists only once a player chose something.
        """
        CREATE TABLE player_prefs (
            user_id    INTEGER PRIMARY KEY,
            theme      TEXT NOT NULL CHECK (theme IN ('light', 'dark', 'contrast')),
            updated_at REAL NOT NULL
        ) STRICT
        """,
    ),
    (
        # Each server's own settings, chosen by its managers; a row exists only once one chose something.
        """
        CREATE TABLE guild_settings (
            guild_id   INTEGER PRIMARY KEY,
            analysis   INTEGER NOT NULL DEFAULT 1 CHECK (analysis IN (0, 1)),
            updated_at REAL NOT NULL
        ) STRICT
        """,
    ),
    (
        # version: bumped by every change to a game (a ply can repeat after an undo, a version never does);
        # board_version: the version of the latest change a board must show; posted_version: the newest
        # version a posted board showed. board_version > posted_version means a change nobody was told of.
        # changed_stamp: an ordering stamp (a snowflake, on the chat service's clock) of the latest change.
        "ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN board_version INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN posted_version INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN changed_stamp INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX games_unannounced ON games (id) WHERE board_version > posted_version",
    ),
    (
        # Games as plug-ins: which game a row holds (every row so far is a Veletas game) and its settings
        # as canonical JSON (sorted keys, no spaces), whatever settings that game has. The settings are
        # filled from the Veletas columns in the same transaction, then those columns are dropped: kept,
        # they would be a second truth that could disagree with ``settings``, and their NOT NULL without
        # a default would force made-up values onto every other game's rows. Nothing indexes or
        # constrains them, so SQLite (3.35 or newer) drops them in place; if the migration fails it is
        # rolled back whole and the file stays as it was.
        "ALTER TABLE games ADD COLUMN game TEXT NOT NULL DEFAULT 'veletas'",
        "ALTER TABLE games ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'",
        "UPDATE games SET settings = json_object('rules', rules, 'variant', variant)",
        "ALTER TABLE games DROP COLUMN variant",
        "ALTER TABLE games DROP COLUMN rules",
    ),
    (
        # How a game ended is a fact of its own (a Termination of NOTATION.md), not something to read back
        # out of the result's wording: a resignation, a time forfeit or an adjudication leaves the board
        # looking like a game in progress. Rows written before this column are filled from their wording,
        # the only endings there were then: claims (and, in Veloop's case, confinement), resignations and
        # cancellations.
        "ALTER TABLE games ADD COLUMN termination TEXT CHECK (termination IS NULL OR termination IN "
        "('claims', 'confinement', 'passes', 'resignation', 'time forfeit', 'adjudication', 'cancelled'))",
        """
        UPDATE games SET termination = CASE
            WHEN status = 'cancelled' AND result = 'Cancelled' THEN 'cancelled'
            WHEN status = 'finished' AND result LIKE '% resigned' THEN 'resignation'
            WHEN status = 'finished' AND result LIKE '% by claims' THEN 'claims'
            WHEN status = 'finished' AND result LIKE '% by confinement' THEN 'confinement'
            WHEN status = 'finished' AND result LIKE '% by passes' THEN 'passes'
        END
        WHERE status IN ('finished', 'cancelled')
        """,
    ),
    (
        # Clocks. Every game has a time control (its canonical text; 'none' is casual, which still ends
        # after ``inactivity_days`` without a move) and, once it started, a clock: each seat's seconds
        # left when the running seat's time started (``clock_since``). Games started before clocks
        # existed get theirs at their next turn.
        "ALTER TABLE games ADD COLUMN time_control TEXT NOT NULL DEFAULT 'none'",
        "ALTER TABLE games ADD COLUMN inactivity_days INTEGER NOT NULL DEFAULT 14 CHECK (inactivity_days > 0)",
        "ALTER TABLE games ADD COLUMN clock_first REAL",
        "ALTER TABLE games ADD COLUMN clock_second REAL",
        "ALTER TABLE games ADD COLUMN clock_running TEXT CHECK (clock_running IS NULL OR clock_running IN "
        "('first', 'second'))",
        "ALTER TABLE games ADD COLUMN clock_since REAL",
        # One scheduler serves everything that falls due: a row per thing, written in the same
        # transaction as the change that makes it due, removed in the same transaction as the action
        # it asks for (so it is acted on once, whichever process gets it first). ``claimed_until``
        # is a lease: a process that took a row and died leaves it to another after the lease.
        """
        CREATE TABLE due (
            id            INTEGER PRIMARY KEY,
            kind          TEXT NOT NULL CHECK (kind IN ('deadline', 'reminder')),
            game_id       INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            key           TEXT NOT NULL DEFAULT '',
            due_at        REAL NOT NULL,
            claimed_until REAL,
            UNIQUE (kind, game_id, key)
        ) STRICT
        """,
        "CREATE INDEX due_by_time ON due (due_at)",
        "ALTER TABLE guild_settings ADD COLUMN time_control TEXT",
        "ALTER TABLE guild_settings ADD COLUMN inactivity_days INTEGER NOT NULL DEFAULT 14 CHECK (inactivity_days > 0)",
        # How each player wants to hear that it is their turn or that their time runs short; a row
        # exists once a player chose, or once a direct message to them was refused (then never tried again).
        """
        CREATE TABLE notify_prefs (
            user_id    INTEGER PRIMARY KEY,
            mode       TEXT NOT NULL DEFAULT 'ping' CHECK (mode IN ('ping', 'dm', 'both')),
            reminders  INTEGER NOT NULL DEFAULT 1 CHECK (reminders IN (0, 1)),
            dm_blocked INTEGER NOT NULL DEFAULT 0 CHECK (dm_blocked IN (0, 1)),
            updated_at REAL NOT NULL
        ) STRICT
        """,
    ),
    (
        # Who proposed a challenge, when it is not its challenger: a rematch seats the players the other way
        # round (the challenger sits first), and the one who asked for it is not the one to accept it.
        "ALTER TABLE games ADD COLUMN proposed_by INTEGER",
    ),
    (
        # Challenge expiry joins the one scheduler: a row per open challenge with a deadline. SQLite cannot
        # change a CHECK in place, so the table is rebuilt (rows and index kept) in this one transaction.
        """
        CREATE TABLE due_next (
            id            INTEGER PRIMARY KEY,
            kind          TEXT NOT NULL CHECK (kind IN ('deadline', 'reminder', 'expiry')),
            game_id       INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            key           TEXT NOT NULL DEFAULT '',
            due_at        REAL NOT NULL,
            claimed_until REAL,
            UNIQUE (kind, game_id, key)
        ) STRICT
        """,
        "INSERT INTO due_next (id, kind, game_id, key, due_at, claimed_until) "
        "SELECT id, kind, game_id, key, due_at, claimed_until FROM due",
        "DROP TABLE due",
        "ALTER TABLE due_next RENAME TO due",
        "CREATE INDEX due_by_time ON due (due_at)",
        "INSERT INTO due (kind, game_id, key, due_at) "
        "SELECT 'expiry', id, '', expires_at FROM games WHERE status = 'challenge' AND expires_at IS NOT NULL",
    ),
    (
        # Ratings. A game is rated or casual from its challenge on (games against the AI never are); its end
        # time orders the rebuild. ``ratings`` holds each player's current Glicko-2 rating per pool (a server,
        # or scope 0 for all servers; a game; its rated settings), ``rating_changes`` what each rated game did,
        # both written in the same transaction as the game's end.
        "ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1))",
        "ALTER TABLE games ADD COLUMN ended_at REAL",
        "UPDATE games SET ended_at = updated_at WHERE status = 'finished'",
        """
        CREATE TABLE ratings (
            scope       INTEGER NOT NULL,
            game        TEXT NOT NULL,
            settings    TEXT NOT NULL,
            user_id     INTEGER NOT NULL,
            value       REAL NOT NULL,
            deviation   REAL NOT NULL,
            volatility  REAL NOT NULL,
            games       INTEGER NOT NULL,
            last_played REAL,
            wins        INTEGER NOT NULL DEFAULT 0,
            losses      INTEGER NOT NULL DEFAULT 0,
            draws       INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (scope, game, settings, user_id)
        ) STRICT, WITHOUT ROWID
        """,
        "CREATE INDEX ratings_by_value ON ratings (scope, game, settings, value DESC, user_id)",
        """
        CREATE TABLE rating_changes (
            game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            scope      INTEGER NOT NULL,
            user_id    INTEGER NOT NULL,
            before     REAL NOT NULL,
            before_dev REAL NOT NULL,
            after      REAL NOT NULL,
            after_dev  REAL NOT NULL,
            PRIMARY KEY (game_id, scope, user_id)
        ) STRICT, WITHOUT ROWID
        """,
        "CREATE INDEX rating_changes_by_player ON rating_changes (user_id, scope, game_id)",
        # Whether a challenge that does not say is rated: the server's choice, rated unless its managers say not.
        "ALTER TABLE guild_settings ADD COLUMN rated INTEGER NOT NULL DEFAULT 1 CHECK (rated IN (0, 1))",
        # Members known to have left a server: its leaderboard leaves them out (their ratings stay, and
        # count again if they come back and play).
        """
        CREATE TABLE departed (
            guild_id INTEGER NOT NULL,
            user_id  INTEGER NOT NULL,
            PRIMARY KEY (guild_id, user_id)
        ) STRICT, WITHOUT ROWID
        """,
    ),
    (
        # The language of a server's public posts (boards, challenges) when its managers chose one;
        # NULL follows the server's own preferred locale in Discord.
        "ALTER TABLE guild_settings ADD COLUMN language TEXT "
        "CHECK (language IS NULL OR length(language) BETWEEN 2 AND 8)",
    ),
    (
        # Tournaments. A tournament is announced in one channel (one unfinished tournament per channel), members
        # sign up, and the bot runs its rounds. Its rounds are rows of pairings written in one transaction before
        # any thread exists; each pairing then goes paired -> thread_pending (a thread is being made; written before
        # asking Discord) -> thread (its id kept) -> game (its game stored), or straight to done (a forfeit, a walk-
        # over), so a restart finishes each step once. A pairing's result is written in the same transaction that
        # ends its game, whichever way it ends.
        """
        CREATE TABLE tournaments (
            id              INTEGER PRIMARY KEY,
            guild_id        INTEGER NOT NULL,
            channel_id      INTEGER NOT NULL,
            organiser_id    INTEGER NOT NULL,
            name            TEXT NOT NULL,
            game            TEXT NOT NULL,
            settings        TEXT NOT NULL,
            format          TEXT NOT NULL CHECK (format IN ('swiss', 'round_robin', 'double_round_robin',
                                'single_elimination', 'double_elimination')),
            rounds          INTEGER CHECK (rounds IS NULL OR rounds > 0),
            best_of         INTEGER NOT NULL DEFAULT 1 CHECK (best_of > 0 AND best_of % 2 = 1),
            time_control    TEXT NOT NULL,
            inactivity_days INTEGER NOT NULL DEFAULT 14,
            rated           INTEGER NOT NULL CHECK (rated IN (0, 1)),
            max_players     INTEGER CHECK (max_players IS NULL OR max_players > 1),
            division_size   INTEGER CHECK (division_size IS NULL OR division_size > 2),
            starts_at       REAL,
            checkin_minutes INTEGER NOT NULL DEFAULT 0 CHECK (checkin_minutes >= 0),
            round_minutes   INTEGER NOT NULL CHECK (round_minutes > 0),
            status          TEXT NOT NULL CHECK (status IN ('signup', 'running', 'paused', 'finished', 'cancelled')),
            message_id      INTEGER,
            created_at      REAL NOT NULL,
            started_at      REAL,
            ended_at        REAL
        ) STRICT
        """,
        "CREATE UNIQUE INDEX tournaments_one_per_channel ON tournaments (channel_id) "
        "WHERE status IN ('signup', 'running', 'paused')",
        "CREATE INDEX tournaments_by_guild ON tournaments (guild_id, id)",
        """
        CREATE TABLE tournament_players (
            tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
            user_id       INTEGER NOT NULL,
            name          TEXT NOT NULL,
            rating        INTEGER NOT NULL DEFAULT 1500,
            seed          INTEGER,
            joined_round  INTEGER NOT NULL DEFAULT 1 CHECK (joined_round >= 1),
            left_round    INTEGER,
            checked_in    INTEGER NOT NULL DEFAULT 0 CHECK (checked_in IN (0, 1)),
            late          INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1)),
            joined_at     REAL NOT NULL,
            PRIMARY KEY (tournament_id, user_id)
        ) STRICT, WITHOUT ROWID
        """,
        """
        CREATE TABLE tournament_rounds (
            tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
            number        INTEGER NOT NULL CHECK (number >= 1),
            started_at    REAL NOT NULL,
            deadline      REAL NOT NULL,
            announced     INTEGER NOT NULL DEFAULT 0 CHECK (announced IN (0, 1)),
            PRIMARY KEY (tournament_id, number)
        ) STRICT, WITHOUT ROWID
        """,
        """
        CREATE TABLE tournament_pairings (
            id            INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
            round         INTEGER NOT NULL,
            board         INTEGER NOT NULL CHECK (board >= 1),
            white         INTEGER NOT NULL,
            black         INTEGER NOT NULL CHECK (black <> white),
            match         TEXT,
            result        TEXT CHECK (result IS NULL OR result IN ('1-0', '0-1', '1/2-1/2', '+-', '-+', '--')),
            state         TEXT NOT NULL DEFAULT 'paired'
                              CHECK (state IN ('paired', 'thread_pending', 'thread', 'game', 'done')),
            thread_id     INTEGER,
            game_id       INTEGER UNIQUE REFERENCES games (id),
            UNIQUE (tournament_id, round, board),
            FOREIGN KEY (tournament_id, round) REFERENCES tournament_rounds (tournament_id, number)
        ) STRICT
        """,
        "CREATE INDEX tournament_pairings_open ON tournament_pairings (tournament_id, round) WHERE result IS NULL",
        """
        CREATE TABLE tournament_byes (
            tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
            round         INTEGER NOT NULL,
            user_id       INTEGER NOT NULL,
            kind          TEXT NOT NULL CHECK (kind IN ('pairing', 'half', 'full', 'zero', 'rest')),
            PRIMARY KEY (tournament_id, round, user_id)
        ) STRICT, WITHOUT ROWID
        """,
        # Every organiser action, with who did it and when; shown in the tournament channel as it happens.
        """
        CREATE TABLE tournament_log (
            id            INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
            at            REAL NOT NULL,
            actor_id      INTEGER NOT NULL,
            action        TEXT NOT NULL,
            detail        TEXT NOT NULL DEFAULT ''
        ) STRICT
        """,
        # The one scheduler serves tournaments too (start time, check-in, round deadlines, running a round):
        # a due row names a game or a tournament, never both. SQLite cannot change a table's constraints in
        # place, so the table is rebuilt with its rows in this one transaction.
        """
        CREATE TABLE due_next (
            id            INTEGER PRIMARY KEY,
            kind          TEXT NOT NULL CHECK (kind IN ('deadline', 'reminder', 'expiry', 'tournament')),
            game_id       INTEGER REFERENCES games (id) ON DELETE CASCADE,
            tournament_id INTEGER REFERENCES tournaments (id) ON DELETE CASCADE,
            key           TEXT NOT NULL DEFAULT '',
            due_at        REAL NOT NULL,
            claimed_until REAL,
            CHECK ((game_id IS NULL) <> (tournament_id IS NULL)),
            UNIQUE (kind, game_id, key),
            UNIQUE (kind, tournament_id, key)
        ) STRICT
        """,
        "INSERT INTO due_next (id, kind, game_id, key, due_at, claimed_until) "
        "SELECT id, kind, game_id, key, due_at, claimed_until FROM due",
        "DROP TABLE due",
        "ALTER TABLE due_next RENAME TO due",
        "CREATE INDEX due_by_time ON due (due_at)",
        "CREATE INDEX due_by_game ON due (game_id) WHERE game_id IS NOT NULL",
        # The role whose members may organise tournaments in a server, besides members with Manage Server.
        """
        CREATE TABLE tournament_organisers (
            guild_id INTEGER PRIMARY KEY,
            role_id  INTEGER NOT NULL
        ) STRICT
        """,
    ),
    (
        # The order in which games' rating updates committed: a number given inside the transaction that writes
        # them, under the write lock that takes them one at a time, so the rebuild replays exactly that order
        # (end times can disagree with it: each process reads its clock before it waits for the lock). Games
        # rated before this column are numbered by their end time, the order the rebuild used then.
        "ALTER TABLE games ADD COLUMN rating_seq INTEGER",
        "UPDATE games SET rating_seq = ordered.n FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY ended_at, id) AS n "
        "FROM games WHERE id IN (SELECT game_id FROM rating_changes)) AS ordered WHERE games.id = ordered.id",
        "CREATE UNIQUE INDEX games_by_rating_seq ON games (rating_seq) WHERE rating_seq IS NOT NULL",
        # Each seat's time left the moment a turn was played, before any increment: what an undo gives back.
        "ALTER TABLE moves ADD COLUMN clock_first REAL",
        "ALTER TABLE moves ADD COLUMN clock_second REAL",
    ),
    (
        # Who took a due row: ``claimed_by`` is the taker's token (``OWNER|RUN|N``: the process's shards, its
        # run, its claim). A step that takes long renews its lease while it runs, and each of its writes checks
        # the token, so another process takes a step over only once its taker stopped renewing (it died).
        "ALTER TABLE due ADD COLUMN claimed_by TEXT",
        # A tournament game's intro (who plays whom, in which round) goes with its first board; owed until posted.
        # Games already started were introduced when they started.
        "ALTER TABLE tournament_pairings ADD COLUMN intro_posted INTEGER NOT NULL DEFAULT 0 "
        "CHECK (intro_posted IN (0, 1))",
        "UPDATE tournament_pairings SET intro_posted = 1 WHERE game_id IS NOT NULL",
        # The channel posts a tournament owes (its start, each round's standings and pairings, its end) are
        # delivered in order by the ``posts`` step; the messages of the one being delivered already out are
        # counted, so a retry after a failure posts only the rest.
        "ALTER TABLE tournaments ADD COLUMN start_owed INTEGER NOT NULL DEFAULT 0 CHECK (start_owed IN (0, 1))",
        "ALTER TABLE tournaments ADD COLUMN end_owed INTEGER NOT NULL DEFAULT 0 CHECK (end_owed IN (0, 1))",
        "ALTER TABLE tournaments ADD COLUMN posts_done INTEGER NOT NULL DEFAULT 0 CHECK (posts_done >= 0)",
        "ALTER TABLE tournament_rounds ADD COLUMN posts_done INTEGER NOT NULL DEFAULT 0 CHECK (posts_done >= 0)",
    ),
)

REMINDERS_LEFT: tuple[float, ...] = (24 * HOUR, HOUR)
"""Correspondence players are reminded when this much of their time is left (if their turn lasts longer)."""


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


THEMES: tuple[str, ...] = ("light", "dark", "contrast")
"""The board themes a player may choose; the renderer draws each (a test keeps the two lists equal)."""

_COLUMNS = (
    "id, guild_id, channel_id, origin_channel_id, status, game, settings, place, challenger_id, opponent_id, "
    "ai_level, ply, turns, winner_id, result, created_at, updated_at, expires_at, challenge_message_id, "
    "board_message_id, undo_requested_by, version, board_version, posted_version, changed_stamp, termination, "
    "time_control, inactivity_days, clock_first, clock_second, clock_running, clock_since, proposed_by, rated, ended_at"
)

_OPEN_STATUSES: tuple[Status, ...] = ("challenge", "active")


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


_GUILD_SETTINGS_SQL = (
    "SELECT analysis, time_control, inactivity_days, rated, language FROM guild_settings WHERE guild_id = ?"
)


def _guild_settings(row: Row) -> GuildSettings:
    return GuildSettings(
        bool(row[0]),
        None if row[1] is None else str(row[1]),
        int(row[2]),
        bool(row[3]),
        None if row[4] is None else str(row[4]),
    )


FOLLOW_SERVER = "auto"
"""``set_guild_settings(language=FOLLOW_SERVER)``: public posts follow the server's locale again."""


NOTIFY_MODES: tuple[str, ...] = ("ping", "dm", "both")
MAX_INACTIVITY_DAYS = 90


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


# --- time ---------------------------------------------------------------------------------------


def utcnow() -> dt.datetime:
    """The store's default clock; tests and the sandbox may pass their own to ``Store.open``."""
    return dt.datetime.now(dt.UTC)


def _to_ts(moment: dt.datetime) -> float:
    """Seconds since the epoch; a naive datetime is taken as UTC, which is what discord.py hands out."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()


def _from_ts(value: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(value, dt.UTC)


# --- one game -----------------------------------------------------------------------------------


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


def _info_from_row(row: Row) -> GameInfo:
    """A snapshot from a row read with the ``_COLUMNS`` names (by name, so a column added later moves nothing)."""
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
        created_at=_from_ts(row["created_at"]),
        updated_at=_from_ts(row["updated_at"]),
        expires_at=None if expires is None else _from_ts(expires),
        challenge_message_id=row["challenge_message_id"],
        board_message_id=row["board_message_id"],
        undo_requested_by=row["undo_requested_by"],
        version=row["version"],
        board_version=row["board_version"],
        posted_version=row["posted_version"],
        changed_stamp=row["changed_stamp"],
        termination=cast("Termination | None", row["termination"]),
        time_control=(control := _control(row["time_control"], row["inactivity_days"])),
        clock=_clock(control, row),
        proposed_by=row["proposed_by"],
        rated=bool(row["rated"]),
        ended_at=row["ended_at"],
    )


def _control(text: str, inactivity_days: int) -> TimeControl:
    return TimeControl.parse(text, inactivity_days=inactivity_days)


def _clock(control: TimeControl, row: Row) -> Clock | None:
    if row["clock_first"] is None:
        return None
    return Clock(
        control, row["clock_first"], row["clock_second"], cast("Seat | None", row["clock_running"]), row["clock_since"]
    )


def _clock_values(clock: Clock | None) -> tuple[float | None, float | None, str | None, float | None]:
    if clock is None:
        return None, None, None, None
    return clock.first, clock.second, clock.running, clock.since


def _with_state(info: GameInfo, state: GameState) -> GameInfo:
    """A snapshot whose game is already known, so it is not replayed again (a fresh snapshot's own memo)."""
    if info._replayed.state is None:
        info._replayed.state = state
    return info


def _clock_after(info: GameInfo, state: GameState, now: float) -> Clock | None:
    """The clock once ``state`` (one more turn) is stored: the mover's time charged, the next seat's running.

    A game from before clocks has none yet: it starts now, so its next player gets a whole allowance.
    """
    mover = info.state.seat_to_act
    if mover is None:
        return info.clock
    clock = info.clock if info.clock is not None else info.time_control.new_clock().started(mover, now)
    if clock.running != mover:
        clock = replace(clock, running=mover, since=now)
    if state.outcome is not None:
        return clock.stopped(now)
    return clock.after_turn(mover, now, next_seat=state.seat_to_act)


def _finish(info: GameInfo, outcome: Outcome) -> tuple[int | None, str]:
    """Who won a game the board ended and the result text: ``Black wins by claims``, or ``Drawn``."""
    if outcome.winner is None:
        return None, "Drawn"
    return info.user_for_colour(outcome.winner), f"{outcome.winner.capitalize()} wins by {outcome.termination}"


def _join_turns(turns: Sequence[str]) -> str:
    # Canonical turn texts never contain whitespace, so a space is an unambiguous separator.
    return " ".join(turns)


def _closed_message(info: GameInfo) -> str:
    """The key of the refusal for a challenge that is no longer open (worded by the cogs)."""
    if info.status in ("active", "finished", "declined", "expired", "cancelled"):
        return f"refusal.challenge_{info.status}"
    return "refusal.challenge_closed"


def ending_phrase(info: GameInfo) -> Phrase | None:
    """How a game ended, as data for the catalogue (``result`` area), so each reader sees it in their language.

    The stored ``result`` text is the log's English; this is built from the facts (winner, termination,
    clock), never from that text. None while the game goes on.
    """
    if info.status == "cancelled":
        return Phrase("result.cancelled")
    if info.status == "expired":
        return Phrase("result.expired")
    outcome = info.outcome
    if outcome is None:
        return None
    if outcome.termination in ("resignation", "time forfeit"):
        loser = next((p for p in info.participants if p != info.winner_id), None)
        colour = None if loser is None else info.colour_of_user(loser)
        seat = None if loser is None else info.seat_of_user(loser)
        who = Phrase(f"result.{colour}") if colour else Phrase(f"result.{seat or 'first'}_player")
        if outcome.termination == "resignation":
            return Phrase("result.resigned", who=who)
        if info.time_control.family == "none":
            return Phrase("result.idle", who=who, count=round(info.time_control.start / DAY))
        return Phrase("result.time", who=who)
    if outcome.termination == "passes":
        return Phrase("result.passes")
    if outcome.winner is None:
        return Phrase("result.drawn")
    return Phrase(f"result.by_{outcome.termination}", winner=Phrase(f"result.{outcome.winner}"))


def _finished_message(info: GameInfo) -> GameFinished:
    if info.status == "cancelled":
        return GameFinished("refusal.game_cancelled")
    ending = ending_phrase(info)
    return (
        GameFinished("refusal.game_over") if ending is None else GameFinished("refusal.game_over_result", result=ending)
    )


# --- who may do what: decided here once; the cogs ask before showing a private menu, the store again when writing


def check_can_answer(info: GameInfo, user_id: int, now: dt.datetime) -> None:
    """Whether ``user_id`` may accept or decline this challenge at ``now``; the refusal says why."""
    if info.status != "challenge":
        raise ChallengeClosed(_closed_message(info))
    if user_id == info.proposer:
        raise NotAParticipant("refusal.own_challenge")
    answerer = info.answerer
    if answerer is not None and user_id != answerer:
        raise NotAParticipant("refusal.challenge_for_other", meant_for=answerer)
    if info.expires_at is not None and info.expires_at <= now:
        raise ChallengeClosed("refusal.challenge_expired")


def check_in_play(info: GameInfo) -> None:
    if info.status == "challenge":
        raise NoGameHere("refusal.not_started")
    if info.status != "active":
        raise _finished_message(info)


def check_participant(info: GameInfo, user_id: int) -> None:
    if user_id not in info.participants:
        raise NotAParticipant("refusal.not_playing")


def check_to_act(info: GameInfo, user_id: int) -> None:
    """Whether ``user_id`` may take the next turn of this game now (in play, playing, and their turn)."""
    check_in_play(info)
    check_participant(info, user_id)
    if info.user_to_act != user_id:
        raise NotYourTurn(info.user_to_act)


_RACE_MESSAGE = "refusal.race"
_MOVED_ON_MESSAGE = "refusal.moved_on"


# --- the store ----------------------------------------------------------------------------------


class Store:
    """The bot's persistent state. Open with ``await Store.open(path)``; close with ``await store.close()``."""

    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], dt.datetime] = utcnow,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        self._db = db
        self._clock = clock
        self._lock = asyncio.Lock()
        self._cache: OrderedDict[int, GameState] = OrderedDict()
        self._cache_size = cache_size
        # Themes are read for every board drawn and written only by /player theme in this process.
        self._themes: dict[int, str | None] = {}
        self._notify: dict[int, NotifyPrefs] = {}
        self._closed = False
        # Told, in the transaction that schedules something (a new deadline), when the earliest new row falls
        # due, so a scheduler sleeping past that moment looks again.
        self.on_scheduled: Callable[[float], None] | None = None
        # The gateway shards this process runs (shard count, shard ids), when the bot is split over several
        # processes: the sweeps of boards owed and AI turns owed take only the games of its own servers.
        self.shards: tuple[int, tuple[int, ...]] | None = None
        # This run's part of the tokens of the due rows it claims (``claim_due``), and how many claims it made.
        self._run = uuid.uuid4().hex[:12]
        self._claims = 0

    def _heard(self, message: str) -> None:
        """Another process (on PostgreSQL) changed what this one keeps in memory: ``prefs USER_ID``."""
        kind, _, value = message.partition(" ")
        if kind == "prefs" and value.isdigit():
            self._themes.pop(int(value), None)
            self._notify.pop(int(value), None)

    @property
    def claimant(self) -> str:
        """Who this process is when it claims due rows: its gateway shards (all of them, unsharded). One process
        runs a set of shards at a time (Discord's rule), so claims an earlier run of the same left are over."""
        if self.shards is None:
            return "all"
        count, ids = self.shards
        return f"shards {','.join(map(str, ids))}/{count}"

    def owns_guild(self, guild_id: int) -> bool:
        """Whether this process runs the gateway shard of ``guild_id`` (always, unsharded): Discord's rule."""
        if self.shards is None:
            return True
        count, ids = self.shards
        return (guild_id >> 22) % count in ids

    @property
    def backend(self) -> str:
        """Which database holds the store: ``sqlite`` or ``postgresql``."""
        return self._db.backend

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        clock: Callable[[], dt.datetime] = utcnow,
        cache_size: int = DEFAULT_CACHE_SIZE,
        migrations: Sequence[Sequence[str]] = MIGRATIONS,
    ) -> Store:
        """Open and bring the schema up to date: an SQLite file (created with its directory if needed), or a
        PostgreSQL database named by a ``postgresql://`` URL (see bot/db)."""
        target = redact(path)
        try:
            db = await open_database(path)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot use {target} as the bot's database: {exc}") from exc
        try:
            await _migrate(db, migrations)
        except sqlite3.DatabaseError as exc:
            await db.close()
            raise StoreError(f"cannot use {target} as the bot's database: {exc}") from exc
        except BaseException:
            await db.close()
            raise
        log.info("store open at %s", target)
        store = cls(db, clock=clock, cache_size=cache_size)
        await db.listen(store._heard)
        return store

    async def close(self) -> None:
        """Close the connection; SQLite then folds the WAL back into the main file. Safe to call twice."""
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            await self._db.close()
        self._cache.clear()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    # --- plumbing -------------------------------------------------------------------------------

    def now(self) -> float:
        """The store's clock, in seconds since the epoch (the scheduler compares due times with it)."""
        return self._now()

    def _now(self) -> float:
        return _to_ts(self._clock())

    @asynccontextmanager
    async def _transaction(self, game: int | None = None) -> AsyncIterator[Connection]:
        """One write transaction, all or nothing. It takes the database's write lock up front (SQLite's
        BEGIN IMMEDIATE, PostgreSQL's advisory lock: bot/db), so a second process waits instead of
        failing half-way through, and nothing lands between this transaction's reads and its writes.

        A transaction given a ``game`` must write only that game's own rows (the game, its moves, its due
        rows) and read nothing else: on PostgreSQL it then waits only for that game's writers and for
        whole-database ones, so moves in different games do not queue behind one another.
        """
        async with self._lock:
            try:
                # Lazy: on PostgreSQL the BEGIN and its locks go with the first statement, so a lock wait that
                # runs out (Busy) can come from any statement up to the commit.
                await self._db.begin(game, lazy=True)
                try:
                    yield self._db
                except BaseException:
                    if self._db.in_transaction:
                        await self._db.rollback()
                    raise
                else:
                    await self._db.commit()
            except Busy as exc:
                # Another process held the write lock for all of the timeout: nothing began, so nothing
                # changed, and the caller can say so and let the player try again.
                raise StoreBusy() from exc

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        if self._db.concurrent_reads:
            # Reads have connections of their own (PostgreSQL's pool, an SQLite file's reader) and see only
            # what is committed.
            return list(await self._db.read(sql, params))
        async with self._lock:
            return list(await self._db.execute_fetchall(sql, params))

    async def _fetch_info(self, sql: str, params: Sequence[Any] = ()) -> list[GameInfo]:
        return [self._attach(_info_from_row(row)) for row in await self._fetchall(sql, params)]

    def _attach(self, info: GameInfo) -> GameInfo:
        """Reuse a rebuilt game from the cache when it matches this snapshot's turns."""
        cached = self._cache.get(info.id)
        if (
            cached is not None
            and cached.turns == info.turns
            and cached.kind.name == info.kind.name
            and dict(cached.settings) == dict(info.settings)
        ):
            self._cache.move_to_end(info.id)
            return _with_state(info, cached)
        if info.status == "active":
            info._replayed.remember = self._remember
        return info

    def _remember(self, game_id: int, game: GameState) -> None:
        self._cache[game_id] = game
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    # --- meta -----------------------------------------------------------------------------------

    async def get_meta(self, key: str) -> str | None:
        rows = await self._fetchall("SELECT value FROM meta WHERE key = ?", (key,))
        return None if not rows else str(rows[0][0])

    async def set_meta(self, key: str, value: str) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # --- player preferences ---------------------------------------------------------------------

    async def get_theme(self, user_id: int) -> str | None:
        """The board theme this player chose, or None if they never chose (the caller picks the default)."""
        if user_id in self._themes:
            return self._themes[user_id]
        rows = await self._fetchall("SELECT theme FROM player_prefs WHERE user_id = ?", (user_id,))
        theme = None if not rows else str(rows[0][0])
        if len(self._themes) >= MAX_CACHED_THEMES:
            self._themes.clear()
        self._themes[user_id] = theme
        return theme

    async def get_themes(self, user_ids: Sequence[int]) -> dict[int, str]:
        """The chosen themes of several players in one query; players who never chose are left out."""
        wanted = sorted(set(user_ids))
        if not wanted:
            return {}
        marks = ", ".join("?" * len(wanted))
        rows = await self._fetchall(f"SELECT user_id, theme FROM player_prefs WHERE user_id IN ({marks})", wanted)
        return {int(row[0]): str(row[1]) for row in rows}

    async def set_theme(self, user_id: int, theme: str) -> None:
        """Remember the player's board theme for every image drawn for them from now on."""
        if theme not in THEMES:
            raise UserError("refusal.no_theme", theme=repr(theme), themes=list(THEMES))
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO player_prefs (user_id, theme, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET theme = excluded.theme, updated_at = excluded.updated_at",
                (user_id, theme, self._now()),
            )
            await db.notify(f"prefs {user_id}")  # other processes forget what they remembered
        self._themes[user_id] = theme

    async def get_notify(self, user_id: int) -> NotifyPrefs:
        """How a player wants to hear of their turn and their clock; the defaults for one who never chose."""
        cached = self._notify.get(user_id)
        if cached is not None:
            return cached
        rows = await self._fetchall(
            "SELECT mode, reminders, dm_blocked FROM notify_prefs WHERE user_id = ?", (user_id,)
        )
        prefs = NotifyPrefs() if not rows else NotifyPrefs(str(rows[0][0]), bool(rows[0][1]), bool(rows[0][2]))
        if len(self._notify) >= MAX_CACHED_THEMES:
            self._notify.clear()
        self._notify[user_id] = prefs
        return prefs

    async def set_notify(
        self, user_id: int, *, mode: str | None = None, reminders: bool | None = None, dm_blocked: bool | None = None
    ) -> NotifyPrefs:
        """Change what is given (None leaves it) and return the whole choice. Choosing DMs again clears a refusal."""
        if mode is not None and mode not in NOTIFY_MODES:
            raise UserError("refusal.notify_modes", modes=list(NOTIFY_MODES))
        current = await self.get_notify(user_id)
        chosen = NotifyPrefs(
            current.mode if mode is None else mode,
            current.reminders if reminders is None else reminders,
            (False if mode in ("dm", "both") else current.dm_blocked) if dm_blocked is None else dm_blocked,
        )
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO notify_prefs (user_id, mode, reminders, dm_blocked, updated_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET mode = excluded.mode, reminders = excluded.reminders, "
                "dm_blocked = excluded.dm_blocked, updated_at = excluded.updated_at",
                (user_id, chosen.mode, int(chosen.reminders), int(chosen.dm_blocked), self._now()),
            )
            await db.notify(f"prefs {user_id}")
        self._notify[user_id] = chosen
        return chosen

    # --- server settings ------------------------------------------------------------------------

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        rows = await self._fetchall(_GUILD_SETTINGS_SQL, (guild_id,))
        return GuildSettings() if not rows else _guild_settings(rows[0])

    async def set_guild_settings(
        self,
        guild_id: int,
        *,
        analysis: bool | None = None,
        time_control: TimeControl | None = None,
        inactivity_days: int | None = None,
        rated: bool | None = None,
        language: str | None = None,
    ) -> GuildSettings:
        """Change the settings given (None leaves one as it is) and return them all, in one transaction.

        ``language``: one of ``bot.i18n.LANGUAGES``, or ``FOLLOW_SERVER`` to follow the server's locale.
        """
        if inactivity_days is not None and not 1 <= inactivity_days <= MAX_INACTIVITY_DAYS:
            raise UserError("refusal.inactivity_range", count=MAX_INACTIVITY_DAYS)
        if language is not None and language != FOLLOW_SERVER and language not in LANGUAGES:
            raise UserError("refusal.no_language", language=repr(language), languages=list(LANGUAGES))
        async with self._transaction() as db:
            rows = await db.execute_fetchall(_GUILD_SETTINGS_SQL, (guild_id,))
            found = list(rows)
            current = GuildSettings() if not found else _guild_settings(found[0])
            chosen = replace(
                current,
                analysis=current.analysis if analysis is None else analysis,
                time_control=current.time_control if time_control is None else time_control.text,
                inactivity_days=current.inactivity_days if inactivity_days is None else inactivity_days,
                rated=current.rated if rated is None else rated,
                language=current.language if language is None else None if language == FOLLOW_SERVER else language,
            )
            await db.execute(
                "INSERT INTO guild_settings (guild_id, analysis, time_control, inactivity_days, rated, language, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET "
                "analysis = excluded.analysis, time_control = excluded.time_control, "
                "inactivity_days = excluded.inactivity_days, rated = excluded.rated, language = excluded.language, "
                "updated_at = excluded.updated_at",
                (
                    guild_id,
                    int(chosen.analysis),
                    chosen.time_control,
                    chosen.inactivity_days,
                    int(chosen.rated),
                    chosen.language,
                    self._now(),
                ),
            )
        return chosen

    # --- reading games --------------------------------------------------------------------------

    async def get_game(self, game_id: int) -> GameInfo:
        if not is_id(game_id):
            raise NoGameHere("refusal.no_such_game")
        found = await self._fetch_info(f"SELECT {_COLUMNS} FROM games WHERE id = ?", (game_id,))
        if not found:
            raise NoGameHere("refusal.no_such_game")
        return found[0]

    async def game_in_channel(self, channel_id: int) -> GameInfo:
        """The game being played in this channel or thread."""
        found = await self._fetch_info(
            f"SELECT {_COLUMNS} FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,)
        )
        if not found:
            # In the thread of a finished game, say so: "no game" alone reads like a lost game.
            try:
                last = await self.latest_game_in_channel(channel_id)
            except NoGameHere:
                raise NoGameHere("refusal.no_game_here", channel_empty=True) from None
            ending = ending_phrase(last)
            if ending is None:
                raise NoGameHere(
                    "refusal.no_game_here_over", channel_empty=True, title=last.kind.title, id=str(last.id)
                )
            raise NoGameHere(
                "refusal.no_game_here_over_result",
                channel_empty=True,
                title=last.kind.title,
                id=str(last.id),
                result=ending,
            )
        return found[0]

    async def latest_game_in_channel(self, channel_id: int) -> GameInfo:
        """The most recent game that was actually played here (in play, finished or cancelled), for export."""
        found = await self._fetch_info(
            f"SELECT {_COLUMNS} FROM games WHERE channel_id = ? AND status IN ('active', 'finished', 'cancelled') "
            "ORDER BY id DESC LIMIT 1",
            (channel_id,),
        )
        if not found:
            raise NoGameHere("refusal.no_game_yet")
        return found[0]

    async def live_games(self, guild_id: int) -> list[GameInfo]:
        """Games in play in a server, the most recently active first."""
        return await self._fetch_info(
            f"SELECT {_COLUMNS} FROM games WHERE guild_id = ? AND status = 'active' ORDER BY updated_at DESC, id DESC",
            (guild_id,),
        )

    async def in_tournament(self, game_id: int) -> bool:
        """Whether a game is a tournament's pairing (played once: no rematch)."""
        rows = await self._fetchall("SELECT 1 FROM tournament_pairings WHERE game_id = ? LIMIT 1", (game_id,))
        return bool(rows)

    async def finished_games_of(self, guild_id: int, user_id: int, *, limit: int = 25) -> list[GameInfo]:
        """A member's finished games in a server, the most recent first (to play one of them again): tournament
        games are left out, since a pairing is played once."""
        return await self._fetch_info(
            f"SELECT {_COLUMNS} FROM games WHERE guild_id = ? AND status = 'finished' "
            "AND (challenger_id = ? OR opponent_id = ?) "
            "AND NOT EXISTS (SELECT 1 FROM tournament_pairings tp WHERE tp.game_id = games.id) "
            "ORDER BY updated_at DESC, id DESC LIMIT ?",
            (guild_id, user_id, user_id, limit),
        )

    async def live_games_between_people(self, guild_id: int) -> list[GameInfo]:
        """Games in play in a server with no AI seat: the ones analysis must never give hints in."""
        return await self._fetch_info(
            f"SELECT {_COLUMNS} FROM games WHERE guild_id = ? AND status = 'active' AND ai_level IS NULL",
            (guild_id,),
        )

    async def move_log(self, game_id: int) -> list[tuple[int, str, int]]:
        """The log as (ply, turn, user_id), oldest first: the source of truth ``rebuild`` replays."""
        rows = await self._fetchall("SELECT ply, turn, user_id FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))
        return [(int(r[0]), str(r[1]), int(r[2])) for r in rows]

    # --- challenges -----------------------------------------------------------------------------

    async def create_challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int | None,
        where: Where,
        expires_at: dt.datetime | None,
        game: str = "veletas",
        settings: Mapping[str, str] | None = None,
        ai_level: int | None = None,
        max_open: int | None = None,
        time_control: TimeControl | None = None,
        proposed_by: int | None = None,
        rated: bool = False,
    ) -> GameInfo:
        """A new challenge. A ``here`` challenge claims the channel at once; a ``thread`` one only when accepted.

        Between members there is at most one open challenge per pair, whichever made it, and at most
        ``max_open`` open challenges by one member (a challenge to anyone counts); a challenge to the AI
        is accepted at once and counts for neither.

        ``game`` names a game of the registry and ``settings`` its settings (defaults fill the missing
        ones); an unknown game, setting or value is a ValueError, and nothing is written.
        """
        kind = find_game(game)
        chosen = kind.check_settings(settings or {})
        control = time_control or TimeControl.none()
        if proposed_by is not None and (opponent_id is None or proposed_by not in (challenger_id, opponent_id)):
            raise ValueError("a challenge is proposed by one of its two players")
        if where not in ("thread", "here"):
            raise ValueError(f"unknown place {where!r}")
        if opponent_id == challenger_id:
            raise UserError("refusal.challenge_yourself")
        now = self._now()
        expires = None if expires_at is None else _to_ts(expires_at)
        try:
            async with self._transaction() as db:
                if where == "here":
                    busy = await db.execute_fetchall(
                        "SELECT status FROM games WHERE channel_id = ? AND "
                        "(status = 'active' OR (status = 'challenge' AND place = 'here')) LIMIT 1",
                        (channel_id,),
                    )
                    for row in busy:
                        raise ChannelBusy(_busy_message(str(row[0])))
                if ai_level is None:
                    await _check_challenge_limits(db, guild_id, challenger_id, opponent_id, max_open, now)
                rows = await db.execute_fetchall(
                    "INSERT INTO games (guild_id, channel_id, origin_channel_id, status, game, settings, place, "
                    "challenger_id, opponent_id, ai_level, created_at, updated_at, expires_at, time_control, "
                    "inactivity_days, proposed_by, rated) "
                    f"VALUES (?, ?, ?, 'challenge', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {_COLUMNS}",
                    (
                        guild_id,
                        channel_id,
                        channel_id,
                        kind.name,
                        settings_json(chosen),
                        where,
                        challenger_id,
                        opponent_id,
                        ai_level,
                        now,
                        now,
                        expires,
                        control.text,
                        round(control.start / DAY) if control.family == "none" else DEFAULT_INACTIVITY_DAYS,
                        None if proposed_by == challenger_id else proposed_by,
                        int(rated and ai_level is None),  # games against the AI are never rated
                    ),
                )
                if expires is not None:
                    created = next(iter(rows))["id"]
                    await db.execute(
                        "INSERT INTO due (kind, game_id, key, due_at) VALUES ('expiry', ?, '', ?)", (created, expires)
                    )
                    if self.on_scheduled is not None:
                        self.on_scheduled(expires)
        except sqlite3.IntegrityError as exc:
            # The unique index is the last word when another writer claimed the channel first.
            if not _is_channel_clash(exc):
                raise
            raise ChannelBusy(_busy_message("active")) from exc
        info = _info_from_row(next(iter(rows)))
        log.info("game %d: challenge by %d to %s in channel %d", info.id, challenger_id, opponent_id, channel_id)
        return info

    async def open_ai_challenges(self, guild_id: int) -> list[GameInfo]:
        """Challenges to the AI not started yet. The AI accepts at once, so these were interrupted (a restart)."""
        return await self._fetch_info(
            f"SELECT {_COLUMNS} FROM games WHERE guild_id = ? AND status = 'challenge' AND ai_level IS NOT NULL "
            "ORDER BY id",
            (guild_id,),
        )

    async def accept_challenge(self, game_id: int, user_id: int, *, channel_id: int) -> GameInfo:
        """Start the game in ``channel_id`` (the challenge's channel, or the thread made for it)."""
        info = await self.get_game(game_id)
        self._check_can_answer(info, user_id)
        now = self._now()
        # The clock starts with the game: the seat that acts first (the challenger, in both games) is on the move.
        first_seat = info.state.seat_to_act or "first"
        clock = info.time_control.new_clock().started(first_seat, now)
        try:
            async with self._transaction() as db:
                rows = await db.execute_fetchall(
                    # The first board is owed from here on: a start cut short before it was posted is
                    # announced by the next sweep, as any other change nobody was told of.
                    "UPDATE games SET status = 'active', opponent_id = COALESCE(opponent_id, ?), channel_id = ?, "
                    "updated_at = ?, "
                    "version = version + 1, board_version = version + 1, "
                    "clock_first = ?, clock_second = ?, clock_running = ?, clock_since = ? "
                    f"WHERE id = ? AND status = 'challenge' AND (expires_at IS NULL OR expires_at > ?) "
                    f"RETURNING {_COLUMNS}",
                    (user_id, channel_id, now, *_clock_values(clock), game_id, now),
                )
                if not rows:
                    current = await self._peek(db, game_id)
                    if current.status == "challenge":
                        raise ChallengeClosed("refusal.challenge_expired")
                    raise ChallengeClosed(_closed_message(current))
                await self._schedule(db, game_id, clock)
        except sqlite3.IntegrityError as exc:
            if not _is_channel_clash(exc):
                raise
            raise ChannelBusy(_busy_message("active")) from exc
        accepted = self._attach(_info_from_row(next(iter(rows))))
        log.info("game %d: accepted by %d, played in channel %d", game_id, user_id, channel_id)
        return accepted

    async def decline_challenge(self, game_id: int, user_id: int) -> GameInfo:
        info = await self.get_game(game_id)
        self._check_can_answer(info, user_id)
        declined = await self._close_challenge(game_id, "declined", "Declined")
        log.info("game %d: declined by %d", game_id, user_id)
        return declined

    async def withdraw_challenge(self, game_id: int, user_id: int) -> GameInfo:
        """The challenger takes back a challenge nobody has answered yet (it ends as cancelled, "Withdrawn").

        Atomic against an accept landing at the same moment: whichever commits first wins, so a
        game that has just started is never cancelled by a late withdrawal.
        """
        info = await self.get_game(game_id)
        if info.status != "challenge":
            raise ChallengeClosed(_closed_message(info))
        if user_id != info.proposer:
            raise NotAParticipant("refusal.withdraw_not_yours")
        withdrawn = await self._close_challenge(game_id, "cancelled", "Withdrawn")
        log.info("game %d: challenge withdrawn by %d", game_id, user_id)
        return withdrawn

    async def _close_challenge(self, game_id: int, status: str, result: str) -> GameInfo:
        """End a challenge nobody has accepted, in one conditional update: a simultaneous accept wins or loses whole."""
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "UPDATE games SET status = ?, result = ?, updated_at = ? "
                f"WHERE id = ? AND status = 'challenge' RETURNING {_COLUMNS}",
                (status, result, self._now(), game_id),
            )
            if not rows:
                raise ChallengeClosed(_closed_message(await self._peek(db, game_id)))
            await self._schedule(db, game_id, None)
        return _info_from_row(next(iter(rows)))

    async def expire_challenge(self, game_id: int) -> GameInfo | None:
        """Close one challenge whose deadline has passed (the scheduler's ``expiry`` row); None if it is not due."""
        now = self._now()
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "UPDATE games SET status = 'expired', result = 'Expired', updated_at = ? "
                f"WHERE id = ? AND status = 'challenge' AND expires_at <= ? RETURNING {_COLUMNS}",
                (now, game_id, now),
            )
            found = [_info_from_row(row) for row in rows]
            if found or not await db.execute_fetchall(
                "SELECT 1 FROM games WHERE id = ? AND status = 'challenge'", (game_id,)
            ):
                await self._schedule(db, game_id, None)
        if found:
            log.info("game %d: challenge expired", game_id)
        return found[0] if found else None

    async def expire_challenges(self, now: dt.datetime | None = None) -> list[GameInfo]:
        """Close every challenge whose deadline has passed; returns them so their messages can say so."""
        moment = self._now() if now is None else _to_ts(now)
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "UPDATE games SET status = 'expired', result = 'Expired', updated_at = ? "
                f"WHERE status = 'challenge' AND expires_at <= ? RETURNING {_COLUMNS}",
                (moment, moment),
            )
            for row in rows:
                await db.execute("DELETE FROM due WHERE game_id = ?", (row["id"],))
        expired = sorted((_info_from_row(row) for row in rows), key=lambda info: info.id)
        if expired:
            log.info("expired %d challenge(s): %s", len(expired), ", ".join(str(i.id) for i in expired))
        return expired

    async def set_challenge_message(self, game_id: int, message_id: int) -> None:
        await self._set_column(game_id, "challenge_message_id", message_id)

    async def set_board_message(self, game_id: int, message_id: int) -> None:
        await self._set_column(game_id, "board_message_id", message_id)

    async def _set_column(self, game_id: int, column: str, value: int) -> None:
        if not is_id(game_id):
            raise NoGameHere("refusal.no_such_game")
        async with self._transaction() as db:
            cursor = await db.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, game_id))
            if cursor.rowcount != 1:
                raise NoGameHere("refusal.no_such_game")

    def _check_can_answer(self, info: GameInfo, user_id: int) -> None:
        check_can_answer(info, user_id, _from_ts(self._now()))

    async def _peek(self, db: Connection, game_id: int) -> GameInfo:
        """Re-read a row inside the current transaction to explain why a conditional write touched nothing."""
        if not is_id(game_id):
            raise NoGameHere("refusal.no_such_game")
        rows = await db.execute_fetchall(f"SELECT {_COLUMNS} FROM games WHERE id = ?", (game_id,))
        for row in rows:
            return _info_from_row(row)
        raise NoGameHere("refusal.no_such_game")

    # --- playing --------------------------------------------------------------------------------

    def _check_in_play(self, info: GameInfo) -> None:
        check_in_play(info)

    def _check_participant(self, info: GameInfo, user_id: int) -> None:
        check_participant(info, user_id)

    async def play(
        self,
        game_id: int,
        user_id: int,
        text: str,
        *,
        expected_ply: int | None = None,
        expected_version: int | None = None,
        stamp: int | None = None,
    ) -> GameInfo:
        """Apply one turn (setup, pie choice or move) for ``user_id``.

        ``expected_version`` is the version of the game the player was looking at (a button or menu
        carries it; ``expected_ply`` is what older buttons carried); if the game has changed since, the
        turn is refused rather than applied to a position the player never saw. ``stamp`` says when the
        player acted (a snowflake): a turn sent before the game's latest change is refused for the
        same reason, and an accepted one becomes the game's latest change.
        """
        info = await self.get_game(game_id)
        self._check_in_play(info)
        self._check_participant(info, user_id)
        if expected_ply is not None and expected_ply != info.ply:
            raise RaceLost(_RACE_MESSAGE)
        if expected_version is not None and expected_version != info.version:
            raise RaceLost(_RACE_MESSAGE)
        if info.user_to_act != user_id:
            waiting = info.user_to_act
            raise NotYourTurn(waiting)
        if stamp is not None and stamp < info.changed_stamp:
            raise RaceLost(_MOVED_ON_MESSAGE)
        now = self._now()
        if info.clock is not None and info.clock.flagged(now) is not None:
            raise TimeIsUp("refusal.time_is_up")
        try:
            game = info.state.play(text)
        except IllegalMove as exc:
            raise InvalidMove(exc.key, **exc.data) from exc
        if len(game.turns) != info.ply + 1:
            raise RuntimeError(f"game {game_id}: a turn added {len(game.turns) - info.ply} entries to the log")
        status: Status = "active"
        winner_id: int | None = None
        result: str | None = None
        termination: Termination | None = None
        outcome = game.outcome
        if outcome is not None:
            status = "finished"
            winner_id, result = _finish(_with_state(replace(info, turns=game.turns), game), outcome)
            termination = outcome.termination
        clock = _clock_after(info, game, now)
        version = info.version + 1
        changed = max(info.changed_stamp, stamp or 0)
        # A move that ends the game also writes ratings, tournaments...: that takes the whole database.
        async with self._transaction(game=None if status == "finished" else game_id) as db:
            cursor = await db.execute(
                "UPDATE games SET ply = ?, turns = ?, status = ?, winner_id = ?, result = ?, termination = ?, "
                "undo_requested_by = NULL, updated_at = ?, version = ?, board_version = ?, changed_stamp = ?, "
                "clock_first = ?, clock_second = ?, clock_running = ?, clock_since = ? "
                "WHERE id = ? AND version = ? AND status = 'active'",
                (
                    info.ply + 1,
                    _join_turns(game.turns),
                    status,
                    winner_id,
                    result,
                    termination,
                    now,
                    version,
                    version,
                    changed,
                    *_clock_values(clock),
                    game_id,
                    info.version,
                ),
            )
            if cursor.rowcount != 1:
                raise RaceLost(_RACE_MESSAGE)
            await self._schedule(db, game_id, clock)
            # Each seat's time left as the turn was played, before any increment: an undo gives exactly this back.
            left = (
                (None, None) if info.clock is None else (info.clock.left("first", now), info.clock.left("second", now))
            )
            await db.queue(
                "INSERT INTO moves (game_id, ply, turn, user_id, played_at, clock_first, clock_second) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, info.ply + 1, game.turns[-1], user_id, now, *left),
            )
            if status == "finished":
                await self._on_game_end(db, info, winner_id, now, termination)
        self._remember(game_id, game)
        played = replace(
            info,
            ply=info.ply + 1,
            turns=game.turns,
            status=status,
            winner_id=winner_id,
            result=result,
            termination=termination,
            clock=clock,
            ended_at=now if status == "finished" else None,
            undo_requested_by=None,
            updated_at=_from_ts(now),
            version=version,
            board_version=version,
            changed_stamp=changed,
        )
        if status == "finished":
            log.info("game %d: %s (turn %d)", game_id, result, played.ply)
        return _with_state(played, game)

    async def resign(self, game_id: int, user_id: int, *, stamp: int | None = None) -> GameInfo:
        info = await self.get_game(game_id)
        self._check_in_play(info)
        self._check_participant(info, user_id)
        colour = info.colour_of_user(user_id)
        if colour is not None:
            result = f"{colour.capitalize()} resigned"
        else:
            result = f"The {info.seat_of_user(user_id)} player resigned"
        winner_id = next(p for p in info.participants if p != user_id)
        now = self._now()
        if info.clock is not None and info.clock.flagged(now) is not None:
            # The game is already lost on time (the scheduler has not acted yet): that ending stands.
            raise TimeIsUp("refusal.resign_time_is_up")
        version = info.version + 1
        changed = max(info.changed_stamp, stamp or 0)
        clock = None if info.clock is None else info.clock.stopped(now)
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE games SET status = 'finished', winner_id = ?, result = ?, termination = 'resignation', "
                "undo_requested_by = NULL, "
                "updated_at = ?, version = ?, board_version = ?, changed_stamp = ?, "
                "clock_first = ?, clock_second = ?, clock_running = ?, clock_since = ? "
                "WHERE id = ? AND version = ? AND status = 'active'",
                (winner_id, result, now, version, version, changed, *_clock_values(clock), game_id, info.version),
            )
            if cursor.rowcount != 1:
                raise RaceLost(_RACE_MESSAGE)
            await self._schedule(db, game_id, None)
            await self._on_game_end(db, info, winner_id, now, "resignation")
        log.info("game %d: %s", game_id, result)
        resigned = replace(
            info,
            status="finished",
            winner_id=winner_id,
            result=result,
            termination="resignation",
            clock=clock,
            ended_at=now,
            undo_requested_by=None,
            updated_at=_from_ts(now),
            version=version,
            board_version=version,
            changed_stamp=changed,
        )
        return self._attach(resigned)

    async def request_undo(self, game_id: int, user_id: int) -> GameInfo:
        """Ask to take back one's own last turn; allowed only while it is still the last entry of the log."""
        info = await self.get_game(game_id)
        self._check_in_play(info)
        self._check_participant(info, user_id)
        if info.undo_requested_by is not None:
            raise UndoRefused("refusal.undo_pending")
        last = await self._fetchall(
            "SELECT user_id FROM moves WHERE game_id = ? AND ply = ?",
            (game_id, info.ply),
        )
        if not last or int(last[0][0]) != user_id:
            raise UndoRefused("refusal.undo_own_last")
        now = self._now()
        _check_time_left(info, now)
        version = info.version + 1
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE games SET undo_requested_by = ?, updated_at = ?, version = ? "
                "WHERE id = ? AND version = ? AND status = 'active' AND undo_requested_by IS NULL",
                (user_id, now, version, game_id, info.version),
            )
            if cursor.rowcount != 1:
                raise RaceLost(_RACE_MESSAGE)
        log.info("game %d: %d asks to take back turn %d", game_id, user_id, info.ply)
        return self._attach(replace(info, undo_requested_by=user_id, updated_at=_from_ts(now), version=version))

    async def answer_undo(
        self,
        game_id: int,
        user_id: int,
        accept: bool,
        *,
        expected_version: int | None = None,
        stamp: int | None = None,
    ) -> GameInfo:
        """The opponent's answer; accepting removes the last entry of the log.

        ``expected_version`` is the version the request was made at (its buttons carry it).
        """
        info = await self.get_game(game_id)
        self._check_in_play(info)
        self._check_participant(info, user_id)
        if expected_version is not None and expected_version != info.version:
            raise RaceLost("refusal.undo_stale")
        requester = info.undo_requested_by
        if requester is None:
            raise UndoRefused("refusal.undo_none")
        if requester == user_id:
            raise UndoRefused("refusal.undo_yours")
        now = self._now()
        version = info.version + 1
        if not accept:
            async with self._transaction() as db:
                cursor = await db.execute(
                    "UPDATE games SET undo_requested_by = NULL, updated_at = ?, version = ? "
                    "WHERE id = ? AND version = ? AND status = 'active' AND undo_requested_by = ?",
                    (now, version, game_id, info.version, requester),
                )
                if cursor.rowcount != 1:
                    raise RaceLost(_RACE_MESSAGE)
            log.info("game %d: undo declined by %d", game_id, user_id)
            return self._attach(replace(info, undo_requested_by=None, updated_at=_from_ts(now), version=version))
        undone = await self._rewind(info, info.ply - 1, stamp=stamp, requester=requester)
        log.info("game %d: turn %d taken back", game_id, info.ply)
        return undone

    async def _rewind(self, info: GameInfo, keep: int, *, stamp: int | None, requester: int | None) -> GameInfo:
        """Take a game back to its first ``keep`` turns in one change: the row, the move log, the clock, what is due.

        The turn taken back is to play again: both clocks are as they stood the moment that turn was played
        (its increment, and the fresh allowance of a days-per-move clock, go with it; the time since is
        nobody's), and the seat that played it runs from now. A clock already run out is not wound back:
        ``TimeIsUp``, and the flag falls instead. With a ``requester`` the change lands only while that
        player's undo request still stands.
        """
        game_id = info.id
        turns = info.turns[:keep]
        game = info.kind.replay(turns, info.settings)
        now = self._now()
        _check_time_left(info, now)
        version = info.version + 1
        changed = max(info.changed_stamp, stamp or 0)
        seat = game.seat_to_act
        clock = info.clock
        if clock is not None and seat is not None:
            rows = await self._fetchall(
                "SELECT clock_first, clock_second FROM moves WHERE game_id = ? AND ply = ?", (game_id, keep + 1)
            )
            kept = next(iter(rows), None)
            if kept is not None and kept[0] is not None and kept[1] is not None:
                clock = Clock(clock.control, float(kept[0]), float(kept[1]), seat, now)
            else:  # a turn played before the clocks were kept with it: the time each seat has now
                clock = replace(clock.stopped(now), running=seat, since=now)
        guard = "" if requester is None else " AND undo_requested_by = ?"
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE games SET ply = ?, turns = ?, undo_requested_by = NULL, updated_at = ?, version = ?, "
                "board_version = ?, changed_stamp = ?, clock_first = ?, clock_second = ?, clock_running = ?, "
                f"clock_since = ? WHERE id = ? AND version = ? AND status = 'active'{guard}",
                (
                    keep,
                    _join_turns(turns),
                    now,
                    version,
                    version,
                    changed,
                    *_clock_values(clock),
                    game_id,
                    info.version,
                    *(() if requester is None else (requester,)),
                ),
            )
            if cursor.rowcount != 1:
                raise RaceLost(_RACE_MESSAGE)
            await self._schedule(db, game_id, clock)
            await db.execute("DELETE FROM moves WHERE game_id = ? AND ply > ?", (game_id, keep))
        self._remember(game_id, game)
        undone = replace(
            info,
            ply=keep,
            turns=turns,
            clock=clock,
            undo_requested_by=None,
            updated_at=_from_ts(now),
            version=version,
            board_version=version,
            changed_stamp=changed,
        )
        return _with_state(undone, game)

    async def take_back_against_ai(
        self, game_id: int, user_id: int, ai_id: int, *, stamp: int | None = None
    ) -> GameInfo:
        """Take back the player's last move and every reply the AI made since, in one change.

        The AI never minds a take-back, so nobody is asked; what is taken back is exactly the tail of the
        log from the player's own last move, which must be followed only by the AI's turns.
        """
        info = await self.get_game(game_id)
        check_in_play(info)
        check_participant(info, user_id)
        if ai_id not in info.participants or not info.is_ai_game:
            raise UndoRefused("refusal.undo_not_ai")
        log_rows = await self.move_log(game_id)
        mine = [ply for ply, _, user in log_rows if user == user_id]
        if not mine:
            raise UndoRefused("refusal.undo_nothing")
        first = mine[-1]
        if any(user not in (user_id, ai_id) for ply, _, user in log_rows if ply > first):
            raise UndoRefused("refusal.undo_ai_own")
        undone = await self._rewind(info, first - 1, stamp=stamp, requester=None)
        log.info("game %d: plies %d to %d taken back against the AI", game_id, first, info.ply)
        return undone

    async def cancel_game(self, game_id: int, *, stamp: int | None = None) -> GameInfo:
        """End a challenge or a game without a winner (a server manager's decision)."""
        info = await self.get_game(game_id)
        if not info.is_open:
            raise _finished_message(info)
        now = self._now()
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "UPDATE games SET status = 'cancelled', result = 'Cancelled', termination = 'cancelled', "
                "undo_requested_by = NULL, "
                "updated_at = ?, version = version + 1, board_version = version + 1, "
                "changed_stamp = MAX(changed_stamp, ?) "
                f"WHERE id = ? AND status IN ('challenge', 'active') RETURNING {_COLUMNS}",
                (now, stamp or 0, game_id),
            )
            if not rows:
                raise RaceLost(_RACE_MESSAGE)
            await self._schedule(db, game_id, None)
            await self._record_pairing(db, info, None, "cancelled")
        log.info("game %d: cancelled", game_id)
        return self._attach(_info_from_row(next(iter(rows))))

    # --- clocks and the scheduler ---------------------------------------------------------------

    async def _schedule(self, db: Connection, game_id: int, clock: Clock | None) -> None:
        """Replace a game's due rows with those of its clock now: the deadline, and reminders before it.

        Whatever else was due for it goes too (an accepted or closed challenge's expiry).

        Runs inside the transaction that changed the clock, so a deadline is never out of step with it.
        """
        await db.queue("DELETE FROM due WHERE game_id = ?", (game_id,))
        deadline = None if clock is None else clock.deadline()
        if clock is None or deadline is None:
            return
        await db.queue(
            "INSERT INTO due (kind, game_id, key, due_at) VALUES ('deadline', ?, '', ?)", (game_id, deadline)
        )
        earliest = deadline
        if clock.control.family != "none" and not clock.control.is_live:
            for left in REMINDERS_LEFT:
                moment = clock.at_left(left)
                if moment is not None:
                    await db.queue(
                        "INSERT INTO due (kind, game_id, key, due_at) VALUES ('reminder', ?, ?, ?)",
                        (game_id, str(int(left)), moment),
                    )
                    earliest = min(earliest, moment)
        if self.on_scheduled is not None:
            self.on_scheduled(earliest)

    async def next_due_at(self) -> float | None:
        """When the earliest due row falls due (the scheduler sleeps until then); one step down an index."""
        rows = await self._fetchall("SELECT due_at FROM due ORDER BY due_at LIMIT 1")
        return None if not rows else float(rows[0][0])

    async def claim_due(self, now: float, *, lease: float, limit: int, owner: str = "") -> list[DueRow]:
        """Take up to ``limit`` rows due at ``now``, oldest first, for ``lease`` seconds.

        A taken row moves to the end of its lease: if the process acting on it dies, it falls due again
        then, for whichever process looks next. Acting on a row removes it in the same transaction as the
        action (``flag``, ``take_reminder``), so a row is acted on once. Each taken row carries a token of
        this claim (``owner``: who claims, see ``release_claims``); a step that runs longer than its lease
        renews it (``renew_claim``) and its writes check the token, so it is never taken over while it runs.
        """
        self._claims += 1
        token = f"{owner}|{self._run}|{self._claims}"
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "SELECT id, kind, game_id, key, due_at, tournament_id FROM due WHERE due_at <= ? "
                "ORDER BY due_at, id LIMIT ?",
                (now, limit),
            )
            taken = [
                DueRow(int(r[0]), str(r[1]), int(r[2] or 0), str(r[3]), float(r[4]), r[5] and int(r[5]), token)
                for r in rows
            ]
            if taken:
                marks = ", ".join("?" for _ in taken)
                await db.execute(
                    f"UPDATE due SET due_at = ?, claimed_until = ?, claimed_by = ? WHERE id IN ({marks})",
                    (now + lease, now + lease, token, *(row.id for row in taken)),
                )
        return taken

    async def renew_claim(self, claim: Claim, *, lease: float) -> bool:
        """Keep a taken row for another ``lease`` seconds from now; False if it is no longer this claim's (another
        process took it over, or it was done or made due afresh meanwhile)."""
        until = self._now() + lease
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE due SET due_at = ?, claimed_until = ? WHERE id = ? AND claimed_by = ?",
                (until, until, claim.due_id, claim.token),
            )
            return cursor.rowcount == 1

    async def retry_due(self, claim: Claim, at: float) -> bool:
        """Give a taken row back, to fall due again at ``at`` (its step failed and is to be tried again then)."""
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE due SET due_at = ?, claimed_until = NULL, claimed_by = NULL WHERE id = ? AND claimed_by = ?",
                (at, claim.due_id, claim.token),
            )
        if cursor.rowcount == 1 and self.on_scheduled is not None:
            self.on_scheduled(at)
        return cursor.rowcount == 1

    async def release_claims(self, owner: str) -> int:
        """At start-up: rows that an earlier run of this ``owner`` took and never finished fall due now, without
        waiting for their leases (that run is over: one process runs a set of gateway shards at a time)."""
        now = self._now()
        mine, this_run = f"{owner}|", f"{owner}|{self._run}|"
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE due SET due_at = ?, claimed_until = NULL, claimed_by = NULL WHERE claimed_by IS NOT NULL "
                "AND substr(claimed_by, 1, ?) = ? AND substr(claimed_by, 1, ?) <> ?",
                (now, len(mine), mine, len(this_run), this_run),
            )
        if cursor.rowcount and self.on_scheduled is not None:
            self.on_scheduled(now)
        return cursor.rowcount

    @staticmethod
    async def _holds(db: Connection, claim: Claim | None) -> bool:
        """Inside a transaction: whether ``claim`` (None: no claim asked for) still holds its row."""
        if claim is None:
            return True
        rows = await db.execute_fetchall(
            "SELECT 1 FROM due WHERE id = ? AND claimed_by = ?", (claim.due_id, claim.token)
        )
        return bool(list(rows))

    async def flag(self, game_id: int, *, due_id: int | None = None) -> GameInfo | None:
        """End the game on time if its running seat's time is up now; None, changing nothing else, if not.

        The player whose time ran out loses (Termination "time forfeit"); a casual game idle past its
        server's inactivity limit ends the same way. A move that landed first, or time given back,
        leaves the game going: the stale row (``due_id``) is dropped and the newer deadline stands.
        """
        now = self._now()
        info = await self.get_game(game_id)
        clock = info.clock
        loser = None if info.status != "active" or clock is None else clock.flagged(now)
        if loser is None:
            if due_id is not None:
                async with self._transaction() as db:
                    await db.execute("DELETE FROM due WHERE id = ? AND claimed_until IS NOT NULL", (due_id,))
            return None
        assert clock is not None
        colour = info.colour_of_seat(loser)
        who = colour.capitalize() if colour else f"The {loser} player"
        result = f"{who} lost on time"
        if info.time_control.family == "none":
            result += f" (no move for {round(info.time_control.start / DAY)} days)"
        loser_id = info.user_for_seat(loser)
        winner_id = next((p for p in info.participants if p != loser_id), None)
        stopped = clock.stopped(now)
        version = info.version + 1
        if not await self._end_by_clock(info, winner_id, result, "time forfeit", stopped, now):
            return None
        return self._attach(
            replace(
                info,
                status="finished",
                winner_id=winner_id,
                result=result,
                termination="time forfeit",
                clock=stopped,
                ended_at=now,
                undo_requested_by=None,
                updated_at=_from_ts(now),
                version=version,
                board_version=version,
            )
        )

    async def take_reminder(self, due_id: int) -> tuple[GameInfo, float] | None:
        """Remove a reminder row and return its game and the seconds it said would be left; None if it is gone.

        Removed before it is sent: a reminder is sent at most once, even if the process dies sending it.
        """
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "DELETE FROM due WHERE id = ? AND kind = 'reminder' RETURNING game_id, key", (due_id,)
            )
            found = [(int(r[0]), str(r[1])) for r in rows]
        if not found:
            return None
        game_id, key = found[0]
        info = await self.get_game(game_id)
        if info.status != "active":
            return None
        return info, float(key)

    async def keep_alive(self, *, gap_allowed: float) -> float:
        """Record that the scheduler is running; give back the time it was not, if that was more than ``gap_allowed``.

        Called at start-up and then every little while. When the last call is more than ``gap_allowed``
        ago (the bot was down), every running clock and every due row is moved on by the gap, in one
        transaction: nobody loses on time, or is reminded early, because the bot was away. Returns the gap
        given back (0 when none).
        """
        now = self._now()
        async with self._transaction() as db:
            rows = await db.execute_fetchall("SELECT value FROM meta WHERE key = 'scheduler_alive_at'")
            last = [float(r[0]) for r in rows]
            gap = now - last[0] if last else 0.0
            given = gap if gap > gap_allowed else 0.0
            if given:
                await db.execute(
                    "UPDATE games SET clock_since = clock_since + ? "
                    "WHERE status = 'active' AND clock_since IS NOT NULL",
                    (given,),
                )
                await db.execute("UPDATE due SET due_at = due_at + ?", (given,))
            await db.execute(
                "INSERT INTO meta (key, value) VALUES ('scheduler_alive_at', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (repr(now),),
            )
        if given:
            log.warning("The scheduler was away %.0f s: every running clock and due row was moved on by that", given)
        return given

    # --- ratings ---------------------------------------------------------------------------------

    async def _on_game_end(
        self,
        db: Connection,
        before: GameInfo,
        winner_id: int | None,
        now: float,
        termination: str | None = None,
    ) -> None:
        """Every path that ends a game calls this inside its transaction: the end time, a tournament pairing's
        result, and a rated game's ratings.

        Casual games and games against the AI change no rating; a draw counts half for each player. The
        changes land in the same transaction as the result, so a game never ends without them, nor they
        without it. A tournament game lost on time by a player who never took a turn in it is a no-show: a
        forfeit, which rates nobody.
        """
        await db.execute("UPDATE games SET ended_at = ? WHERE id = ?", (now, before.id))
        if await self._record_pairing(db, before, winner_id, termination) == "forfeit":
            return
        # Whoever just played here is a member of the server (again).
        await db.execute(
            "DELETE FROM departed WHERE guild_id = ? AND user_id IN (?, ?)",
            (before.guild_id, before.challenger_id, before.opponent_id or 0),
        )
        if not before.rated or before.is_ai_game or before.opponent_id is None:
            return
        # The commit order of rating updates, for the rebuild: this transaction holds the whole database's write lock.
        await db.execute(
            "UPDATE games SET rating_seq = (SELECT COALESCE(MAX(rating_seq), 0) + 1 FROM games "
            "WHERE rating_seq IS NOT NULL) WHERE id = ?",
            (before.id,),
        )
        first_score = 0.5 if winner_id is None else 1.0 if winner_id == before.challenger_id else 0.0
        game = RatedGame(
            before.id,
            pools_for(before.guild_id, before.kind.name, before.settings),
            before.challenger_id,
            before.opponent_id,
            first_score,
            now,
        )
        await _rate_into(db, game)

    async def rating_changes(self, game_id: int) -> list[RatingChange]:
        """What a finished game did to its players' ratings, in its server's pool then the global one."""
        rows = await self._fetchall(
            "SELECT scope, user_id, before, before_dev, after, after_dev FROM rating_changes WHERE game_id = ? "
            "ORDER BY scope DESC, user_id",
            (game_id,),
        )
        return [RatingChange(int(r[0]), int(r[1]), float(r[2]), float(r[3]), float(r[4]), float(r[5])) for r in rows]

    async def leaderboard(
        self, scope: int, game: str, settings: Mapping[str, str], *, offset: int, limit: int, established: bool
    ) -> tuple[list[tuple[int, Rating, tuple[int, int, int]]], int]:
        """One page of a pool's players by rating (highest first) and how many there are in all.

        ``established``: leave out provisional players. The page is read down the pool's index.
        """
        pool = PoolKey.of(scope, game, settings)
        where = (
            "scope = ? AND game = ? AND settings = ? "
            "AND NOT EXISTS (SELECT 1 FROM departed d WHERE d.guild_id = ratings.scope AND d.user_id = ratings.user_id)"
        )
        params: list[Any] = [pool.scope, pool.game, pool.settings]
        if established:
            where += " AND deviation <= ?"
            params.append(PROVISIONAL_DEVIATION)
        rows = await self._fetchall(
            "SELECT user_id, value, deviation, volatility, games, last_played, wins, losses, draws FROM ratings "
            f"WHERE {where} ORDER BY value DESC, user_id LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        total = await self._fetchall(f"SELECT COUNT(*) FROM ratings WHERE {where}", params)
        page = [
            (
                int(r[0]),
                Rating(float(r[1]), float(r[2]), float(r[3]), int(r[4]), r[5]),
                (int(r[6]), int(r[7]), int(r[8])),
            )
            for r in rows
        ]
        return page, int(total[0][0])

    async def rating_pools(self, scope: int, game: str) -> list[tuple[dict[str, str], int]]:
        """The pools of one game that have players in a scope: their settings and how many players, busiest first."""
        rows = await self._fetchall(
            "SELECT settings, COUNT(*) FROM ratings WHERE scope = ? AND game = ? "
            "AND NOT EXISTS (SELECT 1 FROM departed d "
            "WHERE d.guild_id = ratings.scope AND d.user_id = ratings.user_id) "
            "GROUP BY settings ORDER BY COUNT(*) DESC, settings",
            (scope, game),
        )
        return [(dict(part.split("=", 1) for part in str(r[0]).split(",") if "=" in part), int(r[1])) for r in rows]

    async def player_ratings(
        self, scope: int, user_id: int, game: str
    ) -> list[tuple[str, Rating, tuple[int, int, int]]]:
        """A player's ratings in every pool of one game in a scope (a server, or 0): pool settings, rating, record."""
        rows = await self._fetchall(
            "SELECT settings, value, deviation, volatility, games, last_played, wins, losses, draws FROM ratings "
            "WHERE scope = ? AND game = ? AND user_id = ? ORDER BY games DESC, settings",
            (scope, game, user_id),
        )
        return [
            (str(r[0]), Rating(float(r[1]), float(r[2]), float(r[3]), int(r[4]), r[5]), (r[6], r[7], r[8]))
            for r in rows
        ]

    async def rating_history(
        self, scope: int, user_id: int, game: str, settings: Mapping[str, str]
    ) -> list[tuple[float, float]]:
        """A player's rating (and deviation) after each of their rated games in one pool, oldest first."""
        rows = await self._fetchall(
            "SELECT rc.after, rc.after_dev FROM rating_changes rc JOIN games g ON g.id = rc.game_id "
            "WHERE rc.user_id = ? AND rc.scope = ? AND g.game = ? AND g.settings = ? ORDER BY g.rating_seq",
            (user_id, scope, game, settings_json(settings)),
        )
        return [(float(r[0]), float(r[1])) for r in rows]

    async def past_games(
        self, guild_id: int, user_id: int, *, game: str | None = None, against: int | None = None, limit: int = 25
    ) -> list[GameInfo]:
        """A member's finished (or cancelled) games in a server, latest first; of one game or rival if asked."""
        where = "guild_id = ? AND status IN ('finished', 'cancelled') AND (challenger_id = ? OR opponent_id = ?)"
        params: list[Any] = [guild_id, user_id, user_id]
        if game is not None:
            where += " AND game = ?"
            params.append(game)
        if against is not None:
            where += " AND (challenger_id = ? OR opponent_id = ?)"
            params += [against, against]
        return await self._fetch_info(
            f"SELECT {_COLUMNS} FROM games WHERE {where} ORDER BY COALESCE(ended_at, updated_at) DESC, id DESC LIMIT ?",
            (*params, limit),
        )

    async def mark_departed(self, guild_id: int, user_ids: Sequence[int]) -> None:
        """These members have left the server: its leaderboard no longer shows them."""
        async with self._transaction() as db:
            await db.executemany(
                "INSERT INTO departed (guild_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [(guild_id, user) for user in user_ids],
            )

    async def rebuild_ratings(self) -> int:
        """Recompute every rating from the stored rated games, in the order their ratings were written (each
        game's ``rating_seq``, given under the write lock), whatever their end times say; returns how many games.

        The games are read in one query and rated in memory by the same arithmetic as at a game's end
        (``bot.ratings.apply_game``); both tables are then rewritten in one transaction, so readers see
        the old ratings or the new ones, never a half-rebuilt table.
        """
        rows = await self._fetchall(
            "SELECT id, guild_id, game, settings, challenger_id, opponent_id, winner_id, ended_at FROM games "
            "WHERE rating_seq IS NOT NULL AND opponent_id IS NOT NULL ORDER BY rating_seq"
        )
        table: dict[tuple[PoolKey, int], Rating] = {}
        records: dict[tuple[PoolKey, int], list[int]] = {}
        changes: list[tuple[int, int, int, float, float, float, float]] = []
        for r in rows:
            first, second, winner = int(r[4]), int(r[5]), r[6]
            score = 0.5 if winner is None else 1.0 if winner == first else 0.0
            settings = cast(dict[str, str], json.loads(r[3]))
            game = RatedGame(int(r[0]), pools_for(int(r[1]), str(r[2]), settings), first, second, score, float(r[7]))
            for change in apply_game(table, game):
                won = score if change.player == first else 1.0 - score
                record = records.setdefault((change.pool, change.player), [0, 0, 0])
                record[0 if won == 1.0 else 1 if won == 0.0 else 2] += 1
                before, after = change.before, change.after
                changes.append(
                    (
                        game.game_id,
                        change.pool.scope,
                        change.player,
                        before.value,
                        before.deviation,
                        after.value,
                        after.deviation,
                    )
                )
        async with self._transaction() as db:
            await db.execute("DELETE FROM ratings")
            await db.execute("DELETE FROM rating_changes")
            await db.executemany(
                "INSERT INTO ratings (scope, game, settings, user_id, value, deviation, volatility, games, "
                "last_played, wins, losses, draws) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        pool.scope,
                        pool.game,
                        pool.settings,
                        player,
                        rating.value,
                        rating.deviation,
                        rating.volatility,
                        rating.games,
                        rating.last_played,
                        *records[(pool, player)],
                    )
                    for (pool, player), rating in table.items()
                ],
            )
            await db.executemany(
                "INSERT INTO rating_changes (game_id, scope, user_id, before, before_dev, after, after_dev) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                changes,
            )
        return len(rows)

    # --- announcing -----------------------------------------------------------------------------

    async def mark_posted(self, game_id: int, version: int, message_id: int) -> None:
        """A board showing ``version`` was posted as ``message_id``.

        The first board of a version also moves the game's change stamp to the message: a turn sent
        before the players could see the change is refused like one sent before the change itself.
        A board of an older version than one already posted changes nothing.
        """
        async with self._transaction(game=game_id) as db:
            await db.queue(
                "UPDATE games SET board_message_id = ?, "
                "changed_stamp = CASE WHEN ? > posted_version THEN MAX(changed_stamp, ?) ELSE changed_stamp END, "
                "posted_version = ? WHERE id = ? AND posted_version <= ?",
                (message_id, version, message_id, version, game_id, version),
            )

    async def give_up_posting(self, game_id: int, version: int) -> None:
        """Stop trying to post ``version``'s board (its channel refuses for good); the game stays as it is."""
        async with self._transaction() as db:
            await db.execute(
                "UPDATE games SET posted_version = ? WHERE id = ? AND posted_version < ?",
                (version, game_id, version),
            )

    async def unannounced_games(self) -> list[GameInfo]:
        """Games in play or just finished whose latest change no posted board shows, oldest change first."""
        found = await self._fetch_info(
            f"SELECT {_COLUMNS} FROM games WHERE board_version > posted_version AND status IN ('active', 'finished') "
            # A tournament game's first board goes with its intro, which the step opening its round posts.
            "AND NOT EXISTS (SELECT 1 FROM tournament_pairings p WHERE p.game_id = games.id AND p.intro_posted = 0 "
            "AND p.result IS NULL) ORDER BY updated_at, id",
        )
        return [info for info in found if self.owns_guild(info.guild_id)]

    async def games_with_player(self, user_id: int) -> list[GameInfo]:
        """Games in play where ``user_id`` is a participant (the AI finds the games it owes a turn in)."""
        found = await self._fetch_info(
            f"SELECT {_COLUMNS} FROM games WHERE status = 'active' AND (challenger_id = ? OR opponent_id = ?) "
            "ORDER BY id",
            (user_id, user_id),
        )
        return [info for info in found if self.owns_guild(info.guild_id)]

    async def rebuild(self, game_id: int) -> GameInfo:
        """Replay the move log and rewrite the cached state of the row from it.

        The log is the truth; the row's ply and turns are a cache of it. A game the rules say is won
        is marked finished, but a result the rules cannot see (a resignation, a cancellation) is kept.
        """
        async with self._transaction() as db:
            info = await self._peek(db, game_id)
            rows = await db.execute_fetchall(
                "SELECT turn FROM moves WHERE game_id = ? ORDER BY ply",
                (game_id,),
            )
            turns = tuple(str(row[0]) for row in rows)
            try:
                game = info.kind.replay(turns, info.settings)
            except RecordError as exc:
                raise StoreError(f"game {game_id}: its move log does not replay ({exc})") from exc
            status, winner_id, result, termination = info.status, info.winner_id, info.result, info.termination
            outcome = game.outcome
            if info.status == "active" and outcome is not None:
                status = "finished"
                winner_id, result = _finish(_with_state(replace(info, turns=turns), game), outcome)
                termination = outcome.termination
            updated = await db.execute_fetchall(
                "UPDATE games SET ply = ?, turns = ?, status = ?, winner_id = ?, result = ?, termination = ?, "
                f"version = version + 1 WHERE id = ? RETURNING {_COLUMNS}",
                (len(turns), _join_turns(turns), status, winner_id, result, termination, game_id),
            )
        if len(turns) != info.ply or turns != info.turns:
            log.warning(
                "game %d: cached state disagreed with the move log (ply %d, log %d)", game_id, info.ply, len(turns)
            )
        self._remember(game_id, game)
        return _with_state(_info_from_row(next(iter(updated))), game)

    # --- tournaments ----------------------------------------------------------------------------

    async def _record_pairing(
        self, db: Connection, before: GameInfo, winner_id: int | None, termination: str | None
    ) -> str | None:
        """Inside the transaction that ends a game: its tournament pairing's result, a no-show's withdrawal, and,
        once every game of the round has its result, the tournament's next step (``advance``) falls due now.

        Returns None for a game of no tournament (or one whose result was already set by its organiser),
        ``forfeit`` for a no-show (not rated), else ``game``.
        """
        rows = await db.execute_fetchall(
            "SELECT id, tournament_id, round, white, black, result FROM tournament_pairings WHERE game_id = ?",
            (before.id,),
        )
        found = [(int(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4]), r[5]) for r in rows]
        if not found or found[0][5] is not None:
            return None
        pairing_id, tournament_id, number, white, black, _ = found[0]
        kind = "game"
        result: str
        if termination == "cancelled":
            result = "--"  # neither scores; the organiser can set what it should have been
        elif winner_id is None:
            result = "1/2-1/2"
        else:
            loser = black if winner_id == white else white
            moved = await db.execute_fetchall(
                "SELECT 1 FROM moves WHERE game_id = ? AND user_id = ? LIMIT 1", (before.id, loser)
            )
            if termination in ("time forfeit", "adjudication") and not moved:
                # Lichess: a player who never came loses by forfeit and is withdrawn from the next round on.
                kind = "forfeit"
                result = "+-" if winner_id == white else "-+"
                await db.execute(
                    "UPDATE tournament_players SET left_round = ? "
                    "WHERE tournament_id = ? AND user_id = ? AND left_round IS NULL",
                    (number + 1, tournament_id, loser),
                )
                await self._log(db, tournament_id, 0, "no-show", str(loser))
            else:
                result = "1-0" if winner_id == white else "0-1"
        await db.execute("UPDATE tournament_pairings SET result = ? WHERE id = ?", (result, pairing_id))
        await self._advance_if_round_over(db, tournament_id, number)
        return kind

    async def _advance_if_round_over(self, db: Connection, tournament_id: int, number: int) -> None:
        open_left = await db.execute_fetchall(
            "SELECT 1 FROM tournament_pairings WHERE tournament_id = ? AND round = ? AND result IS NULL LIMIT 1",
            (tournament_id, number),
        )
        if not open_left:
            await self._due_tournament(db, tournament_id, "advance", self._now())

    async def _due_tournament(self, db: Connection, tournament_id: int, key: str, at: float) -> None:
        await db.execute(
            "INSERT INTO due (kind, tournament_id, key, due_at) VALUES ('tournament', ?, ?, ?) "
            "ON CONFLICT (kind, tournament_id, key) DO UPDATE SET due_at = excluded.due_at, claimed_until = NULL, "
            "claimed_by = NULL",
            (tournament_id, key, at),
        )
        if self.on_scheduled is not None:
            self.on_scheduled(at)

    async def _log(self, db: Connection, tournament_id: int, actor_id: int, action: str, detail: str) -> None:
        await db.execute(
            "INSERT INTO tournament_log (tournament_id, at, actor_id, action, detail) VALUES (?, ?, ?, ?, ?)",
            (tournament_id, self._now(), actor_id, action, detail),
        )

    async def drop_due(self, due_id: int) -> None:
        """Remove a due row its handler found nothing to do for."""
        async with self._transaction() as db:
            await db.execute("DELETE FROM due WHERE id = ?", (due_id,))

    async def schedule_tournament(self, tournament_id: int, key: str, at: float | None = None) -> None:
        """Make a tournament step fall due (now unless ``at``): the bot's own nudge after a change it made."""
        async with self._transaction() as db:
            await self._due_tournament(db, tournament_id, key, self._now() if at is None else at)

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
                    "round_minutes, division_size, status, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'signup', ?) RETURNING *",
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
                        now,
                    ),
                )
                info = _tournament_from_row(next(iter(rows)))
                if starts_at is not None:
                    await self._due_tournament(db, info.id, "start", starts_at)
                    if checkin_minutes:
                        await self._due_tournament(db, info.id, "checkin", max(now, starts_at - checkin_minutes * 60))
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
        return _tournament_from_row(rows[0])

    async def tournaments(self, guild_id: int, *, limit: int = 25) -> list[TournamentInfo]:
        """A server's tournaments, those still to finish first, then the latest."""
        rows = await self._fetchall(
            "SELECT * FROM tournaments WHERE guild_id = ? "
            "ORDER BY status IN ('finished', 'cancelled'), id DESC LIMIT ?",
            (guild_id, limit),
        )
        return [_tournament_from_row(r) for r in rows]

    async def live_tournaments(self) -> list[TournamentInfo]:
        rows = await self._fetchall("SELECT * FROM tournaments WHERE status IN ('running', 'paused') ORDER BY id")
        return [_tournament_from_row(r) for r in rows]

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
        return [_entrant_from_row(r) for r in rows]

    async def join_tournament(self, tournament_id: int, user_id: int, name: str) -> tuple[TournamentInfo, bool]:
        """Sign a member up (before the start), or enter them late (a Swiss until half its rounds have started:
        they come in at the next round, with a ½-point bye for the last round missed). Returns whether it was late.
        The name (from Discord) is kept without the characters no name may hold (``bot.text``).
        """
        name = clean_name(name, fallback_name(user_id))
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            rows = await db.execute_fetchall(
                "SELECT left_round FROM tournament_players WHERE tournament_id = ? AND user_id = ?",
                (tournament_id, user_id),
            )
            for row in rows:
                if row[0] is not None:
                    raise UserError("tournament.refusal.withdrew")
                raise UserError("tournament.refusal.already_entered")
            late = False
            joined_round = 1
            if info.status in ("running", "paused"):
                started = await _count(
                    db, "SELECT COUNT(*) FROM tournament_rounds WHERE tournament_id = ?", tournament_id
                )
                if info.format != "swiss":
                    raise UserError("tournament.refusal.only_swiss_late")
                if info.rounds is None or started > info.rounds // 2:
                    raise UserError("tournament.refusal.late_closed")
                late = True
                joined_round = started + 1  # brought in when that round is paired
            elif info.status != "signup":
                raise UserError("tournament.refusal.over")
            count = await _count(db, "SELECT COUNT(*) FROM tournament_players WHERE tournament_id = ?", tournament_id)
            if info.max_players is not None and count >= info.max_players:
                raise UserError("tournament.refusal.full", count=info.max_players)
            rating = await self._seed_rating(db, info, user_id)
            await db.execute(
                "INSERT INTO tournament_players (tournament_id, user_id, name, rating, joined_round, late, joined_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (tournament_id, user_id, name, rating, joined_round, int(late), self._now()),
            )
        return info, late

    async def _seed_rating(self, db: Connection, info: TournamentInfo, user_id: int) -> int:
        """A player's rating in the server's pool of the tournament's game and settings (1500 when unrated)."""
        pool = pools_for(info.guild_id, info.game, info.settings)[0]
        rows = await db.execute_fetchall(
            "SELECT value FROM ratings WHERE scope = ? AND game = ? AND settings = ? AND user_id = ?",
            (pool.scope, pool.game, pool.settings, user_id),
        )
        for row in rows:
            return round(float(row[0]))
        return round(START_RATING)

    async def leave_tournament(self, tournament_id: int, user_id: int, *, actor_id: int | None = None) -> Entrant:
        """Take a player out: before the start the entry is simply removed; once running they are withdrawn from
        the next round on and keep every result so far (a game in progress is still played out)."""
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            rows = await db.execute_fetchall(
                "SELECT * FROM tournament_players WHERE tournament_id = ? AND user_id = ?", (tournament_id, user_id)
            )
            entries = [_entrant_from_row(r) for r in rows]
            if not entries or entries[0].left_round is not None:
                raise UserError(
                    "tournament.refusal.not_playing_you" if actor_id is None else "tournament.refusal.not_playing"
                )
            entry = entries[0]
            if info.status == "signup" or entry.late:
                await db.execute(
                    "DELETE FROM tournament_players WHERE tournament_id = ? AND user_id = ?", (tournament_id, user_id)
                )
            elif info.status in ("running", "paused"):
                started = await _count(
                    db, "SELECT COUNT(*) FROM tournament_rounds WHERE tournament_id = ?", tournament_id
                )
                playing = await db.execute_fetchall(
                    "SELECT 1 FROM tournament_pairings WHERE tournament_id = ? AND round = ? "
                    "AND (white = ? OR black = ?) "
                    "UNION ALL SELECT 1 FROM tournament_byes WHERE tournament_id = ? AND round = ? AND user_id = ? "
                    "LIMIT 1",
                    (tournament_id, started, user_id, user_id, tournament_id, started, user_id),
                )
                round_open = await db.execute_fetchall(
                    "SELECT 1 FROM tournament_pairings WHERE tournament_id = ? AND round = ? AND result IS NULL "
                    "LIMIT 1",
                    (tournament_id, started),
                )
                # As the engine counts it: out from the current round if it is unfinished and they are not in it.
                left = started if round_open and not playing and started else started + 1
                await db.execute(
                    "UPDATE tournament_players SET left_round = ? WHERE tournament_id = ? AND user_id = ?",
                    (max(left, entry.joined_round), tournament_id, user_id),
                )
            else:
                raise UserError("tournament.refusal.over")
            if actor_id is not None:
                await self._log(db, tournament_id, actor_id, "remove", str(user_id))
        return entry

    async def check_in(self, tournament_id: int, user_id: int) -> None:
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            if info.status != "signup":
                raise UserError("tournament.refusal.checkin_over")
            opens = info.checkin_opens_at
            if opens is None or self._now() < opens:
                raise UserError("tournament.refusal.checkin_not_open")
            cursor = await db.execute(
                "UPDATE tournament_players SET checked_in = 1 WHERE tournament_id = ? AND user_id = ?",
                (tournament_id, user_id),
            )
            if cursor.rowcount != 1:
                raise UserError("tournament.refusal.not_entered")

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
                "DELETE FROM due WHERE tournament_id = ? AND key IN ('start', 'checkin')", (tournament_id,)
            )
            if due_id is not None:
                await db.execute("DELETE FROM due WHERE id = ?", (due_id,))
            await self._due_tournament(db, tournament_id, "advance", now)
            await self._log(db, tournament_id, actor_id, "start", str(len(field_)))
            await self._owe_posts(db, tournament_id, start=True)
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

    async def owe_posts(self, tournament_id: int) -> None:
        """Make the ``posts`` step due if something is owed and it is not due already (after a restart)."""
        async with self._transaction() as db:
            owed = await db.execute_fetchall(
                "SELECT 1 FROM tournaments WHERE id = ? AND (start_owed = 1 OR end_owed = 1) UNION ALL "
                "SELECT 1 FROM tournament_rounds WHERE tournament_id = ? AND announced = 0",
                (tournament_id, tournament_id),
            )
            if not list(owed):
                return
            await db.execute(
                "INSERT INTO due (kind, tournament_id, key, due_at) VALUES ('tournament', ?, 'posts', ?) "
                "ON CONFLICT (kind, tournament_id, key) DO NOTHING",
                (tournament_id, self._now()),
            )
        if self.on_scheduled is not None:
            self.on_scheduled(self._now())

    async def owe_step(self, tournament_id: int, key: str) -> None:
        """Make a tournament step due now unless it is due (or being run) already."""
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO due (kind, tournament_id, key, due_at) VALUES ('tournament', ?, ?, ?) "
                "ON CONFLICT (kind, tournament_id, key) DO NOTHING",
                (tournament_id, key, self._now()),
            )
        if self.on_scheduled is not None:
            self.on_scheduled(self._now())

    async def posts_progress(self, tournament_id: int, number: int | None, done: int) -> None:
        """``done`` messages of what is being delivered are out: of the start or end (``number`` None), or a round's."""
        async with self._transaction() as db:
            if number is None:
                await db.execute("UPDATE tournaments SET posts_done = ? WHERE id = ?", (done, tournament_id))
            else:
                await db.execute(
                    "UPDATE tournament_rounds SET posts_done = ? WHERE tournament_id = ? AND number = ?",
                    (done, tournament_id, number),
                )

    async def posts_delivered(
        self, tournament_id: int, what: Literal["start", "round", "end"], number: int = 0
    ) -> None:
        """Everything of the start, of round ``number`` or of the end is out."""
        async with self._transaction() as db:
            if what == "start":
                await db.execute("UPDATE tournaments SET start_owed = 0, posts_done = 0 WHERE id = ?", (tournament_id,))
            elif what == "end":
                await db.execute("UPDATE tournaments SET end_owed = 0, posts_done = 0 WHERE id = ?", (tournament_id,))
            else:
                await db.execute(
                    "UPDATE tournament_rounds SET announced = 1 WHERE tournament_id = ? AND number = ?",
                    (tournament_id, number),
                )

    async def finish_posts(self, claim: Claim) -> bool:
        """Nothing is owed any more: the ``posts`` step is done (unless something new was owed meanwhile, which made
        it due afresh: then it stays, and runs again)."""
        async with self._transaction() as db:
            cursor = await db.execute("DELETE FROM due WHERE id = ? AND claimed_by = ?", (claim.due_id, claim.token))
            return cursor.rowcount == 1

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
                    "SELECT number, started_at, deadline, announced, posts_done FROM tournament_rounds "
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
            finally:
                await self._db.rollback()
        return TournamentSnapshot(
            _tournament_from_row(next(iter(info_rows))),
            tuple(_entrant_from_row(r) for r in players),
            tuple(RoundRow(int(r[0]), float(r[1]), float(r[2]), bool(r[3]), int(r[4])) for r in rounds),
            tuple(_pairing_from_row(r) for r in pairings),
            tuple((int(r[0]), int(r[1]), str(r[2])) for r in byes),
        )

    async def save_round(
        self,
        tournament_id: int,
        plan: RoundPlan,
        *,
        due_id: int | None,
    ) -> bool:
        """Store a freshly paired round whole, before any thread exists: its pairings (a walkover or forfeit
        already decided), its byes, late entrants brought in, its deadline and the step that opens its games.

        False, writing nothing, when that round was already stored (two runs never pair a round twice) or
        the tournament is no longer running.
        """
        now = self._now()
        deadline = now + plan.minutes * 60
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            if due_id is not None:
                await db.execute("DELETE FROM due WHERE id = ?", (due_id,))
            if info.status != "running":
                return False
            exists = await db.execute_fetchall(
                "SELECT 1 FROM tournament_rounds WHERE tournament_id = ? AND number = ?", (tournament_id, plan.number)
            )
            if exists:
                return False
            paired = sorted({p for w, b, _, result in plan.games if result is None for p in (w, b)})
            if paired:
                marks = ", ".join("?" for _ in paired)
                gone = await db.execute_fetchall(
                    f"SELECT 1 FROM tournament_players WHERE tournament_id = ? AND user_id IN ({marks}) "
                    "AND left_round IS NOT NULL AND left_round <= ? LIMIT 1",
                    (tournament_id, *paired, plan.number),
                )
                if gone:
                    # Someone withdrew while the round was being paired: pair it again without them.
                    await self._due_tournament(db, tournament_id, "advance", now)
                    return False
            for user_id, seed in plan.seeds:
                await db.execute(
                    "UPDATE tournament_players SET seed = ?, late = 0 WHERE tournament_id = ? AND user_id = ?",
                    (seed, tournament_id, user_id),
                )
            # A late entry that arrived after this round was paired waits for the next one.
            await db.execute(
                "UPDATE tournament_players SET joined_round = ? WHERE tournament_id = ? AND late = 1",
                (plan.number + 1, tournament_id),
            )
            await db.execute(
                "INSERT INTO tournament_rounds (tournament_id, number, started_at, deadline) VALUES (?, ?, ?, ?)",
                (tournament_id, plan.number, now, deadline),
            )
            for board, (white, black, match, result) in enumerate(plan.games, start=1):
                await db.execute(
                    "INSERT INTO tournament_pairings (tournament_id, round, board, white, black, match, result, state) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (tournament_id, plan.number, board, white, black, match, result, "done" if result else "paired"),
                )
            for round_number, user_id, kind in plan.byes:
                await db.execute(
                    "INSERT INTO tournament_byes (tournament_id, round, user_id, kind) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (tournament_id, round, user_id) DO UPDATE SET kind = excluded.kind",
                    (tournament_id, round_number, user_id, kind),
                )
            # Its standings and pairings first: due at the same moment, the older row is taken first (``claim_due``),
            # and a new row is written before the step that opens the games.
            await self._owe_posts(db, tournament_id, at=now)
            await self._due_tournament(db, tournament_id, f"play:{plan.number}", now)
            await self._due_tournament(db, tournament_id, f"deadline:{plan.number}", deadline)
            await self._advance_if_round_over(db, tournament_id, plan.number)
        log.info("tournament %d: round %d paired (%d games)", tournament_id, plan.number, len(plan.games))
        return True

    async def pairing_thread_pending(self, pairing_id: int, *, claim: Claim | None = None) -> bool:
        """About to ask Discord for this pairing's thread: a restart then looks for it before making another.

        True when the caller may ask now; False when it lost: the pairing has its thread already, or the step
        ``claim`` holds was taken over by another process (which opens the pairing instead)."""
        async with self._transaction() as db:
            if not await self._holds(db, claim):
                return False
            rows = await db.execute_fetchall(
                "UPDATE tournament_pairings SET state = 'thread_pending' WHERE id = ? "
                "AND state IN ('paired', 'thread_pending') RETURNING id",
                (pairing_id,),
            )
            return bool(list(rows))

    async def pairing_thread(self, pairing_id: int, thread_id: int, *, claim: Claim | None = None) -> bool:
        """The pairing's thread is ``thread_id``. False when the caller lost: the pairing has another thread, or the
        step ``claim`` holds was taken over (the caller removes the thread it made)."""
        async with self._transaction() as db:
            if not await self._holds(db, claim):
                return False
            rows = await db.execute_fetchall(
                "UPDATE tournament_pairings SET state = 'thread', thread_id = ? "
                "WHERE id = ? AND state IN ('paired', 'thread_pending') RETURNING id",
                (thread_id, pairing_id),
            )
            if list(rows):
                return True
            same = await db.execute_fetchall(
                "SELECT 1 FROM tournament_pairings WHERE id = ? AND thread_id = ?", (pairing_id, thread_id)
            )
            return bool(list(same))

    async def pairing(self, pairing_id: int) -> Pairing:
        rows = await self._fetchall("SELECT * FROM tournament_pairings WHERE id = ?", (pairing_id,))
        if not rows:
            raise UserError("tournament.refusal.no_pairing")
        return _pairing_from_row(rows[0])

    async def intro_posted(self, pairing_id: int) -> None:
        """The pairing's game was introduced in its thread (with its first board, or after it)."""
        async with self._transaction() as db:
            await db.execute("UPDATE tournament_pairings SET intro_posted = 1 WHERE id = ?", (pairing_id,))

    async def start_pairing_game(self, pairing_id: int) -> GameInfo:
        """The pairing's game, in its thread, with the tournament's settings: white is the first seat (in Veletas
        the one who sets up first). Made once: a second call returns the game already made."""
        now = self._now()
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "SELECT p.state, p.game_id, p.thread_id, p.white, p.black, p.result, t.* FROM tournament_pairings p "
                "JOIN tournaments t ON t.id = p.tournament_id WHERE p.id = ?",
                (pairing_id,),
            )
            row = next(iter(rows), None)
            if row is None:
                raise UserError("tournament.refusal.no_pairing")
            if row["game_id"] is not None:
                game_id = int(row["game_id"])
            else:
                if row["thread_id"] is None or row["result"] is not None:
                    raise UserError("tournament.refusal.no_game_to_start")
                control = _control(row["time_control"], row["inactivity_days"])
                kind = find_game(row["game"])
                first = kind.replay((), json.loads(row["settings"])).seat_to_act or "first"
                clock = control.new_clock().started(first, now)
                created = await db.execute_fetchall(
                    "INSERT INTO games (guild_id, channel_id, origin_channel_id, status, game, settings, place, "
                    "challenger_id, opponent_id, created_at, updated_at, time_control, inactivity_days, rated, "
                    "version, board_version, clock_first, clock_second, clock_running, clock_since) "
                    "VALUES (?, ?, ?, 'active', ?, ?, 'thread', ?, ?, ?, ?, ?, ?, ?, 1, 1, ?, ?, ?, ?) RETURNING id",
                    (
                        row["guild_id"],
                        row["thread_id"],
                        row["channel_id"],
                        row["game"],
                        row["settings"],
                        row["white"],
                        row["black"],
                        now,
                        now,
                        row["time_control"],
                        row["inactivity_days"],
                        row["rated"],
                        *_clock_values(clock),
                    ),
                )
                game_id = int(next(iter(created))[0])
                await db.execute(
                    "UPDATE tournament_pairings SET state = 'game', game_id = ? WHERE id = ?", (game_id, pairing_id)
                )
                await self._schedule(db, game_id, clock)
        return await self.get_game(game_id)

    async def finish_opening(
        self, tournament_id: int, number: int, due_id: int | None, claim: Claim | None = None
    ) -> bool:
        """The round's games are all made and introduced: its ``play`` step is done. False if a pairing still lacks
        its game or its intro, or the step ``claim`` holds was taken over."""
        async with self._transaction() as db:
            missing = await db.execute_fetchall(
                "SELECT 1 FROM tournament_pairings WHERE tournament_id = ? AND round = ? AND result IS NULL "
                "AND (state NOT IN ('game', 'done') OR (state = 'game' AND intro_posted = 0)) LIMIT 1",
                (tournament_id, number),
            )
            if missing or not await self._holds(db, claim):
                return False
            if due_id is not None:
                await db.execute("DELETE FROM due WHERE id = ?", (due_id,))
            else:
                await db.execute(
                    "DELETE FROM due WHERE tournament_id = ? AND key = ?", (tournament_id, f"play:{number}")
                )
        return True

    async def adjudicate(self, game_id: int) -> GameInfo | None:
        """End a game still running at its round's deadline by the clock: whoever has more time left wins (equal:
        a draw); a player who never took a turn loses as a no-show. None if the game was already over."""
        info = await self.get_game(game_id)
        if info.status != "active" or info.opponent_id is None:
            return None
        now = self._now()
        moved = {user for _, _, user in await self.move_log(game_id)}
        first, second = info.challenger_id, info.opponent_id
        winner_id: int | None
        if first not in moved or second not in moved:
            winner_id = second if first not in moved and second in moved else first if second not in moved else None
            if first not in moved and second not in moved:
                winner_id = second if info.user_to_act == first else first
        elif info.clock is None:
            winner_id = None
        else:
            left_first, left_second = info.clock.left("first", now), info.clock.left("second", now)
            winner_id = None if abs(left_first - left_second) < 1e-6 else first if left_first > left_second else second
        if winner_id is None:
            result = "Drawn by adjudication at the round's deadline"
        else:
            colour = info.colour_of_user(winner_id)
            who = colour.capitalize() if colour else "The " + str(info.seat_of_user(winner_id)) + " player"
            result = f"{who} wins by adjudication at the round's deadline"
        stopped = None if info.clock is None else info.clock.stopped(now)
        if not await self._end_by_clock(info, winner_id, result, "adjudication", stopped, now):
            return None
        return await self.get_game(game_id)

    async def _end_by_clock(
        self, info: GameInfo, winner_id: int | None, result: str, termination: str, stopped: Clock | None, now: float
    ) -> bool:
        """End an active game the clock decided (lost on time, adjudicated at a round's deadline) in one
        transaction with its consequences; False if the game changed since ``info`` was read."""
        version = info.version + 1
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE games SET status = 'finished', winner_id = ?, result = ?, termination = ?, "
                "undo_requested_by = NULL, updated_at = ?, version = ?, board_version = ?, "
                "clock_first = ?, clock_second = ?, clock_running = ?, clock_since = ? "
                "WHERE id = ? AND version = ? AND status = 'active'",
                (winner_id, result, termination, now, version, version, *_clock_values(stopped), info.id, info.version),
            )
            if cursor.rowcount != 1:
                return False
            await self._schedule(db, info.id, None)
            await self._on_game_end(db, info, winner_id, now, termination)
        log.info("game %d: %s", info.id, result)
        return True

    async def close_round(self, tournament_id: int, number: int, due_id: int | None) -> None:
        """At the round's deadline, after its games were adjudicated: a pairing that never got a game scores
        nothing for either player (``--``), so the round ends."""
        async with self._transaction() as db:
            await db.execute(
                "UPDATE tournament_pairings SET result = '--', state = 'done' WHERE tournament_id = ? AND round = ? "
                "AND result IS NULL AND game_id IS NULL",
                (tournament_id, number),
            )
            if due_id is not None:
                await db.execute("DELETE FROM due WHERE id = ?", (due_id,))
            await self._advance_if_round_over(db, tournament_id, number)

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
            found = [_pairing_from_row(r) for r in rows]
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
            await db.execute(
                "UPDATE tournament_pairings SET result = ?, state = CASE WHEN game_id IS NULL THEN 'done' ELSE state "
                "END WHERE id = ?",
                (result, pairing_id),
            )
            await self._log(db, tournament_id, actor_id, "result", f"{pairing.round}.{pairing.board} {result}")
            await self._advance_if_round_over(db, tournament_id, pairing.round)
        return replace(pairing, result=result)

    async def add_player(self, tournament_id: int, user_id: int, name: str, *, actor_id: int) -> bool:
        """The organiser enters a member: as a sign-up before the start, or late (a Swiss, as a late join)."""
        _, late = await self.join_tournament(tournament_id, user_id, name)
        async with self._transaction() as db:
            await self._log(db, tournament_id, actor_id, "add", str(user_id))
        return late

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
                await db.execute("DELETE FROM due WHERE tournament_id = ?", (tournament_id,))
                # Its final standings and podium are owed from now on, until they are out.
                await self._owe_posts(db, tournament_id, end=True)
            elif status == "running" and info.status == "paused":
                await self._due_tournament(db, tournament_id, "advance", now)
            if actor_id:
                await self._log(db, tournament_id, actor_id, status, "")
        return await self.tournament(tournament_id)

    async def repair_round(self, tournament_id: int, number: int, *, actor_id: int) -> None:
        """Throw away a round none of whose games has started (no turn taken), so it is paired again: its games
        and threads are forgotten (the caller removes the threads), its pairings and byes deleted."""
        async with self._transaction() as db:
            info = await self._tournament_in(db, tournament_id)
            if not info.is_live:
                raise UserError(f"tournament.refusal.status_{info.status}")
            last = await _count(db, "SELECT COUNT(*) FROM tournament_rounds WHERE tournament_id = ?", tournament_id)
            if number != last or not last:
                raise UserError("tournament.refusal.only_current_round", round=last)
            started = await db.execute_fetchall(
                "SELECT 1 FROM tournament_pairings p JOIN games g ON g.id = p.game_id "
                "WHERE p.tournament_id = ? AND p.round = ? AND (g.ply > 0 OR g.status <> 'active') LIMIT 1",
                (tournament_id, number),
            )
            decided = await db.execute_fetchall(
                "SELECT 1 FROM tournament_pairings WHERE tournament_id = ? AND round = ? AND game_id IS NULL "
                "AND state = 'done' AND match IS NULL LIMIT 1",
                (tournament_id, number),
            )
            if started or decided:
                raise UserError("tournament.refusal.round_begun", round=number)
            games = await db.execute_fetchall(
                "SELECT game_id FROM tournament_pairings WHERE tournament_id = ? AND round = ? AND game_id IS NOT NULL",
                (tournament_id, number),
            )
            await db.execute(
                "DELETE FROM tournament_pairings WHERE tournament_id = ? AND round = ?", (tournament_id, number)
            )
            for row in games:
                await db.execute("DELETE FROM games WHERE id = ?", (int(row[0]),))
            await db.execute(
                "DELETE FROM tournament_byes WHERE tournament_id = ? AND round = ? AND kind <> 'half'",
                (tournament_id, number),
            )
            await db.execute(
                "DELETE FROM tournament_rounds WHERE tournament_id = ? AND number = ?", (tournament_id, number)
            )
            await db.execute(
                "DELETE FROM due WHERE tournament_id = ? AND key IN (?, ?)",
                (tournament_id, f"play:{number}", f"deadline:{number}"),
            )
            await self._log(db, tournament_id, actor_id, "repair", str(number))
            await self._due_tournament(db, tournament_id, "advance", self._now())

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

    async def _tournament_in(self, db: Connection, tournament_id: int) -> TournamentInfo:
        if not is_id(tournament_id):
            raise UserError("tournament.refusal.no_tournament")
        rows = await db.execute_fetchall("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
        for row in rows:
            return _tournament_from_row(row)
        raise UserError("tournament.refusal.no_tournament")


TournamentFormat = Literal["swiss", "round_robin", "double_round_robin", "single_elimination", "double_elimination"]
TournamentStatus = Literal["signup", "running", "paused", "finished", "cancelled"]
TOURNAMENT_FORMATS: tuple[TournamentFormat, ...] = (
    "swiss",
    "round_robin",
    "double_round_robin",
    "single_elimination",
    "double_elimination",
)


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

    @property
    def is_elimination(self) -> bool:
        return self.format in ("single_elimination", "double_elimination")

    @property
    def is_live(self) -> bool:
        return self.status in ("running", "paused")

    @property
    def checkin_opens_at(self) -> float | None:
        if not self.checkin_minutes or self.starts_at is None:
            return None
        return self.starts_at - self.checkin_minutes * 60


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


@dataclass(frozen=True)
class RoundRow:
    number: int
    started_at: float
    deadline: float
    announced: bool
    posts_done: int = 0
    """Messages of its announcement (the standings before it, its pairings) that are out already."""


@dataclass(frozen=True)
class TournamentSnapshot:
    info: TournamentInfo
    players: tuple[Entrant, ...]
    rounds: tuple[RoundRow, ...]
    pairings: tuple[Pairing, ...]
    byes: tuple[tuple[int, int, str], ...]
    """(round, player, kind)"""

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


RESULTS: tuple[str, ...] = ("1-0", "0-1", "1/2-1/2", "+-", "-+", "--")


def _tournament_from_row(row: Row) -> TournamentInfo:
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
        time_control=_control(row["time_control"], row["inactivity_days"]),
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
    )


def _entrant_from_row(row: Row) -> Entrant:
    return Entrant(
        int(row["user_id"]),
        str(row["name"]),
        int(row["rating"]),
        row["seed"],
        int(row["joined_round"]),
        row["left_round"],
        bool(row["checked_in"]),
        bool(row["late"]),
    )


def _pairing_from_row(row: Row) -> Pairing:
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
    )


def _check_time_left(info: GameInfo, now: float) -> None:
    """A take-back is refused once the running seat's time is up: the game is lost on time, not wound back."""
    if info.clock is not None and info.clock.flagged(now) is not None:
        raise TimeIsUp("refusal.undo_time_is_up")


async def _count(db: Connection, sql: str, *params: Any) -> int:
    rows = await db.execute_fetchall(sql, params)
    return int(next(iter(rows))[0])


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


async def _rate_into(db: Connection, game: RatedGame) -> None:
    """Rate one game into the tables, pool by pool: read both players, apply Glicko-2, write ratings and changes."""
    for pool in game.pools:
        table: dict[tuple[PoolKey, int], Rating] = {}
        records: dict[int, tuple[int, int, int]] = {}
        for player in (game.first, game.second):
            rows = await db.execute_fetchall(
                "SELECT value, deviation, volatility, games, last_played, wins, losses, draws FROM ratings "
                "WHERE scope = ? AND game = ? AND settings = ? AND user_id = ?",
                (pool.scope, pool.game, pool.settings, player),
            )
            for r in rows:
                table[(pool, player)] = Rating(float(r[0]), float(r[1]), float(r[2]), int(r[3]), r[4])
                records[player] = (int(r[5]), int(r[6]), int(r[7]))
        single = RatedGame(game.game_id, (pool,), game.first, game.second, game.first_score, game.ended_at)
        for change in apply_game(table, single):
            score = game.first_score if change.player == game.first else 1.0 - game.first_score
            wins, losses, draws = records.get(change.player, (0, 0, 0))
            wins, losses, draws = wins + (score == 1.0), losses + (score == 0.0), draws + (score == 0.5)
            after = change.after
            await db.execute(
                "INSERT INTO ratings (scope, game, settings, user_id, value, deviation, volatility, games, "
                "last_played, wins, losses, draws) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (scope, game, settings, user_id) DO UPDATE SET value = excluded.value, "
                "deviation = excluded.deviation, volatility = excluded.volatility, games = excluded.games, "
                "last_played = excluded.last_played, wins = excluded.wins, losses = excluded.losses, "
                "draws = excluded.draws",
                (
                    pool.scope,
                    pool.game,
                    pool.settings,
                    change.player,
                    after.value,
                    after.deviation,
                    after.volatility,
                    after.games,
                    after.last_played,
                    wins,
                    losses,
                    draws,
                ),
            )
            await db.execute(
                "INSERT INTO rating_changes (game_id, scope, user_id, before, before_dev, after, after_dev) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    game.game_id,
                    pool.scope,
                    change.player,
                    change.before.value,
                    change.before.deviation,
                    after.value,
                    after.deviation,
                ),
            )


async def _check_challenge_limits(
    db: Connection,
    guild_id: int,
    challenger_id: int,
    opponent_id: int | None,
    max_open: int | None,
    now: float,
) -> None:
    """Refuse a challenge past the limits; run inside the write transaction, so two made at once cannot both pass."""
    still_open = "guild_id = ? AND status = 'challenge' AND ai_level IS NULL AND (expires_at IS NULL OR expires_at > ?)"
    if opponent_id is not None:
        rows = await db.execute_fetchall(
            f"SELECT id, origin_channel_id, challenge_message_id, challenger_id FROM games WHERE {still_open} "
            "AND ((challenger_id = ? AND opponent_id = ?) OR (challenger_id = ? AND opponent_id = ?)) "
            "ORDER BY id LIMIT 1",
            (guild_id, now, challenger_id, opponent_id, opponent_id, challenger_id),
        )
        for row in rows:
            raise ChallengeExists(OpenChallenge(int(row[0]), int(row[1]), row[2]), challenger_id=int(row[3]))
    if max_open is not None:
        rows = await db.execute_fetchall(
            f"SELECT id, origin_channel_id, challenge_message_id FROM games WHERE {still_open} AND challenger_id = ? "
            "ORDER BY id",
            (guild_id, now, challenger_id),
        )
        mine = tuple(OpenChallenge(int(row[0]), int(row[1]), row[2]) for row in rows)
        if len(mine) >= max_open:
            raise TooManyChallenges(max_open, mine)


def _is_channel_clash(exc: sqlite3.IntegrityError) -> bool:
    return "UNIQUE" in str(exc) and "channel_id" in str(exc)


def _busy_message(status: str) -> str:
    return "refusal.busy_challenge" if status == "challenge" else "refusal.busy_game"


# --- migrations ---------------------------------------------------------------------------------


async def _migrate(db: Database, migrations: Sequence[Sequence[str]]) -> None:
    """Apply the missing migrations, each with its version bump in one transaction.

    The version is re-read under the write lock, so two processes opening a fresh database at once
    do not both run the same migration. Each statement is written for SQLite and run as the backend
    reads it (``db.ddl``: bot/db/sql.py on PostgreSQL), so one list serves both.
    """
    target = len(migrations)
    for number in range(1, target + 1):
        try:
            await db.begin()
        except Busy as exc:
            raise StoreError(f"migration {number}: another process kept the database locked") from exc
        try:
            version = await db.schema_version()
            if version > target:
                raise StoreError(
                    f"the database is at schema version {version}, newer than this bot knows ({target}); "
                    "refusing to touch it"
                )
            if version >= number:
                await db.rollback()
                continue
            for statement in migrations[number - 1]:
                await db.execute(db.ddl(statement))
            await db.set_schema_version(number)
            await db.commit()
        except sqlite3.Error as exc:
            if db.in_transaction:
                await db.rollback()
            raise StoreError(f"migration {number} failed and was rolled back: {exc}") from exc
        except BaseException:
            if db.in_transaction:
                await db.rollback()
            raise
        log.info("database migrated to schema version %d", number)
    version = await db.schema_version()
    if version > target:
        raise StoreError(
            f"the database is at schema version {version}, newer than this bot knows ({target}); refusing to touch it"
        )
