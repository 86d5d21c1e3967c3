"""How Veletas turns and records are spelled beyond single moves: setup turns, and records (NOTATION.md).

A game's record is written from its turns and read back into the settings and turns ``Game`` replays;
``Game.to_record`` and ``Game.from_record`` are the way in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from bot.rules.common import Record, RecordError, ending_headers, quote, read_record, write_record
from bot.rules.veletas.variants import EDITIONS, VARIANTS

_SETUP_X_RE = re.compile(r"(?<=\d)\s*x\s*(?=[a-z]\d)")
"""An ``x`` between a setup turn's shooters and its stone, read as the ``/`` of the canonical form."""
_SETUP_SQ_RE = re.compile(r"[a-z][0-9]{1,2}")
"""A square as a setup turn names it."""


def _looks_like_setup(text: str) -> bool:
    """Whether a turn reads as a setup placement (two squares or more, or a comma) rather than a move."""
    return len(_SETUP_SQ_RE.findall(text.lower())) >= 2 or "," in text


def _variant_header(value: str | None, turns: Sequence[str]) -> str:
    """Variant name from a header; also reads board-size spellings like 9x9 or size-9 used elsewhere.

    Without the header, the first setup turn tells: each variant's first player places a
    different number of shooters.
    """
    if value is None or not value.strip():
        if turns:
            placed = len(_SETUP_SQ_RE.findall(_SETUP_X_RE.sub("/", turns[0].lower()).split("/")[0]))
            for variant in VARIANTS.values():
                if variant.first_places == placed:
                    return variant.name
        return "standard"
    cleaned = value.strip().lower()
    if cleaned in VARIANTS:
        return cleaned
    digits = re.findall(r"\d+", cleaned)
    if digits:
        for variant in VARIANTS.values():
            if int(digits[0]) == variant.size:
                return variant.name
    raise RecordError(f"unknown variant {quote(value)}: expected one of {', '.join(VARIANTS)}")


def write_game_record(
    variant: str,
    rules: str,
    ended: str | None,
    turns: Sequence[str],
    notes: Sequence[str | None],
    headers: Mapping[str, str] | None = None,
) -> str:
    """The record text of a game from its settings and turns (with each turn's note, or None).

    ``ended`` is the Result token when the moves ended the game (by ``claims``), None before; the
    ending ``headers`` may state off the board is kept then. See ``Game.to_record``.
    """
    given = dict(headers or {})
    over = (ended, "claims") if ended is not None else None
    merged: dict[str, str] = {
        "Game": "veletas",
        "Variant": variant,
        "Rules": rules,
        "Black": "?",
        "White": "?",
        "Date": "????.??.??",
    }
    fixed = {"game", "variant", "rules", "result", "termination"}
    for key, value in given.items():
        if key.lower() in fixed:
            continue
        merged[key] = str(value)
    ending = ending_headers(over, given)
    merged["Result"] = ending["Result"]
    if "Termination" in ending:
        merged["Termination"] = ending["Termination"]
    return write_record(merged, turns, notes)


def read_settings(text: str) -> tuple[Record, str, str]:
    """A record read, with the variant and the rules edition its headers give; RecordError for any fault in them."""
    record = read_record(text)
    name = record.header("Game")
    if name is not None and name.strip().lower() != "veletas":
        raise RecordError(f"this record is a game of {name}, not veletas")
    variant = _variant_header(record.header("Variant"), record.turns)
    rules = (record.header("Rules") or "current").strip().lower()
    if rules not in EDITIONS:
        raise RecordError(f"unknown rules edition {quote(rules)}: expected one of {', '.join(EDITIONS)}")
    return record, variant, rules


def check_result(record: Record, winner: str | None, result: str) -> None:
    """Refuse a Result header contradicting the moves' result, or an ending off the board NOTATION.md does not know."""
    claimed = (record.header("Result") or "*").strip()
    if winner is not None and claimed in ("1-0", "0-1") and claimed != result:
        raise RecordError(f"the header says {claimed}, but the moves give {result} ({winner} won)")
    if winner is None:
        # A game that ended off the board states its ending; it must be one NOTATION.md knows.
        ending_headers(None, record.headers)
