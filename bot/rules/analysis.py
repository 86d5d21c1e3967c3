"""What may be analysed: positions on the games' own boards, and none close to a game being played.

Analysis must never become a hint in a live game between people. Pasting the live position is
the obvious way, but so are the position after a candidate move, the position two plies ahead
(a move and the expected reply), the same board with the other side to move, or the board as it
stood one or two plies ago. ``within_two_plies`` answers exactly that question.

It is exact, not a similarity score, and it stays fast because of one fact of the rules: stones
never leave the board, and every ply adds exactly one stone. So the number of stones tells how
many plies apart two boards can be, the new stones tell which squares the shots hit, and only
moves that shoot onto those squares need to be tried, instead of every two-ply continuation.

Pure rules logic: no Discord, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from bot.rules.protocol import Refused
from bot.rules.veletas import (
    CLAIMED_BLACK,
    CLAIMED_WHITE,
    EMPTY,
    SHOOTER,
    STONE_BLACK,
    STONE_WHITE,
    VARIANTS,
    Game,
    Move,
    Position,
)

__all__ = ["BOARD_SIZES", "BoardSizeRefused", "read_position", "within_two_plies", "within_two_plies_of_any"]

BOARD_SIZES: tuple[int, ...] = tuple(sorted({variant.size for variant in VARIANTS.values()}))
"""The only board sizes a game is played on, so the only ones worth analysing (7, 9, 10)."""

PLIES = 2
"""How close to a live game a position may not come, in plies (either way: ahead or behind)."""

_STONES = (STONE_BLACK, STONE_WHITE)
_CLAIMED = (CLAIMED_BLACK, CLAIMED_WHITE)


class BoardSizeRefused(Refused):
    """A position string whose board is not one the games are played on."""

    def __init__(self, size: int, sizes: tuple[int, ...] = BOARD_SIZES) -> None:
        self.size = size
        self.sizes = sizes
        listed = ", ".join(f"{n}×{n}" for n in sizes)
        super().__init__(
            f"the board is {size}×{size}, but games are played on {listed} boards only",
            "rules.board_size",
            size=size,
            sizes=tuple(f"{n}×{n}" for n in sizes),
        )


def read_position(text: str, rules: str = "current") -> Position:
    """``Position.from_string`` for the games' own boards only.

    The size is read from the text (its number of ranks) before anything is built for it: the
    rules build and keep lookup tables per board size, which for a large board costs most of a
    second and tens of megabytes, so a foreign size is refused before it can cost anything.
    """
    parts = text.split()
    if len(parts) == 2:
        size = parts[0].count("/") + 1
        if size not in BOARD_SIZES:
            raise BoardSizeRefused(size)
    return Position.from_string(text, rules)


def _board(position: Position) -> bytes:
    """The pieces alone: side to move and rules edition left out, since neither changes the picture."""
    return position._cells


def _stones(cells: bytes) -> int:
    return cells.count(STONE_BLACK) + cells.count(STONE_WHITE)


def within_two_plies(pasted: Position, game: Game) -> bool:
    """Whether ``pasted`` is within two plies of ``game``'s live position, whoever is to move in either.

    True when ``pasted`` shows (side to move and edition ignored) the live board, a board that
    one or two moves from the live position lead to (played by either side first), or one of the
    two boards before the live one in this game. A game still in its setup counts its board
    as live, and any board that extends it by the rest of the setup and up to two more stones is
    refused too: a setup being weighed is the same hint.
    """
    live = game.position
    if pasted.size != live.size:
        return False
    goal, now = _board(pasted), _board(live)
    if game.phase in ("setup", "pie"):
        return _extends(goal, now, PLIES + 1)
    extra = _stones(goal) - _stones(now)
    if extra == 0:
        return goal == now
    if 0 < extra <= PLIES:
        return _ahead(live, goal, extra)
    if 0 < -extra <= PLIES:
        return any(_board(before) == goal for before in _recent(game, -extra))
    return False


def _extends(goal: bytes, now: bytes, stones: int) -> bool:
    """Every piece of ``now`` is on ``goal`` unchanged (shooters may have been claimed) and at most ``stones`` more."""
    for sq, piece in enumerate(now):
        if piece == EMPTY:
            continue
        there = goal[sq]
        if there != piece and not (piece == SHOOTER and there in _CLAIMED):
            return False
    return 0 <= _stones(goal) - _stones(now) <= stones


def _recent(game: Game, back: int) -> list[Position]:
    """The position ``back`` plies before the live one, when the game had already started playing then."""
    if back > len(game.moves):
        return []
    turns = game.turns
    return [Game.replay(turns[: len(turns) - back], variant=game.variant.name, rules=game.rules).position]


def _ahead(live: Position, goal: bytes, plies: int) -> bool:
    """Whether ``plies`` moves from ``live`` (either side first, then alternating) can leave exactly ``goal``."""
    now = _board(live)
    new: list[int] = []
    for sq, piece in enumerate(now):
        there = goal[sq]
        if piece in _STONES or piece in _CLAIMED:
            if there != piece:
                return False  # stones never move, and a claim is for good
        elif there in _STONES:
            new.append(sq)
    if len(new) != plies:
        return False
    colours = [goal[sq] - STONE_BLACK for sq in new]
    orders: list[tuple[int, ...]]
    if plies == 1:
        orders = [(new[0],)]
    elif colours[0] == colours[1]:
        return False  # the sides alternate: two plies add one stone of each colour
    else:
        orders = [(new[0], new[1]), (new[1], new[0])]
    for order in orders:
        start = _with_side(live, goal[order[0]] - STONE_BLACK)
        if _leads_to(start, goal, order):
            return True
    return False


def _leads_to(position: Position, goal: bytes, targets: tuple[int, ...]) -> bool:
    first, rest = targets[0], targets[1:]
    for after in _shots_onto(position, first):
        cells = _board(after)
        if not rest:
            if cells == goal:
                return True
        elif _may_become(cells, goal) and _leads_to(after, goal, rest):
            return True
    return False


def _may_become(cells: bytes, goal: bytes) -> bool:
    """Whether one more ply could turn ``cells`` into ``goal``: stones and claims kept, at most one shooter moved."""
    moved = 0
    for sq, piece in enumerate(cells):
        there = goal[sq]
        if piece in _STONES or piece in _CLAIMED:
            if there != piece:
                return False
        elif piece == SHOOTER and there not in (SHOOTER, *_CLAIMED):
            moved += 1
    return moved <= 1


def _shots_onto(position: Position, target: int) -> Iterator[Position]:
    """Every position after a move of ``position``'s side to move whose stone lands on ``target``."""
    if position.winner is not None:
        return
    names = position._geo.names
    aim = names[target]
    stationary = False
    for shooter in position.unclaimed():
        if not stationary and aim in position.targets(shooter):
            stationary = True
            yield position.play(Move(None, None, aim))
        for dest in position.destinations(shooter):
            if aim in position.targets(dest, vacated=shooter):
                yield position.play(Move(shooter, dest, aim))


def _with_side(position: Position, side: int) -> Position:
    """The same board with ``side`` (0 black, 1 white) to move."""
    if position.to_move == ("black", "white")[side]:
        return position
    board = str(position).split()[0]
    return Position.from_string(f"{board} {'bw'[side]}", position.rules)


def within_two_plies_of_any(pasted: Position, games: Iterable[tuple[Sequence[str], str, str]]) -> bool:
    """``within_two_plies`` against live games given as (turns, variant, rules); only same-size boards replay."""
    for turns, variant, rules in games:
        chosen = VARIANTS.get(variant)
        if chosen is None or chosen.size != pasted.size:
            continue
        if within_two_plies(pasted, Game.replay(turns, variant=variant, rules=rules)):
            return True
    return False
