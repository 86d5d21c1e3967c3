"""Playing a game by command: setup turns, the pie choice, moves, resigning and taking back a move.

Every command reads the game of this channel, hands the player's text to the store (where the
rules validate it and the turn is committed), and answers with the new board. The pie choice and
undo answers are also buttons whose custom ids carry the game and the version they were made for
(every change bumps it, an undo included), so a stale button can never apply to a position its
presser never saw. A typed command carries no such version, so its interaction id (the moment it
was sent) is compared with the game's last change instead.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.client import VeletasBot
from bot.errors import RaceLost, UserError
from bot.rules import Game, Position
from bot.rules.common import square_name
from bot.store import GameInfo
from cogs._board import (
    Outgoing,
    board_message,
    bot_of,
    deliver,
    mention,
    respond,
    send_response,
    sweep,
)
from cogs._options import MAX_MOVE, MAX_SHOOTERS, MAX_SQUARE

log = logging.getLogger(__name__)

SWEEP_MINUTES = 5.0
"""How often boards that could not be posted (Discord failing for minutes) are tried again."""

MAX_CHOICES = 25
_LEGAL_CACHE_SIZE = 32
Legal = tuple[tuple[tuple[str, bool], ...], dict[str, tuple[str, ...]]]
_legal_cache: OrderedDict[Position, Legal] = OrderedDict()
_SUGGESTION_CACHE_SIZE = 512
_suggestion_cache: OrderedDict[tuple[Position, str, int], list[tuple[str, str]]] = OrderedDict()


def _legal(position: Position) -> Legal:
    """Legal moves as (text, is a stationary shot), and for each stationary target the shooters able to fire it.

    Every keystroke asks for suggestions on the same position, so a few recent positions are kept,
    as text: formatting thousands of moves again for each keystroke was most of the work. A few:
    a standard-board position has thousands of moves, and people type on the positions being
    played right now.
    """
    found = _legal_cache.get(position)
    if found is None:
        moves = tuple((str(move), move.is_stationary) for move in position.legal_moves())
        firing: dict[str, list[str]] = {}
        for shooter in position.unclaimed():
            for target in position.targets(shooter):
                firing.setdefault(target, []).append(shooter)
        found = (moves, {target: tuple(sorted(shooters)) for target, shooters in firing.items()})
        _legal_cache[position] = found
        while len(_legal_cache) > _LEGAL_CACHE_SIZE:
            _legal_cache.popitem(last=False)
    else:
        _legal_cache.move_to_end(position)
    return found


def _normalise(text: str) -> str:
    return re.sub(r"\s+", "", text.lower()).replace("x", "/")


def _tokens(form: str) -> list[str]:
    # str methods, not re.split: this runs for every matching form of every keystroke.
    return form.replace("-", "/").split("/")


def _next_step(form_tokens: Sequence[str], typed_tokens: list[str]) -> tuple[str, ...]:
    """The squares decided so far plus the next one: what suggestions are spread over."""
    complete = len(typed_tokens) - 1
    if complete < len(form_tokens) and typed_tokens[-1] == form_tokens[complete]:
        complete += 1
    return tuple(form_tokens[: complete + 1])


def _typed_form(
    value: str, stationary: bool, firing: dict[str, tuple[str, ...]], prefix: str
) -> tuple[str, str] | None:
    """The first form of a move that starts with ``prefix``, and its label; None if none does.

    A stationary shot ``g2`` may be typed as ``d4/g2`` (for each shooter that can fire it) or as
    ``g2``; the long forms come first so that, while a shooter is being typed, shots group under it.
    Labels are made only for the form chosen: most moves match no prefix at all.
    """
    if not stationary:
        return (value, value) if value.startswith(prefix) else None
    for shooter in firing.get(value, ()):
        form = f"{shooter}/{value}"
        if form.startswith(prefix):
            return form, f"{form} ({shooter} shoots without moving)"
    if value.startswith(prefix):
        return value, f"{value} (shoot without moving)"
    return None


def move_suggestions(position: Position, typed: str, limit: int = MAX_CHOICES) -> list[tuple[str, str]]:
    """(label, value) pairs for what the player has typed so far; every value is a legal move.

    Each legal move is offered under the forms a player might start typing (``d4-g7/g2``, and for
    a shot without moving both ``g2`` and ``d4/g2``). When more than ``limit`` moves match, the
    suggestions are spread over the next thing to decide (the shooter, then its destination, then
    the target), so typing one more square always narrows towards the move the player means.
    Answers are remembered per position and prefix: players retype the same prefixes.
    """
    if position.is_over:
        return []
    prefix = _normalise(typed)
    key = (position, prefix, limit)
    cached = _suggestion_cache.get(key)
    if cached is not None:
        _suggestion_cache.move_to_end(key)
        return list(cached)
    typed_tokens = _tokens(prefix)
    moves, firing = _legal(position)
    groups: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for value, stationary in moves:
        chosen = _typed_form(value, stationary, firing, prefix)
        if chosen is not None:
            form, label = chosen
            groups.setdefault(_next_step(_tokens(form), typed_tokens), []).append((label, value))
    suggestions: list[tuple[str, str]] = []
    ordered = [groups[key] for key in sorted(groups, key=_square_order)]
    index = 0
    while len(suggestions) < limit and any(index < len(group) for group in ordered):
        for group in ordered:
            if index < len(group) and len(suggestions) < limit:
                suggestions.append(group[index])
        index += 1
    _suggestion_cache[key] = suggestions
    while len(_suggestion_cache) > _SUGGESTION_CACHE_SIZE:
        _suggestion_cache.popitem(last=False)
    return list(suggestions)


def _square_order(key: Iterable[str]) -> tuple[tuple[int, str, int], ...]:
    def one(square: str) -> tuple[int, str, int]:
        match = re.fullmatch(r"([a-z])(\d+)", square)
        return (0, square[:1], int(match.group(2))) if match else (1, square, 0)

    return tuple(one(square) for square in key)


def _squares(text: str) -> list[str]:
    return [t for t in re.split(r"[\s,]+", text.lower()) if t]


def shooter_suggestions(game: Game, typed: str, limit: int = MAX_CHOICES) -> list[str]:
    """Completions of the shooter list typed so far, one more setup square at a time.

    Only squares the setup allows on the board as it stands are offered (the image hatches the
    others); squares already in the list are not offered twice.
    """
    allowed = game.setup_squares()
    tokens = _squares(typed)
    partial = "" if not tokens or typed[-1:] in (" ", ",") else tokens.pop()
    if any(token not in allowed for token in tokens) or len(set(tokens)) != len(tokens):
        return []
    if len(tokens) >= game.shooters_to_place:
        return [" ".join(tokens)] if len(tokens) == game.shooters_to_place else []
    if partial in allowed and len(tokens) + 1 == game.shooters_to_place:
        return [" ".join([*tokens, partial])]
    options = [sq for sq in allowed if sq.startswith(partial) and sq not in tokens]
    return [" ".join([*tokens, sq]) for sq in options[:limit]]


def stone_suggestions(game: Game, shooters: str, typed: str, limit: int = MAX_CHOICES) -> list[str]:
    """Empty squares for the setup stone (any empty square, the edge included), minus the chosen shooters."""
    taken = set(_squares(shooters)) | set(game.position.pieces())
    prefix = typed.strip().lower()
    size = game.position.size
    squares = [square_name(f, r) for f in range(size) for r in range(size)]
    return [sq for sq in squares if sq.startswith(prefix) and sq not in taken][:limit]


# Custom ids carry "v<version>"; a bare number is a ply, from boards posted before versions existed.
STATE = r"(?:v(?P<version>\d+)|(?P<ply>\d+))"


def seen_state(match: re.Match[str]) -> tuple[int | None, int | None]:
    """(version, ply) from a custom id: exactly one of them is set."""
    if match["version"] is not None:
        return int(match["version"]), None
    return None, int(match["ply"])


class PieButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"veletas:pie:(?P<game>\d+):{STATE}:(?P<choice>keep|swap)",
):
    def __init__(self, game_id: int, version: int | None, choice: str, *, ply: int | None = None) -> None:
        label = "Keep colours" if choice == "keep" else "Swap colours"
        style = discord.ButtonStyle.primary if choice == "keep" else discord.ButtonStyle.secondary
        state = f"v{version}" if version is not None else str(ply)
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"veletas:pie:{game_id}:{state}:{choice}")
        )
        self.game_id, self.version, self.ply, self.choice = game_id, version, ply, choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PieButton:
        version, ply = seen_state(match)
        return cls(int(match["game"]), version, match["choice"], ply=ply)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        await bot.guard(
            interaction,
            play_turn(interaction, self.game_id, self.choice, expected_version=self.version, expected_ply=self.ply),
        )


class UndoAnswerButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"veletas:undo:(?P<game>\d+):{STATE}:(?P<answer>yes|no)",
):
    def __init__(self, game_id: int, version: int | None, answer: str, *, ply: int | None = None) -> None:
        label = "Allow the take-back" if answer == "yes" else "Refuse"
        style = discord.ButtonStyle.success if answer == "yes" else discord.ButtonStyle.danger
        state = f"v{version}" if version is not None else str(ply)
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"veletas:undo:{game_id}:{state}:{answer}")
        )
        self.game_id, self.version, self.ply, self.answer = game_id, version, ply, answer

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> UndoAnswerButton:
        version, ply = seen_state(match)
        return cls(int(match["game"]), version, match["answer"], ply=ply)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        await bot.guard(
            interaction, answer_undo(interaction, self.game_id, self.version, self.ply, self.answer == "yes")
        )


PHASE_HELP = {
    "setup": "The game is in its setup: place shooters with `/veletas setup`.",
    "pie": "The colours are being chosen: the second player answers with `/veletas pie` or the buttons.",
    "play": "Setup is over: play moves with `/veletas move` or the Move button.",
    "over": "This game is over.",
}


def expect_phase(info: GameInfo, phase: str, command: str) -> None:
    """Each command belongs to one phase; a turn typed with the wrong command is refused, not reinterpreted.

    Without this, ``/veletas setup shooters:c3`` during play would be read as the shot ``c3``.
    """
    current = info.game.phase
    if current != phase:
        raise UserError(f"`/veletas {command}` is not for now. {PHASE_HELP[current]}")


async def play_turn(
    interaction: discord.Interaction[Any],
    game_id: int,
    text: str,
    *,
    expected_version: int | None = None,
    expected_ply: int | None = None,
    typed: bool = False,
) -> None:
    """Commit one turn and answer with the new board; the store refuses anything not allowed.

    A ``typed`` turn carries no version of what its player saw, so the interaction's id (when it was
    sent) goes to the store, which refuses it if the game changed after that moment.
    """
    bot = bot_of(interaction)
    stamp = interaction.id if typed else None

    async def work() -> Outgoing:
        played = await bot.store.play(
            game_id,
            interaction.user.id,
            text,
            expected_ply=expected_ply,
            expected_version=expected_version,
            stamp=stamp,
        )
        return await board_message(bot, played)

    await deliver(bot, game_id, respond(interaction, work()))


async def answer_undo(
    interaction: discord.Interaction[Any], game_id: int, version: int | None, ply: int | None, accept: bool
) -> None:
    bot = bot_of(interaction)
    info = await bot.store.get_game(game_id)
    if ply is not None and info.ply != ply and info.status == "active":
        raise RaceLost("This request is out of date: the game has moved on since it was made.")
    answered = await bot.store.answer_undo(
        game_id, interaction.user.id, accept, expected_version=version, stamp=interaction.id
    )
    verdict = "allowed" if accept else "refused"

    async def answer() -> tuple[int | None, Outgoing]:
        await interaction.response.edit_message(
            content=f"{interaction.user.mention} {verdict} the take-back of `{info.turns[-1]}`.",
            view=None,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if not accept:
            return None, Outgoing()
        out = await board_message(bot, answered, note=f"`{info.turns[-1]}` was taken back.")
        return await send_response(interaction, out), out

    await deliver(bot, game_id, answer())


@app_commands.guild_only()
class PlayCog(commands.Cog, name="Play"):
    def __init__(self, bot: VeletasBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.sweep_loop.start()

    async def cog_unload(self) -> None:
        self.sweep_loop.cancel()

    @tasks.loop(minutes=SWEEP_MINUTES)
    async def sweep_loop(self) -> None:
        """At start-up, then now and then: post every stored change nobody was told of, resume owed AI turns."""
        try:
            await sweep(self.bot)
        except Exception:
            log.exception("Sweeping unannounced games failed; retrying on the next round")

    @sweep_loop.before_loop
    async def before_sweep(self) -> None:
        await self.bot.wait_until_ready()

    async def _here(self, interaction: discord.Interaction[VeletasBot]) -> GameInfo:
        assert interaction.channel_id is not None
        return await self.bot.store.game_in_channel(interaction.channel_id)

    @app_commands.command(name="setup")
    @app_commands.describe(
        shooters='where your shooters go, e.g. "c3 e5 h4"',
        stone="where your stone goes, e.g. d7 (current rules only)",
    )
    async def setup_turn(
        self,
        interaction: discord.Interaction[VeletasBot],
        shooters: app_commands.Range[str, 1, MAX_SHOOTERS],
        stone: app_commands.Range[str, 1, MAX_SQUARE] | None = None,
    ) -> None:
        """Place your shooters (and, in the current rules, your stone) during setup."""
        info = await self._here(interaction)
        expect_phase(info, "setup", "setup")
        # The rules explain a missing or extra stone in record notation; players here fill in options.
        game = info.game
        if info.user_to_act == interaction.user.id:
            if stone is None and game.stone_to_place:
                raise UserError(
                    f"This setup turn also places one {game.colour_to_act or 'black'} stone: add `stone:` "
                    "with any empty square (the edge is allowed for stones)."
                )
            if stone is not None and not game.stone_to_place:
                raise UserError("No stone is placed in this setup turn (classic rules): leave `stone` out.")
        text = shooters if stone is None else f"{shooters}/{stone}"
        await play_turn(interaction, info.id, text, expected_version=info.version, typed=True)

    @setup_turn.autocomplete("shooters")
    async def shooter_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        game = await self._setup_game(interaction)
        if game is None:
            return []
        return [app_commands.Choice(name=v, value=v) for v in shooter_suggestions(game, current)]

    @setup_turn.autocomplete("stone")
    async def stone_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        game = await self._setup_game(interaction)
        if game is None or not game.stone_to_place:
            return []
        typed = str(getattr(interaction.namespace, "shooters", "") or "")
        return [app_commands.Choice(name=v, value=v) for v in stone_suggestions(game, typed, current)]

    async def _setup_game(self, interaction: discord.Interaction[VeletasBot]) -> Game | None:
        if interaction.channel_id is None:
            return None
        try:
            info = await self.bot.store.game_in_channel(interaction.channel_id)
        except UserError:
            return None
        return info.game if info.game.phase == "setup" else None

    @app_commands.command()
    @app_commands.describe(choice="keep: the first player stays Black; swap: the first player becomes White")
    async def pie(self, interaction: discord.Interaction[VeletasBot], choice: Literal["keep", "swap"]) -> None:
        """Choose colours after the first player's setup (current rules)."""
        info = await self._here(interaction)
        expect_phase(info, "pie", "pie")
        await play_turn(interaction, info.id, choice, expected_version=info.version, typed=True)

    @app_commands.command()
    @app_commands.describe(move="e.g. d4-g7/g2 (move d4 to g7, shoot g2), or g2 to shoot without moving")
    async def move(
        self, interaction: discord.Interaction[VeletasBot], move: app_commands.Range[str, 1, MAX_MOVE]
    ) -> None:
        """Play your move in this channel's game."""
        info = await self._here(interaction)
        expect_phase(info, "play", "move")
        await play_turn(interaction, info.id, move, expected_version=info.version, typed=True)

    @move.autocomplete("move")
    async def move_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.channel_id is None:
            return []
        try:
            info = await self.bot.store.game_in_channel(interaction.channel_id)
        except UserError:
            return []
        game = info.game
        if game.phase != "play":
            return []
        return [
            app_commands.Choice(name=label[:100], value=value)
            for label, value in move_suggestions(game.position, current)
        ]

    @app_commands.command()
    @app_commands.describe(private="True: only you see it, drawn in your own theme (default: posted for everyone)")
    async def board(self, interaction: discord.Interaction[VeletasBot], private: bool = False) -> None:
        """Post this channel's board again."""
        info = await self._here(interaction)

        async def quiet(viewer: int | None = None) -> Outgoing:
            # Anyone may ask for the board, as often as they like: only a new turn calls the player to move,
            # so this one pings nobody and drops the "your turn" line (the embed still says whose turn it is).
            out = await board_message(self.bot, info, viewer=viewer)
            if out.mention is not None and out.content:
                call = mention(out.mention)
                out.content = "\n".join(line for line in out.content.split("\n") if call not in line) or None
            out.mention = None
            return out

        if private:
            await respond(interaction, quiet(interaction.user.id), ephemeral=True)
            return
        # The newest board carries the buttons players use, and an AI that failed its turn tries again.
        await deliver(self.bot, info.id, respond(interaction, quiet()))

    @app_commands.command()
    async def resign(self, interaction: discord.Interaction[VeletasBot]) -> None:
        """Give up this channel's game."""
        info = await self._here(interaction)

        async def work() -> Outgoing:
            resigned = await self.bot.store.resign(info.id, interaction.user.id, stamp=interaction.id)
            return await board_message(self.bot, resigned)

        await deliver(self.bot, info.id, respond(interaction, work()))

    @app_commands.command()
    async def undo(self, interaction: discord.Interaction[VeletasBot]) -> None:
        """Ask your opponent to let you take back your last move."""
        info = await self._here(interaction)
        asked = await self.bot.store.request_undo(info.id, interaction.user.id)
        opponent = next(p for p in asked.participants if p != interaction.user.id)
        if self.bot.user is not None and opponent == self.bot.user.id:
            # The AI never minds: it lets the player take the move back at once.
            undone = await self.bot.store.answer_undo(asked.id, opponent, True, stamp=interaction.id)
            note = f"`{asked.turns[-1]}` was taken back."
            await deliver(self.bot, undone.id, respond(interaction, board_message(self.bot, undone, note=note)))
            return
        view = discord.ui.View(timeout=None)
        view.add_item(UndoAnswerButton(asked.id, asked.version, "yes"))
        view.add_item(UndoAnswerButton(asked.id, asked.version, "no"))
        out = Outgoing(
            content=(
                f"{interaction.user.mention} asks to take back `{asked.turns[-1]}`. "
                f"{mention(opponent)}, do you allow it?"
            ),
            view=view,
            mention=opponent,
        )
        await send_response(interaction, out)


async def setup(bot: VeletasBot) -> None:
    bot.add_dynamic_items(PieButton, UndoAnswerButton)
    await bot.add_feature(PlayCog(bot))
