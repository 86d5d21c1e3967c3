"""A round's recap in the tournament's channel: one short post with one image, its upsets, its longest game and its
biggest claim (Veletas) or confinement (Veloop), worded in the server's language from the catalogue's ``recap`` area.

The facts come from ``bot.tournament_flow.round_recap_of`` (the games' stored turns replayed by the rules), worked
out and drawn off the event loop. The ``posts`` step (``steps``) delivers a recap once its round is over; the last
round's goes with the end's posts, before the final standings and the podium.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from bot.i18n import Words
from bot.render.recap import RecapWords, recap_png
from bot.store.values import GameInfo, TournamentInfo, TournamentSnapshot
from bot.tournament_flow import names, recap_games, round_recap_of
from bot.tournaments.recap import Recap
from cogs.tournament import words
from cogs.tournament.base import TournamentBase
from cogs.tournament.posts import PUBLIC_THEME, Post, png_file


def image_words(w: Words) -> RecapWords:
    """The fixed words of the recap image, in ``w``'s language."""
    return RecapWords(
        upsets=w("recap.image.upsets"),
        longest=w("recap.image.longest"),
        claim=w("recap.image.claim"),
        confinement=w("recap.image.confinement"),
        beat=w("recap.image.beat"),
        versus=w("recap.image.versus"),
        turns=lambda n: w("recap.image.turns", count=n),
        shooters=lambda n: w("recap.image.shooters", count=n),
        stones=lambda n: w("recap.image.stones", count=n),
    )


def recap_text(w: Words, info: TournamentInfo, recap: Recap, known: Mapping[int, str]) -> str:
    """The recap's words: a line per fact the round has, names as ``known`` shows them (escaped)."""

    def who(player: int) -> str:
        return known.get(player, "?")

    lines = [w("recap.title", name=words.shown(info), round=recap.round)]
    if recap.upsets:
        lines.append(w("recap.upsets.heading"))
        for u in recap.upsets:
            lines.append(
                w(
                    "recap.upset",
                    winner=who(u.winner),
                    winner_rating=str(u.winner_rating),
                    loser=who(u.loser),
                    loser_rating=str(u.loser_rating),
                    board=u.board,
                )
            )
    if recap.longest is not None:
        g = recap.longest
        lines.append(w("recap.longest", count=g.turns, white=who(g.white), black=who(g.black), board=g.board))
    if recap.claim is not None:
        c = recap.claim
        lines.append(
            w(
                "recap.claim_group" if c.group >= 2 else "recap.claim",
                count=c.count,
                player=who(c.player),
                opponent=who(c.opponent),
                squares=words.listed(w, c.squares),
                turn=c.turn,
                board=c.board,
                group=c.group,
            )
        )
    if recap.confinement is not None:
        c = recap.confinement
        lines.append(
            w(
                "recap.confinement",
                count=c.count,
                player=who(c.player),
                opponent=who(c.opponent),
                turn=c.turn,
                board=c.board,
            )
        )
    return "\n".join(lines)


class Recaps(TournamentBase):
    """The recap each round owes its channel."""

    async def recap_messages(self, snap: TournamentSnapshot, number: int) -> list[Post]:
        """Round ``number``'s recap as one post with its image, in the server's language; none when no game of the
        round was played on a board (forfeits and byes only)."""
        info = snap.info
        games: dict[int, GameInfo] = {}
        for p in recap_games(snap, number):
            if p.game_id is not None:
                games[p.game_id] = await self.bot.store.get_game(p.game_id)
        pw = await self.public(info)
        shown = names(snap)
        title = pw("recap.image.title", name=info.name, round=number)
        drawn_words = image_words(pw)

        def work() -> tuple[Recap, bytes] | None:
            recap = round_recap_of(snap, number, games)
            if recap is None:
                return None
            return recap, recap_png(recap, shown, title=title, theme=PUBLIC_THEME, words=drawn_words)

        done = await asyncio.to_thread(work)
        if done is None:
            return []
        recap, png = done
        known = {pid: words.escaped(n) for pid, n in shown.items()}
        return [{"content": recap_text(pw, info, recap, known)[:2000], "files": [png_file(png, "recap.png")]}]
