"""``python -m bot.ai match A B --games N [--game veloop]``: how much stronger one level is than another.

Prints one line per finished game on stderr (so a long match shows it is alive) and the
result on stdout: A's win rate with its 95% Wilson interval and the implied Elo difference.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bot.ai.match import RANDOM, Outcome, match, player, summary
from bot.ai.veletas.players import LEVELS
from bot.rules import EDITIONS, GAMES, VARIANTS
from bot.rules.veloop import PROTOCOLS, SIZES


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bot.ai", description="AI tools for Veletas and Veloop.")
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("match", help="a paired match between two levels")
    levels = [RANDOM, *sorted(LEVELS)]
    m.add_argument(
        "level_a", type=int, choices=levels, metavar="LEVEL_A", help="1 to 5, or 0: a uniformly random mover"
    )
    m.add_argument("level_b", type=int, choices=levels, metavar="LEVEL_B")
    m.add_argument("--games", type=int, default=40, help="games in all, rounded up to pairs (default 40)")
    m.add_argument("--game", choices=sorted(GAMES), default="veletas")
    m.add_argument("--variant", choices=sorted(VARIANTS), default="medium", help="Veletas board (default medium)")
    m.add_argument("--rules", choices=EDITIONS, default="current", help="Veletas rules edition")
    m.add_argument("--board", type=int, choices=SIZES, default=8, help="Veloop board size (default 8)")
    m.add_argument("--protocol", choices=PROTOCOLS, default="122", help="Veloop turn order (default 122)")
    m.add_argument("--seed", type=int, default=1, help="match seed: same seed, same games")
    m.add_argument("--jobs", type=int, default=1, help="games played at once, one process each")
    m.add_argument("--clock", action="store_true", help="think for real time instead of seeded iteration counts")
    m.add_argument("--quiet", action="store_true", help="no per-game lines on stderr")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.games < 1:
        print("--games must be at least 1", file=sys.stderr)
        return 2

    def progress(outcome: Outcome) -> None:
        if args.quiet:
            return
        p = outcome.pairing
        colour = "Black" if p.a_black else "White"
        start = "setup" if p.game == "veletas" else "opening"
        print(
            f"{start} {p.setup + 1}, {player(p.level_a)} as {colour}: {outcome.verdict} in {outcome.moves} moves "
            f"({outcome.seconds_a:.1f} s vs {outcome.seconds_b:.1f} s)",
            file=sys.stderr,
            flush=True,
        )

    score, _outcomes = match(
        args.level_a,
        args.level_b,
        args.games,
        variant=args.variant,
        rules=args.rules,
        seed=args.seed,
        jobs=args.jobs,
        clock=args.clock,
        progress=progress,
        game=args.game,
        board=args.board,
        protocol=args.protocol,
    )
    print(summary(args.level_a, args.level_b, score))
    return 0


if __name__ == "__main__":
    sys.exit(main())
