"""Regenerate the images the README shows, from fixed seeds, with the real renderer.

Run ``python scripts/make_images.py`` after changing how boards look; ``--check`` only reports
whether the committed images still match what the renderer draws (a test runs it that way).
"""

from __future__ import annotations

import argparse
import io
import random
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from bot.render import (  # noqa: E402
    Hints,
    VeloopHints,
    board_png,
    game_png,
    replay_gif,
    veloop_board_png,
    veloop_game_png,
    veloop_replay_gif,
)
from bot.rules import Game, random_setup  # noqa: E402
from bot.rules.veloop import Position, write_record  # noqa: E402

OUT = ROOT / "docs" / "images"
PLAYERS = {"first": "Ada", "second": "Grace"}
COLOURS = {"black": "Ada", "white": "Grace"}


def game_with_claim(seed: int = 4, after: int = 24) -> Game:
    """A standard game stopped on the first move past ``after`` that claims a shooter, so the image shows one."""
    rng = random.Random(seed)
    game = random_setup("standard", rng=rng)
    while game.phase == "play":
        game = game.play(str(rng.choice(game.position.legal_moves())))
        if len(game.turns) > after and game.position.last_claims:
            return game
    return game


def finished(variant: str, seed: int) -> Game:
    rng = random.Random(seed)
    game = random_setup(variant, rng=rng)
    while game.phase != "over":
        game = game.play(str(rng.choice(game.position.legal_moves())))
    return game


def veloop_record(size: int, seed: int, stop: Callable[[Position], bool] | None = None, protocol: str = "122") -> str:
    """A Veloop game of random legal moves, to its end or to the first position ``stop`` accepts, as a record."""
    rng = random.Random(seed)
    position = Position.start(size, protocol)
    moves = []
    while not position.is_over and not (stop is not None and stop(position)):
        move = rng.choice(position.legal_moves())
        position = position.play(move)
        moves.append(move)
    return write_record(moves, Position.start(size, protocol), {"Black": "Ada", "White": "Grace"})


def stacked(count: int) -> Callable[[Position], bool]:
    """Stop once ``count`` cells hold stacks of two: late in a game, when stones go on top of stones."""
    return lambda position: sum(len(stack) == 2 for stack in position.stones().values()) >= count


def veloop_hints(seed: int = 2, plies: int = 16) -> bytes:
    """The guided move's second step on a young 8×8 game: a target picked, its supports ringed."""
    rng = random.Random(seed)
    position = Position.start(8)
    for _ in range(plies):
        position = position.play(rng.choice(position.legal_moves()))
    moves = position.legal_moves()
    target = max(sorted({str(m.target) for m in moves}), key=lambda t: sum(m.target == t for m in moves))
    hints = VeloopHints.for_position(position, target)
    return veloop_board_png(position, theme="dark", hints=hints, players=COLOURS)


def images() -> dict[str, Callable[[], bytes]]:
    """File name → how to draw it; each is a pure function of fixed seeds."""
    mid = game_with_claim()
    shooter = max(mid.position.unclaimed(), key=lambda sq: len(mid.position.destinations(sq)))
    setup = Game.new("standard").play("c3,e6,g4/h8").play("keep")
    classic = Game.new("standard", "classic").play("c3,e6,g4")
    return {
        "board-light.png": lambda: game_png(mid, theme="light", players=PLAYERS),
        "board-dark.png": lambda: game_png(mid, theme="dark", players=PLAYERS),
        "board-contrast.png": lambda: game_png(mid, theme="contrast", players=PLAYERS),
        "hints-dark.png": lambda: board_png(
            mid.position,
            theme="dark",
            hints=Hints.for_shooter(mid.position, shooter, groups=True),
            players={"black": "Ada", "white": "Grace"},
        ),
        "setup-light.png": lambda: game_png(setup, theme="light", players=PLAYERS),
        "setup-classic-dark.png": lambda: game_png(classic, theme="dark", players=PLAYERS),
        "game-over-light.png": lambda: game_png(finished("medium", 2), theme="light", players=PLAYERS),
        "replay-small-dark.gif": lambda: replay_gif(finished("small", 1), theme="dark", size=480, players=PLAYERS),
        "veloop-8-dark.png": lambda: veloop_game_png(veloop_record(8, 3, stacked(6)), theme="dark"),
        "veloop-12-light.png": lambda: veloop_game_png(veloop_record(12, 4), theme="light"),
        "veloop-hints-dark.png": veloop_hints,
        "veloop-contrast.png": lambda: veloop_game_png(veloop_record(6, 0, stacked(5)), theme="contrast"),
        "veloop-replay-5-dark.gif": lambda: veloop_replay_gif(veloop_record(5, 4), theme="dark", size=480),
    }


def same_picture(a: bytes, b: bytes) -> bool:
    """Whether two image files show the same thing: frames, modes, palettes and pixels (not the same bytes:
    a different deflate writes the same picture differently)."""
    first, second = Image.open(io.BytesIO(a)), Image.open(io.BytesIO(b))
    frames = getattr(first, "n_frames", 1)
    if frames != getattr(second, "n_frames", 1) or first.size != second.size:
        return False
    for i in range(frames):
        first.seek(i)
        second.seek(i)
        if first.mode != second.mode or first.getpalette() != second.getpalette():
            return False
        if first.tobytes() != second.tobytes():
            return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed images, write nothing")
    args = parser.parse_args(argv)
    stale = []
    OUT.mkdir(parents=True, exist_ok=True)
    for name, draw in images().items():
        data = draw()
        path = OUT / name
        if args.check:
            if not path.exists() or not same_picture(path.read_bytes(), data):
                stale.append(name)
            continue
        path.write_bytes(data)
        print(f"{path.relative_to(ROOT)}  {len(data) / 1024:.0f} KB")
    if stale:
        print("out of date (run python scripts/make_images.py):", ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
