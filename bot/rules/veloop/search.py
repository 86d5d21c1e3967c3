"""Counting and playing out Veloop games fast: perft, divide and uniformly random playouts.

A random playout is the unit of work of the AI and must stay cheap in pure Python, so these run on
flat mutable lists with a make/unmake discipline and the kernel's incremental confinement test,
never through ``Position``.
"""

from __future__ import annotations

import random

from bot.rules.veloop.board import _LEAPS, BLACK, EMPTY, WHITE, _Geometry, _geometry
from bot.rules.veloop.kernel import _apply, _confines, _generate
from bot.rules.veloop.moves import PASS, Move
from bot.rules.veloop.position import Position


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
