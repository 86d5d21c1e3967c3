"""The toy game's rules: three in a row on a 3×3 board, Black first, one stone a turn.

It implements ``GameKind`` and ``GameState`` (``bot.rules.protocol``) and nothing more, the least a game
must offer the bot. A finished board is over: three in a row wins (``claims``), a full board is drawn.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from bot.rules.common import RecordError, ending_headers, read_record, write_record
from bot.rules.protocol import Colour, IllegalMove, Outcome, Phase, Seat, fill_settings

FILES: Final = "abc"
SQUARES: Final = tuple(f"{file}{rank}" for rank in "123" for file in FILES)
LINES: Final = (
    ("a1", "b1", "c1"), ("a2", "b2", "c2"), ("a3", "b3", "c3"),
    ("a1", "a2", "a3"), ("b1", "b2", "b3"), ("c1", "c2", "c3"),
    ("a1", "b2", "c3"), ("a3", "b2", "c1"),
)  # fmt: skip


class ToyIllegalMove(IllegalMove):
    """A square the rules refuse; its ``key`` is in the toy game's own catalogue."""


@dataclass(frozen=True)
class ToyGame:
    """One toy game at one moment: its turns, each the square a stone went on."""

    turns: tuple[str, ...] = ()

    @property
    def kind(self) -> ToyKind:
        return KIND

    @property
    def settings(self) -> Mapping[str, str]:
        return {"board": "3"}

    @property
    def stones(self) -> dict[str, Colour]:
        """Each occupied square's stone."""
        return {square: ("black" if i % 2 == 0 else "white") for i, square in enumerate(self.turns)}

    @property
    def line(self) -> tuple[str, ...] | None:
        """The three in a row that won, if any."""
        stones = self.stones
        for line in LINES:
            colours = {stones.get(square) for square in line}
            if len(colours) == 1 and None not in colours:
                return line
        return None

    @property
    def outcome(self) -> Outcome | None:
        line = self.line
        if line is not None:
            return Outcome(self.stones[line[0]], "claims")
        if len(self.turns) == len(SQUARES):
            return Outcome(None, "claims")
        return None

    @property
    def phase(self) -> Phase:
        return "over" if self.outcome is not None else "play"

    @property
    def seat_to_act(self) -> Seat | None:
        if self.phase == "over":
            return None
        return "first" if len(self.turns) % 2 == 0 else "second"

    @property
    def colour_to_act(self) -> Colour | None:
        seat = self.seat_to_act
        return None if seat is None else "black" if seat == "first" else "white"

    @property
    def first_player_colour(self) -> Colour | None:
        return "black"

    def seat_of(self, colour: Colour) -> Seat | None:
        return "first" if colour == "black" else "second"

    @property
    def scores(self) -> tuple[int, int]:
        outcome = self.outcome
        winner = outcome.winner if outcome is not None else None
        return (int(winner == "black"), int(winner == "white"))

    @property
    def both_have_played(self) -> bool:
        """The seats alternate from the first turn, so the second one is the second seat's."""
        return len(self.turns) >= 2

    @property
    def forced_turn(self) -> str | None:
        return None

    @property
    def empty(self) -> list[str]:
        """The squares still free, a1 to c3."""
        taken = set(self.turns)
        return [square for square in SQUARES if square not in taken]

    def play(self, text: str) -> ToyGame:
        square = text.strip().lower()
        if self.phase == "over":
            raise ToyIllegalMove("the game is over", "toy.over")
        if square not in SQUARES:
            raise ToyIllegalMove(f"{text!r} is not a square from a1 to c3", "toy.not_a_square")
        if square in self.turns:
            raise ToyIllegalMove(f"{square} is taken", "toy.taken", square=square)
        return ToyGame((*self.turns, square))

    def to_record(self, headers: Mapping[str, str] | None = None) -> str:
        given = dict(headers or {})
        outcome = self.outcome
        over = (outcome.result_token, outcome.termination) if outcome is not None else None
        ending = ending_headers(over, given)
        rest = {k: v for k, v in given.items() if k.lower() not in ("game", "board", "result", "termination")}
        return write_record({"Game": "Toy", "Board": "3x3", **rest, **ending}, self.turns)


class ToyKind:
    """The toy game as the bot hosts it: one setting with one value, two phases."""

    name: Final = "toy"
    title: Final = "Toy"
    phases: Final[tuple[Phase, ...]] = ("play", "over")
    setting_choices: Final[Mapping[str, tuple[str, ...]]] = {"board": ("3",)}

    def check_settings(self, settings: Mapping[str, str]) -> dict[str, str]:
        return fill_settings(self.setting_choices, settings)

    def new(self, settings: Mapping[str, str] | None = None) -> ToyGame:
        self.check_settings(settings or {})
        return ToyGame()

    def replay(self, turns: Iterable[str], settings: Mapping[str, str] | None = None) -> ToyGame:
        game = self.new(settings)
        for number, turn in enumerate(turns, 1):
            try:
                game = game.play(turn)
            except IllegalMove as exc:
                raise RecordError(str(exc), number) from exc
        return game

    def from_record(self, text: str) -> ToyGame:
        record = read_record(text)
        if (record.header("Game") or "").lower() != "toy":
            raise RecordError("not a record of the toy game")
        return self.replay(record.turns)


KIND: Final = ToyKind()
