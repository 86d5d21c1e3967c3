"""What every game offers the rest of the bot: the protocol a game plug-in implements.

The store, the renderer's dispatch, the AI's search and the cogs talk to a game through these
two shapes only, so clocks, ratings and tournaments are written once for every game:

- ``GameKind``: the game itself, one value per game, listed in ``bot.rules.registry.GAMES``.
  It names the game, its settings (Veletas: variant and rules edition; Veloop: board and
  protocol) with their choices, the phases a game goes through, and builds games: new, replayed
  from stored turns, or read from a record.
- ``GameState``: one game at one moment, an immutable value. It says whose turn it is (by seat,
  and by colour once colours are fixed), in which phase, the scores, whether it is over and how;
  ``play`` returns the next value or raises an ``IllegalMove`` whose message is for the player.

Seats are fixed by the challenge (the challenger sits first); colours can follow later
(Veletas's pie choice decides who plays Black). Every value here is pure: no I/O, no asyncio.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol, cast, get_args, runtime_checkable

Colour = Literal["black", "white"]
Seat = Literal["first", "second"]
Phase = Literal["setup", "pie", "play", "over"]
Termination = Literal[
    "claims",
    "confinement",
    "passes",
    "resignation",
    "time forfeit",
    "adjudication",
    "cancelled",
    "aborted",
    "no-show",
]
"""How a game ended, in the words of a record's ``Termination`` header (NOTATION.md)."""

COLOURS: Final[tuple[Colour, Colour]] = ("black", "white")
SEATS: Final[tuple[Seat, Seat]] = ("first", "second")
TERMINATIONS: Final[tuple[Termination, ...]] = cast("tuple[Termination, ...]", get_args(Termination))

UNPLAYED: Final[tuple[Termination, ...]] = ("cancelled", "aborted", "no-show")
"""Endings without a result: nobody won, nobody drew (the record's ``Result`` is ``*``). A ``no-show`` is a game
a side did not come to (its first turn not made within its first-move window): in a tournament its pairing
records the forfeit, the game itself has no result."""


def other_colour(colour: Colour) -> Colour:
    return "white" if colour == "black" else "black"


def other_seat(seat: Seat) -> Seat:
    return "second" if seat == "first" else "first"


class Refused(ValueError):
    """Something a player typed that the rules refuse, explained twice: ``str()`` in English (records, the
    command line), and ``key`` with ``data`` for the bot to word in the player's own language (its
    catalogue's ``rules`` area). Data values are square names, numbers, words the catalogue has under
    ``rules.<name>.<value>`` (``piece``, ``colour``), or a tuple of these, listed the reader's way.
    """

    def __init__(self, message: str, key: str, /, **data: str | int | tuple[str, ...]) -> None:
        super().__init__(message)
        self.key = key
        self.data = data


class IllegalMove(Refused):
    """A turn the rules refuse, in any game; the message is written for the player who typed it.

    Each game raises its own subclass (``bot.rules.veletas.IllegalMove``, ``bot.rules.veloop.IllegalMove``),
    so code that serves every game catches this one.
    """


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winning colour (None for a draw, a cancellation or an abort) and the way it ended.

    The rules see claims, confinement and passes; a resignation, a time forfeit, an adjudication
    or a cancellation is decided outside the board and recorded the same way. A game outside a
    tournament that ends by resignation before both players have played is aborted, and one where a
    side missed its first-move window is a no-show: no winner, no result.
    """

    winner: Colour | None
    termination: Termination

    def __post_init__(self) -> None:
        if self.winner not in (None, "black", "white"):
            raise ValueError(f"a winner is black, white or None, not {self.winner!r}")
        if self.termination not in TERMINATIONS:
            raise ValueError(f"unknown termination {self.termination!r}: expected one of {', '.join(TERMINATIONS)}")

    @property
    def is_draw(self) -> bool:
        return self.winner is None and self.termination not in UNPLAYED

    @property
    def result_token(self) -> str:
        """The record's ``Result``: 1-0 Black won, 0-1 White won, 1/2-1/2 drawn, * cancelled, aborted or a no-show."""
        if self.winner == "black":
            return "1-0"
        if self.winner == "white":
            return "0-1"
        return "*" if self.termination in UNPLAYED else "1/2-1/2"


@runtime_checkable
class GameState(Protocol):
    """One game at one moment: immutable, hashable, rebuilt exactly by replaying its ``turns``."""

    @property
    def kind(self) -> GameKind:
        """The game this is a state of."""
        ...

    @property
    def settings(self) -> Mapping[str, str]:
        """The settings it was created with, by name (``{"variant": "standard", "rules": "current"}``)."""
        ...

    @property
    def phase(self) -> Phase: ...

    @property
    def turns(self) -> tuple[str, ...]:
        """Every turn so far in canonical text: what the store keeps and records write."""
        ...

    @property
    def seat_to_act(self) -> Seat | None:
        """Who acts next by seat; None once the game is over."""
        ...

    @property
    def colour_to_act(self) -> Colour | None:
        """The colour the next turn is played as; None when the turn has no colour (the pie choice) or it is over."""
        ...

    @property
    def first_player_colour(self) -> Colour | None:
        """The colour of the first seat; None while it is not decided yet (before Veletas's pie choice)."""
        ...

    def seat_of(self, colour: Colour) -> Seat | None:
        """Which seat plays ``colour``; None while colours are not decided."""
        ...

    @property
    def scores(self) -> tuple[int, int]:
        """(black, white) as the game counts them (Veletas: claimed shooters; Veloop: minus confined stones)."""
        ...

    @property
    def outcome(self) -> Outcome | None:
        """How the board ended the game (claims, confinement, passes); None while it goes on."""
        ...

    @property
    def both_have_played(self) -> bool:
        """Whether each seat has taken at least one turn of its own (a setup, the pie choice, a move, a pass).

        A game outside a tournament that ends by resignation before this holds is aborted, not rated; the side to
        act before this holds is on its first turn (its first-move window runs, not its clock).
        """
        ...

    @property
    def forced_turn(self) -> str | None:
        """The only legal turn when there is exactly one that needs no choice (Veloop's pass), else None."""
        ...

    def play(self, text: str) -> GameState:
        """The game after one more turn; an ``IllegalMove`` (with the rules' reason) when it is refused."""
        ...

    def to_record(self, headers: Mapping[str, str] | None = None) -> str:
        """The game as a NOTATION.md record; the game's own headers (Game, settings, Result) follow the game."""
        ...


@runtime_checkable
class GameKind(Protocol):
    """A game the bot can host: its name, its settings, its phases, and how its games are built."""

    @property
    def name(self) -> str:
        """The lowercase name used in commands, records (``Game`` header) and the store: ``veletas``."""
        ...

    @property
    def title(self) -> str:
        """The name as players read it: ``Veletas``, ``Veloop (Square)``."""
        ...

    @property
    def phases(self) -> tuple[Phase, ...]:
        """The phases a game goes through, in order, ending with ``over``."""
        ...

    @property
    def setting_choices(self) -> Mapping[str, tuple[str, ...]]:
        """Each setting's allowed values, the default first (``{"variant": ("standard", "medium", "small"), ...}``)."""
        ...

    def check_settings(self, settings: Mapping[str, str]) -> dict[str, str]:
        """Every setting filled in (defaults for the missing ones); ValueError naming an unknown one or value."""
        ...

    def new(self, settings: Mapping[str, str] | None = None) -> GameState:
        """A game before its first turn."""
        ...

    def replay(self, turns: Iterable[str], settings: Mapping[str, str] | None = None) -> GameState:
        """A game rebuilt from its turns; ``RecordError`` with the 1-based number of a refused turn."""
        ...

    def from_record(self, text: str) -> GameState:
        """A game read from a record and validated; ``RecordError`` says what is wrong."""
        ...


def fill_settings(choices: Mapping[str, Sequence[str]], settings: Mapping[str, str] | None) -> dict[str, str]:
    """The settings with defaults filled in, refusing unknown names and values (shared by every game)."""
    given = dict(settings or {})
    unknown = sorted(set(given) - set(choices))
    if unknown:
        raise ValueError(f"unknown setting {unknown[0]!r}: expected {', '.join(choices)}")
    filled: dict[str, str] = {}
    for name, allowed in choices.items():
        value = str(given.get(name, allowed[0]))
        if value not in allowed:
            raise ValueError(f"unknown {name} {value!r}: expected one of {', '.join(allowed)}")
        filled[name] = value
    return filled
