"""Registers the toy game when imported: what ``VELETAS_GAMES=toygame.plugin`` names for a process."""

from bot.rules.registry import register
from toygame import DESCRIPTOR

register(DESCRIPTOR)
