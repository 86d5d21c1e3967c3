"""``/veletas analyze``: the level-4 AI's view of a finished game or of any position string.

There is deliberately no hint command: help during a game between people would spoil it. So a game
of this channel is analysed only once it is over, and a pasted position within two plies of any game
between people in the server (ahead or behind, either side to move) is refused too; server managers
can also switch analysis off for their server (``/settings analysis:off``), during a
tournament say. Pasted text is read only on the games' own board sizes, and off the event loop; the
search runs in the AI's worker processes, behind the AI's own turns and in a bounded queue.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import VeletasBot
from bot.errors import NoGameHere, UserError
from bot.i18n import Phrase, Words
from bot.rules import Game, Position
from bot.rules.analysis import read_position, within_two_plies_of_any
from bot.rules.protocol import Refused
from bot.store.values import GameInfo
from cogs._ai_pool import AnalysisRefused, Analyst, Verdict
from cogs._board import BOARD_FILE, colour_word, theme_of
from cogs._lookup import game_here
from cogs._options import MAX_POSITION
from cogs._send import Outgoing, send_response
from cogs._veletas_game import render_position
from cogs._words import private_words

log = logging.getLogger(__name__)

NO_ANALYST = "analyze.no_analyst"
LIVE_GAME = "analyze.live_game"
LIVE_POSITION = "analyze.live_position"
TURNED_OFF = "analyze.turned_off"
ONE_AT_A_TIME = "analyze.one_at_a_time"
QUEUE_FULL = "analyze.queue_full"


def unreadable(exc: ValueError) -> UserError:
    """A pasted position that cannot be read: the rules' reason when they name it, else the format explained."""
    reason = Phrase(exc.key, **exc.data) if isinstance(exc, Refused) else Phrase("analyze.format")
    return UserError("analyze.unreadable", reason=reason)


def _target(info: GameInfo, turn: int | None) -> tuple[Game, int]:
    """The game just before ``turn`` (1-based, as in the record); by default the last position worth a move.

    That is the final position when the game stopped without a win (resigned, cancelled), else the
    position before the winning move.
    """
    turns = info.turns
    if turn is None:
        turn = len(turns) + 1 if not info.game.position.is_over else len(turns)
    if not 1 <= turn <= len(turns) + 1:
        raise UserError(
            "analyze.turns_range", id=str(info.id), count=len(turns), turn=Phrase("commands.veletas.analyze.turn.name")
        )
    game = Game.replay(turns[: turn - 1], variant=info.variant, rules=info.rules)
    if game.phase != "play":
        raise UserError("analyze.setup_turn", number=turn, id=str(info.id))
    return game, turn


def verdict_text(w: Words, verdict: Verdict) -> str:
    """Who is ahead in words a player reads at a glance, then the move the search prefers."""
    if verdict.best_move is None:
        if verdict.proven is not None:
            return w("analyze.has_won", colour=colour_word(w, verdict.proven))
        return w("analyze.over")
    if verdict.proven is not None:
        standing = w("analyze.wins_by_force", colour=colour_word(w, verdict.proven))
    else:
        black = round(verdict.black * 100)
        leader, share = ("black", black) if black >= 50 else ("white", 100 - black)
        if share < 55:
            standing = w("analyze.even", black=black, white=100 - black)
        else:
            key = "analyze.ahead" if share < 75 else "analyze.clearly_winning"
            standing = w(key, colour=colour_word(w, leader), share=share)
    return standing + "\n" + w("analyze.best_move", colour=colour_word(w, verdict.to_move), move=verdict.best_move)


@app_commands.guild_only()
class AnalyzeCog(commands.Cog, name="Analysis"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    @app_commands.command()
    @app_commands.describe(
        position="a position string, e.g. 7/1S5/2b4/3S3/4w2/5S1/7 b (default: this channel's last game)",
        rules="the rules of the position (default: current, or those of this channel's game)",
        game="the number of a finished game of this server (default: this channel's last game)",
        turn="the turn of that game to look at, before it was played (default: the end)",
    )
    async def analyze(
        self,
        interaction: discord.Interaction[VeletasBot],
        position: app_commands.Range[str, 1, MAX_POSITION] | None = None,
        rules: Literal["current", "classic"] | None = None,
        game: app_commands.Range[int, 1] | None = None,
        turn: app_commands.Range[int, 1, 10_000] | None = None,
    ) -> None:
        """Who is winning, and the best move: a finished game of this channel, or a position you paste."""
        analyst = self.bot.ai
        if not isinstance(analyst, Analyst):
            raise UserError(NO_ANALYST)
        assert interaction.guild_id is not None
        if not (await self.bot.store.get_guild_settings(interaction.guild_id)).analysis:
            raise UserError(TURNED_OFF)
        position_text, edition, title, played = await self._what(interaction, position, rules, game, turn)
        try:
            with analyst.reserve(interaction.user.id):
                # The search alone takes about a second, more when the workers are busy with AI games:
                # the player sees "thinking…" at once instead of a silent wait.
                await interaction.response.defer(thinking=True, ephemeral=True)
                verdict = await analyst.analyze(position_text, edition)
        except AnalysisRefused as exc:
            raise UserError(ONE_AT_A_TIME if exc.reason == "member" else QUEUE_FULL) from None
        except ValueError as exc:
            raise unreadable(exc) from exc
        w = private_words(interaction)
        out = await self._answer(position_text, edition, w.phrase(title), played, verdict, interaction.user.id, w)
        await send_response(interaction, out, ephemeral=True)

    async def _what(
        self,
        interaction: discord.Interaction[VeletasBot],
        position: str | None,
        rules: str | None,
        game_id: int | None,
        turn: int | None,
    ) -> tuple[str, str, Phrase, str | None]:
        """The position string, its rules, a title, and the move actually played there (for a game)."""
        assert interaction.channel_id is not None and interaction.guild_id is not None
        live: GameInfo | None
        try:
            live = await self.bot.store.game_in_channel(interaction.channel_id)
        except NoGameHere:
            live = None
        if position is not None:
            edition = rules or (live.rules if live is not None else "current")
            text = " ".join(position.split())
            try:
                # Off the event loop: reading is quick on the games' boards, and other sizes are refused
                # before anything is built for them, but a player's text never holds up other players.
                parsed = await asyncio.to_thread(read_position, text, edition)
            except ValueError as exc:
                raise unreadable(exc) from exc
            await self._refuse_live_position(interaction, live, parsed)
            return str(parsed), edition, Phrase("analyze.your_position"), None
        if game_id is not None:
            info = await game_here(interaction, game_id)
            if info.status == "active":
                raise UserError("analyze.live_game_numbered", id=str(info.id))
            if info.status not in ("finished", "cancelled"):
                raise UserError(
                    "play.never_played", game=f"Veletas #{info.id}", status=Phrase(f"play.challenge_{info.status}")
                )
        else:
            if live is not None:
                raise UserError(LIVE_GAME)
            try:
                info = await self.bot.store.latest_game_in_channel(interaction.channel_id)
            except NoGameHere:
                raise UserError("analyze.no_game_yet") from None
        game, number = _target(info, turn)
        played = info.turns[number - 1] if number <= len(info.turns) else None
        if played is not None:
            return str(game.position), info.rules, Phrase("analyze.before_turn", id=str(info.id), number=number), played
        return str(game.position), info.rules, Phrase("analyze.at_the_end", id=str(info.id)), played

    async def _refuse_live_position(
        self, interaction: discord.Interaction[VeletasBot], here: GameInfo | None, position: Position
    ) -> None:
        """No hints by pasting: nothing within two plies of this channel's game or any game between people here.

        Games are played in threads by default, and a spectator can paste as well as a player, so
        every game between people in the server counts, not only the asker's or this channel's.
        """
        assert interaction.guild_id is not None
        games = [here] if here is not None else []
        games += await self.bot.store.live_games_between_people(interaction.guild_id)
        records = [(info.turns, info.variant, info.rules) for info in games]
        if await asyncio.to_thread(within_two_plies_of_any, position, records):
            raise UserError(LIVE_POSITION)

    async def _answer(
        self, position: str, rules: str, title: str, played: str | None, verdict: Verdict, viewer: int, w: Words
    ) -> Outgoing:
        text = verdict_text(w, verdict)
        if played is not None:
            text += "\n" + w("analyze.played", move=played)
        board = Position.from_string(position, rules)
        theme = await theme_of(self.bot, viewer)
        if verdict.best_move is not None:
            best = board.parse_move(verdict.best_move)
            text += "\n" + w("analyze.image_after_best")
            png = await render_position(board.play(best), last_move=best, theme=theme, w=w)
        else:
            png = await render_position(board, theme=theme, w=w)
        embed = discord.Embed(
            title=w("analyze.title", title=title), description=text, colour=discord.Colour.dark_teal()
        )
        embed.set_image(url=f"attachment://{BOARD_FILE}")
        embed.set_footer(text=w("analyze.footer", iterations=verdict.iterations, rules=w(f"veletas.edition.{rules}")))
        log.debug("Analysed %s (%s): %s", position, rules, verdict)
        return Outgoing(embed=embed, files=[(BOARD_FILE, png)])


async def setup(bot: VeletasBot) -> None:
    await bot.add_feature(AnalyzeCog(bot))
