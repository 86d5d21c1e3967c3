"""Veletas in Discord: ``/veletas`` and everything Veletas shows that no other game does.

The shared commands (``board``, ``resign``, ``undo``, ``export``, ``games``) come from
``GameCommands``; this module adds Veletas's own: the challenge with its variant and rules, the
setup turns and the pie choice (the first two phases, which only Veletas has), the move with its
autocomplete, and the rules summary. Its ``Table`` words Veletas's boards for the shared board
message and offers their buttons; the guided steps behind Move and Set up are in ``cogs._veletas_guided``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

import discord
from discord import app_commands

from bot import render
from bot.client import VeletasBot
from bot.errors import InvalidMove, UserError
from bot.i18n import Clauses, Phrase, Words
from bot.ids import id_or_zero
from bot.render.workers import Drawing
from bot.rules import VARIANTS, Game, veletas
from bot.rules.veletas import Position
from bot.rules.veletas.suggest import move_suggestions, shooter_suggestions, stone_suggestions
from bot.store.values import GameInfo
from cogs._board import colour_word
from cogs._clock_words import time_suggestions
from cogs._leaderboard import send_leaderboard
from cogs._lookup import NamesAGame
from cogs._options import MAX_MOVE, MAX_SHOOTERS, MAX_SQUARE, MAX_TIME
from cogs._send import Outgoing, bot_of
from cogs._tables import Table, register
from cogs._veletas_game import veletas_game
from cogs._veletas_guided import (
    DestinationSelect,
    SetupButton,
    SetupShooterSelect,
    SetupStartOver,
    SetupStoneSelect,
    ShooterSelect,
    TargetSelect,
    shooter_step,
)
from cogs._words import private_words
from cogs.guided import (
    PREFIX,
    STATE,
    MoveButton,
    custom_id,
    seen_state,
)
from cogs.play import CHALLENGE_OPTIONS, GameCommands, expect_game, play_turn, send_rules
from cogs.puzzles import move_into_puzzle, puzzle_here, puzzle_state_here

# A claim on the small board: Black's shot leaves the shooter on g1 with nowhere to go.
EXAMPLE_POSITION = "3S3/1bw4/5S1/7/5w1/5Sb/2b2w1 b"
EXAMPLE_MOVE = "f2-g1/f2"


def _shooters(w: Words, count: int) -> str:
    return w("veletas.shooters", count=count)


def rules_summary(w: Words, rules: str, variant: str | None) -> str:
    """The edition's rules with the numbers of one board, or of every board when no game is in view.

    Each language's summary is its own text (``veletas.rules_*``), written from that language's rulebook.
    """
    if variant is not None:
        chosen = VARIANTS[variant]
        to_win = w(
            "veletas.to_win_board",
            count=chosen.to_win,
            shooters=chosen.shooters,
            board=w(f"veletas.variant.{chosen.name}"),
            size=chosen.size,
        )
        first = _shooters(w, chosen.first_places)
    else:
        boards = list(VARIANTS.values())
        each = [
            w(
                "veletas.to_win_each",
                board=w(f"veletas.variant.{v.name}"),
                size=v.size,
                count=v.to_win,
                shooters=v.shooters,
            )
            for v in boards
        ]
        to_win = w("veletas.to_win_all", boards=Clauses(each))
        first = w(
            "veletas.first_all",
            standard=_shooters(w, boards[0].first_places),
            others=[
                w("veletas.first_each", board=w(f"veletas.variant.{v.name}"), count=v.first_places) for v in boards[1:]
            ],
        )
    return w("veletas.rules_common", to_win=to_win) + "\n" + w(f"veletas.rules_{rules}", first=first)


def suggestion_label(w: Words, kind: str, value: str) -> str:
    """A suggested step or move in the member's language: what choosing it does next."""
    if kind == "shooter":
        return w("veletas.suggest_shooter", form=value)
    if kind == "destination":
        return w("veletas.suggest_destination", form=value)
    if kind == "still":
        return w("veletas.suggest_still", form=value)
    return value


def setup_refusal(refused: veletas.IllegalMove, game: Game) -> InvalidMove:
    """A setup turn typed in the command's options refused in those options' terms: its example is written
    as the options (``shooters:e5 e6 stone:c9``), from this board, and a bad stone is a bad ``stone:``."""
    data: dict[str, Any] = dict(refused.data)
    names = {
        "shooters": Phrase("commands.veletas.setup.shooters.name"),
        "stone": Phrase("commands.veletas.setup.stone.name"),
    }
    found = game.setup_example()
    if "example" in data and found is not None:
        squares, stone = found
        data["example"] = (
            Phrase("veletas.setup_example_no_stone", shooters=names["shooters"], squares=" ".join(squares))
            if stone is None
            else Phrase("veletas.setup_example", **names, squares=" ".join(squares), square=stone)
        )
    key = refused.key
    if key in ("rules.setup_stone_square", "rules.setup_slashes"):
        key = key.replace("rules.", "veletas.", 1)
        data.update(names)
    return InvalidMove(key, **data)


def score_text(w: Words, position: Position) -> str:
    black, white = position.score
    return w("veletas.score", black=black, white=white, count=position.needed_to_win)


def claims_text(w: Words, position: Position) -> str | None:
    claims = position.last_claims
    if not claims:
        return None
    return "\n".join(
        w(
            "veletas.claim_line",
            square=claim.square,
            colour=colour_word(w, claim.colour),
            black=claim.black_group,
            white=claim.white_group,
        )
        for claim in claims
    )


class VeletasTable(Table):
    kind = veletas.KIND

    def settings_text(self, w: Words, settings: Mapping[str, str]) -> str:
        variant, rules = settings.get("variant", "standard"), settings.get("rules", "current")
        return w("veletas.settings", board=w(f"veletas.variant.{variant}"), rules=w(f"veletas.edition.{rules}"))

    def label(self, info: GameInfo) -> str:
        return f"Veletas #{info.id}"

    def moves_played(self, info: GameInfo) -> int:
        game = veletas_game(info)
        return len(game.turns) - game.setup_turns

    def turn_line(self, w: Words, info: GameInfo, who: str) -> str:
        game = veletas_game(info)
        if game.phase == "setup":
            count = game.shooters_to_place
            key = "veletas.setup_turn_stone" if game.stone_to_place else "veletas.setup_turn"
            colour = w("veletas.as_colour", colour=colour_word(w, game.colour_to_act)) if game.colour_to_act else ""
            return w(key, who=who, colour=colour, count=count)
        if game.phase == "pie":
            return w("veletas.pie_turn", who=who, first=f"<@{info.user_for_seat('first')}>")
        return w("veletas.move_turn", who=who, colour=colour_word(w, game.colour_to_act))

    def fields(self, w: Words, info: GameInfo) -> list[tuple[str, str, bool]]:
        game = veletas_game(info)
        if game.phase not in ("play", "over"):
            return []
        found = [(w("veletas.score.field"), score_text(w, game.position), True)]
        claims = claims_text(w, game.position)
        if claims:
            found.append((w("veletas.claimed.field"), claims, False))
        return found

    def board_drawing(
        self,
        info: GameInfo,
        *,
        seats: Mapping[str, str],
        colours: Mapping[str, str],
        clocks: Mapping[str, str],
        theme: str,
        result: str | None,
        w: Words,
    ) -> Drawing:
        game = veletas_game(info)
        # Setup and the pie choice need the game (setup marks, pieces just placed), and so does the board
        # right after the last setup turn (its shooters marked as the last turn); from the first move on,
        # the position and last move say everything, and drawing just them skips replaying the game.
        if game.phase == "over" or (game.phase == "play" and game.moves):
            return Drawing(
                render.board_png,
                (game.position,),
                {
                    "last_move": game.last_move,
                    "players": dict(colours),
                    "clocks": dict(clocks),
                    "theme": theme,
                    "result": result,
                    "words": w,
                },
            )
        return Drawing(
            render.game_png,
            (game,),
            {"players": dict(seats), "clocks": dict(clocks), "theme": theme, "result": result, "words": w},
        )

    def replay_gif(
        self, info: GameInfo, *, seats: Mapping[str, str], colours: Mapping[str, str], theme: str, w: Words
    ) -> bytes:
        return render.replay_gif(veletas_game(info), players=dict(seats), theme=theme, words=w)

    def board_items(self, w: Words, info: GameInfo) -> list[discord.ui.Item[Any]]:
        phase = veletas_game(info).phase
        if phase == "setup":
            return [SetupButton(info.id, w("veletas.set_up.label"))]
        if phase == "pie":
            return [
                PieButton(info, info.id, info.version, "keep", label=w("veletas.keep.label")),
                PieButton(info, info.id, info.version, "swap", label=w("veletas.swap.label")),
            ]
        if phase == "play":
            return [MoveButton(info, info.id, w("guided.move.label"))]
        return []

    async def guided_start(self, bot: VeletasBot, info: GameInfo, w: Words) -> Outgoing:
        return await shooter_step(bot, info, w)

    def rules_example(self, w: Words, theme: str) -> tuple[bytes, str]:
        position = Position.from_string(EXAMPLE_POSITION)
        move = position.parse_move(EXAMPLE_MOVE)
        after = position.play(move)
        players = {"black": w("render.black"), "white": w("render.white")}
        png = render.board_png(after, last_move=move, theme=theme, players=players, words=w)
        return png, w("veletas.example_caption")

    def rules_text(self, w: Words, settings: Mapping[str, str] | None, option: str | None) -> str:
        if settings is not None:
            return rules_summary(w, settings["rules"], settings["variant"])
        return rules_summary(w, option or "current", None)


TABLE = VeletasTable()


def expect_phase(info: GameInfo, phase: str, command: str) -> None:
    """Each command belongs to one phase; a turn typed with the wrong command is refused, not reinterpreted.

    Without this, ``/veletas setup shooters:c3`` during play would be read as the shot ``c3``.
    """
    expect_game(info, TABLE, command)
    current = info.state.phase
    if current != phase:
        raise UserError(
            "veletas.wrong_phase",
            command=Phrase(f"commands.veletas.{command}.name"),
            help=Phrase(f"veletas.phase_help_{current}"),
        )


class PieButton(
    NamesAGame,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:pie:(?P<game>[0-9]+):{STATE}:(?P<choice>keep|swap)",
):
    def __init__(
        self,
        game: GameInfo | str,
        game_id: int,
        version: int | None,
        choice: str,
        *,
        ply: int | None = None,
        label: str | None = None,
    ) -> None:
        label = label or ("Keep colours" if choice == "keep" else "Swap colours")
        style = discord.ButtonStyle.primary if choice == "keep" else discord.ButtonStyle.secondary
        state = f"v{version}" if version is not None else str(ply)
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=custom_id(game, "pie", game_id, state, choice))
        )
        self.game_id, self.version, self.ply, self.choice = game_id, version, ply, choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PieButton:
        version, ply = seen_state(match)
        return cls(match["prefix"], id_or_zero(match["game"]), version, match["choice"], ply=ply)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        await bot.guard(
            interaction,
            play_turn(interaction, self.game_id, self.choice, expected_version=self.version, expected_ply=self.ply),
        )


# --- /veletas


class VeletasCog(GameCommands, name="Veletas"):
    table = TABLE

    async def _here(self, interaction: discord.Interaction[VeletasBot]) -> GameInfo:
        assert interaction.channel_id is not None
        return await self.bot.store.game_in_channel(interaction.channel_id)

    async def _game_here(self, interaction: discord.Interaction[VeletasBot]) -> Game | None:
        state = await self.state_here(interaction)
        return state if isinstance(state, Game) else None

    @app_commands.command()
    @app_commands.describe(
        **CHALLENGE_OPTIONS,
        variant="board size: standard 10×10, medium 9×9, small 7×7",
        rules="current (English rulebook, default) or classic (Spanish/Japanese rulebooks)",
    )
    async def challenge(
        self,
        interaction: discord.Interaction[VeletasBot],
        opponent: discord.Member | discord.User | None = None,
        variant: Literal["standard", "medium", "small"] = "standard",
        rules: Literal["current", "classic"] = "current",
        where: Literal["thread", "here"] = "thread",
        level: app_commands.Range[int, 1, 5] | None = None,
        time: app_commands.Range[str, 1, MAX_TIME] | None = None,
        rated: Literal["yes", "no"] | None = None,
    ) -> None:
        """Challenge a member, anyone, or me to a game of Veletas."""
        await self.issue_challenge(
            interaction, {"variant": variant, "rules": rules}, opponent, where, level, time, rated
        )

    @challenge.autocomplete("time")
    async def time_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return time_suggestions(current, private_words(interaction))

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
        game = veletas_game(info)
        if info.user_to_act == interaction.user.id:
            if stone is None and game.stone_to_place:
                colour = Phrase(f"rules.colour.{game.colour_to_act or 'black'}")
                raise UserError(
                    "veletas.setup_needs_stone", colour=colour, stone=Phrase("commands.veletas.setup.stone.name")
                )
            if stone is not None and not game.stone_to_place:
                raise UserError("veletas.setup_no_stone", stone=Phrase("commands.veletas.setup.stone.name"))
        text = shooters if stone is None else f"{shooters}/{stone}"
        if info.user_to_act == interaction.user.id and ("/" not in shooters or stone is not None):
            try:
                game.play(text)
            except veletas.IllegalMove as exc:
                raise setup_refusal(exc, game) from None
        await play_turn(interaction, info.id, text, expected_version=info.version, typed=True)

    @setup_turn.autocomplete("shooters")
    async def shooter_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        game = await self._game_here(interaction)
        if game is None or game.phase != "setup":
            return []
        return [app_commands.Choice(name=v, value=v) for v in shooter_suggestions(game, current)]

    @setup_turn.autocomplete("stone")
    async def stone_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        game = await self._game_here(interaction)
        if game is None or game.phase != "setup" or not game.stone_to_place:
            return []
        typed = str(getattr(interaction.namespace, "shooters", "") or "")
        return [app_commands.Choice(name=v, value=v) for v in stone_suggestions(game, typed, current)]

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
        puzzle = await puzzle_here(interaction, "veletas")
        if puzzle is not None:
            await move_into_puzzle(interaction, puzzle[0], move)
            return
        info = await self._here(interaction)
        expect_phase(info, "play", "move")
        await play_turn(interaction, info.id, move, expected_version=info.version, typed=True)

    @move.autocomplete("move")
    async def move_choices(
        self, interaction: discord.Interaction[VeletasBot], current: str
    ) -> list[app_commands.Choice[str]]:
        puzzle = await puzzle_state_here(interaction, "veletas")
        game = puzzle if isinstance(puzzle, Game) else await self._game_here(interaction)
        if game is None or game.phase != "play":
            return []
        w = private_words(interaction)
        return [
            app_commands.Choice(name=suggestion_label(w, kind, value)[:100], value=value)
            for kind, value in move_suggestions(game.position, current)
        ]

    @app_commands.command()
    @app_commands.describe(
        variant="board size (default: the one most played here)",
        rules="rules edition (default: the one most played here)",
        established="yes: leave out players whose rating is still provisional",
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction[VeletasBot],
        variant: Literal["standard", "medium", "small"] | None = None,
        rules: Literal["current", "classic"] | None = None,
        established: Literal["yes", "no"] = "no",
    ) -> None:
        """This server's best Veletas players by rating, page by page."""
        await send_leaderboard(
            interaction,
            TABLE,
            {name: value for name, value in (("variant", variant), ("rules", rules)) if value is not None},
            established == "yes",
        )

    @app_commands.command(name="rules")
    @app_commands.describe(edition="which rules to summarise (default: those of this channel's game, else current)")
    async def rules_command(
        self, interaction: discord.Interaction[VeletasBot], edition: Literal["current", "classic"] | None = None
    ) -> None:
        """A short summary of the rules, with a picture of a claim."""
        await send_rules(interaction, TABLE, edition)


async def setup(bot: VeletasBot) -> None:
    register(TABLE)
    bot.add_dynamic_items(
        PieButton,
        ShooterSelect,
        DestinationSelect,
        TargetSelect,
        SetupButton,
        SetupStartOver,
        SetupShooterSelect,
        SetupStoneSelect,
    )
    await bot.add_feature(
        VeletasCog(bot), group="veletas", description="Play Veletas, the territory game of shooters and stones"
    )
