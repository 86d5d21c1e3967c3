"""Tournaments in Discord: ``/tournament`` and the announcement's buttons, and the bot running every round.

The flow lives in the store's rows and the scheduler's due rows, so a restart at any moment picks it up:
``advance`` pairs the next round (off the event loop) and stores it whole; ``play:N`` opens the round's
games one pairing at a time (its thread, then its game, each step recorded, so a step cut short is
finished, never repeated); ``deadline:N`` adjudicates what still runs when the round's time is up. A game's
end records its pairing's result in the same transaction, and the round's last result makes ``advance``
fall due. What players read is worded in ``cogs._tournament_words`` from the catalogue: private answers in the
member's language, public posts (announcement, rounds, standings, podium, organiser lines) in the server's. The
standings, the bracket and the podium are posted with their images (``bot.render.tournament``), drawn off the
event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import io
import logging
import math
import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import VeletasBot
from bot.clocks import DAY, MINUTE, TimeControl
from bot.crashpoints import crash_point
from bot.errors import UserError
from bot.i18n import LANGUAGES, Phrase, Words
from bot.i18n import words as words_in
from bot.ids import id_or_zero
from bot.render.tournament import MAX_STANDINGS_ROWS, bracket_png, podium_png, standings_png
from bot.scheduler import Hold
from bot.store import (
    RESULTS,
    DueRow,
    GameInfo,
    Pairing,
    TournamentInfo,
    TournamentSnapshot,
)
from bot.tournament_flow import (
    Finished,
    bracket_state,
    csv_text,
    division_places,
    game_winner,
    match_games,
    names,
    plan_next,
    planned_rounds,
    tables,
    tiebreak_labels,
    trf_text,
)
from bot.tournaments import Standing, TournamentError
from bot.tournaments.elimination import BracketState
from cogs import _tournament_words as words
from cogs._board import DEFAULT_THEME, board_message
from cogs._clock_words import describe_control, parse_time, time_suggestions
from cogs._delivery import RETRY_DELAYS, after_board_posted, announce, board_lock
from cogs._lookup import tournament_here
from cogs._permissions import check_here, check_thread, may_organise
from cogs._send import bot_of, send_to_channel
from cogs._tables import table_for
from cogs._words import private_words, public_words

log = logging.getLogger(__name__)

PREFIX = "tour"
THREAD_PACE = 0.05
"""Seconds between two thread creations: a 20-board round goes out one thread at a time, never in a burst."""
THREAD_RETRIES = 6
MAX_START_DAYS = 60
ARCHIVE_WAITS = 40
"""Quarter-seconds a finished game's thread waits for its last board before it is archived (left open if later)."""
DIVISION_SIZE = 16
"""A round robin bigger than this is played in divisions unless its organiser chose another size (15 rounds
at most each, as on a club night)."""
CONTENT_LIMIT = 2000
MAX_FILES = 10
"""Attachments one message may carry (Discord's limit)."""
PUBLIC_THEME = DEFAULT_THEME
"""The theme of the tournament images: the one the bot draws public boards in for anyone without a choice."""
EMBED_TEXT = 3800
MESSAGE_TEXT = 5500
GAME_OPTIONS = {"veletas": ("variant", "rules"), "veloop": ("board", "protocol")}
_RELATIVE = re.compile(r"(?:in\s+)?(\d+)\s*(m|min|minutes?|h|hours?|d|days?)")
_STAMP = re.compile(r"<t:(\d+)(?::[a-zA-Z])?>|(\d{9,11})")

Post = dict[str, Any]
"""One channel message as ``send`` takes it (content, embeds, files)."""


def parse_start(text: str, now: float) -> float:
    """A start time as the organiser wrote it: a delay, a UTC date and time, or a Discord timestamp."""
    cleaned = text.strip().lower()
    if (m := _RELATIVE.fullmatch(cleaned)) is not None:
        unit = {"m": MINUTE, "h": 3600.0, "d": DAY}[m.group(2)[0]]
        return now + int(m.group(1)) * unit
    if (m := _STAMP.fullmatch(cleaned)) is not None:
        return float(m.group(1) or m.group(2))
    try:
        moment = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UserError("tournament.bad_start", text=f"`{text[:40]}`") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()


def default_round_minutes(control: TimeControl) -> int:
    """Long enough for a game to finish on its clock: a live game's two banks with 40 increments, and a margin;
    correspondence rounds a week (days per move: two weeks)."""
    if control.is_live:
        return math.ceil((2 * control.start + 80 * control.increment) / MINUTE) + 10
    if control.family == "days":
        return 14 * 24 * 60
    return 7 * 24 * 60


def swiss_rounds(players: int) -> int:
    return max(1, min(players - 1, math.ceil(math.log2(max(players, 2))) + 1))


def game_text(w: Words, info: TournamentInfo) -> str:
    table_ = table_for(info.game)
    return w("separator.aside", text=table_.title, aside=table_.settings_text(w, info.settings))


def png_file(png: bytes, filename: str) -> discord.File:
    return discord.File(io.BytesIO(png), filename=filename)


def rounds_done(snap: TournamentSnapshot) -> int:
    """Rounds whose every result is in."""
    return sum(1 for r in snap.rounds if all(p.result is not None for p in snap.round_pairings(r.number)))


def match_scores(snap: TournamentSnapshot, state: BracketState) -> dict[str, tuple[int, int]]:
    """Games won by each side of every best-of-N match begun (for the bracket image)."""
    out: dict[str, tuple[int, int]] = {}
    for m in state.matches:
        if not isinstance(m.a, int) or not isinstance(m.b, int):
            continue
        winners = [w for p in match_games(snap.pairings, m.match.id) if (w := game_winner(p, m.a)) is not None]
        if winners:
            out[m.match.id] = (winners.count(m.a), winners.count(m.b))
    return out


_esc = words.escaped


class TournamentButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:(?P<action>join|leave|checkin|withdraw):(?P<tid>[0-9]+)",
):
    """Join, Leave and Check in under an announcement; the custom id carries the tournament, checked on press."""

    STYLES: ClassVar[dict[str, discord.ButtonStyle]] = {
        "join": discord.ButtonStyle.success,
        "leave": discord.ButtonStyle.secondary,
        "checkin": discord.ButtonStyle.primary,
        "withdraw": discord.ButtonStyle.danger,
    }

    def __init__(self, action: str, tournament_id: int, w: Words | None = None) -> None:
        # The label is shown only when the bot sends the button (in its reader's language); a press carries the id.
        super().__init__(
            discord.ui.Button(
                label=words.label(w, action) if w is not None else action,
                style=self.STYLES[action],
                custom_id=f"{PREFIX}:{action}:{tournament_id}",
            )
        )
        self.action, self.tournament_id = action, tournament_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TournamentButton:
        return cls(match["action"], id_or_zero(match["tid"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        cog = bot.get_cog("Tournaments")
        assert isinstance(cog, TournamentCog)
        await bot.guard(interaction, cog.pressed(interaction, self.action, self.tournament_id))


def announcement_view(w: Words, info: TournamentInfo, started: int = 0) -> discord.ui.View | None:
    """Join while sign-up is open, and in a Swiss while late entries are (until half the rounds have started)."""
    if info.status in ("finished", "cancelled"):
        return None
    view = discord.ui.View(timeout=None)
    late_open = info.format == "swiss" and info.rounds is not None and started <= info.rounds // 2
    if info.status == "signup" or late_open:
        view.add_item(TournamentButton("join", info.id, w))
    view.add_item(TournamentButton("leave", info.id, w))
    if info.checkin_minutes and info.status == "signup":
        view.add_item(TournamentButton("checkin", info.id, w))
    return view


def paged(
    title: str, lines: Sequence[str], *, footer: str | None = None, colour: int = 0xD4A017
) -> list[list[discord.Embed]]:
    """Lines as embeds within Discord's limits: each embed's text under 4096, each message's under 6000 and
    at most 10 embeds; a long table becomes several messages."""
    embeds: list[discord.Embed] = []
    chunk: list[str] = []
    size = 0
    for line in lines:
        if chunk and size + len(line) + 1 > EMBED_TEXT:
            embeds.append(discord.Embed(description="\n".join(chunk), colour=colour))
            chunk, size = [], 0
        chunk.append(line)
        size += len(line) + 1
    if chunk or not embeds:
        embeds.append(discord.Embed(description="\n".join(chunk) or "—", colour=colour))
    embeds[0].title = title[:256]
    if footer:
        embeds[-1].set_footer(text=footer[:2048])
    messages: list[list[discord.Embed]] = [[]]
    total = 0
    for embed in embeds:
        length = len(embed)
        if messages[-1] and (total + length > MESSAGE_TEXT or len(messages[-1]) == 10):
            messages.append([])
            total = 0
        messages[-1].append(embed)
        total += length
    return messages


class TournamentCog(commands.Cog, name="Tournaments"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot
        self.locks: dict[int, asyncio.Lock] = {}
        # Rounds whose games Discord refused to open (a permission taken away), already said in the channel.
        self.told_forbidden: set[tuple[int, int]] = set()
        # Tournaments whose owed channel posts failed, and how many times in a row (the pause before the next try).
        self.post_failures: dict[int, int] = {}
        bot.scheduler.handlers["tournament"] = self.on_due

    def lock(self, tournament_id: int) -> asyncio.Lock:
        return self.locks.setdefault(tournament_id, asyncio.Lock())

    async def public(self, info: TournamentInfo) -> Words:
        """The words of the tournament's public posts: its server's language."""
        return await public_words(self.bot, info.guild_id)

    # --- who may ---------------------------------------------------------------------------------

    async def check_organiser(self, interaction: discord.Interaction[VeletasBot], info: TournamentInfo | None) -> None:
        assert interaction.guild_id is not None
        role = await self.bot.store.organiser_role(interaction.guild_id)
        if not may_organise(interaction, role, info.organiser_id if info is not None else None):
            raise UserError("tournament.not_organiser" if info is not None else "tournament.not_organiser_create")

    async def find(self, interaction: discord.Interaction[VeletasBot], tournament: int | None) -> TournamentInfo:
        """The tournament named, or the one signing up or running in this channel."""
        assert interaction.guild_id is not None
        if tournament is not None:
            return await tournament_here(interaction, tournament)
        for info in await self.bot.store.tournaments(interaction.guild_id):
            if info.channel_id == interaction.channel_id and info.status in ("signup", "running", "paused"):
                return info
        raise UserError("tournament.no_tournament_here")

    # --- /tournament create ----------------------------------------------------------------------

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
        round_minutes="minutes per round, after which the clock decides unfinished games",
        best_of="elimination only: games per match",
        division_size="round robin only: most players per division (default 16)",
        variant="Veletas only: the board",
        rules="Veletas only: the edition",
        board="Veloop only: the board",
        protocol="Veloop only: the protocol",
    )
    # Values of their own: a choice is translated by its value, and "5" is already Veloop's 5×5 board.
    @app_commands.choices(best_of=[app_commands.Choice(name=str(n), value=f"bo{n}") for n in (1, 3, 5, 7)])
    async def create(
        self,
        interaction: discord.Interaction[VeletasBot],
        name: app_commands.Range[str, 1, 80],
        game: Literal["veletas", "veloop"],
        format: Literal["swiss", "round_robin", "double_round_robin", "single_elimination", "double_elimination"],
        rounds: app_commands.Range[int, 1, 30] | None = None,
        time: app_commands.Range[str, 1, 40] | None = None,
        rated: Literal["yes", "no"] | None = None,
        max_players: app_commands.Range[int, 2, 512] | None = None,
        start: app_commands.Range[str, 1, 60] | None = None,
        checkin: app_commands.Range[int, 5, 1440] | None = None,
        round_minutes: app_commands.Range[int, 5, 60 * 24 * 60] | None = None,
        best_of: str | None = None,
        division_size: app_commands.Range[int, 3, 64] | None = None,
        variant: Literal["standard", "medium", "small"] | None = None,
        rules: Literal["current", "classic"] | None = None,
        board: Literal["8", "5", "6", "12"] | None = None,
        protocol: Literal["122", "alternating"] | None = None,
    ) -> None:
        """Announce a tournament: members sign up with a button, and the bot runs every round."""
        assert interaction.guild_id is not None and interaction.channel_id is not None
        await self.check_organiser(interaction, None)
        if not name.strip():
            raise UserError("tournament.name_empty")
        given = {"variant": variant, "rules": rules, "board": board, "protocol": protocol}
        other = "veloop" if game == "veletas" else "veletas"
        for option in GAME_OPTIONS[other]:
            if given[option] is not None:
                first, second = (f"`{o}`" for o in GAME_OPTIONS[game])
                raise UserError(
                    "tournament.option_other_game",
                    option=option,
                    other=table_for(other).title,
                    game=table_for(game).title,
                    takes=Phrase("tournament.and", first=first, second=second),
                )
        # The game fills in the settings left out with its own defaults.
        settings = {o: v for o in GAME_OPTIONS[game] if (v := given[o]) is not None}
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
        # Every round opens a thread per game and posts boards there: refused now, not at round 1.
        check_here(interaction)
        check_thread(interaction)
        info = await self.bot.store.create_tournament(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            organiser_id=interaction.user.id,
            name=name.strip(),
            game=game,
            settings=settings,
            format=format,
            rounds=rounds,
            best_of=int((best_of or "bo1")[2:]),
            time_control=control,
            rated=server.rated if rated is None else rated == "yes",
            max_players=max_players,
            starts_at=starts_at,
            checkin_minutes=checkin or 0,
            round_minutes=round_minutes or default_round_minutes(control),
            division_size=division_size or (DIVISION_SIZE if format in ("round_robin", "double_round_robin") else None),
        )
        pw = await self.public(info)
        embed = await self.announcement_embed(pw, info)
        view = announcement_view(pw, info)
        callback = await interaction.response.send_message(
            words.t(pw, "created", name=_esc(info.name), id=str(info.id)),
            embed=embed,
            view=view or discord.utils.MISSING,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if callback.message_id is not None:
            await self.bot.store.set_tournament_message(info.id, callback.message_id)

    @create.autocomplete("time")
    async def time_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return time_suggestions(current)

    async def announcement(self, info: TournamentInfo) -> tuple[discord.Embed, discord.ui.View | None]:
        started = await self.bot.store.rounds_started(info.id)
        pw = await self.public(info)
        return await self.announcement_embed(pw, info, started), announcement_view(pw, info, started)

    async def announcement_embed(self, w: Words, info: TournamentInfo, started: int = 0) -> discord.Embed:
        entrants = await self.bot.store.entrants(info.id)
        playing = [e for e in entrants if e.left_round is None]
        checked = sum(1 for e in entrants if e.checked_in) if info.checkin_minutes else None
        embed = discord.Embed(title=words.announcement_title(info), colour=0xD4A017)
        for field_name, value, inline in words.announcement_fields(
            w,
            info,
            game_text(w, info),
            describe_control(w, info.time_control),
            len(playing),
            [_esc(e.name) for e in playing],
            checked,
            started,
        ):
            embed.add_field(name=field_name, value=value, inline=inline)
        return embed

    async def refresh_announcement(self, info: TournamentInfo) -> None:
        if info.message_id is None:
            return
        message = self.bot.get_partial_messageable(info.channel_id).get_partial_message(info.message_id)
        try:
            embed, view = await self.announcement(info)
            await message.edit(embed=embed, view=view)
        except discord.HTTPException:
            log.warning("Could not update the announcement of tournament %d", info.id)

    # --- buttons ---------------------------------------------------------------------------------

    async def pressed(self, interaction: discord.Interaction[VeletasBot], action: str, tournament_id: int) -> None:
        try:
            info = await tournament_here(interaction, tournament_id)
        except UserError:
            raise UserError("tournament.forged") from None
        message = interaction.message
        if message is None or interaction.channel_id != info.channel_id:
            raise UserError("tournament.forged")
        if action == "withdraw":
            # The private confirmation of Leave once the tournament runs: it concerns only the one who pressed.
            await self.bot.store.leave_tournament(info.id, interaction.user.id)
            await interaction.response.edit_message(content=words.left(private_words(interaction), info), view=None)
            await self.refresh_announcement(await self.bot.store.tournament(info.id))
            return
        me = self.bot.user.id if self.bot.user is not None else None
        if info.message_id is None and message.author.id == me:
            # Pressed before the announcement's id was stored (a moment after it was posted): it is this one.
            await self.bot.store.set_tournament_message(info.id, message.id)
        elif message.id != info.message_id:
            raise UserError("tournament.forged")
        user = interaction.user
        w = private_words(interaction)
        if action == "join":
            _, late = await self.bot.store.join_tournament(info.id, user.id, user.display_name)
            text = words.joined(w, info, late)
        elif action == "leave" and info.is_live:
            # Withdrawing is for good: asked once more, privately.
            if not any(e.user_id == user.id and e.left_round is None for e in await self.bot.store.entrants(info.id)):
                raise UserError("tournament.not_playing")
            confirm = discord.ui.View(timeout=None)
            confirm.add_item(TournamentButton("withdraw", info.id, w))
            await interaction.response.send_message(
                words.t(w, "confirm_withdraw", name=_esc(info.name)), view=confirm, ephemeral=True
            )
            return
        elif action == "leave":
            await self.bot.store.leave_tournament(info.id, user.id)
            text = words.left(w, info)
        else:
            await self.bot.store.check_in(info.id, user.id)
            text = words.t(w, "checked_in", name=_esc(info.name))
        # The announcement's count changes as the answer to the press; the member then hears privately.
        now = await self.bot.store.tournament(info.id)
        embed, view = await self.announcement(now)
        await interaction.response.edit_message(embed=embed, view=view)
        await interaction.followup.send(text, ephemeral=True)

    # --- organiser tools -------------------------------------------------------------------------

    @app_commands.command()
    @app_commands.describe(tournament="which tournament (default: this channel's)")
    async def start(self, interaction: discord.Interaction[VeletasBot], tournament: int | None = None) -> None:
        """Close sign-up and start now (organisers)."""
        info = await self.find(interaction, tournament)
        await self.check_organiser(interaction, info)
        started = await self.bot.store.start_tournament(
            info.id, actor_id=interaction.user.id, rounds_for=lambda n: self.rounds_for(info, n)
        )
        # The organiser hears first; the channel's lines are owed in the store and posted by the ``posts`` step,
        # tried again until they are out.
        await self.answer(interaction, lambda w: words.t(w, "action_started"))
        await self.refresh_announcement(started)

    def rounds_for(self, info: TournamentInfo, players: int) -> int | None:
        if info.format == "swiss":
            return info.rounds or swiss_rounds(players)
        return planned_rounds(info, players)

    @app_commands.command()
    @app_commands.describe(tournament="which tournament (default: this channel's)")
    async def pause(self, interaction: discord.Interaction[VeletasBot], tournament: int | None = None) -> None:
        """Hold the next round until resumed; games in progress go on (organisers)."""
        info = await self.find(interaction, tournament)
        await self.check_organiser(interaction, info)
        await self.bot.store.set_tournament_status(
            info.id, "paused", actor_id=interaction.user.id, allowed=("running",)
        )
        await self.acted(interaction, info, lambda w: words.t(w, "action_paused"))

    @app_commands.command()
    @app_commands.describe(tournament="which tournament (default: this channel's)")
    async def resume(self, interaction: discord.Interaction[VeletasBot], tournament: int | None = None) -> None:
        """Go on after a pause (organisers)."""
        info = await self.find(interaction, tournament)
        await self.check_organiser(interaction, info)
        await self.bot.store.set_tournament_status(
            info.id, "running", actor_id=interaction.user.id, allowed=("paused",)
        )
        await self.acted(interaction, info, lambda w: words.t(w, "action_resumed"))

    @app_commands.command()
    @app_commands.describe(tournament="which tournament (default: this channel's)")
    async def cancel(self, interaction: discord.Interaction[VeletasBot], tournament: int | None = None) -> None:
        """Cancel the tournament and its games in progress (organisers)."""
        info = await self.find(interaction, tournament)
        await self.check_organiser(interaction, info)
        running = [
            p.game_id for p in (await self.bot.store.snapshot(info.id)).pairings if p.game_id and p.result is None
        ]
        cancelled = await self.bot.store.set_tournament_status(
            info.id, "cancelled", actor_id=interaction.user.id, allowed=("signup", "running", "paused")
        )
        await self.refresh_announcement(cancelled)
        await self.acted(interaction, info, lambda w: words.t(w, "action_cancelled"))
        for game_id in running:
            await self.post_stopped(game_id, "stopped_by_cancel")

    @app_commands.command()
    @app_commands.describe(
        round="the round number",
        board="the board number in that round",
        result="from the first player's side: 1-0, 0-1, 1/2-1/2; +- / -+ a forfeit; -- neither played",
        tournament="which tournament (default: this channel's)",
    )
    async def result(
        self,
        interaction: discord.Interaction[VeletasBot],
        round: app_commands.Range[int, 1, 1000],
        board: app_commands.Range[int, 1, 1000],
        result: Literal["1-0", "0-1", "1/2-1/2", "+-", "-+", "--"],
        tournament: int | None = None,
    ) -> None:
        """Set or correct a game's result; a game still running in it is stopped (organisers)."""
        info = await self.find(interaction, tournament)
        await self.check_organiser(interaction, info)
        snap = await self.bot.store.snapshot(info.id)
        pairing = next((p for p in snap.pairings if p.round == round and p.board == board), None)
        if pairing is None:
            raise UserError("tournament.no_such_pairing", round=round, board=board)
        assert result in RESULTS
        await self.bot.store.set_result(info.id, pairing.id, result, actor_id=interaction.user.id)
        known = names(snap)
        await self.acted(
            interaction,
            info,
            lambda w: words.action_result(
                w, round, board, _esc(known.get(pairing.white, "?")), _esc(known.get(pairing.black, "?")), result
            ),
        )
        if pairing.game_id is not None:
            await self.post_stopped(pairing.game_id, "stopped_by_result", result=result)

    @app_commands.command()
    @app_commands.describe(member="who to take out", tournament="which tournament (default: this channel's)")
    async def remove(
        self, interaction: discord.Interaction[VeletasBot], member: discord.Member, tournament: int | None = None
    ) -> None:
        """Take a player out; their results so far stay (organisers)."""
        info = await self.find(interaction, tournament)
        await self.check_organiser(interaction, info)
        try:
            entry = await self.bot.store.leave_tournament(info.id, member.id, actor_id=interaction.user.id)
        except UserError:
            raise UserError("tournament.no_player", member=member.mention) from None
        await self.acted(interaction, info, lambda w: words.t(w, "action_removed", name=_esc(entry.name)))
        await self.refresh_announcement(await self.bot.store.tournament(info.id))

    @app_commands.command()
    @app_commands.describe(member="who to enter", tournament="which tournament (default: this channel's)")
    async def add(
        self, interaction: discord.Interaction[VeletasBot], member: discord.Member, tournament: int | None = None
    ) -> None:
        """Enter a member (before the start, or late into a Swiss) (organisers)."""
        info = await self.find(interaction, tournament)
        await self.check_organiser(interaction, info)
        if member.bot:
            raise UserError("tournament.bot_cannot_play", member=member.mention)
        late = await self.bot.store.add_player(info.id, member.id, member.display_name, actor_id=interaction.user.id)
        await self.acted(interaction, info, lambda w: words.action_added(w, _esc(member.display_name), late))
        await self.refresh_announcement(await self.bot.store.tournament(info.id))

    @app_commands.command()
    @app_commands.describe(round="the current round", tournament="which tournament (default: this channel's)")
    async def repair(
        self,
        interaction: discord.Interaction[VeletasBot],
        round: app_commands.Range[int, 1, 1000],
        tournament: int | None = None,
    ) -> None:
        """Pair the current round again, before any of its games has begun (organisers)."""
        info = await self.find(interaction, tournament)
        await self.check_organiser(interaction, info)
        # A round being opened holds the tournament for a few seconds: the answer may have to wait for it.
        await interaction.response.defer(ephemeral=True)
        async with self.lock(info.id):
            snap = await self.bot.store.snapshot(info.id)
            threads = [p.thread_id for p in snap.round_pairings(round) if p.thread_id is not None]
            await self.bot.store.repair_round(info.id, round, actor_id=interaction.user.id)
        await self.acted(interaction, info, lambda w: words.t(w, "action_repaired", round=round))
        for thread_id in threads:
            await self.remove_thread(thread_id)

    @app_commands.command()
    @app_commands.describe(role="members with this role may organise tournaments (leave out to show the role)")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def organisers(self, interaction: discord.Interaction[VeletasBot], role: discord.Role | None = None) -> None:
        """Choose the role whose members may organise tournaments here (Manage Server)."""
        assert interaction.guild_id is not None
        if role is not None:
            await self.bot.store.set_organiser_role(interaction.guild_id, role.id)
        current = await self.bot.store.organiser_role(interaction.guild_id)
        w = private_words(interaction)
        text = words.t(w, "organiser_role", role=f"<@&{current}>") if current else words.t(w, "no_organiser_role")
        await interaction.response.send_message(text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none())

    async def acted(
        self, interaction: discord.Interaction[VeletasBot], info: TournamentInfo, said: Callable[[Words], str]
    ) -> None:
        """An organiser action, done: the organiser hears it privately (in their language) first, then the
        tournament channel publicly (in the server's). The action is done either way: a channel that refuses the
        line is logged, not told to the organiser as a failure."""
        await self.answer(interaction, said)
        pw = await self.public(info)
        try:
            await self.say(info, words.organiser_action(pw, interaction.user.id, said(pw)))
        except discord.HTTPException as exc:
            log.warning("Could not post an organiser's action in tournament %d's channel (%s)", info.id, exc.status)

    async def answer(self, interaction: discord.Interaction[VeletasBot], said: Callable[[Words], str]) -> None:
        """The organiser's private line about what they did, in their language."""
        w = private_words(interaction)
        line = words.organiser_action(w, interaction.user.id, said(w))
        if interaction.response.is_done():
            await interaction.followup.send(line, ephemeral=True, allowed_mentions=discord.AllowedMentions.none())
        else:
            await interaction.response.send_message(
                line, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
            )

    # --- reading ---------------------------------------------------------------------------------

    @app_commands.command(name="list")
    async def list_(self, interaction: discord.Interaction[VeletasBot]) -> None:
        """This server's tournaments."""
        assert interaction.guild_id is not None
        found = await self.bot.store.tournaments(interaction.guild_id)
        w = private_words(interaction)
        if not found:
            await interaction.response.send_message(words.t(w, "no_tournaments"), ephemeral=True)
            return
        lines = [words.list_line(w, t, len(await self.bot.store.entrants(t.id))) for t in found]
        embeds = paged(words.t(w, "list.title"), lines)[0]
        await interaction.response.send_message(embeds=embeds, ephemeral=True)

    @app_commands.command()
    @app_commands.describe(tournament="which tournament (default: this channel's)")
    async def info(self, interaction: discord.Interaction[VeletasBot], tournament: int | None = None) -> None:
        """A tournament's settings and where it stands."""
        info = await self.find(interaction, tournament)
        snap = await self.bot.store.snapshot(info.id)
        playing = sum(1 for e in snap.players if e.left_round is None)
        w = private_words(interaction)
        text = words.info_lines(
            w, info, game_text(w, info), describe_control(w, info.time_control), playing, len(snap.rounds)
        )
        await interaction.response.send_message(text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command()
    @app_commands.describe(tournament="which tournament (default: this channel's)")
    async def standings(self, interaction: discord.Interaction[VeletasBot], tournament: int | None = None) -> None:
        """The standings so far (privately), with the CSV (and TRF for a Swiss)."""
        info = await self.find(interaction, tournament)
        snap = await self.bot.store.snapshot(info.id)
        if not any(all(p.result is not None for p in snap.round_pairings(r.number)) for r in snap.rounds):
            raise UserError("tournament.no_standings_yet")
        w, final = private_words(interaction), info.status == "finished"
        # Drawing a big field's images takes a moment: the answer is deferred, as Discord allows.
        await interaction.response.defer(ephemeral=True, thinking=True)
        pages = self.standings_pages(w, snap, final=final)
        files = [*self.export_files(snap), *await self.standings_images(w, snap, final=final)]
        await interaction.followup.send(embeds=pages[0], files=files[:MAX_FILES], ephemeral=True)
        for page in pages[1:]:
            await interaction.followup.send(embeds=page, ephemeral=True)
        for i in range(MAX_FILES, len(files), MAX_FILES):
            await interaction.followup.send(files=files[i : i + MAX_FILES], ephemeral=True)

    @start.autocomplete("tournament")
    @pause.autocomplete("tournament")
    @resume.autocomplete("tournament")
    @cancel.autocomplete("tournament")
    @result.autocomplete("tournament")
    @remove.autocomplete("tournament")
    @add.autocomplete("tournament")
    @repair.autocomplete("tournament")
    @info.autocomplete("tournament")
    @standings.autocomplete("tournament")
    async def tournament_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[int]]:
        """This server's tournaments, those still to finish first, matching what is typed (a name or a number)."""
        if interaction.guild_id is None:
            return []
        typed = current.strip().lower().lstrip("#")
        found = await self.bot.store.tournaments(interaction.guild_id)
        w = private_words(interaction)
        return [
            app_commands.Choice(name=words.choice_name(w, t)[:100], value=t.id)
            for t in found
            if not typed or typed in t.name.lower() or str(t.id).startswith(typed)
        ][:25]

    # --- the scheduler's steps -------------------------------------------------------------------

    async def on_due(self, row: DueRow) -> None:
        tournament_id = row.tournament_id
        if tournament_id is None:
            return
        key, _, arg = row.key.partition(":")
        if key == "start":
            await self.timed_start(tournament_id, row.id)
        elif key == "checkin":
            await self.checkin_opens(tournament_id, row.id)
        elif key == "advance":
            await self.advance(tournament_id, row.id)
        elif key == "play":
            self.bot.spawn(self.open_round(tournament_id, int(arg), row), name=f"tournament-{tournament_id}-open")
        elif key == "posts":
            self.bot.spawn(self.deliver_posts(tournament_id, row), name=f"tournament-{tournament_id}-posts")
        elif key == "deadline":
            await self.round_deadline(tournament_id, int(arg), row.id)
        else:
            log.error("Unknown tournament step %r", row.key)
            await self.bot.store.drop_due(row.id)

    async def timed_start(self, tournament_id: int, due_id: int) -> None:
        info = await self.bot.store.tournament(tournament_id)
        if info.status != "signup":
            await self.bot.store.drop_due(due_id)
            return
        try:
            started = await self.bot.store.start_tournament(
                info.id, actor_id=0, rounds_for=lambda n: self.rounds_for(info, n), due_id=due_id
            )
        except UserError as exc:
            # Said before it is cancelled (which ends its steps): a failed post leaves the start step due, to be
            # tried again when its lease ends.
            pw = await self.public(info)
            await self.say(info, words.t(pw, "not_started", name=_esc(info.name), reason=exc.worded(pw)))
            cancelled = await self.bot.store.set_tournament_status(
                info.id, "cancelled", actor_id=0, allowed=("signup",)
            )
            await self.refresh_announcement(cancelled)
            return
        await self.refresh_announcement(started)

    async def checkin_opens(self, tournament_id: int, due_id: int) -> None:
        """Check-in opens: said in the channel, then the step is done (a failed post leaves it due, to be tried
        again when its lease ends)."""
        info = await self.bot.store.tournament(tournament_id)
        if info.status == "signup":
            at = str(int(info.starts_at or 0))
            await self.say(info, words.t(await self.public(info), "checkin_open", name=_esc(info.name), at=at))
        await self.bot.store.drop_due(due_id)
        if info.status == "signup":
            await self.refresh_announcement(info)

    async def advance(self, tournament_id: int, due_id: int | None) -> None:
        """Pair and store the next round, or finish the tournament, once the current round is over."""
        async with self.lock(tournament_id):
            snap = await self.bot.store.snapshot(tournament_id)
            if snap.info.status != "running":
                if due_id is not None:
                    await self.bot.store.drop_due(due_id)
                return
            try:
                plan = await asyncio.to_thread(plan_next, snap)
            except TournamentError as exc:
                # Nobody left who may meet (a small field, many rounds): the tournament ends with the rounds played.
                log.warning("Tournament %d: the next round cannot be paired (%s); finishing", tournament_id, exc)
                pw = await self.public(snap.info)
                await self.say(
                    snap.info, words.t(pw, "cannot_pair", name=_esc(snap.info.name), round=len(snap.rounds) + 1)
                )
                await self.finish(snap)
                return
            if plan is None:
                if due_id is not None:
                    await self.bot.store.drop_due(due_id)
                return
            if isinstance(plan, Finished):
                await self.finish(snap)
                return
            crash_point("tournament-round-planned")
            # Stored with the posts it owes (its standings and pairings) and the step that opens its games.
            if not await self.bot.store.save_round(tournament_id, plan, due_id=due_id):
                return
            crash_point("tournament-round-saved")

    # --- what the channel is owed ----------------------------------------------------------------

    async def deliver_posts(self, tournament_id: int, due: DueRow | None) -> None:
        """The ``posts`` step: everything the tournament owes its channel, in order (its start, each round's
        standings and pairings, its end), each message recorded once out, so a retry posts only the rest.

        A failure (Discord refusing, failing or rate-limiting past discord.py's own retries) gives the step back to
        fall due again after a growing pause; it is done only once nothing is owed."""
        async with self.bot.scheduler.hold(due) as hold, self.lock(tournament_id):
            try:
                done = await self.post_owed(tournament_id, hold)
            except (discord.HTTPException, OSError) as exc:
                failures = self.post_failures.get(tournament_id, 0)
                self.post_failures[tournament_id] = failures + 1
                pause = RETRY_DELAYS[min(failures, len(RETRY_DELAYS) - 1)]
                log.warning(
                    "Tournament %d: its channel post failed (%s); trying again in %.0f s", tournament_id, exc, pause
                )
                if due is not None:
                    await self.bot.store.retry_due(due.claim, self.bot.store.now() + pause)
                return
            self.post_failures.pop(tournament_id, None)
            if done and due is not None:
                await self.bot.store.finish_posts(due.claim)

    async def post_owed(self, tournament_id: int, hold: Hold) -> bool:
        """Post what the tournament owes its channel; True once nothing is owed (False: the step was taken over)."""
        snap = await self.bot.store.snapshot(tournament_id)
        info = snap.info
        if info.start_owed:
            if not await self.send_owed(info, None, info.posts_done, await self.start_messages(snap), hold):
                return False
            await self.bot.store.posts_delivered(tournament_id, "start")
        for row in snap.rounds:
            if row.announced:
                continue
            messages = await self.round_messages(snap, row.number)
            if not await self.send_owed(info, row.number, row.posts_done, messages, hold):
                return False
            await self.bot.store.posts_delivered(tournament_id, "round", row.number)
            await self.refresh_announcement(info)
            self.bot.spawn(self.archive_rounds(snap, row.number - 1), name=f"tournament-{tournament_id}-archive")
        if info.end_owed:
            if not await self.send_owed(info, None, info.posts_done, await self.end_messages(snap), hold):
                return False
            await self.bot.store.posts_delivered(tournament_id, "end")
            self.bot.spawn(self.archive_rounds(snap, len(snap.rounds)), name=f"tournament-{tournament_id}-archive")
        return True

    async def send_owed(
        self, info: TournamentInfo, number: int | None, done: int, messages: list[Post], hold: Hold
    ) -> bool:
        """Post ``messages`` after the first ``done`` (out already), recording each; False if the step was lost."""
        channel = self.bot.get_partial_messageable(info.channel_id)
        for i, message in enumerate(messages):
            if i < done:
                continue
            if not await hold.still_held():
                return False
            await channel.send(**message, allowed_mentions=discord.AllowedMentions.none())
            await self.bot.store.posts_progress(info.id, number, i + 1)
        return True

    async def start_messages(self, snap: TournamentSnapshot) -> list[Post]:
        """The start said in the channel: the organiser's action (when one started it), then who plays how long."""
        info = snap.info
        pw = await self.public(info)
        out: list[Post] = []
        actor = next((a for _, a, action, _ in await self.bot.store.tournament_log(info.id) if action == "start"), 0)
        if actor:
            out.append({"content": words.organiser_action(pw, actor, words.t(pw, "action_started"))})
        playing = sum(1 for e in snap.players if e.seed is not None)
        out.append({"content": words.started(pw, info, playing)})
        return out

    async def round_messages(self, snap: TournamentSnapshot, number: int) -> list[Post]:
        """A round's announcement: the standings (or bracket) after the round before, then its pairings."""
        out: list[Post] = []
        if number > 1:
            out += await self.results_messages(snap, number - 1)
        out += await self.pairings_messages(snap, number)
        return out

    async def end_messages(self, snap: TournamentSnapshot) -> list[Post]:
        """The end: the final standings (or bracket), the podium and the exports."""
        number = len(snap.rounds)
        out = await self.results_messages(snap, number, final=True) if number else []
        return out + await self.podium_messages(snap)

    async def open_round(self, tournament_id: int, number: int, due: DueRow | None) -> None:
        """Each pairing's thread and game, one at a time, every step recorded before the next; the step is held
        for as long as it runs, and stops where another process took it over."""
        due_id = None if due is None else due.id
        async with self.bot.scheduler.hold(due) as hold, self.lock(tournament_id):
            snap = await self.bot.store.snapshot(tournament_id)
            row = next((r for r in snap.rounds if r.number == number), None)
            if snap.info.status not in ("running", "paused") or row is None:
                if due_id is not None:
                    await self.bot.store.drop_due(due_id)
                return
            channel = await self.channel_of(snap.info)
            known = names(snap)
            for pairing in snap.round_pairings(number):
                if pairing.result is not None or (pairing.state == "game" and pairing.intro_posted):
                    continue
                try:
                    if not await self.open_pairing(snap, channel, pairing, known, row.deadline, hold):
                        log.warning("Tournament %d: round %d is opened by another process now", tournament_id, number)
                        return
                except discord.HTTPException as exc:
                    log.exception(
                        "Could not open board %d of round %d in tournament %d", pairing.board, number, tournament_id
                    )
                    if isinstance(exc, discord.Forbidden) and (tournament_id, number) not in self.told_forbidden:
                        # Permissions taken away since the tournament was created: the organisers hear it once.
                        self.told_forbidden.add((tournament_id, number))
                        with contextlib.suppress(discord.HTTPException):
                            pw = await self.public(snap.info)
                            await self.say(
                                snap.info, words.t(pw, "cannot_open", name=_esc(snap.info.name), round=number)
                            )
                    return  # the step stays due: it is tried again when its lease ends
            await self.bot.store.finish_opening(tournament_id, number, due_id, hold.claim)

    async def open_pairing(
        self,
        snap: TournamentSnapshot,
        channel: discord.TextChannel,
        pairing: Pairing,
        known: dict[int, str],
        deadline: float,
        hold: Hold,
    ) -> bool:
        """One pairing's thread, game and first board with its intro; False if the step was taken over."""
        info = snap.info
        claim = hold.claim
        if pairing.state in ("paired", "thread_pending"):
            name = words.thread_name(
                await self.public(info),
                info.name,
                info.id,
                pairing.round,
                pairing.board,
                known.get(pairing.white, "?"),
                known.get(pairing.black, "?"),
            )
            thread = None
            if pairing.state == "thread_pending":
                thread = self.made_before(channel, info.id, pairing)
            made = thread is None
            if thread is None:
                if not await self.bot.store.pairing_thread_pending(pairing.id, claim=claim):
                    return False
                crash_point("tournament-thread-pending")
                thread = await self.create_thread(channel, name)
                crash_point("tournament-thread-created")
            if not await self.bot.store.pairing_thread(pairing.id, thread.id, claim=claim):
                if made:
                    await self.remove_thread(thread.id)
                return False
        try:
            game = await self.bot.store.start_pairing_game(pairing.id)
        except UserError:
            return True  # its result was set meanwhile
        crash_point("tournament-game-created")
        if not await hold.still_held():
            return False
        await self.first_board(info, pairing, game, deadline)
        return True

    def made_before(self, channel: discord.TextChannel, tournament_id: int, pairing: Pairing) -> discord.Thread | None:
        """The thread an earlier run asked Discord for before it could record it (the gateway announced it): the
        bot's, in the tournament's channel, named for this round and board of this tournament."""
        me = self.bot.user.id if self.bot.user is not None else None
        # Named in the server's language when it was asked for, which may have changed since: any language's prefix.
        prefixes = tuple(
            words.thread_prefix(words_in(language), pairing.round, pairing.board) for language in LANGUAGES
        )
        suffix = words.thread_suffix(tournament_id)
        for thread in channel.threads:
            if thread.owner_id == me and thread.name.startswith(prefixes) and thread.name.endswith(suffix):
                return thread
        return None

    async def create_thread(self, channel: discord.TextChannel, name: str) -> discord.Thread:
        """A public thread, paced, and tried again after a rate limit discord.py did not absorb itself."""
        for attempt in range(THREAD_RETRIES):
            await asyncio.sleep(THREAD_PACE)
            try:
                return await channel.create_thread(
                    name=name, type=discord.ChannelType.public_thread, auto_archive_duration=10080
                )
            except discord.HTTPException as exc:
                if exc.status != 429 or attempt == THREAD_RETRIES - 1:
                    raise
                retry = getattr(exc.response, "headers", {}).get("Retry-After")
                await asyncio.sleep(float(retry) if retry else 1.0 * (attempt + 1))
        raise RuntimeError("unreachable")

    async def first_board(self, info: TournamentInfo, pairing: Pairing, game: GameInfo, deadline: float) -> None:
        """The game's first board with its intro (who plays whom, in which round), calling both players once.

        The intro is owed in the store from the moment the game is stored until it is posted, so a restart posts
        it (a sweep for owed boards leaves such a game's first board to this). Posted under the game's board lock,
        from the game as stored then: if its board went out meanwhile (a turn already played), the players are
        still called, without a second board.
        """
        pw = await self.public(info)
        intro = words.game_intro(pw, info, pairing.round, pairing.board, pairing.white, pairing.black, deadline)
        thread = self.bot.get_partial_messageable(game.channel_id)
        mentions = discord.AllowedMentions(users=[discord.Object(pairing.white), discord.Object(pairing.black)])
        async with board_lock(self.bot, game.id):
            if (await self.bot.store.pairing(pairing.id)).intro_posted:
                return
            current = await self.bot.store.get_game(game.id)
            if not current.unannounced:
                await thread.send(content=intro, allowed_mentions=mentions)
                await self.bot.store.intro_posted(pairing.id)
                return
            out = (await board_message(self.bot, current)).quiet()
            kwargs: dict[str, Any] = {"content": intro, "files": out.discord_files(), "allowed_mentions": mentions}
            if out.embed is not None:
                kwargs["embed"] = out.embed
            if out.view is not None:
                kwargs["view"] = out.view
            message = await thread.send(**kwargs)
            await self.bot.store.intro_posted(pairing.id)
            await after_board_posted(self.bot, current, message.id)

    async def round_deadline(self, tournament_id: int, number: int, due_id: int) -> None:
        """The round's time is up: games still on are adjudicated by the clock, games never opened score nothing."""
        async with self.lock(tournament_id):
            snap = await self.bot.store.snapshot(tournament_id)
            if snap.info.status == "paused":
                # Held while paused: looked at again a minute later, applied once the tournament resumes.
                await self.bot.store.schedule_tournament(tournament_id, f"deadline:{number}", self.bot.store.now() + 60)
                return
            if snap.info.status != "running":
                await self.bot.store.drop_due(due_id)
                return
            ended = []
            for pairing in snap.round_pairings(number):
                if (
                    pairing.game_id is not None
                    and pairing.result is None
                    and await self.bot.store.adjudicate(pairing.game_id) is not None
                ):
                    ended.append(pairing.game_id)
            await self.bot.store.close_round(tournament_id, number, due_id)
        for game_id in ended:
            self.bot.spawn(announce(self.bot, game_id), name=f"announce-{game_id}")

    async def finish(self, snap: TournamentSnapshot) -> None:
        """The last round is over: it is finished, its final standings (or bracket), the podium and the exports owed
        in the same transaction (the ``posts`` step posts them)."""
        finished = await self.bot.store.set_tournament_status(
            snap.info.id, "finished", actor_id=0, allowed=("running",)
        )
        await self.refresh_announcement(finished)

    # --- posts (one function each, so an image is attached in one place) -----------------------

    async def say(self, info: TournamentInfo, text: str) -> None:
        await self.bot.get_partial_messageable(info.channel_id).send(
            text, allowed_mentions=discord.AllowedMentions.none()
        )

    @staticmethod
    def page_messages(pages: list[list[discord.Embed]], files: list[discord.File] | None = None) -> list[Post]:
        """Embeds page after page; the files with the last page, ten a message (Discord's most), the rest after."""
        batches = [files[i : i + MAX_FILES] for i in range(0, len(files or []), MAX_FILES)] if files else []
        out: list[Post] = []
        for i, page in enumerate(pages):
            extra = batches[0] if batches and i == len(pages) - 1 else None
            out.append({"embeds": page, "files": extra} if extra else {"embeds": page})
        out += [{"files": batch} for batch in batches[1:]]
        return out

    async def post_pages(
        self, info: TournamentInfo, pages: list[list[discord.Embed]], files: list[discord.File] | None = None
    ) -> None:
        channel = self.bot.get_partial_messageable(info.channel_id)
        for message in self.page_messages(pages, files):
            await channel.send(**message, allowed_mentions=discord.AllowedMentions.none())

    async def pairings_messages(self, snap: TournamentSnapshot, number: int) -> list[Post]:
        info = snap.info
        pw = await self.public(info)
        known = {pid: _esc(n) for pid, n in names(snap).items()}
        row = next(r for r in snap.rounds if r.number == number)
        lines = [
            words.pairing_line(pw, p.board, known.get(p.white, "?"), known.get(p.black, "?"), p.result, p.match)
            for p in snap.round_pairings(number)
        ]
        lines += [words.bye_line(pw, known.get(pid, "?"), kind) for r, pid, kind in snap.byes if r == number]
        gone = [known.get(e.user_id, "?") for e in snap.players if e.left_round == number]
        if gone:
            lines.append(words.t(pw, "withdrawn_line", names=words.listed(pw, gone)))
        header: Post = {"content": words.round_header(pw, info, number, row.deadline)}
        title = words.t(pw, "pairings.title", name=_esc(info.name), round=number)
        return [header, *self.page_messages(paged(title, lines))]

    async def results_messages(self, snap: TournamentSnapshot, number: int, *, final: bool = False) -> list[Post]:
        if snap.info.is_elimination:
            return await self.bracket_messages(snap, number)
        return await self.standings_messages(snap, number, final=final)

    def standings_pages(self, w: Words, snap: TournamentSnapshot, *, final: bool) -> list[list[discord.Embed]]:
        info = snap.info
        known = {pid: _esc(n) for pid, n in names(snap).items()}
        done = rounds_done(snap)
        if info.is_elimination:
            title = words.t(w, "bracket.title", name=_esc(info.name), round=done)
            return paged(title, self.bracket_lines(w, snap, known))
        labels = tiebreak_labels(info)
        short = [words.tiebreak_short(w, label) for label in labels]
        lines: list[str] = []
        for group, rows in tables(snap):
            if group is not None:
                lines.append(words.division_heading(w, group))
            lines += words.standings_lines(w, rows, known, short)
        return paged(words.standings_title(w, info, done, final), lines, footer=words.tiebreak_legend(w, labels))

    async def standings_images(self, w: Words, snap: TournamentSnapshot, *, final: bool) -> list[discord.File]:
        """The standings as images (a hundred rows each, one set per division) in ``w``'s language and the theme of
        public posts, withdrawn players marked; drawn off the event loop. An elimination's is its bracket."""
        info = snap.info
        if info.is_elimination:
            return [await self.bracket_image(w, snap, rounds_done(snap))]
        title = words.standings_title(w, info, rounds_done(snap), final, escape=False)
        labels = [words.tiebreak_short(w, label) for label in tiebreak_labels(info)]
        shown = names(snap)
        gone = {e.user_id for e in snap.players if e.left_round is not None}
        image_words = words.image_words(w)
        jobs: list[tuple[str, Sequence[Standing]]] = []
        for group, rows in tables(snap):
            head = title if group is None else f"{title} · {words.division_name(w, group)}"
            pages = [rows[i : i + MAX_STANDINGS_ROWS] for i in range(0, len(rows), MAX_STANDINGS_ROWS)] or [rows]
            for n, page in enumerate(pages, start=1):
                page_title = head if len(pages) == 1 else words.t(w, "image_page", title=head, page=n, pages=len(pages))
                jobs.append((page_title, page))

        def draw() -> list[bytes]:
            return [
                standings_png(
                    page,
                    shown,
                    title=page_title,
                    tiebreak_labels=labels,
                    theme=PUBLIC_THEME,
                    withdrawn=gone,
                    words=image_words,
                )
                for page_title, page in jobs
            ]

        images = await asyncio.to_thread(draw)
        return [
            png_file(png, f"standings-{i}.png" if len(images) > 1 else "standings.png")
            for i, png in enumerate(images, 1)
        ]

    async def standings_messages(self, snap: TournamentSnapshot, number: int, *, final: bool = False) -> list[Post]:
        """The standings after a round: the table as embeds, with its images, in the server's language."""
        pw = await self.public(snap.info)
        files = await self.standings_images(pw, snap, final=final)
        return self.page_messages(self.standings_pages(pw, snap, final=final), files)

    def bracket_lines(self, w: Words, snap: TournamentSnapshot, known: dict[int, str]) -> list[str]:
        state = bracket_state(snap)
        out = []
        for m in state.matches:
            if not m.played and not m.ready:
                continue
            a = known.get(m.a, "?") if isinstance(m.a, int) else "—"
            b = known.get(m.b, "?") if isinstance(m.b, int) else "—"
            winner = known.get(m.winner, "?") if isinstance(m.winner, int) else None
            out.append(words.bracket_line(w, m.match.id, a, b, winner))
        return out

    async def bracket_image(self, w: Words, snap: TournamentSnapshot, number: int) -> discord.File:
        """The whole bracket after round ``number`` as an image (games won per match in a best-of-N)."""
        info = snap.info
        title = words.t(w, "bracket.title", name=info.name, round=number)
        state = bracket_state(snap)
        scores = match_scores(snap, state) if info.best_of > 1 else None
        png = await asyncio.to_thread(
            bracket_png, state, names(snap), title=title, theme=PUBLIC_THEME, scores=scores, words=words.image_words(w)
        )
        return png_file(png, "bracket.png")

    async def bracket_messages(self, snap: TournamentSnapshot, number: int) -> list[Post]:
        """The bracket after a round: its matches as embeds, and the whole bracket as an image."""
        info = snap.info
        pw = await self.public(info)
        known = {pid: _esc(n) for pid, n in names(snap).items()}
        title = words.t(pw, "bracket.title", name=_esc(info.name), round=number)
        image = await self.bracket_image(pw, snap, number)
        return self.page_messages(paged(title, self.bracket_lines(pw, snap, known)), [image])

    def export_files(self, snap: TournamentSnapshot) -> list[discord.File]:
        slug = re.sub(r"[^a-z0-9]+", "-", snap.info.name.lower()).strip("-") or "tournament"
        files = [discord.File(io.BytesIO(csv_text(snap).encode()), filename=f"{slug}-standings.csv")]
        if snap.info.format == "swiss":
            files.append(discord.File(io.BytesIO(trf_text(snap).encode()), filename=f"{slug}.trf"))
        return files

    async def podium_messages(self, snap: TournamentSnapshot) -> list[Post]:
        """The end: the podium (each division's) in words and as images, with the exports."""
        info = snap.info
        pw = await self.public(info)
        known = {pid: _esc(n) for pid, n in names(snap).items()}
        grouped = division_places(snap)
        podiums = [
            (group, [(place, known.get(pid, "?")) for place, pid in ranked if place <= 3]) for group, ranked in grouped
        ]
        shown, image_words = names(snap), words.image_words(pw)
        title = words.t(pw, "podium.title", name=info.name)
        jobs = [
            (title if group is None else f"{title} · {words.division_name(pw, group)}", ranked)
            for group, ranked in grouped
        ]

        def draw() -> list[bytes]:
            return [
                podium_png(ranked, shown, title=head, theme=PUBLIC_THEME, words=image_words) for head, ranked in jobs
            ]

        images = await asyncio.to_thread(draw)
        pictures = [
            png_file(png, f"podium-{i}.png" if len(images) > 1 else "podium.png") for i, png in enumerate(images, 1)
        ]
        # The exports travel with the podium's words (the first ten files), further podiums after them.
        files = [*self.export_files(snap), *pictures]
        text = words.podium_text(pw, info, podiums) + "\n" + words.exports_note(pw, info.format == "swiss")
        if len(text) <= CONTENT_LIMIT and len(files) <= MAX_FILES:
            return [{"content": text, "files": files}]
        # Many divisions: the podiums go in embeds, paged within Discord's limits, the files with the last.
        head, *lines = text.split("\n")
        return self.page_messages(paged(head, lines), files)

    async def post_stopped(self, game_id: int, note: str, **data: object) -> None:
        """The last board of a game an organiser stopped (a result set, the tournament cancelled), in its thread,
        its note (a ``tournament`` key) in the server's language."""
        info = await self.bot.store.get_game(game_id)
        if info.status != "cancelled" or not info.unannounced:
            return
        pw = await public_words(self.bot, info.guild_id)
        if "result" in data:
            data["result"] = words.result_word(pw, str(data["result"]))
        try:
            out = await board_message(self.bot, info, note=words.t(pw, note, **data), w=pw)
            message_id = await send_to_channel(self.bot, info.channel_id, out)
        except discord.HTTPException:
            log.warning("Could not post the stopped board of game %d", game_id)
            return
        await after_board_posted(self.bot, info, message_id)

    async def archive_rounds(self, snap: TournamentSnapshot, last: int) -> None:
        """Archive the threads of finished games up to round ``last``, so the channel's thread list shows the games
        on now (an archived thread stays readable, and a message in it, a rematch say, opens it again). In the
        background: a game's last board may still be on its way, and posting it would open the thread again."""
        for pairing in snap.pairings:
            if pairing.round > last or pairing.thread_id is None or pairing.result is None:
                continue
            if pairing.game_id is not None:
                for _ in range(ARCHIVE_WAITS):
                    game = await self.bot.store.get_game(pairing.game_id)
                    if game.status != "active" and not game.unannounced:
                        break
                    await asyncio.sleep(0.25)
                else:
                    continue
            thread = self.bot.get_channel(pairing.thread_id)
            if not isinstance(thread, discord.Thread) or thread.archived:
                continue  # archived already (discord.py keeps only active threads)
            try:
                await thread.edit(archived=True)
            except discord.HTTPException:
                log.warning("Could not archive thread %d of tournament %d", pairing.thread_id, snap.info.id)

    # --- Discord plumbing ------------------------------------------------------------------------

    async def channel_of(self, info: TournamentInfo) -> discord.TextChannel:
        channel = self.bot.get_channel(info.channel_id)
        if channel is None:
            channel = await self.bot.fetch_channel(info.channel_id)
        if not isinstance(channel, discord.TextChannel):
            raise RuntimeError(f"tournament {info.id}'s channel is not a text channel")
        return channel

    async def remove_thread(self, thread_id: int) -> None:
        try:
            thread = self.bot.get_channel(thread_id) or await self.bot.fetch_channel(thread_id)
        except discord.HTTPException:
            return
        if isinstance(thread, discord.Thread):
            try:
                await thread.delete()
            except discord.HTTPException:
                log.warning("Could not remove thread %d", thread_id)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        """After a restart: finish what a running tournament was doing (posts owed, a round's games half opened)."""
        for info in await self.bot.store.live_tournaments():
            if info.guild_id == guild.id:
                self.bot.spawn(self.reconcile(info.id), name=f"tournament-{info.id}-reconcile")

    async def reconcile(self, tournament_id: int) -> None:
        """Posts owed, games not opened (or not introduced) yet, and a round that ended while the bot was away: each
        done once. The posts and the games are the scheduler's steps, made due if they are not already (so a step
        another process holds is left to it)."""
        await self.bot.store.owe_posts(tournament_id)
        snap = await self.bot.store.snapshot(tournament_id)
        for row in snap.rounds:
            pairings = snap.round_pairings(row.number)
            if any(p.result is None and (p.state != "game" or not p.intro_posted) for p in pairings):
                await self.bot.store.owe_step(tournament_id, f"play:{row.number}")
        # Without waiting for the lease of an `advance` step the stopped process had taken.
        await self.advance(tournament_id, None)


async def setup(bot: VeletasBot) -> None:
    bot.add_dynamic_items(TournamentButton)
    await bot.add_feature(
        TournamentCog(bot), group="tournament", description="Tournaments of Veletas and Veloop run by the bot"
    )
