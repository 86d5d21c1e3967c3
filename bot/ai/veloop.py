"""The Veloop players: the same five levels as Veletas, over the shared search of ``bot.ai.search``.

A Veloop game ends at the first move that leaves any stone confined, so one ply decides it, and
the blunders that matter are all one ply deep: missing a confinement that wins, confining your
own stones, or leaving the opponent a confinement on their next ply. Every level sees those
(``Tactics``); the levels differ in how they choose among the moves that remain:

1. at random among the safe moves (no win missed, no loss played, no winning reply left
   to the opponent when another move avoids it), looking one ply ahead;
2. greedy, looking a whole turn ahead (``deep``): a first ply whose second ply wins is a win,
   and a move is safe only when the opponent's whole next turn (two plies under 122) cannot
   confine; among the safe moves, the one after which the stones' *pressure* (enemy-topped
   neighbours of stones off the ring, the way a confinement closes in) looks best, with noise,
   keeping on a double turn's first ply a safe second ply, and, on the small boards, setting
   threats (``_level_two``); on 5×5, once the board is half full, a dozen playouts to the end
   of each ply of its shortlist choose (``_endgame``), so it keeps a confinement possible;
3. flat Monte Carlo: the greedy shortlist, tactical playouts sharing the budget, successive
   halving;
4. tree search (``bot.ai.search.TreeSearch``): the safe moves at the root in greedy order,
   progressive widening, each new node seeing its winning and losing plies at once; on the
   first ply of a double turn only the plies after which a safe second ply remains
   (``has_safe_turn``: flat Monte Carlo and the tree alike often missed that trap);
5. the same with the solver, and with a whole turn of tactics at every node: a position where
   the side to move starts a turn with no safe turn is a proven loss for it (so a ply that leaves
   the opponent so is a proven win, played at once, and one that lets the opponent do it to us is
   never played). Each iteration costs more, so its budget counts fewer of them.

Playouts are *tactical*: random, except that a side takes a confinement that wins when it has
one and never confines its own stones while another ply exists. Uniformly random games end
by whoever blunders first, which says little about a position; in matches, flat Monte Carlo
with a few dozen tactical playouts beat it with hundreds of uniform ones.

The search works on the rules kernel's flat lists (``top``/``under`` and its make-move and
incremental confinement test, the same code ``Position.play``, ``perft`` and ``playout`` use),
so there is one source of truth for the rules.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from bot.ai.budget import Budget, Level
from bot.ai.search import DRAW, TreeSearch, TreeSettings, successive_halving
from bot.rules.protocol import GameState
from bot.rules.veloop import Game as VeloopGame
from bot.rules.veloop import Move as VeloopMove
from bot.rules.veloop import Position as VeloopPosition
from bot.rules.veloop import (
    _apply,
    _confined_cells,
    _confines,
    _generate,
    _Geometry,
    _geometry,
)

# A move on the kernel's lists: (target, support, swap a, swap b) as cell indices; None is the pass.
Ply = tuple[int, int, int, int] | None

ONGOING = -1
REFERENCE = 8
"""Iteration counts are set for the 8×8 board and scaled by its square count on the others."""

LEVELS: dict[int, Level] = {
    1: Level(1, 0.2, 1, 1.0),
    2: Level(2, 0.5, 1, 1.0),
    3: Level(3, 0.4, 120, 1.0),
    4: Level(4, 1.0, 250, 5.0),
    5: Level(5, 2.5, 300, 10.0),
}
"""Per level: seconds without a seed, iterations (playouts, tree iterations) with one, and the hard cap.

Level 2's seconds are an allowance for its whole-turn tactics (about a tenth of a second on 8×8);
level 3's cap keeps it within the second the issue allows on 8×8. Level 5's iterations each judge
whole turns (``has_safe_turn``), about three times the work of level 4's: 300 of them take about
a second on 8×8, and without a seed it thinks 2.5 s, never more than 10.
"""

NOISE = 2.0
"""Level 2's blur, in pressure points (one enemy neighbour more around a stone is 1 to 7 points)."""
SHORTLIST = 8
THREATS = 3
"""Level 2 weighs this many of its best plies (and as many second plies of each) by the threats they set."""
HUNT_SIZE = 6
"""Level 2 sets threats on boards up to this size: on 5×5 and 6×6 its pressure alone often fills the board
without a confinement (a draw); on 8×8 and up it wins without them, and with them it played as well as level 3."""
ENDGAME_SIZE = 5
ENDGAME_EMPTY = 12
ENDGAME_PLAYOUTS = 12
"""On boards up to ``ENDGAME_SIZE``, once at most ``ENDGAME_EMPTY`` cells are empty, level 2 plays out each ply of
its shortlist this many times to the end (``_endgame``): there the board fills with stacks, and a ply the pressure
likes often leaves no confinement anyone can make, a draw by two passes (a quarter of its games against a random
mover on 5×5 with alternating turns)."""
TREE = TreeSettings(explore=0.4)
PLAYOUT_PLIES = 8
"""Plies a playout runs before the pressure judges it: four turns under 122, enough for a threat to land."""
PRESSURE_SCALE = 6.0
"""Pressure points that make a side about 73% sure to win (the logistic's unit)."""


class Board:
    """A mutable Veloop position on the kernel's flat lists, with the result of the last ply.

    ``colour`` is the kernel's (1 Black, 2 White); ``result`` is -1 while the game goes on,
    else 0 (Black won), 1 (White won) or 2 (a draw).
    """

    __slots__ = ("colour", "geo", "lone", "plies", "ply", "protocol", "result", "size", "top", "two_ply", "under")

    geo: _Geometry

    def __init__(self, position: VeloopPosition) -> None:
        size, protocol, top, under, colour, ply, plies, lone = position._key
        self.size = size
        self.geo = _geometry(size)
        self.protocol = protocol
        self.two_ply = protocol == "122"
        self.top = list(top)
        self.under = list(under)
        self.colour = colour
        self.ply = ply
        self.plies = plies
        self.lone = lone
        result = position.result
        self.result = ONGOING if result is None else 0 if result == "black" else 1 if result == "white" else DRAW

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.size = self.size
        other.geo = self.geo
        other.protocol = self.protocol
        other.two_ply = self.two_ply
        other.top = self.top[:]
        other.under = self.under[:]
        other.colour = self.colour
        other.ply = self.ply
        other.plies = self.plies
        other.lone = self.lone
        other.result = self.result
        return other

    @property
    def mover(self) -> int:
        """0 when Black plays the next ply, 1 for White."""
        return self.colour - 1

    def position(self) -> VeloopPosition:
        return VeloopPosition(
            self.size, self.top, self.under, self.colour, self.ply, self.plies, self.lone, self.protocol
        )

    def moves(self) -> list[Ply]:
        """Every legal ply; ``[None]`` (the pass) when there is no other."""
        found: list[Ply] = list(_generate(self.top, self.under, self.geo, self.colour))
        return found or [None]

    def move_of(self, ply: Ply) -> VeloopMove:
        if ply is None:
            return VeloopMove()
        names = self.geo.names
        return VeloopMove(names[ply[0]], names[ply[1]])

    def play(self, ply: Ply) -> None:
        """Play a legal ply in place (the pass only when it is the only one) and note a result it brings."""
        colour = self.colour
        if ply is None:
            self.lone = self.lone + 1 if self.ply == 1 else 0
            self.colour, self.ply, self.plies = 3 - colour, 1, 2 if self.two_ply else 1
            if self.lone >= 2:
                self.result = DRAW
            return
        t, s, a, b = ply
        _apply(self.top, self.under, t, a, b, colour)
        self.lone = 0
        if self.two_ply and self.ply < self.plies:
            self.ply += 1
        else:
            self.colour, self.ply, self.plies = 3 - colour, 1, 2 if self.two_ply else 1
        if _confines(self.top, self.geo, t, s, a, b):
            self.result = _judge(self.top, self.geo)

    def outcome(self, ply: Ply) -> int:
        """The result right after ``ply`` (-1 when the game goes on), the board left as it was."""
        if ply is None:
            return DRAW if self.ply == 1 and self.lone >= 1 else ONGOING
        top, under = self.top, self.under
        t, s, a, b = ply
        saved = (top[t], under[t], top[a], under[a], top[b], under[b])
        _apply(top, under, t, a, b, self.colour)
        result = _judge(top, self.geo) if _confines(top, self.geo, t, s, a, b) else ONGOING
        top[t], under[t], top[a], under[a], top[b], under[b] = saved
        return result

    def after(self, ply: Ply) -> Board:
        board = self.copy()
        board.play(ply)
        return board


def _judge(top: list[int], geo: _Geometry) -> int:
    """Who won once a stone is confined: fewer confined stones wins, the same number draws."""
    black, white = _confined_cells(top, geo)
    if len(black) == len(white):
        return DRAW
    return 0 if len(black) < len(white) else 1


def _value(result: int) -> float:
    return 0.5 if result == DRAW else 1.0 if result == 0 else 0.0


# --------------------------------------------------------------------------- one-ply tactics


@dataclass(frozen=True)
class Tactics:
    """The plies of a position sorted by what they do at once.

    ``wins`` end the game for the mover; ``safe`` go on and, when the next ply is the
    opponent's, leave them no winning ply; ``risky`` go on but leave one; ``draws`` and
    ``losses`` end the game so. ``complete`` is False when the clock stopped the sorting
    early (then ``risky`` holds the plies not looked at).
    """

    wins: list[Ply]
    safe: list[Ply]
    risky: list[Ply]
    draws: list[Ply]
    losses: list[Ply]
    complete: bool = True

    def sensible(self) -> list[Ply]:
        """The plies a player should choose among: a win, else the safe ones, else the least bad."""
        return self.wins or self.safe or self.risky or self.draws or self.losses


def tactics(board: Board, budget: Budget | None = None, *, deep: bool = False) -> Tactics:
    """Sort the plies of ``board`` by their consequences: at once, and on the opponent's next ply.

    With ``deep`` the whole turns count, as Protocol 122 plays them: a first ply after which
    the second wins is a win, and a ply that ends the turn is safe only when the opponent's
    whole next turn (two plies under 122) cannot confine.
    """
    mover = board.mover
    colour = board.colour
    wins: list[Ply] = []
    going: list[Ply] = []
    draws: list[Ply] = []
    losses: list[Ply] = []
    for ply in board.moves():
        result = board.outcome(ply)
        if result == ONGOING:
            going.append(ply)
        elif result == mover:
            wins.append(ply)
        elif result == DRAW:
            draws.append(ply)
        else:
            losses.append(ply)
    if wins:
        return Tactics(wins, [], going, draws, losses)
    safe: list[Ply] = []
    risky: list[Ply] = []
    complete = True
    for k, ply in enumerate(going):
        if budget is not None and k and budget.remaining() <= 0:
            risky.extend(going[k:])
            complete = False
            break
        after = board.after(ply)
        if after.colour == colour:
            # The first ply of a double turn: our second ply comes next.
            if deep and ply is not None and _wins_now(after.top, after.under, after.geo, colour):
                return Tactics([ply], [], [p for p in going if p != ply], draws, losses)
            safe.append(ply)
            continue
        other = after.colour
        two = deep and after.two_ply and after.plies == 2
        threat = (
            _wins_in_two(after.top, after.under, after.geo, other)
            if two
            else _wins_now(after.top, after.under, after.geo, other)
        )
        (risky if threat else safe).append(ply)
    return Tactics(wins, safe, risky, draws, losses, complete)


# --------------------------------------------------------------------------- the evaluation


def pressure(board: Board) -> float:
    """Black's advantage in how tightly the enemy stands around each side's stones off the ring.

    A stone is confined when enemy-topped cells close every way out; a stone with many of its
    neighbours taken by the enemy is the one such a ring is about to close on, and a stone on
    the ring can never be confined. Each stone counts the square of its enemy neighbours,
    doubled when its own-or-empty neighbours are down to two or fewer.
    """
    top = board.top
    geo = board.geo
    ring = geo.ring
    nbrs = geo.nbrs
    score = 0.0
    for i, stone in enumerate(top):
        if not stone or ring[i]:
            continue
        enemy = 3 - stone
        around = nbrs[i]
        hostile = sum(1 for j in around if top[j] == enemy)
        if not hostile:
            continue
        weight = hostile * hostile * (2.0 if len(around) - hostile <= 2 else 1.0)
        score += weight if stone == 2 else -weight
    return score


def rank(board: Board, plies: list[Ply], rng: random.Random, noise: float) -> list[Ply]:
    """``plies`` best first for the mover by the pressure after each, plus its own moves' count as a tie-break."""
    sign = 1.0 if board.mover == 0 else -1.0
    scored: list[tuple[float, int]] = []
    for k, ply in enumerate(plies):
        after = board.after(ply)
        value = sign * pressure(after)
        if noise:
            value += rng.gauss(0.0, noise)
        scored.append((value, k))
    scored.sort(key=lambda item: -item[0])
    return [plies[k] for _value, k in scored]


# --------------------------------------------------------------------------- the levels


class Adapter:
    """The Veloop side of ``bot.ai.search``'s adapter: a node's plies are wins first, losses last.

    With ``prove`` (level 5, once the root is made) a position where the side to move starts a
    turn with no safe turn (``has_safe_turn``) counts as won by the opponent: the tree then sees
    a whole turn of tactics at every such node and the solver carries the proofs up.
    """

    def __init__(self, prove: bool = False) -> None:
        self.prove = prove

    def copy(self, state: Board) -> Board:
        return state.copy()

    def mover(self, state: Board) -> int:
        return state.mover

    def winner(self, state: Board) -> int:
        if state.result >= 0 or not self.prove or state.ply != 1:
            return state.result
        return ONGOING if has_safe_turn(state) else 1 - state.mover

    def actions(self, state: Board) -> list[Ply]:
        """A winning ply alone when there is one; else the plies that go on, best pressure first, then the rest.

        The order is the prior of progressive widening, so a node tries the plausible plies first.
        """
        mover = state.mover
        colour = state.colour
        sign = 1.0 if mover == 0 else -1.0
        top, under, geo = state.top, state.under, state.geo
        going: list[tuple[float, int]] = []
        plies = state.moves()
        rest: list[Ply] = []
        for k, ply in enumerate(plies):
            if ply is None:
                return [ply]
            t, s, a, b = ply
            saved = (top[t], under[t], top[a], under[a], top[b], under[b])
            _apply(top, under, t, a, b, colour)
            if _confines(top, geo, t, s, a, b):
                result = _judge(top, geo)
                top[t], under[t], top[a], under[a], top[b], under[b] = saved
                if result == mover:
                    return [ply]
                rest.append(ply)
                continue
            score = sign * pressure(state)
            top[t], under[t], top[a], under[a], top[b], under[b] = saved
            going.append((score, k))
        going.sort(key=lambda item: -item[0])
        return [plies[k] for _score, k in going] + rest

    def play(self, state: Board, action: Ply) -> None:
        state.play(action)

    def playout(self, state: Board, rng: random.Random) -> float:
        return tactical_playout(state, rng, PLAYOUT_PLIES)


@dataclass(frozen=True)
class Choice:
    """A decision: the ply, Black's estimated chance of winning after it, the work it took, a proven winner or -1."""

    ply: Ply
    black: float
    iterations: int
    proven: int = -1


def choose(board: Board, level: int, rng: random.Random, budget: Budget) -> Choice:
    """The ply of ``level`` for the side to move on ``board`` (a game that goes on)."""
    found = tactics(board, budget, deep=level >= 2)
    mover = board.mover
    if found.wins:
        return Choice(found.wins[0], 1.0 if mover == 0 else 0.0, 0, mover)
    options = found.sensible()
    if level >= 4 and len(found.safe) > 1 and board.two_ply and board.ply < board.plies:
        # The first ply of a double turn: keep those after which a safe second ply remains.
        whole = [ply for ply in found.safe if has_safe_turn(board.after(ply), budget)]
        options = whole or options
    if len(options) == 1 or level <= 1:
        return Choice(rng.choice(options), 0.5, 1)
    ranked = rank(board, options, rng, NOISE if level == 2 else 0.0)
    if level == 2:
        return Choice(_level_two(board, ranked, found, budget, rng), 0.5, len(ranked))
    if budget.remaining() <= 0:
        return Choice(ranked[0], 0.5, len(ranked))
    if level == 3:
        return _flat(board, ranked[:SHORTLIST], rng, budget)
    if level >= 5 and found.safe:
        for ply in ranked:
            after = board.after(ply)
            if after.colour != board.colour and not has_safe_turn(after, budget):
                # The opponent's every turn hands us the game (a False is never the clock's doing).
                return Choice(ply, 1.0 if mover == 0 else 0.0, 0, mover)
    settings = TreeSettings(
        TREE.explore, TREE.widen_base, TREE.widen_power, TREE.root_base, TREE.root_power, level >= 5
    )
    adapter = Adapter()
    search = TreeSearch(adapter, board, settings, rng, ranked)
    # The root is the position to play, judged above: the proofs start below it.
    adapter.prove = level >= 5
    result = search.run(budget)
    return Choice(result.action, result.black, result.iterations, result.proven)


def _level_two(board: Board, ranked: list[Ply], found: Tactics, budget: Budget, rng: random.Random) -> Ply:
    """Level 2's ply among ``ranked``, its safe plies best first by the pressure (with noise).

    On the first ply of a double turn it keeps a safe second ply (``has_safe_turn``): without that it
    could walk into a turn whose every ending hands the opponent a win. On a small board (``HUNT_SIZE``),
    where its pressure alone often fills the board without a confinement (a draw), it also sets threats:
    of its best ``THREATS`` plies (on a first ply, with each one's best ``THREATS`` second plies), the one
    that leaves it the most plies winning its next turn. Late on the smallest board, playouts choose (``_endgame``).
    """
    if not found.safe:
        return ranked[0]
    if board.size <= ENDGAME_SIZE and board.top.count(0) <= ENDGAME_EMPTY:
        return _endgame(board, ranked, budget, rng)
    colour = board.colour
    hunting = board.size <= HUNT_SIZE
    if board.two_ply and board.ply < board.plies:
        best: Ply | None = None
        most = -1
        checked = 0
        for ply in ranked:
            after = board.after(ply)
            if not has_safe_turn(after, budget):
                continue
            if not hunting:
                return ply
            if best is None:
                best = ply
            second = tactics(after, budget, deep=True)
            seconds = rank(after, second.safe, rng, 0.0)[:THREATS]
            value = max((_threats(after.after(p), colour) for p in seconds), default=0)
            if value > most:
                best, most = ply, value
            checked += 1
            if checked >= THREATS or budget.remaining() <= 0:
                break
        return ranked[0] if best is None else best
    best = ranked[0]
    most = 0
    if hunting:
        for k, ply in enumerate(ranked):
            if k and budget.remaining() <= 0:
                break
            value = _threats(board.after(ply), colour)
            if value > most:
                best, most = ply, value
    return best


def _endgame(board: Board, ranked: list[Ply], budget: Budget, rng: random.Random) -> Ply:
    """Level 2's ply late on a small board: of its ``SHORTLIST`` best safe plies (on a double turn's first ply, those
    keeping a safe second ply), the one whose ``ENDGAME_PLAYOUTS`` tactical playouts to the end score best for it;
    the pressure's order breaks ties. The clock may cut the playouts short (then the plies played out so far)."""
    keep = ranked[:SHORTLIST]
    if board.two_ply and board.ply < board.plies:
        keep = [ply for ply in ranked if has_safe_turn(board.after(ply), budget)][:SHORTLIST] or keep
    mover = board.mover
    best = keep[0]
    most = -1.0
    for k, ply in enumerate(keep):
        if k and budget.remaining() <= 0:
            break
        after = board.after(ply)
        black = sum(tactical_playout(after, rng) for _ in range(ENDGAME_PLAYOUTS))
        points = black if mover == 0 else ENDGAME_PLAYOUTS - black
        if points > most:
            best, most = ply, points
    return best


def _flat(board: Board, shortlist: list[Ply], rng: random.Random, budget: Budget) -> Choice:
    mover = board.mover

    def trial(k: int) -> float:
        black = tactical_playout(board.after(shortlist[k]), rng, PLAYOUT_PLIES)
        return black if mover == 0 else 1.0 - black

    found = successive_halving(len(shortlist), trial, budget)
    best = found.order[0]
    mean = found.mean(best) if found.runs[best] else 0.5
    return Choice(shortlist[best], mean if mover == 0 else 1.0 - mean, found.done)


def level_of(level: int) -> Level:
    found = LEVELS.get(level) if isinstance(level, int) else None
    if found is None:
        raise ValueError(f"the AI level must be a whole number from 1 to {max(LEVELS)}, not {level!r}")
    return found


def choose_move(
    position: VeloopPosition, level: int = 3, *, seed: int | None = None, time_limit: float | None = None
) -> VeloopMove:
    """A legal move (``pass`` when it is the only one) for the side to move; ValueError when the game is over."""
    settings = level_of(level)
    budget = Budget.for_level(
        settings, seeded=seed is not None, time_limit=time_limit, size=position.size, reference=REFERENCE, power=1.0
    )
    if position.is_over:
        raise ValueError("the game is over: there is no move to choose")
    board = Board(position)
    found = choose(board, level, random.Random(seed), budget)
    return board.move_of(found.ply)


def choose_turn(state: GameState, level: int = 3, *, seed: int | None = None, time_limit: float | None = None) -> str:
    """Veloop's AI turn for ``bot.ai.choose_turn``: a move (``pass`` when it is the only one), as text."""
    if not isinstance(state, VeloopGame):
        raise TypeError(f"not a Veloop game: {state.kind.title}")
    return str(choose_move(state.position, level, seed=seed, time_limit=time_limit))


def has_safe_turn(board: Board, budget: Budget | None = None) -> bool:
    """Whether the side to move can play out its turn without handing the opponent a win on theirs.

    A ply that wins or draws at once will do; a ply that goes on and ends the turn must leave the opponent's whole
    next turn unable to confine (as ``tactics(deep=True)`` judges safety); the first ply of a double
    turn must be followed by such a second one. It stops at the first safe turn it finds, so a
    roomy position costs a few plies' checks and only a tight one is searched through; when the
    budget's clock runs out it answers True (nothing proven).
    """
    mover = board.mover
    colour = board.colour
    for ply in board.moves():
        if budget is not None and budget.remaining() <= 0:
            return True
        result = board.outcome(ply)
        if result in (mover, DRAW):
            return True
        if result != ONGOING:
            continue
        after = board.after(ply)
        if after.colour == colour:
            if has_safe_turn(after, budget):
                return True
            continue
        other = after.colour
        if after.two_ply and after.plies == 2:
            threat = _wins_in_two(after.top, after.under, after.geo, other)
        else:
            threat = _wins_now(after.top, after.under, after.geo, other)
        if not threat:
            return True
    return False


def _wins_now(top: list[int], under: list[int], geo: _Geometry, colour: int) -> bool:
    """Whether ``colour`` has a ply that confines more enemy stones than its own, on the kernel's lists."""
    me = colour - 1
    for t, s, a, b in _generate(top, under, geo, colour):
        saved = (top[t], under[t], top[a], under[a], top[b], under[b])
        _apply(top, under, t, a, b, colour)
        won = _confines(top, geo, t, s, a, b) and _judge(top, geo) == me
        top[t], under[t], top[a], under[a], top[b], under[b] = saved
        if won:
            return True
    return False


def _threats(board: Board, colour: int) -> int:
    """How many plies of ``colour`` would win its next turn on ``board`` (with the ply after, under 122)."""
    top, under, geo = board.top, board.under, board.geo
    me = colour - 1
    count = 0
    for t, s, a, b in _generate(top, under, geo, colour):
        saved = (top[t], under[t], top[a], under[a], top[b], under[b])
        _apply(top, under, t, a, b, colour)
        if _confines(top, geo, t, s, a, b):
            won = _judge(top, geo) == me
        else:
            won = board.two_ply and _wins_now(top, under, geo, colour)
        top[t], under[t], top[a], under[a], top[b], under[b] = saved
        count += won
    return count


def _wins_in_two(top: list[int], under: list[int], geo: _Geometry, colour: int) -> bool:
    """Whether ``colour``, with two plies to play, wins with the first or the second."""
    me = colour - 1
    for t, s, a, b in _generate(top, under, geo, colour):
        saved = (top[t], under[t], top[a], under[a], top[b], under[b])
        _apply(top, under, t, a, b, colour)
        won = _judge(top, geo) == me if _confines(top, geo, t, s, a, b) else _wins_now(top, under, geo, colour)
        top[t], under[t], top[a], under[a], top[b], under[b] = saved
        if won:
            return True
    return False


def black_chance(board: Board) -> float:
    """Black's chance of winning as the pressure says: exact once the game is over, else a logistic of it."""
    if board.result >= 0:
        return _value(board.result)
    return 1.0 / (1.0 + math.exp(-pressure(board) / PRESSURE_SCALE))


def tactical_playout(board: Board, rng: random.Random, plies: int = 0, decisive: bool = True) -> float:
    """Black's value of a game from ``board`` in which each side plays at random but takes a win it has
    (``decisive``: every ply is looked at; otherwise only those drawn before a ply that goes on) and never
    confines its own stones when another ply exists; cut after ``plies`` (0: never) and then judged by
    the pressure."""
    b = board.copy()
    top, under, geo = b.top, b.under, b.geo
    rand = rng.random
    played = 0
    while b.result < 0:
        if plies and played >= plies:
            return black_chance(b)
        played += 1
        colour = b.colour
        me = colour - 1
        moves = _generate(top, under, geo, colour)
        if not moves:
            b.play(None)
            continue
        count = len(moves)
        start = int(rand() * count)
        chosen: Ply = None
        fallback: Ply = None
        for k in range(count):
            t, s, a, c = ply = moves[(start + k) % count]
            saved = (top[t], under[t], top[a], under[a], top[c], under[c])
            _apply(top, under, t, a, c, colour)
            result = _judge(top, geo) if _confines(top, geo, t, s, a, c) else ONGOING
            top[t], under[t], top[a], under[a], top[c], under[c] = saved
            if result == me:
                chosen = ply
                break
            if result == ONGOING:
                if chosen is None:
                    chosen = ply
                    if not decisive:
                        break
            elif fallback is None:
                fallback = ply
        b.play(chosen if chosen is not None else fallback)
    return _value(b.result)
