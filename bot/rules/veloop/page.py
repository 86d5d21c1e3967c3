"""Veloop as the board page draws it: the stones, the confined ones, and every click that can make a legal move.

Pure, like the rest of the rules. ``steps.moves`` maps each target to its supports: the page offers the
targets, then (only when a target has more than one) its supports, and sends ``target<support``, the text
``/veloop move`` accepts. A pass is never clicked: the bot plays a forced pass itself.
"""

from __future__ import annotations

from typing import Any

from bot.rules.veloop.game import Game


def page_state(game: Game) -> dict[str, Any]:
    """The position and its click steps, as JSON values."""
    position = game.position
    last: list[str] = []
    swaps: list[str] = []
    move = game.last_move
    if move is not None and not move.is_pass and move.target is not None and move.support is not None:
        last = [move.target, move.support]
        swaps = list(move.swap_squares or ())
    moves: dict[str, list[str]] = {}
    if not position.is_over:
        for legal in position.legal_moves():
            if legal.target is not None and legal.support is not None:
                moves.setdefault(legal.target, []).append(legal.support)
    confined = position.confined
    return {
        "size": position.size,
        "stones": {square: list(stack) for square, stack in position.stones().items()},
        "last": last,
        "swaps": swaps,
        "confined": {"black": list(confined.black), "white": list(confined.white)},
        "steps": {"moves": moves},
    }


def turn_text(target: str, support: str) -> str:
    """The move a target and its support spell (the page builds the same; the tests use this one)."""
    return f"{target}<{support}"
