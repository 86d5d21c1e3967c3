"""Veletas behind ``python -m bot.rules``: its ``Adapter`` (position strings and records of NOTATION.md).

Imports the rest of the rules only when a command runs.
"""

from __future__ import annotations

from collections.abc import Sequence


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
        lines.append(_summary(pos.score, pos.winner))
        return lines

    def replay(self, text: str) -> list[str]:
        from bot.rules.veletas import Game

        game = Game.from_record(text)
        pos = game.position
        return [
            f"{len(game.turns)} turns, all legal ({game.variant.name}, {game.rules} rules, phase {game.phase})",
            str(pos),
            _summary(pos.score, game.winner),
        ]


def _summary(score: tuple[int, int], winner: str | None) -> str:
    result = f"{winner} wins" if winner else "not finished"
    return f"claimed: black {score[0]}, white {score[1]}; {result}"


ADAPTER = VeletasAdapter()
