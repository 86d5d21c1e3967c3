"""Board page session tokens: only the bot's own signature, for the named member and game, before expiry."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.board.sessions import (
    MAX_TOKEN_LENGTH,
    PUZZLE_MARK,
    PuzzleSession,
    Session,
    mint,
    mint_puzzle,
    verify,
    verify_puzzle,
)

SECRET = b"board-secret"
ids = st.integers(min_value=0, max_value=2**63 - 1)


@given(ids, ids)
def test_a_minted_token_names_its_member_and_game_until_it_expires(user: int, game: int) -> None:
    token = mint(SECRET, user, game, now=1_000, seconds=60)
    assert len(token) <= MAX_TOKEN_LENGTH
    assert verify(SECRET, token, now=1_059) == Session(user, game, 1_060)
    assert verify(SECRET, token, now=1_060) is None
    assert verify(b"another-secret", token, now=1_000) is None


@given(st.text(max_size=300))
def test_any_text_that_was_not_minted_is_refused(text: str) -> None:
    assert verify(SECRET, text, now=0) is None


def test_changing_any_field_of_a_token_breaks_it() -> None:
    token = mint(SECRET, 7, 8, now=0)
    user, game, expires, signature = token.split(".")
    forgeries = (f"9.{game}.{expires}.{signature}", f"{user}.9.{expires}.{signature}", f"{user}.{game}.9.{signature}")
    for forged in forgeries:
        assert verify(SECRET, forged, now=0) is None
    assert verify(SECRET, token, now=0) == Session(7, 8, int(expires))
    assert verify(b"", token, now=0) is None


# -- puzzle attempts: a token of their own kind, never a game's ------------------------------------------


@given(ids, ids)
def test_a_puzzle_token_names_its_member_and_attempt_and_is_never_a_game_token(user: int, attempt: int) -> None:
    token = mint_puzzle(SECRET, user, attempt, now=1_000, seconds=60)
    assert len(token) <= MAX_TOKEN_LENGTH
    assert verify_puzzle(SECRET, token, now=1_059) == PuzzleSession(user, attempt, 1_060)
    assert verify_puzzle(SECRET, token, now=1_060) is None
    assert verify_puzzle(b"another-secret", token, now=1_000) is None
    assert verify(SECRET, token, now=1_000) is None
    assert verify(SECRET, token.removeprefix(PUZZLE_MARK), now=1_000) is None


@given(ids, ids)
def test_a_game_token_is_never_a_puzzle_token(user: int, game: int) -> None:
    token = mint(SECRET, user, game, now=1_000, seconds=60)
    assert verify(SECRET, token, now=1_000) == Session(user, game, 1_060)
    assert verify_puzzle(SECRET, token, now=1_000) is None
    assert verify_puzzle(SECRET, PUZZLE_MARK + token, now=1_000) is None


@given(st.text(max_size=300))
def test_any_text_that_was_not_minted_is_no_puzzle_session(text: str) -> None:
    assert verify_puzzle(SECRET, text, now=0) is None
    assert verify_puzzle(SECRET, PUZZLE_MARK + text, now=0) is None


def test_changing_any_field_of_a_puzzle_token_breaks_it() -> None:
    token = mint_puzzle(SECRET, 7, 8, now=0)
    user, attempt, expires, signature = token.split(".")
    forgeries = (
        f"p9.{attempt}.{expires}.{signature}",
        f"{user}.9.{expires}.{signature}",
        f"{user}.{attempt}.9.{signature}",
    )
    for forged in forgeries:
        assert verify_puzzle(SECRET, forged, now=0) is None
    assert verify_puzzle(SECRET, token, now=0) == PuzzleSession(7, 8, int(expires))
    assert verify_puzzle(b"", token, now=0) is None
