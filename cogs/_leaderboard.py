"""A server's leaderboard of one game: its rated players page by page, members who left the server left out.

Not an extension: every game's ``leaderboard`` command answers with ``send_leaderboard``, and
``cogs.play`` registers the page buttons (``LeaderboardButton``).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Mapping
from typing import Any

import discord

from bot.client import VeletasBot
from bot.errors import UserError
from bot.i18n import Words
from cogs._records import record_text
from cogs._send import Outgoing, bot_of, mention, respond, respond_update
from cogs._tables import TABLES, Table, table_for
from cogs._words import private_words

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
