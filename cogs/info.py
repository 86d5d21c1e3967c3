"""Looking things up: the rules in short, a game's record and replay, and the games in progress.

Answers are private: they are for the person who asked and would only clutter a game's channel.
"""

from __future__ import annotations

import asyncio
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot import render
from bot.client import VeletasBot
from bot.errors import NoGameHere, UserError
from bot.rules import VARIANTS
from bot.store import GameInfo
from cogs._board import Outgoing, learn_names, record_file, respond, seat_names, theme_of

MAX_LISTED = 20
MAX_LIST_CHARS = 1800  # Discord's limit is 2000 characters per message

COMMON_RULES = """\
**Veletas** is a territory game for two on a square board with neutral pieces, the *shooters*.
**A turn:** pick an unclaimed shooter, optionally slide it like a chess queen to an empty square, \
then it shoots: put a stone of your colour on an empty square in one of the eight queen directions \
from where it now stands (it may hit the square it just left). Shooting is compulsory.
**Claims:** after every shot, each unclaimed shooter that can no longer move is claimed, for good. \
It goes to the colour with the strictly bigger orthogonally adjacent group of stones; with a tie, \
or no group at all, it goes to the opponent of the player who just moved.
**Winning:** the first to claim {to_win} wins. There are no draws.
**Notation:** `d4-g7/g2` moves d4 to g7 and shoots g2; `g2` shoots g2 without moving."""

EDITION_RULES = {
    "current": """\
**Current rules (the default).** The first player places {first} and one black stone; \
the second player then chooses colours (`/veletas pie` keep or swap); White places the remaining \
shooters and one white stone. Setup shooters may not go on the edge of the board. \
Shooters move and shoot over other shooters, never over stones. Black moves first.""",
    "classic": """\
**Classic rules.** Black places {first}, then White places the rest; no stones in setup \
and no colour choice. A setup shooter may not touch another shooter, even diagonally. \
Every piece blocks: shooters move and shoot over nothing. Black moves first.""",
}


def _shooters(count: int) -> str:
    return f"{count} shooter{'s' if count != 1 else ''}"


def rules_summary(rules: str, variant: str | None) -> str:
    """The edition's rules with the numbers of one board, or of every board when no game is in view."""
    if variant is not None:
        chosen = VARIANTS[variant]
        to_win = f"{chosen.to_win} of the {chosen.shooters} shooters ({chosen.name} board, {chosen.size}×{chosen.size})"
        first = _shooters(chosen.first_places)
    else:
        boards = list(VARIANTS.values())
        to_win = (
            "a majority of the shooters ("
            + "; ".join(f"{v.name} {v.size}×{v.size}: {v.to_win} of {v.shooters}" for v in boards)
            + ")"
        )
        first = (
            f"{_shooters(boards[0].first_places)} ({boards[0].name}; "
            + ", ".join(f"{v.name} {v.first_places}" for v in boards[1:])
            + ")"
        )
    return COMMON_RULES.format(to_win=to_win) + "\n" + EDITION_RULES[rules].format(first=first)


def game_link(info: GameInfo) -> str:
    if info.board_message_id is not None:
        return f"https://discord.com/channels/{info.guild_id}/{info.channel_id}/{info.board_message_id}"
    return f"https://discord.com/channels/{info.guild_id}/{info.channel_id}"


@app_commands.guild_only()
class InfoCog(commands.Cog, name="Info"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    @app_commands.command(name="rules")
    @app_commands.describe(edition="which rules to summarise (default: those of this channel's game, else current)")
    async def rules_command(
        self, interaction: discord.Interaction[VeletasBot], edition: Literal["current", "classic"] | None = None
    ) -> None:
        """A short summary of the rules."""
        variant: str | None = None
        chosen: str = edition or "current"
        if edition is None and interaction.channel_id is not None:
            try:
                info = await self.bot.store.game_in_channel(interaction.channel_id)
            except NoGameHere:
                pass
            else:
                chosen, variant = info.rules, info.variant
        text = rules_summary(chosen, variant)
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command()
    @app_commands.describe(game="the game number (shown on its board); default: this channel's latest game")
    async def export(
        self, interaction: discord.Interaction[VeletasBot], game: app_commands.Range[int, 1] | None = None
    ) -> None:
        """The record of a game (this channel's latest by default), and its replay once it is over."""
        assert interaction.channel_id is not None and interaction.guild_id is not None
        if game is None:
            info = await self.bot.store.latest_game_in_channel(interaction.channel_id)
        else:
            info = await self.bot.store.get_game(game)
            if info.guild_id != interaction.guild_id:
                raise NoGameHere("That game does not exist (any more).")
            if info.status not in ("active", "finished", "cancelled"):
                raise UserError(f"Veletas #{info.id} was never played: its challenge was {info.status}.")
        await respond(interaction, self._export(info, interaction.user.id), ephemeral=True)

    async def _export(self, info: GameInfo, viewer: int) -> Outgoing:
        await learn_names(self.bot, info)
        files = [record_file(self.bot, info)]
        note = f"The record of Veletas #{info.id} so far."
        if info.status != "active":
            theme = await theme_of(self.bot, viewer)
            players = seat_names(self.bot, info)
            gif = await asyncio.to_thread(render.replay_gif, info.game, players=players, theme=theme)
            files.append((f"veletas-{info.id}.gif", gif))
            note = f"The record and replay of Veletas #{info.id} ({info.result or info.status})."
        return Outgoing(content=note, files=files)

    @app_commands.command()
    async def games(self, interaction: discord.Interaction[VeletasBot]) -> None:
        """The games being played in this server."""
        assert interaction.guild_id is not None
        live = await self.bot.store.live_games(interaction.guild_id)
        if not live:
            await interaction.response.send_message(
                "No game is being played in this server right now. Start one with `/veletas challenge`.",
                ephemeral=True,
            )
            return
        lines: list[str] = []
        size = 0
        for info in live[:MAX_LISTED]:
            players = " vs ".join(f"<@{p}>" for p in info.participants)
            ai = f" (AI level {info.ai_level})" if info.ai_level is not None else ""
            line = (
                f"**#{info.id}** {info.variant}, {info.rules} rules · {players}{ai} · turn {info.ply + 1} · "
                f"[board]({game_link(info)})"
            )
            if size + len(line) > MAX_LIST_CHARS:
                break
            lines.append(line)
            size += len(line) + 1
        more = f"\n… and {len(live) - len(lines)} more." if len(live) > len(lines) else ""
        await interaction.response.send_message(
            f"{len(live)} game(s) in progress:\n" + "\n".join(lines) + more,
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: VeletasBot) -> None:
    await bot.add_feature(InfoCog(bot))
