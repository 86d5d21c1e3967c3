"""Cheap move ordering for the split turn: which pairs and which targets the tree should try first.

Progressive widening only looks at the first few children of a node and lets more in as the
node is visited, so the order matters more than the exact numbers. Both orders come from the
same idea as the evaluation: a shooter goes to the bigger adjacent group once trapped.
A shooter is worth moving from where the opponent's groups dominate to where the mover's do;
a stone is worth placing next to shooters (where it changes who would claim them) and on the
last opening of a shooter the mover would then win, and never on one the opponent would win.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.ai.veletas.board import STAY, adjacent_groups, label_groups, openings
from bot.rules import FastBoard, Geometry
from bot.rules.veletas import SHOOTER, STONE_BLACK

Labels = tuple[list[int], list[int]]

STAY_BONUS = 0.5
TRAP_WIN = 6.0
TRAP_LOSS = -6.0


def labels(board: FastBoard, geo: Geometry) -> Labels:
    return label_groups(board.cells, geo)


def order_pairs(board: FastBoard, geo: Geometry, found: Sequence[int], facts: Labels) -> list[int]:
    """``found`` (pairs of this position) from most to least promising for the side to move."""
    cells = board.cells
    orth = geo.orth
    gid, sizes = facts
    mover = board.to_move
    n2 = geo.n2
    favour: dict[int, float] = {}

    def fav(x: int) -> float:
        got = favour.get(x)
        if got is None:
            bg, wg = adjacent_groups(cells, orth[x], gid, sizes)
            margin = bg - wg if mover == 0 else wg - bg
            got = favour[x] = max(-3.0, min(3.0, float(margin)))
        return got

    keyed = []
    for index, pair in enumerate(found):
        if pair == STAY:
            key = STAY_BONUS
        else:
            o, d = divmod(pair, n2)
            key = fav(d) - fav(o)
        keyed.append((-key, index, pair))
    keyed.sort()
    return [pair for _key, _index, pair in keyed]


def order_targets(board: FastBoard, geo: Geometry, pair: int, found: Sequence[int], facts: Labels) -> list[int]:
    """``found`` (targets after ``pair``) from most to least promising, judged with the pair's move made."""
    cells = board.cells
    n2 = geo.n2
    if pair == STAY:
        return _order_targets(board, geo, board.shooters, found, facts)
    o, moved = divmod(pair, n2)
    cells[o] = 0
    cells[moved] = SHOOTER
    try:
        return _order_targets(board, geo, [moved if s == o else s for s in board.shooters], found, facts)
    finally:
        cells[moved] = 0
        cells[o] = SHOOTER


def _order_targets(
    board: FastBoard, geo: Geometry, shooters: Sequence[int], found: Sequence[int], facts: Labels
) -> list[int]:
    cells = board.cells
    orth = geo.orth
    rays = geo.rays
    pmax = board.pmax
    gid, sizes = facts
    mover = board.to_move
    own = STONE_BLACK + mover
    groups: dict[int, tuple[int, int]] = {}
    last_opening: dict[int, list[int]] = {}
    squeezed = bytearray(geo.n2)
    for s in shooters:
        bg, wg = adjacent_groups(cells, orth[s], gid, sizes)
        groups[s] = (bg, wg) if mover == 0 else (wg, bg)
        opens = openings(cells, rays[s], pmax)
        if len(opens) == 1:
            last_opening.setdefault(opens[0], []).append(s)
        elif len(opens) == 2:
            for t in opens:
                squeezed[t] = 1
    keyed = []
    for index, t in enumerate(found):
        merged = 1
        seen: set[int] = set()
        for nb in orth[t]:
            if cells[nb] == own:
                g = gid[nb]
                if g >= 0 and g not in seen:
                    seen.add(g)
                    merged += sizes[g]
        key = 0.0
        for nb in orth[t]:
            if cells[nb] == SHOOTER:
                mine, theirs = groups[nb]
                key += 1.0 if max(mine, merged) > theirs else 0.3
        for s in last_opening.get(t, ()):
            mine, theirs = groups[s]
            if t in orth[s]:
                mine = max(mine, merged)
            key += TRAP_WIN if mine > theirs else TRAP_LOSS
        if squeezed[t]:
            key += 0.3
        keyed.append((-key, index, t))
    keyed.sort()
    return [t for _key, _index, t in keyed]
