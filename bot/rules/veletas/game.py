"""A whole game of Veletas as the bot hosts it: setup, the pie choice, play and result (``Game``), and ``KIND``.

``Game`` is an immutable value built from its turns in canonical text, so it can always be rebuilt
by replaying them; ``KIND`` is the game's plug-in for the registry.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from bot.rules import protocol
from bot.rules.common import RecordError, quote
from bot.rules.veletas.kernel import BLACK, EMPTY, SHOOTER, STONE_BLACK, WHITE, Geometry, IllegalMove, Move, _set
from bot.rules.veletas.position import Position
from bot.rules.veletas.record import (
    _SETUP_SQ_RE,
    _SETUP_X_RE,
    _looks_like_setup,
    check_result,
    read_settings,
    write_game_record,
)
from bot.rules.veletas.variants import COLOURS, EDITIONS, SEATS, VARIANTS, Edition, Variant, _check_rules


def _sort_key(geo: Geometry, sq: int) -> tuple[int, int]:
    """The notation's square order: by file, then by rank."""
    return sq % geo.size, sq // geo.size


@dataclass(frozen=True)
class _Stage:
    """One pre-play turn: who acts and what they place."""

    kind: Literal["setup", "pie"]
    seat_index: int | None  # 0 first, 1 second, None: the seat playing White (known after the pie)
    shooters: int
    stone: int | None  # colour of the stone placed, None for no stone


class Game:
    """A whole game as an immutable value: setup, the pie choice (current edition), play, result.

    Every action returns a new Game; the turns it was built from are kept as canonical text, so
    a game can always be rebuilt by replaying them.
    """

    __slots__ = ("_classic", "_first_colour", "_moves", "_notes", "_position", "_stage", "_turns", "_variant")

    _variant: Variant
    _classic: bool
    _turns: tuple[str, ...]
    _notes: tuple[str | None, ...]
    _stage: int
    _first_colour: int | None
    _position: Position
    _moves: tuple[Move, ...]

    def __init__(self) -> None:
        raise TypeError("use Game.new(...), Game.replay(...) or Game.from_record(...)")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Game is immutable: play() returns a new one")

    def __reduce__(self) -> tuple[Callable[..., Game], tuple[object, ...]]:
        return _restore_game, tuple(getattr(self, name) for name in Game.__slots__)

    @classmethod
    def new(cls, variant: str = "standard", rules: str = "current") -> Game:
        chosen = VARIANTS.get(variant)
        if chosen is None:
            raise ValueError(f"unknown variant {quote(variant)}: expected one of {', '.join(VARIANTS)}")
        classic = _check_rules(rules)
        geo = Geometry.of(chosen.size)
        self = object.__new__(cls)
        _set(self, "_variant", chosen)
        _set(self, "_classic", classic)
        _set(self, "_turns", ())
        _set(self, "_notes", ())
        _set(self, "_stage", 0)
        _set(self, "_first_colour", BLACK if classic else None)
        _set(self, "_position", Position._make(geo, bytes(geo.n2), classic, BLACK))
        _set(self, "_moves", ())
        return self

    def _copy(self, **changes: object) -> Game:
        return _restore_game(*(changes.get(name, getattr(self, name)) for name in Game.__slots__))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Game):
            return (self._variant, self._classic, self._turns) == (other._variant, other._classic, other._turns)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self._variant.name, self._classic, self._turns))

    def __repr__(self) -> str:
        return f"<Game {self._variant.name} {self.rules} {self.phase} after {len(self._turns)} turns>"

    # -- the pre-play schedule --------------------------------------------------------------------

    def _stages(self) -> tuple[_Stage, ...]:
        v = self._variant
        if self._classic:
            return (_Stage("setup", 0, v.first_places, None), _Stage("setup", 1, v.second_places, None))
        return (
            _Stage("setup", 0, v.first_places, BLACK),
            _Stage("pie", 1, 0, None),
            _Stage("setup", None, v.second_places, WHITE),
        )

    def _current_stage(self) -> _Stage | None:
        stages = self._stages()
        return stages[self._stage] if self._stage < len(stages) else None

    # -- facts -------------------------------------------------------------------------------------

    @property
    def variant(self) -> Variant:
        return self._variant

    @property
    def rules(self) -> Edition:
        return "classic" if self._classic else "current"

    @property
    def phase(self) -> protocol.Phase:
        stage = self._current_stage()
        if stage is not None:
            return stage.kind
        return "over" if self._position.is_over else "play"

    @property
    def first_player_colour(self) -> protocol.Colour | None:
        return None if self._first_colour is None else COLOURS[self._first_colour]

    def seat_of(self, colour: protocol.Colour) -> protocol.Seat | None:
        """Which seat plays ``colour``; None while the pie choice is still to come."""
        if colour not in COLOURS:
            raise ValueError(f"a colour is black or white, not {quote(colour)}")
        if self._first_colour is None:
            return None
        return SEATS[0] if COLOURS.index(colour) == self._first_colour else SEATS[1]

    @property
    def seat_to_act(self) -> protocol.Seat | None:
        stage = self._current_stage()
        if stage is not None:
            if stage.seat_index is not None:
                return SEATS[stage.seat_index]
            return self.seat_of("white")
        if self.phase == "over":
            return None
        return self.seat_of(self._position.to_move)

    @property
    def colour_to_act(self) -> protocol.Colour | None:
        stage = self._current_stage()
        if stage is not None:
            if stage.kind == "pie":
                return None
            if self._classic:
                return COLOURS[stage.seat_index or 0]
            return None if stage.stone == BLACK else "white"
        if self.phase == "over":
            return None
        return self._position.to_move

    @property
    def turns(self) -> tuple[str, ...]:
        return self._turns

    @property
    def position(self) -> Position:
        return self._position

    @property
    def setup_turns(self) -> int:
        """How many of ``turns`` were setup turns and the pie choice; the rest are moves."""
        return min(self._stage, len(self._stages()))

    @property
    def last_move(self) -> Move | None:
        return self._moves[-1] if self._moves else None

    @property
    def moves(self) -> tuple[Move, ...]:
        """The moves of the playing phase, in order."""
        return self._moves

    @property
    def winner(self) -> protocol.Colour | None:
        return self._position.winner

    @property
    def winner_seat(self) -> protocol.Seat | None:
        winner = self.winner
        return None if winner is None else self.seat_of(winner)

    # -- the GameState protocol ------------------------------------------------------------------------

    @property
    def kind(self) -> VeletasKind:
        return KIND

    @property
    def settings(self) -> dict[str, str]:
        return {"variant": self._variant.name, "rules": self.rules}

    @property
    def scores(self) -> tuple[int, int]:
        """(black, white): claimed shooters, the count that wins on reaching ``needed_to_win``."""
        return self._position.score

    @property
    def outcome(self) -> protocol.Outcome | None:
        winner = self.winner
        return None if winner is None else protocol.Outcome(winner, "claims")

    @property
    def both_have_played(self) -> bool:
        """The first seat places first and the second seat's first turn comes next (its setup in the classic
        edition, the pie choice in the current one), so both have played from the second turn on."""
        return len(self._turns) >= 2

    @property
    def forced_turn(self) -> str | None:
        """Veletas always leaves a choice (a shooter can always shoot where it stands), so never."""
        return None

    @property
    def shooters_to_place(self) -> int:
        stage = self._current_stage()
        return stage.shooters if stage is not None and stage.kind == "setup" else 0

    @property
    def stone_to_place(self) -> bool:
        stage = self._current_stage()
        return stage is not None and stage.kind == "setup" and stage.stone is not None

    def setup_squares(self) -> list[str]:
        """Empty squares a shooter may take this setup turn, in square order; [] outside setup."""
        stage = self._current_stage()
        if stage is None or stage.kind != "setup":
            return []
        geo = self._position._geo
        cells = self._position._cells
        ok = [sq for sq in range(geo.n2) if cells[sq] == EMPTY and self._setup_square_ok(sq, cells) is None]
        ok.sort(key=lambda sq: _sort_key(geo, sq))
        return [geo.names[sq] for sq in ok]

    def setup_choices(self, chosen: Sequence[str] = ()) -> list[str]:
        """Squares the next shooter of this setup turn may take once ``chosen`` ones are placed, in square order.

        The guided setup offers these one shooter at a time, so every choice it shows can complete a
        legal turn: occupied and already chosen squares are out, and so is what the setup rules forbid
        next to the chosen shooters (the classic edition's spacing). [] outside setup or when full.
        """
        stage = self._current_stage()
        if stage is None or stage.kind != "setup" or len(chosen) >= stage.shooters:
            return []
        geo = self._position._geo
        cells = bytearray(self._position._cells)
        for name in chosen:
            sq = geo.index.get(name)
            if sq is None or cells[sq] != EMPTY or self._setup_square_ok(sq, cells) is not None:
                return []
            cells[sq] = SHOOTER
        ok = [sq for sq in range(geo.n2) if cells[sq] == EMPTY and self._setup_square_ok(sq, cells) is None]
        ok.sort(key=lambda sq: _sort_key(geo, sq))
        return [geo.names[sq] for sq in ok]

    def setup_example(self) -> tuple[tuple[str, ...], str | None] | None:
        """A legal setup turn on this board as it stands (its shooters, and its stone or None), for refusals to show.

        None outside setup, or when picking squares one by one finds no complete turn.
        """
        stage = self._current_stage()
        if stage is None or stage.kind != "setup":
            return None
        chosen: list[str] = []
        while len(chosen) < stage.shooters:
            choices = self.setup_choices(chosen)
            if not choices:
                return None
            chosen.append(choices[len(choices) // 2])
        chosen.sort(key=lambda name: _sort_key(self._position._geo, self._position._geo.index[name]))
        if stage.stone is None:
            return tuple(chosen), None
        stones = self.stone_choices(chosen)
        return (tuple(chosen), stones[len(stones) // 3]) if stones else None

    def stone_choices(self, shooters: Sequence[str]) -> list[str]:
        """Empty squares the setup stone may take once ``shooters`` are placed (any empty square, edges too)."""
        if not self.stone_to_place:
            return []
        geo = self._position._geo
        cells = self._position._cells
        taken = {geo.index[name] for name in shooters if name in geo.index}
        ok = [sq for sq in range(geo.n2) if cells[sq] == EMPTY and sq not in taken]
        ok.sort(key=lambda sq: _sort_key(geo, sq))
        return [geo.names[sq] for sq in ok]

    def _setup_square_ok(self, sq: int, cells: Sequence[int]) -> IllegalMove | None:
        geo = self._position._geo
        name = geo.names[sq]
        if self._classic:
            for nb in geo.ring[sq]:
                if cells[nb] == SHOOTER:
                    return IllegalMove(
                        f"{name} touches the shooter on {geo.names[nb]}: during setup shooters may not be "
                        "next to one another, even diagonally",
                        "rules.setup_touches",
                        square=name,
                        other=geo.names[nb],
                    )
            return None
        if sq in geo.perimeter:
            return IllegalMove(
                f"{name} is on the edge of the board: during setup shooters go on inner squares only",
                "rules.setup_edge",
                square=name,
            )
        return None

    # -- acting --------------------------------------------------------------------------------------

    def play(self, text: str | Move) -> Game:
        """Apply the next turn (setup placement, keep/swap, or a move); IllegalMove says why not."""
        if isinstance(text, Move):
            text = str(text)
        stage = self._current_stage()
        if stage is None:
            if self._position.is_over:
                raise IllegalMove("the game is over", "rules.game_over")
            move = self._position.parse_move(text)
            after = self._position.play(move)
            note = ", ".join(f"{c.square} claimed by {c.colour.capitalize()}" for c in after.last_claims) or None
            return self._copy(
                _turns=(*self._turns, str(move)),
                _notes=(*self._notes, note),
                _position=after,
                _moves=(*self._moves, move),
            )
        if stage.kind == "pie":
            choice = text.strip().lower()
            if choice not in ("keep", "swap"):
                raise IllegalMove(
                    f"{quote(text)} is not a pie choice: write keep (the first player stays Black) "
                    "or swap (the first player becomes White)",
                    "rules.not_pie",
                    text=quote(text),
                )
            return self._copy(
                _turns=(*self._turns, choice),
                _notes=(*self._notes, None),
                _stage=self._stage + 1,
                _first_colour=BLACK if choice == "keep" else WHITE,
            )
        return self._place(stage, text)

    def _place(self, stage: _Stage, text: str) -> Game:
        geo = self._position._geo
        found = self.setup_example()
        if found is None:
            example = "c3,e5,h4/d7" if stage.stone is not None else "c3,e5,h4"
        else:
            example = ",".join(found[0]) + ("" if found[1] is None else f"/{found[1]}")
        cleaned = _SETUP_X_RE.sub("/", text.strip().lower())
        parts = cleaned.split("/")
        if len(parts) > 2:
            raise IllegalMove(
                f"{quote(text)} has more than one /: expected shooters, then / and the stone, like {example}",
                "rules.setup_slashes",
                text=quote(text),
                example=example,
            )
        shooter_part = parts[0]
        stone_part = parts[1].strip() if len(parts) == 2 else None
        tokens = [t for t in re.split(r"[\s,;]+", shooter_part) if t]
        for token in tokens:
            if not _SETUP_SQ_RE.fullmatch(token):
                raise IllegalMove(
                    f"{quote(token)} is not a square: expected squares like {example}",
                    "rules.setup_not_square",
                    text=quote(token),
                    example=example,
                )
        squares = [self._position._sq(token) for token in tokens]
        if len(squares) != stage.shooters:
            noun = "shooter" if stage.shooters == 1 else "shooters"
            raise IllegalMove(
                f"this turn places {stage.shooters} {noun}, not {len(squares)} (like {example})",
                "rules.setup_count",
                count=stage.shooters,
                given=len(squares),
                example=example,
            )
        seen: set[int] = set()
        for sq in squares:
            if sq in seen:
                raise IllegalMove(f"{geo.names[sq]} is named twice", "rules.setup_twice", square=geo.names[sq])
            seen.add(sq)
        stone: int | None = None
        if stage.stone is None:
            if stone_part is not None:
                raise IllegalMove(
                    f"the classic edition places no stone during setup: write only the shooters, like {example}",
                    "rules.setup_no_stone",
                    example=example,
                )
        else:
            colour = COLOURS[stage.stone]
            if not stone_part:
                raise IllegalMove(
                    f"this turn also places one {colour} stone: write the shooters, a /, then the stone, "
                    f"like {example}",
                    "rules.setup_stone_missing",
                    colour=colour,
                    example=example,
                )
            if not _SETUP_SQ_RE.fullmatch(stone_part):
                raise IllegalMove(
                    f"{quote(stone_part)} is not a square: expected the stone's square after /, like {example}",
                    "rules.setup_stone_square",
                    text=quote(stone_part),
                    example=example,
                )
            stone = self._position._sq(stone_part)
        cells = bytearray(self._position._cells)
        for sq in squares:
            if cells[sq]:
                raise IllegalMove(f"{geo.names[sq]} is occupied", "rules.occupied", square=geo.names[sq])
            reason = self._setup_square_ok(sq, cells)
            if reason is not None:
                raise reason
            cells[sq] = SHOOTER
        if stone is not None and stage.stone is not None:
            if stone in seen:
                raise IllegalMove(
                    f"the stone cannot go on {geo.names[stone]}: a shooter is placed there this turn",
                    "rules.setup_stone_on_shooter",
                    square=geo.names[stone],
                )
            if cells[stone]:
                raise IllegalMove(f"{geo.names[stone]} is occupied", "rules.occupied", square=geo.names[stone])
            cells[stone] = STONE_BLACK + stage.stone
        squares.sort(key=lambda sq: _sort_key(geo, sq))
        canonical = ",".join(geo.names[sq] for sq in squares)
        if stone is not None:
            canonical += "/" + geo.names[stone]
        position = Position._make(geo, bytes(cells), self._classic, BLACK)
        return self._copy(
            _turns=(*self._turns, canonical),
            _notes=(*self._notes, None),
            _stage=self._stage + 1,
            _position=position,
        )

    # -- records ---------------------------------------------------------------------------------------

    @property
    def result(self) -> str:
        """PGN-style result token: 1-0 Black won, 0-1 White won, * still going."""
        return {"black": "1-0", "white": "0-1"}.get(self.winner or "", "*")

    def to_record(self, headers: Mapping[str, str] | None = None) -> str:
        """The game as NOTATION.md record text; Game, Variant and Rules always follow the game.

        Result and Termination follow the moves once they ended the game (``claims``); before
        that, ``headers`` may state an ending off the board (a resignation, a time forfeit) with
        its result. RecordError for a Result or Termination NOTATION.md does not know.
        """
        ended = self.result if self.winner is not None else None
        return write_game_record(self._variant.name, self.rules, ended, self._turns, self._notes, headers)

    @classmethod
    def replay(cls, turns: Iterable[str], variant: str = "standard", rules: str = "current") -> Game:
        """Rebuild a game from its turns; a refused turn raises RecordError with its 1-based number.

        Records in AbstractPlay style have no pie turn (the site swaps seats outside the move
        list), so in the current edition a placement where keep/swap was due is read as ``keep``.
        """
        game = cls.new(variant, rules)
        for number, text in enumerate(turns, start=1):
            try:
                if game.phase == "pie" and text.strip().lower() not in ("keep", "swap") and _looks_like_setup(text):
                    game = game.play("keep")
                game = game.play(text)
            except IllegalMove as exc:
                raise RecordError(str(exc), turn=number) from None
        return game

    @classmethod
    def from_record(cls, text: str) -> Game:
        """Read and validate a record; the final game is what replaying its turns gives."""
        record, variant, rules = read_settings(text)
        game = cls.replay(record.turns, variant=variant, rules=rules)
        check_result(record, game.winner, game.result)
        return game


def _restore_game(*values: object) -> Game:
    game = object.__new__(Game)
    for name, value in zip(Game.__slots__, values, strict=True):
        _set(game, name, value)
    return game


def random_setup(variant: str = "standard", rules: str = "current", rng: random.Random | None = None) -> Game:
    """A game whose setup (and pie choice) was played at random, ready for its first move."""
    rnd = rng or random.Random()
    game = Game.new(variant, rules)
    while game.phase in ("setup", "pie"):
        if game.phase == "pie":
            game = game.play(rnd.choice(("keep", "swap")))
            continue
        placed: list[str] = []
        probe = game
        for _ in range(game.shooters_to_place):
            choices = [sq for sq in probe.setup_squares() if sq not in placed]
            if game.rules == "classic":
                geo = game.position._geo
                near = {geo.names[nb] for p in placed for nb in geo.ring[geo.index[p]]}
                choices = [sq for sq in choices if sq not in near]
            placed.append(rnd.choice(choices))
        text = ",".join(placed)
        if game.stone_to_place:
            taken = set(placed)
            empties = [sq for sq in game.position._geo.names if game.position.piece_at(sq) is None and sq not in taken]
            text += "/" + rnd.choice(empties)
        game = game.play(text)
    return game


class VeletasKind:
    """Veletas by Luis Bolaños Mures (2013), as the bot hosts it: three boards, two rules editions."""

    name: Final = "veletas"
    title: Final = "Veletas"
    phases: Final[tuple[protocol.Phase, ...]] = ("setup", "pie", "play", "over")
    setting_choices: Final[Mapping[str, tuple[str, ...]]] = {
        "variant": tuple(VARIANTS),
        "rules": EDITIONS,
    }

    def check_settings(self, settings: Mapping[str, str]) -> dict[str, str]:
        return protocol.fill_settings(self.setting_choices, settings)

    def new(self, settings: Mapping[str, str] | None = None) -> Game:
        chosen = self.check_settings(settings or {})
        return Game.new(chosen["variant"], chosen["rules"])

    def replay(self, turns: Iterable[str], settings: Mapping[str, str] | None = None) -> Game:
        chosen = self.check_settings(settings or {})
        return Game.replay(turns, variant=chosen["variant"], rules=chosen["rules"])

    def from_record(self, text: str) -> Game:
        return Game.from_record(text)

    def __repr__(self) -> str:
        return "<game veletas>"


KIND: Final = VeletasKind()
