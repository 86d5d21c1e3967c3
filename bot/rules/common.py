"""What every game's rules share: square names and game records.

Both games name cells like chess (files a, b, c ... left to right, ranks 1, 2, 3 ... bottom to
top) and keep games as PGN-like text records. Nothing game-specific lives here: a game module
turns record turns into its own moves and validates them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.rules.protocol import TERMINATIONS, Refused

FILES = "abcdefghijklmnopqrstuvwxyz"
MAX_SIZE = 26

_SQUARE_RE = re.compile(r"([a-z])([0-9]{1,2})")


# How long a quotation of what a player typed may be in a message: enough to recognise it, short
# enough that no input can push a reply past Discord's 2,000 characters.
QUOTE_LIMIT = 40


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """What a player typed, quoted safely inside a message: one line, at most ``limit`` characters.

    Every message that echoes input goes through here, so a 6,000-character option value cannot
    make a reply too long to send. The excerpt is an inline code span: chat clients show it
    verbatim (no markdown, no mention of anyone renders inside it), and backticks in the input are
    turned into a look-alike (U+02CB) so the input cannot close the span. Line breaks and other
    control characters become spaces; a cut is marked with an ellipsis.
    """
    cleaned = " ".join("".join(" " if not ch.isprintable() else ch for ch in text).split())
    if len(cleaned) > limit:
        cleaned = cleaned[: max(limit - 1, 1)].rstrip() + "…"
    cleaned = cleaned.replace("`", "\u02cb")
    return f"`{cleaned}`" if cleaned else "(nothing)"


def square_name(file: int, rank: int) -> str:
    """Name of the square at 0-based (file, rank): (0, 0) is a1."""
    return f"{FILES[file]}{rank + 1}"


def board_range(size: int) -> str:
    """Human description of a board's squares, for error messages: 'a1–j10'."""
    return f"a1–{square_name(size - 1, size - 1)}"


def parse_square(text: str, size: int) -> tuple[int, int]:
    """0-based (file, rank) of a square name on a size×size board; forgiving about case and spaces.

    Raises ValueError with a message a player can act on.
    """
    cleaned = text.strip().lower()
    m = _SQUARE_RE.fullmatch(cleaned)
    if m is None:
        raise Refused(
            f"{quote(text)} is not a square: expected a file letter and a rank number, like d4",
            "rules.not_a_square",
            text=quote(text),
        )
    file = FILES.index(m.group(1))
    rank = int(m.group(2)) - 1
    if not (0 <= file < size and 0 <= rank < size) or m.group(2).startswith("0"):
        raise Refused(
            f"{cleaned} is not on the {size}×{size} board ({board_range(size)})",
            "rules.off_board",
            square=cleaned,
            size=size,
            range=board_range(size),
        )
    return file, rank


class RecordError(ValueError):
    """A game record that cannot be read, or whose turn cannot be played.

    ``turn`` is the 1-based number of the offending turn when the fault is in one.
    """

    def __init__(self, message: str, turn: int | None = None) -> None:
        super().__init__(message if turn is None else f"turn {turn}: {message}")
        self.turn = turn
        self.reason = message


@dataclass(frozen=True)
class Record:
    """A parsed game record: headers in their order, then the turns as written (numbers and comments stripped)."""

    headers: Mapping[str, str]
    turns: tuple[str, ...]
    comments: tuple[str | None, ...] = field(default=())

    def header(self, key: str, default: str | None = None) -> str | None:
        """Header lookup that ignores the case of the key, as records from elsewhere vary."""
        for k, v in self.headers.items():
            if k.lower() == key.lower():
                return v
        return default


_HEADER_RE = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_NUMBER_RE = re.compile(r"(\d+)\.+")


# The Result header, as in PGN: 1-0 Black won, 0-1 White won, 1/2-1/2 drawn, * not over (or cancelled, aborted, a
# no-show).
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
# Ended off the board: the moves need not reach the result the record states.
OFF_BOARD = ("resignation", "time forfeit", "adjudication", "cancelled", "aborted", "no-show")
_RESULT_TOKENS = frozenset(RESULTS)


def header_value(value: str) -> str:
    """A header value as it reads back: each line break becomes a space, everything else is kept.

    Names come from chat members and may hold anything; a record must still keep one header per
    line for any reader, so every character ``str.splitlines`` breaks on is replaced.
    """
    return value.translate(_LINE_BREAKS)


_LINE_BREAKS = {ord(ch): " " for ch in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}


def _escape(value: str) -> str:
    return header_value(value).replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def ending_headers(over: tuple[str, str] | None, headers: Mapping[str, str]) -> dict[str, str]:
    """The Result and Termination a record states, keys as written.

    ``over`` is (result, termination) when the moves themselves ended the game; those always win.
    Otherwise the game ended off the board or not at all, and ``headers`` say how (a resignation
    with its result, say); a Termination the moves would have to show is refused there.
    Raises RecordError for a Result or Termination outside NOTATION.md's lists.
    """
    if over is not None:
        return {"Result": over[0], "Termination": over[1]}
    given = {k.lower(): str(v).strip() for k, v in headers.items()}
    result = given.get("result") or "*"
    if result not in RESULTS:
        raise RecordError(f"the Result header is {quote(result)}: expected one of {', '.join(RESULTS)}")
    out = {"Result": result}
    termination = (given.get("termination") or "").lower()
    if termination:
        if termination not in TERMINATIONS:
            raise RecordError(
                f"the Termination header is {quote(termination)}: expected one of {', '.join(TERMINATIONS)}"
            )
        if termination not in OFF_BOARD:
            raise RecordError(f"the Termination header says {termination}, but the moves do not end the game")
        out["Termination"] = termination
    return out


def read_record(text: str) -> Record:
    """Parse a record: ``[Key "value"]`` header lines, then numbered turns with optional ``{comments}``.

    Turn numbers are optional, but when present they must count 1, 2, 3 ... so that a record
    with a lost or repeated line is refused rather than replayed wrongly. Several turns may
    share a line, and a trailing PGN-style result token (1-0, 0-1, *) is ignored.
    """
    headers: dict[str, str] = {}
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    body_start = len(lines)
    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("["):
            m = _HEADER_RE.fullmatch(line)
            if m is None:
                raise RecordError(f'line {i + 1}: a header must look like [Key "value"], got {quote(line)}')
            headers[m.group(1)] = _unescape(m.group(2))
            continue
        body_start = i
        break
    body = "\n".join(lines[body_start:])

    turns: list[str] = []
    comments: list[str | None] = []
    pos = 0
    n = len(body)
    while pos < n:
        ch = body[pos]
        if ch.isspace():
            pos += 1
            continue
        if ch == "{":
            end = body.find("}", pos)
            if end < 0:
                raise RecordError("a comment opened with { is never closed with }")
            comment = " ".join(body[pos + 1 : end].split())
            if turns:
                prev = comments[-1]
                comments[-1] = comment if prev is None else f"{prev} {comment}"
            pos = end + 1
            continue
        if ch == ";":  # rest-of-line comment, as in PGN
            end = body.find("\n", pos)
            pos = n if end < 0 else end + 1
            continue
        end = pos
        while end < n and not body[end].isspace() and body[end] != "{":
            end += 1
        token = body[pos:end]
        pos = end
        m = _NUMBER_RE.match(token)
        if m is not None:
            number = int(m.group(1))
            want = len(turns) + 1
            if number != want:
                raise RecordError(f"turn number {number} where turn {want} was expected")
            token = token[m.end() :]
            if not token:
                continue
        if token in _RESULT_TOKENS:
            continue
        turns.append(token)
        comments.append(None)
    return Record(headers=headers, turns=tuple(turns), comments=tuple(comments))


def write_record(
    headers: Mapping[str, str],
    turns: Sequence[str],
    comments: Iterable[str | None] | None = None,
) -> str:
    """Format a record: headers, a blank line, then one numbered turn per line with its comment."""
    out = [f'[{key} "{_escape(str(value))}"]' for key, value in headers.items()]
    out.append("")
    notes = list(comments) if comments is not None else []
    for i, turn in enumerate(turns):
        note = notes[i] if i < len(notes) else None
        line = f"{i + 1}. {turn}"
        if note:
            line += " {" + note.replace("{", "(").replace("}", ")") + "}"
        out.append(line)
    return "\n".join(out) + "\n"
