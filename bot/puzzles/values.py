"""A puzzle as a plain value: a position reached by real turns, and the one line that wins from it.

A puzzle never needs a position format of its own: its position is the game (``game`` with its
``settings``) after the turns ``before``, so every game's rules, drawer and notation serve it as they
serve a game. ``solution`` alternates the solver's turns and the defender's replies, the solver's first
and last: the solver's turn at every even index is the only one that keeps the forced win, and the
defender's replies are the longest defence.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

GOALS: Final = ("claim", "decide", "confine")
"""What the solver must do: Veletas, claim a region (``claim``) or decide the game (``decide``) within the
solution's turns; Veloop, confine (``confine``)."""


@dataclass(frozen=True, slots=True)
class Puzzle:
    """One puzzle. ``id`` is 0 until the store keeps it; ``rating`` is its difficulty on the Glicko-2 scale.

    ``source_game_id`` and ``guild_id`` say where it came from: a finished game of that server, or None for
    both when it came from AI self-play (which any server may be shown).
    """

    game: str
    settings: Mapping[str, str]
    before: tuple[str, ...]
    solution: tuple[str, ...]
    goal: str
    rating: float = 1500.0
    source_game_id: int | None = None
    guild_id: int | None = None
    id: int = 0
    deviation: float = 350.0
    volatility: float = 0.06
    plays: int = 0
    tempting: int = field(default=0)
    """How many wrong first turns look good (a difficulty input the miner reports)."""

    def __post_init__(self) -> None:
        if self.goal not in GOALS:
            raise ValueError(f"unknown puzzle goal {self.goal!r}")
        if not self.solution or len(self.solution) % 2 == 0:
            raise ValueError("a puzzle's solution is the solver's turns and the replies between them: an odd count")

    @property
    def solver_turns(self) -> int:
        """How many turns the solver makes (1 to 4)."""
        return (len(self.solution) + 1) // 2

    @property
    def key(self) -> str:
        """The position's identity: the same game, settings and turns give the same key, once in the store."""
        text = json.dumps([self.game, dict(sorted(self.settings.items())), list(self.before)], separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
