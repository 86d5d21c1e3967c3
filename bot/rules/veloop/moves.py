"""Veloop's moves as values: ``Move`` (a target and its support, or a pass), reading a typed move, ``IllegalMove``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from bot.rules import protocol as game_protocol
from bot.rules.common import quote, square_name
from bot.rules.veloop.board import _swap_offsets


class IllegalMove(game_protocol.IllegalMove):
    """A move the rules refuse; the message tells the player exactly why."""


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
