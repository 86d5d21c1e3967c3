"""``/veletas puzzle`` and ``/veloop puzzle``: the server's daily puzzle and the next ones, played privately.

The answer is private: the puzzle's position in the member's theme, what to do, where it came from (a finished game of
this server, with its players and a link; never another server's), the member's puzzle rating and streak, and buttons:
Type a move (a modal with the notation), Next puzzle, Leaderboard, and once solved Share (the one public post: the
solved puzzle with the member's result). A turn is judged and kept by the store (``bot.store.puzzle_play``) in one
transaction; the same private message is edited after each turn (a modal's submit or a button's click is a fresh
interaction, so the 15-minute life of the first answer's token never matters). A right turn shows the defender's reply
at once; the last one shows the rating change and streak; a wrong one says so, shows the solution's turn and the
refutation (the defender's answer to the wrong turn, asked of the AI in its workers, when there is one). A turn the
rules refuse is refused privately and changes nothing.

When the board page's server runs (``BOARD_PORT``; the local table always runs it) where members can reach it (at
``BOARD_PUBLIC_URL``, or on loopback), an open attempt also offers Solve on the board: the private message is edited
to the attempt as it stands with the member's own link to the board page (a puzzle session,
``bot.board.sessions.mint_puzzle``), where the member's clicks are played through the same store path. Back in
Discord, the same button shows the attempt as it stands then: still open (with a fresh link), or how it ended on the
page; the other buttons act on the stored attempt too, so they never play into a stale position.

Every custom id carries the attempt (or the game): a button or modal of someone else's attempt is refused privately
by the store's check, nothing in memory is needed, and a puzzle opened before a restart still plays.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import logging
import re
from collections.abc import Mapping
from typing import Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot import render
from bot.board.context import BoardContext
from bot.board.sessions import SESSION_SECONDS, mint_puzzle
from bot.client import VeletasBot
from bot.errors import InvalidMove, NoGameHere, UserError
from bot.i18n import Words
from bot.ids import id_or_zero
from bot.puzzles.play import replay, solver
from bot.puzzles.values import Puzzle
from bot.ratings import Change, PoolKey, Rating
from bot.render.workers import Drawing
from bot.rules.protocol import GameState, IllegalMove
from bot.store.puzzle_play import LEADERBOARD_MINIMUM, Attempt, PuzzleTurn, Standing
from cogs._ai_pool import AnalysisRefused, Refuter
from cogs._board import theme_of
from cogs._leaderboard import PAGE, left_the_server
from cogs._send import Outgoing, bot_of, jump_link, mention, respond, respond_update
from cogs._tables import TABLES, table_for
from cogs._words import private_words, public_words

log = logging.getLogger(__name__)

PUZZLE_FILE = "puzzle.png"
MOVE_FIELD = "move"
MAX_TYPED = 40
REFUTATION_LEVEL = 3
REFUTATION_SECONDS = 20.0
"""How long a wrong turn's answer waits for the AI's refutation before it is shown without one."""

MOVE_MODAL = re.compile(r"pz:move:(?P<attempt>[0-9]+)")


def task_line(w: Words, puzzle: Puzzle) -> str:
    """``Black to move: confine in 2`` in the member's language."""
    return w(
        f"puzzle.task.{puzzle.goal}",
        colour=w(f"result.{solver(puzzle)}"),
        count=puzzle.solver_turns,
    )


def standing_line(w: Words, standing: Standing) -> str:
    return w("puzzle.standing", rating=standing.rating.shown, streak=standing.streak, best=standing.best_streak)


def rating_change(before: Rating, after: Rating) -> str:
    """``1500 → 1680 (+180)``, as the games' rating changes are written."""
    return Change(PoolKey(0, "", ""), 0, before, after).text


async def provenance(bot: VeletasBot, guild_id: int, w: Words, puzzle: Puzzle) -> str | None:
    """Where the puzzle came from, only for a finished game of this server: the game, its players, a link."""
    if puzzle.source_game_id is None or puzzle.guild_id != guild_id:
        return None
    try:
        info = await bot.store.get_game(puzzle.source_game_id)
    except NoGameHere:
        return None
    if info.guild_id != guild_id or info.status != "finished":
        return None
    return w(
        "puzzle.from_game",
        game=f"{info.kind.title} #{info.id}",
        first=mention(info.challenger_id),
        second=mention(info.opponent_id),
        link=jump_link(info),
    )


async def draw(bot: VeletasBot, user_id: int, state: GameState, w: Words) -> bytes:
    """The position (its last turn marked) in the member's theme, drawn off the event loop."""
    theme = await theme_of(bot, user_id)
    players = {"black": w("render.black"), "white": w("render.white")}
    drawing = Drawing(
        render.drawer(state.kind.name).game_png, (state,), {"theme": theme, "players": players, "words": w}
    )
    return await bot.drawers.draw(drawing)


def board_page(bot: VeletasBot) -> tuple[str, BoardContext] | None:
    """The board page's address for members and its server's context (whose secret signs sessions), while the server
    runs: its public address (``BOARD_PUBLIC_URL``), else its own when it listens on loopback only (the local table,
    whose members are on this machine). None otherwise: members would have no way to reach it."""
    served = bot.get_cog("Board")
    port = getattr(served, "port", None)
    context = getattr(served, "context", None)
    if not isinstance(port, int) or not isinstance(context, BoardContext):
        return None
    settings = bot.settings
    if settings.board_public_url:
        return settings.board_public_url, context
    host = settings.board_host
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        return None
    return f"http://{f'[{host}]' if ':' in host else host}:{port}", context


def buttons(w: Words, attempt: Attempt, *, board: bool = False) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    if attempt.status == "open":
        view.add_item(GuidedMoveButton(attempt.puzzle_id, label=w("guided.move.label")))
        view.add_item(TypeMoveButton(attempt.id, label=w("puzzle.type.label")))
        if board:
            view.add_item(BoardButton(attempt.id, label=w("puzzle.board.label")))
        view.add_item(GiveUpButton(attempt.id, label=w("puzzle.give_up.label")))
    if attempt.status == "solved":
        view.add_item(ShareButton(attempt.id, label=w("puzzle.share.label")))
    view.add_item(NextButton(attempt.game, label=w("puzzle.next.label")))
    view.add_item(TopButton(attempt.game, label=w("puzzle.leaderboard.label")))
    return view


async def puzzle_message(
    bot: VeletasBot,
    interaction: discord.Interaction[Any],
    attempt: Attempt,
    puzzle: Puzzle,
    lines: list[str],
    state: GameState,
    standing: Standing,
) -> Outgoing:
    """The private message of an attempt: the position, what to do or what happened, and the buttons."""
    w = private_words(interaction)
    assert interaction.guild_id is not None
    text = list(lines)
    source = await provenance(bot, interaction.guild_id, w, puzzle)
    if source is not None:
        text.append(source)
    text.append(standing_line(w, standing))
    embed = discord.Embed(
        title=w("puzzle.title", game=table_for(puzzle.game).title, id=puzzle.id)[:256],
        description="\n".join(text)[:4096],
    )
    embed.set_image(url=f"attachment://{PUZZLE_FILE}")
    png = await draw(bot, interaction.user.id, state, w)
    view = buttons(w, attempt, board=board_page(bot) is not None)
    return Outgoing(embed=embed, files=[(PUZZLE_FILE, png)], view=view)


async def open_puzzle(interaction: discord.Interaction[Any], puzzle: Puzzle) -> Outgoing:
    """Start (or resume) the member's attempt at ``puzzle`` and show it."""
    bot = bot_of(interaction)
    assert interaction.guild_id is not None and interaction.channel_id is not None
    attempt = await bot.store.start_attempt(
        interaction.user.id, interaction.guild_id, interaction.channel_id, puzzle.id
    )
    w = private_words(interaction)
    lines = [task_line(w, puzzle)]
    if not attempt.rated:
        lines.append(w("puzzle.unrated"))
    standing = await bot.store.puzzle_standing(interaction.user.id, puzzle.game)
    return await puzzle_message(bot, interaction, attempt, puzzle, lines, replay(puzzle, attempt.turns), standing)


async def refutation(bot: VeletasBot, user_id: int, state: GameState) -> str | None:
    """The defender's answer to a wrong turn: the AI's best move there, asked of its workers as an analysis (behind
    the AI's own turns, within the member's and the queue's limits); from an AI without that, its turn. None without
    an AI, when the game is over, when the queue is full, or when no answer comes in time."""
    ai = bot.ai
    if ai is None or state.outcome is not None:
        return None
    try:
        if isinstance(ai, Refuter):
            with ai.reserve(user_id):
                settings = tuple(sorted(state.settings.items()))
                found = ai.best_turn(state.kind.name, state.turns, settings)
                return await asyncio.wait_for(found, REFUTATION_SECONDS)
        return await asyncio.wait_for(ai.choose_turn(state, REFUTATION_LEVEL), REFUTATION_SECONDS)
    except AnalysisRefused:
        return None
    except Exception:
        log.warning("No refutation for a puzzle's wrong turn", exc_info=True)
        return None


async def turn_message(interaction: discord.Interaction[Any], played: PuzzleTurn) -> Outgoing:
    """What the member sees after a turn: the defender's reply, the solved puzzle, or the mistake refuted."""
    bot = bot_of(interaction)
    w = private_words(interaction)
    attempt, step = played.attempt, played.step
    puzzle = await bot.store.get_puzzle(attempt.puzzle_id)
    if puzzle is None:
        raise UserError("puzzle.unavailable")
    state = replay(puzzle, attempt.turns)
    lines: list[str] = []
    if step.verdict == "right":
        lines.append(w("puzzle.right", turn=step.turn, reply=step.reply))
        left = (len(puzzle.solution) - len(attempt.turns) + 1) // 2
        lines.append(w(f"puzzle.task.{puzzle.goal}", colour=w(f"result.{solver(puzzle)}"), count=left))
    elif step.verdict == "solved":
        lines.append(w("puzzle.solved", turn=step.turn))
    elif step.verdict == "gave_up":
        line = puzzle.solution[len(attempt.turns) :]
        lines.append(w("puzzle.gave_up", line=" ".join(line)))
        for turn in line:
            state = state.play(turn)
    else:
        lines.append(w("puzzle.wrong", turn=step.turn, expected=step.expected))
        answer = await refutation(bot, interaction.user.id, state)
        if answer is not None:
            state = state.play(answer)
            lines.append(w("puzzle.refutation", turn=state.turns[-1]))
    if played.before is not None:
        lines.append(w("puzzle.rating_change", change=rating_change(played.before, played.standing.rating)))
    elif step.verdict != "right":
        lines.append(w("puzzle.unrated"))
    return await puzzle_message(bot, interaction, attempt, puzzle, lines, state, played.standing)


async def play_typed(interaction: discord.Interaction[Any], attempt_id: int, typed: str) -> PuzzleTurn:
    """The member's typed turn in their attempt, through the store; the rules' refusal worded like a game's."""
    try:
        return await bot_of(interaction).store.play_puzzle_turn(attempt_id, interaction.user.id, typed.strip())
    except IllegalMove as exc:
        raise InvalidMove(exc.key, **exc.data) from exc


async def puzzle_here(interaction: discord.Interaction[Any], game: str) -> tuple[Attempt, Puzzle] | None:
    """The member's open puzzle attempt of ``game`` started in this channel, with its puzzle, unless they have a game
    here in which they are to act: what ``/veletas move`` and ``/veloop move`` (and their autocomplete) play into.

    A game where the member is to act comes first, so a puzzle never takes a turn meant for a game; otherwise the
    member's own puzzle here does, whatever game the channel holds (a turn in it would be refused anyway)."""
    bot = bot_of(interaction)
    if interaction.channel_id is None:
        return None
    try:
        info = await bot.store.game_in_channel(interaction.channel_id)
    except UserError:
        info = None
    if info is not None and info.user_to_act == interaction.user.id:
        return None
    attempt = await bot.store.open_attempt(interaction.user.id, game)
    if attempt is None or attempt.channel_id != interaction.channel_id:
        return None
    puzzle = await bot.store.get_puzzle(attempt.puzzle_id)
    return None if puzzle is None else (attempt, puzzle)


async def puzzle_state_here(interaction: discord.Interaction[Any], game: str) -> GameState | None:
    """The position of the member's puzzle here (``puzzle_here``), for the move's autocomplete."""
    found = await puzzle_here(interaction, game)
    if found is None:
        return None
    attempt, puzzle = found
    return replay(puzzle, attempt.turns)


async def move_into_puzzle(interaction: discord.Interaction[Any], attempt: Attempt, typed: str) -> None:
    """A turn typed into ``/veletas move`` or ``/veloop move`` for the member's puzzle: answered privately, with the
    puzzle's position after it and its buttons, as the Type a move button answers."""

    async def work() -> Outgoing:
        return await turn_message(interaction, await play_typed(interaction, attempt.id, typed))

    await respond(interaction, work(), ephemeral=True)


async def puzzle_turn(interaction: discord.Interaction[Any], puzzle_id: int, seen: int, move: str) -> Outgoing:
    """The guided move's confirmed turn in the member's puzzle (``cogs.guided``), if the attempt still stands where
    the menu showed it (``seen`` turns played)."""
    bot = bot_of(interaction)
    view = await bot.store.puzzle_view(interaction.user.id, puzzle_id)
    try:
        played = await bot.store.play_puzzle_turn(view.attempt_id, interaction.user.id, move, expected_turns=seen)
    except IllegalMove as exc:
        raise InvalidMove(exc.key, **exc.data) from exc
    return await turn_message(interaction, played)


async def puzzle_again(interaction: discord.Interaction[Any], puzzle_id: int) -> Outgoing:
    """The member's open attempt at ``puzzle_id`` as it stands (the guided move cancelled)."""
    bot = bot_of(interaction)
    view = await bot.store.puzzle_view(interaction.user.id, puzzle_id)
    attempt = await bot.store.get_attempt(view.attempt_id)
    puzzle = await bot.store.get_puzzle(puzzle_id)
    if attempt is None or puzzle is None:
        raise UserError("puzzle.over")
    w = private_words(interaction)
    left = (len(puzzle.solution) - len(attempt.turns) + 1) // 2
    lines = [w(f"puzzle.task.{puzzle.goal}", colour=w(f"result.{solver(puzzle)}"), count=left)]
    standing = await bot.store.puzzle_standing(interaction.user.id, puzzle.game)
    return await puzzle_message(bot, interaction, attempt, puzzle, lines, view.state, standing)


class GuidedMoveButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"pz:guide:(?P<puzzle>[0-9]+)"):
    """The guided move (the games' own steps, ``cogs.guided``) on the member's puzzle, in the same private message."""

    def __init__(self, puzzle_id: int, *, label: str = "Move") -> None:
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.primary, custom_id=f"pz:guide:{puzzle_id}")
        )
        self.puzzle_id = puzzle_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> GuidedMoveButton:
        return cls(id_or_zero(match["puzzle"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> Outgoing:
            view = await bot.store.puzzle_view(interaction.user.id, self.puzzle_id)
            return await table_for(view).guided_start(bot, view, private_words(interaction))

        await bot.guard(interaction, respond_update(interaction, work()))


class TypeMoveButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"pz:type:(?P<attempt>[0-9]+)"):
    """Opens the modal for a turn in notation, only for the member's own open attempt."""

    def __init__(self, attempt_id: int, *, label: str = "Type a move") -> None:
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.primary, custom_id=f"pz:type:{attempt_id}")
        )
        self.attempt_id = attempt_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TypeMoveButton:
        return cls(id_or_zero(match["attempt"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.open(interaction))

    async def open(self, interaction: discord.Interaction[Any]) -> None:
        attempt = await bot_of(interaction).store.get_attempt(self.attempt_id)
        if attempt is None or attempt.user_id != interaction.user.id:
            raise UserError("puzzle.not_yours")
        if attempt.status != "open":
            raise UserError("puzzle.over")
        await interaction.response.send_modal(MoveModal(self.attempt_id, private_words(interaction)))


class MoveModal(discord.ui.Modal):
    """A turn in notation; its submit is read by ``PuzzleCog.on_interaction`` (after a restart too)."""

    def __init__(self, attempt_id: int, w: Words) -> None:
        super().__init__(title=w("puzzle.modal.title"), custom_id=f"pz:move:{attempt_id}", timeout=15 * 60)
        self.move: discord.ui.TextInput[MoveModal] = discord.ui.TextInput(
            label=w("puzzle.modal.label"), custom_id=MOVE_FIELD, min_length=1, max_length=MAX_TYPED
        )
        self.add_item(self.move)

    async def on_submit(self, interaction: discord.Interaction[Any], /) -> None:
        """Answered by ``PuzzleCog.on_interaction``."""


def submitted_move(data: Mapping[str, Any]) -> str:
    for row in data.get("components") or []:
        inner = row.get("components") or ([row["component"]] if "component" in row else [])
        for item in inner:
            if item.get("custom_id") == MOVE_FIELD:
                return str(item.get("value") or "")
    return ""


class GiveUpButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"pz:giveup:(?P<attempt>[0-9]+)"):
    """Ends the member's attempt as a wrong turn would, and shows the rest of the solution on the board."""

    def __init__(self, attempt_id: int, *, label: str = "Give up") -> None:
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.danger, custom_id=f"pz:giveup:{attempt_id}")
        )
        self.attempt_id = attempt_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> GiveUpButton:
        return cls(id_or_zero(match["attempt"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> Outgoing:
            return await turn_message(interaction, await bot.store.give_up_puzzle(self.attempt_id, interaction.user.id))

        await bot.guard(interaction, respond_update(interaction, work()))


class BoardButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"pz:board:(?P<attempt>[0-9]+)"):
    """The member's attempt as it stands, with their own link to solve it on the board page while it is open."""

    def __init__(self, attempt_id: int, *, label: str = "Solve on the board") -> None:
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.primary, custom_id=f"pz:board:{attempt_id}")
        )
        self.attempt_id = attempt_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> BoardButton:
        return cls(id_or_zero(match["attempt"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        await bot.guard(interaction, respond_update(interaction, on_the_board(interaction, self.attempt_id)))


async def on_the_board(interaction: discord.Interaction[Any], attempt_id: int) -> Outgoing:
    """The member's attempt as it stands: open, with a fresh link to the board page; else how it ended there."""
    bot = bot_of(interaction)
    attempt = await bot.store.get_attempt(attempt_id)
    if attempt is None or attempt.user_id != interaction.user.id:
        raise UserError("puzzle.not_yours")
    if attempt.status == "abandoned":
        raise UserError("puzzle.over")
    page = board_page(bot)
    if page is None:
        raise UserError("puzzle.board.off")
    puzzle = await bot.store.get_puzzle(attempt.puzzle_id)
    if puzzle is None:
        raise UserError("puzzle.unavailable")
    w = private_words(interaction)
    turns = attempt.turns
    state = replay(puzzle, turns)
    lines: list[str] = []
    if attempt.status == "open":
        address, context = page
        token = mint_puzzle(context.secret, interaction.user.id, attempt.id, bot.store.now())
        left = (len(puzzle.solution) - len(turns) + 1) // 2
        lines.append(w(f"puzzle.task.{puzzle.goal}", colour=w(f"result.{solver(puzzle)}"), count=left))
        link = f"{address}/board/#puzzle={token}"
        lines.append(w("puzzle.board.link", url=link, count=SESSION_SECONDS // 3600))
    elif attempt.status == "solved":
        lines.append(w("puzzle.board.solved", turn=turns[-1]))
    elif len(turns) % 2:  # a wrong turn ended it
        lines.append(w("puzzle.board.failed", turn=turns[-1], expected=puzzle.solution[len(turns) - 1]))
    else:  # given up
        rest = puzzle.solution[len(turns) :]
        lines.append(w("puzzle.gave_up", line=" ".join(rest)))
        for turn in rest:
            state = state.play(turn)
    if attempt.status != "open" and attempt.rating_before is not None and attempt.rating_after is not None:
        change = rating_change(Rating(attempt.rating_before), Rating(attempt.rating_after))
        lines.append(w("puzzle.rating_change", change=change))
    standing = await bot.store.puzzle_standing(interaction.user.id, puzzle.game)
    return await puzzle_message(bot, interaction, attempt, puzzle, lines, state, standing)


class NextButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"pz:next:(?P<game>[a-z]{2,12})"):
    """The next puzzle of the game for this member: untried, near their puzzle rating."""

    def __init__(self, game: str, *, label: str = "Next puzzle") -> None:
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.secondary, custom_id=f"pz:next:{game}")
        )
        self.game = game

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> NextButton:
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> Outgoing:
            if self.game not in TABLES or interaction.guild_id is None:
                raise UserError("puzzle.unavailable")
            puzzle = await bot.store.next_puzzle(interaction.user.id, interaction.guild_id, self.game)
            if puzzle is None:
                raise UserError("puzzle.all_tried")
            return await open_puzzle(interaction, puzzle)

        await bot.guard(interaction, respond_update(interaction, work()))


class ShareButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"pz:share:(?P<attempt>[0-9]+)"):
    """Posts the member's solved puzzle in the channel, with their result: the only public puzzle post."""

    def __init__(self, attempt_id: int, *, label: str = "Share") -> None:
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.success, custom_id=f"pz:share:{attempt_id}")
        )
        self.attempt_id = attempt_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ShareButton:
        return cls(id_or_zero(match["attempt"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).guard(interaction, self.share(interaction))

    async def share(self, interaction: discord.Interaction[Any]) -> None:
        await respond(interaction, self.post(interaction))

    async def post(self, interaction: discord.Interaction[Any]) -> Outgoing:
        bot = bot_of(interaction)
        attempt = await bot.store.share_attempt(self.attempt_id, interaction.user.id)
        puzzle = await bot.store.get_puzzle(attempt.puzzle_id)
        if puzzle is None:
            raise UserError("puzzle.unavailable")
        w = await public_words(bot, interaction.guild_id)
        lines = [
            w(
                "puzzle.shared",
                who=mention(interaction.user.id),
                game=table_for(puzzle.game).title,
                id=puzzle.id,
                task=task_line(w, puzzle),
            )
        ]
        if attempt.rating_before is not None and attempt.rating_after is not None:
            before = Rating(attempt.rating_before)
            lines.append(w("puzzle.rating_change", change=rating_change(before, Rating(attempt.rating_after))))
        png = await draw(bot, interaction.user.id, replay(puzzle), w)
        embed = discord.Embed(description="\n".join(lines)[:4096])
        embed.set_image(url=f"attachment://{PUZZLE_FILE}")
        return Outgoing(embed=embed, files=[(PUZZLE_FILE, png)])


class TopButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"pz:top:(?P<game>[a-z]{2,12})"):
    """The server's puzzle leaderboard of the game, privately."""

    def __init__(self, game: str, *, label: str = "Leaderboard") -> None:
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.secondary, custom_id=f"pz:top:{game}")
        )
        self.game = game

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TopButton:
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        await bot.guard(interaction, respond(interaction, leaderboard(interaction, self.game), ephemeral=True))


async def leaderboard(interaction: discord.Interaction[Any], game: str) -> Outgoing:
    """The server's members by puzzle rating (those with enough rated attempts), with their best streaks."""
    bot = bot_of(interaction)
    if game not in TABLES or interaction.guild_id is None:
        raise UserError("puzzle.unavailable")
    w = private_words(interaction)
    while True:
        rows, total = await bot.store.puzzle_leaderboard(interaction.guild_id, game, offset=0, limit=PAGE)
        gone = await left_the_server(bot, interaction.guild_id, [user for user, _ in rows])
        if not gone:
            break
        await bot.store.mark_departed(interaction.guild_id, gone)
    lines = [
        w("puzzle.leaderboard_line", rank=rank, who=mention(user), rating=row.rating.shown, best=row.best_streak)
        for rank, (user, row) in enumerate(rows, start=1)
    ]
    embed = discord.Embed(
        title=w("puzzle.leaderboard.title", game=table_for(game).title)[:256],
        description="\n".join(lines) or w("puzzle.leaderboard.empty", count=LEADERBOARD_MINIMUM),
    )
    embed.set_footer(text=w("puzzle.leaderboard.footer", count=LEADERBOARD_MINIMUM, players=total))
    return Outgoing(embed=embed)


class PuzzleCog(commands.Cog):
    """The puzzle command of one game's group; everything else is shared."""

    game = "veletas"

    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    @app_commands.command()
    async def puzzle(self, interaction: discord.Interaction[VeletasBot]) -> None:
        """Today's puzzle of this server, then more: find the winning line."""
        assert interaction.guild_id is not None
        bot = self.bot

        async def work() -> Outgoing:
            assert interaction.guild_id is not None
            today = dt.datetime.fromtimestamp(bot.store.now(), dt.UTC).date()
            puzzle = await bot.store.daily_puzzle(interaction.guild_id, self.game, today)
            if puzzle is None:
                raise UserError("puzzle.none_yet", game=table_for(self.game).title)
            return await open_puzzle(interaction, puzzle)

        await respond(interaction, work(), ephemeral=True)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """A turn typed into the puzzle's modal (one opened before a restart too)."""
        if interaction.type is not discord.InteractionType.modal_submit or self.game != "veletas":
            return
        data = cast("Mapping[str, Any]", interaction.data or {})
        match = MOVE_MODAL.fullmatch(str(data.get("custom_id", "")))
        if match is None:
            return
        attempt_id = id_or_zero(match["attempt"])
        typed = submitted_move(data)

        async def work() -> Outgoing:
            return await turn_message(interaction, await play_typed(interaction, attempt_id, typed))

        await self.bot.guard(interaction, respond_update(interaction, work()))


@app_commands.guild_only()
class VeletasPuzzle(PuzzleCog, name="Puzzle"):
    """``/veletas puzzle``; it also reads every puzzle modal's submit."""


@app_commands.guild_only()
class VeloopPuzzle(PuzzleCog, name="Veloop puzzle"):
    """``/veloop puzzle``."""

    game = "veloop"


async def setup(bot: VeletasBot) -> None:
    await bot.add_feature(VeletasPuzzle(bot))
    await bot.add_feature(VeloopPuzzle(bot), group="veloop")
    bot.add_dynamic_items(
        GuidedMoveButton, TypeMoveButton, BoardButton, GiveUpButton, NextButton, ShareButton, TopButton
    )
