"""Veletas (Luis Bolaños Mures, 2013): positions, moves, whole games and records, both rules editions.

This is the public layer: it speaks square names and frozen values (``Move``, ``Position``,
``Game``) so that cogs, the store and the renderer can never corrupt a game. Under it sits a small
integer kernel (``bot.rules.veletas_kernel``: a flat ``bytearray`` board, rays precomputed per
square and direction, moves interned per board size) because search and move lists must be fast
in pure Python; ``FastBoard`` exposes that kernel to the AI without any strings in the loop.
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from bot.rules import protocol
from bot.rules.common import RecordError, ending_headers, parse_square, quote, read_record, write_record
from bot.rules.veletas_kernel import (
    _CHAR_CODE,
    _CODE_CHAR,
    _PIECE_WORD,
    BLACK,
    CLAIMED_BLACK,
    CLAIMED_WHITE,
    EMPTY,
    SHOOTER,
    STONE_BLACK,
    STONE_WHITE,
    WHITE,
    Claim,
    FastBoard,
    Geometry,
    IllegalMove,
    Move,
    _list_moves,
    _pmax,
    _resolve_claims,
    _set,
    _trapped,
    biggest_groups,
    board_geometry,
    reach,
)

log = logging.getLogger(__name__)

__all__ = [
    "BLACK",
    "CLAIMED_BLACK",
    "CLAIMED_WHITE",
    "COLOURS",
    "EDITIONS",
    "EMPTY",
    "SEATS",
    "SHOOTER",
    "STONE_BLACK",
    "STONE_WHITE",
    "VARIANTS",
    "WHITE",
    "Claim",
    "FastBoard",
    "Game",
    "Geometry",
    "IllegalMove",
    "Move",
    "Position",
    "Variant",
    "biggest_groups",
    "board_geometry",
    "perft",
    "random_playout",
    "random_setup",
    "reach",
]

Edition = Literal["current", "classic"]
EDITIONS: Final[tuple[Edition, Edition]] = ("current", "classic")
COLOURS: Final = protocol.COLOURS
SEATS: Final = protocol.SEATS


@dataclass(frozen=True)
class Variant:
    """One board size with its shooter count and how setup splits them."""

    name: str
    size: int
    shooters: int
    first_places: int
    second_places: int
    to_win: int


VARIANTS: Final[dict[str, Variant]] = {
    "standard": Variant("standard", 10, 7, 3, 4, 4),
    "medium": Variant("medium", 9, 5, 2, 3, 3),
    "small": Variant("small", 7, 3, 1, 2, 2),
}


# ---------------------------------------------------------------------------------------------
# Positions.
# ---------------------------------------------------------------------------------------------


def _check_rules(rules: str) -> bool:
    """True for classic; refuses unknown editions so a typo never silently plays the wrong rules."""
    if rules not in EDITIONS:
        raise ValueError(f"unknown rules edition {quote(rules)}: expected one of {', '.join(EDITIONS)}")
    return rules == "classic"


def _variant_of(size: int, shooters: int) -> Variant | None:
    for variant in VARIANTS.values():
        if variant.size == size and variant.shooters == shooters:
            return variant
    return None


class Position:
    """A position of the playing phase: board, side to move and rules edition; an immutable value.

    Equality and hashing cover the edition, the board and the side to move; the claims that the
    previous move made ride along for display but are not part of the value.
    """

    __slots__ = ("_cells", "_claims", "_classic", "_geo", "_hash", "_need", "_scores", "_shooters", "_to_move")

    _geo: Geometry
    _cells: bytes
    _classic: bool
    _to_move: int
    _shooters: tuple[int, ...]
    _scores: tuple[int, int]
    _need: int
    _claims: tuple[Claim, ...]
    _hash: int

    def __init__(self) -> None:
        raise TypeError("use Position.from_string(...) or Game(...).position")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Position is immutable: play() returns a new one")

    @classmethod
    def _make(
        cls,
        geo: Geometry,
        cells: bytes,
        classic: bool,
        to_move: int,
        claims: tuple[Claim, ...] = (),
    ) -> Position:
        self = object.__new__(cls)
        _set(self, "_geo", geo)
        _set(self, "_cells", cells)
        _set(self, "_classic", classic)
        _set(self, "_to_move", to_move)
        _set(self, "_shooters", tuple(i for i, c in enumerate(cells) if c == SHOOTER))
        _set(self, "_scores", (cells.count(CLAIMED_BLACK), cells.count(CLAIMED_WHITE)))
        total = len(self._shooters) + self._scores[0] + self._scores[1]
        variant = _variant_of(geo.size, total)
        _set(self, "_need", variant.to_win if variant is not None else total // 2 + 1)
        _set(self, "_claims", claims)
        _set(self, "_hash", hash((classic, cells, to_move)))
        return self

    @classmethod
    def from_string(cls, text: str, rules: str = "current") -> Position:
        """Read a NOTATION.md position string; any fault raises ValueError naming it."""
        classic = _check_rules(rules)
        parts = text.split()
        if len(parts) != 2:
            raise ValueError(
                "a position is the ranks separated by /, a space, then b or w for the side to move, "
                "like 10/10/3S6/6S3/2b7/4S1S3/1S8/5w1S2/2S7/10 b"
            )
        board, side = parts
        if side not in ("b", "w"):
            raise ValueError(f"the side to move must be b or w, not {quote(side)}")
        ranks = board.split("/")
        size = len(ranks)
        if not 3 <= size <= 26:
            raise ValueError(f"a board has 3 to 26 ranks, this one has {size}")
        cells = bytearray(size * size)
        for i, rank_text in enumerate(ranks):
            rank = size - 1 - i
            file = 0
            for m in re.finditer(r"[0-9]+|.", rank_text):
                token = m.group(0)
                if token.isdigit():
                    if token.startswith("0"):
                        raise ValueError(f"rank {rank + 1}: {quote(token)} is not a count of empty squares")
                    file += int(token)
                    if file > size:
                        break
                    continue
                code = _CHAR_CODE.get(token)
                if code is None:
                    raise ValueError(
                        f"rank {rank + 1}: {quote(token)} is not a piece "
                        "(expected S, B, W, b, w or a count of empty squares)"
                    )
                if file >= size:
                    file += 1
                    break
                cells[rank * size + file] = code
                file += 1
            if file != size:
                raise ValueError(f"rank {rank + 1} describes {file} squares, but the board is {size} wide")
        geo = Geometry.of(size)
        position = cls._make(geo, bytes(cells), classic, BLACK if side == "b" else WHITE)
        if position._scores[0] + position._scores[1] + len(position._shooters) == 0:
            raise ValueError("a position needs at least one shooter (S, B or W)")
        return position

    def __reduce__(self) -> tuple[Callable[..., Position], tuple[object, ...]]:
        # Pickle the value only: the geometry (with its interned move tables) is rebuilt per process.
        return _restore_position, (self._geo.size, self._cells, self._classic, self._to_move, self._claims)

    def __str__(self) -> str:
        size = self._geo.size
        cells = self._cells
        rows = []
        for rank in range(size - 1, -1, -1):
            out = []
            empty = 0
            for sq in range(rank * size, rank * size + size):
                code = cells[sq]
                if code == EMPTY:
                    empty += 1
                    continue
                if empty:
                    out.append(str(empty))
                    empty = 0
                out.append(_CODE_CHAR[code])
            if empty:
                out.append(str(empty))
            rows.append("".join(out))
        return "/".join(rows) + (" b" if self._to_move == BLACK else " w")

    def __repr__(self) -> str:
        return f"Position.from_string({str(self)!r}, rules={self.rules!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Position):
            return (
                self._hash == other._hash
                and self._classic == other._classic
                and self._to_move == other._to_move
                and self._cells == other._cells
            )
        return NotImplemented

    def __hash__(self) -> int:
        return self._hash

    # -- plain facts -----------------------------------------------------------------------------

    @property
    def size(self) -> int:
        return self._geo.size

    @property
    def rules(self) -> str:
        return "classic" if self._classic else "current"

    @property
    def variant(self) -> Variant | None:
        return _variant_of(self._geo.size, len(self._shooters) + self._scores[0] + self._scores[1])

    @property
    def needed_to_win(self) -> int:
        return self._need

    @property
    def to_move(self) -> protocol.Colour:
        return COLOURS[self._to_move]

    @property
    def winner(self) -> protocol.Colour | None:
        if self._scores[0] >= self._need:
            return "black"
        if self._scores[1] >= self._need:
            return "white"
        return None

    @property
    def is_over(self) -> bool:
        """Won, or (only in hand-made positions) no unclaimed shooter can act."""
        if self.winner is not None:
            return True
        pmax = _pmax(self._classic)
        rays = self._geo.rays
        return all(_trapped(self._cells, rays[s], pmax) for s in self._shooters)

    def piece_at(self, square: str) -> str | None:
        return _CODE_CHAR[self._cells[self._sq(square)]] or None

    def pieces(self) -> dict[str, str]:
        names = self._geo.names
        return {names[i]: _CODE_CHAR[c] for i, c in enumerate(self._cells) if c}

    def unclaimed(self) -> tuple[str, ...]:
        names = self._geo.names
        return tuple(names[s] for s in self._shooters)

    @property
    def claimed(self) -> dict[str, tuple[str, ...]]:
        names = self._geo.names
        cells = self._cells
        return {
            "black": tuple(names[i] for i, c in enumerate(cells) if c == CLAIMED_BLACK),
            "white": tuple(names[i] for i, c in enumerate(cells) if c == CLAIMED_WHITE),
        }

    @property
    def score(self) -> tuple[int, int]:
        return self._scores

    @property
    def last_claims(self) -> tuple[Claim, ...]:
        return self._claims

    def _sq(self, square: str) -> int:
        """Index of a square name; a bad name is an IllegalMove, since it is always what a player typed."""
        try:
            file, rank = parse_square(square, self._geo.size)
        except ValueError as exc:
            if isinstance(exc, protocol.Refused):
                raise IllegalMove(str(exc), exc.key, **exc.data) from None
            raise
        return rank * self._geo.size + file

    # -- moves -----------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move: stationary shots once per target, then moving shots."""
        if self.winner is not None:
            return []
        geo = self._geo
        return _list_moves(  # type: ignore[return-value]
            bytearray(self._cells),
            geo,
            _pmax(self._classic),
            self._shooters,
            geo.move_rows,
            geo.stat_moves,
            geo.move_row,
        )

    def _blocker(self, path: Iterable[int], vacated: int = -1) -> int | None:
        pmax = _pmax(self._classic)
        cells = self._cells
        for sq in path:
            if sq != vacated and cells[sq] > pmax:
                return sq
        return None

    def _resolve(self, move: Move) -> tuple[int, int, int]:
        """(origin, destination, target) squares of a move legal here, origin -1 for a stationary shot.

        Raises IllegalMove with the first fault a player would want to hear about, checked in
        the order they would make the move: shooter, then destination, then target.
        """
        if self.winner is not None:
            raise IllegalMove("the game is over", "rules.game_over")
        geo = self._geo
        names = geo.names
        cells = self._cells
        target = self._sq(move.target)
        shooter = None if move.shooter is None else self._sq(move.shooter)
        dest = None if move.destination is None else self._sq(move.destination)
        if shooter is None:
            if cells[target]:
                raise IllegalMove(f"{names[target]} is occupied", "rules.occupied", square=names[target])
            first_blocked: IllegalMove | None = None
            for s in self._shooters:
                path = geo.line(s, target)
                if path is None:
                    continue
                blocker = self._blocker(path)
                if blocker is None:
                    return -1, -1, target
                if first_blocked is None:
                    first_blocked = self._blocks(blocker, s, target)
            if first_blocked is None:
                raise IllegalMove(
                    f"no unclaimed shooter is on a line with {names[target]}",
                    "rules.no_shooter_line",
                    square=names[target],
                )
            raise IllegalMove(
                f"no unclaimed shooter has a clear line to {names[target]} ({first_blocked})",
                "rules.no_clear_line",
                **{**first_blocked.data, "square": names[target]},
            )
        code = cells[shooter]
        if code == EMPTY or code >= STONE_BLACK:
            raise IllegalMove(f"{names[shooter]} is not a shooter", "rules.not_shooter", square=names[shooter])
        if code != SHOOTER:
            raise IllegalMove(
                f"the shooter on {names[shooter]} is already claimed", "rules.claimed_shooter", square=names[shooter]
            )
        src = shooter
        if dest is not None:
            path = geo.line(shooter, dest)
            if path is None:
                raise IllegalMove(
                    f"{names[dest]} is not on a line from {names[shooter]}",
                    "rules.not_on_line",
                    square=names[dest],
                    origin=names[shooter],
                )
            if cells[dest]:
                raise IllegalMove(f"{names[dest]} is occupied", "rules.occupied", square=names[dest])
            blocker = self._blocker(path)
            if blocker is not None:
                raise self._blocks(blocker, shooter, dest)
            src = dest
        if target == src:
            raise IllegalMove(
                f"a shooter cannot shoot the square it stands on ({names[target]})",
                "rules.shoot_own_square",
                square=names[target],
            )
        path = geo.line(src, target)
        if path is None:
            raise IllegalMove(
                f"{names[target]} is not on a line from {names[src]}",
                "rules.not_on_line",
                square=names[target],
                origin=names[src],
            )
        if cells[target] and not (dest is not None and target == shooter):
            raise IllegalMove(f"{names[target]} is occupied", "rules.occupied", square=names[target])
        blocker = self._blocker(path, vacated=shooter if dest is not None else -1)
        if blocker is not None:
            raise self._blocks(blocker, src, target)
        if dest is None:
            return -1, -1, target
        return shooter, dest, target

    def _blocks(self, blocker: int, a: int, b: int) -> IllegalMove:
        names = self._geo.names
        piece = _PIECE_WORD[self._cells[blocker]]
        return IllegalMove(
            f"the {piece} on {names[blocker]} blocks {names[a]}–{names[b]}",
            "rules.blocked",
            piece=piece.replace(" ", "_"),
            blocker=names[blocker],
            origin=names[a],
            square=names[b],
        )

    def is_legal(self, move: Move | str) -> bool:
        try:
            self._resolve(Move.parse(move) if isinstance(move, str) else move)
        except IllegalMove:
            return False
        return True

    def parse_move(self, text: str) -> Move:
        """Read a player's move and check it here; IllegalMove says exactly what is wrong."""
        move = self._read(text)
        self._resolve(move)
        return move

    def _read(self, text: str) -> Move:
        """``Move.parse``, its examples taken from this position's legal moves (this board's squares, a real move)."""
        try:
            return Move.parse(text)
        except IllegalMove as exc:
            key, data = exc.key, exc.data
            moves = self.legal_moves()
            moving = [move for move in moves if not move.is_stationary]
            still = next((move for move in moves if move.is_stationary), None)
            if not moving and still is None:
                raise
            if key == "rules.not_a_move":
                shot = str(still or moving[0].target)
                move = str(moving[0]) if moving else str(still)
                raise IllegalMove(
                    f"{data['text']} is not a move: expected a shot like {shot}, or a move like {move} "
                    "(shooter-destination/target)",
                    key,
                    text=data["text"],
                    shot=shot,
                    move=move,
                ) from None
            if key == "rules.no_shot" and moving:
                typed = str(data["move"])
                example = next((m for m in moving if str(m).startswith(f"{typed}/")), moving[0])
                raise IllegalMove(
                    f"{data['text']} has no shot: a move must end with /target, like {example}",
                    key,
                    text=data["text"],
                    move=typed,
                    example=str(example),
                ) from None
            if key == "rules.name_shooter" and moving:
                square = str(data["square"])
                example = next((m for m in moving if m.destination == square), moving[0])
                raise IllegalMove(
                    f"a move to {square} must name the shooter that moves, like {example}",
                    key,
                    square=square,
                    example=str(example),
                ) from None
            raise

    def play(self, move: Move | str) -> Position:
        """The position after ``move`` with claims resolved; IllegalMove when the rules refuse it."""
        origin, dest, target = self._resolve(self._read(move) if isinstance(move, str) else move)
        geo = self._geo
        cells = bytearray(self._cells)
        shooters = list(self._shooters)
        if origin >= 0:
            cells[origin] = EMPTY
            cells[dest] = SHOOTER
            shooters[shooters.index(origin)] = dest
        mover = self._to_move
        cells[target] = STONE_BLACK + mover
        scores = list(self._scores)
        raw = _resolve_claims(cells, geo, _pmax(self._classic), shooters, mover, scores)
        claims = tuple(Claim(geo.names[s], COLOURS[c], bg, wg) for s, c, bg, wg in raw)
        return Position._make(geo, bytes(cells), self._classic, 1 - mover, claims)

    # -- hints -----------------------------------------------------------------------------------

    def _unclaimed_index(self, shooter: str) -> int | None:
        sq = self._sq(shooter)
        return sq if self._cells[sq] == SHOOTER else None

    def destinations(self, shooter: str) -> list[str]:
        """Where an unclaimed shooter may move (staying is not listed); [] for anything else."""
        sq = self._unclaimed_index(shooter)
        if sq is None or self.winner is not None:
            return []
        names = self._geo.names
        return [names[t] for t in reach(self._cells, self._geo.rays[sq], _pmax(self._classic))]

    def targets(self, square: str, *, vacated: str | None = None) -> list[str]:
        """Squares a shot from ``square`` may reach, with ``vacated`` (the square a moving shooter left) empty."""
        sq = self._sq(square)
        cells: Sequence[int] = self._cells
        if vacated is not None:
            buf = bytearray(self._cells)
            buf[self._sq(vacated)] = EMPTY
            cells = buf
        names = self._geo.names
        return [names[t] for t in reach(cells, self._geo.rays[sq], _pmax(self._classic))]

    def is_trapped(self, shooter: str) -> bool:
        sq = self._sq(shooter)
        code = self._cells[sq]
        if code == EMPTY or code >= STONE_BLACK:
            raise IllegalMove(
                f"{shooter.strip().lower()} is not a shooter", "rules.not_shooter", square=shooter.strip().lower()
            )
        return _trapped(self._cells, self._geo.rays[sq], _pmax(self._classic))

    def group_hints(self) -> dict[str, tuple[int, int]]:
        """Each unclaimed shooter's biggest adjacent black and white groups: who would claim it now."""
        names = self._geo.names
        return {names[s]: biggest_groups(self._cells, self._geo.orth, s) for s in self._shooters}

    def fast(self) -> FastBoard:
        """A mutable integer copy for search (see FastBoard)."""
        return FastBoard.from_position(self)

    @classmethod
    def from_fast(cls, board: FastBoard) -> Position:
        """The position a kernel board holds (the inverse of ``fast``)."""
        return cls._make(board._geo, bytes(board.cells), board.classic, board.to_move)


def _restore_position(size: int, cells: bytes, classic: bool, to_move: int, claims: tuple[Claim, ...]) -> Position:
    return Position._make(Geometry.of(size), cells, classic, to_move, claims)


def perft(position: Position, depth: int) -> int:
    """Number of move sequences of exactly ``depth`` moves; a won position has none below it."""
    if depth < 0:
        raise ValueError("perft depth must be at least 0")
    if depth == 0:
        return 1
    return _perft(FastBoard.from_position(position), depth)


def _perft(board: FastBoard, depth: int) -> int:
    if depth == 1:
        return board.count_moves()
    total = 0
    for code in board.legal_codes():
        child = board.copy()
        child.play_code(code)
        total += _perft(child, depth - 1)
    return total


def random_playout(position: Position, rng: random.Random | None = None) -> str | None:
    """Winner of one random game from ``position`` under the AI's sampling policy (see FastBoard)."""
    board = FastBoard.from_position(position)
    winner = board.random_playout((rng or random).random)
    return None if winner < 0 else COLOURS[winner]


# ---------------------------------------------------------------------------------------------
# Whole games: setup, pie choice, play.
# ---------------------------------------------------------------------------------------------

_SETUP_X_RE = re.compile(r"(?<=\d)\s*x\s*(?=[a-z]\d)")
_SETUP_SQ_RE = re.compile(r"[a-z][0-9]{1,2}")


def _sort_key(geo: Geometry, sq: int) -> tuple[int, int]:
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
        given = dict(headers or {})
        over = (self.result, "claims") if self.winner is not None else None
        merged: dict[str, str] = {
            "Game": "veletas",
            "Variant": self._variant.name,
            "Rules": self.rules,
            "Black": "?",
            "White": "?",
            "Date": "????.??.??",
        }
        fixed = {"game", "variant", "rules", "result", "termination"}
        for key, value in given.items():
            if key.lower() in fixed:
                continue
            merged[key] = str(value)
        ending = ending_headers(over, given)
        merged["Result"] = ending["Result"]
        if "Termination" in ending:
            merged["Termination"] = ending["Termination"]
        return write_record(merged, self._turns, self._notes)

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
        record = read_record(text)
        name = record.header("Game")
        if name is not None and name.strip().lower() != "veletas":
            raise RecordError(f"this record is a game of {name}, not veletas")
        variant = _variant_header(record.header("Variant"), record.turns)
        rules = (record.header("Rules") or "current").strip().lower()
        if rules not in EDITIONS:
            raise RecordError(f"unknown rules edition {quote(rules)}: expected one of {', '.join(EDITIONS)}")
        game = cls.replay(record.turns, variant=variant, rules=rules)
        claimed = (record.header("Result") or "*").strip()
        if game.winner is not None and claimed in ("1-0", "0-1") and claimed != game.result:
            raise RecordError(f"the header says {claimed}, but the moves give {game.result} ({game.winner} won)")
        if game.winner is None:
            # A game that ended off the board states its ending; it must be one NOTATION.md knows.
            ending_headers(None, record.headers)
        return game


def _restore_game(*values: object) -> Game:
    game = object.__new__(Game)
    for name, value in zip(Game.__slots__, values, strict=True):
        _set(game, name, value)
    return game


def _looks_like_setup(text: str) -> bool:
    return len(_SETUP_SQ_RE.findall(text.lower())) >= 2 or "," in text


def _variant_header(value: str | None, turns: Sequence[str]) -> str:
    """Variant name from a header; also reads board-size spellings like 9x9 or size-9 used elsewhere.

    Without the header, the first setup turn tells: each variant's first player places a
    different number of shooters.
    """
    if value is None or not value.strip():
        if turns:
            placed = len(_SETUP_SQ_RE.findall(_SETUP_X_RE.sub("/", turns[0].lower()).split("/")[0]))
            for variant in VARIANTS.values():
                if variant.first_places == placed:
                    return variant.name
        return "standard"
    cleaned = value.strip().lower()
    if cleaned in VARIANTS:
        return cleaned
    digits = re.findall(r"\d+", cleaned)
    if digits:
        for variant in VARIANTS.values():
            if int(digits[0]) == variant.size:
                return variant.name
    raise RecordError(f"unknown variant {quote(value)}: expected one of {', '.join(VARIANTS)}")


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
