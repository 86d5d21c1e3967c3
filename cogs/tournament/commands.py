"""The organisers' tools (start, pause, resume, cancel, result, remove, add, repair, organisers) and what
anyone may read (list, info, standings, pairings): every ``/tournament`` subcommand but ``create``.

An organiser's action is answered privately in their language, then said publicly in the tournament's channel
in the server's (``acted``).
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable
from typing import Literal

import discord
from discord import app_commands

from bot.client import VeletasBot
from bot.errors import UserError
from bot.i18n import Words
from bot.store.values import FINISHED_SHOWN, RESULTS, TournamentInfo
from bot.tournament_flow import names, rounds_at_start
from cogs._clock_words import describe_control
from cogs._words import private_words
from cogs.tournament import words
from cogs.tournament.arena import leaderboard_embed
from cogs.tournament.base import game_text
from cogs.tournament.disputes import dispute_lines
from cogs.tournament.posts import CONTENT_LIMIT, MAX_FILES, Posts, paged
from cogs.tournament.signup import SignUp
from cogs.tournament.why import round_asked, why_lines

log = logging.getLogger(__name__)


class OrganiserCommands(SignUp, Posts):
    """``/tournament start`` … ``standings``, and the tournament autocomplete they share."""

    @app_commands.command()
    @app_commands.describe(tournament="which tournament (default: this channel's)")
    async def start(self, interaction: discord.Interaction[VeletasBot], tournament: int | None = None) -> None:
        """Close sign-up and start now (organisers)."""
        info = await self.find(interaction, tournament)
        await self.check_organiser(interaction, info)
        started = await self.bot.store.start_tournament(
            info.id, actor_id=interaction.user.id, rounds_for=lambda n: rounds_at_start(info, n)
        )
        # The organiser hears first; the channel's lines are owed in the store and posted by the ``posts`` step,
        # tried again until they are out.
        await self.answer(interaction, lambda w: words.t(w, "action_started"))
        await self.refresh_announcement(started)

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
        # A result that closes the board's open dispute says so (the dispute and its decision are kept with it).
        disputed = next((d for d in snap.open_disputes if d.pairing_id == pairing.id), None)

        def said(w: Words) -> str:
            text = words.action_result(
                w,
                round,
                board,
                words.escaped(known.get(pairing.white, "?")),
                words.escaped(known.get(pairing.black, "?")),
                result,
            )
            return text if disputed is None else f"{text} {w('dispute.decided', who=f'<@{disputed.user_id}>')}"

        await self.acted(interaction, info, said)
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
        await self.acted(interaction, info, lambda w: words.t(w, "action_removed", name=words.escaped(entry.name)))
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
        await self.acted(interaction, info, lambda w: words.action_added(w, words.escaped(member.display_name), late))
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
        if info.is_arena:
            raise UserError("arena.no_rounds")
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
        text = "\n".join([text, *dispute_lines(w, snap, room=CONTENT_LIMIT - len(text) - 1)])
        await interaction.response.send_message(text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command()
    @app_commands.describe(tournament="which tournament (default: this channel's)")
    async def standings(self, interaction: discord.Interaction[VeletasBot], tournament: int | None = None) -> None:
        """The standings so far (privately), with the CSV (and TRF for a Swiss)."""
        info = await self.find(interaction, tournament)
        snap = await self.bot.store.snapshot(info.id)
        if info.is_arena:
            # An arena's standings are its leaderboard, in the member's words.
            embed = leaderboard_embed(private_words(interaction), snap)
            await interaction.response.send_message(embed=embed, ephemeral=True)
            return
        if not any(all(p.result is not None for p in snap.round_pairings(r.number)) for r in snap.rounds):
            raise UserError("tournament.no_standings_yet")
        w, final = private_words(interaction), info.status == "finished"
        # Drawing a big field's images takes a moment: the answer is deferred, as Discord allows.
        await interaction.response.defer(ephemeral=True, thinking=True)
        pages = self.standings_pages(w, snap, final=final)
        files = [*self.export_files(snap), *await self.standings_images(w, snap, final=final)]
        if final:
            files += await self.crosstable_images(w, snap)  # as the final standings were posted
        await interaction.followup.send(embeds=pages[0], files=files[:MAX_FILES], ephemeral=True)
        for page in pages[1:]:
            await interaction.followup.send(embeds=page, ephemeral=True)
        for i in range(MAX_FILES, len(files), MAX_FILES):
            await interaction.followup.send(files=files[i : i + MAX_FILES], ephemeral=True)

    @app_commands.command()
    @app_commands.describe(
        round="the round number (default: the latest)",
        public="True: show it in the channel (organisers)",
        tournament="which tournament (default: this channel's)",
    )
    async def pairings(
        self,
        interaction: discord.Interaction[VeletasBot],
        round: app_commands.Range[int, 1, 1000] | None = None,
        public: bool = False,
        tournament: int | None = None,
    ) -> None:
        """Why each board of a round was paired so: score groups, floats, sides, byes."""
        info = await self.find(interaction, tournament)
        if public:
            await self.check_organiser(interaction, info)
        if info.is_arena:
            raise UserError("arena.no_rounds")
        snap = await self.bot.store.snapshot(info.id)
        number = round_asked(snap, round)
        w = await self.public(info) if public else private_words(interaction)
        title = words.t(w, "why.title", name=words.shown(info), round=number)
        pages = paged(title, why_lines(w, snap, number))
        await interaction.response.send_message(embeds=pages[0], ephemeral=not public)
        for page in pages[1:]:
            await interaction.followup.send(embeds=page, ephemeral=not public)

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
    @pairings.autocomplete("tournament")
    async def tournament_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[int]]:
        """This server's tournaments matching what is typed (part of a name in any script and case, or a number):
        those signing up or running first, then those finished within ``FINISHED_SHOWN``, the latest end first."""
        if interaction.guild_id is None:
            return []
        typed = folded(current).lstrip("#")
        store = self.bot.store
        live = [t for t in await store.tournaments(interaction.guild_id) if t.status in ("signup", "running", "paused")]
        done = await store.finished_tournaments(interaction.guild_id, since=store.now() - FINISHED_SHOWN)
        w = private_words(interaction)
        return [
            app_commands.Choice(name=words.choice_name(w, t)[:100], value=t.id)
            for t in (*live, *done)
            if not typed or typed in folded(t.name) or str(t.id).startswith(typed)
        ][:25]


def folded(text: str) -> str:
    """Text as matched against what a member types: compatibility forms unified (full-width letters and digits),
    case folded in every script that has case."""
    return unicodedata.normalize("NFKC", text).casefold().strip()
