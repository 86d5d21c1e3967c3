"""Level 2 against a uniformly random mover, on every board of both games: the beginner's floor.

Run ``python -m benchmarks.bench_ai_random`` to print the table, ``--write`` to publish it into
docs/BENCHMARKS.md, ``benchmarks/results/ai.md`` and the README's summary. Every row is the match that
``python -m bot.ai match 2 0 --games N`` plays on that board (``0`` is the random mover): random Veletas
setups, or Veloop openings of three random plies, each played with both colours, level 2's moves seeded
so a rerun replays the same games. The target is 95% of the points (a Veloop draw counting half).
``--games 2`` is a smoke run; ``--boards veloop:5,veletas:small:classic`` runs only those rows.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bot.ai.match import RANDOM, Outcome, Score, match

LEVEL = 2
TARGET = 0.95


@dataclass(frozen=True)
class Board:
    """One row: a Veletas variant and edition, or a Veloop size and protocol."""

    game: str
    board: str
    rules: str

    @property
    def name(self) -> str:
        return f"{self.board}×{self.board}" if self.game == "veloop" else self.board

    @property
    def key(self) -> str:
        return f"{self.game}:{self.board}:{self.rules}"


BOARDS: tuple[Board, ...] = (
    *(
        Board("veletas", variant, rules)
        for rules in ("current", "classic")
        for variant in ("small", "medium", "standard")
    ),
    *(Board("veloop", size, protocol) for protocol in ("122", "alternating") for size in ("5", "6", "8", "12")),
)


@dataclass(frozen=True)
class Measured:
    board: Board
    score: Score
    outcomes: list[Outcome]

    def cells(self) -> list[str]:
        score = self.score
        lost = score.games - score.wins - score.draws
        lo, hi = score.interval()
        moves = sum(o.choices_a if o.choices_a >= 0 else _level_moves(o) for o in self.outcomes)
        think = sum(o.seconds_a for o in self.outcomes) / max(1, moves)
        longest = max((o.longest_a for o in self.outcomes), default=0.0)
        verdict = "yes" if lo >= TARGET else ("likely" if score.rate >= TARGET else "**no**")
        return [
            self.board.game,
            self.board.name,
            self.board.rules,
            str(score.games),
            f"{score.wins} / {score.draws} / {lost}",
            f"{score.rate:.1%}",
            f"{lo:.1%}–{hi:.1%}",
            f"{think * 1e3:.0f} ms" + (f" ({longest:.2f} s)" if self.board.game == "veloop" else ""),
            f"≥ {TARGET:.0%}",
            verdict,
        ]


def _level_moves(outcome: Outcome) -> int:
    """Level 2's moves in a Veletas game, where the sides alternate and Black moves first."""
    return (outcome.moves + (1 if outcome.pairing.a_black else 0)) // 2


HEADER = [
    "game",
    "board",
    "rules",
    "games",
    "won / drawn / lost",
    "result",
    "95% CI",
    "level 2's time a move (longest)",
    "target",
    "met",
]


def measure(board: Board, games: int, seed: int, jobs: int) -> Measured:
    if board.game == "veloop":
        score, outcomes = match(
            LEVEL, RANDOM, games, seed=seed, jobs=jobs, game="veloop", board=int(board.board), protocol=board.rules
        )
    else:
        score, outcomes = match(LEVEL, RANDOM, games, variant=board.board, rules=board.rules, seed=seed, jobs=jobs)
    return Measured(board, score, outcomes)


def table(measured: Sequence[Measured], games: int, seed: int) -> str:
    lines = [
        "### Level 2 against a uniformly random mover",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "|".join("---" for _ in HEADER) + "|",
    ]
    lines += ["| " + " | ".join(m.cells()) + " |" for m in measured]
    lines += [
        "",
        f"Each row: {games} games of level 2 against a mover that picks every legal move with the same chance, "
        "from random Veletas setups or Veloop openings (the start and three random plies), each played once "
        f"with each colour; match seed {seed}, level 2's moves by its seeded budget. *result* is level 2's "
        "score, a draw counting half (only Veloop has draws); *met* is yes when the whole 95% interval clears "
        "the target, likely when only the score does. *rules* is the Veletas edition or the Veloop protocol. "
        "Level 2's time is "
        "its mean thinking time a move (and for Veloop its longest decision), on the machine below, "
        "measured while the other games of the run were played.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=100, help="games per board (rounded up to pairs)")
    parser.add_argument("--jobs", type=int, default=2, help="games played at once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--boards", type=str, default="", help="comma-separated rows to run, as veletas:small:classic or veloop:5"
    )
    parser.add_argument("--write", action="store_true", help="publish the table into docs/BENCHMARKS.md")
    args = parser.parse_args(argv)
    chosen = list(BOARDS)
    if args.boards:
        wanted = set()
        for text in args.boards.split(","):
            parts = text.split(":")
            default = "current" if parts[0] == "veletas" else "122"
            wanted.add(f"{parts[0]}:{parts[1]}:{parts[2] if len(parts) > 2 else default}")
        unknown = wanted - {board.key for board in BOARDS}
        if unknown:
            parser.error(f"unknown boards: {', '.join(sorted(unknown))}")
        chosen = [board for board in BOARDS if board.key in wanted]
    measured = []
    for board in chosen:
        start = time.perf_counter()
        found = measure(board, args.games, args.seed, args.jobs)
        measured.append(found)
        print(
            f"{board.key}: {found.score.points:g}/{found.score.games} in {time.perf_counter() - start:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    text = table(measured, measured[0].score.games, args.seed)
    print(text)
    if args.write:
        from benchmarks.bench_ai import publish_section

        command = "python -m benchmarks.bench_ai_random " + " ".join(argv if argv is not None else sys.argv[1:])
        publish_section("ai-random", text, command.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
