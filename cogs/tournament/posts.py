"""What a tournament posts in its channel, each message built in one place so an image is attached in one place:
its start, each round's standings (or bracket) and pairings, its end (the final standings with the crosstable, the
podium and the exports), the private standings, and the last board of a game an organiser stopped.

The tables go out as embeds cut to Discord's limits (``paged``), with their images drawn off the event loop by
``bot.render.tournament`` in ``PUBLIC_THEME``.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import Sequence
from typing import Any, TypeVar

import discord

from bot.i18n import Words
from bot.render.crosstable import MAX_CROSSTABLE_ROWS, crosstable_png
from bot.render.tournament import MAX_STANDINGS_ROWS, bracket_png, podium_png, standings_png
from bot.store.values import TournamentSnapshot
from bot.tournament_flow import (
    bracket_state,
    crosstable_text,
    crosstables,
    csv_text,
    disputes_text,
    division_places,
    match_scores,
    names,
    rounds_done,
    tables,
    tiebreak_labels,
    trf_text,
)
from cogs._board import DEFAULT_THEME, board_message
from cogs._delivery import after_board_posted
from cogs._send import send_to_channel
from cogs._words import public_words
from cogs.tournament import words
from cogs.tournament.arena import arena_standings
from cogs.tournament.base import TournamentBase

log = logging.getLogger(__name__)

CONTENT_LIMIT = 2000
MAX_FILES = 10
"""Attachments one message may carry (Discord's limit)."""
EMBED_TEXT = 3800
MESSAGE_TEXT = 5500
PUBLIC_THEME = DEFAULT_THEME
"""The theme of the tournament images: the one the bot draws public boards in for anyone without a choice."""

Row = TypeVar("Row")
"""A row of a table drawn on several images (a standing, a crosstable's row)."""
Post = dict[str, Any]
"""One channel message as ``send`` takes it (content, embeds, files)."""


def png_file(png: bytes, filename: str) -> discord.File:
    return discord.File(io.BytesIO(png), filename=filename)


def numbered_files(images: Sequence[bytes], stem: str) -> list[discord.File]:
    """PNG files named ``stem.png``, or ``stem-1.png``, ``stem-2.png``... when there are several."""
    return [png_file(png, f"{stem}-{i}.png" if len(images) > 1 else f"{stem}.png") for i, png in enumerate(images, 1)]


def image_pages(
    w: Words, title: str, groups: Sequence[tuple[str | None, Sequence[Row]]], size: int
) -> list[tuple[str, int, Sequence[Row]]]:
    """Each group's rows (a division's, or the only group's) cut into images of ``size`` rows: the image's title
    (naming the division, numbering the pages when there are several), the group's index and its rows."""
    out: list[tuple[str, int, Sequence[Row]]] = []
    for index, (group, rows) in enumerate(groups):
        head = title if group is None else f"{title} · {words.division_name(w, group)}"
        pages = [rows[i : i + size] for i in range(0, len(rows), size)] or [rows]
        for n, page in enumerate(pages, start=1):
            page_title = head if len(pages) == 1 else words.t(w, "image_page", title=head, page=n, pages=len(pages))
            out.append((page_title, index, page))
    return out


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


class Posts(TournamentBase):
    """The messages a tournament owes its channel, and the standings a member asks for."""

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
        if snap.info.is_arena:
            return await self.podium_messages(snap)  # its final standings are its leaderboard, edited in place
        number = len(snap.rounds)
        out = await self.results_messages(snap, number, final=True) if number else []
        return out + await self.podium_messages(snap)

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

    async def pairings_messages(self, snap: TournamentSnapshot, number: int) -> list[Post]:
        info = snap.info
        pw = await self.public(info)
        known = {pid: words.escaped(n) for pid, n in names(snap).items()}
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
        title = words.t(pw, "pairings.title", name=words.escaped(info.name), round=number)
        return [header, *self.page_messages(paged(title, lines))]

    async def results_messages(self, snap: TournamentSnapshot, number: int, *, final: bool = False) -> list[Post]:
        if snap.info.is_elimination:
            return await self.bracket_messages(snap, number)
        return await self.standings_messages(snap, number, final=final)

    def standings_pages(self, w: Words, snap: TournamentSnapshot, *, final: bool) -> list[list[discord.Embed]]:
        info = snap.info
        known = {pid: words.escaped(n) for pid, n in names(snap).items()}
        done = rounds_done(snap)
        if info.is_elimination:
            title = words.t(w, "bracket.title", name=words.escaped(info.name), round=done)
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
        jobs = image_pages(w, title, tables(snap), MAX_STANDINGS_ROWS)

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
                for page_title, _, page in jobs
            ]

        return numbered_files(await asyncio.to_thread(draw), "standings")

    async def crosstable_images(self, w: Words, snap: TournamentSnapshot) -> list[discord.File]:
        """The crosstables (one per division, forty rows an image) in ``w``'s language and the theme of public
        posts, withdrawn players greyed; drawn off the event loop. An elimination has none: its bracket is its
        table."""
        info = snap.info
        if info.is_elimination:
            return []
        title = words.t(w, "crosstable.title", name=info.name)
        labels = [words.tiebreak_short(w, label) for label in tiebreak_labels(info)]
        shown = names(snap)
        gone = {e.user_id for e in snap.players if e.left_round is not None}
        image_words = words.image_words(w)
        groups = crosstables(snap)
        jobs = image_pages(w, title, [(group, table.rows) for group, table in groups], MAX_CROSSTABLE_ROWS)

        def draw() -> list[bytes]:
            return [
                crosstable_png(
                    groups[index][1],
                    shown,
                    title=page_title,
                    tiebreak_labels=labels,
                    rows=page,
                    theme=PUBLIC_THEME,
                    withdrawn=gone,
                    words=image_words,
                )
                for page_title, index, page in jobs
            ]

        return numbered_files(await asyncio.to_thread(draw), "crosstable")

    async def standings_messages(self, snap: TournamentSnapshot, number: int, *, final: bool = False) -> list[Post]:
        """The standings after a round: the table as embeds, with its images, in the server's language; the final
        standings bring the crosstable's images too."""
        pw = await self.public(snap.info)
        files = await self.standings_images(pw, snap, final=final)
        if final:
            files += await self.crosstable_images(pw, snap)
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
        known = {pid: words.escaped(n) for pid, n in names(snap).items()}
        title = words.t(pw, "bracket.title", name=words.escaped(info.name), round=number)
        image = await self.bracket_image(pw, snap, number)
        return self.page_messages(paged(title, self.bracket_lines(pw, snap, known)), [image])

    def export_files(self, snap: TournamentSnapshot) -> list[discord.File]:
        slug = re.sub(r"[^a-z0-9]+", "-", snap.info.name.lower()).strip("-") or "tournament"
        files = [discord.File(io.BytesIO(csv_text(snap).encode()), filename=f"{slug}-standings.csv")]
        if not snap.info.is_elimination:
            crosstable = crosstable_text(snap).encode()
            files.append(discord.File(io.BytesIO(crosstable), filename=f"{slug}-crosstable.csv"))
        if snap.info.format == "swiss":
            files.append(discord.File(io.BytesIO(trf_text(snap).encode()), filename=f"{slug}.trf"))
        if snap.disputes:
            files.append(discord.File(io.BytesIO(disputes_text(snap).encode()), filename=f"{slug}-disputes.csv"))
        return files

    async def podium_messages(self, snap: TournamentSnapshot) -> list[Post]:
        """The end: the podium (each division's) in words and as images, with the exports."""
        info = snap.info
        pw = await self.public(info)
        known = {pid: words.escaped(n) for pid, n in names(snap).items()}
        grouped = (
            [(None, [(s.rank, s.player) for s in arena_standings(snap)])] if info.is_arena else division_places(snap)
        )
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

        pictures = numbered_files(await asyncio.to_thread(draw), "podium")
        # The exports travel with the podium's words (the first ten files), further podiums after them.
        files = [*pictures] if info.is_arena else [*self.export_files(snap), *pictures]
        text = words.podium_text(pw, info, podiums)
        if not info.is_arena:
            text += "\n" + words.exports_note(pw, info)
            if snap.disputes:
                text += " " + pw("dispute.exports")
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
