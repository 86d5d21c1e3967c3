"""Veletas on the shared canvas: stones, shooters (claimed or not), the last move's path and shot, claims,
setup hatching, the pie choice and the result; hints for the guided move.

``VeletasDrawer`` supplies what is Veletas's own to the shared ``Drawer`` (``game_drawer``): its pieces and
marks, its catalogue for the palette, and its rules objects as scenes; ``VELETAS`` is the one drawer, and
``board_png``, ``game_png`` and ``replay_gif`` are its public functions.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache

from PIL import Image, ImageDraw

from bot.i18n import Words
from bot.render.canvas import Cell, Header, Layout, Paste, Pastes, cell_of, queen_line
from bot.render.game_drawer import Drawer, recorded_players
from bot.render.sprites import (
    cap,
    circle,
    mark,
    segment,
    shaded_disc,
    shadow,
    shooter_light,
    square_tile,
    stone,
    stone_light,
    supersampled,
)
from bot.render.text import drawable, face
from bot.render.theme import Theme
from bot.render.words import colour_times, or_english
from bot.rules import Game, Move, Position
from bot.rules.common import square_name

__all__ = ["VELETAS", "Hints", "VeletasDrawer", "board_image", "board_png", "game_image", "game_png", "replay_gif"]


@dataclass(frozen=True)
class Hints:
    """What a player asked to see on top of the board while choosing a move or setting up.

    ``destinations`` and ``targets`` come from the rules (``Position.destinations`` and
    ``Position.targets``); ``Hints.for_shooter`` fills them for the guided-input flow.
    """

    selected: str | None = None
    destinations: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    groups: bool = False  # badges with the biggest adjacent black and white group of each unclaimed shooter
    forbidden: tuple[str, ...] = ()  # squares where a setup shooter may not go
    placing: tuple[str, ...] = ()  # setup: shooters chosen this turn, drawn as they will stand
    stone: str | None = None  # setup: the square chosen for this turn's stone, drawn as it will stand

    @classmethod
    def for_shooter(
        cls, position: Position, shooter: str, *, destination: str | None = None, groups: bool = False
    ) -> Hints:
        """Hints for a player who picked ``shooter`` (and perhaps where it goes): where it may go, what it may hit.

        Before a destination is chosen the targets are those of a shot without moving; after,
        the targets are seen from the destination with the square the shooter left counted empty.
        """
        if destination is None or destination == shooter:
            return cls(
                selected=shooter,
                destinations=tuple(position.destinations(shooter)),
                targets=tuple(position.targets(shooter)),
                groups=groups,
            )
        return cls(
            selected=destination,
            targets=tuple(position.targets(destination, vacated=shooter)),
            groups=groups,
        )


@dataclass(frozen=True)
class _Scene:
    n: int
    pieces: Mapping[Cell, str]
    header: Header
    tints: Mapping[Cell, str] = field(default_factory=dict)  # "move" or "shot"
    hatched: frozenset[Cell] = frozenset()
    ghosts: frozenset[Cell] = frozenset()  # where a shooter stood before it moved
    path: tuple[Cell, ...] = ()  # origin to destination of the last move
    shot: tuple[Cell, ...] = ()  # from the shooter to the square it shot
    dots: frozenset[Cell] = frozenset()
    rings: frozenset[Cell] = frozenset()
    claims: frozenset[Cell] = frozenset()
    selected: frozenset[Cell] = frozenset()  # the shooter (or its destination) a player picked
    badges: Mapping[Cell, tuple[int, int]] = field(default_factory=dict)


@lru_cache(maxsize=256)
def _piece(theme: Theme, sq: int, kind: str) -> Image.Image:
    """A piece sprite the size of a square: ``b``/``w`` stones, ``S`` unclaimed, ``B``/``W`` claimed shooters."""

    if kind in "bw":
        return stone(theme, sq, kind)

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = sq * s
        c = size / 2
        shadow(d, theme, size, c, size * 0.40)
        rim_w = max(s, size * 0.04)
        if theme.square_shooters:
            half = size * 0.39
            d.rounded_rectangle((c - half, c - half, c + half, c + half), radius=size * 0.10, fill=theme.shooter_rim)
            d.rounded_rectangle(
                (c - half + rim_w, c - half + rim_w, c + half - rim_w, c + half - rim_w),
                radius=size * 0.10 - rim_w,
                fill=theme.shooter,
            )
        else:
            circle(d, c, c, size * 0.41, theme.shooter_rim)
            shaded_disc(d, c, size * 0.41 - rim_w, theme.shooter, shooter_light(theme), theme.shaded)
        if kind == "S":
            # an empty socket: the place where a claiming stone will sit
            circle(d, c, c, size * 0.15, None, outline=theme.shooter_rim, width=max(s, round(size * 0.03)))
            return
        cap_colour = "b" if kind == "B" else "w"
        circle(d, c, c, size * 0.27, theme.shooter_rim)
        shaded_disc(d, c, size * 0.27 - rim_w * 0.9, *stone_light(theme, cap_colour), theme.shaded)
        if theme.marked_claims:
            circle(d, c, c, size * 0.07, theme.white if kind == "B" else theme.black)

    return supersampled(sq, sq, draw)


@lru_cache(maxsize=64)
def _mark(theme: Theme, sq: int, kind: str) -> Image.Image:
    """Marks drawn on a square: the shared hint marks, the ``ghost`` a moved shooter left, a ``claim`` halo."""
    if kind in ("dot", "ring", "select"):
        return mark(theme, sq, kind)

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = sq * s
        c = size / 2
        if kind == "ghost":
            col = (*theme.shooter_rim, 150)
            if theme.square_shooters:
                half = size * 0.36
                d.rounded_rectangle(
                    (c - half, c - half, c + half, c + half), radius=size * 0.09, outline=col, width=round(size * 0.05)
                )
            else:
                circle(d, c, c, size * 0.36, None, outline=col, width=round(size * 0.05))
        elif kind == "claim":
            w = round(size * 0.06)
            if theme.square_shooters:
                half = size * 0.49
                d.rounded_rectangle(
                    (c - half, c - half, c + half, c + half), radius=size * 0.14, outline=theme.claim, width=w
                )
            else:
                circle(d, c, c, size * 0.49, None, outline=theme.claim, width=w)

    return supersampled(sq, sq, draw)


@lru_cache(maxsize=512)
def _badge(theme: Theme, sq: int, black: int, white: int) -> Image.Image:
    """Two small counters under a shooter: its biggest adjacent black and white groups."""

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = sq * s
        h = size * 0.27
        font = face(round(h * 0.78))
        y1 = size - size * 0.02
        y0 = y1 - h
        for value, fill, ink, x0 in (
            (black, theme.black, theme.white, size * 0.03),
            (white, theme.white, theme.black, size * 0.53),
        ):
            x1 = x0 + size * 0.44
            rim = theme.black_rim if fill == theme.black and theme.black_rim != theme.black else theme.white_rim
            d.rounded_rectangle((x0, y0, x1, y1), radius=h / 2, fill=rim)
            inset = max(s, size * 0.018)
            d.rounded_rectangle((x0 + inset, y0 + inset, x1 - inset, y1 - inset), radius=h / 2 - inset, fill=fill)
            d.text(((x0 + x1) / 2, (y0 + y1) / 2), str(value), font=font, fill=ink, anchor="mm")

    return supersampled(sq, sq, draw)


def _ended(header: Header, result: str | None) -> Header:
    """The header of a game that ended off the board: ``result`` in place of whose move it is."""
    if not result:
        return header
    return Header(header.names, header.score, None, result, True, header.times, header.score_label)


def _status_line(
    position: Position, names: tuple[str, str], w: Words, times: tuple[str | None, str | None] = (None, None)
) -> tuple[str | None, str, bool]:
    black, white = position.score
    need = position.needed_to_win
    if position.winner is not None:
        who = names[0] if position.winner == "black" else names[1]
        return None, w("render.wins_score", who=who, black=black, white=white), True
    side = 0 if position.to_move == "black" else 1
    if times[side]:
        return position.to_move, w("render.to_move_need_clock", who=names[side], time=times[side], count=need), False
    return position.to_move, w("render.to_move_need", who=names[side], count=need), False


def _scene(
    position: Position,
    *,
    last_move: Move | None,
    hints: Hints | None,
    header: Header,
    placed: Iterable[str] = (),
    extra: Mapping[str, str] | None = None,
) -> _Scene:
    n = position.size
    pieces = {cell_of(sq, n): piece for sq, piece in position.pieces().items()}
    for sq, piece in (extra or {}).items():
        pieces[cell_of(sq, n)] = piece
    tints: dict[Cell, str] = {}
    ghosts: set[Cell] = set()
    path: tuple[Cell, ...] = ()
    shot: tuple[Cell, ...] = ()
    for sq in placed:
        tints[cell_of(sq, n)] = "move"
    if last_move is not None:
        target = cell_of(last_move.target, n)
        if last_move.shooter is not None and last_move.destination is not None:
            origin = cell_of(last_move.shooter, n)
            dest = cell_of(last_move.destination, n)
            path = queen_line(origin, dest)
            shot = queen_line(dest, target)
            tints[origin] = tints[dest] = "move"
            ghosts.add(origin)
        else:
            shooter = last_move.shooter or _only_shooter_of(pieces, target, n)
            if shooter is not None:
                shot = queen_line(cell_of(shooter, n), target)
                tints[cell_of(shooter, n)] = "move"
        tints[target] = "shot"
    claims = frozenset(cell_of(c.square, n) for c in position.last_claims)
    dots: frozenset[Cell] = frozenset()
    rings: frozenset[Cell] = frozenset()
    hatched: frozenset[Cell] = frozenset()
    selected: frozenset[Cell] = frozenset()
    badges: dict[Cell, tuple[int, int]] = {}
    if hints is not None:
        if hints.selected is not None:
            selected = frozenset({cell_of(hints.selected, n)})
        dots = frozenset(cell_of(sq, n) for sq in hints.destinations)
        rings = frozenset(cell_of(sq, n) for sq in hints.targets)
        hatched = frozenset(cell_of(sq, n) for sq in hints.forbidden)
        if hints.groups:
            badges = {cell_of(sq, n): sizes for sq, sizes in position.group_hints().items()}
    return _Scene(
        n=n,
        pieces=pieces,
        header=header,
        tints=tints,
        hatched=hatched,
        ghosts=frozenset(ghosts - set(pieces)),
        path=path,
        shot=shot,
        dots=dots,
        rings=rings,
        claims=claims,
        selected=selected,
        badges=badges,
    )


def _only_shooter_of(pieces: Mapping[Cell, str], target: Cell, n: int) -> str | None:
    """The shooter that made a stationary shot onto ``target``, when only one could have (the canonical ``g2``
    does not say): the one shooter with a clear queen line to it. None when several could have."""
    found: list[Cell] = []
    for cell, piece in pieces.items():
        if piece not in "SBW" or cell == target:
            continue
        line = queen_line(cell, target)
        if len(line) > 1 and not any(step in pieces for step in line[1:-1]):
            found.append(cell)
    return square_name(*found[0]) if len(found) == 1 else None


# --- games: setup, pie, play and the end, and replays ---------------------------------------------------------

_SEATS = ("first", "second")


def _colour_of_seat(game: Game, seat: str) -> str | None:
    first = game.first_player_colour
    if first is None:
        return None
    return first if seat == "first" else ("white" if first == "black" else "black")


def _game_names(game: Game, players: Mapping[str, str] | None, w: Words) -> tuple[tuple[str, str], dict[str, str]]:
    """Names by colour for the header and by seat for the status line, from whichever keys were given."""
    players = drawable(players)
    seats: dict[str, str] = {}
    for seat, fallback in zip(_SEATS, (w("render.first_player"), w("render.second_player")), strict=True):
        colour = _colour_of_seat(game, seat)
        seats[seat] = players.get(seat) or (players.get(colour) if colour else None) or fallback
    colours: list[str] = []
    for colour in ("black", "white"):
        name = players.get(colour)
        if name is None and game.first_player_colour is not None:
            seat = "first" if game.first_player_colour == colour else "second"
            name = players.get(seat)
        colours.append(name or w(f"render.{colour}"))
    return (colours[0], colours[1]), seats


def _setup_status(game: Game, seat_names: Mapping[str, str], w: Words) -> str:
    who = seat_names[game.seat_to_act or "first"]
    count = game.shooters_to_place
    if game.stone_to_place:
        return w(f"render.setup_stone_{game.colour_to_act or 'black'}", who=who, count=count)
    return w("render.setup", who=who, count=count)


def _game_scene(
    game: Game,
    previous: Game | None,
    hints: Hints | None,
    players: Mapping[str, str] | None,
    result: str | None = None,
    w: Words | None = None,
    clocks: Mapping[str, str] | None = None,
) -> _Scene:
    position = game.position
    w = or_english(w)
    names, seats = _game_names(game, players, w)
    times = colour_times(clocks, {colour: game.seat_of(colour) for colour in ("black", "white")})
    placed: list[str] = []
    extra: dict[str, str] = {}
    if previous is not None and previous.phase in ("setup", "pie") and game.phase != "over":
        before = previous.position.pieces()
        placed = [sq for sq in position.pieces() if sq not in before]
    if game.phase == "setup":
        occupied = position.pieces()
        allowed = set(game.setup_squares())
        forbidden = tuple(
            square_name(f, r)
            for f in range(position.size)
            for r in range(position.size)
            if square_name(f, r) not in allowed and square_name(f, r) not in occupied
        )
        base = hints or Hints()
        taken = set(base.placing) | {base.stone}
        hints = replace(base, forbidden=base.forbidden or tuple(sq for sq in forbidden if sq not in taken))
        for sq in base.placing:
            extra[sq] = "S"
        if base.stone is not None and game.stone_to_place:
            extra[base.stone] = "w" if game.colour_to_act == "white" else "b"
        placed = [*placed, *extra]
        header = Header(names, position.score, game.colour_to_act, _setup_status(game, seats, w), False, times)
    elif game.phase == "pie":
        who = seats[game.seat_to_act or "second"]
        header = Header(names, position.score, None, w("render.pie", who=who), False, times)
    elif game.phase == "over":
        winner = game.winner or position.winner
        who = names[0] if winner == "black" else names[1]
        black, white = position.score
        status = w("render.wins_score", who=who, black=black, white=white)
        header = Header(names, position.score, None, status, True, times)
    else:
        to_move, status, finished = _status_line(position, names, w, times)
        header = Header(names, position.score, to_move, status, finished, times)
    last = game.last_move if game.phase in ("play", "over") else None
    return _scene(position, last_move=last, hints=hints, header=_ended(header, result), placed=placed, extra=extra)


def _load(game: Game | str, players: Mapping[str, str] | None) -> tuple[Game, Mapping[str, str] | None]:
    """The game, and whose names to show: those given, else a record's Black and White headers."""
    if not isinstance(game, str):
        return game, players
    loaded = Game.from_record(game)
    if players is None:
        players = recorded_players(game)
    return loaded, players


def _replay_to(game: Game, ply: int) -> Game:
    turns = game.turns
    if not 0 <= ply <= len(turns):
        raise ValueError(f"ply {ply} is not in this game: it has plies 0 to {len(turns)}")
    return Game.replay(turns[:ply], variant=game.variant.name, rules=game.rules)


# --- the drawer --------------------------------------------------------------------------------------------


class VeletasDrawer(Drawer[Position, Move, Game | str, Hints, _Scene]):
    """Veletas's drawer. A game's image (``game_png``) shows its phase: setup shows where shooters may not
    go, the pie choice says who chooses, play shows the last move, and a finished game shows its result;
    ``ply`` counts turns played, setup and pie choice included, and ``players`` and ``clocks`` may be keyed
    by seat (``"first"``, ``"second"``) or by colour."""

    game = "veletas"
    hints = Hints

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    def pastes(self, scene: _Scene, theme: Theme, lay: Layout) -> list[Paste]:
        """The scene's sprites in the order they are laid: tints, lines, marks, pieces, hints, badges."""
        pastes = Pastes(theme, lay)
        add = pastes.add

        for cell in set(scene.tints) | scene.hatched:
            add(cell, square_tile, (cell[0] + cell[1]) % 2 == 0, scene.tints.get(cell), cell in scene.hatched)
        for line, style in ((scene.path, "move"), (scene.shot, "shot")):
            for a, b in itertools.pairwise(line):
                add((min(a[0], b[0]), max(a[1], b[1])), segment, b[0] - a[0], b[1] - a[1], style)
            if len(line) > 1 and style == "move":
                add(line[0], cap, style)
        for cells, kind in ((scene.ghosts, "ghost"), (scene.claims, "claim")):
            for cell in cells:
                add(cell, _mark, kind)
        for cell, piece in scene.pieces.items():
            add(cell, _piece, piece)
        for cells, kind in ((scene.dots, "dot"), (scene.rings, "ring"), (scene.selected, "select")):
            for cell in cells:
                add(cell, _mark, kind)
        for cell, (black, white) in scene.badges.items():
            add(cell, _badge, black, white)
        return pastes

    def catalogue(self, theme: Theme) -> list[_Scene]:
        n = 10
        cells = [(f, r) for f in range(n) for r in range(n)]
        kinds = "SBWbw"
        pieces = {cell: kinds[i % 5] for i, cell in enumerate(cells) if i % 3 != 2}
        header = Header(("Black player", "White player"), (2, 3), "black", "Black to move · 4 to win")
        over = Header(("Black player", "White player"), (4, 1), None, "Black wins 4 – 1", finished=True)
        odd = frozenset(c for c in cells if (c[0] * 3 + c[1]) % 4 == 0)
        return [
            _Scene(
                n=n,
                pieces=pieces,
                header=header,
                tints={c: ("move", "shot")[i % 4 // 2] for i, c in enumerate(cells) if i % 2},
                selected=frozenset(c for c in cells if c[1] == 9),
                ghosts=odd,
                path=((0, 0), (1, 1), (2, 2), (2, 3), (2, 4), (1, 4), (0, 3)),
                shot=((5, 5), (6, 5), (7, 6), (7, 7)),
                claims=odd,
                badges={c: (c[0] % 8, c[1] % 8) for c in cells if c[0] % 2 == 0},
            ),
            _Scene(
                n=n,
                pieces={},
                header=over,
                hatched=frozenset(c for c in cells if c[0] < 3),
                tints={c: ("move", "shot")[c[1] % 2] for c in cells if c[0] % 3 == 0},
                selected=frozenset(c for c in cells if c[0] == 9),
                dots=frozenset(c for c in cells if c[1] % 2 == 0),
                rings=frozenset(c for c in cells if c[1] % 2 == 1),
            ),
        ]

    def position_scene(
        self,
        position: Position,
        last_move: Move | None,
        hints: Hints | None,
        names: tuple[str, str],
        times: tuple[str | None, str | None],
        result: str | None,
        w: Words,
    ) -> _Scene:
        to_move, status, finished = _status_line(position, names, w, times)
        header = _ended(Header(names, position.score, to_move, status, finished, times), result)
        return _scene(position, last_move=last_move, hints=hints, header=header)

    def game_scene(
        self,
        game: Game | str,
        ply: int | None,
        hints: Hints | None,
        players: Mapping[str, str] | None,
        result: str | None,
        words: Words | None,
        clocks: Mapping[str, str] | None,
    ) -> _Scene:
        full, players = _load(game, players)
        at = full if ply is None or ply == len(full.turns) else _replay_to(full, ply)
        count = len(at.turns)
        previous = _replay_to(full, count - 1) if count and at.phase in ("setup", "pie", "play") else None
        return _game_scene(at, previous, hints, players, result, words, clocks)

    def replay_scenes(
        self, game: Game | str, players: Mapping[str, str] | None, result: str | None, words: Words | None
    ) -> Iterator[_Scene]:
        full, names = _load(game, players)
        current = Game.new(full.variant.name, rules=full.rules)
        count = len(full.turns)
        yield _game_scene(current, None, None, names, result if count == 0 else None, words)
        for k, turn in enumerate(full.turns, 1):
            previous, current = current, current.play(turn)
            ending = result if k == count else None
            yield _game_scene(current, previous, None, names, ending, words)


VELETAS = VeletasDrawer()
board_image = VELETAS.board_image
board_png = VELETAS.board_png
game_image = VELETAS.game_image
game_png = VELETAS.game_png
replay_gif = VELETAS.replay_gif
