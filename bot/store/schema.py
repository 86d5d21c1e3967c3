"""The database's schema: its append-only list of migrations, and how a database is brought up to date.

Migrations are an append-only list; each runs in one transaction together with its version bump
(SQLite's ``PRAGMA user_version``, PostgreSQL's ``schema_version`` table), so a crash mid-migration
leaves the previous version intact.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence

from bot.db import Busy, Database
from bot.store.errors import StoreError

log = logging.getLogger("bot.store")

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
    (
        # Aborted games: a game outside a tournament that ends (resignation, time) before both players have
        # played has no winner and rates nobody. Its Termination is 'aborted'; who ended it and how are kept
        # beside it so the board can say so. SQLite cannot change a column's CHECK in place, so the column is
        # added anew with the wider list, filled, and takes the old one's name.
        "ALTER TABLE games ADD COLUMN termination_next TEXT CHECK (termination_next IS NULL OR termination_next IN "
        "('claims', 'confinement', 'passes', 'resignation', 'time forfeit', 'adjudication', 'cancelled', 'aborted'))",
        "UPDATE games SET termination_next = termination",
        "ALTER TABLE games DROP COLUMN termination",
        "ALTER TABLE games RENAME COLUMN termination_next TO termination",
        "ALTER TABLE games ADD COLUMN aborted_by INTEGER",
        "ALTER TABLE games ADD COLUMN aborted_how TEXT CHECK (aborted_how IS NULL OR aborted_how IN "
        "('resignation', 'time forfeit'))",
    ),
    (
        # What a tournament owes its entrants about check-in, privately: a reminder to those who joined but have
        # not checked in (``reminder``, written when it falls due), and a notice to those dropped at the start for
        # not checking in (``dropped``, written in the start's transaction, with the name they had: their entry is
        # gone). Each is marked sent once out (a direct message, or the channel post naming them), so a retry or a
        # restart sends only the rest; the ``notices`` step stays due until none is owed.
        """
        CREATE TABLE tournament_notices (
            tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
            kind          TEXT NOT NULL CHECK (kind IN ('reminder', 'dropped')),
            user_id       INTEGER NOT NULL,
            name          TEXT NOT NULL,
            sent          INTEGER NOT NULL DEFAULT 0 CHECK (sent IN (0, 1)),
            PRIMARY KEY (tournament_id, kind, user_id)
        ) STRICT, WITHOUT ROWID
        """,
    ),
    (
        # Result disputes: a player of a tournament game flags its result (once per game, within a window after
        # its end) and an organiser decides it with ``/tournament result``; the row keeps both halves, the
        # dispute and its decision, and the next round waits while one is undecided.
        """
        CREATE TABLE tournament_disputes (
            id            INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
            pairing_id    INTEGER NOT NULL UNIQUE REFERENCES tournament_pairings (id) ON DELETE CASCADE,
            round         INTEGER NOT NULL,
            board         INTEGER NOT NULL,
            user_id       INTEGER NOT NULL,
            reason        TEXT NOT NULL,
            result        TEXT NOT NULL,
            opened_at     REAL NOT NULL,
            decided_by    INTEGER,
            decision      TEXT CHECK (decision IS NULL OR decision IN ('1-0', '0-1', '1/2-1/2', '+-', '-+', '--')),
            decided_at    REAL,
            CHECK ((decided_by IS NULL) = (decided_at IS NULL) AND (decided_at IS NULL) = (decision IS NULL))
        ) STRICT
        """,
        "CREATE INDEX tournament_disputes_open ON tournament_disputes (tournament_id) WHERE decided_at IS NULL",
    ),
    (
        # No-shows: a side that does not make its first turn within its first-move window ends the game with
        # the Termination 'no-show' (no result, no rating; a tournament scores it as a forfeit). ``aborted_by``
        # names the side that did not come (NULL: neither did). The termination column is widened the way the
        # aborted games' migration did it; the list is written out whole so this step stands on its own.
        "ALTER TABLE games ADD COLUMN termination_noshow TEXT CHECK (termination_noshow IS NULL OR "
        "termination_noshow IN ('claims', 'confinement', 'passes', 'resignation', 'time forfeit', 'adjudication', "
        "'cancelled', 'aborted', 'no-show'))",
        "UPDATE games SET termination_noshow = termination",
        "ALTER TABLE games DROP COLUMN termination",
        "ALTER TABLE games RENAME COLUMN termination_noshow TO termination",
    ),
    (
        # A tournament player who missed a game (a no-show) is absent: not paired in the next Swiss round (a
        # zero-point absence) until they rejoin. ``absent_notice``: the private notice that says so is owed.
        "ALTER TABLE tournament_players ADD COLUMN absent INTEGER NOT NULL DEFAULT 0 CHECK (absent IN (0, 1))",
        "ALTER TABLE tournament_players ADD COLUMN absent_notice INTEGER NOT NULL DEFAULT 0 "
        "CHECK (absent_notice IN (0, 1))",
        # A pairing's players who asked for direct messages are told of its game by one, once: owed from the moment
        # its intro (which calls both in the thread) is posted until the messages are out.
        "ALTER TABLE tournament_pairings ADD COLUMN dms_owed INTEGER NOT NULL DEFAULT 0 CHECK (dms_owed IN (0, 1))",
    ),
    (
        # A round's recap (its upsets, longest game, biggest claim or confinement) is owed to the tournament's
        # channel from its last result on: 'waiting' while the round is played, 'owed' once it is over, 'done' once
        # posted (or found to have nothing to say). Rounds already over have none.
        "ALTER TABLE tournament_rounds ADD COLUMN recap TEXT NOT NULL DEFAULT 'waiting' "
        "CHECK (recap IN ('waiting', 'owed', 'done'))",
        "UPDATE tournament_rounds SET recap = 'done' WHERE NOT EXISTS (SELECT 1 FROM tournament_pairings p "
        "WHERE p.tournament_id = tournament_rounds.tournament_id AND p.round = tournament_rounds.number "
        "AND p.result IS NULL)",
    ),
    (
        # Arena tournaments: a fixed length (round_minutes), one round whose pairings are made one by one as players
        # come free. The format's CHECK is widened as SQLite allows (a new column, filled, taking the old name). A
        # pairing keeps who went berserk, each player's own moves, when it was paired and when it ended (the order
        # scores a streak); a player may pause (out of the waiting pool until back); the leaderboard is one message
        # edited in place; an arena may forbid berserk.
        # A game's clock_bare names the seats that play without increment (a berserk player's).
        "ALTER TABLE tournaments ADD COLUMN format_next TEXT CHECK (format_next IS NULL OR format_next IN "
        "('swiss', 'round_robin', 'double_round_robin', 'single_elimination', 'double_elimination', 'arena'))",
        "UPDATE tournaments SET format_next = format",
        "ALTER TABLE tournaments DROP COLUMN format",
        "ALTER TABLE tournaments RENAME COLUMN format_next TO format",
        "ALTER TABLE tournaments ADD COLUMN leaderboard_message_id INTEGER",
        "ALTER TABLE tournaments ADD COLUMN berserk INTEGER NOT NULL DEFAULT 1 CHECK (berserk IN (0, 1))",
        "ALTER TABLE tournament_players ADD COLUMN paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1))",
        "ALTER TABLE tournament_pairings ADD COLUMN white_berserk INTEGER NOT NULL DEFAULT 0 "
        "CHECK (white_berserk IN (0, 1))",
        "ALTER TABLE tournament_pairings ADD COLUMN black_berserk INTEGER NOT NULL DEFAULT 0 "
        "CHECK (black_berserk IN (0, 1))",
        "ALTER TABLE tournament_pairings ADD COLUMN white_moves INTEGER NOT NULL DEFAULT 0 CHECK (white_moves >= 0)",
        "ALTER TABLE tournament_pairings ADD COLUMN black_moves INTEGER NOT NULL DEFAULT 0 CHECK (black_moves >= 0)",
        "ALTER TABLE tournament_pairings ADD COLUMN ended_at REAL",
        "ALTER TABLE tournament_pairings ADD COLUMN paired_at REAL",
        "ALTER TABLE games ADD COLUMN clock_bare TEXT",
    ),
    (
        # Game reviews (the AI's evaluation of every position of a finished game) are kept, so the Review button
        # pressed again, or /veletas review, answers without searching the game again: one row per game, its
        # review as JSON (evaluations and judged turns), for the number of turns it covers.
        "CREATE TABLE IF NOT EXISTS game_reviews (game_id INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE, "
        "turns INTEGER NOT NULL CHECK (turns >= 0), review TEXT NOT NULL, created_at REAL NOT NULL)",
    ),
    (
        # Puzzles (bot/puzzles): a position, as the game's turns from its start, with the one line that wins from
        # it. Its key (a digest of the game, settings and turns) keeps a position once; its rating is its difficulty.
        "CREATE TABLE IF NOT EXISTS puzzles (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, game TEXT NOT NULL, "
        "settings TEXT NOT NULL, before_turns TEXT NOT NULL, solution TEXT NOT NULL, goal TEXT NOT NULL, "
        "rating REAL NOT NULL, deviation REAL NOT NULL, volatility REAL NOT NULL, plays INTEGER NOT NULL DEFAULT 0, "
        "tempting INTEGER NOT NULL DEFAULT 0, source_game_id INTEGER REFERENCES games(id) ON DELETE SET NULL, "
        "guild_id INTEGER, created_at REAL NOT NULL)",
        "CREATE INDEX IF NOT EXISTS puzzles_by_game ON puzzles (game, guild_id)",
    ),
    (
        # Board page launches: the game a member opened the board page (Discord's Activity) for from a channel, so
        # whichever process serves the page knows which game the launch was for. One row per member and channel,
        # replaced by the next launch; a row past expires_at is ignored and pruned by the next launch.
        "CREATE TABLE IF NOT EXISTS board_launches (user_id INTEGER NOT NULL, channel_id INTEGER NOT NULL, "
        "guild_id INTEGER NOT NULL, game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE, "
        "expires_at REAL NOT NULL, PRIMARY KEY (user_id, channel_id))",
    ),
    (
        # Members playing puzzles (bot/store/puzzle_play.py): their puzzle ratings and streaks per game (a pool of
        # their own), every attempt (one open per member and game), and each server's daily puzzle per game and date.
        "CREATE TABLE IF NOT EXISTS puzzle_ratings (user_id INTEGER NOT NULL, game TEXT NOT NULL, value REAL NOT NULL, "
        "deviation REAL NOT NULL, volatility REAL NOT NULL, games INTEGER NOT NULL DEFAULT 0, last_played REAL, "
        "streak INTEGER NOT NULL DEFAULT 0, best_streak INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (user_id, game))",
        "CREATE TABLE IF NOT EXISTS puzzle_attempts (id INTEGER PRIMARY KEY, "
        "puzzle_id INTEGER NOT NULL REFERENCES puzzles(id) ON DELETE CASCADE, user_id INTEGER NOT NULL, "
        "guild_id INTEGER NOT NULL, channel_id INTEGER NOT NULL, game TEXT NOT NULL, status TEXT NOT NULL "
        "CHECK (status IN ('open', 'solved', 'failed', 'abandoned')), rated INTEGER NOT NULL, turns TEXT NOT NULL, "
        "started_at REAL NOT NULL, finished_at REAL, rating_before REAL, rating_after REAL, "
        "shared INTEGER NOT NULL DEFAULT 0)",
        "CREATE UNIQUE INDEX IF NOT EXISTS puzzle_attempts_one_open ON puzzle_attempts (user_id, game) "
        "WHERE status = 'open'",
        "CREATE INDEX IF NOT EXISTS puzzle_attempts_by_member ON puzzle_attempts (user_id, puzzle_id)",
        "CREATE INDEX IF NOT EXISTS puzzle_attempts_by_guild ON puzzle_attempts (guild_id, game, user_id)",
        "CREATE TABLE IF NOT EXISTS puzzle_daily (guild_id INTEGER NOT NULL, game TEXT NOT NULL, day TEXT NOT NULL, "
        "puzzle_id INTEGER NOT NULL REFERENCES puzzles(id) ON DELETE CASCADE, PRIMARY KEY (guild_id, game, day))",
    ),
    (
        # The puzzle miner's cursor: one row per finished game already searched for puzzles (and how many it
        # gave), so a second run, or the bot's mining job after a restart, never searches a game twice.
        "CREATE TABLE IF NOT EXISTS puzzle_mined_games (game_id INTEGER PRIMARY KEY REFERENCES games(id) "
        "ON DELETE CASCADE, found INTEGER NOT NULL CHECK (found >= 0), mined_at REAL NOT NULL)",
    ),
)


async def migrate(db: Database, migrations: Sequence[Sequence[str]]) -> None:
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
