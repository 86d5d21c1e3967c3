"""Round robin by the Berger tables (FIDE C.05 Annex 1), single or double, and divisions for big fields.

The Berger table for ``n`` players (``n`` even; an odd field adds a dummy ``n + 1`` whose opponent
rests) is the circle method written as arithmetic: with ``m = n - 1``, in round ``r`` the players
``i, j < n`` with ``i + j ≡ r + 1 (mod m)`` meet, white to the one for whom ``(j - i) mod m`` is odd,
and player ``n`` meets the ``i`` with ``2i ≡ r + 1 (mod m)``, taking black in odd rounds. This is the
published FIDE table (tests compare it round by round for 4, 6 and 8 players).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.tournaments.model import Bye, Game, Player, Round, Tournament, TournamentError


def berger_table(n: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The rounds of a single round robin for Berger numbers 1..n as (white, black) pairs, board order.

    For odd ``n`` the pairs against the dummy ``n + 1`` are included; callers turn them into rests.
    """
    if n < 2:
        raise TournamentError("a round robin needs at least two players")
    size = n + (n % 2)
    m = size - 1
    rounds = []
    for r in range(1, m + 1):
        target = (r + 1) % m
        pairs: list[tuple[int, int]] = []
        fixed = next(i for i in range(1, size) if (2 * i) % m == target)
        pairs.append((fixed, size) if r % 2 == 1 else (size, fixed))
        others = [i for i in range(1, size) if i != fixed]
        seen: set[int] = set()
        # Board order of the FIDE table: the board after the fixed one starts with the player after `fixed`.
        start = others.index(next(i for i in others if i > fixed)) if any(i > fixed for i in others) else 0
        for i in others[start:] + others[:start]:
            if i in seen:
                continue
            j = next(k for k in others if k != i and (i + k) % m == target)
            seen.update((i, j))
            pairs.append((i, j) if (j - i) % m % 2 == 1 else (j, i))
        rounds.append(tuple(pairs))
    return tuple(rounds)


def round_robin_schedule(players: Sequence[Player], double: bool = False) -> tuple[Round, ...]:
    """Every round of a round robin among ``players`` (seed order gives the Berger numbers).

    A double round robin plays the same table again with colours reversed.
    """
    seeded = sorted(players, key=lambda p: p.seed)
    ids = [p.id for p in seeded]
    n = len(ids)
    table = berger_table(n)
    if double:
        table = table + tuple(tuple((b, a) for a, b in rnd) for rnd in table)
    out = []
    for number, pairs in enumerate(table, start=1):
        games: list[Game] = []
        byes: list[Bye] = []
        for a, b in pairs:
            if a > n:
                byes.append(Bye(ids[b - 1], "rest"))
            elif b > n:
                byes.append(Bye(ids[a - 1], "rest"))
            else:
                games.append(Game(ids[a - 1], ids[b - 1]))
        out.append(Round(number, tuple(games), tuple(byes)))
    return tuple(out)


def rounds_needed(n: int, double: bool = False) -> int:
    """How many rounds a round robin of ``n`` players lasts."""
    return (n - 1 + n % 2) * (2 if double else 1)


def pair_round_robin(t: Tournament) -> Round:
    """The next round of a round-robin tournament, from its Berger table.

    Withdrawn players keep their place in the table; their remaining games are forfeits, recorded
    at once, so the other players' schedule does not move.
    """
    if t.format not in ("round_robin", "double_round_robin"):
        raise TournamentError(f"a {t.format} tournament is not a round robin")
    schedule = round_robin_schedule(t.players, double=t.format == "double_round_robin")
    number = len(t.rounds) + 1
    if number > len(schedule):
        raise TournamentError("every round has been played")
    rnd = schedule[number - 1]
    gone = {p.id for p in t.players if not p.active_in(number)}
    games = []
    for g in rnd.games:
        if g.white in gone or g.black in gone:
            result = "--" if g.white in gone and g.black in gone else ("-+" if g.white in gone else "+-")
            games.append(Game(g.white, g.black, result))  # type: ignore[arg-type]
        else:
            games.append(g)
    return Round(number, tuple(games), rnd.byes)


def divisions(players: Sequence[Player], max_size: int) -> tuple[tuple[Player, ...], ...]:
    """Split a big field into the fewest round-robin divisions of at most ``max_size`` players.

    Players are dealt by seed in a snake (1, 2, 3, 3, 2, 1, ...), so the divisions are as even in
    strength as they are in size (sizes differ by at most one).
    """
    if max_size < 2:
        raise TournamentError("a division needs room for two players")
    seeded = sorted(players, key=lambda p: p.seed)
    count = max(1, -(-len(seeded) // max_size))
    groups: list[list[Player]] = [[] for _ in range(count)]
    for i, p in enumerate(seeded):
        lap, pos = divmod(i, count)
        groups[pos if lap % 2 == 0 else count - 1 - pos].append(p)
    return tuple(tuple(g) for g in groups)
