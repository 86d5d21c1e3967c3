"""Veloop behind ``python -m bot.rules``: its ``Adapter``, which the rules' ``cli_*`` functions serve."""

from __future__ import annotations

from collections.abc import Sequence


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


ADAPTER = VeloopAdapter()
