"""``/veletas review``, ``/veloop review`` and a finished board's Review button: the AI's review of a finished game.

The AI evaluates every position of the game in its worker processes (``cogs._ai_pool``: one position a job,
behind the AI's own turns, within the analysis queue's limits), the moves are graded (``bot.ai.review``) and
one image is posted with the game's replay beside its evaluation bar (``bot.render.review``). A game still
being played is never reviewed (the fair-play rule of ``/veletas analyze``), and a server that switched
analysis off gets no reviews either. The review is kept (``game_reviews``), so asking again draws the image
again without searching the game again.

Where the answer goes: in the game's own channel (or thread) the image is posted for everyone there; asked
from anywhere else, the answer is private, so a review never lands in a channel that did not hold the game.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.ai.review import REVIEWED, Review, judge, review_from_json, review_json
from bot.client import VeletasBot
from bot.errors import NoGameHere, UserError
from bot.i18n import Phrase
from bot.render.review import review_gif, review_png
from bot.store.values import GameInfo
from cogs._ai_pool import AnalysisRefused, Reviewer
from cogs._board import ReviewButton, theme_of
from cogs._lookup import game_here
from cogs._names import colour_names
from cogs._send import Outgoing, send_response
from cogs._words import private_words, public_words
from cogs.analyze import LIVE_GAME, NO_ANALYST, ONE_AT_A_TIME, QUEUE_FULL, TURNED_OFF

log = logging.getLogger(__name__)

REVIEW_FILE = "review.png"
REPLAY_FILE = "replay.gif"


class ReviewCog(commands.Cog):
    """The review command of one game's group; the work is shared (``review_game``)."""

    game = "veletas"
    """The game whose finished games the command's autocomplete offers."""

    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    @app_commands.command()
    @app_commands.describe(game="a finished game's number (default: this channel's last game)")
    async def review(
        self, interaction: discord.Interaction[VeletasBot], game: app_commands.Range[int, 1] | None = None
    ) -> None:
        """The AI reviews a finished game: turning points and mistakes."""
        await self.review_game(interaction, game)

    @review.autocomplete("game")
    async def _finished_games(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[int]]:
        """The member's recent finished games of this group's game, narrowed by the number typed so far."""
        if interaction.guild_id is None:
            return []
        typed = str(current or "").strip()
        games = await self.bot.store.past_games(interaction.guild_id, interaction.user.id, game=self.game)
        return [
            app_commands.Choice(name=f"{info.kind.title} #{info.id}", value=info.id)
            for info in games
            if str(info.id).startswith(typed)
        ]

    async def review_game(self, interaction: discord.Interaction[Any], game_id: int | None) -> None:
        """Review the game ``game_id`` names (this channel's last game by default) and post the image."""
        assert interaction.guild_id is not None
        info = await self._finished_game(interaction, game_id)
        if info.kind.name not in REVIEWED:
            raise UserError("review.not_this_game", game=info.kind.title)
        reviewer = self.bot.ai
        if not isinstance(reviewer, Reviewer):
            raise UserError(NO_ANALYST)
        if not (await self.bot.store.get_guild_settings(interaction.guild_id)).analysis:
            raise UserError(TURNED_OFF)
        here = interaction.channel_id == info.channel_id
        try:
            with reviewer.reserve(interaction.user.id):
                # A review searches every position: the member sees "thinking…" at once.
                await interaction.response.defer(thinking=True, ephemeral=not here)
                review = await self._review(info, reviewer)
        except AnalysisRefused as exc:
            raise UserError(ONE_AT_A_TIME if exc.reason == "member" else QUEUE_FULL) from None
        w = await public_words(self.bot, interaction.guild_id) if here else private_words(interaction)
        theme = await theme_of(self.bot, interaction.user.id)
        names = colour_names(self.bot, info)
        png = await asyncio.to_thread(review_png, info.state, review, theme=theme, players=names, words=w)
        replay = await asyncio.to_thread(review_gif, info.state, review, theme=theme, players=names, words=w)
        text = w("review.posted", game=f"{info.kind.title} #{info.id}", count=len(info.turns))
        files = [(REVIEW_FILE, png), (REPLAY_FILE, replay)]
        await send_response(interaction, Outgoing(content=text, files=files), ephemeral=not here)

    async def _finished_game(self, interaction: discord.Interaction[Any], game_id: int | None) -> GameInfo:
        """The game to review: one of this server's, over (finished or cancelled); a game in play is refused."""
        assert interaction.channel_id is not None
        if game_id is None:
            try:
                await self.bot.store.game_in_channel(interaction.channel_id)
            except NoGameHere:
                pass
            else:
                raise UserError(LIVE_GAME)
            try:
                info = await self.bot.store.latest_game_in_channel(interaction.channel_id)
            except NoGameHere:
                raise UserError("analyze.no_game_yet") from None
        else:
            info = await game_here(interaction, game_id)
        if info.status == "active":
            raise UserError("analyze.live_game_numbered", id=str(info.id))
        if info.status not in ("finished", "cancelled"):
            raise UserError(
                "play.never_played",
                game=f"{info.kind.title} #{info.id}",
                status=Phrase(f"play.challenge_{info.status}"),
            )
        return info

    async def _review(self, info: GameInfo, reviewer: Reviewer) -> Review:
        """The kept review of the game, or a new one searched in the AI's workers, kept in one transaction."""
        kept = await self.bot.store.get_review(info.id, len(info.turns))
        if kept is not None:
            return review_from_json(kept)
        settings = tuple(sorted(info.settings.items()))
        evaluations = await reviewer.review_positions(info.kind.name, info.turns, settings)
        review = await asyncio.to_thread(judge, info.kind.name, info.turns, info.settings, evaluations)
        await self.bot.store.save_review(info.id, len(info.turns), review_json(review))
        log.info("Reviewed game %d (%d turns)", info.id, len(info.turns))
        return review


@app_commands.guild_only()
class VeletasReview(ReviewCog, name="Review"):
    """``/veletas review``; its ``review_game`` also serves the Review button of every game."""


@app_commands.guild_only()
class VeloopReview(ReviewCog, name="Veloop review"):
    """``/veloop review``."""

    game = "veloop"


async def setup(bot: VeletasBot) -> None:
    await bot.add_feature(VeletasReview(bot))
    await bot.add_feature(VeloopReview(bot), group="veloop")
    bot.add_dynamic_items(ReviewButton)
