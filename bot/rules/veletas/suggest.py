"""What to suggest while a Veletas turn is being typed: pure, so it can be tested (and cached) without Discord.

Every suggestion leads to a legal turn: moves come from the position's own list of legal moves, setup
squares from the setup rules. A move is suggested one step at a time, as the guided move walks it
(shooter, then destination, then target), so each choice narrows towards the move meant.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable

from bot.rules.common import square_name
from bot.rules.veletas.game import Game
from bot.rules.veletas.position import Position

MAX_CHOICES = 25
"""Discord shows at most 25 autocomplete choices."""
_LEGAL_CACHE_SIZE = 32
Legal = tuple[tuple[tuple[str, bool], ...], dict[str, tuple[str, ...]]]
_legal_cache: OrderedDict[Position, Legal] = OrderedDict()
_SUGGESTION_CACHE_SIZE = 512
_suggestion_cache: OrderedDict[tuple[Position, str, int], list[tuple[str, str]]] = OrderedDict()


def _legal(position: Position) -> Legal:
    """Legal moves as (text, is a stationary shot), and for each stationary target the shooters able to fire it.

    Every keystroke asks for suggestions on the same position, so a few recent positions are kept,
    as text: formatting thousands of moves again for each keystroke was most of the work. A few:
    a standard-board position has thousands of moves, and people type on the positions being
    played right now.
    """
    found = _legal_cache.get(position)
    if found is None:
        moves = tuple((str(move), move.is_stationary) for move in position.legal_moves())
        firing: dict[str, list[str]] = {}
        for shooter in position.unclaimed():
            for target in position.targets(shooter):
                firing.setdefault(target, []).append(shooter)
        found = (moves, {target: tuple(sorted(shooters)) for target, shooters in firing.items()})
        _legal_cache[position] = found
        while len(_legal_cache) > _LEGAL_CACHE_SIZE:
            _legal_cache.popitem(last=False)
    else:
        _legal_cache.move_to_end(position)
    return found


def _normalise(text: str) -> str:
    return re.sub(r"\s+", "", text.lower()).replace("x", "/")


Kind = str
"""What a suggestion is: ``shooter`` (a square to go on from), ``destination`` (a shooter and where it goes,
to go on from), ``move`` (a whole move) or ``still`` (a whole stationary shot, its target alone)."""

_SQUARE = r"[a-z]\d{1,2}"
_PARTIAL = r"(?:[a-z]\d{0,2})?"
_SHOOTER_STEP = re.compile(f"({_PARTIAL})")
_DESTINATION_STEP = re.compile(f"({_SQUARE})-({_PARTIAL})")
_TARGET_STEP = re.compile(f"({_SQUARE})-({_SQUARE})/({_PARTIAL})")
_STILL_STEP = re.compile(f"({_SQUARE})/({_PARTIAL})")


def _tree(position: Position) -> tuple[dict[str, dict[str, list[str]]], dict[str, tuple[str, ...]]]:
    """The legal moves as steps: for each shooter, its destinations and the whole moves through each."""
    moves, firing = _legal(position)
    tree: dict[str, dict[str, list[str]]] = {}
    for value, stationary in moves:
        if stationary:
            continue
        shooter, rest = value.split("-", 1)
        tree.setdefault(shooter, {}).setdefault(rest.split("/", 1)[0], []).append(value)
    return tree, firing


def _ordered(squares: Iterable[str]) -> list[str]:
    return sorted(squares, key=lambda square: _square_order((square,)))


def move_suggestions(position: Position, typed: str, limit: int = MAX_CHOICES) -> list[tuple[Kind, str]]:
    """(kind, value) pairs for what the player has typed so far, one step at a time.

    An empty field lists the shooters that can move (typing a square also finds shots without moving onto
    it, in their canonical form ``g2``); after a shooter (``d4`` or ``d4-``), its destinations (``d4-g7``)
    and then the shots it could fire without moving; after a destination (``d4-g7`` or ``d4-g7/``), the
    whole moves through it (``d4-g7/g2``). ``d4/`` lists d4's shots without moving, as ``g2``. Values of
    kind ``move`` and ``still`` are legal moves; ``shooter`` and ``destination`` are steps towards them.
    Answers are remembered per position and prefix: players retype the same prefixes.
    """
    if position.is_over:
        return []
    prefix = _normalise(typed)
    key = (position, prefix, limit)
    cached = _suggestion_cache.get(key)
    if cached is not None:
        _suggestion_cache.move_to_end(key)
        return list(cached)
    tree, firing = _tree(position)
    found: list[tuple[Kind, str]] = []
    if match := _TARGET_STEP.fullmatch(prefix):
        shooter, destination, target = match.groups()
        through = tree.get(shooter, {}).get(destination, [])
        found = [("move", value) for value in through if value.split("/", 1)[1].startswith(target)]
    elif match := _DESTINATION_STEP.fullmatch(prefix):
        shooter, partial = match.groups()
        found = _destinations(tree, shooter, partial)
    elif match := _STILL_STEP.fullmatch(prefix):
        shooter, partial = match.groups()
        found = [
            ("still", target) for target in _ordered(firing) if shooter in firing[target] and target.startswith(partial)
        ]
    elif _SHOOTER_STEP.fullmatch(prefix):
        if prefix in tree:
            found = _destinations(tree, prefix, "")
            found += [("still", target) for target in _ordered(firing) if prefix in firing[target]]
        found += [
            ("shooter", shooter) for shooter in _ordered(tree) if shooter.startswith(prefix) and shooter != prefix
        ]
        if prefix:
            found += [("still", target) for target in _ordered(firing) if target.startswith(prefix)]
    suggestions = found[:limit]
    _suggestion_cache[key] = suggestions
    while len(_suggestion_cache) > _SUGGESTION_CACHE_SIZE:
        _suggestion_cache.popitem(last=False)
    return list(suggestions)


def _destinations(tree: dict[str, dict[str, list[str]]], shooter: str, partial: str) -> list[tuple[Kind, str]]:
    """A shooter's destinations starting with ``partial``; a destination typed whole lists its moves first."""
    reach = tree.get(shooter, {})
    found: list[tuple[Kind, str]] = [("move", value) for value in reach.get(partial, [])]
    found += [
        ("destination", f"{shooter}-{destination}")
        for destination in _ordered(reach)
        if destination.startswith(partial) and destination != partial
    ]
    return found


def _square_order(key: Iterable[str]) -> tuple[tuple[int, str, int], ...]:
    def one(square: str) -> tuple[int, str, int]:
        match = re.fullmatch(r"([a-z])(\d+)", square)
        return (0, square[:1], int(match.group(2))) if match else (1, square, 0)

    return tuple(one(square) for square in key)


def _squares(text: str) -> list[str]:
    return [t for t in re.split(r"[\s,]+", text.lower()) if t]


def shooter_suggestions(game: Game, typed: str, limit: int = MAX_CHOICES) -> list[str]:
    """Completions of the shooter list typed so far, one more setup square at a time.

    Only squares the setup allows on the board as it stands are offered (the image hatches the
    others); squares already in the list are not offered twice.
    """
    allowed = game.setup_squares()
    tokens = _squares(typed)
    partial = "" if not tokens or typed[-1:] in (" ", ",") else tokens.pop()
    if any(token not in allowed for token in tokens) or len(set(tokens)) != len(tokens):
        return []
    if len(tokens) >= game.shooters_to_place:
        return [" ".join(tokens)] if len(tokens) == game.shooters_to_place else []
    if partial in allowed and len(tokens) + 1 == game.shooters_to_place:
        return [" ".join([*tokens, partial])]
    options = [sq for sq in allowed if sq.startswith(partial) and sq not in tokens]
    return [" ".join([*tokens, sq]) for sq in options[:limit]]


def stone_suggestions(game: Game, shooters: str, typed: str, limit: int = MAX_CHOICES) -> list[str]:
    """Empty squares for the setup stone (any empty square, the edge included), minus the chosen shooters."""
    taken = set(_squares(shooters)) | set(game.position.pieces())
    prefix = typed.strip().lower()
    size = game.position.size
    squares = [square_name(f, r) for f in range(size) for r in range(size)]
    return [sq for sq in squares if sq.startswith(prefix) and sq not in taken][:limit]
