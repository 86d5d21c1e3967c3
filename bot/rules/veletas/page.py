"""Veletas as the board page draws it: the position and every click that can make a legal turn, as plain data.

Pure, like the rest of the rules. The page draws from this and never applies a rule itself: it offers only the
squares listed here, step by step, and sends the turn text the steps spell (what ``/veletas move`` and
``/veletas setup`` accept). The steps, by phase:

- ``setup``: ``count`` shooters to place, then a stone when ``stone`` names its colour. The first shooter may
  take any of ``squares``; each chosen shooter takes away itself and the squares ``excludes`` lists for it (the
  classic edition's spacing; empty in the current edition). The stone may take any of ``stones`` not chosen.
  The text is the shooters in the order of ``squares``, comma-separated, then ``/`` and the stone.
- ``pie``: ``keep`` or ``swap``.
- ``play``: ``moves[shooter][square][targets]``: a shooter, where it goes (its own square for a stationary
  shot), then the target. The text is ``shooter-square/target``, or the target alone for a stationary shot.
"""

from __future__ import annotations

from typing import Any

from bot.rules.veletas.game import Game
from bot.rules.veletas.kernel import COLOURS


def page_state(game: Game) -> dict[str, Any]:
    """The position and its click steps, as JSON values."""
    position = game.position
    size = position.size
    cells = position.pieces()  # square -> S (unclaimed shooter), B/W (claimed), b/w (stones)
    last: list[str] = []
    if game.turns:
        move = game.last_move if game.phase in ("play", "over") and game.moves else None
        if move is not None and game.turns[-1] == str(move):
            last = [s for s in (move.shooter if move.destination else None, move.destination, move.target) if s]
        elif game.turns[-1] not in ("keep", "swap"):
            last = [s for s in game.turns[-1].replace("/", ",").split(",") if s]
    steps: dict[str, Any] = {}
    if game.phase == "setup":
        squares = game.setup_squares()
        classic = game.rules == "classic"
        excludes: dict[str, list[str]] = {}
        if classic:
            for square in squares:
                taken = set(game.setup_choices([square]))
                excludes[square] = [other for other in squares if other != square and other not in taken]
        stone = _stone_colour(game) if game.stone_to_place else None
        steps = {
            "count": game.shooters_to_place,
            "squares": squares,
            "excludes": excludes,
            "stone": stone,
            "stones": game.stone_choices([]) if stone else [],
        }
    elif game.phase == "pie":
        steps = {"pie": ["keep", "swap"]}
    elif game.phase == "play":
        moves: dict[str, dict[str, list[str]]] = {}
        for shooter in position.unclaimed():
            ways: dict[str, list[str]] = {}
            still = position.targets(shooter)
            if still:
                ways[shooter] = still
            for square in position.destinations(shooter):
                ways[square] = position.targets(square, vacated=shooter)
            if ways:
                moves[shooter] = ways
        steps = {"moves": moves}
    claimed = position.claimed
    return {
        "size": size,
        "cells": cells,
        "last": last,
        "claimed": {"black": list(claimed["black"]), "white": list(claimed["white"])},
        "needed": position.needed_to_win,
        "steps": steps,
    }


def _stone_colour(game: Game) -> str:
    """The colour of the stone this setup turn places (the rules' stage says it)."""
    stage = game._current_stage()
    assert stage is not None and stage.stone is not None
    return COLOURS[stage.stone]


def turn_text(phase: str, picks: list[str]) -> str:
    """The turn text a path of clicks spells (the page builds the same; the tests use this one)."""
    if phase == "pie":
        return picks[0]
    if phase == "setup":
        *shooters, stone = picks
        return ",".join(shooters) + ("/" + stone if stone else "")
    shooter, square, target = picks
    return target if square == shooter else f"{shooter}-{square}/{target}"
