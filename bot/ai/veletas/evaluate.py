"""A static estimate of who wins: each unclaimed shooter's likely owner, then the count that decides the game.

Every shooter is claimed once it is trapped, by the bigger adjacent group. So a shooter's
likely owner is whoever has the bigger group beside it now, and the less room the shooter has
left (the fewer squares it can still reach), the less time there is for that to change or for
the other side to move it away. A shooter down to one opening is decided by the side to move
when that side's stone on the opening would win the comparison. Owners are then treated as
independent coin flips and the exact chance that Black collects enough of them is summed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from bot.ai.veletas.board import adjacent_groups, label_groups, openings
from bot.rules import FastBoard, Geometry, reach
from bot.rules.veletas import STONE_BLACK

# Weight of one stone of group advantage, and the room over which that advantage fades by half.
MARGIN_WEIGHT = 1.4
ROOM_SCALE = 6.0
# How sure a shooter down to one opening is, when the side to move would win it by filling that opening.
DECIDED = 0.95


def shooter_odds(board: FastBoard, geo: Geometry) -> list[tuple[int, float]]:
    """(square, chance Black ends up owning it) for every unclaimed shooter."""
    cells = board.cells
    pmax = board.pmax
    rays = geo.rays
    orth = geo.orth
    gid, sizes = label_groups(cells, geo)
    mover = board.to_move
    out = []
    for s in board.shooters:
        bg, wg = adjacent_groups(cells, orth[s], gid, sizes)
        opens = openings(cells, rays[s], pmax)
        if len(opens) == 1:
            decided = _decided_by_mover(cells, orth, gid, sizes, s, opens[0], mover, bg, wg)
            if decided:
                out.append((s, DECIDED if mover == 0 else 1.0 - DECIDED))
                continue
        room = len(reach(cells, rays[s], pmax))
        z = MARGIN_WEIGHT * (bg - wg) / (1.0 + room / ROOM_SCALE)
        out.append((s, 1.0 / (1.0 + math.exp(-z))))
    return out


def _decided_by_mover(
    cells: Sequence[int],
    orth: tuple[tuple[int, ...], ...],
    gid: Sequence[int],
    sizes: Sequence[int],
    s: int,
    opening: int,
    mover: int,
    bg: int,
    wg: int,
) -> bool:
    """Whether the side to move wins shooter ``s`` by shooting its last opening now."""
    mine, theirs = (bg, wg) if mover == 0 else (wg, bg)
    if opening in orth[s]:
        own = STONE_BLACK + mover
        merged = 1 + sum(sizes[g] for g in {gid[nb] for nb in orth[opening] if cells[nb] == own})
        mine = max(mine, merged)
    return mine > theirs


def win_chance(claimed: int, need: int, odds: Sequence[float]) -> float:
    """Chance of reaching ``need`` claims from ``claimed`` when each remaining shooter falls with its odds."""
    missing = need - claimed
    if missing <= 0:
        return 1.0
    if missing > len(odds):
        return 0.0
    dist = [1.0]
    for p in odds:
        q = 1.0 - p
        nxt = [0.0] * (len(dist) + 1)
        for k, v in enumerate(dist):
            nxt[k] += v * q
            nxt[k + 1] += v * p
        dist = nxt
    return sum(dist[missing:])


def black_chance(board: FastBoard, geo: Geometry) -> float:
    """Estimated chance that Black wins from here (exact 1.0 or 0.0 once decided)."""
    if board.winner >= 0:
        return 1.0 if board.winner == 0 else 0.0
    odds = [p for _sq, p in shooter_odds(board, geo)]
    return win_chance(board.scores[0], board.need, odds)
