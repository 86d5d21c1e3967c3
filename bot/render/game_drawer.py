"""What every game's drawer does the same way, written once: ``Drawer``, the base a game's drawer subclasses.

A drawer turns a game's rules objects into a scene (a game's own frozen dataclass with at least ``n``, the
board's size, and ``header``), the scene into pastes on the canvas, and those into a palette image, a PNG
or a replay GIF. The base holds all but the game's own part: the theme lookup, the names and clocks in
the header, the palette built from the game's catalogue, the compositor that caches the pieces, and the
public functions ``board_png``, ``game_png`` and ``replay_gif`` (each with its ``*_image`` twin).

A new game's drawer subclasses ``Drawer`` and supplies:

- ``game`` (the game's name) and ``hints`` (its hints class);
- ``parse_move``: a move from its text;
- ``pastes``: a scene's sprites in the order they are laid;
- ``catalogue``: scenes showing everything it draws, which its palette is built from (``extra_colours``
  adds flat colours it needs exactly);
- ``position_scene``, ``game_scene`` and ``replay_scenes``: its rules objects as scenes.

Its module makes one instance, a module-level name, and names its public functions after it
(``board_png = VELETAS.board_png``). Each public function is bound once, so the module's name and the
drawer's field are one object, and a drawer pickles as that module-level name: a drawing function crosses
to a worker process (``bot.render.workers``) by name, never with the drawer's caches.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Generic, Protocol, TypeVar

from PIL import Image

from bot.i18n import Words
from bot.render.canvas import Compositor, Header, Layout, Paste, compose, layout
from bot.render.palette import GIF_FINAL_MS, GIF_FRAME_MS, build_palette, gif, png
from bot.render.text import DRAWING
from bot.render.theme import RGB, Theme, theme_named
from bot.render.words import colour_names, colour_times, or_english
from bot.rules.common import read_record

__all__ = ["Drawer", "Scene", "recorded_players"]


class Scene(Protocol):
    """What the base needs of a game's scene: the board's size and the header."""

    @property
    def n(self) -> int: ...

    @property
    def header(self) -> Header: ...


PositionT = TypeVar("PositionT")
MoveT = TypeVar("MoveT")
GameT = TypeVar("GameT")
HintsT = TypeVar("HintsT")
SceneT = TypeVar("SceneT", bound=Scene)

# bound once per drawer (see the module's docstring)
_PUBLIC = ("board_image", "board_png", "game_image", "game_png", "replay_gif")


def recorded_players(record: str) -> dict[str, str]:
    """The names a record's Black and White headers give, leaving out those empty or unknown ("?")."""
    read = read_record(record)
    named = {c: read.header(c.title()) or "" for c in ("black", "white")}
    return {c: name for c, name in named.items() if name.strip() not in ("", "?")}


class Drawer(ABC, Generic[PositionT, MoveT, GameT, HintsT, SceneT]):
    """How one game is drawn: a position, any moment of a game, a whole game as a GIF.

    ``DRAWERS`` (``bot.render``) finds a game's drawer by ``game``; ``hints`` is the class of what a
    player asked to see on the board while choosing a move. Thread-safe: drawing takes ``DRAWING``.
    """

    game: str
    hints: type

    def __init__(self) -> None:
        self.palette = lru_cache(maxsize=8)(self._palette)
        self.boards = Compositor(self.palette)
        for name in _PUBLIC:
            setattr(self, name, getattr(self, name))

    def __reduce__(self) -> str:
        """Pickled as the module-level name it is bound to (``VELETAS``): unpickled, it is that same drawer."""
        module = sys.modules[type(self).__module__]
        for name, value in vars(module).items():
            if value is self:
                return name
        raise TypeError(f"{self!r} is no module-level name of {module.__name__}, so it cannot be pickled")

    # --- what a game supplies ------------------------------------------------------------------------------

    @abstractmethod
    def parse_move(self, text: str) -> MoveT:
        """The move a text names (as a player or a record writes it)."""

    @abstractmethod
    def pastes(self, scene: SceneT, theme: Theme, lay: Layout) -> list[Paste]:
        """The scene's sprites in the order they are laid."""

    @abstractmethod
    def catalogue(self, theme: Theme) -> list[SceneT]:
        """Scenes showing everything this drawer draws, at the sizes players use, to build the palette from."""

    def extra_colours(self, theme: Theme) -> Iterable[RGB]:
        """Flat colours of this game's that the palette must hold exactly, beside the theme's own."""
        return ()

    @abstractmethod
    def position_scene(
        self,
        position: PositionT,
        last_move: MoveT | None,
        hints: HintsT | None,
        names: tuple[str, str],
        times: tuple[str | None, str | None],
        result: str | None,
        w: Words,
    ) -> SceneT:
        """A position's scene: ``names`` and ``times`` by colour, black first; ``result`` (see ``board_png``)."""

    @abstractmethod
    def game_scene(
        self,
        game: GameT,
        ply: int | None,
        hints: HintsT | None,
        players: Mapping[str, str] | None,
        result: str | None,
        words: Words | None,
        clocks: Mapping[str, str] | None,
    ) -> SceneT:
        """A game's scene after ``ply`` plies (the latest when None); see ``game_png``."""

    @abstractmethod
    def replay_scenes(
        self, game: GameT, players: Mapping[str, str] | None, result: str | None, words: Words | None
    ) -> Iterator[SceneT]:
        """Every scene of a game from its start, one a ply; ``result`` on the last one."""

    # --- from scenes to images -----------------------------------------------------------------------------

    def compose(self, scene: SceneT, theme: Theme, width: int | None) -> Image.Image:
        """The scene as an RGB image, drawn the plain way (palettes are built from these)."""
        lay = layout(scene.n, width)
        return compose(theme, lay, self.pastes(scene, theme, lay), scene.header)

    def _palette(self, theme: Theme) -> Image.Image:
        images = [self.compose(scene, theme, None) for scene in self.catalogue(theme)]
        return build_palette(theme, images, self.extra_colours(theme))

    def draw(self, scene: SceneT, theme: Theme, width: int | None) -> Image.Image:
        """The scene as a palette image: ``to_palette(compose(...), palette(theme))``, from cached pieces."""
        lay = layout(scene.n, width)
        with DRAWING:
            return self.boards.draw(theme, lay, self.pastes(scene, theme, lay), scene.header)

    def as_move(self, move: MoveT | str | None) -> MoveT | None:
        """A move given as a move or as its text."""
        return self.parse_move(move) if isinstance(move, str) else move

    # --- the public drawing functions ----------------------------------------------------------------------

    def board_image(
        self,
        position: PositionT,
        *,
        last_move: MoveT | str | None = None,
        theme: str = "light",
        hints: HintsT | None = None,
        size: int | None = None,
        players: Mapping[str, str] | None = None,
        result: str | None = None,
        words: Words | None = None,
        clocks: Mapping[str, str] | None = None,
    ) -> Image.Image:
        """The board as a palette image (see ``board_png``), for callers that compose or animate it."""
        look = theme_named(theme)
        w = or_english(words)
        names = colour_names(players, w)
        times = colour_times(clocks)
        scene = self.position_scene(position, self.as_move(last_move), hints, names, times, result, w)
        return self.draw(scene, look, size)

    def board_png(
        self,
        position: PositionT,
        *,
        last_move: MoveT | str | None = None,
        theme: str = "light",
        hints: HintsT | None = None,
        size: int | None = None,
        players: Mapping[str, str] | None = None,
        result: str | None = None,
        words: Words | None = None,
        clocks: Mapping[str, str] | None = None,
    ) -> bytes:
        """A PNG of the position: its pieces, the last move (``last_move``, the move that led here), the score
        and whose move it is.

        ``size`` is the image width in pixels (default 800); ``players`` maps ``"black"``/``"white"``
        to the names shown in the header. ``result`` is for a game that ended off the board (a
        resignation, a time forfeit, an adjudication): a short text such as "Grace wins · Ada
        resigned", shown in place of whose move it is. ``words`` (``bot.i18n.Words``, English by default)
        gives the header's words in the reader's language. ``clocks`` maps ``"black"``/``"white"`` to each side's
        time left as shown ("4:05"): after each name, and in the status line of the side to move. The same
        arguments always give the same bytes.
        """
        return png(
            self.board_image(
                position,
                last_move=last_move,
                theme=theme,
                hints=hints,
                size=size,
                players=players,
                result=result,
                words=words,
                clocks=clocks,
            )
        )

    def game_image(
        self,
        game: GameT,
        *,
        ply: int | None = None,
        theme: str = "light",
        hints: HintsT | None = None,
        size: int | None = None,
        players: Mapping[str, str] | None = None,
        result: str | None = None,
        words: Words | None = None,
        clocks: Mapping[str, str] | None = None,
    ) -> Image.Image:
        """Any moment of a game as a palette image (see ``game_png``)."""
        look = theme_named(theme)
        scene = self.game_scene(game, ply, hints, players, result, words, clocks)
        return self.draw(scene, look, size)

    def game_png(
        self,
        game: GameT,
        *,
        ply: int | None = None,
        theme: str = "light",
        hints: HintsT | None = None,
        size: int | None = None,
        players: Mapping[str, str] | None = None,
        result: str | None = None,
        words: Words | None = None,
        clocks: Mapping[str, str] | None = None,
    ) -> bytes:
        """A PNG of a game (or a record's text) after ``ply`` plies, the latest by default, its last move marked.

        Without ``players``, a record's Black and White headers name the players. ``result`` (see
        ``board_png``) replaces the status line of a game that ended off the board; ``clocks``: see ``board_png``.
        """
        return png(
            self.game_image(
                game,
                ply=ply,
                theme=theme,
                hints=hints,
                size=size,
                players=players,
                result=result,
                words=words,
                clocks=clocks,
            )
        )

    def replay_gif(
        self,
        game: GameT,
        *,
        theme: str = "light",
        size: int | None = None,
        players: Mapping[str, str] | None = None,
        frame_ms: int = GIF_FRAME_MS,
        final_ms: int = GIF_FINAL_MS,
        result: str | None = None,
        words: Words | None = None,
    ) -> bytes:
        """An animated GIF of a whole game from its start, one frame a ply, holding the final position a while.

        ``result`` (see ``board_png``) is shown on the last frame of a game that ended off the board.
        """
        look = theme_named(theme)
        frames = [self.draw(scene, look, size) for scene in self.replay_scenes(game, players, result, words)]
        return gif(frames, frame_ms=frame_ms, final_ms=final_ms)
