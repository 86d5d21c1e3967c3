"""Swiss pairings checked against the reference engine's answers (bbpPairings, FIDE Dutch system, 2025 rules).

``tests/tournaments/data/swiss_reference.jsonl`` holds simulated Swiss events and, for every round of each, the
pairing bbpPairings gave. Its first line is a header saying how it was produced; every other line is one event:

- ``trf``: the whole event as TRF (``bot.tournaments.swiss.to_trf`` of the finished event): one ``001`` line per
  player (starting number = player id = seed), every round's opponent, colour and result code, ``XXR``, ``XXC``;
- ``answers``: for round r, bbpPairings' pairs in board order as ``[white, black]`` starting numbers (``[n, 0]``:
  the pairing-allocated bye), or ``null`` if it found the round cannot be paired (the event ends there).

Round r was paired from the TRF cut to its first r-1 rounds, plus the round-r entries of the players left out of
the pairing: the byes granted for round r (``H`` ½ point, ``F`` 1 point, ``Z`` 0 points) and the absent (not yet
joined, withdrawn: ``Z``). That is exactly the TRF the bot writes for that round, so replaying an event through
``bot.tournaments.swiss.pair_swiss`` gives both engines the same input; ``replay`` does it and compares pairs,
colours, board order and bye.

``tests/tournaments/data/swiss_reference_heldout.jsonl`` holds more events, made the same way with another seed and
profile (``HELD_OUT``: 20 to 120 players, twice as many draws) after the bot matched every round of the first file:
a check on events nothing was tuned on.

``python -m benchmarks.swiss_reference`` prints "N of M rounds match" for each file (``--show K`` lists K
mismatches). ``python -m benchmarks.swiss_reference --generate PATH_TO_BBPPAIRINGS`` writes the data files anew:
seeded, so the same engine gives the same files. The events (``FIRST``): 4 to 60 players (odd and even), 3 to 11
rounds, ratings at random; late entries, withdrawals, ½-, 1- and 0-point byes on request, forfeits won and lost
(no-shows) and double forfeits; results follow the ratings.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.tournaments import Bye, ByeKind, Game, Player, Round, Tournament, TournamentError, pair_swiss
from bot.tournaments.model import Result
from bot.tournaments.swiss import to_trf

_DIR = Path(__file__).resolve().parent.parent / "tests" / "tournaments" / "data"
DATA = _DIR / "swiss_reference.jsonl"
HELD_OUT_DATA = _DIR / "swiss_reference_heldout.jsonl"


@dataclass(frozen=True)
class Profile:
    """How a data file's events are drawn."""

    events: int
    seed: int
    players: tuple[int, int]  # fewest, most
    draws: float  # the share of played games drawn


FIRST = Profile(events=300, seed=2025, players=(4, 60), draws=0.2)
HELD_OUT = Profile(events=100, seed=7_2025, players=(20, 120), draws=0.4)
ENGINE = "bbpPairings v6.0.0 (FIDE Dutch system, C.04.3 as in force since 1 July 2025)"
COMMAND = "bbpPairings.exe --dutch round.trf -p pairs.txt"

Pairs = list[tuple[int, int]]
"""A round as starting numbers in board order: (white, black), or (player, 0) for the pairing-allocated bye."""

_RESULTS: Mapping[tuple[str, str], Result] = {
    ("1", "0"): "1-0",
    ("0", "1"): "0-1",
    ("=", "="): "1/2-1/2",
    ("+", "-"): "+-",
    ("-", "+"): "-+",
    ("-", "-"): "--",
}
_BYES: Mapping[str, ByeKind] = {"U": "pairing", "F": "full", "H": "half", "Z": "zero"}


# --- reading an event back -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One recorded event: its TRF rows and the reference pairs of each round."""

    number: int
    trf: str
    ratings: dict[int, int]
    rows: dict[int, list[tuple[int, str, str]]]  # number -> per round (opponent, colour, code)
    total_rounds: int
    first_white: bool
    answers: list[Pairs | None]


def read_trf(text: str) -> tuple[dict[int, int], dict[int, list[tuple[int, str, str]]], int, bool]:
    """(ratings, rows, rounds planned, first colour white) of a TRF written by ``to_trf``."""
    ratings: dict[int, int] = {}
    rows: dict[int, list[tuple[int, str, str]]] = {}
    total, first_white = 0, True
    for line in text.splitlines():
        if line.startswith("001"):
            number = int(line[4:8])
            ratings[number] = int(line[48:52])
            rest = line[89:]  # after the rank: ten columns a round, "  oooo c r"
            rows[number] = [(int(rest[i + 2 : i + 6]), rest[i + 7], rest[i + 9]) for i in range(0, len(rest), 10)]
        elif line.startswith("XXR"):
            total = int(line.split()[1])
        elif line.startswith("XXC"):
            first_white = line.split()[1] == "white1"
    return ratings, rows, total, first_white


def load(path: Path = DATA) -> tuple[dict[str, Any], list[Event]]:
    """The data file's header and its events."""
    with path.open(encoding="utf-8") as f:
        header = json.loads(f.readline())
        events = []
        for i, line in enumerate(f):
            record = json.loads(line)
            ratings, rows, total, first_white = read_trf(record["trf"])
            answers = [None if a is None else [(w, b) for w, b in a] for a in record["answers"]]
            events.append(Event(i + 1, record["trf"], ratings, rows, total, first_white, answers))
    return header, events


def position(event: Event, number: int) -> tuple[Tournament, dict[int, ByeKind]]:
    """The event as it stood before round ``number`` was paired, and the byes (or absences) of that round."""
    players = tuple(Player(n, event.ratings[n], n) for n in sorted(event.ratings))
    rounds: list[Round] = []
    for r in range(number - 1):
        games: list[Game] = []
        byes: list[Bye] = []
        for n, row in sorted(event.rows.items()):
            opponent, colour, code = row[r]
            if opponent == 0:
                byes.append(Bye(n, _BYES[code]))
            elif colour == "w":
                games.append(Game(n, opponent, _RESULTS[code, event.rows[opponent][r][2]]))
        rounds.append(Round(r + 1, tuple(games), tuple(byes)))
    left_out = {
        n: _BYES[row[number - 1][2]]
        for n, row in event.rows.items()
        if len(row) >= number and row[number - 1][0] == 0 and row[number - 1][2] != "U"
    }
    return Tournament("swiss", players, event.total_rounds, tuple(rounds), event.first_white), left_out


def as_pairs(rnd: Round) -> Pairs:
    """A bot round as starting numbers (ids are the numbers here), in board order, the pairing bye last."""
    return [(g.white, g.black) for g in rnd.games] + [(b.player, 0) for b in rnd.byes if b.kind == "pairing"]


@dataclass(frozen=True)
class Mismatch:
    event: int
    round: int
    players: int
    reference: Pairs | None
    ours: Pairs | None

    def __str__(self) -> str:
        where = f"event {self.event}, round {self.round} ({self.players} players)"
        return f"{where}: reference {self.reference}, bot {self.ours}"


def bot_pairs(t: Tournament, byes: Mapping[int, ByeKind]) -> Pairs | None:
    try:
        return as_pairs(pair_swiss(t, byes))
    except TournamentError:
        return None


def replay(events: Sequence[Event]) -> tuple[int, list[Mismatch]]:
    """(rounds compared, the rounds the bot pairs otherwise than the reference)."""
    compared, mismatches = 0, []
    for event in events:
        for r, answer in enumerate(event.answers, start=1):
            t, byes = position(event, r)
            ours = bot_pairs(t, byes)
            compared += 1
            if ours != answer:
                mismatches.append(Mismatch(event.number, r, len(event.ratings), answer, ours))
    return compared, mismatches


# --- making the data -------------------------------------------------------------------------------------------


def reference_pairs(bbp: str, trf: str) -> Pairs | None:
    """bbpPairings' pairing of the next round of ``trf``, or ``None`` if it says the round cannot be paired."""
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp, "round.trf"), Path(tmp, "pairs.txt")
        source.write_text(trf, encoding="utf-8")
        done = subprocess.run([bbp, "--dutch", str(source), "-p", str(out)], capture_output=True, text=True)
        if done.returncode == 1:
            return None
        if done.returncode != 0:
            raise RuntimeError(f"bbpPairings failed ({done.returncode}): {done.stderr}\n{trf}")
        lines = out.read_text(encoding="utf-8").split("\n")
    count = int(lines[0])
    pairs = [(int(a), int(b)) for a, b in (line.split() for line in lines[1 : count + 1])]
    return sorted(pairs, key=lambda p: p[1] == 0)  # the bye after the boards, as the bot lists it


def _result(rng: random.Random, white: int, black: int, draws: float) -> Result:
    roll = rng.random()
    if roll < 0.04:
        return "+-"
    if roll < 0.08:
        return "-+"
    if roll < 0.095:
        return "--"
    p_white = 1 / (1 + 10 ** ((black - white) / 400))
    return "1/2-1/2" if rng.random() < draws else ("1-0" if rng.random() < p_white else "0-1")


def simulate(bbp: str, rng: random.Random, profile: Profile = FIRST) -> tuple[str, list[Pairs | None], list[str]]:
    """One event paired round by round by bbpPairings: its final TRF, the answers and each round's input."""
    n = rng.randint(*profile.players)
    total = rng.randint(3, min(11, n - 1))
    ratings = sorted((rng.randint(1000, 2500) for _ in range(n)), reverse=True)
    players = []
    for i, rating in enumerate(ratings):
        joined = rng.randint(2, total) if total > 2 and rng.random() < 0.08 else 1
        left = rng.randint(joined + 1, total) if joined < total and rng.random() < 0.07 else None
        players.append(Player(i + 1, rating, i + 1, joined, left))
    t = Tournament("swiss", tuple(players), total, (), rng.random() < 0.6)
    answers: list[Pairs | None] = []
    inputs: list[str] = []
    for number in range(1, total + 1):
        byes: dict[int, ByeKind] = {}
        for p in players:
            if p.active_in(number) and rng.random() < 0.05:
                byes[p.id] = rng.choice(("half", "half", "full", "zero", "zero"))
        trf = to_trf(t, byes)
        inputs.append(trf)
        answer = reference_pairs(bbp, trf)
        answers.append(answer)
        if answer is None:  # the event ends here: its TRF is the one the engine could not pair
            return trf, answers, inputs
        games = tuple(Game(w, b, _result(rng, ratings[w - 1], ratings[b - 1], profile.draws)) for w, b in answer if b)
        granted = tuple(Bye(pid, kind) for pid, kind in sorted(byes.items()))
        t = t.with_round(Round(number, games, granted + tuple(Bye(w, "pairing") for w, b in answer if not b)))
    return to_trf(t), answers, inputs


def generate(bbp: str, path: Path = DATA, profile: Profile = FIRST) -> None:
    rng = random.Random(profile.seed)
    events, seed = profile.events, profile.seed
    header = {
        "about": "Swiss events paired round by round by the reference engine; see benchmarks/swiss_reference.py",
        "engine": ENGINE,
        "command": COMMAND,
        "input": "round r: the event's TRF cut to rounds 1..r-1, plus the round-r entries (H, F, Z) of those left out",
        "generator": f"python -m benchmarks.swiss_reference --generate BBPPAIRINGS (seed {seed}, {events} events)",
        "profile": f"{profile.players[0]} to {profile.players[1]} players, {profile.draws:.0%} of played games drawn",
    }
    lines = [json.dumps(header)]
    for number in range(1, events + 1):
        trf, answers, inputs = simulate(bbp, rng, profile)
        event = Event(number, trf, *read_trf(trf), answers=answers)
        for r, given in enumerate(inputs, start=1):  # the replay hands the bot exactly what the engine read
            if to_trf(*position(event, r)) != given:
                raise RuntimeError(f"event {number}, round {r}: the recorded TRF does not give back the engine's input")
        lines.append(json.dumps({"trf": trf, "answers": answers}, separators=(",", ":")))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--generate", metavar="BBPPAIRINGS", help="write the data file anew with this engine binary")
    parser.add_argument("--show", type=int, default=0, metavar="K", help="list the first K mismatching rounds")
    args = parser.parse_args(argv)
    files = ((DATA, FIRST), (HELD_OUT_DATA, HELD_OUT))
    if args.generate:
        for path, profile in files:
            generate(args.generate, path, profile)
            print(f"wrote {path}")
        return 0
    failed = False
    for path, _ in files:
        header, events = load(path)
        compared, mismatches = replay(events)
        print(f"{path.name}: {compared - len(mismatches)} of {compared} rounds match {header['engine']}")
        for mismatch in mismatches[: args.show]:
            print(mismatch)
        failed = failed or bool(mismatches)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
