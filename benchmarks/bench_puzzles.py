"""Puzzles mined per CPU-minute from stored games, per game, and the solver's nodes per second.

Run ``python -m benchmarks.bench_puzzles`` to print the table, ``--write`` to publish it into
docs/BENCHMARKS.md, ``benchmarks/results/puzzles.md`` and the README's summary. The corpus is fixed: for each
row, ``--games`` self-play games (level 1, seeds from ``--seed``) are played to their end and stored as
finished games between two members in a temporary SQLite store, as the bot stores games; then each is read
back through the miner's cursor (``Store.games_to_mine``), searched (``bot.puzzles.mine.mine_game``, the
budgets the command and the job use) and its puzzles kept (``Store.record_mined``). Only the searches are
timed, in CPU seconds of this process (``time.process_time``), so the machine's other load counts little.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks._report import REFERENCE, reference_ms
from bot.puzzles.mine import mine_game, self_play
from bot.store import Store

ROWS: tuple[tuple[str, str, Mapping[str, str]], ...] = (
    ("veletas", "small (7×7), current", {"variant": "small", "rules": "current"}),
    ("veletas", "medium (9×9), current", {"variant": "medium", "rules": "current"}),
    ("veletas", "standard (10×10), current", {"variant": "standard", "rules": "current"}),
    ("veloop", "5×5, alternating", {"board": "5", "protocol": "alternating"}),
    ("veloop", "8×8, alternating", {"board": "8", "protocol": "alternating"}),
    ("veloop", "8×8, 122", {"board": "8", "protocol": "122"}),
)
ALICE, BOB, GUILD = 11, 22, 1000


@dataclass
class Measured:
    game: str
    board: str
    games: int = 0
    positions: int = 0
    unknown: int = 0
    nodes: int = 0
    cpu: float = 0.0
    lengths: Counter[int] = field(default_factory=Counter)

    @property
    def puzzles(self) -> int:
        return sum(self.lengths.values())

    def cells(self, reference: float) -> list[str]:
        per_minute = self.puzzles / self.cpu * 60 if self.cpu else 0.0
        per_puzzle_ms = self.cpu * 1e3 / self.puzzles if self.puzzles else 0.0
        ratio = f"{per_puzzle_ms / reference:,.0f}×" if self.puzzles else "–"
        return [
            self.game,
            self.board,
            str(self.games),
            f"{self.positions} ({self.unknown} unknown)",
            f"{self.puzzles} ({' / '.join(str(self.lengths[n]) for n in range(1, 5))})",
            f"{self.cpu:.1f} s",
            f"{per_minute:.1f} puzzles/CPU-min",
            ratio,
            f"{self.nodes / self.cpu:,.0f}" if self.cpu else "–",
        ]


HEADER = [
    "game",
    "board",
    "games",
    "positions searched",
    "puzzles (1 / 2 / 3 / 4 turns)",
    "CPU",
    "figure",
    "× reference",
    "solver nodes/s",
]


async def store_games(store: Store, game: str, settings: Mapping[str, str], count: int, seed: int) -> None:
    """Play ``count`` self-play games and store each as a finished game between Alice and Bob."""
    for number in range(count):
        info = await store.create_challenge(
            guild_id=GUILD,
            channel_id=5000 + number,
            challenger_id=ALICE,
            opponent_id=BOB,
            where="here",
            expires_at=None,
            game=game,
            settings=settings,
        )
        info = await store.accept_challenge(info.id, BOB, channel_id=5000 + number)
        for turn in self_play(game, settings, seed + number):
            actor = info.user_to_act
            assert actor is not None
            info = await store.play(info.id, actor, turn)
        if info.status != "finished":
            raise RuntimeError(f"self-play game {seed + number} of {game} did not finish")


async def measure(game: str, board: str, settings: Mapping[str, str], count: int, seed: int) -> Measured:
    measured = Measured(game, board)
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(Path(folder) / "bench.sqlite3")
        try:
            await store_games(store, game, settings, count, seed)
            for info in await store.games_to_mine(count):
                start = time.process_time()
                mined = mine_game(
                    info.kind.name,
                    info.settings,
                    info.turns,
                    status=info.status,
                    game_id=info.id,
                    guild_id=info.guild_id,
                )
                measured.cpu += time.process_time() - start
                await store.record_mined(info.id, mined.puzzles)
                measured.games += 1
                measured.positions += mined.positions
                measured.unknown += mined.unknown
                measured.nodes += mined.nodes
                measured.lengths.update(p.solver_turns for p in mined.puzzles)
        finally:
            await store.close()
    return measured


def table(rows: Sequence[Measured], reference: float, seed: int) -> str:
    total = Measured("all", "all stored games")
    for row in rows:
        total.games += row.games
        total.positions += row.positions
        total.unknown += row.unknown
        total.nodes += row.nodes
        total.cpu += row.cpu
        total.lengths.update(row.lengths)
    lines = [
        "### Puzzles mined from stored games",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "|".join("---" for _ in HEADER) + "|",
    ]
    lines += ["| " + " | ".join(row.cells(reference)) + " |" for row in [*rows, total]]
    lines += [
        f"| | reference: {REFERENCE}, median | {reference:.1f} ms | | | | | 1 | |",
        "",
        "Each row: that many level-1 self-play games (seeds from "
        f"{seed}), stored as finished games in a temporary SQLite store, read back through the miner's cursor "
        "and searched with the budgets the command and the bot use (20,000 nodes or 0.5 s per position and "
        "goal, whichever ends first; one to four solver turns, one under Veloop's protocol 122). The time "
        "budget is wall-clock time, so on a loaded machine a search gets less CPU and finds a little less."
        " *positions searched* are the positions the walk asked "
        "the solver about (the play phase after its first four turns; Veletas positions with more than 300 "
        "legal turns are skipped), *unknown* those where a budget ran out. *figure* is puzzles kept per CPU "
        "minute of searching; *× reference* is the CPU time a puzzle took, in reference times; *solver "
        "nodes/s* is the proving search's positions looked at per CPU second.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=4, help="self-play games per row (default 4)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", action="store_true", help="publish the table into docs/BENCHMARKS.md")
    args = parser.parse_args(argv)
    reference = reference_ms()
    rows = []
    for game, board, settings in ROWS:
        rows.append(asyncio.run(measure(game, board, settings, args.games, args.seed)))
        print(f"{game} {board}: {rows[-1].puzzles} puzzles in {rows[-1].cpu:.1f} CPU s", file=sys.stderr)
    markdown = table(rows, min(reference, reference_ms()), args.seed)
    print(markdown)
    if args.write:
        from benchmarks._report import publish

        publish("puzzles", markdown, f"python -m benchmarks.bench_puzzles --games {args.games} --write")
    return 0


if __name__ == "__main__":
    sys.exit(main())
