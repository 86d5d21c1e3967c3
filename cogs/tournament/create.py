"""``/tournament create``: a tournament announced in this channel, of one game with that game's settings.

The settings are one option that the chosen game reads (``bot.game_settings``): its values written one after
another (``small, classic``; ``5, alternating``), each setting left out at its default. Its autocomplete offers the
game's whole combinations, narrowing as one types, each labelled in the member's language.
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands

from bot import game_settings
from bot.client import VeletasBot
from bot.clocks import DAY
from bot.errors import UserError
from bot.rules.registry import UnknownGame, find_game
from bot.tournament_flow import default_round_minutes, parse_start
from cogs._clock_words import parse_time, time_suggestions
from cogs._permissions import check_here, check_thread
from cogs._tables import table_for
from cogs._words import private_words
from cogs.tournament import words
from cogs.tournament.signup import SignUp, announcement_view

Game = str
"""A registered game's name: the ``game`` option's choices are set when a bot sets the cog up (``offer_games``)."""

MAX_START_DAYS = 60
ARENA_MINUTES = 60
"""An arena's length unless its organiser chose one (``round_minutes``)."""
DIVISION_SIZE = 16
"""A round robin bigger than this is played in divisions unless its organiser chose another size (15 rounds
at most each, as on a club night)."""


class Creation(SignUp):
    """``/tournament create`` and its autocompletes."""

    @app_commands.command()
    @app_commands.describe(
        name="what the tournament is called",
        game="which game",
        format="how players are paired",
        rounds="Swiss only: how many rounds (default: enough to find a winner)",
        time="each game's clock: 10+5, 3d, 48h+12h/96h or none (default: the server's)",
        rated="yes (default: the server's choice): results change ratings",
        max_players="the most players who may join",
        start="when it starts by itself: 30m, 2h, 2026-12-01 18:00 (UTC) or a Discord timestamp",
        checkin="minutes before the start when check-in opens; who does not check in is not paired",
        round_minutes="minutes per round, after which the clock decides unfinished games (an arena: its length)",
        best_of="elimination only: games per match",
        division_size="round robin only: most players per division (default 16)",
        settings="the game's settings, e.g. small, classic (default: the game's own)",
        berserk="arena only: yes (default) lets players halve their clock for a bonus point",
    )
    # Values of their own: a choice is translated by its value, and "5" is already Veloop's 5×5 board.
    @app_commands.choices(best_of=[app_commands.Choice(name=str(n), value=f"bo{n}") for n in (1, 3, 5, 7)])
    async def create(
        self,
        interaction: discord.Interaction[VeletasBot],
        name: app_commands.Range[str, 1, 80],
        game: Game,
        format: Literal[
            "swiss", "round_robin", "double_round_robin", "single_elimination", "double_elimination", "arena"
        ],
        rounds: app_commands.Range[int, 1, 30] | None = None,
        time: app_commands.Range[str, 1, 40] | None = None,
        rated: Literal["yes", "no"] | None = None,
        max_players: app_commands.Range[int, 2, 512] | None = None,
        start: app_commands.Range[str, 1, 60] | None = None,
        checkin: app_commands.Range[int, 5, 1440] | None = None,
        round_minutes: app_commands.Range[int, 5, 60 * 24 * 60] | None = None,
        best_of: str | None = None,
        division_size: app_commands.Range[int, 3, 64] | None = None,
        settings: app_commands.Range[str, 1, 100] | None = None,
        berserk: Literal["yes", "no"] | None = None,
    ) -> None:
        """Announce a tournament: members sign up with a button, and the bot runs every round."""
        assert interaction.guild_id is not None and interaction.channel_id is not None
        await self.check_organiser(interaction, None)
        if not name.strip():
            raise UserError("tournament.name_empty")
        # The game reads its settings, and fills in those left out with its defaults.
        chosen = game_settings.parse(find_game(game), settings or "")
        elimination = format in ("single_elimination", "double_elimination")
        if best_of is not None and not elimination:
            raise UserError("tournament.best_of_rounds")
        if rounds is not None and format != "swiss":
            raise UserError("tournament.rounds_not_swiss")
        if division_size is not None and format not in ("round_robin", "double_round_robin"):
            raise UserError("tournament.divisions_not_rr")
        if rounds is not None and max_players is not None and rounds >= max_players:
            raise UserError("tournament.rounds_over_limit", rounds=rounds, need=rounds + 1, limit=max_players)
        now = self.bot.store.now()
        starts_at = None if start is None else parse_start(start, now)
        if starts_at is not None and starts_at <= now:
            raise UserError("tournament.start_past", at=str(int(starts_at)))
        if starts_at is not None and starts_at > now + MAX_START_DAYS * DAY:
            raise UserError("tournament.start_too_far")
        if checkin is not None and starts_at is None:
            raise UserError("tournament.checkin_needs_start")
        server = await self.bot.store.get_guild_settings(interaction.guild_id)
        control = parse_time(time, server.default_control(), inactivity_days=server.inactivity_days)
        if berserk is not None and format != "arena":
            raise UserError("arena.berserk_arena_only")
        if format == "arena" and not control.is_live:
            raise UserError("arena.needs_live_clock")
        # Every round opens a thread per game and posts boards there: refused now, not at round 1.
        check_here(interaction)
        check_thread(interaction)
        info = await self.bot.store.create_tournament(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            organiser_id=interaction.user.id,
            name=name.strip(),
            game=game,
            settings=chosen,
            format=format,
            rounds=rounds,
            best_of=int((best_of or "bo1")[2:]),
            time_control=control,
            rated=server.rated if rated is None else rated == "yes",
            max_players=max_players,
            starts_at=starts_at,
            checkin_minutes=checkin or 0,
            round_minutes=round_minutes or (ARENA_MINUTES if format == "arena" else default_round_minutes(control)),
            division_size=division_size or (DIVISION_SIZE if format in ("round_robin", "double_round_robin") else None),
            berserk=berserk != "no",
        )
        pw = await self.public(info)
        embed = await self.announcement_embed(pw, info)
        view = announcement_view(pw, info)
        callback = await interaction.response.send_message(
            words.t(pw, "created", name=words.escaped(info.name), id=str(info.id)),
            embed=embed,
            view=view or discord.utils.MISSING,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if callback.message_id is not None:
            await self.bot.store.set_tournament_message(info.id, callback.message_id)

    @create.autocomplete("settings")
    async def settings_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        """The chosen game's whole combinations of settings that fit what is typed, each as it is written and
        in the member's words (``small, classic (small board, classic rules)``); nothing before a game is chosen."""
        try:
            kind = find_game(str(interaction.namespace.game or ""))
        except UnknownGame:
            return []
        w, table_ = private_words(interaction), table_for(kind)
        found = []
        for combination in game_settings.combinations(kind):
            label = table_.settings_text(w, combination)
            if game_settings.matches(combination, label, current):
                value = game_settings.typed(kind, combination)
                found.append(app_commands.Choice(name=w("separator.aside", text=value, aside=label)[:100], value=value))
        return found[:25]

    @create.autocomplete("time")
    async def time_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return time_suggestions(current)
