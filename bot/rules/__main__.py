"""Command line for the rules: ``python -m bot.rules [--game veletas] perft|play|replay ...``.

Each game is one small adapter (three methods that return the lines to print) registered in
``GAMES``, so the command line itself knows nothing about any game's rules. Adapters import
their game only when called, so one game's module never slows down or breaks the other's
commands.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol


class Adapter(Protocol):
    """What a game offers the command line; every function returns the lines to print.

    ``rules`` is the game's rules option as typed, or None for the game's default.
    """

    def perft(self, position: str, depth: int, rules: str | None, split: bool) -> list[str]: ...

    def play(self, position: str, moves: Sequence[str], rules: str | None) -> list[str]: ...

    def replay(self, text: str) -> list[str]: ...


class VeletasAdapter:
    """Veletas behind the command line: position strings and records of NOTATION.md."""

    def perft(self, position: str, depth: int, rules: str | None, split: bool) -> list[str]:
        from bot.rules.veletas import Position, perft

        pos = Position.from_string(position, rules or "current")
        if not split:
            return [str(perft(pos, depth))]
        lines = []
        total = 0
        for move in pos.legal_moves() if depth > 0 else []:
            count = perft(pos.play(move), depth - 1)
            total += count
            lines.append(f"{move}: {count}")
        return [*lines, f"total: {total if depth > 0 else 1}"]

    def play(self, position: str, moves: Sequence[str], rules: str | None) -> list[str]:
        from bot.rules.veletas import Position

        pos = Position.from_string(position, rules or "current")
        lines = []
        for text in moves:
            move = pos.parse_move(text)
            pos = pos.play(move)
            claims = "; ".join(
                f"{c.square} claimed by {c.colour} (groups: black {c.black_group}, white {c.white_group})"
                for c in pos.last_claims
            )
            lines.append(f"{move}: {pos}" + (f"  [{claims}]" if claims else ""))
        lines.append(_veletas_summary(pos.score, pos.winner))
        return lines

    def replay(self, text: str) -> list[str]:
        from bot.rules.veletas import Game

        game = Game.from_record(text)
        pos = game.position
        return [
            f"{len(game.turns)} turns, all legal ({game.variant.name}, {game.rules} rules, phase {game.phase})",
            str(pos),
            _veletas_summary(pos.score, game.winner),
        ]


def _veletas_summary(score: tuple[int, int], winner: str | None) -> str:
    result = f"{winner} wins" if winner else "not finished"
    return f"claimed: black {score[0]}, white {score[1]}; {result}"


class VeloopAdapter:
    """Veloop behind the command line; its ``--rules`` value is the game's protocol."""

    def perft(self, position: str, depth: int, rules: str | None, split: bool) -> list[str]:
        from bot.rules import veloop

        return veloop.cli_perft(position, depth, rules or "122", split)

    def play(self, position: str, moves: Sequence[str], rules: str | None) -> list[str]:
        from bot.rules import veloop

        return veloop.cli_play(position, moves, rules or "122")

    def replay(self, text: str) -> list[str]:
        from bot.rules import veloop

        return veloop.cli_replay(text)


GAMES: dict[str, Adapter] = {
    "veletas": VeletasAdapter(),
    "veloop": VeloopAdapter(),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bot.rules", description="Check positions and records by hand.")
    parser.add_argument("--game", choices=sorted(GAMES), default="veletas", help="which game (default veletas)")
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
    args = build_parser().parse_args(argv)
    adapter = GAMES[args.game]
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
