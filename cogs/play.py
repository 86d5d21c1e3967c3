"""Playing any game by command: the turn itself, resigning, taking back a move, the board, records and lists.

Every game's cog builds on ``GameCommands``: its ``board``, ``resign``, ``undo``, ``export`` and
``games`` are these, written once, under the game's own command group; the game adds what differs
(its challenge options, how a move is typed, its rules). Every command reads the game of this
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
import time
from collections.abc import Awaitable, Mapping
from typing import Any, ClassVar, TypeVar, cast

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.client import VeletasBot
from bot.errors import NoGameHere, RaceLost, TimeIsUp, UserError
from bot.i18n import Phrase, Words
from bot.ids import id_or_zero
from bot.render.chart import rating_chart_png
from bot.rules.protocol import GameState
from bot.store import GameInfo, check_in_play, check_participant
from cogs._board import RematchButton, Rematcher, board_message, record_file, result_text, theme_of
from cogs._delivery import announce, deliver, play_forced, sweep
from cogs._lookup import NamesAGame, UnknownControl, game_here
from cogs._names import colour_names, learn_names, name_of, seat_names
from cogs._send import Outgoing, bot_of, mention, respond, respond_update, send_response
from cogs._tables import TABLES, Table, table_for
from cogs._words import private_words, public_words
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

    async def work() -> Outgoing:
        played = await bot.store.play(
            game_id,
            interaction.user.id,
            text,
            expected_ply=expected_ply,
            expected_version=expected_version,
            stamp=stamp,
        )
        after, note = await play_forced(bot, played)
        return await board_message(bot, after, note=note)

    await deliver(bot, game_id, respond(interaction, work()))


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


def record_text(w: Words, won: int, lost: int, drawn: int) -> str:
    """Games won, lost and drawn, each counted with its own plural form ("1 ganada, 2 perdidas")."""
    return w(
        "play.record",
        won=w("play.record_won", count=won),
        lost=w("play.record_lost", count=lost),
        drawn=w("play.record_drawn", count=drawn),
    )


def game_link(info: GameInfo) -> str:
    if info.board_message_id is not None:
        return f"https://discord.com/channels/{info.guild_id}/{info.channel_id}/{info.board_message_id}"
    return f"https://discord.com/channels/{info.guild_id}/{info.channel_id}"


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
PAGE = 10
# A page number a button may carry: past it a forged one is read as this (and shows the last page).
MAX_PAGE = 1_000_000


def settings_code(table: Table, settings: Mapping[str, str]) -> str:
    """A pool's settings in a custom id: their values in the game's order (``standard.current``, ``8.122``)."""
    return ".".join(settings[name] for name in table.kind.setting_choices)


def settings_from_code(table: Table, code: str) -> dict[str, str]:
    """The settings a custom id names; UserError for a forged or stale one (a value the game does not have)."""
    names = list(table.kind.setting_choices)
    values = code.split(".")
    if len(values) != len(names):
        raise UserError("play.leaderboard_stale")
    try:
        return table.kind.check_settings(dict(zip(names, values, strict=True)))
    except ValueError as exc:
        raise UserError("play.leaderboard_stale") from exc


MEMBER_CHECK_SECONDS = 3600.0
"""How long a member seen in a server is taken to still be there before a leaderboard asks Discord again."""


async def left_the_server(bot: VeletasBot, guild_id: int, users: list[int]) -> list[int]:
    """Which of ``users`` are no longer members of the server, asking Discord about those not seen lately.

    The bot runs without the members intent, so nobody tells it when a member leaves; a leaderboard
    asks about the players it is about to show instead (at most one request each per hour).
    """
    guild = bot.get_guild(guild_id)
    if guild is None:
        return []
    now = time.monotonic()

    async def left(user: int) -> bool:
        seen = bot.members_seen.get((guild_id, user))
        if seen is not None and now - seen < MEMBER_CHECK_SECONDS:
            return False
        try:
            await guild.fetch_member(user)
        except discord.NotFound:
            return True
        except discord.HTTPException:
            return False  # Discord failing now: show them, and ask again next time
        if len(bot.members_seen) > 100_000:
            bot.members_seen.clear()
        bot.members_seen[(guild_id, user)] = now
        return False

    # One page's questions at once (discord.py keeps them within the route's rate limit).
    answers = await asyncio.gather(*(left(user) for user in users))
    return [user for user, gone in zip(users, answers, strict=True) if gone]


async def leaderboard_page(
    bot: VeletasBot,
    guild_id: int,
    table: Table,
    settings: Mapping[str, str],
    page: int,
    established: bool,
    w: Words,
) -> Outgoing:
    """One page of a server's leaderboard for a game and its rated settings, with buttons to turn pages.

    Members who left the server are found as their page is shown, remembered, and left out: the page is
    read again until none of it has left, however many had (each is asked about once, then remembered).
    """
    while True:
        rows, total = await bot.store.leaderboard(
            guild_id, table.kind.name, settings, offset=page * PAGE, limit=PAGE, established=established
        )
        gone = await left_the_server(bot, guild_id, [user for user, _, _ in rows])
        if not gone:
            break
        await bot.store.mark_departed(guild_id, gone)
    pages = max(1, -(-total // PAGE))
    if page >= pages:
        # Past the end (players left since, or a forged button): the last page instead.
        page = pages - 1
        rows, total = await bot.store.leaderboard(
            guild_id, table.kind.name, settings, offset=page * PAGE, limit=PAGE, established=established
        )
        pages = max(1, -(-total // PAGE))
    title = w("play.leaderboard.title", game=table.title, settings=table.settings_text(w, settings))
    if not rows:
        description = w("play.nobody_rated" if page == 0 else "play.no_more_players")
    else:
        lines = []
        for rank, (user, rating, (wins, losses, draws)) in enumerate(rows, start=page * PAGE + 1):
            record = record_text(w, wins, losses, draws)
            lines.append(
                w(
                    "play.leaderboard_line",
                    rank=rank,
                    who=mention(user),
                    rating=rating.shown,
                    deviation=round(rating.deviation),
                    record=record,
                )
            )
        description = "\n".join(lines)
    note = w("play.established_only" if established else "play.provisional_mark")
    embed = discord.Embed(title=title[:256], description=description)
    embed.set_footer(
        text=w(
            "play.leaderboard.footer",
            page=min(page + 1, pages),
            pages=pages,
            players=w("play.players", count=total),
            note=note,
        )
    )
    view = discord.ui.View(timeout=None)
    code = settings_code(table, settings)
    previous, following = w("play.previous.label"), w("play.next.label")
    view.add_item(
        LeaderboardButton(table.kind.name, code, page - 1, established, "p", disabled=page <= 0, label=previous)
    )
    view.add_item(
        LeaderboardButton(
            table.kind.name, code, page + 1, established, "n", disabled=page + 1 >= pages, label=following
        )
    )
    return Outgoing(embed=embed, view=view)


class LeaderboardButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=(r"(?P<prefix>[a-z]{2,12}):lb:(?P<code>[a-z0-9.]{1,40}):(?P<page>-?[0-9]+):(?P<est>[01]):(?P<dir>[pn])"),
):
    """Turns a leaderboard's page; everything it needs is in its custom id, checked before use."""

    def __init__(
        self,
        game: str,
        code: str,
        page: int,
        established: bool,
        direction: str,
        *,
        disabled: bool = False,
        label: str | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or ("Previous" if direction == "p" else "Next"),
                style=discord.ButtonStyle.secondary,
                custom_id=f"{game}:lb:{code}:{page}:{int(established)}:{direction}",
                disabled=disabled,
            )
        )
        self.game, self.code, self.page, self.established = game, code, page, established

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> LeaderboardButton:
        page = max(-1, min(int(match["page"]), MAX_PAGE))
        return cls(match["prefix"], match["code"], page, match["est"] == "1", match["dir"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> Outgoing:
            table = table_for(self.game) if self.game in TABLES else None
            if table is None or interaction.guild_id is None:
                raise UserError("play.leaderboard_stale")
            settings = settings_from_code(table, self.code)
            return await leaderboard_page(
                bot,
                interaction.guild_id,
                table,
                settings,
                max(0, self.page),
                self.established,
                private_words(interaction),
            )

        await bot.guard(interaction, respond_update(interaction, work()))


async def send_leaderboard(
    interaction: discord.Interaction[VeletasBot], table: Table, settings: Mapping[str, str], established: bool
) -> None:
    """A game's leaderboard in this server (its members' ratings only), privately, from the first page.

    Settings left out are those of the busiest pool this server has that matches the ones given (the
    defaults only when none does), so a server that plays only small boards sees its small-board players.
    """
    assert interaction.guild_id is not None
    for pool, _ in await interaction.client.store.rating_pools(interaction.guild_id, table.kind.name):
        if all(pool.get(name) == value for name, value in settings.items()):
            settings = {**pool, **settings}
            break
    filled = table.kind.check_settings(settings)
    await respond(
        interaction,
        leaderboard_page(
            interaction.client, interaction.guild_id, table, filled, 0, established, private_words(interaction)
        ),
        ephemeral=True,
    )


@app_commands.guild_only()
class GameCommands(commands.Cog):
    """The commands every game has, the same for each; a game's cog subclasses it and sets ``table``."""

    table: ClassVar[Table]

    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

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


async def export_message(bot: VeletasBot, info: GameInfo, viewer: int, w: Words) -> Outgoing:
    """A game's record, and once it is over its replay, drawn in the viewer's theme and language."""
    table = table_for(info)
    await learn_names(bot, info)
    files = [record_file(bot, info)]
    note = w("play.record_so_far", game=table.label(info))
    if info.status != "active":
        theme = await theme_of(bot, viewer)
        seats, colours = seat_names(bot, info), colour_names(bot, info)
        gif = await asyncio.to_thread(table.replay_gif, info, seats=seats, colours=colours, theme=theme, w=w)
        files.append((f"{info.kind.name}-{info.id}.gif", gif))
        note = w("play.record_and_replay", game=table.label(info), result=result_text(w, info) or "—")
    return Outgoing(content=note, files=files)


def pool_settings(text: str) -> dict[str, str]:
    """A pool's settings text (``board=5,protocol=alternating``) as a mapping."""
    return dict(part.split("=", 1) for part in text.split(",") if "=" in part)


def outcome_for(info: GameInfo, user: int) -> str:
    """``won``, ``lost``, ``drawn`` or ``cancelled``: how a finished game went for one of its players."""
    if info.status == "cancelled":
        return "cancelled"
    if info.winner_id is None:
        return "drawn"
    return "won" if info.winner_id == user else "lost"


def streak_text(w: Words, games: list[GameInfo], user: int) -> str:
    """The current run of results (``3 wins in a row``), from the latest game back."""
    results = [outcome_for(info, user) for info in games if info.status == "finished"]
    if not results:
        return w("play.no_finished_game")
    run = 0
    for result in results:
        if result != results[0]:
            break
        run += 1
    return w(f"play.streak_{results[0]}", count=run)


def game_line(bot: VeletasBot, info: GameInfo, user: int, w: Words) -> str:
    table = table_for(info)
    rival = next((p for p in info.participants if p != user), None)
    ended = info.ended_at if info.ended_at is not None else info.updated_at.timestamp()
    return w(
        "play.game_line",
        game=table.label(info),
        link=game_link(info),
        settings=table.settings_text(w, info.settings),
        rival=mention(rival),
        outcome=w(f"play.outcome_{outcome_for(info, user)}"),
        date=f"<t:{int(ended)}:d>",
    )


async def rating_delta(bot: VeletasBot, info: GameInfo, user: int) -> str:
    """`` · `+12` `` after a rated game's line: what it did to ``user``'s rating on this server; empty otherwise."""
    if not info.rated:
        return ""
    for change in await bot.store.rating_changes(info.id):
        if change.scope == info.guild_id and change.user_id == user:
            delta = round(change.after) - round(change.before)
            return f" · `{signed(delta)}`"
    return ""


def signed(value: int) -> str:
    """``+12``, ``−8``, ``±0``: a true minus sign, which a hyphen would make look like a dash."""
    return f"+{value}" if value > 0 else f"−{-value}" if value < 0 else "±0"


def several_title(w: Words, tables: list[Table], key: str, **data: object) -> str:
    """A heading of one game's records (``{game} games``) or of every game's (``{key}_all``)."""
    if len(tables) == 1:
        return w(key, game=tables[0].title, **data)
    return w(f"{key}_all", **data)


def one_game(tables: list[Table]) -> str | None:
    """The game to ask the store for: the one table's, or None for all of them."""
    return tables[0].kind.name if len(tables) == 1 else None


async def profile_message(
    bot: VeletasBot, guild_id: int, tables: list[Table], user: int, viewer: int, w: Words
) -> Outgoing:
    """A member's ratings per pool of these games in this server, record, streak, recent games and a rating chart.

    With several games each pool is named with its game, and the streak and recent games mix them.
    """
    pools = [
        (table, settings, rating, record)
        for table in tables
        for settings, rating, record in await bot.store.player_ratings(guild_id, user, table.kind.name)
    ]
    pools.sort(key=lambda pool: -pool[2].games)  # stable: each game's own order among equals
    games = await bot.store.past_games(guild_id, user, game=one_game(tables), limit=50)
    embed = discord.Embed(
        title=several_title(w, tables, "play.profile.title"), description=w("play.in_server", who=mention(user))
    )
    for table, settings, rating, (wins, losses, draws) in pools[:6]:
        pool = table.settings_text(w, pool_settings(settings))
        embed.add_field(
            name=pool if len(tables) == 1 else f"{table.title} · {pool}",
            value=w(
                "play.pool_line",
                rating=rating.shown,
                deviation=round(rating.deviation),
                rated=w("play.rated_games", count=rating.games),
                record=record_text(w, wins, losses, draws),
            ),
            inline=False,
        )
    if not pools:
        embed.add_field(name=w("play.ratings.field"), value=w("play.no_rated_game"), inline=False)
    embed.add_field(name=w("play.streak.field"), value=streak_text(w, games, user), inline=False)
    lines = [game_line(bot, info, user, w) + await rating_delta(bot, info, user) for info in games[:5]]
    recent = "\n".join(lines) or w("play.no_finished_game_yet")
    embed.add_field(name=w("play.recent.field"), value=recent[:1024], inline=False)
    files: list[tuple[str, bytes]] = []
    if pools:
        table, settings = pools[0][0], pools[0][1]
        charted = pool_settings(settings)
        points = await bot.store.rating_history(guild_id, user, table.kind.name, charted)
        title = f"{name_of(bot, user)} · {table.title} {table.settings_text(w, charted)}"
        theme = await theme_of(bot, viewer)
        png = await asyncio.to_thread(rating_chart_png, points, title=title, theme=theme, words=w)
        files.append((CHART_FILE, png))
        embed.set_image(url=f"attachment://{CHART_FILE}")
    return Outgoing(embed=embed, files=files)


CHART_FILE = "rating.png"
HISTORY_LINES = 15


async def history_message(
    bot: VeletasBot, guild_id: int, tables: list[Table], user: int, rival: int | None, w: Words
) -> Outgoing:
    """A member's past games of these games in this server (against one rival if asked), and a menu to export any."""
    games = await bot.store.past_games(guild_id, user, game=one_game(tables), against=rival, limit=25)
    who = mention(user) if rival is None else w("play.against", who=mention(user), rival=mention(rival))
    if not games:
        return Outgoing(content=several_title(w, tables, "play.no_history", who=who))
    lines = [game_line(bot, info, user, w) + await rating_delta(bot, info, user) for info in games[:HISTORY_LINES]]
    more = "\n" + w("play.more_below", count=len(games) - len(lines)) if len(games) > len(lines) else ""
    heading = w("separator.heading", label=who)
    embed = discord.Embed(
        title=several_title(w, tables, "play.history.title"), description=heading + "\n" + "\n".join(lines) + more
    )
    options = [
        discord.SelectOption(
            label=f"{table_for(info).label(info)} · {w(f'play.outcome_{outcome_for(info, user)}')}"[:100],
            value=str(info.id),
            description=table_for(info).settings_text(w, info.settings)[:100],
        )
        for info in games
    ]
    view = discord.ui.View(timeout=None)
    prefix = tables[0].kind.name if len(tables) == 1 else "game"
    view.add_item(ExportSelect(prefix, options, w("play.export_menu.placeholder")))
    return Outgoing(embed=embed, view=view)


class ExportSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"(?P<prefix>[a-z]{2,12}):hx"):
    """Under ``history``: the record (and replay) of the game chosen, privately."""

    def __init__(
        self, game: str, options: list[discord.SelectOption] | None = None, placeholder: str | None = None
    ) -> None:
        super().__init__(discord.ui.Select(placeholder=placeholder, options=options or [], custom_id=f"{game}:hx"))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ExportSelect:
        return cls(match["prefix"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> Outgoing:
            info = await game_here(interaction, self.item.values[0])
            return await export_message(bot, info, interaction.user.id, private_words(interaction))

        await bot.guard(interaction, respond(interaction, work(), ephemeral=True))


def again_view(bot: VeletasBot, finished: list[GameInfo], w: Words) -> discord.ui.View:
    """A menu of the member's finished games: choosing one offers its rematch here (as its board's button does)."""
    options = []
    for info in finished[:25]:
        table = table_for(info)
        others = [name_of(bot, p) for p in info.participants]
        label = f"{table.label(info)} · {w('play.versus', first=others[0], second=others[-1])}"[:100]
        description = table.settings_text(w, info.settings)[:100]
        options.append(discord.SelectOption(label=label, value=str(info.id), description=description))
    view = discord.ui.View(timeout=None)
    view.add_item(PlayAgainSelect(options, w("play.again_menu.placeholder")))
    return view


class PlayAgainSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"(?P<prefix>[a-z]{2,12}):again"):
    """Under ``games``: one of your finished games, played again (a rematch, offered in this channel)."""

    def __init__(self, options: list[discord.SelectOption] | None = None, placeholder: str | None = None) -> None:
        super().__init__(discord.ui.Select(placeholder=placeholder, options=options or [], custom_id="game:again"))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PlayAgainSelect:
        return cls()

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        challenges = cast("Rematcher", bot.get_cog("Challenges"))
        await bot.guard(interaction, challenges.rematch(interaction, id_or_zero(self.item.values[0])))


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
