"""The store's SQL, written once in SQLite's dialect, as PostgreSQL reads it: the one place where they differ.

Two translations, both pure functions of the text (so cached, and tested on their own):

- ``statement``: any statement the store runs. ``?`` placeholders become ``$1``, ``$2``…; SQLite's
  scalar ``MAX(a, b)`` / ``MIN(a, b)`` (two or more arguments) become ``GREATEST`` / ``LEAST`` (the
  one-argument aggregates stay as they are); ``IFNULL`` is ``COALESCE``; ``INSERT OR IGNORE`` is an
  ``INSERT … ON CONFLICT DO NOTHING``. Text inside quotes is never touched.
- ``ddl``: a migration's statement, first through ``statement``, then SQLite's types and table options
  as PostgreSQL spells them: ``INTEGER`` is ``BIGINT`` (Discord snowflakes need 64 bits), ``REAL`` is
  ``DOUBLE PRECISION`` (PostgreSQL's REAL has 24 bits, too few for a timestamp), a rowid alias
  ``INTEGER PRIMARY KEY`` is an identity column, ``AUTOINCREMENT``, ``STRICT`` and ``WITHOUT ROWID``
  go, and ``json_object`` is ``sqlite_json_object`` (``SQLITE_FUNCTIONS``: SQLite's compact text, keys
  in the order given, for one or more text pairs).

What does not translate, and so must not appear in SQL meant for both: ``PRAGMA``, ``INSERT OR
REPLACE`` (write ``ON CONFLICT … DO UPDATE``), SQLite's date functions, ``rowid`` itself, a cursor's
``lastrowid`` (write ``RETURNING id``), ``GROUP_CONCAT``, and type affinity (PostgreSQL checks every type,
as STRICT tables already do).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def _scan(sql: str) -> list[tuple[str, str]]:
    """Split ``sql`` into (kind, text) pieces: 'quoted' (a string or quoted name), 'word', 'mark' (?), 'other'."""
    pieces: list[tuple[str, str]] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"":
            j = i + 1
            while j < n:
                if sql[j] == ch:
                    if j + 1 < n and sql[j + 1] == ch:  # a doubled quote is one quote character
                        j += 2
                        continue
                    break
                j += 1
            pieces.append(("quoted", sql[i : j + 1]))
            i = j + 1
        elif ch == "-" and sql.startswith("--", i):
            j = sql.find("\n", i)
            j = n if j < 0 else j
            pieces.append(("other", sql[i:j]))
            i = j
        elif ch == "?":
            pieces.append(("mark", ch))
            i += 1
        elif ch.isalpha() or ch == "_":
            match = _WORD.match(sql, i)
            assert match is not None
            pieces.append(("word", match.group()))
            i = match.end()
        else:
            pieces.append(("other", ch))
            i += 1
    return pieces


def _scalar_call(pieces: list[tuple[str, str]], start: int) -> bool:
    """Whether the call whose name is at ``start`` has more than one argument at its own level."""
    k = start + 1
    while k < len(pieces) and pieces[k] == ("other", " "):
        k += 1
    if k >= len(pieces) or pieces[k] != ("other", "("):
        return False
    depth = 0
    for kind, text in pieces[k:]:
        if kind != "other":
            continue
        if text == "(":
            depth += 1
        elif text == ")":
            depth -= 1
            if depth == 0:
                return False
        elif text == "," and depth == 1:
            return True
    return False


@lru_cache(maxsize=1024)
def statement(sql: str) -> str:
    """One statement of the store's SQLite dialect as PostgreSQL reads it (placeholders, scalar MAX/MIN)."""
    return _translate(sql, "$")


_CUT = "\x00"  # where a parameter goes, in ``chunks``; never part of the store's SQL


@lru_cache(maxsize=1024)
def chunks(sql: str) -> tuple[str, ...]:
    """``statement(sql)`` cut where its parameters go: n + 1 pieces of text around n parameters."""
    return tuple(_translate(sql, _CUT).split(_CUT))


def inline(sql: str, parameters: Sequence[Any]) -> str:
    """``statement(sql)`` with its parameters written into it as literals (``literal``), for PostgreSQL's simple
    query protocol, which takes several statements in one message but no parameters."""
    pieces = chunks(sql)
    if len(pieces) != len(parameters) + 1:
        raise ValueError(f"{len(pieces) - 1} parameters expected, {len(parameters)} given: {sql}")
    out = [pieces[0]]
    for value, piece in zip(parameters, pieces[1:], strict=True):
        out.append(literal(value))
        out.append(piece)
    return "".join(out)


def literal(value: Any) -> str:
    """A parameter as a PostgreSQL literal, with the meaning asyncpg gives it as a parameter.

    Text is quoted by doubling its quotes, which is the whole of quoting once ``standard_conforming_strings``
    is on (the PostgreSQL backend sets it on every connection): a backslash is then an ordinary character.
    Text with a NUL character, which PostgreSQL's text cannot hold, or with a lone surrogate, which is not
    Unicode, is refused (ValueError), as asyncpg refuses it as a parameter.
    """
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        # A negative number in brackets: after a minus sign in the text, "-5" would start a comment (--).
        return str(value) if value >= 0 else f"({value})"
    if isinstance(value, float):
        if math.isfinite(value):
            return f"{value!r}::float8" if math.copysign(1.0, value) > 0 else f"({value!r}::float8)"
        return f"'{value!r}'::float8".replace("inf", "Infinity").replace("nan", "NaN")
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError("text with a NUL character (0x00) cannot be stored")
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:  # a lone surrogate, which JSON's \ud800 can carry
                raise ValueError(f"text that is not valid Unicode cannot be stored: {exc}") from exc
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bytes | bytearray | memoryview):
        return f"'\\x{bytes(value).hex()}'::bytea"
    raise TypeError(f"no literal for a parameter of type {type(value).__name__}")


def _translate(sql: str, mark: str) -> str:
    """``statement``'s work; each placeholder becomes ``mark`` followed by its number (``$``), or ``mark`` alone."""
    pieces = _scan(sql)
    ignore = _insert_or_ignore(pieces)
    out: list[str] = []
    number = 0
    for index, (kind, text) in enumerate(pieces):
        if index in ignore:
            continue
        if kind == "word" and text.upper() == "IFNULL":
            out.append("COALESCE")
        elif kind == "mark":
            number += 1
            out.append(f"{mark}{number}" if mark == "$" else mark)
        elif kind == "word" and text.upper() in ("MAX", "MIN") and _scalar_call(pieces, index):
            out.append("GREATEST" if text.upper() == "MAX" else "LEAST")
        else:
            out.append(text)
    if not ignore:
        return "".join(out)
    text = "".join(out).rstrip()
    cut = _returning(text)
    return f"{text[:cut].rstrip()} ON CONFLICT DO NOTHING{(' ' + text[cut:]) if cut < len(text) else ''}"


def _insert_or_ignore(pieces: list[tuple[str, str]]) -> set[int]:
    """The indexes of ``OR IGNORE`` (and the space before each word) in ``INSERT OR IGNORE INTO``; empty if none."""
    words = [(i, text.upper()) for i, (kind, text) in enumerate(pieces) if kind == "word"]
    if len(words) < 3 or [w for _, w in words[:3]] != ["INSERT", "OR", "IGNORE"]:
        return set()
    first, last = words[1][0], words[2][0]
    return set(range(first - 1, last + 1))


def _returning(text: str) -> int:
    """Where a RETURNING clause starts outside quotes (the text's length if there is none)."""
    position = 0
    for kind, piece in _scan(text):
        if kind == "word" and piece.upper() == "RETURNING":
            return position
        position += len(piece)
    return len(text)


_TYPES = {"INTEGER": "BIGINT", "REAL": "DOUBLE PRECISION", "BLOB": "BYTEA", "JSON_OBJECT": "sqlite_json_object"}
_TABLE_OPTIONS = re.compile(r"\)\s*(?:(?:STRICT|WITHOUT\s+ROWID)\s*,?\s*)+$", re.IGNORECASE)
_ROWID_KEY = re.compile(r"\bINTEGER\s+PRIMARY\s+KEY(\s+AUTOINCREMENT)?\b", re.IGNORECASE)


@lru_cache(maxsize=256)
def ddl(sql: str) -> str:
    """A migration statement written for SQLite, as PostgreSQL runs it (see the module's notes)."""
    text = _TABLE_OPTIONS.sub(")", sql.strip())
    # A single-column INTEGER PRIMARY KEY is SQLite's rowid: numbered by the database when not given.
    text = _ROWID_KEY.sub("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", text)
    pieces = _scan(statement(text))
    return "".join(
        _TYPES.get(piece.upper(), piece) if kind == "word" and piece.upper() != "AUTOINCREMENT" else piece
        for kind, piece in pieces
        if not (kind == "word" and piece.upper() == "AUTOINCREMENT")
    )


SQLITE_FUNCTIONS = """
CREATE OR REPLACE FUNCTION sqlite_json_object(VARIADIC args text[]) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT '{' || COALESCE(string_agg(to_json(args[i])::text || ':' || to_json(args[i + 1])::text, ',' ORDER BY i), '')
        || '}'
    FROM generate_series(1, COALESCE(array_length(args, 1), 0), 2) AS i
$$
"""
"""SQLite's functions that migrations use, as PostgreSQL functions (created with the schema version table)."""
