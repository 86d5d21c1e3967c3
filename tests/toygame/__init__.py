"""A toy third game that lives only under ``tests/``: three in a row on a 3×3 board.

It proves a game is added without editing any product file: its rules (``rules``), drawer (``render``),
AI (``ai``), cog (``cog``), command-line adapter (``cli``) and catalogue (``locales``) are named by the
one descriptor below, which a test registers with ``bot.rules.registry.register`` (or a process by
naming ``toygame.plugin`` in ``VELETAS_GAMES``).
"""

from __future__ import annotations

from pathlib import Path

from bot.rules.registry import GameDescriptor
from toygame.rules import KIND

DESCRIPTOR = GameDescriptor(
    KIND,
    drawer="toygame.render:DRAWER",
    cog="toygame.cog",
    ai="toygame.ai:choose_turn",
    cli="toygame.cli:ADAPTER",
    catalogue=Path(__file__).with_name("locales"),
)
