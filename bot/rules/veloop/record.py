"""Veloop records (NOTATION.md): writing a game's record, and reading one back with every ply validated."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from bot.rules.common import RecordError, ending_headers, quote, read_record
from bot.rules.common import write_record as _write_record_text
from bot.rules.veloop.moves import Move
from bot.rules.veloop.position import Position


@dataclass(frozen=True)
class Replay:
    """A validated record: its headers, the start, every move, and the position after each."""

    headers: Mapping[str, str]
    start: Position
    moves: tuple[Move, ...]
    positions: tuple[Position, ...]

    @property
    def final(self) -> Position:
        return self.positions[-1] if self.positions else self.start


_RESULT_TOKEN: Final = {"black": "1-0", "white": "0-1", "draw": "1/2-1/2"}


def result_text(position: Position) -> str:
    """The PGN-style Result header, as Veletas records write it: 1-0 Black won, 0-1 White won, 1/2-1/2, or *."""
    return _RESULT_TOKEN.get(position.result or "", "*")


def write_record(
    moves: Sequence[Move | str],
    start: Position | None = None,
    headers: Mapping[str, str] | None = None,
) -> str:
    """A record of a game from `start` (the standard start by default), replayed here so it cannot hold an illegal ply.

    Headers Game, Board and Protocol come from the position; `headers` adds players, date
    and the like. A start other than the standard one is kept in a Position header. The
    Result and Termination follow the plies once the game is over; before that, the ending
    `headers` state (a resignation, a timeout, with its Result) is kept.
    """
    start = start or Position.start()
    position = start
    turns: list[str] = []
    for number, move in enumerate(moves, 1):
        try:
            chosen = position.parse_move(move) if isinstance(move, str) else move
            position = position.play(chosen)
        except ValueError as exc:
            raise RecordError(str(exc), number) from None
        turns.append(str(chosen))
    out: dict[str, str] = {
        "Game": "veloop",
        "Board": f"{start.size}x{start.size}",
        "Protocol": start.protocol,
        "Black": "?",
        "White": "?",
        "Date": "????.??.??",
    }
    for key, value in (headers or {}).items():
        if key.lower() not in ("game", "board", "protocol", "position", "result", "termination"):
            out[key] = str(value)
    if start != Position.start(start.size, start.protocol):
        out["Position"] = str(start)
    out |= ending_headers(_ending(position), headers or {})
    return _write_record_text(out, turns)


def _ending(position: Position) -> tuple[str, str] | None:
    """(Result, Termination) when the plies ended the game: both players passed, or a stone was confined."""
    if not position.is_over:
        return None
    return result_text(position), "passes" if position.lone_passes >= 2 else "confinement"


_BOARD_RE: Final = re.compile(r"\s*(\d+)\s*[x×]\s*(\d+)\s*")


def replay(text: str) -> Replay:
    """Read and validate a record; any fault raises RecordError (with the ply number when a ply is at fault)."""
    record = read_record(text)
    game = record.header("Game")
    if game is None or game.strip().lower() != "veloop":
        raise RecordError(f'not a Veloop record: the Game header is {quote(game or "")}, expected "veloop"')
    board = record.header("Board", "8x8") or "8x8"
    m = _BOARD_RE.fullmatch(board)
    if m is None or m.group(1) != m.group(2):
        raise RecordError(f'the Board header is written like "8x8", not {quote(board)}')
    size = int(m.group(1))
    protocol = (record.header("Protocol", "122") or "122").strip().lower()
    try:
        given = record.header("Position")
        start = Position.from_string(given, protocol) if given else Position.start(size, protocol)
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    if start.size != size:
        raise RecordError(f"the Position header is a {start.size}×{start.size} board but the Board header says {board}")
    position = start
    moves: list[Move] = []
    positions: list[Position] = []
    for number, turn in enumerate(record.turns, 1):
        try:
            move = position.parse_move(turn)
            position = position.play(move)
        except ValueError as exc:
            raise RecordError(str(exc), number) from None
        moves.append(move)
        positions.append(position)
    # A game stopped early (a resignation, a timeout) may claim any result; a finished one must agree.
    claimed = (record.header("Result") or "*").strip()
    if position.is_over and claimed not in ("*", "", result_text(position)):
        raise RecordError(f"the Result header says {quote(claimed)} but the plies give {result_text(position)}")
    if not position.is_over:
        ending_headers(None, record.headers)  # an ending off the board must be one NOTATION.md knows
    return Replay(dict(record.headers), start, tuple(moves), tuple(positions))
