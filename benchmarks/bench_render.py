"""Speed and size of the board images: one board per turn, and replay GIFs.

Run ``python -m benchmarks.bench_render`` to print a markdown table, ``--write`` to publish it
into the README through ``benchmarks._report.publish``. Inputs come from fixed seeds, so two
runs measure the same boards. Medians are reported, the best of five rounds (see ``median_ms``):
the bot renders one board at a time, and a median is what a player waits for.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
from collections.abc import Callable

from PIL import Image

from bot import render
from bot.rules import Game, random_setup

BOARD_TARGET_MS = 10.0
PNG_TARGET_KB = 150.0
GIF_TARGET_S = 2.0  # per 100 plies
GIF_TARGET_MB = 8.0  # per 100 plies


def midgame(seed: int = 1, moves: int = 30) -> Game:
    """A standard game some 30 moves in: about half the board filled, claims under way."""
    rng = random.Random(seed)
    game = random_setup("standard", rng=rng)
    for _ in range(moves):
        game = game.play(str(rng.choice(game.position.legal_moves())))
    return game


def long_game(seeds: range = range(8)) -> Game:
    """The longest of a few random standard games (a standard game rarely passes 80 turns)."""
    best: Game | None = None
    for seed in seeds:
        rng = random.Random(seed)
        game = random_setup("standard", rng=rng)
        while game.phase != "over":
            game = game.play(str(rng.choice(game.position.legal_moves())))
        if best is None or len(game.turns) > len(best.turns):
            best = game
    assert best is not None
    return best


def median_ms(work: Callable[[], object], runs: int, rounds: int = 5) -> float:
    """Median time of ``work`` in ms: the lowest of the medians of a few rounds.

    Other processes on a shared machine only ever slow a round down, so the quietest round is
    the closest to what the code itself costs; within a round the median ignores stray spikes.
    """
    medians = []
    per_round = max(1, runs // rounds)
    for _ in range(rounds):
        times = []
        for _ in range(per_round):
            start = time.perf_counter()
            work()
            times.append(time.perf_counter() - start)
        medians.append(statistics.median(times))
    return min(medians) * 1000


def verdict(ok: bool) -> str:
    return "yes" if ok else "**no**"


def board_rows(runs: int) -> list[list[str]]:
    game = midgame()
    position, last = game.position, game.last_move
    rows = []
    for theme in sorted(render.THEMES):
        start = time.perf_counter()
        data = render.board_png(position, last_move=last, theme=theme)
        cold = (time.perf_counter() - start) * 1000

        def draw(look: str = theme) -> bytes:
            return render.board_png(position, last_move=last, theme=look)

        ms = median_ms(draw, runs)
        kb = len(data) / 1024
        rows.append(
            [
                f"board_png, standard midgame, {theme}",
                f"{ms:.1f} ms median ({cold:.0f} ms first call), {kb:.0f} KB",
                f"≤ {BOARD_TARGET_MS:.0f} ms, ≤ {PNG_TARGET_KB:.0f} KB",
                verdict(ms <= BOARD_TARGET_MS and kb <= PNG_TARGET_KB),
            ]
        )
    return rows


def stage_rows(runs: int) -> list[list[str]]:
    """Where the time of one board goes, so a regression points at its stage."""
    game = midgame()
    theme = render.THEMES["dark"]
    scene = render.veletas._game_scene(game, None, None, None)
    rgb = render.veletas._compose(scene, theme, None)
    pal = render.canvas.to_palette(rgb, render.veletas._palette(theme))
    compose = median_ms(lambda: render.veletas._compose(scene, theme, None), runs)
    quantize = median_ms(lambda: render.canvas.to_palette(rgb, render.veletas._palette(theme)), runs)
    encode = median_ms(lambda: render.canvas.png(pal), runs)
    return [
        ["  compose (cached layers and sprites)", f"{compose:.1f} ms", "", ""],
        ["  map onto the theme's palette", f"{quantize:.1f} ms", "", ""],
        [f"  PNG encode (zlib level {render.PNG_COMPRESS_LEVEL})", f"{encode:.1f} ms", "", ""],
    ]


def level_rows(runs: int) -> list[list[str]]:
    """Why the PNG zlib level is what it is: time and size of the same palette board at each level."""
    game = midgame()
    theme = render.THEMES["dark"]
    pal = render.canvas.to_palette(
        render.veletas._compose(render.veletas._game_scene(game, None, None, None), theme, None),
        render.veletas._palette(theme),
    )
    rows = []
    for level in (0, 1, 3, 6, 9):

        def encode(lv: int = level) -> bytes:
            out = io.BytesIO()
            pal.save(out, "PNG", compress_level=lv)
            return out.getvalue()

        ms = median_ms(encode, runs)
        rows.append([f"  zlib level {level}", f"{ms:.1f} ms, {len(encode()) / 1024:.0f} KB", "", ""])
    return rows


def gif_rows(rounds: int) -> list[list[str]]:
    game = long_game()
    plies = len(game.turns)
    times = []
    data = b""
    for _ in range(rounds):
        start = time.perf_counter()
        data = render.replay_gif(game, theme="dark")
        times.append(time.perf_counter() - start)
    seconds = min(times)  # the quietest round, as in median_ms
    frames: int = getattr(Image.open(io.BytesIO(data)), "n_frames", 1)
    mb = len(data) / 1024 / 1024
    per100_s, per100_mb = seconds * 100 / plies, mb * 100 / plies
    return [
        [
            f"replay_gif, standard, {plies} plies ({frames} frames), dark",
            f"{seconds:.2f} s, {mb:.1f} MB (per 100 plies: {per100_s:.2f} s, {per100_mb:.1f} MB)",
            f"≤ {GIF_TARGET_S:.0f} s and ≤ {GIF_TARGET_MB:.0f} MB per 100 plies",
            verdict(per100_s <= GIF_TARGET_S and per100_mb <= GIF_TARGET_MB),
        ]
    ]


def table(runs: int, rounds: int) -> str:
    rows = board_rows(runs) + stage_rows(runs) + level_rows(max(5, runs // 4)) + gif_rows(rounds)
    lines = ["| what | measured | target | met |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    width = render.layout(10).width
    lines.append("")
    lines.append(
        f"Boards are {width} px wide by default; each figure is the lowest of five round medians over {runs} renders."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="renders per board figure")
    parser.add_argument("--rounds", type=int, default=3, help="GIF encodes to take the fastest of")
    parser.add_argument("--write", action="store_true", help="publish the table into the README")
    args = parser.parse_args(argv)
    markdown = table(args.runs, args.rounds)
    print(markdown)
    if args.write:
        from benchmarks._report import publish

        command = "python -m benchmarks.bench_render --write"
        if args.runs != 200 or args.rounds != 3:
            command = f"python -m benchmarks.bench_render --runs {args.runs} --rounds {args.rounds} --write"
        publish("render", markdown, command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
