"""What the bot posts about a game, shared by every feature: the board message and answering in time.

Not an extension. Every feature that changes a game ends by posting the same board message, so
its wording, its single allowed mention and its buttons are decided here once.
"""

from __future__ import annotations

import asyncio
import io
import logging
import time
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import discord

from bot import render
from bot.errors import GameFinished, RaceLost, UserError
from bot.rules import Game, Move, Position
from bot.store import GameInfo

if TYPE_CHECKING:
    from bot.client import VeletasBot

log = logging.getLogger(__name__)

BOARD_FILE = "board.png"
# Work that is not done this long after the interaction was created is deferred, leaving Discord's
# 3-second window plenty of margin. The time counts from the creation (the interaction's id), not
# from when the handler got to run, and the event loop's current lateness is taken off as well.
DEFER_AFTER = 1.2
# Pauses between attempts to post a board nobody has seen yet (Discord failing, rate limits).
RETRY_DELAYS: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)
# The embed's side bar: Black's is a slate grey, not black, because a near-black bar vanishes on
# Discord's dark theme; this one keeps 3:1 contrast (WCAG, graphics) on its dark and light backgrounds.
BLACK_EMBED = discord.Colour.from_rgb(130, 132, 140)
WHITE_EMBED = discord.Colour.from_rgb(235, 235, 230)
NEUTRAL_EMBED = discord.Colour.from_rgb(196, 160, 98)
# Boards for players who never chose a theme (``/veletas theme``) use the renderer's own default.
DEFAULT_THEME = "light"


def bot_of(interaction: discord.Interaction[Any]) -> VeletasBot:
    return cast("VeletasBot", interaction.client)


@dataclass
class Outgoing:
    """One message to send or edit; files are bytes so the same message can be sent more than once."""

    content: str | None = None
    embed: discord.Embed | None = None
    files: Sequence[tuple[str, bytes]] = ()
    view: discord.ui.View | None = None
    mention: int | None = None
    info: GameInfo | None = None  # the game state the message shows, for what follows the answer

    def allowed_mentions(self) -> discord.AllowedMentions:
        """Only the player to move may be pinged, never anyone named in user-typed text."""
        if self.mention is None:
            return discord.AllowedMentions.none()
        return discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(self.mention)])

    def discord_files(self) -> list[discord.File]:
        return [discord.File(io.BytesIO(data), filename=name) for name, data in self.files]


async def send_response(interaction: discord.Interaction[Any], out: Outgoing, *, ephemeral: bool = False) -> int | None:
    """Answer an interaction with a new message (or the followup after a defer); returns its id."""
    kwargs: dict[str, Any] = {
        "content": out.content,
        "allowed_mentions": out.allowed_mentions(),
        "ephemeral": ephemeral,
        "files": out.discord_files(),
    }
    if out.embed is not None:
        kwargs["embed"] = out.embed
    if out.view is not None:
        kwargs["view"] = out.view
    if interaction.response.is_done():
        interaction.extras["deferred_public"] = False
        message = await interaction.followup.send(wait=True, **kwargs)
        return message.id
    callback = await interaction.response.send_message(**kwargs)
    return callback.message_id


async def update_message(interaction: discord.Interaction[Any], out: Outgoing) -> None:
    """Replace the message a component sits on (the private steps of the guided move)."""
    await interaction.response.edit_message(
        content=out.content,
        embed=out.embed,
        attachments=out.discord_files(),
        view=out.view,
        allowed_mentions=out.allowed_mentions(),
    )


async def send_to_channel(bot: VeletasBot, channel_id: int, out: Outgoing) -> int:
    """Post outside any interaction (an AI move, an expired challenge); the channel need not be cached."""
    channel = bot.get_partial_messageable(channel_id)
    kwargs: dict[str, Any] = {"content": out.content, "allowed_mentions": out.allowed_mentions()}
    if out.embed is not None:
        kwargs["embed"] = out.embed
    if out.view is not None:
        kwargs["view"] = out.view
    files = out.discord_files()
    if files:
        kwargs["files"] = files
    message = await channel.send(**kwargs)
    return message.id


def interaction_age(interaction: discord.Interaction[Any]) -> float:
    """Seconds since Discord created the interaction (its id carries the moment), as this machine's clock sees it."""
    return (discord.utils.utcnow() - interaction.created_at).total_seconds()


def defer_delay(interaction: discord.Interaction[Any]) -> float:
    """How long work may run before the answer is deferred: none at all when the bot is already late.

    Discord's 3 seconds run from the interaction's creation, not from when the handler got to run;
    a busy bot starts handlers late and fires timers late. So the wait is what is left of
    ``DEFER_AFTER`` since the creation, less how late the event loop runs now: an interaction that
    waited, or a loop that lags, is deferred at once instead of hoping a late timer still fires in time.
    """
    age = max(0.0, interaction_age(interaction))
    return max(0.0, DEFER_AFTER - age - bot_of(interaction).loop_lag)


async def _finish_then_raise(task: asyncio.Future[Outgoing], exc: BaseException) -> None:
    """The deferral failed (the interaction expired): let the work finish, so what it stored can be announced."""
    try:
        await task
    except Exception:
        log.debug("Work behind a failed deferral also failed", exc_info=True)
    raise exc


async def respond(
    interaction: discord.Interaction[Any], work: Awaitable[Outgoing], *, ephemeral: bool = False
) -> tuple[int | None, Outgoing]:
    """Answer with a new message holding what ``work`` produces, deferring first if it is slow.

    Most work (a database write and a render) takes milliseconds, so the common case is a single
    callback carrying the board; only work not ready well within Discord's 3 seconds pays for the
    extra deferral round trip. ``work`` includes the store calls, because a database waiting on
    another writer is as slow as any render. If the deferral fails, the work still runs to its end
    before the failure is raised, so a turn it stored is never left half-handled.
    """
    task = asyncio.ensure_future(work)
    delay = defer_delay(interaction)
    if delay > 0:
        await asyncio.wait({task}, timeout=delay)
    if not task.done():
        try:
            await interaction.response.defer(thinking=True, ephemeral=ephemeral)
        except discord.HTTPException as exc:
            await _finish_then_raise(task, exc)
        interaction.extras["deferred_public"] = not ephemeral
    out = await task
    return await send_response(interaction, out, ephemeral=ephemeral), out


async def respond_update(interaction: discord.Interaction[Any], work: Awaitable[Outgoing]) -> Outgoing:
    """Replace the message a component sits on with what ``work`` produces, deferring if it is slow."""
    task = asyncio.ensure_future(work)
    delay = defer_delay(interaction)
    if delay > 0:
        await asyncio.wait({task}, timeout=delay)
    if not task.done():
        try:
            await interaction.response.defer()
        except discord.HTTPException as exc:
            await _finish_then_raise(task, exc)
    out = await task
    if not interaction.response.is_done():
        await update_message(interaction, out)
        return out
    await interaction.edit_original_response(
        content=out.content,
        embed=out.embed,
        attachments=out.discord_files(),
        view=out.view,
        allowed_mentions=out.allowed_mentions(),
    )
    return out


def colour_word(colour: str | None) -> str:
    return colour.capitalize() if colour else "?"


def mention(user_id: int | None) -> str:
    return f"<@{user_id}>" if user_id is not None else "nobody yet"


async def theme_of(bot: VeletasBot, user_id: int | None) -> str:
    """The theme a player chose for the boards drawn for them; the default for anyone else (and the AI)."""
    if user_id is None or (bot.user is not None and user_id == bot.user.id):
        return DEFAULT_THEME
    return await bot.store.get_theme(user_id) or DEFAULT_THEME


def board_viewer(bot: VeletasBot, info: GameInfo) -> int | None:
    """Whose theme the public board is drawn in: the player to act, who studies it most.

    When the AI is to act, or nobody is (the game is over), the human who looks at it next: the
    winner if human, else the first human participant.
    """
    me = bot.user.id if bot.user is not None else None
    candidates = [info.user_to_act if info.status == "active" else info.winner_id, *info.participants]
    return next((user for user in candidates if user is not None and user != me), None)


async def render_position(
    position: Position,
    *,
    last_move: Move | None = None,
    hints: render.Hints | None = None,
    players: Mapping[str, str] | None = None,
    theme: str = DEFAULT_THEME,
) -> bytes:
    """Rendering is CPU work, so it never runs on the event loop."""
    started = time.perf_counter()
    png = await asyncio.to_thread(
        render.board_png, position, last_move=last_move, hints=hints, players=players, theme=theme
    )
    log.debug("Rendered a position in %.1f ms", (time.perf_counter() - started) * 1e3)
    return png


async def render_game(
    game: Game,
    *,
    players: Mapping[str, str] | None = None,
    theme: str = DEFAULT_THEME,
    result: str | None = None,
) -> bytes:
    """The board of a game in any phase, off the event loop.

    Setup and the pie choice need the game (setup marks, pieces just placed); from the first move
    on, the position and last move say everything, and drawing just them skips replaying the game.
    ``result`` replaces the turn in the header of a game that ended off the board.
    """
    started = time.perf_counter()
    if game.phase in ("play", "over"):
        names = colour_names(game, players or {})
        png = await asyncio.to_thread(
            render.board_png, game.position, last_move=game.last_move, players=names, theme=theme, result=result
        )
    else:
        png = await asyncio.to_thread(render.game_png, game, players=players, theme=theme, result=result)
    log.debug("Rendered game board in %.1f ms", (time.perf_counter() - started) * 1e3)
    return png


def colour_names(game: Game, seats: Mapping[str, str]) -> dict[str, str]:
    """Names keyed by colour, as the position renderer wants them, once the pie choice fixed the colours."""
    first = game.first_player_colour
    if first is None:
        return {}
    other = "white" if first == "black" else "black"
    return {first: seats.get("first", first.title()), other: seats.get("second", other.title())}


def name_of(bot: VeletasBot, user_id: int | None) -> str:
    if user_id is None:
        return "?"
    if bot.user is not None and user_id == bot.user.id:
        return bot.user.display_name
    known = bot.names.get(user_id)
    if known is not None:
        return known
    user = bot.get_user(user_id)
    return user.display_name if user is not None else f"player {str(user_id)[-4:]}"


async def learn_names(bot: VeletasBot, info: GameInfo) -> None:
    """Look up the players this process has not heard from yet, so images and records show their names.

    Without the members intent, names are learnt from interactions; after a restart the player who
    is not acting would otherwise appear as "player 1234" until they act. One lookup per player
    per process: a failed one is remembered as the fallback name, which their next interaction replaces.
    """
    me = bot.user.id if bot.user is not None else None
    for user_id in info.participants:
        if user_id == me or user_id in bot.names:
            continue
        name = f"player {str(user_id)[-4:]}"
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
    """Names by seat, which the renderer maps to colours once the pie choice fixed them."""
    return {"first": name_of(bot, info.user_for_seat("first")), "second": name_of(bot, info.user_for_seat("second"))}


def players_line(info: GameInfo) -> str:
    game = info.game
    first, second = info.user_for_seat("first"), info.user_for_seat("second")
    if game.first_player_colour is None:
        return f"First player {mention(first)} · second player {mention(second)}"
    return f"Black {mention(info.user_for_colour('black'))} · White {mention(info.user_for_colour('white'))}"


def turn_text(bot: VeletasBot, info: GameInfo) -> tuple[str, int | None]:
    """The sentence saying who acts and how, and the one user that sentence may ping."""
    game = info.game
    if info.status == "finished":
        winner = mention(info.winner_id) if info.winner_id is not None else "Nobody"
        return f"**{winner} wins.** {info.result or ''}".strip(), None
    if info.status != "active":
        return f"This game is {info.status}.", None
    user = info.user_to_act
    ping = None if bot.user is not None and user == bot.user.id else user
    who = mention(user)
    if game.phase == "setup":
        count = game.shooters_to_place
        pieces = f"{count} shooter{'s' if count != 1 else ''}"
        if game.stone_to_place:
            pieces += " and one stone"
        colour = f" ({colour_word(game.colour_to_act)})" if game.colour_to_act else ""
        return (
            f"{who}{colour}: place {pieces} with `/veletas setup`. Shooters may not go on the hatched squares.",
            ping,
        )
    if game.phase == "pie":
        first = mention(info.user_for_seat("first"))
        return (
            f"{who}: choose colours. **Keep**: {first} stays Black and you play White. "
            f"**Swap**: you play Black and {first} plays White. Use the buttons or `/veletas pie`.",
            ping,
        )
    return (
        f"{who} to move as {colour_word(game.colour_to_act)}: press **Move**, or type `/veletas move`.",
        ping,
    )


def score_text(position: Position) -> str:
    black, white = position.score
    return f"Black {black} · White {white} (first to {position.needed_to_win})"


def claims_text(position: Position) -> str | None:
    claims = position.last_claims
    if not claims:
        return None
    return "\n".join(
        f"{claim.square} → **{colour_word(claim.colour)}** (adjacent groups: black {claim.black_group}, "
        f"white {claim.white_group})"
        for claim in claims
    )


def record_headers(bot: VeletasBot, info: GameInfo) -> dict[str, str]:
    game = info.game
    if game.first_player_colour is not None:
        black, white = name_of(bot, info.user_for_colour("black")), name_of(bot, info.user_for_colour("white"))
    else:
        black, white = name_of(bot, info.user_for_seat("first")), name_of(bot, info.user_for_seat("second"))
    headers = {
        "Site": "Discord",
        "Black": black,
        "White": white,
        "Date": info.created_at.strftime("%Y.%m.%d"),
        **record_ending(info),
    }
    if info.ai_level is not None:
        headers["AILevel"] = str(info.ai_level)
    return headers


def record_ending(info: GameInfo) -> dict[str, str]:
    """Result and Termination of a game that ended off the board; the rules write those of a game won on it.

    A finished game the rules do not see as over was resigned, the only ending off the board so far.
    Before the pie choice the first player is Black in the record, as its headers name the seats.
    """
    if info.status == "cancelled":
        return {"Result": "*", "Termination": "cancelled"}
    if info.status != "finished" or info.winner_id is None or info.game.winner is not None:
        return {}
    colour = info.colour_of_user(info.winner_id) or (
        "black" if info.seat_of_user(info.winner_id) == "first" else "white"
    )
    return {"Result": "1-0" if colour == "black" else "0-1", "Termination": "resignation"}


def ending_text(info: GameInfo) -> str | None:
    """What the last board's header says instead of the turn when the game ended off the board.

    A game won on the board needs nothing: the board itself shows the claims that won it.
    """
    ending = record_ending(info)
    if not ending:
        return None
    if ending["Termination"] == "cancelled":
        return "Game cancelled"
    winner = "Black" if ending["Result"] == "1-0" else "White"
    return f"{winner} wins · {info.result}" if info.result else f"{winner} wins"


def record_file(bot: VeletasBot, info: GameInfo) -> tuple[str, bytes]:
    return f"veletas-{info.id}.txt", info.game.to_record(record_headers(bot, info)).encode()


def board_view(info: GameInfo) -> discord.ui.View | None:
    """The buttons a board offers in its phase; all are dynamic items, so old boards work after a restart."""
    from cogs.guided import MoveButton
    from cogs.play import PieButton

    if info.status != "active":
        return None
    game = info.game
    view = discord.ui.View(timeout=None)
    if game.phase == "pie":
        view.add_item(PieButton(info.id, info.version, "keep"))
        view.add_item(PieButton(info.id, info.version, "swap"))
    elif game.phase == "play":
        view.add_item(MoveButton(info.id))
    else:
        return None
    return view


def embed_colour(game: Game) -> discord.Colour:
    colour = game.colour_to_act
    if colour == "black":
        return BLACK_EMBED
    if colour == "white":
        return WHITE_EMBED
    return NEUTRAL_EMBED


async def board_message(
    bot: VeletasBot, info: GameInfo, *, note: str | None = None, viewer: int | None = None
) -> Outgoing:
    """The message after every turn: whose turn, the last turn, claims, score, image, buttons.

    The image is drawn in ``viewer``'s theme when given (a board asked for privately), else in
    the theme of the player the public board is mostly for (``board_viewer``).
    """
    game = info.game
    position = game.position
    await learn_names(bot, info)
    theme = await theme_of(bot, viewer if viewer is not None else board_viewer(bot, info))
    png = await render_game(game, players=seat_names(bot, info), theme=theme, result=ending_text(info))
    line, ping = turn_text(bot, info)
    embed = discord.Embed(
        title=f"Veletas #{info.id} · {game.variant.name} board · {game.rules} rules",
        description=line,
        colour=embed_colour(game),
    )
    embed.add_field(name="Players", value=players_line(info), inline=False)
    if game.turns:
        embed.add_field(name="Last turn", value=f"`{game.turns[-1]}`", inline=True)
    if game.phase in ("play", "over"):
        embed.add_field(name="Score", value=score_text(position), inline=True)
        claims = claims_text(position)
        if claims:
            embed.add_field(name="Claimed this turn", value=claims, inline=False)
    embed.set_image(url=f"attachment://{BOARD_FILE}")
    embed.set_footer(text=f"Turn {len(game.turns) + 1}" if info.status == "active" else "Game over")
    files: list[tuple[str, bytes]] = [(BOARD_FILE, png)]
    if info.status == "finished":
        files.append(record_file(bot, info))
    content = note
    if ping is not None:
        content = f"{mention(ping)}, your turn." if note is None else f"{note}\n{mention(ping)}, your turn."
    return Outgoing(content=content, embed=embed, files=files, view=board_view(info), mention=ping, info=info)


async def after_board_posted(bot: VeletasBot, info: GameInfo, message_id: int | None) -> None:
    """Remember the newest board (and which version of the game it shows), then let the AI act if it is its turn."""
    if message_id is not None:
        await bot.store.mark_posted(info.id, info.version, message_id)
    hand_to_ai(bot, info)


def reply_failed(bot: VeletasBot, game_id: int, exc: discord.HTTPException) -> None:
    """Answering the interaction failed (it expired, Discord failed): whatever was stored is posted to the channel.

    The post runs in the background with retries, and the AI's turn follows from what is stored,
    not from the failed answer.
    """
    log.warning(
        "Could not answer an interaction about game %d (%s %s); posting its board instead",
        game_id,
        exc.status,
        exc.code,
    )
    bot.spawn(resume(bot, game_id), name=f"resume-{game_id}")


async def resume(bot: VeletasBot, game_id: int) -> None:
    """The AI's turn first (it must not wait for a post that may be retried for minutes), then the board."""
    hand_to_ai(bot, await bot.store.get_game(game_id))
    await announce(bot, game_id)


async def deliver(bot: VeletasBot, game_id: int, answer: Awaitable[tuple[int | None, Outgoing]]) -> None:
    """Run an answer that shows a game's new board; whatever happens to the answer, the board gets out.

    When the answer fails after the change was stored (the interaction expired, Discord failed), the
    board is posted to the game's channel instead and the AI plays on; a failure before anything was
    stored leaves nothing to post. Refusals (``UserError``) propagate to the error handler as always.
    """
    # While the answer is on its way, a sweep must not post the same board to the channel as well.
    bot.replying[game_id] += 1
    try:
        message_id, out = await answer
    except discord.HTTPException as exc:
        failed: discord.HTTPException | None = exc
    except UserError:
        raise
    except Exception:
        bot.spawn(resume(bot, game_id), name=f"resume-{game_id}")
        raise
    else:
        failed = None
        if out.info is not None:
            await after_board_posted(bot, out.info, message_id)
    finally:
        bot.replying[game_id] -= 1
        if bot.replying[game_id] <= 0:
            del bot.replying[game_id]
    if failed is not None:
        reply_failed(bot, game_id, failed)


def board_lock(bot: VeletasBot, game_id: int) -> asyncio.Lock:
    """One poster per game at a time, so boards of one game are posted in order and never twice."""
    lock = bot.board_locks.get(game_id)
    if lock is None:
        lock = asyncio.Lock()
        bot.board_locks[game_id] = lock
    return lock


async def post_unannounced(bot: VeletasBot, game_id: int, *, swept: bool = False) -> bool:
    """Post the board of a stored change that no posted board shows yet; True once nothing is left to post.

    Failures are retried with growing pauses (``RETRY_DELAYS``); a channel that refuses for good
    (403, 404) is given up at once, and after the last pause this round gives up (the next start-up
    or background sweep tries again). Each attempt posts the newest stored state, so a board is never
    posted for a position that has since changed. A ``swept`` game (found by ``sweep``, not known to
    be unannounced) is left alone while an answer about it is on its way: that answer posts its board.
    """
    async with board_lock(bot, game_id):
        failures = 0
        while True:
            if swept and bot.replying.get(game_id):
                return True
            info = await bot.store.get_game(game_id)
            if not info.unannounced or info.status not in ("active", "finished"):
                return True
            try:
                out = await board_message(bot, info)
                message_id = await send_to_channel(bot, info.channel_id, out)
            except (discord.Forbidden, discord.NotFound) as exc:
                log.warning(
                    "Game %d: channel %d refuses its board for good (%s); not retrying",
                    game_id,
                    info.channel_id,
                    exc.status,
                )
                await bot.store.give_up_posting(game_id, info.board_version)
                return False
            except (discord.HTTPException, OSError) as exc:
                if failures >= len(RETRY_DELAYS):
                    log.error("Game %d: could not post its board after %d attempts (%s)", game_id, failures + 1, exc)
                    return False
                log.warning(
                    "Game %d: posting its board failed (%s); retrying in %.0f s", game_id, exc, RETRY_DELAYS[failures]
                )
                await asyncio.sleep(RETRY_DELAYS[failures])
                failures += 1
                continue
            await bot.store.mark_posted(game_id, info.version, message_id)
            failures = 0


async def announce(bot: VeletasBot, game_id: int, *, swept: bool = False) -> None:
    """Post what players were not told of, then hand the turn to the AI if the stored game waits for it."""
    await post_unannounced(bot, game_id, swept=swept)
    hand_to_ai(bot, await bot.store.get_game(game_id))


async def sweep(bot: VeletasBot) -> int:
    """After a start (or in the background): post every unannounced change, resume every AI turn owed.

    Returns how many games needed something.
    """
    pending = await bot.store.unannounced_games()
    for info in pending:
        # A change whose answer is on its way, or whose board is being posted, is not lost: leave it.
        if info.id not in bot.board_locks and not bot.replying.get(info.id):
            bot.spawn(announce(bot, info.id, swept=True), name=f"announce-{info.id}")
    waiting = []
    if bot.ai is not None and bot.user is not None:
        waiting = [info for info in await bot.store.games_with_player(bot.user.id) if ai_to_act(bot, info)]
        for info in waiting:
            hand_to_ai(bot, info)
    if pending or waiting:
        log.info("Sweep: %d board(s) to post, %d AI turn(s) to resume", len(pending), len(waiting))
    return len(pending) + len(waiting)


def ai_to_act(bot: VeletasBot, info: GameInfo) -> bool:
    return info.status == "active" and bot.ai is not None and bot.user is not None and info.user_to_act == bot.user.id


def hand_to_ai(bot: VeletasBot, info: GameInfo) -> None:
    """Start the AI's turn in the background when the game waits for it (at most one per game at a time)."""
    if not ai_to_act(bot, info):
        return
    if info.id in bot.ai_thinking:
        # The running turn may have read the game just before this change: it looks again before stopping.
        bot.ai_look_again.add(info.id)
        return
    bot.ai_thinking.add(info.id)
    bot.spawn(ai_turn(bot, info.id), name=f"ai-turn-{info.id}-{info.version}")


AI_FAILED = (
    "I could not find my move just now, sorry. Use `/veletas board` to post the board again and I will try once more."
)


async def ai_turn(bot: VeletasBot, game_id: int) -> None:
    """Play the AI's turns while the stored game waits for it, posting each board like any other turn.

    Each search is for one version of the game, and its answer lands only if the game is still at
    that version: an undo and a replay at the same ply (a different position) is a new version, so
    the stale answer is dropped and the AI looks again at what is stored now. The next turn follows
    from the store, never from whether a board post worked. If the AI fails even after its pool
    replaced a bad worker, the players are told how to ask again (``/veletas board`` hands the turn
    back to the AI).
    """
    assert bot.ai is not None and bot.user is not None
    try:
        while True:
            bot.ai_look_again.discard(game_id)
            info = await bot.store.get_game(game_id)
            if not ai_to_act(bot, info):
                if game_id in bot.ai_look_again:
                    continue
                return
            try:
                text = await bot.ai.choose_turn(info.game, info.ai_level or 3)
                # The stamp orders this change among players' interactions; never below the last change's.
                stamp = max(discord.utils.time_snowflake(discord.utils.utcnow()), info.changed_stamp + 1)
                await bot.store.play(game_id, bot.user.id, text, expected_version=info.version, stamp=stamp)
            except (RaceLost, GameFinished):
                # Taken back, replayed, resigned or cancelled while the AI thought: look again.
                log.info("AI turn for game %d at version %d is out of date; dropped", game_id, info.version)
                continue
            except Exception:
                log.exception("The AI failed to play in game %d at version %d", game_id, info.version)
                await send_to_channel(bot, info.channel_id, Outgoing(content=AI_FAILED))
                return
            await post_unannounced(bot, game_id)
    finally:
        bot.ai_thinking.discard(game_id)
        bot.ai_look_again.discard(game_id)
