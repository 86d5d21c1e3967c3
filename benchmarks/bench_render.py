"""Speed and size of the images the bot draws: boards of both games (one per turn), replay GIFs, and
the tournament images (standings, brackets).

Run ``python -m benchmarks.bench_render`` to print a markdown table, ``--write`` to publish it
into docs/BENCHMARKS.md through ``benchmarks._report.publish``. Inputs come from fixed seeds, so two
runs measure the same boards. Medians are reported, the best of five rounds (see ``median_ms``):
the bot renders one board at a time, and a median is what a player waits for.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from PIL import Image

from bot import render
from bot.render import tournament as tournament_drawer
from bot.render import veloop as veloop_drawer
from bot.render.canvas import Compositor, Layout, Paste
from bot.render.text import DRAWING
from bot.rules import Game, random_setup
from bot.rules.veloop import SIZES, Move, Position, playout, write_record
from bot.tournaments import BracketState, Player, double_elimination, resolve
from bot.tournaments.standings import Standing

BOARD_TARGET_RATIO = 0.7  # a board costs at most this share of a plain RGB PNG encode of the same size
PNG_TARGET_KB = 150.0
GIF_TARGET_S = 2.0  # per 100 plies: the target as it was set; the ratio beside it shows a loaded run as such
GIF_TARGET_MB = 8.0  # per 100 plies
TOURNAMENT_TARGET_MS = 100.0  # a 64-row standings page, a 64-player bracket
# Names as Discord members write them: Latin with accents, Japanese, Korean, Cyrillic, emoji.
NAMES = ("Ada", "Grace 🎲", "ネコ", "Bartholomew of Lincolnshire", "Zoë", "김민준", "Олег", "さくら🌸", "Luis", "Dale")


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


def veloop_game(size: int, seed: int = 1) -> tuple[Position, list[Move]]:
    """A whole random Veloop game (protocol 122): its final position and every ply."""
    trace: list[Move] = []
    final, _ = playout(Position.start(size), random.Random(seed), trace)
    return final, trace


def veloop_midgame(size: int, seed: int = 1) -> tuple[Position, Move]:
    """A Veloop position halfway through a random game, with the ply that led there: a board well filled."""
    _final, moves = veloop_game(size, seed)
    position = Position.start(size)
    for move in moves[: len(moves) // 2]:
        position = position.play(move)
    return position, moves[len(moves) // 2 - 1]


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


def paired_ms(
    work: Callable[[], object], reference: Callable[[], object], runs: int, rounds: int = 5
) -> tuple[float, float]:
    """Median times in ms of ``work`` and of ``reference``, run in turn, from the round where ``work`` was quickest.

    Timing the two side by side means a busy spell on the shared machine slows both, so their
    ratio holds where the milliseconds do not.
    """
    best: tuple[float, float] | None = None
    per_round = max(1, runs // rounds)
    for _ in range(rounds):
        mine, theirs = [], []
        for _ in range(per_round):
            start = time.perf_counter()
            work()
            middle = time.perf_counter()
            reference()
            mine.append(middle - start)
            theirs.append(time.perf_counter() - middle)
        pair = (statistics.median(mine) * 1000, statistics.median(theirs) * 1000)
        if best is None or pair[0] < best[0]:
            best = pair
    assert best is not None
    return best


def verdict(ok: bool) -> str:
    return "yes" if ok else "**no**"


def reference_image() -> Image.Image:
    """The picture the reference encodes: the 8×8 Veloop midgame in the dark theme, as RGB, 800 px wide."""
    position, last = veloop_midgame(8)
    scene = veloop_drawer._scene(position, last_move=last, hints=None, names=("Black", "White"), result=None)
    return veloop_drawer.VELOOP.compose(scene, render.THEMES["dark"], None)


def reference_encoder() -> Callable[[], bytes]:
    """A plain RGB PNG encode (Pillow's defaults) of an 800-px board: what every figure is divided by."""
    im = reference_image()

    def encode() -> bytes:
        out = io.BytesIO()
        im.save(out, "PNG")
        return out.getvalue()

    return encode


class Table:
    """Rows of | what | measured | × ref | target | met |: each time also as a share of the reference
    encode timed beside it, so a slow day shows in the milliseconds and not in the ratios."""

    def __init__(self, reference: Callable[[], object]) -> None:
        self.reference = reference
        self.refs: list[float] = []
        self.rows: list[list[str]] = []

    def time(self, work: Callable[[], object], runs: int) -> tuple[float, float]:
        """Median ms of ``work`` and its ratio to the reference timed in the same rounds."""
        ms, ref = paired_ms(work, self.reference, runs)
        self.refs.append(ref)
        return ms, ms / ref

    def reference_now(self, runs: int = 10) -> float:
        ref = median_ms(self.reference, runs)
        self.refs.append(ref)
        return ref

    def add(self, what: str, measured: str, ratio: float, target: str = "", met: str = "") -> None:
        self.rows.append([what, measured, f"{ratio:.2f}×", target, met])


def board_row(table: Table, what: str, draw: Callable[[], bytes], runs: int) -> None:
    start = time.perf_counter()
    data = draw()
    cold = (time.perf_counter() - start) * 1000
    ms, ratio = table.time(draw, runs)
    kb = len(data) / 1024
    table.add(
        what,
        f"{ms:.1f} ms median ({cold:.0f} ms first call), {kb:.0f} KB",
        ratio,
        f"≤ {BOARD_TARGET_RATIO}× ref, ≤ {PNG_TARGET_KB:.0f} KB",
        verdict(ratio <= BOARD_TARGET_RATIO and kb <= PNG_TARGET_KB),
    )


def veletas_board_rows(table: Table, runs: int) -> None:
    game = midgame()
    position, last = game.position, game.last_move
    for theme in sorted(render.THEMES):

        def draw(look: str = theme) -> bytes:
            return render.board_png(position, last_move=last, theme=look)

        board_row(table, f"Veletas board_png, standard midgame, {theme}", draw, runs)


def veloop_board_rows(table: Table, runs: int) -> None:
    for size in SIZES:
        position, last = veloop_midgame(size)
        for theme in sorted(render.THEMES):

            def draw(look: str = theme, p: Position = position, m: Move = last) -> bytes:
                return render.veloop_board_png(p, last_move=m, theme=look)

            board_row(table, f"Veloop board_png, {size}×{size} midgame, {theme}", draw, runs)


def named_board_rows(table: Table, runs: int) -> None:
    """The header with names in scripts and emoji DejaVu lacks: the fallback fonts' cost on a board."""
    game = midgame()
    position, last = game.position, game.last_move
    players = {"black": "ネコ 🎲 Dice", "white": "Zoë 👨‍👩‍👧 김민준"}

    def draw() -> bytes:
        return render.board_png(position, last_move=last, theme="dark", players=players)

    board_row(table, "Veletas board_png, standard midgame, dark, Japanese, Korean and emoji names", draw, runs)


def member_names(n: int) -> dict[int, str]:
    return {i: f"{NAMES[(i - 1) % len(NAMES)]} {i}" for i in range(1, n + 1)}


def standings_64() -> list[Standing]:
    """64 rows of a Swiss after 7 rounds, with shared ranks: fixed values, as the engine gives them."""
    rng = random.Random(64)
    rows: list[Standing] = []
    for i in range(64):
        points = (13 - i // 5) / 2
        tiebreaks: tuple[float, ...] = (
            rng.randrange(20, 60) / 2,
            rng.randrange(24, 70) / 2,
            rng.randrange(0, 160) / 4,
            0.0,
            3.0,
        )
        rank = rows[-1].rank if rows and i % 9 == 8 else i + 1
        if rank != i + 1:
            points, tiebreaks = rows[-1].points, rows[-1].tiebreaks
        rows.append(Standing(rank, i + 1, points, tiebreaks))
    return rows


def bracket_64() -> BracketState:
    """64 players in double elimination, best of 3, half its matches played."""
    rng = random.Random(64)
    bracket = double_elimination([Player(i, 2000 - i, i) for i in range(1, 65)], best_of=3)
    winners: dict[str, int] = {}
    while len(winners) < len(bracket.matches) // 2:
        match = resolve(bracket, winners).ready()[0]
        assert isinstance(match.a, int) and isinstance(match.b, int)
        winners[match.match.id] = match.a if rng.random() < 0.7 else match.b
    return resolve(bracket, winners)


def tournament_row(table: Table, what: str, draw: Callable[[], bytes], runs: int) -> None:
    start = time.perf_counter()
    data = draw()
    cold = (time.perf_counter() - start) * 1000
    ms, ratio = table.time(draw, runs)
    size = Image.open(io.BytesIO(data)).size
    table.add(
        f"{what} ({size[0]}×{size[1]} px)",
        f"{ms:.1f} ms median ({cold:.0f} ms first call), {len(data) / 1024:.0f} KB",
        ratio,
        f"≤ {TOURNAMENT_TARGET_MS:.0f} ms",
        verdict(ms <= TOURNAMENT_TARGET_MS),
    )


def tournament_rows(table: Table, runs: int) -> None:
    rows, names = standings_64(), member_names(64)
    labels = ["Buchholz cut 1", "Buchholz", "Sonneborn-Berger", "head-to-head", "wins"]

    def standings() -> bytes:
        return tournament_drawer.standings_png(
            rows, names, title="Spring Swiss · after round 7", tiebreak_labels=labels, theme="dark", highlight={7}
        )

    state = bracket_64()
    scores = {m.match.id: (2, 1) if m.winner == m.a else (0, 2) for m in state.matches if m.played}

    def bracket() -> bytes:
        return tournament_drawer.bracket_png(state, names, title="Veletas Cup", theme="dark", scores=scores)

    tournament_row(table, "standings_png, 64 rows, 5 tie-breaks, dark", standings, runs)
    tournament_row(table, "bracket_png, 64 players, double elimination half played, best of 3, dark", bracket, runs)


def stage_rows(table: Table, runs: int) -> None:
    """Where the time of one board goes, so a regression points at its stage.

    A board is drawn from cached palette pieces (``canvas.Compositor``): its squares and header strip
    come from caches when a board like it was drawn before, as in a running game, and are mapped
    afresh when not, as on a new game's first board. The plain way (compose the RGB board, map it
    whole onto the palette), which the pieces reproduce index for index, is timed beside them.
    """
    theme = render.THEMES["dark"]
    game = midgame()
    position, last = veloop_midgame(8)
    scenes: list[tuple[str, Any, Any]] = [
        ("Veletas", render.veletas.VELETAS, render.veletas._game_scene(game, None, None, None)),
        (
            "Veloop 8×8",
            veloop_drawer.VELOOP,
            veloop_drawer._scene(position, last_move=last, hints=None, names=("Black", "White"), result=None),
        ),
    ]
    for label, drawer, scene in scenes:
        lay = render.layout(scene.n)
        boards: Compositor = drawer.boards

        def pastes(d: Any = drawer, sc: Any = scene, lo: Layout = lay) -> list[Paste]:
            with DRAWING:
                return d.pastes(sc, theme, lo)  # type: ignore[no-any-return]

        laid = pastes()

        def cached(b: Compositor = boards, sc: Any = scene, lo: Layout = lay, ps: list[Paste] = laid) -> Image.Image:
            return b.draw(theme, lo, ps, sc.header)

        def new_header(b: Compositor = boards, again: Callable[[], Image.Image] = cached) -> Image.Image:
            b.headers.clear()
            return again()

        def cold(b: Compositor = boards, again: Callable[[], Image.Image] = cached) -> Image.Image:
            b.cells.clear()
            b.headers.clear()
            return again()

        def plain(d: Any = drawer, sc: Any = scene) -> Image.Image:
            with DRAWING:
                return render.palette.to_palette(d.compose(sc, theme, None), d.palette(theme))

        image = cached()

        def encode(im: Image.Image = image) -> bytes:
            return render.palette.png(im)

        stages: list[tuple[str, Callable[[], object]]] = [
            (f"  {label}: scene to pastes", pastes),
            (f"  {label}: draw from cached pieces, all cached (a board like earlier ones)", cached),
            (f"  {label}: draw from cached pieces, the header new (its strip drawn and mapped)", new_header),
            (f"  {label}: draw from cached pieces, caches empty (every square and the header mapped)", cold),
            (f"  {label}: PNG encode (ISA-L deflate level {render.palette.PNG_DEFLATE_LEVEL})", encode),
            (f"  {label}: the plain way, for comparison: compose the RGB board, map it whole", plain),
        ]
        for what, work in stages:
            ms, ratio = table.time(work, runs)
            table.add(what, f"{ms:.1f} ms", ratio)


def level_rows(table: Table, runs: int) -> None:
    """Why the board's PNG is deflated as it is: time and size of the same palette board by Pillow (zlib) at
    each level, and by palette.png (ISA-L) at each of its levels."""
    from isal import isal_zlib

    game = midgame()
    theme = render.THEMES["dark"]
    rgb = render.veletas.VELETAS.compose(render.veletas._game_scene(game, None, None, None), theme, None)
    pal = render.palette.to_palette(rgb, render.veletas.VELETAS.palette(theme))
    for level in (0, 1, 3, 6, 9):

        def encode(lv: int = level) -> bytes:
            out = io.BytesIO()
            pal.save(out, "PNG", compress_level=lv)
            return out.getvalue()

        ms, ratio = table.time(encode, runs)
        table.add(f"  Pillow, zlib level {level}", f"{ms:.1f} ms, {len(encode()) / 1024:.0f} KB", ratio)
    rows = Image.new("P", (pal.width + 1, pal.height), 0)
    rows.paste(pal, (1, 0))
    raw = rows.tobytes()
    for level in (0, 1, 2, 3):

        def deflate(lv: int = level) -> bytes:
            return isal_zlib.compress(raw, lv)

        ms, ratio = table.time(deflate, runs)
        table.add(f"  ISA-L deflate level {level} (pixels only)", f"{ms:.1f} ms, {len(deflate()) / 1024:.0f} KB", ratio)


def gif_row(table: Table, what: str, plies: int, make: Callable[[], bytes], rounds: int) -> None:
    times = []
    data = b""
    before = table.reference_now()
    for _ in range(rounds):
        start = time.perf_counter()
        data = make()
        times.append(time.perf_counter() - start)
    ref = (before + table.reference_now()) / 2
    seconds = min(times)  # the quietest round, as in median_ms
    frames: int = getattr(Image.open(io.BytesIO(data)), "n_frames", 1)
    mb = len(data) / 1024 / 1024
    per100_s, per100_mb = seconds * 100 / plies, mb * 100 / plies
    ratio = per100_s * 1000 / ref
    table.add(
        f"{what}, {plies} plies ({frames} frames), dark",
        f"{seconds:.2f} s, {mb:.1f} MB (per 100 plies: {per100_s:.2f} s, {per100_mb:.1f} MB)",
        ratio,
        f"per 100 plies ≤ {GIF_TARGET_S:.0f} s, ≤ {GIF_TARGET_MB:.0f} MB",
        verdict(per100_s <= GIF_TARGET_S and per100_mb <= GIF_TARGET_MB),
    )


def gif_rows(table: Table, rounds: int) -> None:
    game = long_game()
    gif_row(
        table, "Veletas replay_gif, standard", len(game.turns), lambda: render.replay_gif(game, theme="dark"), rounds
    )
    for size in (8, 12):
        _final, moves = veloop_game(size)
        record = write_record(moves, Position.start(size))  # read and replayed inside, as the bot's games are

        def make(text: str = record) -> bytes:
            return render.veloop_replay_gif(text, theme="dark")

        gif_row(table, f"Veloop replay_gif, {size}×{size}", len(moves), make, rounds)


def load() -> str:
    """The machine's 1-minute load average, or '?' where the system does not tell."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "?"


def table(runs: int, rounds: int) -> str:
    load_before = load()
    out = Table(reference_encoder())
    veletas_board_rows(out, runs)
    veloop_board_rows(out, runs)
    named_board_rows(out, runs)
    stage_rows(out, runs)
    level_rows(out, max(5, runs // 4))
    gif_rows(out, rounds)
    tournament_rows(out, max(10, runs // 4))
    low, mid, high = min(out.refs), statistics.median(out.refs), max(out.refs)
    lines = [
        "| what | measured | × ref | target | met |",
        "|---|---|---|---|---|",
        f"| reference: plain RGB PNG encode of an 800-px board | {mid:.1f} ms median of the run "
        f"(from {low:.1f} to {high:.1f} ms as the load moved) | 1.00× |  |  |",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in out.rows]
    width = render.layout(10).width
    lines.append("")
    lines.append(
        f"Boards are {width} px wide by default; each board figure is the lowest of five round medians "
        f"over {runs} renders. *× ref* divides each time by the reference, timed in turn with it in the "
        "same rounds (GIFs: per 100 plies, against the reference just before and after): Pillow's default "
        "PNG encode (RGB, zlib level 6) of the "
        "8×8 Veloop midgame board, dark theme, 800 px wide. The machine is shared, so the milliseconds "
        f"move with its load and the ratios much less: load average {load_before} when this run began and "
        f"{load()} when it ended, on {os.cpu_count()} cores. Tournament images: the lowest of five round "
        f"medians over {max(10, runs // 4)} renders each, members' names in several scripts and emoji."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="renders per board figure")
    parser.add_argument("--rounds", type=int, default=3, help="GIF encodes to take the fastest of")
    parser.add_argument("--write", action="store_true", help="publish the table into docs/BENCHMARKS.md")
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
