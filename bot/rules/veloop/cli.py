"""Veloop behind ``python -m bot.rules ... --game veloop``: its ``ADAPTER`` and the commands it runs.

Each returns the lines to print and raises ValueError (or a subclass) with a message for the user on
bad input.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from bot.rules.veloop.position import Position
from bot.rules.veloop.record import replay, result_text
from bot.rules.veloop.search import divide, perft


def _cli_position(text: str, protocol: str) -> Position:
    """A position string, or `start` / `start:N` for the start of an N×N board."""
    cleaned = text.strip().lower()
    if cleaned == "start" or cleaned.startswith("start:"):
        size = int(cleaned.partition(":")[2] or "8")
        return Position.start(size, protocol)
    return Position.from_string(text, protocol)


def cli_perft(position: str, depth: int, protocol: str = "122", split: bool = False) -> list[str]:
    """`perft POSITION DEPTH`: the count, or with `split` the count per first move then the total."""
    pos = _cli_position(position, protocol)
    if not split:
        return [str(perft(pos, depth))]
    counts = divide(pos, depth)
    return [f"{move}: {count}" for move, count in counts.items()] + [f"total: {sum(counts.values())}"]


def cli_play(position: str, moves: Sequence[str], protocol: str = "122") -> list[str]:
    """`play POSITION MOVE...`: each move in canonical form with its swap and the new position, then the result."""
    pos = _cli_position(position, protocol)
    lines: list[str] = []
    for text in moves:
        move = pos.parse_move(text)
        pos = pos.play(move)
        lines.append(f"{move.describe()}: {pos}")
    lines.extend(_summary(pos))
    return lines


def cli_replay(text: str) -> list[str]:
    """`replay FILE` (given the file's text): validates the record and prints the final position and result."""
    game = replay(text)
    final = game.final
    return [f"{len(game.moves)} plies, all legal", str(final), *_summary(final)]


def _summary(position: Position) -> Iterator[str]:
    confined = position.confined
    if confined.black or confined.white:
        yield f"confined: black {' '.join(confined.black) or '-'}; white {' '.join(confined.white) or '-'}"
    yield f"scores: black {position.scores.black}, white {position.scores.white}"
    yield f"result: {position.result or 'game in progress'} ({result_text(position)})"


class VeloopAdapter:
    """Veloop behind the command line; its ``--rules`` value is the game's protocol."""

    def perft(self, position: str, depth: int, rules: str | None, split: bool) -> list[str]:
        return cli_perft(position, depth, rules or "122", split)

    def play(self, position: str, moves: Sequence[str], rules: str | None) -> list[str]:
        return cli_play(position, moves, rules or "122")

    def replay(self, text: str) -> list[str]:
        return cli_replay(text)


ADAPTER = VeloopAdapter()
