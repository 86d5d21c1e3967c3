"""A round's recap: its upsets, its longest game and its biggest claim (Veletas) or confinement (Veloop), from the
games' stored turns replayed by the rules.

Pure like the rest of the package: the round's games in (who played whom, the pairing's result, the game's turns),
a ``Recap`` out, or None when nothing was played on a board (every pairing a forfeit, every player on a bye) or
there is nothing to say. A fact the round lacks is None (or no upsets), and says nothing.

- An upset is a win of the lower-rated player, by the ratings the players entered the event with; the biggest gaps
  first, at most ``MAX_UPSETS``.
- The longest game is the one with the most turns (every turn the rules record: setups, the pie choice, moves);
  none when every game ended (a resignation) before its first turn.
- A Veletas claim: after every shot, each shooter that can no longer move goes to the side with the bigger adjacent
  group (``bot.rules.veletas.Claim``). The biggest claim is the most shooters one side claimed with one move, then
  the biggest group that won them.
- A Veloop confinement ends the game: the move that leaves stones fenced in. The biggest is the move that confined
  the most stones (of both colours).

Ties go to the lower board, then the earlier turn. Only games with a result on the board (``1-0``, ``0-1``,
``1/2-1/2``) count; a game whose turns the rules refuse still counts for upsets and length, not for claims.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bot.rules import veletas, veloop
from bot.rules.common import RecordError
from bot.rules.protocol import GameKind, GameState, Refused

log = logging.getLogger(__name__)

MAX_UPSETS = 3
PLAYED = ("1-0", "0-1", "1/2-1/2")
"""The pairing results of a game decided on the board (forfeits, ``+-`` ``-+`` ``--``, are not)."""


@dataclass(frozen=True)
class RecapGame:
    """One game of the round: the pairing's board, its first seat (``white``, who moves first) and second, its
    result (``1-0``: the first seat won), the game's name and settings, and its turns as stored."""

    board: int
    white: int
    black: int
    result: str
    game: str
    settings: Mapping[str, str] = field(default_factory=dict)
    turns: tuple[str, ...] = ()


@dataclass(frozen=True)
class Upset:
    """A lower-rated player's win: ``winner`` rated ``winner_rating`` beat ``loser`` rated ``loser_rating``."""

    board: int
    winner: int
    loser: int
    winner_rating: int
    loser_rating: int

    @property
    def gap(self) -> int:
        return self.loser_rating - self.winner_rating


@dataclass(frozen=True)
class Longest:
    """The round's longest game: its board, its two players (first seat first) and its turns."""

    board: int
    white: int
    black: int
    turns: int


@dataclass(frozen=True)
class Feat:
    """One move's feat: ``player`` (against ``opponent``) claimed ``count`` shooters (Veletas; ``group`` the biggest
    adjacent group that won them, ``squares`` where they stand) or confined ``count`` stones (Veloop), on ``turn``
    (1-based, as the game's record numbers its turns)."""

    board: int
    player: int
    opponent: int
    count: int
    turn: int
    group: int = 0
    squares: tuple[str, ...] = ()


@dataclass(frozen=True)
class Recap:
    round: int
    upsets: tuple[Upset, ...] = ()
    longest: Longest | None = None
    claim: Feat | None = None
    """Veletas: the biggest claim of the round."""
    confinement: Feat | None = None
    """Veloop: the biggest confinement of the round."""


def round_recap(number: int, games: Iterable[RecapGame], ratings: Mapping[int, int]) -> Recap | None:
    """The recap of round ``number`` from its games; None when none of them was played on the board, or the round
    has nothing to say (no upset, and no game got past its first turn)."""
    played = sorted((g for g in games if g.result in PLAYED), key=lambda g: g.board)
    if not played:
        return None
    upsets = sorted((u for g in played if (u := upset(g, ratings)) is not None), key=lambda u: (-u.gap, u.board))
    longest = max(played, key=lambda g: (len(g.turns), -g.board))
    claims: list[Feat] = []
    confinements: list[Feat] = []
    for g in played:
        state = replayed(g)
        if isinstance(state, veletas.Game):
            claims += veletas_claims(g, state)
        elif isinstance(state, veloop.Game):
            confinements += veloop_confinement(g, state)
    recap = Recap(
        number,
        tuple(upsets[:MAX_UPSETS]),
        Longest(longest.board, longest.white, longest.black, len(longest.turns)) if longest.turns else None,
        biggest(claims),
        biggest(confinements),
    )
    return recap if recap.upsets or recap.longest or recap.claim or recap.confinement else None


def upset(g: RecapGame, ratings: Mapping[int, int]) -> Upset | None:
    if g.result == "1-0":
        winner, loser = g.white, g.black
    elif g.result == "0-1":
        winner, loser = g.black, g.white
    else:
        return None
    won, lost = ratings.get(winner), ratings.get(loser)
    if won is None or lost is None or won >= lost:
        return None
    return Upset(g.board, winner, loser, won, lost)


def biggest(feats: list[Feat]) -> Feat | None:
    """The biggest feat: the most shooters or stones, then the biggest group; ties to the lower board, earlier turn."""
    if not feats:
        return None
    return min(feats, key=lambda f: (-f.count, -f.group, f.board, f.turn))


def replayed(g: RecapGame) -> GameState | None:
    """The game at its end, its turns replayed one by one (checked as each is played); None if the rules refuse one
    or the game is not one of theirs."""
    kinds: dict[str, GameKind] = {"veletas": veletas.KIND, "veloop": veloop.KIND}
    kind = kinds.get(g.game)
    if kind is None:
        return None
    try:
        return kind.replay(g.turns, g.settings)
    except (RecordError, Refused, ValueError) as exc:
        log.warning("A recap skipped board %d: its turns do not replay (%s)", g.board, exc)
        return None


def seat_player(g: RecapGame, state: GameState, colour: str) -> tuple[int, int]:
    """(the player of ``colour``, their opponent) in ``g``, colours as ``state`` has them decided."""
    first = state.seat_of("black" if colour == "black" else "white") == "first"
    return (g.white, g.black) if first else (g.black, g.white)


def veletas_claims(g: RecapGame, end: veletas.Game) -> list[Feat]:
    """Each side's claims of each move of a Veletas game, as feats (one per move and side that claimed)."""
    out: list[Feat] = []
    game = veletas.KIND.new(end.settings)
    for turn, text in enumerate(g.turns, start=1):
        playing = game.phase == "play"
        game = game.play(text)
        if not playing:
            continue
        by_side: dict[str, list[veletas.Claim]] = {}
        for claim in game.position.last_claims:
            by_side.setdefault(claim.colour, []).append(claim)
        for colour, claims in by_side.items():
            player, opponent = seat_player(g, game, colour)
            group = max(c.black_group if colour == "black" else c.white_group for c in claims)
            squares = tuple(c.square for c in claims)
            out.append(Feat(g.board, player, opponent, len(claims), turn, group, squares))
    return out


def veloop_confinement(g: RecapGame, end: veloop.Game) -> list[Feat]:
    """The move that ended a Veloop game by confinement, as a feat of its mover: the stones it left fenced in."""
    outcome = end.outcome
    if outcome is None or outcome.termination != "confinement" or not end.turns:
        return []
    before = veloop.KIND.replay(end.turns[:-1], end.settings)
    mover = before.colour_to_act
    if mover is None:
        return []
    confined = end.position.confined
    player, opponent = seat_player(g, end, mover)
    return [Feat(g.board, player, opponent, len(confined.black) + len(confined.white), len(end.turns))]
