"""What to suggest while a Veloop move is being typed: pure, so it can be tested (and cached) without Discord.

A move is a target and its support (``f6<e4``). While the target is being typed, suggestions are
spread over the targets that match, one support each first, so every legal target shows up as soon
as there is room; once the target is complete they list its supports. Every suggestion is a legal
move, and ``pass`` is offered only when it is the one legal move.
"""

from __future__ import annotations

import re
from collections import OrderedDict

from bot.rules.veloop.moves import Move
from bot.rules.veloop.position import Position

MAX_CHOICES = 25
"""Discord shows at most 25 autocomplete choices."""

_CACHE_SIZE = 512
_cache: OrderedDict[tuple[Position, str, int], list[tuple[str, str]]] = OrderedDict()


def normalise(typed: str) -> str:
    """What was typed, in the canonical form's alphabet: ``F6 - e4`` and ``f6 e4`` read as ``f6<e4``."""
    text = typed.strip().lower()
    text = re.sub(r"\s*[<\-]\s*|\s+", "<", text)
    return text


def _square_key(square: str) -> tuple[str, int]:
    return square[:1], int(square[1:]) if square[1:].isdigit() else 0


def move_suggestions(position: Position, typed: str, limit: int = MAX_CHOICES) -> list[tuple[str, str]]:
    """(label, value) pairs for what has been typed so far; every value is a legal move.

    Answers are remembered per position and prefix: players retype the same prefixes.
    """
    if position.is_over:
        return []
    prefix = normalise(typed)
    key = (position, prefix, limit)
    cached = _cache.get(key)
    if cached is not None:
        _cache.move_to_end(key)
        return list(cached)
    legal = position.legal_moves()
    found: list[tuple[str, str]]
    if len(legal) == 1 and legal[0].is_pass:
        found = [("pass (no legal move)", "pass")] if "pass".startswith(prefix) else []
    else:
        groups: dict[str, list[Move]] = {}
        for move in legal:
            if str(move).startswith(prefix):
                groups.setdefault(str(move.target), []).append(move)
        ordered = [groups[target] for target in sorted(groups, key=_square_key)]
        for moves in ordered:
            moves.sort(key=lambda move: _square_key(str(move.support)))
        found = []
        index = 0
        while len(found) < limit and any(index < len(moves) for moves in ordered):
            for moves in ordered:
                if index < len(moves) and len(found) < limit:
                    found.append((moves[index].describe(), str(moves[index])))
            index += 1
    _cache[key] = found
    while len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return list(found)
