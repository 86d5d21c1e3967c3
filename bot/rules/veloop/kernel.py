"""The rules kernel of Veloop: move generation, the move applier and the two confinement tests.

These functions work on flat lists ``top`` (what each cell shows) and ``under`` (the stone beneath a
stack's top, or EMPTY). They are the single source of the rules: the immutable ``Position``, perft,
the random playouts and the AI all call them. ``_confined_cells`` is the plain flood fill;
``_confines`` is the incremental test the hot paths use, and the test suite checks one against the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from bot.rules.veloop.board import BLACK, EMPTY, WHITE, _Geometry


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
