"""A member's games, any game's: records and replays, profile, history, and finished games to play again.

Not an extension: ``/player`` and every game's ``export`` and ``games`` answer with these, and
``cogs.play`` registers their menus (``ExportSelect``, ``PlayAgainSelect``).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, cast

import discord

from bot.client import VeletasBot
from bot.i18n import Words
from bot.ids import id_or_zero
from bot.render.chart import rating_chart_png
from bot.store.values import GameInfo
from cogs._board import Rematcher, record_file, result_text, theme_of
from cogs._lookup import game_here
from cogs._names import colour_names, learn_names, name_of, seat_names
from cogs._send import Outgoing, bot_of, mention, respond
from cogs._tables import Table, table_for
from cogs._words import private_words


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
    """``won``, ``lost``, ``drawn``, ``cancelled``, ``aborted`` or ``no_show``: how a finished game went for one of its
    players."""
    if info.status == "cancelled":
        return "cancelled"
    if info.aborted:
        return "aborted"
    if info.no_show:
        return "no_show"
    if info.winner_id is None:
        return "drawn"
    return "won" if info.winner_id == user else "lost"


def streak_text(w: Words, games: list[GameInfo], user: int) -> str:
    """The current run of results (``3 wins in a row``), from the latest game back; aborted games and no-shows do
    not count."""
    results = [outcome_for(info, user) for info in games if info.status == "finished" and not info.counts_for_nothing]
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
