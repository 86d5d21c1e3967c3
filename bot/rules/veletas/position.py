"""A Veletas position of the playing phase as an immutable value, and counting or playing out from one.

``Position`` speaks square names and frozen values: it reads and writes the NOTATION.md position
string, lists and checks moves (``play`` says which rule a move breaks) and keeps the claims of the
last move. Underneath it is the integer kernel (``bot.rules.veletas.kernel``); ``perft`` and
``random_playout`` run on the kernel directly.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence

from bot.rules import protocol
from bot.rules.common import parse_square, quote
from bot.rules.veletas.kernel import (
    _CHAR_CODE,
    _CODE_CHAR,
    _PIECE_WORD,
    BLACK,
    CLAIMED_BLACK,
    CLAIMED_WHITE,
    EMPTY,
    SHOOTER,
    STONE_BLACK,
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
    reach,
)
from bot.rules.veletas.variants import COLOURS, Variant, _check_rules, _variant_of


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
