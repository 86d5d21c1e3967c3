"""Everything the bot keeps, in one SQLite file or one PostgreSQL database: the only package that speaks SQL.

The design follows from what must survive: a restart, a crash at any instant, two players clicking at the
same moment. So every change is one write transaction, all or nothing, decided before its first write;
every game has an append-only move log its row caches; an optimistic version check refuses a change made
to a game that moved on; whatever falls due is a row written in the same transaction as the change that
makes it due. Each module says how its part keeps to this.

``Store`` is the one object the rest of the bot uses. It is put together from one part per idea, each a
class of its own module built on ``StoreBase`` (the connection, the transaction, the clock, one game):

- ``schema``: the tables and their append-only migrations;
- ``values``: the plain values the store hands out (``GameInfo``, ``DueRow``, ``TournamentInfo``, ...),
  importing none of the store's machinery; ``rows``: how a row becomes one; ``checks``: who may do what;
- ``games``: a turn, a resignation, a cancellation, a flag, an adjudication, and what each one's
  transaction writes besides (its due rows, its end: tournament result and ratings); ``undo``: take-backs;
- ``challenges``; ``due`` (what falls due, and the scheduler's side); ``ratings``; ``tournaments``,
  ``entries``, ``rounds``, ``disputes`` and ``arena`` (arena tournaments); ``prefs`` (players' and servers'
  choices); ``reviews`` (the AI's reviews of finished games, kept);
  ``puzzles`` (mined puzzles); ``puzzle_play`` (members' puzzle attempts, ratings, streaks, daily puzzles);
  ``launches`` (board page launches); ``announcing`` (boards owed); ``lookups``.
"""

from __future__ import annotations

from bot.store.announcing import Announcing
from bot.store.arena import Arenas
from bot.store.base import StoreBase
from bot.store.challenges import Challenges
from bot.store.checks import check_can_answer, check_in_play, check_participant, check_to_act, ending_phrase
from bot.store.disputes import Disputes
from bot.store.entries import Entries
from bot.store.errors import StoreBusy, StoreError
from bot.store.games import Games
from bot.store.launches import Launches
from bot.store.lookups import Lookups
from bot.store.prefs import Preferences
from bot.store.puzzle_play import PuzzlePlay
from bot.store.puzzles import Puzzles
from bot.store.ratings import Ratings
from bot.store.reviews import Reviews
from bot.store.undo import Undo
from bot.store.values import (
    FOLLOW_SERVER,
    MAX_INACTIVITY_DAYS,
    NOTIFY_MODES,
    RESULTS,
    THEMES,
    TOURNAMENT_FORMATS,
    Claim,
    Dispute,
    DueRow,
    Entrant,
    GameInfo,
    GuildSettings,
    NotifyPrefs,
    Pairing,
    RatingChange,
    RoundPlan,
    RoundRow,
    TournamentFormat,
    TournamentInfo,
    TournamentSnapshot,
    TournamentStatus,
    settings_json,
)


class Store(
    Games,
    Disputes,
    Undo,
    Challenges,
    Arenas,
    Entries,
    Ratings,
    Reviews,
    Puzzles,
    PuzzlePlay,
    Launches,
    Announcing,
    Lookups,
    Preferences,
    StoreBase,
):
    """The bot's persistent state. Open with ``await Store.open(path)``; close with ``await store.close()``.

    Every method is one part's (see the package's docstring for which module holds which).
    """


__all__ = [
    "FOLLOW_SERVER",
    "MAX_INACTIVITY_DAYS",
    "NOTIFY_MODES",
    "RESULTS",
    "THEMES",
    "TOURNAMENT_FORMATS",
    "Claim",
    "Dispute",
    "DueRow",
    "Entrant",
    "GameInfo",
    "GuildSettings",
    "NotifyPrefs",
    "Pairing",
    "RatingChange",
    "RoundPlan",
    "RoundRow",
    "Store",
    "StoreBusy",
    "StoreError",
    "TournamentFormat",
    "TournamentInfo",
    "TournamentSnapshot",
    "TournamentStatus",
    "check_can_answer",
    "check_in_play",
    "check_participant",
    "check_to_act",
    "ending_phrase",
    "settings_json",
]
