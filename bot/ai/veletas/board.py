"""Integer helpers the players share: freedom, groups, split turns, immediate claims.

Search works on ``bot.rules.FastBoard`` (its cells, shooters, scores, move codes and random
playouts, cut short with ``plies``) and on the rules core's own board tables, ``Geometry``,
and kernel helpers (``reach``, ``biggest_groups``), so that there is one source of truth for
the board. It also needs a few facts the rules core has no reason to expose: how many
directions a shooter can still breathe in, every stone group at once, and the two halves of a
split turn. They live here, written against the cell codes the rules core documents, so the
rules stay small.

Move codes are FastBoard's: ``target`` for a stationary shot, ``(origin * n2 + dest) * n2 + target``
for a moving one. A *pair* is the first half of a split turn: ``origin * n2 + dest``, or ``STAY``
for a stationary shot (which shooter fires one changes nothing, so all of them share it).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.rules import FastBoard, Geometry, reach
from bot.rules.veletas import SHOOTER, STONE_BLACK

STAY = -1

Rays = tuple[tuple[int, ...], ...]


def openings(cells: Sequence[int], rays: Rays, pmax: int) -> list[int]:
    """The first empty square in each direction that has one: the squares that keep a shooter untrapped.

    A shooter is trapped exactly when this is empty, so its length is the shooter's freedom and
    its squares are where a stone (or, in the classic edition, a shooter) can take that freedom away.
    """
    out = []
    for ray in rays:
        for t in ray:
            v = cells[t]
            if v == 0:
                out.append(t)
                break
            if v > pmax:
                break
    return out


def label_groups(cells: Sequence[int], geo: Geometry) -> tuple[list[int], list[int]]:
    """Group id per square (-1 where no stone) and each group's size, found in one sweep."""
    n2 = geo.n2
    orth = geo.orth
    gid = [-1] * n2
    sizes: list[int] = []
    for start in range(n2):
        code = cells[start]
        if code < STONE_BLACK or gid[start] >= 0:
            continue
        label = len(sizes)
        gid[start] = label
        stack = [start]
        count = 0
        while stack:
            cur = stack.pop()
            count += 1
            for nb in orth[cur]:
                if gid[nb] < 0 and cells[nb] == code:
                    gid[nb] = label
                    stack.append(nb)
        sizes.append(count)
    return gid, sizes


def adjacent_groups(
    cells: Sequence[int], orth: tuple[int, ...], gid: Sequence[int], sizes: Sequence[int]
) -> tuple[int, int]:
    """Biggest black and white groups touching a square, from a labelling by ``label_groups``."""
    best_b = best_w = 0
    for nb in orth:
        g = gid[nb]
        if g >= 0:
            size = sizes[g]
            if cells[nb] == STONE_BLACK:
                if size > best_b:
                    best_b = size
            elif size > best_w:
                best_w = size
    return best_b, best_w


def pairs(board: FastBoard, geo: Geometry) -> list[int]:
    """First halves of the legal turns: STAY (when any shot exists) and every origin-destination pair."""
    cells = board.cells
    pmax = board.pmax
    rays = geo.rays
    n2 = geo.n2
    out: list[int] = []
    stay = False
    for o in board.shooters:
        cells[o] = 0
        for ray in rays[o]:
            for d in ray:
                v = cells[d]
                if v == 0:
                    out.append(o * n2 + d)
                elif v > pmax:
                    break
        cells[o] = SHOOTER
        if not stay and openings(cells, rays[o], pmax):
            stay = True
    if stay:
        out.insert(0, STAY)
    return out


def targets(board: FastBoard, geo: Geometry, pair: int) -> list[int]:
    """Second halves: where the shot may land after ``pair`` (the origin counts as empty when it moved)."""
    cells = board.cells
    pmax = board.pmax
    rays = geo.rays
    if pair == STAY:
        seen = bytearray(geo.n2)
        out = []
        for s in board.shooters:
            for t in reach(cells, rays[s], pmax):
                if not seen[t]:
                    seen[t] = 1
                    out.append(t)
        return out
    o, d = divmod(pair, geo.n2)
    cells[o] = 0
    cells[d] = SHOOTER
    out = reach(cells, rays[d], pmax)
    cells[d] = 0
    cells[o] = SHOOTER
    return out


def code_of(pair: int, target: int, n2: int) -> int:
    return target if pair == STAY else pair * n2 + target


def claim_candidates(board: FastBoard, geo: Geometry) -> list[int]:
    """Every legal move that may claim a shooter; all other moves certainly claim nothing.

    A move can only trap a shooter it takes freedom from: its stone or its destination must
    land on one of that shooter's openings, and the shooter must have at most two openings
    (a move fills at most two squares). The moving shooter itself can be trapped only when,
    from its destination (with the square it left counted empty), it has at most one opening.
    """
    cells = board.cells
    pmax = board.pmax
    rays = geo.rays
    n2 = geo.n2
    critical = bytearray(n2)
    for s in board.shooters:
        opens = openings(cells, rays[s], pmax)
        if len(opens) <= 2:
            for t in opens:
                critical[t] = 1
    out: list[int] = []
    seen_stay = bytearray(n2)
    for s in board.shooters:
        for t in reach(cells, rays[s], pmax):
            if critical[t] and not seen_stay[t]:
                seen_stay[t] = 1
                out.append(t)
    for o in board.shooters:
        cells[o] = 0
        for d in reach(cells, rays[o], pmax):
            cells[d] = SHOOTER
            self_risk = len(openings(cells, rays[d], pmax)) <= 1
            base = (o * n2 + d) * n2
            for t in reach(cells, rays[d], pmax):
                if self_risk or critical[t] or critical[d]:
                    out.append(base + t)
            cells[d] = 0
        cells[o] = SHOOTER
    return out


def claims_of(board: FastBoard, code: int) -> tuple[int, int, int]:
    """(claims for the mover, claims for the opponent, winner or -1) if ``code`` were played now."""
    trial = board.copy()
    mover = board.to_move
    claims = trial.play_code(code)
    mine = sum(1 for c in claims if c[1] == mover)
    return mine, len(claims) - mine, trial.winner
