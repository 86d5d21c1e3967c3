"""A whole game of Veloop as the bot hosts it (``Game``), and the game's plug-in for the registry (``KIND``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from bot.rules import protocol as game_protocol
from bot.rules.common import RecordError
from bot.rules.protocol import COLOURS as _COLOURS
from bot.rules.protocol import Colour, Outcome, Phase, Seat, Termination
from bot.rules.veloop.board import PROTOCOLS
from bot.rules.veloop.moves import IllegalMove, Move
from bot.rules.veloop.position import Position, _set
from bot.rules.veloop.record import replay, write_record


class Game:
    """A whole game of Veloop as an immutable value: the board and protocol, every move, the position now.

    Veloop has one phase of play: the first seat plays Black and moves first, and colours never
    change. Every action returns a new Game; ``turns`` are the moves in canonical text.
    """

    __slots__ = ("_moves", "_position", "_turns")

    _moves: tuple[Move, ...]
    _position: Position
    _turns: tuple[str, ...]

    def __init__(self, position: Position, moves: tuple[Move, ...] = ()) -> None:
        """A game from its current position and the moves that led there (use ``new`` or ``replay``)."""
        _set(self, "_position", position)
        _set(self, "_moves", moves)
        _set(self, "_turns", tuple(str(move) for move in moves))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Game is immutable: play() returns a new one")

    def __reduce__(self) -> tuple[type[Game], tuple[object, ...]]:
        return Game, (self._position, self._moves)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Game):
            return (self.size, self.protocol, self._turns) == (other.size, other.protocol, other._turns)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("veloop", self.size, self.protocol, self._turns))

    def __repr__(self) -> str:
        return f"<veloop.Game {self.size}x{self.size} {self.protocol} {self.phase} after {len(self._turns)} moves>"

    @classmethod
    def new(cls, size: int = 8, protocol_name: str = "122") -> Game:
        return cls(Position.start(size, protocol_name))

    @classmethod
    def replay(cls, turns: Iterable[str], size: int = 8, protocol_name: str = "122") -> Game:
        """Rebuild a game from its moves; a refused move raises RecordError with its 1-based number."""
        game = cls.new(size, protocol_name)
        for number, text in enumerate(turns, start=1):
            try:
                game = game.play(text)
            except IllegalMove as exc:
                raise RecordError(str(exc), turn=number) from None
        return game

    # -- facts (the GameState protocol) --------------------------------------------------------------

    @property
    def kind(self) -> VeloopKind:
        return KIND

    @property
    def size(self) -> int:
        return self._position.size

    @property
    def protocol(self) -> str:
        return self._position.protocol

    @property
    def settings(self) -> dict[str, str]:
        return {"board": str(self.size), "protocol": self.protocol}

    @property
    def phase(self) -> Phase:
        return "over" if self._position.is_over else "play"

    @property
    def turns(self) -> tuple[str, ...]:
        return self._turns

    @property
    def moves(self) -> tuple[Move, ...]:
        return self._moves

    @property
    def position(self) -> Position:
        return self._position

    @property
    def last_move(self) -> Move | None:
        return self._moves[-1] if self._moves else None

    @property
    def first_player_colour(self) -> Colour:
        return "black"

    def seat_of(self, colour: Colour) -> Seat:
        if colour not in _COLOURS:
            raise ValueError(f"a colour is black or white, not {colour!r}")
        return "first" if colour == "black" else "second"

    @property
    def colour_to_act(self) -> Colour | None:
        if self._position.is_over:
            return None
        return "black" if self._position.to_move == "black" else "white"

    @property
    def seat_to_act(self) -> Seat | None:
        colour = self.colour_to_act
        return None if colour is None else self.seat_of(colour)

    @property
    def scores(self) -> tuple[int, int]:
        scores = self._position.scores
        return scores.black, scores.white

    @property
    def outcome(self) -> Outcome | None:
        result = self._position.result
        if result is None:
            return None
        termination: Termination = "passes" if self._position.lone_passes >= 2 else "confinement"
        winner: Colour | None = "black" if result == "black" else "white" if result == "white" else None
        return Outcome(winner, termination)

    @property
    def winner(self) -> Colour | None:
        outcome = self.outcome
        return None if outcome is None else outcome.winner

    @property
    def both_have_played(self) -> bool:
        """Black (the first seat) opens with one stone under either protocol, so the second turn is White's."""
        return len(self._turns) >= 2

    @property
    def forced_turn(self) -> str | None:
        """``pass`` when it is the only legal move: the bot plays it at once and says so."""
        if self._position.is_over:
            return None
        legal = self._position.legal_moves()
        return "pass" if len(legal) == 1 and legal[0].is_pass else None

    # -- acting --------------------------------------------------------------------------------------

    def play(self, text: str | Move) -> Game:
        """The game after one more move (text or Move); IllegalMove says why not."""
        try:
            move = self._position.parse_move(text) if isinstance(text, str) else text
        except IllegalMove:
            raise
        except game_protocol.Refused as exc:
            raise IllegalMove(str(exc), exc.key, **exc.data) from None
        return Game(self._position.play(move), (*self._moves, move))

    def to_record(self, headers: Mapping[str, str] | None = None) -> str:
        """The game as a NOTATION.md record; Game, Board, Protocol and (once over) Result follow the game."""
        return write_record(self._moves, Position.start(self.size, self.protocol), headers)


class VeloopKind:
    """Veloop (Square) by Dale Walton (2022), as the bot hosts it: four board sizes, two turn protocols."""

    name: Final = "veloop"
    title: Final = "Veloop (Square)"
    phases: Final[tuple[Phase, ...]] = ("play", "over")
    setting_choices: Final[Mapping[str, tuple[str, ...]]] = {
        "board": ("8", "5", "6", "12"),
        "protocol": PROTOCOLS,
    }

    def check_settings(self, settings: Mapping[str, str]) -> dict[str, str]:
        return game_protocol.fill_settings(self.setting_choices, settings)

    def new(self, settings: Mapping[str, str] | None = None) -> Game:
        chosen = self.check_settings(settings or {})
        return Game.new(int(chosen["board"]), chosen["protocol"])

    def replay(self, turns: Iterable[str], settings: Mapping[str, str] | None = None) -> Game:
        chosen = self.check_settings(settings or {})
        return Game.replay(turns, int(chosen["board"]), chosen["protocol"])

    def from_record(self, text: str) -> Game:
        """A record read and validated; a record from another start position is refused (games start at the start)."""
        read = replay(text)
        if read.start != Position.start(read.start.size, read.start.protocol):
            raise RecordError("this record starts from its own Position; only games from the start can be hosted")
        return Game(read.final, read.moves)

    def __repr__(self) -> str:
        return "<game veloop>"


KIND: Final = VeloopKind()
