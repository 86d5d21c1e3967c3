"""Veloop's boards: the sizes and protocols, the stones' codes, and each size's geometry, computed once.

Cells are integers (index = rank * size + file); everything a move needs to know about a cell (its
knight leaps with their swap cells, its neighbours, whether it is on the ring) is looked up here
instead of being worked out during play.
"""

from __future__ import annotations

from typing import Final

from bot.rules.common import quote, square_name

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
