"""Tournaments in Discord: ``/tournament`` and the announcement's buttons, and the bot running every round.

The cog is one class made of its parts, each a module of this package around one idea:

- ``signup``: the announcement and its buttons (Join, Leave, Check in), and Rejoin for a player a no-show paused;
- ``create``: ``/tournament create``, a game and that game's settings;
- ``commands``: the organisers' tools and the reading commands;
- ``why``: what ``/tournament pairings`` says: why each board and bye of a round was paired so;
- ``steps``: the scheduler's steps (start, check-in and its reminders and drop notices, advance, deadlines, owed
  posts) and the restart's reconcile;
- ``opening``: a round's threads, games and first boards;
- ``disputes``: a player's dispute of a game's result (the board's button, the reason, the organisers' post);
- ``arena``: an arena's pairing as games end, its leaderboard edited in place, Berserk, Pause and Back in;
- ``posts``: what the channel is owed (standings, bracket, podium, with their images) and the private standings;
- ``recap``: each round's recap (upsets, longest game, biggest claim or confinement) and its image;
- ``words``: every sentence, worded from the catalogue: private answers in the member's language, public posts
  (announcement, rounds, standings, podium, organiser lines) in the server's.

What is not Discord (pairing, standings, rounds, start times) is in ``bot.tournament_flow`` and ``bot.tournaments``.
"""

from __future__ import annotations

from bot.client import VeletasBot
from cogs._board import DisputeButton
from cogs._tables import offer_games
from cogs.tournament.arena import ArenaButton
from cogs.tournament.commands import OrganiserCommands
from cogs.tournament.create import Creation
from cogs.tournament.signup import RejoinButton, TournamentButton
from cogs.tournament.steps import Steps


class TournamentCog(OrganiserCommands, Creation, Steps, name="Tournaments"):
    """Every part of the tournament feature on one cog; the scheduler's ``tournament`` steps go to ``on_due``."""

    def __init__(self, bot: VeletasBot) -> None:
        super().__init__(bot)
        bot.scheduler.handlers["tournament"] = self.on_due


async def setup(bot: VeletasBot) -> None:
    bot.add_dynamic_items(TournamentButton, DisputeButton, RejoinButton, ArenaButton)
    cog = TournamentCog(bot)
    offer_games(cog)
    await bot.add_feature(cog, group="tournament", description="Tournaments of Veletas and Veloop run by the bot")
