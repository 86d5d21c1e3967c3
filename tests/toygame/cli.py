"""The toy game behind ``python -m bot.rules --game toy``: replay checks a record; perft and play as the others."""

from __future__ import annotations

from collections.abc import Sequence

from toygame.rules import KIND, ToyGame


def _game(position: str) -> ToyGame:
    """A position written as the squares played, comma-separated (empty for the start)."""
    return KIND.replay([square for square in position.split(",") if square.strip()])


def _perft(game: ToyGame, depth: int) -> int:
    if depth == 0 or game.phase == "over":
        return 1
    return sum(_perft(game.play(square), depth - 1) for square in game.empty)


class ToyAdapter:
    def perft(self, position: str, depth: int, rules: str | None, split: bool) -> list[str]:
        return [str(_perft(_game(position), depth))]

    def play(self, position: str, moves: Sequence[str], rules: str | None) -> list[str]:
        game = _game(position)
        lines = []
        for move in moves:
            game = game.play(move)
            lines.append(f"{move}: {','.join(game.turns)}")
        return lines

    def replay(self, text: str) -> list[str]:
        game = KIND.from_record(text)
        outcome = game.outcome
        result = "not finished" if outcome is None else outcome.result_token
        return [f"{len(game.turns)} turns, all legal; {result}"]


ADAPTER = ToyAdapter()
