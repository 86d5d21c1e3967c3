"""Veletas's integer kernel (the board as a flat ``bytearray``, rays precomputed per square) and its moves.

The fast layer under ``bot.rules.veletas``: move generation, claims and random playouts with no
strings in the loop, for the AI's search and for the public layer's values (``Position``, ``Game``),
which are built on it. Moves (``Move``, ``Claim``) live here because the kernel interns them per
board size. Import all of this through ``bot.rules.veletas``, which re-exports it.

It stays one file although it is long because it is one idea, the board as integers, and its
parts are tuned together: the cell codes' order, the precomputed rays, the interned moves and the
playout loop read each other's tables directly as module globals, which keeps the inner loops free
of attribute lookups through other modules.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Final, Protocol

from bot.rules import protocol
from bot.rules.common import quote, square_name

COLOURS: Final = protocol.COLOURS


class IllegalMove(protocol.IllegalMove):
    """A move, setup turn or pie choice the rules refuse; the message is written for the player."""


_set = object.__setattr__  # how the immutable values below fill their slots once, at birth

# ---------------------------------------------------------------------------------------------
# The integer kernel.
#
# A board is a flat sequence of cell codes indexed by ``rank * size + file``. Codes are ordered
# so that one comparison decides whether a piece can be passed over: in the current edition
# everything up to CLAIMED_WHITE (the shooters) is passable and stones block; in the classic
# edition every piece blocks. ``pmax`` below is that threshold.
# ---------------------------------------------------------------------------------------------

EMPTY: Final = 0
SHOOTER: Final = 1
CLAIMED_BLACK: Final = 2
CLAIMED_WHITE: Final = 3
STONE_BLACK: Final = 4
STONE_WHITE: Final = 5
BLACK: Final = 0
WHITE: Final = 1

_PASS_CURRENT: Final = CLAIMED_WHITE
_PASS_CLASSIC: Final = EMPTY

_CODE_CHAR: Final = ("", "S", "B", "W", "b", "w")
_CHAR_CODE: Final = {"S": SHOOTER, "B": CLAIMED_BLACK, "W": CLAIMED_WHITE, "b": STONE_BLACK, "w": STONE_WHITE}
_PIECE_WORD: Final = ("", "shooter", "shooter", "shooter", "stone", "stone")
_DIRECTIONS: Final = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


_set = object.__setattr__  # how the immutable values below fill their slots once, at birth


def _pmax(classic: bool) -> int:
    return _PASS_CLASSIC if classic else _PASS_CURRENT


class Geometry:
    """Everything about a board size that never changes: rays, neighbours, names, interned moves.

    Moves are interned in rows indexed ``origin * n2 + destination`` and then by target, built
    lazily the first time a shooter moves between two squares, so that listing moves only picks
    existing objects out of lists.

    One instance per size, shared (get it with ``board_geometry`` or ``FastBoard.geometry``) so
    that search code reads the same tables as the rules instead of building its own. Its public
    tables are read-only: ``size``, ``n2``, ``rays`` (per square, its non-empty rays in the
    eight directions, nearest square first), ``ring`` (per square, its neighbours in all eight
    directions), ``orth`` (orthogonal neighbours, the adjacency of groups), ``line_masks`` and
    ``ring_masks`` (per square, a byte per square: 1 where the two share a line / touch).
    """

    _cache: ClassVar[dict[int, Geometry]] = {}

    def __init__(self, size: int) -> None:
        self.size = size
        n2 = size * size
        self.n2 = n2
        self.names: tuple[str, ...] = tuple(square_name(i % size, i // size) for i in range(n2))
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        rays: list[tuple[tuple[int, ...], ...]] = []
        ring: list[tuple[int, ...]] = []
        orth: list[tuple[int, ...]] = []
        for sq in range(n2):
            f, r = sq % size, sq // size
            mine: list[tuple[int, ...]] = []
            for df, dr in _DIRECTIONS:
                ray = []
                x, y = f + df, r + dr
                while 0 <= x < size and 0 <= y < size:
                    ray.append(y * size + x)
                    x, y = x + df, y + dr
                if ray:
                    mine.append(tuple(ray))
            rays.append(tuple(mine))
            ring.append(tuple(ray[0] for ray in mine))
            orth.append(
                tuple(
                    (r + dr) * size + f + df
                    for df, dr in ((0, 1), (1, 0), (0, -1), (-1, 0))
                    if 0 <= f + df < size and 0 <= r + dr < size
                )
            )
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(rays)
        self.ring: tuple[tuple[int, ...], ...] = tuple(ring)
        self.orth: tuple[tuple[int, ...], ...] = tuple(orth)
        self.perimeter: frozenset[int] = frozenset(
            sq for sq in range(n2) if sq % size in (0, size - 1) or sq // size in (0, size - 1)
        )
        self.move_rows: list[list[Move | None] | None] = [None] * (n2 * n2)
        self.stat_moves: tuple[Move, ...] = tuple(Move(None, None, name) for name in self.names)
        self.code_rows: list[list[int] | None] = [None] * (n2 * n2)
        self.stat_codes: tuple[int, ...] = tuple(range(n2))
        # Per square, which squares share a line with it / touch it: a new stone or shooter can only
        # trap the shooters it is on a line with (current edition) or next to (classic edition).
        self.line_masks: tuple[bytes, ...] = tuple(
            bytes(1 if any(t in ray for ray in self.rays[sq]) else 0 for t in range(n2)) for sq in range(n2)
        )
        self.ring_masks: tuple[bytes, ...] = tuple(
            bytes(1 if t in self.ring[sq] else 0 for t in range(n2)) for sq in range(n2)
        )

    @classmethod
    def of(cls, size: int) -> Geometry:
        geo = cls._cache.get(size)
        if geo is None:
            geo = cls._cache[size] = cls(size)
        return geo

    def move_row(self, origin: int, dest: int) -> list[Move | None]:
        row: list[Move | None] = [None] * self.n2
        names = self.names
        o, d = names[origin], names[dest]
        for ray in self.rays[dest]:
            for t in ray:
                row[t] = Move(o, d, names[t])
        self.move_rows[origin * self.n2 + dest] = row
        return row

    def code_row(self, origin: int, dest: int) -> list[int]:
        base = (origin * self.n2 + dest) * self.n2
        row = [0] * self.n2
        for ray in self.rays[dest]:
            for t in ray:
                row[t] = base + t
        self.code_rows[origin * self.n2 + dest] = row
        return row

    def line(self, a: int, b: int) -> tuple[int, ...] | None:
        """Squares strictly between a and b when they share a line, else None."""
        size = self.size
        fa, ra, fb, rb = a % size, a // size, b % size, b // size
        df, dr = fb - fa, rb - ra
        if a == b or not (df == 0 or dr == 0 or abs(df) == abs(dr)):
            return None
        steps = max(abs(df), abs(dr))
        sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
        return tuple((ra + sr * k) * size + fa + sf * k for k in range(1, steps))


def board_geometry(size: int) -> Geometry:
    """The shared geometry of a ``size`` x ``size`` board (built once per size)."""
    return Geometry.of(size)


def _list_moves(
    cells: bytearray,
    geo: Geometry,
    pmax: int,
    shooters: Sequence[int],
    rows: Sequence[Sequence[object] | None],
    stat: Sequence[object],
    build: Callable[[int, int], Sequence[object]],
) -> list[object]:
    """Every legal move, as items of the given interned tables (Move objects or integer codes).

    Stationary shots come first, once per target square; then, per shooter and destination, the
    shots from the destination with the origin emptied. ``cells`` is restored before returning.
    """
    out: list[object] = []
    append = out.append
    rays = geo.rays
    n2 = geo.n2
    seen = bytearray(n2)
    for s in shooters:
        for ray in rays[s]:
            for t in ray:
                v = cells[t]
                if v == 0:
                    if not seen[t]:
                        seen[t] = 1
                        append(stat[t])
                elif v > pmax:
                    break
    for o in shooters:
        cells[o] = 0
        base = o * n2
        for ray in rays[o]:
            for d in ray:
                v = cells[d]
                if v == 0:
                    row = rows[base + d]
                    if row is None:
                        row = build(o, d)
                    for ray2 in rays[d]:
                        for t in ray2:
                            w = cells[t]
                            if w == 0:
                                append(row[t])
                            elif w > pmax:
                                break
                elif v > pmax:
                    break
        cells[o] = SHOOTER
    return out


def _count_moves(cells: bytearray, geo: Geometry, pmax: int, shooters: Sequence[int]) -> int:
    """The length of ``_list_moves`` without building it: perft's last ply."""
    rays = geo.rays
    seen = bytearray(geo.n2)
    for s in shooters:
        for ray in rays[s]:
            for t in ray:
                v = cells[t]
                if v == 0:
                    seen[t] = 1
                elif v > pmax:
                    break
    total = seen.count(1)
    for o in shooters:
        cells[o] = 0
        for ray in rays[o]:
            for d in ray:
                v = cells[d]
                if v == 0:
                    for ray2 in rays[d]:
                        for t in ray2:
                            w = cells[t]
                            if w == 0:
                                total += 1
                            elif w > pmax:
                                break
                elif v > pmax:
                    break
        cells[o] = SHOOTER
    return total


def reach(cells: Sequence[int], rays: tuple[tuple[int, ...], ...], pmax: int) -> list[int]:
    """Empty squares reachable along the given rays: a shooter's destinations, or a shot's targets.

    ``cells`` holds the cell codes, ``rays`` is one square's entry of ``Geometry.rays`` and
    ``pmax`` the highest passable code (``FastBoard.pmax``), so the caller decides which edition's
    blocking applies and whether the moving shooter's own square counts as empty.
    """
    out = []
    for ray in rays:
        for t in ray:
            v = cells[t]
            if v == 0:
                out.append(t)
            elif v > pmax:
                break
    return out


def _trapped(cells: Sequence[int], rays: tuple[tuple[int, ...], ...], pmax: int) -> bool:
    """A shooter is trapped when no ray reaches an empty square: then it can neither move nor shoot."""
    for ray in rays:
        for t in ray:
            v = cells[t]
            if v == 0:
                return False
            if v > pmax:
                break
    return True


def biggest_groups(cells: Sequence[int], orth: tuple[tuple[int, ...], ...], sq: int) -> tuple[int, int]:
    """Sizes of the biggest black and white groups orthogonally adjacent to ``sq``.

    This is what decides who claims a trapped shooter; ``orth`` is ``Geometry.orth``. A flood fill
    from the few neighbours, for when one square matters rather than the whole board.
    """
    best = [0, 0]
    done: set[int] = set()
    for start in orth[sq]:
        code = cells[start]
        if code < STONE_BLACK or start in done:
            continue
        size = 0
        stack = [start]
        done.add(start)
        while stack:
            cur = stack.pop()
            size += 1
            for nb in orth[cur]:
                if nb not in done and cells[nb] == code:
                    done.add(nb)
                    stack.append(nb)
        colour = code - STONE_BLACK
        if size > best[colour]:
            best[colour] = size
    return best[0], best[1]


def _resolve_claims(
    cells: bytearray,
    geo: Geometry,
    pmax: int,
    shooters: list[int],
    mover: int,
    scores: list[int],
) -> list[tuple[int, int, int, int]]:
    """Claim every trapped unclaimed shooter at once; returns (square, colour, black, white) in square order.

    Trapped status and groups are all judged on the board after the shot and before any claim
    stone goes down (claim stones belong to no group and, being on shooters, change no ray).
    """
    rays = geo.rays
    trapped = sorted(s for s in shooters if _trapped(cells, rays[s], pmax))
    if not trapped:
        return []
    claims = []
    for s in trapped:
        bg, wg = biggest_groups(cells, geo.orth, s)
        colour = BLACK if bg > wg else WHITE if wg > bg else 1 - mover
        claims.append((s, colour, bg, wg))
    for s, colour, _bg, _wg in claims:
        cells[s] = CLAIMED_BLACK + colour
        shooters.remove(s)
        scores[colour] += 1
    return claims


class KernelPosition(Protocol):
    """What ``FastBoard.from_position`` reads of a position: ``bot.rules.veletas.Position`` gives it.

    Written here so the kernel needs nothing of the layer built on it.
    """

    @property
    def _geo(self) -> Geometry: ...

    @property
    def _cells(self) -> bytes: ...

    @property
    def _classic(self) -> bool: ...

    @property
    def _to_move(self) -> int: ...

    @property
    def _shooters(self) -> tuple[int, ...]: ...

    @property
    def _scores(self) -> tuple[int, int]: ...

    @property
    def needed_to_win(self) -> int: ...

    @property
    def winner(self) -> protocol.Colour | None: ...


class FastBoard:
    """Mutable integer board for search: no strings, no validation, moves as integer codes.

    A move code is ``(origin * n2 + destination) * n2 + target`` for a moving shot and just
    ``target`` for a stationary one (so ``code < n2`` means stationary), squares being
    ``rank * size + file``. ``winner`` is -1 while the game goes on, else 0 (Black) or 1 (White);
    ``to_move`` is 0 or 1. Codes from ``legal_codes`` are the only ones ``play_code`` accepts
    safely: it trusts its input, which is what makes it cheap.

    Get one with ``Position.fast()``; ``cells`` holds EMPTY, SHOOTER, CLAIMED_BLACK,
    CLAIMED_WHITE, STONE_BLACK or STONE_WHITE per square, ``shooters`` the unclaimed ones,
    ``scores`` the claimed counts. ``copy()`` before exploring a branch; ``move_of``/``code_of``
    translate to and from public moves; ``key()`` identifies the position for a table.
    """

    __slots__ = ("_geo", "cells", "classic", "need", "pmax", "scores", "shooters", "to_move", "winner")

    EMPTY: ClassVar[int] = EMPTY
    SHOOTER: ClassVar[int] = SHOOTER
    CLAIMED_BLACK: ClassVar[int] = CLAIMED_BLACK
    CLAIMED_WHITE: ClassVar[int] = CLAIMED_WHITE
    STONE_BLACK: ClassVar[int] = STONE_BLACK
    STONE_WHITE: ClassVar[int] = STONE_WHITE

    def __init__(
        self,
        geo: Geometry,
        cells: bytearray,
        classic: bool,
        to_move: int,
        need: int,
        shooters: list[int] | None = None,
        scores: list[int] | None = None,
        winner: int = -1,
    ) -> None:
        self._geo = geo
        self.cells = cells
        self.classic = classic
        self.pmax = _pmax(classic)
        self.to_move = to_move
        self.need = need
        self.shooters = [i for i, c in enumerate(cells) if c == SHOOTER] if shooters is None else shooters
        if scores is None:
            scores = [cells.count(CLAIMED_BLACK), cells.count(CLAIMED_WHITE)]
        self.scores = scores
        self.winner = winner

    @classmethod
    def from_position(cls, position: KernelPosition) -> FastBoard:
        winner = -1 if position.winner is None else COLOURS.index(position.winner)
        return cls(
            position._geo,
            bytearray(position._cells),
            position._classic,
            position._to_move,
            position.needed_to_win,
            list(position._shooters),
            list(position._scores),
            winner,
        )

    @property
    def size(self) -> int:
        return self._geo.size

    @property
    def n2(self) -> int:
        return self._geo.n2

    # The board size's fixed geometry, shared read-only so search code need not rebuild it.

    @property
    def geometry(self) -> Geometry:
        """The shared tables of this board size (the same object as ``board_geometry(size)``)."""
        return self._geo

    @property
    def rays(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """Per square, its non-empty rays in the eight directions, nearest square first."""
        return self._geo.rays

    @property
    def orth(self) -> tuple[tuple[int, ...], ...]:
        """Per square, its orthogonal neighbours (the adjacency that makes groups)."""
        return self._geo.orth

    @property
    def ring(self) -> tuple[tuple[int, ...], ...]:
        """Per square, its neighbours in all eight directions."""
        return self._geo.ring

    @property
    def line_masks(self) -> tuple[bytes, ...]:
        """Per square, a byte per square: 1 where the two share a line."""
        return self._geo.line_masks

    @property
    def names(self) -> tuple[str, ...]:
        """Per square index, its name."""
        return self._geo.names

    def __reduce__(self) -> tuple[Callable[..., FastBoard], tuple[object, ...]]:
        return _restore_board, (
            self._geo.size,
            bytes(self.cells),
            self.classic,
            self.to_move,
            self.need,
            self.shooters,
            self.scores,
            self.winner,
        )

    def copy(self) -> FastBoard:
        return FastBoard(
            self._geo,
            bytearray(self.cells),
            self.classic,
            self.to_move,
            self.need,
            self.shooters[:],
            self.scores[:],
            self.winner,
        )

    def key(self) -> bytes:
        """Board and side to move as one hashable value (the edition is the caller's to keep)."""
        return bytes(self.cells) + bytes((self.to_move,))

    def legal_codes(self) -> list[int]:
        """Every legal move as a code; empty once the game is won."""
        if self.winner >= 0:
            return []
        geo = self._geo
        return _list_moves(  # type: ignore[return-value]
            self.cells, geo, self.pmax, self.shooters, geo.code_rows, geo.stat_codes, geo.code_row
        )

    def count_moves(self) -> int:
        if self.winner >= 0:
            return 0
        return _count_moves(self.cells, self._geo, self.pmax, self.shooters)

    def play_code(self, code: int) -> list[tuple[int, int, int, int]]:
        """Apply a legal move code in place; returns the claims it made as (square, colour, black, white)."""
        n2 = self._geo.n2
        cells = self.cells
        if code >= n2:
            od, target = divmod(code, n2)
            origin, dest = divmod(od, n2)
            cells[origin] = EMPTY
            cells[dest] = SHOOTER
            shooters = self.shooters
            shooters[shooters.index(origin)] = dest
        else:
            target = code
        mover = self.to_move
        cells[target] = STONE_BLACK + mover
        claims = _resolve_claims(cells, self._geo, self.pmax, self.shooters, mover, self.scores)
        if claims:
            need = self.need
            if self.scores[mover] >= need:
                self.winner = mover
            elif self.scores[1 - mover] >= need:
                self.winner = 1 - mover
        self.to_move = 1 - mover
        return claims

    def random_playout(self, rnd: Callable[[], float] = random.random, plies: int = -1) -> int:
        """Play random moves in place until someone wins; returns the winner (0 Black, 1 White, -1 stuck).

        The policy is the one the AI samples with: a uniformly random unclaimed shooter, then
        uniformly one of its destinations or staying put, then a uniformly random target from there.
        ``rnd`` is a ``random.random``-like function so a seeded ``Random(...).random`` reproduces a run.
        A non-negative ``plies`` stops the game after that many turns (then -1 unless someone won):
        search scores such cut playouts statically, which is cheaper and less noisy than playing on.
        Claims are checked only for shooters on a line with (current edition) or next to (classic)
        the squares that changed, which is what makes a turn cheap.
        """
        cells = self.cells
        geo = self._geo
        rays = geo.rays
        orth = geo.orth
        pmax = self.pmax
        shooters = self.shooters
        scores = self.scores
        need = self.need
        mover = self.to_move
        winner = self.winner
        masks = geo.ring_masks if self.classic else geo.line_masks
        while winner < 0 and plies != 0:
            count = len(shooters)
            if count == 0:
                break
            origin = shooters[int(rnd() * count)]
            cells[origin] = EMPTY
            dests = []
            for ray in rays[origin]:
                for d in ray:
                    v = cells[d]
                    if v == 0:
                        dests.append(d)
                    elif v > pmax:
                        break
            k = int(rnd() * (len(dests) + 1))
            src = dests[k] if k < len(dests) else origin
            targets = []
            for ray in rays[src]:
                for t in ray:
                    v = cells[t]
                    if v == 0:
                        targets.append(t)
                    elif v > pmax:
                        break
            if not targets:
                # Only a trapped shooter left unclaimed by a hand-written position gets here.
                cells[origin] = SHOOTER
                if all(_trapped(cells, rays[s], pmax) for s in shooters):
                    break
                continue
            plies -= 1
            cells[src] = SHOOTER
            if src != origin:
                shooters[shooters.index(origin)] = src
            target = targets[int(rnd() * len(targets))]
            cells[target] = STONE_BLACK + mover
            trapped = None
            for s in shooters:
                mask = masks[s]
                if s != src and not mask[target] and not mask[src]:
                    continue
                free = False
                for ray in rays[s]:
                    for t in ray:
                        v = cells[t]
                        if v == 0:
                            free = True
                            break
                        if v > pmax:
                            break
                    if free:
                        break
                if not free:
                    if trapped is None:
                        trapped = [s]
                    else:
                        trapped.append(s)
            if trapped is not None:
                won = []
                for s in trapped:
                    bg, wg = biggest_groups(cells, orth, s)
                    won.append(BLACK if bg > wg else WHITE if wg > bg else 1 - mover)
                for s, colour in zip(trapped, won, strict=True):
                    cells[s] = CLAIMED_BLACK + colour
                    shooters.remove(s)
                    scores[colour] += 1
                if scores[mover] >= need:
                    winner = mover
                elif scores[1 - mover] >= need:
                    winner = 1 - mover
            mover = 1 - mover
        self.to_move = mover
        self.winner = winner
        return winner

    def move_of(self, code: int) -> Move:
        """The public Move for a code (for showing a search result to a player)."""
        geo = self._geo
        n2 = geo.n2
        if code < n2:
            return geo.stat_moves[code]
        od, target = divmod(code, n2)
        origin, dest = divmod(od, n2)
        row = geo.move_rows[od] or geo.move_row(origin, dest)
        move = row[target]
        assert move is not None
        return move

    def code_of(self, move: Move) -> int:
        """The code of a public Move on this board size (validity is not checked)."""
        geo = self._geo
        target = geo.index[move.target]
        if move.destination is None or move.shooter is None:
            return target
        return (geo.index[move.shooter] * geo.n2 + geo.index[move.destination]) * geo.n2 + target


def _restore_board(
    size: int, cells: bytes, classic: bool, to_move: int, need: int, shooters: list[int], scores: list[int], winner: int
) -> FastBoard:
    return FastBoard(Geometry.of(size), bytearray(cells), classic, to_move, need, shooters, scores, winner)


# ---------------------------------------------------------------------------------------------
# Moves.
# ---------------------------------------------------------------------------------------------

_SQ = r"[a-z][0-9]{1,2}"
_MOVE_RE = re.compile(rf"(?:({_SQ})(?:-({_SQ}))?[/x])?({_SQ})")
_MOVE_FORMS = "expected a shot like g2, or a move like d4-g7/g2 (shooter-destination/target)"


@dataclass(frozen=True, eq=False, slots=True)
class Move:
    """One turn of play: an optional shooter move and the compulsory shot.

    A stationary shot keeps ``destination`` None; ``shooter`` may still name who fired (from
    ``d4/g2``) but that changes nothing, so equality and hashing go by the canonical text,
    where a stationary shot is just its target.
    """

    shooter: str | None
    destination: str | None
    target: str
    _text: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.destination is not None and self.shooter is None:
            example = f"d4-{self.destination}/g2"
            raise IllegalMove(
                f"a move to {self.destination} must name the shooter that moves, like {example}",
                "rules.name_shooter",
                square=self.destination,
                example=example,
            )
        text = self.target if self.destination is None else f"{self.shooter}-{self.destination}/{self.target}"
        object.__setattr__(self, "_text", text)

    @property
    def is_stationary(self) -> bool:
        return self.destination is None

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Move({self._text!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self._text == other._text
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._text)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read move notation, forgiving about case, spaces, ``x`` for ``/`` and dash variants.

        Only the syntax is checked here; ``Position.parse_move`` checks it against a board.
        """
        cleaned = "".join(text.split()).lower().replace("–", "-").replace("—", "-")
        m = _MOVE_RE.fullmatch(cleaned)
        if m is None:
            shown = quote(text)
            if re.fullmatch(rf"{_SQ}-{_SQ}", cleaned):
                example = f"{cleaned}/g2"
                raise IllegalMove(
                    f"{shown} has no shot: a move must end with /target, like {example}",
                    "rules.no_shot",
                    text=shown,
                    move=cleaned,
                    example=example,
                )
            raise IllegalMove(
                f"{shown} is not a move: {_MOVE_FORMS}", "rules.not_a_move", text=shown, shot="g2", move="d4-g7/g2"
            )
        shooter, dest, target = m.group(1), m.group(2), m.group(3)
        for sq in (shooter, dest, target):
            if sq is not None and sq[1] == "0":
                raise IllegalMove(f"{quote(sq)} is not a square: ranks start at 1", "rules.rank_zero", text=quote(sq))
        if dest is not None and dest == shooter:
            raise IllegalMove(
                f"{shooter}-{dest}: a shooter that moves must leave its square; "
                f"to shoot without moving write just the target, like {target}",
                "rules.stay_put",
                shooter=shooter,
                square=target,
            )
        return cls(shooter, dest, target)


@dataclass(frozen=True)
class Claim:
    """A shooter claimed by a move, with the adjacent group sizes that decided it."""

    square: str
    colour: str
    black_group: int
    white_group: int
