"""A Veloop position as an immutable value: its stacks, whose ply it is, its position string, its legal moves.

The position string of VELOOP.md is read by ``Position.from_string`` and written by ``str``; a move is
checked (``play`` says which rule it breaks) and applied with the kernel's own generator and applier.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Final, NamedTuple

from bot.rules import protocol as game_protocol
from bot.rules.common import parse_square, quote
from bot.rules.veloop.board import (
    _CHAR_STONE,
    _COLOUR_NAME,
    _START,
    _STONE_CHAR,
    BLACK,
    EMPTY,
    WHITE,
    _check_protocol,
    _Geometry,
    _geometry,
)
from bot.rules.veloop.kernel import _apply, _confined_cells, _generate, _has_empty_target
from bot.rules.veloop.moves import _EXPECTED, PASS, IllegalMove, Move, _split_move


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
