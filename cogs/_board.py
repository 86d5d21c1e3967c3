"""The board message: what the bot posts about a game after every change, worded once for every game.

Not an extension. Every feature that changes a game ends by posting the same board message, so its
wording, its single allowed mention and its buttons are decided here once; each game's ``Table``
(``cogs._tables``) supplies its own sentences, image and buttons.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast

import discord

from bot import render
from bot.ai.review import REVIEWED
from bot.clocks import DAY
from bot.i18n import Words
from bot.ids import id_or_zero
from bot.rules.protocol import Colour
from bot.store.checks import ending_phrase
from bot.store.values import GameInfo
from cogs._clock_words import clock_text, times_left
from cogs._lookup import NamesAGame
from cogs._names import colour_names, learn_names, name_of, record_names, seat_names
from cogs._send import Outgoing, bot_of, mention
from cogs._tables import table_for
from cogs._words import public_words

if TYPE_CHECKING:
    from bot.client import VeletasBot

log = logging.getLogger(__name__)

BOARD_FILE = "board.png"
# The embed's side bar: Black's is a slate grey, not black, because a near-black bar vanishes on
# Discord's dark theme; this one keeps 3:1 contrast (WCAG, graphics) on its dark and light backgrounds.
BLACK_EMBED = discord.Colour.from_rgb(130, 132, 140)
WHITE_EMBED = discord.Colour.from_rgb(235, 235, 230)
NEUTRAL_EMBED = discord.Colour.from_rgb(196, 160, 98)
# Boards for players who never chose a theme (``/player theme``) use the renderer's own default.
DEFAULT_THEME = render.DEFAULT_THEME
# Endings the rules see on the board itself; the image and the rules' own record headers show those.
ON_THE_BOARD = ("claims", "confinement", "passes")


def colour_word(w: Words, colour: str | None) -> str:
    return w(f"result.{colour}") if colour else "?"


async def theme_of(bot: VeletasBot, user_id: int | None) -> str:
    """The theme a player chose for the boards drawn for them; the default for anyone else (and the AI)."""
    if user_id is None or (bot.user is not None and user_id == bot.user.id):
        return DEFAULT_THEME
    return await bot.store.get_theme(user_id) or DEFAULT_THEME


def board_viewer(bot: VeletasBot, info: GameInfo) -> int | None:
    """Whose theme the public board is drawn in: the challenger's, for the whole game.

    A public board is read by everyone in the channel, so it keeps one look from the first move to
    the last instead of changing with whoever is to move; each player's own theme is for the private
    images drawn for them (the guided move, a board asked for privately). Against the AI (which has
    no theme) that is the human's.
    """
    me = bot.user.id if bot.user is not None else None
    return next((user for user in info.participants if user != me), None)


async def render_board(bot: VeletasBot, info: GameInfo, *, theme: str, w: Words) -> bytes:
    """The game's board in ``w``'s language, drawn off the event loop (rendering is CPU work)."""
    started = time.perf_counter()
    table = table_for(info)
    now = bot.store.now()
    seats, colours, clocks = seat_names(bot, info), colour_names(bot, info), times_left(w, info, now)
    result = ending_text(w, info, {**seats, **colours})
    png = await bot.drawers.draw(
        table.board_drawing(info, seats=seats, colours=colours, clocks=clocks, theme=theme, result=result, w=w)
    )
    log.debug("Rendered the board of game %d in %.1f ms", info.id, (time.perf_counter() - started) * 1e3)
    return png


def players_line(w: Words, info: GameInfo) -> str:
    if info.state.first_player_colour is None:
        first, second = info.user_for_seat("first"), info.user_for_seat("second")
        return w("board.players_seats", first=mention(first), second=mention(second))
    return w(
        "board.players_colours",
        black=mention(info.user_for_colour("black")),
        white=mention(info.user_for_colour("white")),
    )


def result_text(w: Words, info: GameInfo) -> str:
    """How the game ended, in ``w``'s language (empty while it goes on)."""
    ending = ending_phrase(info)
    return "" if ending is None else w.phrase(ending)


def turn_text(bot: VeletasBot, info: GameInfo, w: Words) -> tuple[str, int | None]:
    """The sentence saying who acts and how (or how the game ended), and the one user it may ping."""
    if info.status == "finished":
        outcome = info.outcome
        result = result_text(w, info)
        if info.aborted:
            return w(f"board.aborted_{aborted_how(info)}", who=mention(info.aborted_by)), None
        if info.no_show:
            if info.aborted_by is None:
                return w("board.no_show_both"), None
            return w("board.no_show", who=mention(info.aborted_by)), None
        if outcome is not None and outcome.is_draw:
            return w("board.drawn", result=result).strip(), None
        if info.winner_id is None:
            return w("board.nobody_wins", result=result).strip(), None
        return w("board.wins", winner=mention(info.winner_id), result=result).strip(), None
    if info.status != "active":
        return w(f"board.status_{info.status}"), None
    if info.awaiting_claim:
        # The first side did not come; the second is called to claim the game (``board_message`` words it).
        return w("board.no_show_claim", absent=mention(info.aborted_by), who=mention(info.claimant)), info.claimant
    user = info.user_to_act
    if bot.user is not None and user == bot.user.id:
        # The AI answers by itself: nobody is asked to press anything, and its board follows.
        return w("board.ai_thinking", who=mention(user)), None
    return table_for(info).turn_line(w, info, mention(user)), user


def record_ending(info: GameInfo) -> dict[str, str]:
    """Result and Termination of a game that ended off the board; the rules write those of a game ended on it."""
    outcome = info.outcome
    if outcome is None or outcome.termination in ON_THE_BOARD:
        return {}
    return {"Result": outcome.result_token, "Termination": outcome.termination}


def ending_text(w: Words, info: GameInfo, names: Mapping[str, str] | None = None) -> str | None:
    """What the last board's header says instead of the turn when the game ended off the board.

    Players are named as the header names them (``names``, by colour or seat; the colour's word for a
    side without a name), so the result reads like the one the board shows: "Bob wins · Alice resigned".
    A game ended on the board needs nothing: the board itself shows how.
    """
    outcome = info.outcome
    if outcome is None or outcome.termination in ON_THE_BOARD:
        return None
    if outcome.termination == "cancelled":
        return w("board.header_cancelled")
    named = names or {}
    if outcome.termination == "aborted":
        user = info.aborted_by
        seat = info.seat_of_user(user) if user is not None else None
        colour = info.colour_of_seat(seat) if seat is not None else None
        who = (named.get(colour) if colour else None) or (named.get(seat) if seat else None) or colour_word(w, colour)
        return w(f"board.header_aborted_{aborted_how(info)}", who=who)
    if outcome.termination == "no-show":
        absent = info.aborted_by
        if absent is None:
            return w("board.header_no_show_both")
        seat = info.seat_of_user(absent)
        colour = info.colour_of_seat(seat) if seat is not None else None
        who = (named.get(colour) if colour else None) or (named.get(seat) if seat else None) or colour_word(w, colour)
        return w("board.header_no_show", who=who)
    result = result_text(w, info)
    if outcome.winner is None:
        return w("board.header_drawn", result=result) if result else w("result.drawn")
    loser_colour: Colour = "white" if outcome.winner == "black" else "black"

    def called(colour: Colour) -> str:
        user = info.user_for_colour(colour)
        seat = info.seat_of_user(user) if user is not None else None
        return named.get(colour) or (named.get(seat) if seat else None) or colour_word(w, colour)

    winner, loser = called(outcome.winner), called(loser_colour)
    if outcome.termination == "resignation":
        return w("board.header_resigned", winner=winner, loser=loser)
    if outcome.termination == "time forfeit":
        if info.time_control.family == "none":
            return w("board.header_idle", winner=winner, loser=loser, count=round(info.time_control.start / DAY))
        return w("board.header_time", winner=winner, loser=loser)
    by = f"result.by_{outcome.termination.replace(' ', '_')}"
    return w.get(by, w("board.header_winner", winner=winner), winner=winner)


def aborted_how(info: GameInfo) -> str:
    """How an aborted game was ended, as its catalogue keys name it: ``resigned`` or ``time``."""
    return "resigned" if info.aborted_how == "resignation" else "time"


def record_headers(bot: VeletasBot, info: GameInfo) -> dict[str, str]:
    names = record_names(bot, info)
    headers = {
        "Site": "Discord",
        "Black": names["black"],
        "White": names["white"],
        "Date": info.created_at.strftime("%Y.%m.%d"),
        **record_ending(info),
    }
    if info.ai_level is not None:
        headers["AILevel"] = str(info.ai_level)
    return headers


def record_file(bot: VeletasBot, info: GameInfo) -> tuple[str, bytes]:
    """The game record; its headers stay as NOTATION.md writes them, in every language."""
    return f"{info.kind.name}-{info.id}.txt", info.state.to_record(record_headers(bot, info)).encode()


class Rematcher(Protocol):
    async def rematch(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...


class RematchButton(
    NamesAGame,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"(?P<prefix>[a-z]{2,12}):rematch:(?P<game>[0-9]+)",
):
    """Under a finished game's board: the same game again, same settings and clock, the seats swapped."""

    def __init__(self, game: GameInfo | str, game_id: int, label: str = "Rematch") -> None:
        prefix = game if isinstance(game, str) else game.kind.name
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.primary, custom_id=f"{prefix}:rematch:{game_id}")
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> RematchButton:
        return cls(match["prefix"], id_or_zero(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        challenges = cast("Rematcher | None", bot.get_cog("Challenges"))
        if challenges is not None:
            await bot.guard(interaction, challenges.rematch(interaction, self.game_id))


class Reviewing(Protocol):
    async def review_game(self, interaction: discord.Interaction[Any], game_id: int | None) -> None: ...


REVIEW_PREFIX = "review"


class ReviewButton(
    NamesAGame,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{REVIEW_PREFIX}:(?P<game>[0-9]+)",
):
    """Under a finished game's board: the AI's review of the game (``cogs.review``), posted in its channel."""

    def __init__(self, game_id: int, label: str = "Review") -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.secondary, emoji="📈", custom_id=f"{REVIEW_PREFIX}:{game_id}"
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReviewButton:
        return cls(id_or_zero(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        reviews = cast("Reviewing | None", bot.get_cog("Review"))
        if reviews is not None:
            await bot.guard(interaction, reviews.review_game(interaction, self.game_id))


class Disputer(Protocol):
    async def dispute_pressed(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...


DISPUTE_PREFIX = "tdispute"


class DisputeButton(
    NamesAGame,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{DISPUTE_PREFIX}:(?P<game>[0-9]+)",
):
    """Under a finished tournament game's board, while its dispute window is open: either player flags its result
    for the organisers (the tournament cog asks for a reason)."""

    def __init__(self, game_id: int, label: str = "Dispute result") -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.secondary, emoji="⚖️", custom_id=f"{DISPUTE_PREFIX}:{game_id}"
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> DisputeButton:
        return cls(id_or_zero(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        tournaments = cast("Disputer | None", bot.get_cog("Tournaments"))
        if tournaments is not None:
            await bot.guard(interaction, tournaments.dispute_pressed(interaction, self.game_id))


class Claimer(Protocol):
    async def claim_pressed(self, interaction: discord.Interaction[Any], game_id: int, version: int) -> None: ...


CLAIM_PREFIX = "noshow"


class ClaimButton(
    NamesAGame,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{CLAIM_PREFIX}:claim:(?P<game>[0-9]+):v(?P<version>[0-9]+)",
):
    """Under the board of a game whose first side let its first-move window pass: the second side ends it as that
    side's no-show (in a tournament, a forfeit win). The custom id carries the game and the version it was made for."""

    def __init__(self, game_id: int, version: int, label: str = "Claim") -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.success, custom_id=f"{CLAIM_PREFIX}:claim:{game_id}:v{version}"
            )
        )
        self.game_id, self.version = game_id, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ClaimButton:
        return cls(id_or_zero(match["game"]), id_or_zero(match["version"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        clocks = cast("Claimer | None", bot.get_cog("Clocks"))
        if clocks is not None:
            await bot.guard(interaction, clocks.claim_pressed(interaction, self.game_id, self.version))


class BoardLauncher(Protocol):
    async def play_on_the_board(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...


PLAY_PREFIX = "board"


class PlayButton(
    NamesAGame,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PLAY_PREFIX}:play:(?P<game>[0-9]+)",
):
    """Under every board, when the board page is set up as an Activity: opens the page inside Discord for this
    game (``cogs.board_page``), or, where Discord cannot open it, answers with a personal link."""

    def __init__(self, game_id: int, label: str = "Play on the board") -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.secondary, emoji="🎮", custom_id=f"{PLAY_PREFIX}:play:{game_id}"
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PlayButton:
        return cls(id_or_zero(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        page = cast("BoardLauncher | None", bot.get_cog("Board page"))
        if page is not None:
            await bot.guard(interaction, page.play_on_the_board(interaction, self.game_id))


def _with_play(view: discord.ui.View | None, w: Words, info: GameInfo, play: bool) -> discord.ui.View | None:
    """``view`` with the "Play on the board" button added when ``play`` (and there is room), else as it is."""
    if not play:
        return view
    view = view if view is not None else discord.ui.View(timeout=None)
    if len(view.children) < 25:
        view.add_item(PlayButton(info.id, w("board.play.label")))
    return view


def board_view(
    w: Words,
    info: GameInfo,
    *,
    rematch: bool = True,
    disputable: bool = False,
    tournament: bool = False,
    play: bool = False,
) -> discord.ui.View | None:
    """The buttons a board offers in its phase; all are dynamic items, so old boards work after a restart.

    ``rematch``: a finished game offers to be played again (not a tournament's pairing, played once);
    ``disputable``: a finished tournament game offers its players to dispute its result (within its window);
    a game whose first side did not come offers its second side to claim it (``tournament``: as a forfeit win);
    ``play``: the board page is set up as an Activity, and every board in play or finished offers it.
    """
    if info.status not in ("active", "finished") and not info.awaiting_claim:
        return None
    view = _phase_view(w, info, rematch=rematch, disputable=disputable, tournament=tournament)
    return _with_play(view, w, info, play)


def _phase_view(
    w: Words, info: GameInfo, *, rematch: bool, disputable: bool, tournament: bool
) -> discord.ui.View | None:
    if info.awaiting_claim:
        view = discord.ui.View(timeout=None)
        label = w("board.claim_win.label" if tournament else "board.claim_end.label")
        view.add_item(ClaimButton(info.id, info.version, label))
        return view
    if info.status == "finished":
        # A finished game the AI can judge can be reviewed; a tournament's offers its dispute while the window is
        # open, any other game a rematch.
        view = discord.ui.View(timeout=None)
        if disputable:
            view.add_item(DisputeButton(info.id, w("dispute.button.label")))
        elif rematch:
            view.add_item(RematchButton(info, info.id, w("board.rematch.label")))
        if info.kind.name in REVIEWED:
            view.add_item(ReviewButton(info.id, w("board.review.label")))
        return view if view.children else None
    if info.status != "active":
        return None
    items = table_for(info).board_items(w, info)
    if not items:
        return None
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def embed_colour(colour: Colour | None) -> discord.Colour:
    if colour == "black":
        return BLACK_EMBED
    if colour == "white":
        return WHITE_EMBED
    return NEUTRAL_EMBED


async def board_message(
    bot: VeletasBot, info: GameInfo, *, note: str | None = None, viewer: int | None = None, w: Words | None = None
) -> Outgoing:
    """The message after every turn: whose turn, the last turn, the game's own fields, image, buttons.

    The image is drawn in ``viewer``'s theme when given (a board asked for privately), else in
    the theme of the player the public board is mostly for (``board_viewer``). Words are ``w``'s
    (a private board: the member's language), else the server's (a public board).
    """
    table = table_for(info)
    state = info.state
    w = w or await public_words(bot, info.guild_id)
    await learn_names(bot, info)
    theme = await theme_of(bot, viewer if viewer is not None else board_viewer(bot, info))
    png = await render_board(bot, info, theme=theme, w=w)
    line, ping = turn_text(bot, info, w)
    embed = discord.Embed(
        title=f"{table.label(info)} · {table.settings_text(w, info.settings)}",
        description=line,
        colour=embed_colour(state.colour_to_act),
    )
    embed.add_field(name=w("board.players.field"), value=players_line(w, info), inline=False)
    if state.turns:
        embed.add_field(name=w("board.last_turn.field"), value=f"`{state.turns[-1]}`", inline=True)
    for name, value, inline in table.fields(w, info):
        embed.add_field(name=name, value=value, inline=inline)
    clock = clock_text(w, info, bot.store.now())
    if clock is not None:
        embed.add_field(name=w("board.clock.field"), value=clock, inline=False)
    if info.status == "finished" and info.rated:
        changes = [c for c in await bot.store.rating_changes(info.id) if c.scope == info.guild_id]
        if changes:
            embed.add_field(
                name=w("board.ratings.field"), value=" · ".join(f"{mention(c.user_id)} {c.text}" for c in changes)
            )
    embed.set_image(url=f"attachment://{BOARD_FILE}")
    moves = table.moves_played(info)
    if info.status == "active":
        embed.set_footer(text=w("board.move_number", number=moves + 1))
    else:
        embed.set_footer(text=w("board.game_over_after", count=moves))
    files: list[tuple[str, bytes]] = [(BOARD_FILE, png)]
    if info.status == "finished":
        files.append(record_file(bot, info))
    content = note
    dm: int | None = None
    calls = ping
    in_tournament = (info.status == "finished" or info.awaiting_claim) and await bot.store.in_tournament(info.id)
    if ping is not None:
        if info.awaiting_claim:
            call = w("board.claim_call_tournament" if in_tournament else "board.claim_call", who=mention(ping))
        else:
            call = w("board.your_turn", who=mention(ping))
        content = call if note is None else f"{note}\n{call}"
        prefs = await bot.store.get_notify(ping)
        dm = ping if prefs.wants_dm else None
        ping = ping if prefs.wants_ping else None
    return Outgoing(
        content=content,
        embed=embed,
        files=files,
        view=board_view(
            w,
            info,
            rematch=info.status != "finished" or not in_tournament,
            disputable=info.status == "finished" and await bot.store.disputable(info.id),
            tournament=in_tournament,
            play=bot.settings.activity_configured,
        ),
        mention=ping,
        info=info,
        dm=dm,
        calls=calls,
    )


__all__ = [
    "BOARD_FILE",
    "ClaimButton",
    "DisputeButton",
    "PlayButton",
    "board_message",
    "board_view",
    "board_viewer",
    "colour_word",
    "embed_colour",
    "ending_text",
    "name_of",
    "players_line",
    "record_ending",
    "record_file",
    "record_headers",
    "render_board",
    "theme_of",
    "turn_text",
]
