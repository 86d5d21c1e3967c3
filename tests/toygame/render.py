"""The toy game's drawer, a subclass of the renderer's base (``bot.render.game_drawer.Drawer``).

The base does the header, the palette, the cached compositing, PNG and GIF; the toy supplies only what is
its own: its scene (the stones on a 3×3 board and the header) and the stones' pastes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from bot.i18n import Words
from bot.render.canvas import Header, Layout, Paste, Pastes, cell_of
from bot.render.game_drawer import Drawer
from bot.render.sprites import stone
from bot.render.theme import Theme
from bot.render.words import colour_names, colour_times, or_english
from toygame.rules import ToyGame


class ToyHints:
    """The toy game marks nothing on its board: no hints."""


@dataclass(frozen=True)
class ToyScene:
    n: int
    header: Header
    stones: tuple[tuple[tuple[int, int], str], ...]  # (cell, "b" or "w")


def _scene(
    game: ToyGame, names: tuple[str, str], times: tuple[str | None, str | None], result: str | None, w: Words
) -> ToyScene:
    header = Header(names, game.scores, game.colour_to_act, result or "", game.phase == "over", times)
    stones = tuple(sorted((cell_of(square, 3), colour[0]) for square, colour in game.stones.items()))
    return ToyScene(3, header, stones)


class ToyDrawer(Drawer[ToyGame, str, ToyGame, ToyHints, ToyScene]):
    """Stones on a 3×3 board under the shared header; a game and a position are the same value here."""

    game = "toy"
    hints = ToyHints

    def parse_move(self, text: str) -> str:
        return text

    def pastes(self, scene: ToyScene, theme: Theme, lay: Layout) -> list[Paste]:
        pastes = Pastes(theme, lay)
        for cell, kind in scene.stones:
            pastes.add(cell, stone, kind)
        return pastes

    def catalogue(self, theme: Theme) -> list[ToyScene]:
        names = ("Black player", "White player")
        header = Header(names, (1, 0), "white", "White player to move")
        cells = [(f, r) for f in range(3) for r in range(3)]
        return [ToyScene(3, header, tuple((cell, "bw"[i % 2]) for i, cell in enumerate(cells)))]

    def position_scene(
        self,
        position: ToyGame,
        last_move: str | None,
        hints: ToyHints | None,
        names: tuple[str, str],
        times: tuple[str | None, str | None],
        result: str | None,
        w: Words,
    ) -> ToyScene:
        return _scene(position, names, times, result, w)

    def game_scene(
        self,
        game: ToyGame,
        ply: int | None,
        hints: ToyHints | None,
        players: Mapping[str, str] | None,
        result: str | None,
        words: Words | None,
        clocks: Mapping[str, str] | None,
    ) -> ToyScene:
        w = or_english(words)
        at = ToyGame(game.turns[:ply]) if ply is not None else game
        return _scene(at, colour_names(players, w), colour_times(clocks), result, w)

    def replay_scenes(
        self, game: ToyGame, players: Mapping[str, str] | None, result: str | None, words: Words | None
    ) -> Iterator[ToyScene]:
        w = or_english(words)
        names = colour_names(players, w)
        for k in range(len(game.turns) + 1):
            yield _scene(ToyGame(game.turns[:k]), names, (None, None), result if k == len(game.turns) else None, w)


DRAWER = ToyDrawer()
board_png = DRAWER.board_png
replay_gif = DRAWER.replay_gif
