"""Command line for the rules: ``python -m bot.rules [--game veletas] perft|play|replay ...``.

Each game is one small adapter (three methods that return the lines to print), named by the ``cli``
of its descriptor in ``bot.rules.registry``, so the command line itself knows nothing about any game's
rules. Adapters import their game only when called, so one game's module never slows down or breaks
the other's commands; games named in ``VELETAS_GAMES`` are offered too.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, cast

from bot.rules.registry import DESCRIPTORS, load, load_configured


class Adapter(Protocol):
    """What a game offers the command line; every function returns the lines to print.

    ``rules`` is the game's rules option as typed, or None for the game's default.
    """

    def perft(self, position: str, depth: int, rules: str | None, split: bool) -> list[str]: ...

    def play(self, position: str, moves: Sequence[str], rules: str | None) -> list[str]: ...

    def replay(self, text: str) -> list[str]: ...


def adapters() -> dict[str, str]:
    """The adapter of every registered game that has one, by the game's name (as ``module:attribute``)."""
    return {name: each.cli for name, each in DESCRIPTORS.items() if each.cli}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bot.rules", description="Check positions and records by hand.")
    parser.add_argument("--game", choices=sorted(adapters()), default="veletas", help="which game (default veletas)")
    commands = parser.add_subparsers(dest="command", required=True)

    p_perft = commands.add_parser("perft", help="count move sequences of a given length")
    p_perft.add_argument("position", help="a position string, quoted")
    p_perft.add_argument("depth", type=int)
    p_perft.add_argument("--rules", default=None, help="rules edition (default: the game's default)")
    p_perft.add_argument("--split", action="store_true", help="also print the count below each first move")

    p_play = commands.add_parser("play", help="play moves from a position, printing each new position")
    p_play.add_argument("position", help="a position string, quoted")
    p_play.add_argument("moves", nargs="+", metavar="MOVE")
    p_play.add_argument("--rules", default=None, help="rules edition (default: the game's default)")

    p_replay = commands.add_parser("replay", help="validate a game record and print its result")
    p_replay.add_argument("file", help="record file, or - for standard input")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a rules refusal prints its reason and exits 1 instead of a traceback."""
    load_configured()
    args = build_parser().parse_args(argv)
    adapter = cast(Adapter, load(adapters()[args.game]))
    try:
        if args.command == "perft":
            if args.depth < 0:
                raise ValueError("depth must be at least 0")
            lines = adapter.perft(args.position, args.depth, args.rules, args.split)
        elif args.command == "play":
            lines = adapter.play(args.position, args.moves, args.rules)
        else:
            text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
            lines = adapter.replay(text)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
