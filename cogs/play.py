"""Playing any game by command: the turn itself, resigning, taking back a move, the board, records and lists.

Every game's cog builds on ``GameCommands``: its ``board``, ``resign``, ``undo``, ``export`` and
``games`` are these, written once, under the game's own command group; the game adds what differs
(its challenge options, how a move is typed, its rules). What records and lists show is in
``cogs._records``, the leaderboard in ``cogs._leaderboard``; this extension registers their buttons
and menus, and runs the sweep that posts what could not be posted. Every command reads the game of this
channel, hands the player's text to the store (where the rules validate it and the turn is
committed), and answers with the new board. Undo answers are buttons whose custom ids carry the game
and the version they were made for (every change bumps it, an undo included), so a stale button can
never apply to a position its presser never saw. A typed command carries no such version, so its
interaction id (the moment it was sent) is compared with the game's last change instead.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable
from typing import Any, ClassVar, Literal, TypeVar

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.client import VeletasBot
from bot.errors import NoGameHere, RaceLost, TimeIsUp, UserError
from bot.i18n import Phrase, Words
from bot.ids import id_or_zero
from bot.rules.protocol import GameState
from bot.store.checks import check_in_play, check_participant
from bot.store.values import GameInfo
from cogs._board import RematchButton, board_message, theme_of
from cogs._delivery import announce, deliver, play_forced, sweep
from cogs._leaderboard import LeaderboardButton
from cogs._lookup import NamesAGame, UnknownControl, game_here
from cogs._records import ExportSelect, PlayAgainSelect, again_view, export_message, game_link
from cogs._send import Outgoing, bot_of, mention, respond, send_response, send_to_channel
from cogs._tables import TABLES, Table, table_for
from cogs._words import private_words, public_words
from cogs.challenge import challenges
from cogs.guided import PREFIX, STATE, custom_id, seen_state

log = logging.getLogger(__name__)
T = TypeVar("T")

SWEEP_MINUTES = 5.0
"""How often boards that could not be posted (Discord failing for minutes) are tried again."""

MAX_LISTED = 20
MAX_LIST_CHARS = 1800  # Discord's limit is 2000 characters per message


async def play_turn(
    interaction: discord.Interaction[Any],
    game_id: int,
    text: str,
    *,
    expected_version: int | None = None,
    expected_ply: int | None = None,
    typed: bool = False,
) -> None:
    """Commit one turn and answer with the new board; the store refuses anything not allowed.

    A ``typed`` turn carries no version of what its player saw, so the interaction's id (when it was
    sent) goes to the store, which refuses it if the game changed after that moment. Turns nobody has
    a choice in that follow (a forced pass) are played at once and said on the same board.
    """
    bot = bot_of(interaction)
    stamp = interaction.id if typed else None
    work = turn_board(
        bot,
        game_id,
        interaction.user.id,
        text,
        expected_ply=expected_ply,
        expected_version=expected_version,
        stamp=stamp,
    )
    await deliver(bot, game_id, respond(interaction, work))


async def turn_board(
    bot: VeletasBot,
    game_id: int,
    user_id: int,
    text: str,
    *,
    expected_ply: int | None = None,
    expected_version: int | None = None,
    stamp: int | None = None,
) -> Outgoing:
    """A member plays ``text`` in a game: the store commits it (or refuses, changing nothing), the turns nobody has
    a choice in follow, and the board message showing the result is made. A typed turn and a click on the board page
    take this path (the guided move's confirmation answers in two messages, through the same store call)."""
    played = await bot.store.play(
        game_id, user_id, text, expected_ply=expected_ply, expected_version=expected_version, stamp=stamp
    )
    after, note = await play_forced(bot, played)
    return await board_message(bot, after, note=note)


async def play_from_page(bot: VeletasBot, game_id: int, user_id: int, text: str, expected_version: int) -> None:
    """A turn clicked on the board page: ``turn_board``, with the board posted to the game's thread as the answer
    to a slash command would be (no interaction to answer), through ``deliver`` like every answer (the board
    lock, the AI's turn, the DM that calls the next player, a failed post retried). Refusals raise before any
    write; once the turn is stored, a post that fails is left to ``deliver``'s retries, never to the page."""

    async def answer() -> tuple[int | None, Outgoing]:
        out = await turn_board(bot, game_id, user_id, text, expected_version=expected_version)
        assert out.info is not None
        return await send_to_channel(bot, out.info.channel_id, out), out

    await deliver(bot, game_id, answer())


class ResignButton(
    NamesAGame,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:resign:(?P<game>[0-9]+):(?P<answer>yes|no)",
):
    """The private confirmation of ``resign``: a resignation is final, so it takes a second, deliberate press."""

    def __init__(self, game: GameInfo | str, game_id: int, answer: str, label: str | None = None) -> None:
        label = label or ("Resign" if answer == "yes" else "Keep playing")
        style = discord.ButtonStyle.danger if answer == "yes" else discord.ButtonStyle.secondary
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=custom_id(game, "resign", game_id, answer))
        )
        self.game_id, self.answer = game_id, answer

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ResignButton:
        return cls(match["prefix"], id_or_zero(match["game"]), match["answer"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.answered(interaction))

    async def answered(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        w = private_words(interaction)
        if self.answer == "no":
            await interaction.response.edit_message(content=w("play.not_resigned"), view=None)
            return
        resigned = await flag_falls_instead(
            bot, self.game_id, bot.store.resign(self.game_id, interaction.user.id, stamp=interaction.id)
        )

        async def answer() -> tuple[int | None, Outgoing]:
            await interaction.response.edit_message(content=w("play.you_resigned"), view=None)
            out = await board_message(bot, resigned)
            return await send_response(interaction, out), out

        await deliver(bot, self.game_id, answer())


class UndoAnswerButton(
    NamesAGame,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:undo:(?P<game>[0-9]+):{STATE}:(?P<answer>yes|no)",
):
    def __init__(
        self,
        game: GameInfo | str,
        game_id: int,
        version: int | None,
        answer: str,
        *,
        ply: int | None = None,
        label: str | None = None,
    ) -> None:
        label = label or ("Allow the take-back" if answer == "yes" else "Refuse")
        style = discord.ButtonStyle.success if answer == "yes" else discord.ButtonStyle.danger
        state = f"v{version}" if version is not None else str(ply)
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=custom_id(game, "undo", game_id, state, answer))
        )
        self.game_id, self.version, self.ply, self.answer = game_id, version, ply, answer

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> UndoAnswerButton:
        version, ply = seen_state(match)
        return cls(match["prefix"], id_or_zero(match["game"]), version, match["answer"], ply=ply)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        await bot.guard(
            interaction, answer_undo(interaction, self.game_id, self.version, self.ply, self.answer == "yes")
        )


async def flag_falls_instead(bot: VeletasBot, game_id: int, work: Awaitable[T]) -> T:
    """A take-back or resignation refused because time has run out: the game is lost on time at once (its last
    board goes out as the scheduler's would), and the refusal still reaches the player who asked, privately."""
    try:
        return await work
    except TimeIsUp:
        if await bot.store.flag(game_id) is not None:
            bot.spawn(announce(bot, game_id), name=f"announce-{game_id}")
        raise


async def answer_undo(
    interaction: discord.Interaction[Any], game_id: int, version: int | None, ply: int | None, accept: bool
) -> None:
    bot = bot_of(interaction)
    info = await bot.store.get_game(game_id)
    if ply is not None and info.ply != ply and info.status == "active":
        raise RaceLost("refusal.undo_stale")
    answered = await flag_falls_instead(
        bot,
        game_id,
        bot.store.answer_undo(game_id, interaction.user.id, accept, expected_version=version, stamp=interaction.id),
    )
    w = await public_words(bot, info.guild_id)
    verdict = "play.undo_allowed" if accept else "play.undo_refused"

    async def answer() -> tuple[int | None, Outgoing]:
        await interaction.response.edit_message(
            content=w(verdict, who=interaction.user.mention, turn=info.turns[-1]),
            view=None,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if not accept:
            return None, Outgoing()
        out = await board_message(bot, answered, note=w("play.taken_back", turn=info.turns[-1]))
        return await send_response(interaction, out), out

    await deliver(bot, game_id, answer())


async def channel_game(interaction: discord.Interaction[VeletasBot]) -> GameInfo:
    """The game in play in the channel (or thread) of the interaction."""
    assert interaction.channel_id is not None
    return await interaction.client.store.game_in_channel(interaction.channel_id)


def expect_game(info: GameInfo, table: Table, command: str) -> None:
    """A game's own command used in another game's channel is refused, naming the right one."""
    if info.kind.name != table.kind.name:
        other = table_for(info)
        name = Phrase(f"commands.{other.command}.{command}.name")
        raise UserError("play.other_game", game=other.label(info), title=table.title, group=other.command, command=name)


async def send_rules(interaction: discord.Interaction[VeletasBot], table: Table, option: str | None) -> None:
    """A game's rules in short, privately, with a picture of its heart; those of the channel's game when it is one."""
    settings: dict[str, str] | None = None
    if option is None and interaction.channel_id is not None:
        try:
            info = await interaction.client.store.game_in_channel(interaction.channel_id)
        except UserError:
            pass
        else:
            if info.kind.name == table.kind.name:
                settings = dict(info.settings)
    w = private_words(interaction)
    text = table.rules_text(w, settings, option)
    bot = interaction.client

    async def work() -> Outgoing:
        theme = await theme_of(bot, interaction.user.id)
        png, caption = await asyncio.to_thread(table.rules_example, w, theme)
        return Outgoing(content=f"{text}\n*{caption}*", files=[(RULES_FILE, png)])

    await respond(interaction, work(), ephemeral=True)


RULES_FILE = "example.png"


CHALLENGE_OPTIONS: dict[str, str] = {
    "opponent": "who you challenge (leave empty for an open challenge anyone can accept; pick me to play my AI)",
    "where": "thread (default): the game gets its own thread; here: played in this channel",
    "level": "AI strength from 1 to 5 when you challenge me (default 3)",
    "time": "the clock: none, 3d (days per move), 10+5 (minutes + seconds), 48h+12h/96h (default: the server's)",
    "rated": "yes: the result changes both ratings; no: a casual game (default: the server's choice)",
}
"""The descriptions of the options every game's ``challenge`` has; a game adds those of its own settings."""


@app_commands.guild_only()
class GameCommands(commands.Cog):
    """The commands every game has, the same for each; a game's cog subclasses it and sets ``table``."""

    table: ClassVar[Table]

    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    async def issue_challenge(
        self,
        interaction: discord.Interaction[VeletasBot],
        settings: dict[str, str],
        opponent: discord.Member | discord.User | None,
        where: Literal["thread", "here"],
        level: int | None,
        time: str | None,
        rated: Literal["yes", "no"] | None,
    ) -> None:
        """A game's ``challenge``, once its own settings are read: the shared options mean the same in every game."""
        await challenges(self.bot).issue(
            interaction,
            game=self.table.kind.name,
            settings=settings,
            opponent=opponent,
            where=where,
            level=level,
            time=time,
            rated=None if rated is None else rated == "yes",
        )

    async def state_here(self, interaction: discord.Interaction[VeletasBot]) -> GameState | None:
        """This game's state in the channel, for autocomplete: None when there is none (autocomplete never refuses)."""
        if interaction.channel_id is None:
            return None
        try:
            info = await self.bot.store.game_in_channel(interaction.channel_id)
        except UserError:
            return None
        return info.state if info.kind.name == self.table.kind.name else None

    @app_commands.command()
    @app_commands.describe(private="True: only you see it, drawn in your own theme (default: posted for everyone)")
    async def board(self, interaction: discord.Interaction[VeletasBot], private: bool = False) -> None:
        """Post this channel's board again (and claim the game if your opponent's time has run out)."""
        try:
            info = await channel_game(interaction)
        except NoGameHere as nothing:
            # A finished game's thread: its final board, as it ended (nothing to claim, nobody to call).
            assert interaction.channel_id is not None
            if not isinstance(interaction.channel, discord.Thread):
                raise  # a shared channel holds many games: "no game" with how to start one
            try:
                last = await self.bot.store.latest_game_in_channel(interaction.channel_id)
            except NoGameHere:
                raise nothing from None
            if last.status == "active" or last.kind.name != self.table.kind.name:
                raise
            viewer = interaction.user.id if private else None
            words_ = private_words(interaction) if private else None

            async def final() -> Outgoing:
                return (await board_message(self.bot, last, viewer=viewer, w=words_)).quiet()

            await respond(interaction, final(), ephemeral=private)
            return
        # Asking for the board claims a win on time at once, whatever the scheduler has not yet done.
        flagged = await self.bot.store.flag(info.id)
        if flagged is not None:
            await deliver(self.bot, info.id, respond(interaction, board_message(self.bot, flagged)))
            return

        async def quiet(viewer: int | None = None, w: Words | None = None) -> Outgoing:
            # Anyone may ask for the board, as often as they like: only a new turn calls the player to move,
            # so this one pings nobody and drops the "your turn" line (the embed still says whose turn it is).
            return (await board_message(self.bot, info, viewer=viewer, w=w)).quiet()

        if private:
            await respond(interaction, quiet(interaction.user.id, private_words(interaction)), ephemeral=True)
            return
        # The newest board carries the buttons players use, and an AI that failed its turn tries again.
        await deliver(self.bot, info.id, respond(interaction, quiet()))

    @app_commands.command()
    async def resign(self, interaction: discord.Interaction[VeletasBot]) -> None:
        """Give up this channel's game (you are asked to confirm, privately)."""
        info = await channel_game(interaction)
        check_in_play(info)
        check_participant(info, interaction.user.id)
        w = private_words(interaction)
        view = discord.ui.View(timeout=None)
        view.add_item(ResignButton(info, info.id, "yes", w("play.resign.label")))
        view.add_item(ResignButton(info, info.id, "no", w("play.keep_playing.label")))
        label = table_for(info).label(info)
        await interaction.response.send_message(w("play.resign_confirm", game=label), view=view, ephemeral=True)

    @app_commands.command()
    async def undo(self, interaction: discord.Interaction[VeletasBot]) -> None:
        """Ask your opponent to let you take back your last move."""
        info = await channel_game(interaction)
        me = self.bot.user.id if self.bot.user is not None else None
        if me is not None and me in info.participants:
            # The AI never minds: your last move and its reply are taken back at once, and it is your move again.
            undone = await flag_falls_instead(
                self.bot,
                info.id,
                self.bot.store.take_back_against_ai(info.id, interaction.user.id, me, stamp=interaction.id),
            )
            taken = " ".join(f"`{turn}`" for turn in info.turns[undone.ply :])
            note = (await public_words(self.bot, info.guild_id))("play.taken_back_ai", turns=taken)
            await deliver(self.bot, undone.id, respond(interaction, board_message(self.bot, undone, note=note)))
            return
        asked = await flag_falls_instead(self.bot, info.id, self.bot.store.request_undo(info.id, interaction.user.id))
        opponent = next(p for p in asked.participants if p != interaction.user.id)
        w = await public_words(self.bot, asked.guild_id)
        view = discord.ui.View(timeout=None)
        view.add_item(UndoAnswerButton(asked, asked.id, asked.version, "yes", label=w("play.allow_undo.label")))
        view.add_item(UndoAnswerButton(asked, asked.id, asked.version, "no", label=w("play.refuse_undo.label")))
        out = Outgoing(
            content=w(
                "play.undo_asked", who=interaction.user.mention, turn=asked.turns[-1], opponent=mention(opponent)
            ),
            view=view,
            mention=opponent,
        )
        await send_response(interaction, out)

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
            info = await game_here(interaction, game)
            if info.status not in ("active", "finished", "cancelled"):
                label = table_for(info).label(info)
                raise UserError("play.never_played", game=label, status=Phrase(f"play.challenge_{info.status}"))
        work = export_message(self.bot, info, interaction.user.id, private_words(interaction))
        await respond(interaction, work, ephemeral=True)

    @app_commands.command()
    async def games(self, interaction: discord.Interaction[VeletasBot]) -> None:
        """The games being played in this server, of every game; and yours that ended, to play again."""
        assert interaction.guild_id is not None
        live = await self.bot.store.live_games(interaction.guild_id)
        mine = await self.bot.store.finished_games_of(interaction.guild_id, interaction.user.id)
        w = private_words(interaction)
        view = again_view(self.bot, mine, w) if mine else discord.utils.MISSING
        if not live:
            starts = [
                f"`/{table.command} {w(f'commands.{table.command}.challenge.name')}`" for table in TABLES.values()
            ]
            joined = starts[0]
            for start in starts[1:]:
                joined = w("refusal.or", first=joined, second=start)
            await interaction.response.send_message(w("play.no_games", commands=joined), ephemeral=True, view=view)
            return
        lines: list[str] = []
        size = 0
        for info in live[:MAX_LISTED]:
            table = table_for(info)
            players = w("play.versus", first=f"<@{info.participants[0]}>", second=f"<@{info.participants[-1]}>")
            ai = w("play.ai_level", level=info.ai_level) if info.ai_level is not None else ""
            line = w(
                "play.game_line_live",
                game=table.label(info),
                settings=table.settings_text(w, info.settings),
                players=players,
                ai=ai,
                turn=info.ply + 1,
                link=game_link(info),
            )
            if size + len(line) > MAX_LIST_CHARS:
                break
            lines.append(line)
            size += len(line) + 1
        more = "\n" + w("play.more", count=len(live) - len(lines)) if len(live) > len(lines) else ""
        await interaction.response.send_message(
            w("play.in_progress", count=len(live)) + "\n" + "\n".join(lines) + more,
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
            view=view,
        )


class DeliveryCog(commands.Cog, name="Delivery"):
    """No commands: posts, now and then, every stored change nobody was told of, and resumes owed AI turns."""

    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.sweep_loop.start()

    async def cog_unload(self) -> None:
        self.sweep_loop.cancel()

    @tasks.loop(minutes=SWEEP_MINUTES)
    async def sweep_loop(self) -> None:
        """At start-up, then now and then: post every stored change nobody was told of, resume owed AI turns."""
        try:
            await sweep(self.bot)
        except Exception:
            log.exception("Sweeping unannounced games failed; retrying on the next round")

    @sweep_loop.before_loop
    async def before_sweep(self) -> None:
        await self.bot.wait_until_ready()


async def setup(bot: VeletasBot) -> None:
    bot.add_dynamic_items(
        UndoAnswerButton, ResignButton, RematchButton, PlayAgainSelect, LeaderboardButton, ExportSelect, UnknownControl
    )
    await bot.add_cog(DeliveryCog(bot))
