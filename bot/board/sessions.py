"""Who is looking at a board page: short-lived session tokens the bot signs and checks.

A session names one member and one game, or one member and one of their puzzle attempts. The bot mints
it only after learning who the member is from Discord (the Activity's OAuth2 exchange, or the member's own
interaction for a personal link), and checks it on every request and WebSocket; the page never says who it
is in any other way. A game's token is ``<user>.<game>.<expires>.<signature>``: decimal ids, the expiry in
Unix seconds, and an HMAC-SHA256 of the rest under the bot's board secret (``BOARD_SECRET``; processes that
share pages share the secret). A puzzle attempt's token is ``p<user>.<attempt>.<expires>.<signature>``, the
``p`` signed with the rest: ``verify`` accepts only a game's token and ``verify_puzzle`` only a puzzle's, so
neither can stand for the other.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Final

MAX_TOKEN_LENGTH: Final = 160
SESSION_SECONDS: Final = 12 * 3600
_SHAPE: Final = re.compile(r"([0-9]{1,20})\.([0-9]{1,20})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})")
PUZZLE_MARK: Final = "p"
_PUZZLE_SHAPE: Final = re.compile(PUZZLE_MARK + _SHAPE.pattern)


@dataclass(frozen=True, slots=True)
class Session:
    """One member's view of one game until ``expires`` (Unix seconds)."""

    user_id: int
    game_id: int
    expires: int


@dataclass(frozen=True, slots=True)
class PuzzleSession:
    """One member's own puzzle attempt, to play on the board page until ``expires`` (Unix seconds)."""

    user_id: int
    attempt_id: int
    expires: int


def _signature(secret: bytes, payload: str) -> str:
    digest = hmac.new(secret, payload.encode("ascii"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def mint(secret: bytes, user_id: int, game_id: int, now: float, seconds: int = SESSION_SECONDS) -> str:
    """A token for ``user_id`` watching (or playing) ``game_id``, valid ``seconds`` from ``now``."""
    if not secret:
        raise ValueError("the board secret is empty")
    payload = f"{int(user_id)}.{int(game_id)}.{int(now) + seconds}"
    return f"{payload}.{_signature(secret, payload)}"


def mint_puzzle(secret: bytes, user_id: int, attempt_id: int, now: float, seconds: int = SESSION_SECONDS) -> str:
    """A token for ``user_id`` playing their puzzle attempt ``attempt_id``, valid ``seconds`` from ``now``."""
    if not secret:
        raise ValueError("the board secret is empty")
    payload = f"{PUZZLE_MARK}{int(user_id)}.{int(attempt_id)}.{int(now) + seconds}"
    return f"{payload}.{_signature(secret, payload)}"


def _checked(
    secret: bytes, token: object, now: float, shape: re.Pattern[str], mark: str
) -> tuple[int, int, int] | None:
    if not secret or not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH:
        return None
    match = shape.fullmatch(token)
    if match is None:
        return None
    user, named, expires, signature = match.groups()
    if not hmac.compare_digest(signature, _signature(secret, f"{mark}{user}.{named}.{expires}")):
        return None
    if int(expires) <= now:
        return None
    return int(user), int(named), int(expires)


def verify(secret: bytes, token: object, now: float) -> Session | None:
    """The game session ``token`` stands for, or None when it is malformed, forged, expired or a puzzle's."""
    found = _checked(secret, token, now, _SHAPE, "")
    return None if found is None else Session(*found)


def verify_puzzle(secret: bytes, token: object, now: float) -> PuzzleSession | None:
    """The puzzle session ``token`` stands for, or None when it is malformed, forged, expired or a game's."""
    found = _checked(secret, token, now, _PUZZLE_SHAPE, PUZZLE_MARK)
    return None if found is None else PuzzleSession(*found)
