"""Tournaments in Discord: ``/tournament`` and the announcement's buttons, and the bot running every round.

The cog is one class made of its parts, each a module of this package around one idea:

- ``signup``: the announcement and its buttons (Join, Leave, Check in);
- ``create``: ``/tournament create``, a game and that game's settings;
- ``commands``: the organisers' tools and the reading commands;
- ``why``: what ``/tournament pairings`` says: why each board and bye of a round was paired so;
- ``steps``: the scheduler's steps (start, check-in, advance, deadlines, owed posts) and the restart's reconcile;
- ``opening``: a round's threads, games and first boards;
- ``arena``: an arena's pairing as games end, its leaderboard edited in place, Berserk, Pause and Back in;
- ``posts``: what the channel is owed (standings, bracket, podium, with their images) and the private standings;
- ``words``: every sentence, worded from the catalogue: private answers in the member's language, public posts
  (announcement, rounds, standings, podium, organiser lines) in the server's.

What is not Discord (pairing, standings, rounds, start times) is in ``bot.tournament_flow`` and ``bot.tournaments``.
"""

from __future__ import annotations

from bot.client import VeletasBot
from cogs.tournament.arena import ArenaButton
from cogs.tournament.commands import OrganiserCommands
from cogs.tournament.create import Creation
from cogs.tournament.signup import TournamentButton
from cogs.tournament.steps import Steps


class TournamentCog(OrganiserCommands, Creation, Steps, name="Tournaments"):
    """Every part of the tournament feature on one cog; the scheduler's ``tournament`` steps go to ``on_due``."""

    def __init__(self, bot: VeletasBot) -> None:
        super().__init__(bot)
        bot.scheduler.handlers["tournament"] = self.on_due


async def setup(bot: VeletasBot) -> None:
    bot.add_dynamic_items(TournamentButton, ArenaButton)
    await bot.add_feature(
        TournamentCog(bot), group="tournament", description="Tournaments of Veletas and Veloop run by the bot"
    )
