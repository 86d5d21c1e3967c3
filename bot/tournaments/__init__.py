"""Tournaments as pure values: round robin (Berger tables), Swiss (FIDE Dutch, by py4swiss), single and
double elimination, standings with tie-breaks (tiebreak-core), the crosstable, TRF and CSV text.

No Discord, no database, no asyncio: values in, values out. The bot keeps a ``Tournament`` (or a
``Bracket`` and its match winners) in storage and asks this package for the next round and the table.
"""

from bot.tournaments.crosstable import Cell, CrossRow, Crosstable, crosstable, crosstable_csv
from bot.tournaments.elimination import (
    BYE,
    Bracket,
    BracketState,
    Match,
    MatchState,
    double_elimination,
    match_winner,
    resolve,
    seed_order,
    single_elimination,
)
from bot.tournaments.model import (
    RESULTS,
    Bye,
    ByeKind,
    Format,
    Game,
    Player,
    Result,
    Round,
    Tournament,
    TournamentError,
    seed_by_rating,
)
from bot.tournaments.roundrobin import berger_table, divisions, pair_round_robin, round_robin_schedule, rounds_needed
from bot.tournaments.standings import (
    ROUND_ROBIN_TIEBREAKS,
    SWISS_TIEBREAKS,
    Standing,
    Tiebreak,
    standings,
    standings_csv,
)
from bot.tournaments.swiss import next_round, pair_swiss, parse_trf, to_trf

__all__ = [
    "BYE",
    "RESULTS",
    "ROUND_ROBIN_TIEBREAKS",
    "SWISS_TIEBREAKS",
    "Bracket",
    "BracketState",
    "Bye",
    "ByeKind",
    "Cell",
    "CrossRow",
    "Crosstable",
    "Format",
    "Game",
    "Match",
    "MatchState",
    "Player",
    "Result",
    "Round",
    "Standing",
    "Tiebreak",
    "Tournament",
    "TournamentError",
    "berger_table",
    "crosstable",
    "crosstable_csv",
    "divisions",
    "double_elimination",
    "match_winner",
    "next_round",
    "pair_round_robin",
    "pair_swiss",
    "parse_trf",
    "resolve",
    "round_robin_schedule",
    "rounds_needed",
    "seed_by_rating",
    "seed_order",
    "single_elimination",
    "standings",
    "standings_csv",
    "to_trf",
]
