"""What to suggest while a Veletas turn is being typed: pure, so it can be tested (and cached) without Discord.

Every suggestion is legal: moves come from the position's own list of legal moves, setup squares
from the setup rules. When more than ``limit`` match what was typed, suggestions are spread over
the next thing to decide, so typing one more square always narrows towards the turn meant.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from bot.rules.common import square_name
from bot.rules.veletas import Game, Position

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


def _tokens(form: str) -> list[str]:
    # str methods, not re.split: this runs for every matching form of every keystroke.
    return form.replace("-", "/").split("/")


def _next_step(form_tokens: Sequence[str], typed_tokens: list[str]) -> tuple[str, ...]:
    """The squares decided so far plus the next one: what suggestions are spread over."""
    complete = len(typed_tokens) - 1
    if complete < len(form_tokens) and typed_tokens[-1] == form_tokens[complete]:
        complete += 1
    return tuple(form_tokens[: complete + 1])


def _typed_form(
    value: str, stationary: bool, firing: dict[str, tuple[str, ...]], prefix: str
) -> tuple[str, str] | None:
    """The first form of a move that starts with ``prefix``, and its label; None if none does.

    A stationary shot ``g2`` may be typed as ``d4/g2`` (for each shooter that can fire it) or as
    ``g2``; the long forms come first so that, while a shooter is being typed, shots group under it.
    Labels are made only for the form chosen: most moves match no prefix at all.
    """
    if not stationary:
        return (value, value) if value.startswith(prefix) else None
    for shooter in firing.get(value, ()):
        form = f"{shooter}/{value}"
        if form.startswith(prefix):
            return form, f"{form} ({shooter} shoots without moving)"
    if value.startswith(prefix):
        return value, f"{value} (shoot without moving)"
    return None


def move_suggestions(position: Position, typed: str, limit: int = MAX_CHOICES) -> list[tuple[str, str]]:
    """(label, value) pairs for what the player has typed so far; every value is a legal move.

    Each legal move is offered under the forms a player might start typing (``d4-g7/g2``, and for
    a shot without moving both ``g2`` and ``d4/g2``). When more than ``limit`` moves match, the
    suggestions are spread over the next thing to decide (the shooter, then its destination, then
    the target), so typing one more square always narrows towards the move the player means.
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
    typed_tokens = _tokens(prefix)
    moves, firing = _legal(position)
    groups: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for value, stationary in moves:
        chosen = _typed_form(value, stationary, firing, prefix)
        if chosen is not None:
            form, label = chosen
            groups.setdefault(_next_step(_tokens(form), typed_tokens), []).append((label, value))
    suggestions: list[tuple[str, str]] = []
    ordered = [_alternate(groups[key]) for key in sorted(groups, key=_square_order)]
    index = 0
    while len(suggestions) < limit and any(index < len(group) for group in ordered):
        for group in ordered:
            if index < len(group) and len(suggestions) < limit:
                suggestions.append(group[index])
        index += 1
    _suggestion_cache[key] = suggestions
    while len(_suggestion_cache) > _SUGGESTION_CACHE_SIZE:
        _suggestion_cache.popitem(last=False)
    return list(suggestions)


def _alternate(group: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A shooter's moves and its shots without moving, taken in turn, so the first suggestions show both kinds."""
    moving = [entry for entry in group if "-" in entry[1]]
    staying = [entry for entry in group if "-" not in entry[1]]
    mixed: list[tuple[str, str]] = []
    for pair in zip(moving, staying, strict=False):
        mixed.extend(pair)
    shorter = min(len(moving), len(staying))
    return mixed + moving[shorter:] + staying[shorter:]


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
