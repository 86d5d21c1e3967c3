"""Veloop (Square) on the shared canvas: single stones and stacks of two, the last move's target,
support and swap, confined stones, the scores; hints for the guided move (a target, then a support).

A stack is drawn as two stones, the lower one peeking out below the upper one, so a stack reads
as taller than a single stone in every theme and whatever its colours (two stones of one colour
can end up stacked after a swap). Only the top stone counts in the rules, and it is the one
drawn whole.

``VeloopDrawer`` supplies what is Veloop's own to the shared ``Drawer`` (``game_drawer``); ``VELOOP`` is the
one drawer, and ``veloop_board_png``, ``veloop_game_png`` and ``veloop_replay_gif`` are its public functions.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

from PIL import Image, ImageDraw

from bot.i18n import Words
from bot.render.canvas import Cell, Header, Layout, Paste, Pastes, cell_of
from bot.render.game_drawer import Drawer, recorded_players
from bot.render.sprites import cap, circle, mark, segment, shadow, square_tile, stone, stone_light, supersampled
from bot.render.theme import RGB, Theme, mix
from bot.render.words import colour_names, colour_times, or_english
from bot.rules.veloop import Move, Position, Replay, replay

__all__ = [
    "VELOOP",
    "VeloopDrawer",
    "VeloopHints",
    "veloop_board_image",
    "veloop_board_png",
    "veloop_game_image",
    "veloop_game_png",
    "veloop_replay_gif",
]

_LETTER = {"black": "b", "white": "w"}

# A stack's two stones: the lower one's centre sits this far below the square's centre, the
# upper one's this far above, both with this radius (fractions of a square).
_LOWER = 0.12
_UPPER = 0.06
_STACK_R = 0.34


@dataclass(frozen=True)
class VeloopHints:
    """What the guided move shows: the legal targets first; once a target is picked, its legal
    supports; once a support is picked too, the two squares the move would swap.

    ``VeloopHints.for_position`` fills them from the rules.
    """

    selected: str | None = None  # the picked target
    targets: tuple[str, ...] = ()
    supports: tuple[str, ...] = ()
    swap: tuple[str, str] | None = None

    @classmethod
    def for_position(cls, position: Position, target: str | None = None, support: str | None = None) -> VeloopHints:
        """Hints for each step of the guided move; an unknown target or support is refused with ValueError."""
        moves = [m for m in position.legal_moves() if not m.is_pass]
        if target is None:
            return cls(targets=tuple(dict.fromkeys(str(m.target) for m in moves)))
        supports = tuple(str(m.support) for m in moves if m.target == target)
        if not supports:
            raise ValueError(f"no legal move places on {target}")
        if support is None:
            return cls(selected=target, supports=supports)
        if support not in supports:
            raise ValueError(f"{target} cannot be played from {support}")
        return cls(selected=target, supports=(support,), swap=Move(target, support).swap_squares)


# --- the scene ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scene:
    n: int
    stacks: Mapping[Cell, str]  # "b", "w", or two letters bottom then top: "wb" is black on white
    header: Header
    tints: Mapping[Cell, str] = field(default_factory=dict)  # "move" target, "support", "shot" swap squares
    leap: tuple[Cell, Cell] | None = None  # support to target of the last move
    swap: tuple[Cell, Cell] | None = None  # the two squares it swapped
    confined: frozenset[Cell] = frozenset()
    dots: frozenset[Cell] = frozenset()  # empty legal targets
    halos: frozenset[Cell] = frozenset()  # stones a hint points at: over-placement targets, supports
    selected: frozenset[Cell] = frozenset()
    preview: tuple[Cell, Cell] | None = None  # the swap a picked move would make


# --- sprites -----------------------------------------------------------------------------------------------


def _separation(theme: Theme, kind: str) -> RGB:
    """The line round a stack's upper stone, so two stones of one colour still read as two."""
    if kind == "b":
        return theme.black_rim if theme.black_rim != theme.black else mix(theme.black, theme.white, 0.45)
    return theme.white_rim


@lru_cache(maxsize=256)
def _stones(theme: Theme, sq: int, kind: str) -> Image.Image:
    """A single stone (``b``, ``w``) or a stack of two (``bw``: white on black) the size of a square."""
    if len(kind) == 1:
        return stone(theme, sq, kind)

    def disc(d: ImageDraw.ImageDraw, s: int, cy: float, r: float, colour: str, sep: bool) -> None:
        size = sq * s
        c = size / 2
        rim = theme.black_rim if colour == "b" else theme.white_rim
        if sep:
            circle(d, c, cy, r + max(s, size * 0.025), _separation(theme, colour))
        circle(d, c, cy, r, rim)
        edge, centre = stone_light(theme, colour)
        inner = r - max(s, size * 0.035)
        if not theme.shaded:
            circle(d, c, cy, inner, edge)
            return
        # shaded_disc lights a disc at the square's centre; a stack's stones sit off it
        steps = 40
        for i in range(steps):
            t = i / (steps - 1)
            shift = -inner * 0.28 * t
            circle(d, c + shift, cy + shift, inner * (1 - 0.7 * t), mix(edge, centre, t))

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = sq * s
        c = size / 2
        lower, upper = kind[0], kind[1]
        shadow(d, theme, size, c + size * _LOWER, size * (_STACK_R + 0.02))
        disc(d, s, c + size * _LOWER, size * _STACK_R, lower, False)
        disc(d, s, c - size * _UPPER, size * _STACK_R, upper, True)

    return supersampled(sq, sq, draw)


@lru_cache(maxsize=64)
def _veloop_mark(theme: Theme, sq: int, kind: str) -> Image.Image:
    """Veloop's own marks: a ``halo`` round a stone a hint points at, the ``confined`` ring and cross."""

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = sq * s
        c = size / 2
        if kind == "halo":
            circle(d, c, c, size * 0.46, None, outline=theme.hint, width=round(size * 0.085))
        elif kind == "confined":
            # a ring round the stone and a cross on it: the cross says it without colour
            circle(d, c, c, size * 0.47, None, outline=theme.accent, width=round(size * 0.06))
            arm = size * 0.15
            for dx in (-1, 1):
                d.line((c - arm, c - dx * arm, c + arm, c + dx * arm), fill=theme.background, width=round(size * 0.13))
            for dx in (-1, 1):
                d.line((c - arm, c - dx * arm, c + arm, c + dx * arm), fill=theme.accent, width=round(size * 0.075))
        else:
            raise ValueError(f"no Veloop mark {kind!r}")

    return supersampled(sq, sq, draw)


@lru_cache(maxsize=16)
def _swap_arrow(theme: Theme, sq: int, across: bool, colour: RGB) -> Image.Image:
    """A double-headed arrow over the edge two swapped squares share: two squares wide (``across``) or tall."""
    w, h = (2 * sq, sq) if across else (sq, 2 * sq)

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        step = sq * s
        cx, cy = w * s / 2, h * s / 2
        half = step * 0.36  # tip to the middle
        head = step * 0.17
        shaft = step * 0.045
        wing = step * 0.13

        def outline(grow: float) -> list[tuple[float, float]]:
            # along the x axis first, then turned for an upright arrow
            pts = [
                (-half - grow, 0.0),
                (-half + head, -wing - grow),
                (-half + head, -shaft - grow),
                (half - head, -shaft - grow),
                (half - head, -wing - grow),
                (half + grow, 0.0),
                (half - head, wing + grow),
                (half - head, shaft + grow),
                (-half + head, shaft + grow),
                (-half + head, wing + grow),
            ]
            return [(cx + x, cy + y) if across else (cx + y, cy + x) for x, y in pts]

        d.polygon(outline(step * 0.035), fill=theme.background)
        d.polygon(outline(0.0), fill=colour)

    return supersampled(w, h, draw)


# --- from rules objects to scenes --------------------------------------------------------------------------


def _status(
    position: Position, names: tuple[str, str], w: Words, times: tuple[str | None, str | None] = (None, None)
) -> tuple[str | None, str, bool]:
    """Whom the header underlines, its status line, and whether the game is over."""
    result = position.result
    if result is None:
        colour = position.to_move
        side = 0 if colour == "black" else 1
        who, time = names[side], times[side]
        clock = "_clock" if time else ""
        if position.plies == 2:
            return colour, w(f"render.veloop_to_move_ply{clock}", who=who, ply=position.ply, time=time), False
        return colour, w(f"render.veloop_to_move{clock}", who=who, time=time), False
    confined = position.confined
    if result == "draw":
        if position.lone_passes >= 2:
            return None, w("render.veloop_draw_passes"), True
        return None, w("render.veloop_draw_confined", black=len(confined.black), white=len(confined.white)), True
    who = names[0] if result == "black" else names[1]
    loser = "white" if result == "black" else "black"
    count = len(confined.white if result == "black" else confined.black)
    return None, w(f"render.veloop_wins_{loser}_confined", who=who, count=count), True


def _scene(
    position: Position,
    *,
    last_move: Move | None,
    hints: VeloopHints | None,
    names: tuple[str, str],
    result: str | None,
    w: Words | None = None,
    times: tuple[str | None, str | None] = (None, None),
) -> _Scene:
    n = position.size
    w = or_english(w)
    stacks = {cell_of(sq, n): "".join(_LETTER[c] for c in stack) for sq, stack in position.stones().items()}
    underline, status, finished = _status(position, names, w, times)
    if last_move is not None and last_move.is_pass and not finished:
        # a pass ends a turn, so the one who passed is the one not to move now
        passer = names[1] if position.to_move == "black" else names[0]
        status = w("render.veloop_had_to_pass", status=status, who=passer)
    if result:
        underline, status, finished = None, result, True
    # The score is what decides the game: each side's confined stones (fewer wins), never a negative number.
    confined_now = position.confined
    score = (len(confined_now.black), len(confined_now.white))
    label = w("render.veloop_score_label")
    header = Header(names, score, underline, status, finished, times, label)
    tints: dict[Cell, str] = {}
    leap: tuple[Cell, Cell] | None = None
    swap: tuple[Cell, Cell] | None = None
    if last_move is not None and not last_move.is_pass and last_move.target and last_move.support:
        target, support = cell_of(last_move.target, n), cell_of(last_move.support, n)
        squares = last_move.swap_squares
        if squares is not None:
            a, b = cell_of(squares[0], n), cell_of(squares[1], n)
            swap = (a, b)
            tints[a] = tints[b] = "shot"
            leap = (support, target)
            tints[support] = "support"
        tints[target] = "move"
    confined = position.confined
    marked = frozenset(cell_of(sq, n) for sq in (*confined.black, *confined.white))
    dots: set[Cell] = set()
    halos: set[Cell] = set()
    selected: frozenset[Cell] = frozenset()
    preview: tuple[Cell, Cell] | None = None
    if hints is not None:
        for sq in hints.targets:
            cell = cell_of(sq, n)
            (halos if cell in stacks else dots).add(cell)
        halos.update(cell_of(sq, n) for sq in hints.supports)
        if hints.selected is not None:
            selected = frozenset({cell_of(hints.selected, n)})
        if hints.swap is not None:
            preview = (cell_of(hints.swap[0], n), cell_of(hints.swap[1], n))
    return _Scene(
        n=n,
        stacks=stacks,
        header=header,
        tints=tints,
        leap=leap,
        swap=swap,
        confined=marked,
        dots=frozenset(dots),
        halos=frozenset(halos),
        selected=selected,
        preview=preview,
    )


# --- games and replays -------------------------------------------------------------------------------------


class _GameLike(Protocol):
    """A Veloop game value: its moves so far and the position they reached (the rules' ``Game``)."""

    @property
    def moves(self) -> Sequence[Move]: ...

    @property
    def position(self) -> Position: ...


def _history(
    game: Replay | _GameLike | str, players: Mapping[str, str] | None
) -> tuple[list[Position], list[Move], Mapping[str, str] | None]:
    """Every position from the start and the moves between them, and whose names to show
    (those given, else a record's Black and White headers)."""
    if isinstance(game, str):
        if players is None:
            players = recorded_players(game)
        game = replay(game)
    if isinstance(game, Replay):
        return [game.start, *game.positions], list(game.moves), players
    start = getattr(game, "start", None)
    position = start if isinstance(start, Position) else Position.start(game.position.size, game.position.protocol)
    positions = [position]
    for move in game.moves:
        position = position.play(move)
        positions.append(position)
    return positions, list(game.moves), players


# --- the drawer --------------------------------------------------------------------------------------------


class VeloopDrawer(Drawer[Position, Move, Replay | _GameLike | str, VeloopHints, _Scene]):
    """Veloop's drawer: stones and stacks, the last move (target, support, swap), confined stones, the score
    (each side's confined stones) and whose move it is. A game is a record's text, a ``Replay`` or a game
    value (its moves from its start), drawn ply by ply; ``last_move`` is written as ``f6<e4``."""

    game = "veloop"
    hints = VeloopHints

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    def pastes(self, scene: _Scene, theme: Theme, lay: Layout) -> list[Paste]:
        """The scene's sprites in the order they are laid: tints, the leap, stones, then marks on top."""
        pastes = Pastes(theme, lay)
        add = pastes.add

        for cell, tint in scene.tints.items():
            add(cell, square_tile, (cell[0] + cell[1]) % 2 == 0, tint, False)
        if scene.leap is not None:
            a, b = scene.leap
            add((min(a[0], b[0]), max(a[1], b[1])), segment, b[0] - a[0], b[1] - a[1], "move")
            add(a, cap, "move")
        for cell, kind in scene.stacks.items():
            add(cell, _stones, kind)
        for cell in scene.confined:
            add(cell, _veloop_mark, "confined")
        for pair, colour in ((scene.swap, theme.shot_line), (scene.preview, theme.text)):
            if pair is not None:
                first, second = sorted(pair, key=lambda c: (c[0], -c[1]))  # left one, or upper one
                add(first, _swap_arrow, first[1] == second[1], colour)
        for cells, kind in ((scene.dots, "dot"), (scene.selected, "select")):
            for cell in cells:
                add(cell, mark, kind)
        for cell in scene.halos:
            add(cell, _veloop_mark, "halo")
        return pastes

    def catalogue(self, theme: Theme) -> list[_Scene]:
        scenes = []
        kinds = ("b", "w", "bw", "wb", "bb", "ww")
        running = Header(("Black player", "White player"), (0, 0), "black", "Black player to move  ·  ply 1 of 2")
        names = ("Black player", "White player")
        over = Header(names, (-1, 0), "white", "White player wins  ·  1 black stone confined", True)
        for n in (8, 12):
            cells = [(f, r) for f in range(n) for r in range(n)]
            stacks = {c: kinds[i % 6] for i, c in enumerate(cells) if i % 3 != 2}
            tints = {c: ("move", "support", "shot")[i % 3] for i, c in enumerate(cells) if i % 4 == 1}
            scenes.append(
                _Scene(
                    n=n,
                    stacks=stacks,
                    header=running if n == 8 else over,
                    tints=tints,
                    leap=((2, 2), (3, 4)),
                    swap=((2, 3), (3, 3)),
                    preview=((5, 5), (5, 6)),
                    confined=frozenset(c for c in cells if (c[0] + 2 * c[1]) % 5 == 0),
                    dots=frozenset(c for c in cells if c not in stacks),
                    halos=frozenset(c for c in cells if c[0] % 3 == 0),
                    selected=frozenset(c for c in cells if c[1] == 0),
                )
            )
        return scenes

    def extra_colours(self, theme: Theme) -> list[RGB]:
        """The square a move leapt from is tinted at half strength: both its shades, exactly."""
        return [mix(square, theme.move, theme.tint / 2) for square in (theme.light, theme.dark)]

    def position_scene(
        self,
        position: Position,
        last_move: Move | None,
        hints: VeloopHints | None,
        names: tuple[str, str],
        times: tuple[str | None, str | None],
        result: str | None,
        w: Words,
    ) -> _Scene:
        return _scene(position, last_move=last_move, hints=hints, names=names, result=result, w=w, times=times)

    def game_scene(
        self,
        game: Replay | _GameLike | str,
        ply: int | None,
        hints: VeloopHints | None,
        players: Mapping[str, str] | None,
        result: str | None,
        words: Words | None,
        clocks: Mapping[str, str] | None,
    ) -> _Scene:
        positions, moves, players = _history(game, players)
        at = len(moves) if ply is None else ply
        if not 0 <= at <= len(moves):
            raise ValueError(f"ply {at} is not in this game: it has plies 0 to {len(moves)}")
        last = moves[at - 1] if at else None
        w = or_english(words)
        names = colour_names(players, w)
        return _scene(
            positions[at], last_move=last, hints=hints, names=names, result=result, w=w, times=colour_times(clocks)
        )

    def replay_scenes(
        self,
        game: Replay | _GameLike | str,
        players: Mapping[str, str] | None,
        result: str | None,
        words: Words | None,
    ) -> Iterator[_Scene]:
        positions, moves, players = _history(game, players)
        w = or_english(words)
        names = colour_names(players, w)
        for k, position in enumerate(positions):
            last = moves[k - 1] if k else None
            ending = result if k == len(moves) else None
            yield _scene(position, last_move=last, hints=None, names=names, result=ending, w=w)


VELOOP = VeloopDrawer()
veloop_board_image = VELOOP.board_image
veloop_board_png = VELOOP.board_png
veloop_game_image = VELOOP.game_image
veloop_game_png = VELOOP.game_png
veloop_replay_gif = VELOOP.replay_gif
