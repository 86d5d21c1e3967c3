"""Players' display names, as images and records show them.

Not an extension. Without the members intent there is no member list to ask, so names are learnt
from interactions (``VeletasBot.on_interaction``) and looked up once per process for the players
this process has not heard from yet.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.rules.protocol import COLOURS, SEATS
from bot.store.values import GameInfo
from bot.text import fallback_name

if TYPE_CHECKING:
    from bot.client import VeletasBot

log = logging.getLogger(__name__)


def name_of(bot: VeletasBot, user_id: int | None) -> str:
    if user_id is None:
        return "?"
    if bot.user is not None and user_id == bot.user.id:
        return bot.user.display_name
    known = bot.names.get(user_id)
    if known is not None:
        return known
    user = bot.get_user(user_id)
    return user.display_name if user is not None else fallback_name(user_id)


async def learn_names(bot: VeletasBot, info: GameInfo) -> None:
    """Look up the players this process has not heard from yet, so images and records show their names.

    After a restart the player who is not acting would otherwise appear as "…1234" until they
    act. One lookup per player per process: a failed one is remembered as the fallback name, which
    their next interaction replaces.
    """
    me = bot.user.id if bot.user is not None else None
    for user_id in info.participants:
        if user_id == me or user_id in bot.names:
            continue
        name = fallback_name(user_id)
        guild = bot.get_guild(info.guild_id)
        try:
            if guild is not None:
                name = (await guild.fetch_member(user_id)).display_name
            else:
                name = (await bot.fetch_user(user_id)).display_name
        except discord.HTTPException:
            log.debug("Could not look up the name of user %d", user_id)
        bot.names[user_id] = name


def seat_names(bot: VeletasBot, info: GameInfo) -> dict[str, str]:
    """Names by seat: the challenger sits first."""
    return {seat: name_of(bot, info.user_for_seat(seat)) for seat in SEATS}


def colour_names(bot: VeletasBot, info: GameInfo) -> dict[str, str]:
    """Names by colour once colours are fixed (empty before Veletas's pie choice), as the renderers take them."""
    names: dict[str, str] = {}
    for colour in COLOURS:
        user = info.user_for_colour(colour)
        if user is not None:
            names[colour] = name_of(bot, user)
    return names


def record_names(bot: VeletasBot, info: GameInfo) -> dict[str, str]:
    """Names as a record's Black and White headers name them: by colour, or by seat before colours are fixed."""
    return {info.record_colour_of_seat(seat): name_of(bot, info.user_for_seat(seat)) for seat in SEATS}
