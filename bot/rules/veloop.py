"""Veloop (Square), Dale Walton's placement-and-swap game, as Ludii 1.3.13 runs it.

The rules are those of VELOOP.md: every move puts a stone a knight's leap from one of your
stones (the *support*) and swaps the two cells between them, which must show different
things; the game ends after the first move that leaves any stone fenced in (*confined*).

Positions are immutable values. The hot paths (perft, random playouts) run on flat mutable
lists with a make/unmake discipline and an incremental confinement test, because a random
playout is the unit of work of the AI and must stay cheap in pure Python; the immutable
``Position`` uses the same move generator and move applier, and checks confinement with a
plain flood fill, so the two confinement tests cross-check each other in the test suite.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from bot.rules import protocol as game_protocol
from bot.rules.common import RecordError, ending_headers, parse_square, quote, read_record, square_name
from bot.rules.common import write_record as _write_record_text
from bot.rules.protocol import COLOURS as _COLOURS
from bot.rules.protocol import Colour, Outcome, Phase, Seat, Termination

__all__ = [
    "COLOURS",
    "KIND",
    "PASS",
    "PROTOCOLS",
    "SIZES",
    "Confined",
    "Game",
    "IllegalMove",
    "Move",
    "Position",
    "Replay",
    "Scores",
    "VeloopKind",
    "cli_perft",
    "cli_play",
    "cli_replay",
    "divide",
    "perft",
    "playout",
    "random_playout",
    "replay",
    "result_text",
    "write_record",
]

SIZES: Final = (5, 6, 8, 12)
PROTOCOLS: Final = ("122", "alternating")
COLOURS: Final = ("black", "white")

EMPTY: Final = 0
BLACK: Final = 1
WHITE: Final = 2
_COLOUR_NAME: Final = {BLACK: "black", WHITE: "white"}
_STONE_CHAR: Final = {BLACK: "b", WHITE: "w"}
_CHAR_STONE: Final = {"b": BLACK, "w": WHITE}

# The start stones: Black just below the centre, White just above it (VELOOP.md's table).
_START: Final = {5: ("c2", "c3"), 6: ("d3", "d4"), 8: ("e4", "e5"), 12: ("g6", "g7")}

# Knight leaps as (file step, rank step), clockwise from "up and right".
_LEAPS: Final = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_KING: Final = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def _one_piece(mask: int) -> bool:
    """Whether the neighbours in `mask` (bits in _KING's turning order) are linked by king steps among themselves.

    Consecutive neighbours touch, and so do two orthogonal neighbours a quarter turn apart
    (north and east touch diagonally even when north-east is blocked).
    """
    bits = [k for k in range(8) if mask >> k & 1]
    if not bits:
        return True
    reached = {bits[0]}
    stack = [bits[0]]
    while stack:
        k = stack.pop()
        steps = [(k + 1) % 8, (k - 1) % 8] + ([(k + 2) % 8, (k - 2) % 8] if k % 2 == 0 else [])
        for j in steps:
            if mask >> j & 1 and j not in reached:
                reached.add(j)
                stack.append(j)
    return len(reached) == len(bits)


# For each pattern of passable neighbours: blocking the middle cell cannot cut any two of them apart.
_ONE_PIECE: Final = tuple(_one_piece(mask) for mask in range(256))


class IllegalMove(game_protocol.IllegalMove):
    """A move the rules refuse; the message tells the player exactly why."""


def _swap_offsets(dx: int, dy: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two cells neighbouring both ends of a knight's leap, as offsets from the support."""
    if abs(dx) == 1:
        return (0, dy // 2), (dx, dy // 2)
    return (dx // 2, 0), (dx // 2, dy)


class _Geometry:
    """Everything about a board size that never changes, computed once per size.

    Cells are indexed rank-major (index = rank * size + file), so a1 is 0 and the string
    form's top rank is the last row.
    """

    __slots__ = ("by_name", "circle", "leaps", "n", "names", "nbrs", "order", "outside", "ring", "size", "swaps")

    def __init__(self, size: int) -> None:
        self.size = size
        self.n = size * size
        self.names: tuple[str, ...] = tuple(square_name(i % size, i // size) for i in range(self.n))
        self.by_name: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self.ring: tuple[bool, ...] = tuple(
            i % size in (0, size - 1) or i // size in (0, size - 1) for i in range(self.n)
        )
        # Square order of the notation contract: file first, then rank.
        self.order: tuple[int, ...] = tuple(sorted(range(self.n), key=lambda i: (i % size, i // size)))
        leaps: list[tuple[tuple[int, int, int], ...]] = []
        swaps: dict[tuple[int, int], tuple[int, int]] = {}
        nbrs: list[tuple[int, ...]] = []
        circle: list[tuple[tuple[int, int], ...]] = []
        outside: list[int] = []
        for i in range(self.n):
            f, r = i % size, i // size
            row: list[tuple[int, int, int]] = []
            for dx, dy in _LEAPS:
                tf, tr = f + dx, r + dy
                if 0 <= tf < size and 0 <= tr < size:
                    (ax, ay), (bx, by) = _swap_offsets(dx, dy)
                    t = tr * size + tf
                    a = (r + ay) * size + f + ax
                    b = (r + by) * size + f + bx
                    row.append((t, a, b))
                    swaps[(t, i)] = (a, b)
            leaps.append(tuple(row))
            around = [(r + dy) * size + f + dx for dx, dy in _KING if 0 <= f + dx < size and 0 <= r + dy < size]
            # Nearest-to-the-edge first, so a search for a way out heads for the ring at once.
            around.sort(key=lambda j: min(j % size, j // size, size - 1 - j % size, size - 1 - j // size))
            nbrs.append(tuple(around))
            # The 8 neighbours in turning order as (bit, cell), and the bits of those off the board.
            ring_of: list[tuple[int, int]] = []
            off = 0
            for k, (dx, dy) in enumerate(_KING):
                if 0 <= f + dx < size and 0 <= r + dy < size:
                    ring_of.append((1 << k, (r + dy) * size + f + dx))
                else:
                    off |= 1 << k
            circle.append(tuple(ring_of))
            outside.append(off)
        self.circle: tuple[tuple[tuple[int, int], ...], ...] = tuple(circle)
        self.outside: tuple[int, ...] = tuple(outside)
        self.leaps: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(leaps)
        self.swaps = swaps
        self.nbrs: tuple[tuple[int, ...], ...] = tuple(nbrs)


_GEOMETRY: Final = {size: _Geometry(size) for size in SIZES}


def _geometry(size: int) -> _Geometry:
    geo = _GEOMETRY.get(size)
    if geo is None:
        boards = ", ".join(f"{s}×{s}" for s in SIZES)
        raise ValueError(f"Veloop is played on {boards} boards, not {size}×{size}")
    return geo


def _check_protocol(protocol: str) -> str:
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {quote(protocol)}: expected one of {', '.join(PROTOCOLS)}")
    return protocol


# --------------------------------------------------------------------------- the rules kernel
# These functions work on flat lists `top` (what each cell shows) and `under` (the stone
# beneath a stack's top, or EMPTY). They are the single source of the rules.


def _generate(top: Sequence[int], under: Sequence[int], geo: _Geometry, colour: int) -> list[tuple[int, int, int, int]]:
    """Every legal (target, support, swap a, swap b) for `colour`; empty when only a pass remains.

    Empty targets are compulsory whenever there is one, so the over-placements are only
    looked for when no empty target exists anywhere.
    """
    leaps = geo.leaps
    out: list[tuple[int, int, int, int]] = []
    supports = [s for s in range(geo.n) if top[s] == colour]
    for s in supports:
        for t, a, b in leaps[s]:
            if top[t] == EMPTY and top[a] != top[b]:
                out.append((t, s, a, b))
    if out:
        return out
    opp = 3 - colour
    for s in supports:
        for t, a, b in leaps[s]:
            if top[t] == opp and under[t] == EMPTY and top[a] != top[b]:
                out.append((t, s, a, b))
    return out


def _has_empty_target(top: Sequence[int], geo: _Geometry, colour: int) -> tuple[int, int] | None:
    """One legal (target, support) with an empty target, if any: the witness of compulsory empty placement."""
    leaps = geo.leaps
    for s in range(geo.n):
        if top[s] == colour:
            for t, a, b in leaps[s]:
                if top[t] == EMPTY and top[a] != top[b]:
                    return t, s
    return None


def _apply(top: list[int], under: list[int], t: int, a: int, b: int, colour: int) -> None:
    """Place on `t`, then swap the top stones of `a` and `b` (a lone top stone moves, uncovering what it stood on)."""
    if top[t]:
        under[t] = top[t]
    top[t] = colour
    ta = top[a]
    tb = top[b]
    if ta and tb:
        top[a] = tb
        top[b] = ta
    elif ta:
        top[b] = ta
        top[a] = under[a]
        under[a] = EMPTY
    else:
        top[a] = tb
        top[b] = under[b]
        under[b] = EMPTY


def _confined_cells(top: Sequence[int], geo: _Geometry) -> tuple[list[int], list[int]]:
    """The confined cells of Black and of White, by a flood fill from the ring (the plain, obviously right check)."""
    result: list[list[int]] = []
    for colour in (BLACK, WHITE):
        opp = 3 - colour
        seen = [False] * geo.n
        stack = [i for i in range(geo.n) if geo.ring[i] and top[i] != opp]
        for i in stack:
            seen[i] = True
        while stack:
            i = stack.pop()
            for j in geo.nbrs[i]:
                if not seen[j] and top[j] != opp:
                    seen[j] = True
                    stack.append(j)
        result.append([i for i in range(geo.n) if top[i] == colour and not seen[i]])
    return result[0], result[1]


def _escapes(top: Sequence[int], geo: _Geometry, start: int, opp: int, seen: list[int]) -> bool:
    """Whether the region of cells not showing `opp` around `start` reaches the ring or holds no stone to confine.

    `seen` belongs to one side and is shared across the searches of one check: 2 marks a
    region already found to escape, 3 one that is shut in but holds no stone, so each
    region is searched at most once. The neighbour lists are ordered edge-first, which
    makes the common case (an open board) a short walk straight to the ring.
    """
    ring = geo.ring
    if ring[start]:
        seen[start] = 2
        return True
    nbrs = geo.nbrs
    own = 3 - opp
    seen[start] = 1
    visited = [start]
    stack = [start]
    holds_stone = top[start] == own
    while stack:
        for j in nbrs[stack.pop()]:
            state = seen[j]
            if state == 2 or (state == 0 and ring[j] and top[j] != opp):
                for k in visited:
                    seen[k] = 2
                return True
            if state or top[j] == opp:
                continue
            seen[j] = 1
            visited.append(j)
            stack.append(j)
            if top[j] == own:
                holds_stone = True
    if holds_stone:
        return False
    for k in visited:
        seen[k] = 3
    return True


def _confines(top: Sequence[int], geo: _Geometry, t: int, s: int, a: int, b: int) -> bool:
    """Whether the move `t`<`s` (swapping `a` and `b`) left some stone confined, given none was before.

    Only the three changed cells can have cut a way out or put a stone somewhere shut in,
    so each side is judged around them alone (see _side_confined). The mover's new stones
    need no search when they touch the support: it is an old stone, so free once the
    mover's cut cells are cleared, and both swap cells touch it, as does the target through
    any swap cell not showing the enemy.
    """
    mover = top[t]
    other = 3 - mover
    ta = top[a]
    tb = top[b]
    changed = (t, a, b)
    # Cells showing the mover cut the other side's ways (both swap cells can, when a stack of
    # two of the mover's stones hands its top to an empty neighbour), and the other way round.
    movers = (t, a, b) if ta == tb == mover else (t, a) if ta == mover else (t, b) if tb == mover else (t,)
    if ta == tb == other:
        return _side_confined(top, geo, other, movers, (a, b), changed) or _side_confined(
            top, geo, mover, (a, b), (t,), changed
        )
    others = (a,) if ta == other else (b,) if tb == other else ()
    return _side_confined(top, geo, other, movers, others, changed) or _side_confined(
        top, geo, mover, others, (), changed
    )


def _side_confined(
    top: Sequence[int],
    geo: _Geometry,
    side: int,
    cut: tuple[int, ...],
    fresh: tuple[int, ...],
    changed: tuple[int, int, int],
) -> bool:
    """Whether a stone of `side` is confined now that the cells `cut` show the enemy and `fresh` show `side`.

    A stone of `side` that was free can only have lost its way out through a cut cell, and
    then it is in the region of a passable neighbour of that cell. Blocking the cuts one by
    one, a cut whose passable neighbours are all linked around it (a table lookup) cuts
    nothing; only when that fails are the neighbours' regions searched. A stone that has
    just arrived is free on the ring or beside an old stone of its side (those are all free
    by then); otherwise its region is searched.
    """
    enemy = 3 - side
    circle = geo.circle
    outside = geo.outside
    seen: list[int] | None = None
    for k, c in enumerate(cut):
        mask = outside[c]
        later = cut[k + 1 :]
        for bit, j in circle[c]:
            if top[j] != enemy or j in later:
                mask |= bit
        if not _ONE_PIECE[mask]:
            seen = [0] * geo.n
            nbrs = geo.nbrs
            for c2 in cut:
                for j in nbrs[c2]:
                    if top[j] != enemy and seen[j] == 0 and not _escapes(top, geo, j, enemy, seen):
                        return True
            break
    ring = geo.ring
    for c in fresh:
        if ring[c]:
            continue
        if any(top[j] == side and j not in changed for j in geo.nbrs[c]):
            continue
        if seen is None:
            seen = [0] * geo.n
        if seen[c] == 0 and not _escapes(top, geo, c, enemy, seen):
            return True
    return False


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class Move:
    """A move: the target, then the support; both None for a forced pass.

    The swap squares follow from the two cells and are never written; over-placements are
    written like any other move.
    """

    target: str | None = None
    support: str | None = None

    @property
    def is_pass(self) -> bool:
        return self.target is None

    @property
    def swap_squares(self) -> tuple[str, str] | None:
        """The two cells this move swaps, in square order (the renderer marks them); None for a pass or a non-leap."""
        if self.target is None or self.support is None:
            return None
        if _NAME_RE.fullmatch(self.target) is None or _NAME_RE.fullmatch(self.support) is None:
            return None
        tf, tr = ord(self.target[0]) - 97, int(self.target[1:]) - 1
        sf, sr = ord(self.support[0]) - 97, int(self.support[1:]) - 1
        dx, dy = tf - sf, tr - sr
        if sorted((abs(dx), abs(dy))) != [1, 2]:
            return None
        (ax, ay), (bx, by) = _swap_offsets(dx, dy)
        a, b = (sf + ax, sr + ay), (sf + bx, sr + by)
        first, second = sorted((a, b))
        return square_name(*first), square_name(*second)

    def describe(self) -> str:
        """The move with its swap in words, for messages: 'f6<e4, swaps e5 and f5'."""
        swap = self.swap_squares
        return str(self) if swap is None else f"{self}, swaps {swap[0]} and {swap[1]}"

    def __str__(self) -> str:
        return "pass" if self.target is None else f"{self.target}<{self.support}"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read a move written `f6<e4`, `F6-E4`, `f6 e4` or `pass`, forgiving case and spaces.

        The target alone (`f6`) needs a position to resolve, so it is refused here; use
        `Position.parse_move` for it.
        """
        target, support = _split_move(text)
        if target is not None and support is None:
            raise game_protocol.Refused(
                f"{quote(text)} names only a target: the support is needed too, as in f6<e4",
                "rules.veloop_target_only",
                text=quote(text),
            )
        return cls(target, support)


PASS: Final = Move()

_NAME_RE: Final = re.compile(r"[a-z][1-9][0-9]?")
_SQ = r"([a-z])\s*([0-9]{1,2})"
_MOVE_RE: Final = re.compile(rf"{_SQ}\s*(?:[<-]|\s)\s*{_SQ}")
_TARGET_RE: Final = re.compile(_SQ)
_EXPECTED: Final = "expected a target and its support like f6<e4 (or f6 e4, f6-e4), or the target alone like f6"


def _split_move(text: str) -> tuple[str | None, str | None]:
    """Target and support names of a typed move (support None when only the target was typed; both None for pass)."""
    cleaned = text.strip().lower()
    if cleaned == "pass":
        return None, None
    m = _MOVE_RE.fullmatch(cleaned)
    if m is not None:
        return m.group(1) + m.group(2), m.group(3) + m.group(4)
    m = _TARGET_RE.fullmatch(cleaned)
    if m is not None:
        return m.group(1) + m.group(2), None
    raise game_protocol.Refused(
        f"{quote(text)} is not a move: {_EXPECTED}",
        "rules.veloop_not_a_move",
        text=quote(text),
        move="f6<e4",
        spaced="f6 e4",
        dashed="f6-e4",
        target="f6",
    )


class Scores(NamedTuple):
    """Each side's score: minus the number of its confined stones (0 while the game runs)."""

    black: int
    white: int


class Confined(NamedTuple):
    """The cells whose top stone is confined, per colour, in square order."""

    black: tuple[str, ...]
    white: tuple[str, ...]


_set = object.__setattr__  # how an immutable Position fills its slots, at birth and for its caches

_RANK_TOKEN: Final = re.compile(r"\d+|[bw]|\([bw][bw]\)")
_TURN_RE: Final = re.compile(r"([12])/([12])")


class Position:
    """A Veloop position: the stacks, who moves, where in the turn, and the lone passes just made.

    Immutable, hashable and comparable; its protocol ("122" or "alternating") travels with
    it because the same string continues differently under each.
    """

    __slots__ = ("_confined", "_key", "_moves", "_top", "_under", "lone_passes", "plies", "ply", "protocol", "size")

    size: int
    ply: int
    plies: int
    lone_passes: int
    protocol: str
    _top: tuple[int, ...]
    _under: tuple[int, ...]
    _key: tuple[int, str, tuple[int, ...], tuple[int, ...], int, int, int, int]
    _confined: tuple[list[int], list[int]] | None
    _moves: tuple[Move, ...] | None

    def __init__(
        self,
        size: int,
        top: Sequence[int],
        under: Sequence[int],
        colour: int,
        ply: int = 1,
        plies: int = 1,
        lone_passes: int = 0,
        protocol: str = "122",
    ) -> None:
        """Build from raw cells; prefer `start` and `from_string`, which validate what they are given."""
        top_cells: tuple[int, ...] = tuple(top)
        under_cells: tuple[int, ...] = tuple(under)
        _set(self, "size", size)
        _set(self, "_top", top_cells)
        _set(self, "_under", under_cells)
        _set(self, "ply", ply)
        _set(self, "plies", plies)
        _set(self, "lone_passes", lone_passes)
        _set(self, "protocol", protocol)
        _set(self, "_key", (size, protocol, top_cells, under_cells, colour, ply, plies, lone_passes))
        # Derived facts, worked out at most once; they follow from the key, so equality and hash ignore them.
        _set(self, "_confined", None)
        _set(self, "_moves", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Position is immutable: play() returns a new one")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Position is immutable")

    def __reduce__(self) -> tuple[type[Position], tuple[object, ...]]:
        size, protocol, top, under, colour, ply, plies, lone = self._key
        return Position, (size, top, under, colour, ply, plies, lone, protocol)

    # ---- construction

    @classmethod
    def start(cls, size: int = 8, protocol: str = "122") -> Position:
        """The start of a game: one stone each beside the centre, Black to play a single-ply turn."""
        geo = _geometry(size)
        _check_protocol(protocol)
        top = [EMPTY] * geo.n
        black, white = _START[size]
        top[geo.by_name[black]] = BLACK
        top[geo.by_name[white]] = WHITE
        return cls(size, top, [EMPTY] * geo.n, BLACK, 1, 1, 0, protocol)

    @classmethod
    def from_string(cls, text: str, protocol: str = "122") -> Position:
        """Read the position string of VELOOP.md; a bad string raises ValueError saying what is wrong."""
        _check_protocol(protocol)
        fields = text.split()
        if len(fields) != 4:
            raise ValueError(
                f"a position has 4 fields (ranks, side, ply k/m, lone passes), got {len(fields)}: {quote(text)}"
            )
        board, side, turn, lone = fields
        ranks = board.split("/")
        size = len(ranks)
        geo = _geometry(size)
        top = [EMPTY] * geo.n
        under = [EMPTY] * geo.n
        for row, rank_text in enumerate(ranks):
            rank = size - 1 - row
            file = 0
            pos = 0
            while pos < len(rank_text):
                m = _RANK_TOKEN.match(rank_text, pos)
                if m is None:
                    raise ValueError(
                        f"rank {rank + 1} ({quote(rank_text)}): unexpected {quote(rank_text[pos])}; "
                        "expected a number of empty cells, b, w or a stack like (wb)"
                    )
                token = m.group()
                pos = m.end()
                if token.isdigit():
                    if token.startswith("0"):
                        raise ValueError(f"rank {rank + 1} ({quote(rank_text)}): an empty run is a positive number")
                    file += int(token)
                    continue
                if file >= size:
                    raise ValueError(f"rank {rank + 1} ({quote(rank_text)}) has more than {size} cells")
                i = rank * size + file
                if len(token) == 1:
                    top[i] = _CHAR_STONE[token]
                else:
                    under[i] = _CHAR_STONE[token[1]]
                    top[i] = _CHAR_STONE[token[2]]
                file += 1
            if file != size:
                raise ValueError(f"rank {rank + 1} ({quote(rank_text)}) has {file} cells, not {size}")
        if side not in ("b", "w"):
            raise ValueError(f"the side to move is b or w, not {quote(side)}")
        m = _TURN_RE.fullmatch(turn)
        if m is None or int(m.group(1)) > int(m.group(2)):
            raise ValueError(f"the ply of the turn is written 1/1, 1/2 or 2/2, not {quote(turn)}")
        ply, plies = int(m.group(1)), int(m.group(2))
        if protocol == "alternating" and plies != 1:
            raise ValueError(f"under the alternating protocol every turn is one ply (1/1), not {turn}")
        if lone not in ("0", "1", "2"):
            raise ValueError(f"the lone passes just made are 0, 1 or 2, not {quote(lone)}")
        if ply == 2 and lone != "0":
            raise ValueError("a second ply follows a placement, so no lone pass can be pending (the last field is 0)")
        return cls(size, top, under, _CHAR_STONE[side], ply, plies, int(lone), protocol)

    def __str__(self) -> str:
        size = self.size
        rows: list[str] = []
        for rank in range(size - 1, -1, -1):
            parts: list[str] = []
            run = 0
            for file in range(size):
                i = rank * size + file
                t = self._top[i]
                if t == EMPTY:
                    run += 1
                    continue
                if run:
                    parts.append(str(run))
                    run = 0
                u = self._under[i]
                parts.append(_STONE_CHAR[t] if u == EMPTY else f"({_STONE_CHAR[u]}{_STONE_CHAR[t]})")
            if run:
                parts.append(str(run))
            rows.append("".join(parts))
        side = _STONE_CHAR[self._key[4]]
        return f"{'/'.join(rows)} {side} {self.ply}/{self.plies} {self.lone_passes}"

    def __repr__(self) -> str:
        return f"Position.from_string({str(self)!r}, protocol={self.protocol!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    # ---- reading the board

    @property
    def to_move(self) -> str:
        """'black' or 'white': who plays the next ply (after the last ply of a finished game, who would have)."""
        return _COLOUR_NAME[self._key[4]]

    def stack(self, square: str) -> tuple[str, ...]:
        """The stones on a cell, bottom to top: (), ('black',), or ('white', 'black') for black on white."""
        i = self._index(square)
        top, under = self._top[i], self._under[i]
        if top == EMPTY:
            return ()
        if under == EMPTY:
            return (_COLOUR_NAME[top],)
        return _COLOUR_NAME[under], _COLOUR_NAME[top]

    def shows(self, square: str) -> str | None:
        """The colour of the top stone of a cell, the only one that counts; None when empty."""
        t = self._top[self._index(square)]
        return None if t == EMPTY else _COLOUR_NAME[t]

    def stones(self) -> dict[str, tuple[str, ...]]:
        """Every occupied cell and its stack (bottom to top), for drawing the board."""
        geo = _geometry(self.size)
        return {geo.names[i]: self.stack(geo.names[i]) for i in geo.order if self._top[i] != EMPTY}

    def _index(self, square: str) -> int:
        f, r = parse_square(square, self.size)
        return r * self.size + f

    def _confinement(self) -> tuple[list[int], list[int]]:
        confined = self._confined
        if confined is None:
            confined = _confined_cells(self._top, _geometry(self.size))
            _set(self, "_confined", confined)
        return confined

    @property
    def confined(self) -> Confined:
        geo = _geometry(self.size)
        black, white = self._confinement()
        key = geo.order.index
        return Confined(
            tuple(geo.names[i] for i in sorted(black, key=key)),
            tuple(geo.names[i] for i in sorted(white, key=key)),
        )

    @property
    def scores(self) -> Scores:
        black, white = self._confinement()
        return Scores(-len(black), -len(white))

    @property
    def result(self) -> str | None:
        """'black', 'white' or 'draw' once the game is over, else None: fewer confined stones wins."""
        if self.lone_passes >= 2:
            return "draw"
        black, white = self._confinement()
        if not black and not white:
            return None
        if len(black) == len(white):
            return "draw"
        return "black" if len(black) < len(white) else "white"

    @property
    def is_over(self) -> bool:
        return self.result is not None

    # ---- moves

    def legal_moves(self) -> tuple[Move, ...]:
        """Every legal (target, support) pair in square order of the target, then of the support.

        A player with no move gets the single move `pass`; a finished game has none.
        """
        moves = self._moves
        if moves is None:
            if self.is_over:
                moves = ()
            else:
                geo = _geometry(self.size)
                rank = {sq: k for k, sq in enumerate(geo.order)}
                found = _generate(self._top, self._under, geo, self._key[4])
                found.sort(key=lambda m: (rank[m[0]], rank[m[1]]))
                names = geo.names
                moves = tuple(Move(names[t], names[s]) for t, s, _, _ in found) if found else (PASS,)
            _set(self, "_moves", moves)
        return moves

    def parse_move(self, text: str) -> Move:
        """Read a typed move, resolving a lone target when exactly one legal move has it.

        Squares are checked against the board; whether the move is legal is `play`'s job.
        """
        try:
            target, support = _split_move(text)
        except game_protocol.Refused as exc:
            example = next((m for m in self.legal_moves() if not m.is_pass), None)
            if example is None or exc.key != "rules.veloop_not_a_move":
                raise
            supports = Counter(m.target for m in self.legal_moves())
            alone = next((target for target, count in supports.items() if count == 1), example.target)
            forms = {"move": str(example), "spaced": f"{example.target} {example.support}"}
            forms |= {"dashed": f"{example.target}-{example.support}", "target": str(alone)}
            raise IllegalMove(
                f"{exc.data['text']} is not a move: expected a target and its support like {forms['move']} "
                f"(or {forms['spaced']}, {forms['dashed']}), or the target alone like {forms['target']}",
                exc.key,
                text=exc.data["text"],
                **forms,
            ) from None
        if target is None:
            return PASS
        geo = _geometry(self.size)
        target = geo.names[self._index(target)]
        if support is not None:
            return Move(target, geo.names[self._index(support)])
        matches = [m for m in self.legal_moves() if m.target == target]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise IllegalMove(f"no legal move places on {target}", "rules.veloop_no_move_on", square=target)
        options = " or ".join(str(m) for m in matches)
        raise IllegalMove(
            f"{target} can be played from {len(matches)} supports: write {options}",
            "rules.veloop_which_support",
            square=target,
            count=len(matches),
            options=tuple(f"`{m}`" for m in matches),
        )

    def swap_squares(self, move: Move | str) -> tuple[str, str] | None:
        """The two cells a move swaps, in square order; None for a pass."""
        return (self.parse_move(move) if isinstance(move, str) else move).swap_squares

    def play(self, move: Move | str) -> Position:
        """The position after a move (a `Move` or its text); an illegal move raises IllegalMove saying why."""
        if self.is_over:
            raise IllegalMove("the game is over", "rules.game_over")
        try:
            if isinstance(move, str):
                move = self.parse_move(move)
            if move.is_pass:
                legal = self.legal_moves()
                if not legal[0].is_pass:
                    raise IllegalMove(
                        f"you may not pass while a move exists (for example {legal[0]})",
                        "rules.veloop_no_pass",
                        example=str(legal[0]),
                    )
                return self._next(list(self._top), list(self._under), placed=False)
            if move.support is None or move.target is None:
                raise IllegalMove(f"a move needs a target and a support: {_EXPECTED}", "rules.veloop_needs_both")
            t = self._index(move.target)
            s = self._index(move.support)
        except IllegalMove:
            raise
        except game_protocol.Refused as exc:  # a malformed text or a square off the board
            raise IllegalMove(str(exc), exc.key, **exc.data) from None
        geo = _geometry(self.size)
        self._check(move, t, s, geo)
        top = list(self._top)
        under = list(self._under)
        colour = self._key[4]
        a, b = geo.swaps[(t, s)]
        _apply(top, under, t, a, b, colour)
        return self._next(top, under, placed=True)

    def _check(self, move: Move, t: int, s: int, geo: _Geometry) -> None:
        """Raise IllegalMove with the first rule the move breaks, in the order a player would check them."""
        colour = self._key[4]
        top, under = self._top, self._under
        target, support = geo.names[t], geo.names[s]
        if top[s] != colour:
            raise IllegalMove(f"no stone of yours tops {support}", "rules.veloop_no_support", square=support)
        swap = geo.swaps.get((t, s))
        if swap is None:
            raise IllegalMove(
                f"{target} is not a knight's leap from {support}",
                "rules.veloop_not_leap",
                square=target,
                support=support,
            )
        if top[t] != EMPTY:
            if under[t] != EMPTY:
                raise IllegalMove(
                    f"{target} holds a stack of two, and a stack of two is never a target",
                    "rules.veloop_stack",
                    square=target,
                )
            if top[t] == colour:
                raise IllegalMove(
                    f"{target} holds your own stone: a target is empty, "
                    "or a lone enemy stone when no empty one is legal",
                    "rules.veloop_own_stone",
                    square=target,
                )
        a, b = swap
        if top[a] == top[b]:
            first, second = sorted((geo.names[a], geo.names[b]), key=lambda n: geo.order.index(geo.by_name[n]))
            if top[a] == EMPTY:
                raise IllegalMove(
                    f"the swap squares {first} and {second} are both empty",
                    "rules.veloop_swap_empty",
                    first=first,
                    second=second,
                )
            raise IllegalMove(
                f"the swap squares {first} and {second} both show {_COLOUR_NAME[top[a]]}",
                "rules.veloop_swap_same",
                first=first,
                second=second,
                colour=_COLOUR_NAME[top[a]],
            )
        if top[t] != EMPTY:
            witness = _has_empty_target(top, geo, colour)
            if witness is not None:
                example = Move(geo.names[witness[0]], geo.names[witness[1]])
                raise IllegalMove(
                    f"{target} is taken while an empty target is still legal (for example {example})",
                    "rules.veloop_empty_first",
                    square=target,
                    example=str(example),
                )

    def _next(self, top: list[int], under: list[int], placed: bool) -> Position:
        colour = self._key[4]
        two_ply = self.protocol == "122"
        if placed and two_ply and self.ply < self.plies:
            return Position(self.size, top, under, colour, self.ply + 1, self.plies, 0, self.protocol)
        lone = 0 if placed or self.ply > 1 else self.lone_passes + 1
        return Position(self.size, top, under, 3 - colour, 1, 2 if two_ply else 1, lone, self.protocol)


# --------------------------------------------------------------------------- perft and playouts


def perft(position: Position, depth: int) -> int:
    """The number of move sequences of `depth` plies (a forced pass is one move; a finished game has none)."""
    if depth < 0:
        raise ValueError("perft depth must be 0 or more")
    if depth == 0:
        return 1
    if position.is_over:
        return 0
    state = _State(position)
    return state.perft(depth)


def divide(position: Position, depth: int) -> dict[str, int]:
    """perft split by first move, the usual way to find where two move generators disagree."""
    if depth < 1:
        raise ValueError("divide needs a depth of 1 or more")
    return {str(move): perft(position.play(move), depth - 1) for move in position.legal_moves()}


class _State:
    """A mutable position for searches: make/unmake on flat lists, incremental confinement."""

    __slots__ = ("colour", "geo", "lone", "plies", "ply", "top", "two_ply", "under")

    def __init__(self, position: Position) -> None:
        self.geo = _geometry(position.size)
        self.top = list(position._top)
        self.under = list(position._under)
        self.colour = position._key[4]
        self.ply = position.ply
        self.plies = position.plies
        self.lone = position.lone_passes
        self.two_ply = position.protocol == "122"

    def perft(self, depth: int) -> int:
        """Leaves below this (unfinished) state; a move that ends the game is a leaf only at the last ply."""
        top, under, geo = self.top, self.under, self.geo
        moves = _generate(top, under, geo, self.colour)
        colour, ply, plies, lone = self.colour, self.ply, self.plies, self.lone
        if not moves:
            if depth == 1:
                return 1
            # The forced pass: it ends the turn; a second lone pass in a row draws.
            new_lone = lone + 1 if ply == 1 else 0
            if new_lone >= 2:
                return 0
            self.colour, self.ply, self.plies, self.lone = 3 - colour, 1, 2 if self.two_ply else 1, new_lone
            total = self.perft(depth - 1)
            self.colour, self.ply, self.plies, self.lone = colour, ply, plies, lone
            return total
        if depth == 1:
            return len(moves)
        if self.two_ply and ply < plies:
            nxt = (colour, ply + 1, plies, 0)
        else:
            nxt = (3 - colour, 1, 2 if self.two_ply else 1, 0)
        total = 0
        for t, _s, a, b in moves:
            saved = (top[t], under[t], top[a], under[a], top[b], under[b])
            _apply(top, under, t, a, b, colour)
            if not _confines(top, geo, t, _s, a, b):
                self.colour, self.ply, self.plies, self.lone = nxt
                total += self.perft(depth - 1)
            top[t], under[t], top[a], under[a], top[b], under[b] = saved
        self.colour, self.ply, self.plies, self.lone = colour, ply, plies, lone
        return total


def playout(position: Position, rng: random.Random, trace: list[Move] | None = None) -> tuple[Position, int]:
    """Play uniformly random legal moves to the end; returns the final position and the plies played.

    Each ply draws (support, direction) pairs at random and keeps the first legal one, which
    is a uniform choice among the legal moves without listing them all; only after a run of
    misses does it list them (to find over-placements or a forced pass). `trace`, when
    given, receives every ply, so a playout can be replayed and checked move by move.
    """
    if position.is_over:
        return position, 0
    geo = _geometry(position.size)
    size = position.size
    n = geo.n
    top = list(position._top)
    under = list(position._under)
    colour = position._key[4]
    ply, plies, lone = position.ply, position.plies, position.lone_passes
    two_ply = position.protocol == "122"
    # Knight leaps per (support, direction), None off the board, so a random draw is one lookup.
    table = _leap_table(geo)
    stones: list[list[int]] = [[], [], []]
    for i in range(n):
        if top[i]:
            stones[top[i]].append(i)
    where = [-1] * n
    for owner in (BLACK, WHITE):
        for k, i in enumerate(stones[owner]):
            where[i] = k
    rand = rng.random
    leaps = geo.leaps
    # Per colour: were legal moves too few last time for random draws to find one cheaply?
    scarce = [False, False, False]
    played = 0
    while True:
        mine = stones[colour]
        count = len(mine)
        found = None
        if not scarce[colour]:
            span = count * 8
            for _ in range(2 * count + 8):
                k = int(rand() * span)
                pick = table[mine[k >> 3] * 8 + (k & 7)]
                if pick is not None:
                    t, a, b, s = pick
                    if top[t] == EMPTY and top[a] != top[b]:
                        found = pick
                        break
        if found is None:
            moves = [(t, a, b, s) for s in mine for t, a, b in leaps[s] if top[t] == EMPTY and top[a] != top[b]]
            if not moves:
                opp = 3 - colour
                moves = [
                    (t, a, b, s)
                    for s in mine
                    for t, a, b in leaps[s]
                    if top[t] == opp and under[t] == EMPTY and top[a] != top[b]
                ]
            scarce[colour] = len(moves) * 4 < count
            if moves:
                found = moves[int(rand() * len(moves))]
        played += 1
        if trace is not None:
            trace.append(PASS if found is None else Move(geo.names[found[0]], geo.names[found[3]]))
        if found is None:
            lone = lone + 1 if ply == 1 else 0
            colour, ply, plies = 3 - colour, 1, 2 if two_ply else 1
            if lone >= 2:
                break
            continue
        t, a, b, s = found
        old_t, old_a, old_b = top[t], top[a], top[b]
        _apply(top, under, t, a, b, colour)
        # Keep the per-colour stone lists in step with the three cells that changed.
        for cell, old in ((t, old_t), (a, old_a), (b, old_b)):
            new = top[cell]
            if new != old:
                if old:
                    lst = stones[old]
                    last = lst.pop()
                    if last != cell:
                        k = where[cell]
                        lst[k] = last
                        where[last] = k
                if new:
                    where[cell] = len(stones[new])
                    stones[new].append(cell)
        lone = 0
        if two_ply and ply < plies:
            ply += 1
        else:
            colour, ply, plies = 3 - colour, 1, 2 if two_ply else 1
        if _confines(top, geo, t, s, a, b):
            break
    return Position(size, top, under, colour, ply, plies, lone, position.protocol), played


def random_playout(position: Position, rng: random.Random | None = None) -> str | None:
    """Result of one uniformly random game from `position`: 'black', 'white', 'draw' (None only if it cannot end)."""
    final, _ = playout(position, rng or random.Random())
    return final.result


_LEAP_TABLES: dict[int, list[tuple[int, int, int, int] | None]] = {}


def _leap_table(geo: _Geometry) -> list[tuple[int, int, int, int] | None]:
    """(target, swap a, swap b, support) for every support and each of the 8 leaps, None off the board."""
    table = _LEAP_TABLES.get(geo.size)
    if table is None:
        size = geo.size
        table = []
        for i in range(geo.n):
            f, r = i % size, i // size
            for dx, dy in _LEAPS:
                tf, tr = f + dx, r + dy
                if 0 <= tf < size and 0 <= tr < size:
                    t = tr * size + tf
                    a, b = geo.swaps[(t, i)]
                    table.append((t, a, b, i))
                else:
                    table.append(None)
        _LEAP_TABLES[geo.size] = table
    return table


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Replay:
    """A validated record: its headers, the start, every move, and the position after each."""

    headers: Mapping[str, str]
    start: Position
    moves: tuple[Move, ...]
    positions: tuple[Position, ...]

    @property
    def final(self) -> Position:
        return self.positions[-1] if self.positions else self.start


_RESULT_TOKEN: Final = {"black": "1-0", "white": "0-1", "draw": "1/2-1/2"}


def result_text(position: Position) -> str:
    """The PGN-style Result header, as Veletas records write it: 1-0 Black won, 0-1 White won, 1/2-1/2, or *."""
    return _RESULT_TOKEN.get(position.result or "", "*")


def write_record(
    moves: Sequence[Move | str],
    start: Position | None = None,
    headers: Mapping[str, str] | None = None,
) -> str:
    """A record of a game from `start` (the standard start by default), replayed here so it cannot hold an illegal ply.

    Headers Game, Board and Protocol come from the position; `headers` adds players, date
    and the like. A start other than the standard one is kept in a Position header. The
    Result and Termination follow the plies once the game is over; before that, the ending
    `headers` state (a resignation, a timeout, with its Result) is kept.
    """
    start = start or Position.start()
    position = start
    turns: list[str] = []
    for number, move in enumerate(moves, 1):
        try:
            chosen = position.parse_move(move) if isinstance(move, str) else move
            position = position.play(chosen)
        except ValueError as exc:
            raise RecordError(str(exc), number) from None
        turns.append(str(chosen))
    out: dict[str, str] = {
        "Game": "veloop",
        "Board": f"{start.size}x{start.size}",
        "Protocol": start.protocol,
        "Black": "?",
        "White": "?",
        "Date": "????.??.??",
    }
    for key, value in (headers or {}).items():
        if key.lower() not in ("game", "board", "protocol", "position", "result", "termination"):
            out[key] = str(value)
    if start != Position.start(start.size, start.protocol):
        out["Position"] = str(start)
    out |= ending_headers(_ending(position), headers or {})
    return _write_record_text(out, turns)


def _ending(position: Position) -> tuple[str, str] | None:
    """(Result, Termination) when the plies ended the game: both players passed, or a stone was confined."""
    if not position.is_over:
        return None
    return result_text(position), "passes" if position.lone_passes >= 2 else "confinement"


_BOARD_RE: Final = re.compile(r"\s*(\d+)\s*[x×]\s*(\d+)\s*")


def replay(text: str) -> Replay:
    """Read and validate a record; any fault raises RecordError (with the ply number when a ply is at fault)."""
    record = read_record(text)
    game = record.header("Game")
    if game is None or game.strip().lower() != "veloop":
        raise RecordError(f'not a Veloop record: the Game header is {quote(game or "")}, expected "veloop"')
    board = record.header("Board", "8x8") or "8x8"
    m = _BOARD_RE.fullmatch(board)
    if m is None or m.group(1) != m.group(2):
        raise RecordError(f'the Board header is written like "8x8", not {quote(board)}')
    size = int(m.group(1))
    protocol = (record.header("Protocol", "122") or "122").strip().lower()
    try:
        given = record.header("Position")
        start = Position.from_string(given, protocol) if given else Position.start(size, protocol)
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    if start.size != size:
        raise RecordError(f"the Position header is a {start.size}×{start.size} board but the Board header says {board}")
    position = start
    moves: list[Move] = []
    positions: list[Position] = []
    for number, turn in enumerate(record.turns, 1):
        try:
            move = position.parse_move(turn)
            position = position.play(move)
        except ValueError as exc:
            raise RecordError(str(exc), number) from None
        moves.append(move)
        positions.append(position)
    # A game stopped early (a resignation, a timeout) may claim any result; a finished one must agree.
    claimed = (record.header("Result") or "*").strip()
    if position.is_over and claimed not in ("*", "", result_text(position)):
        raise RecordError(f"the Result header says {quote(claimed)} but the plies give {result_text(position)}")
    if not position.is_over:
        ending_headers(None, record.headers)  # an ending off the board must be one NOTATION.md knows
    return Replay(dict(record.headers), start, tuple(moves), tuple(positions))


# --------------------------------------------------------------------------- command line adapter
# The shared `python -m bot.rules ... --game veloop` calls these; each returns the lines to print
# and raises ValueError (or a subclass) with a message for the user on bad input.


def _cli_position(text: str, protocol: str) -> Position:
    """A position string, or `start` / `start:N` for the start of an N×N board."""
    cleaned = text.strip().lower()
    if cleaned == "start" or cleaned.startswith("start:"):
        size = int(cleaned.partition(":")[2] or "8")
        return Position.start(size, protocol)
    return Position.from_string(text, protocol)


def cli_perft(position: str, depth: int, protocol: str = "122", split: bool = False) -> list[str]:
    """`perft POSITION DEPTH`: the count, or with `split` the count per first move then the total."""
    pos = _cli_position(position, protocol)
    if not split:
        return [str(perft(pos, depth))]
    counts = divide(pos, depth)
    return [f"{move}: {count}" for move, count in counts.items()] + [f"total: {sum(counts.values())}"]


def cli_play(position: str, moves: Sequence[str], protocol: str = "122") -> list[str]:
    """`play POSITION MOVE...`: each move in canonical form with its swap and the new position, then the result."""
    pos = _cli_position(position, protocol)
    lines: list[str] = []
    for text in moves:
        move = pos.parse_move(text)
        pos = pos.play(move)
        lines.append(f"{move.describe()}: {pos}")
    lines.extend(_summary(pos))
    return lines


def cli_replay(text: str) -> list[str]:
    """`replay FILE` (given the file's text): validates the record and prints the final position and result."""
    game = replay(text)
    final = game.final
    return [f"{len(game.moves)} plies, all legal", str(final), *_summary(final)]


def _summary(position: Position) -> Iterator[str]:
    confined = position.confined
    if confined.black or confined.white:
        yield f"confined: black {' '.join(confined.black) or '-'}; white {' '.join(confined.white) or '-'}"
    yield f"scores: black {position.scores.black}, white {position.scores.white}"
    yield f"result: {position.result or 'game in progress'} ({result_text(position)})"


# --------------------------------------------------------------------------- the game plug-in


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
