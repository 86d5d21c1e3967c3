"""Refusals a player reads.

Anything raised as a ``UserError`` is answered to the person who acted, privately, with the
exception's message and nothing else; every other exception is a fault of ours and is logged.
That split is why the store and the cogs raise these instead of returning flags: one handler
in the command tree can answer them all, and a refusal can never be mistaken for a crash.

Every refusal is raised before anything is written, so a refused action changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass


class UserError(Exception):
    """A refusal whose message is written for the player who caused it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class NoGameHere(UserError):
    """The channel (or the game id a button carries) has no game that this action applies to.

    ``channel_empty``: the channel has no game in play at all, so the answer may suggest starting one.
    """

    def __init__(self, message: str, *, channel_empty: bool = False) -> None:
        super().__init__(message)
        self.channel_empty = channel_empty


class NotYourTurn(UserError):
    """A participant acted while it is the other player's turn (``waiting``: whose turn it is, if anyone's)."""

    def __init__(self, waiting: int | None = None, message: str | None = None) -> None:
        super().__init__(
            message or ("It is the other player's turn, not yours." if waiting else "It is not your turn.")
        )
        self.waiting = waiting


class NotAParticipant(UserError):
    """Someone outside the game (or outside the challenge) tried to act on it.

    ``meant_for``: the member a challenge was made to, when someone else tried to answer it.
    """

    def __init__(self, message: str, *, meant_for: int | None = None) -> None:
        super().__init__(message)
        self.meant_for = meant_for


class GameFinished(UserError):
    """The game is over (won, resigned or cancelled): nothing more can be played in it."""


class ChannelBusy(UserError):
    """A channel holds at most one game (or challenge played there) at a time."""


class RaceLost(UserError):
    """Another action on the same game landed first; this one was applied to a state that no longer exists."""


class ChallengeClosed(UserError):
    """The challenge was already accepted, declined, expired or cancelled."""


class InvalidMove(UserError):
    """The rules refused the text: the message is the rules' own explanation, word for word."""


class UndoRefused(UserError):
    """An undo request or answer that the undo rules do not allow (nothing to undo, nothing asked …)."""


class TimeIsUp(UserError):
    """A turn that arrived after its player's time ran out: the game is lost on time, not played on."""


@dataclass(frozen=True)
class OpenChallenge:
    """Where an open challenge was made, so that a refusal can point at it."""

    game_id: int
    channel_id: int
    message_id: int | None


class ChallengeExists(UserError):
    """Two members already have an open challenge between them, whichever of them made it."""

    def __init__(self, existing: OpenChallenge, challenger_id: int) -> None:
        super().__init__("These two players already have an open challenge between them.")
        self.existing = existing
        self.challenger_id = challenger_id


class TooManyChallenges(UserError):
    """A member has as many open challenges as one member may have at once."""

    def __init__(self, limit: int, open_challenges: tuple[OpenChallenge, ...]) -> None:
        super().__init__(f"There are already {limit} open challenges by this player.")
        self.limit = limit
        self.open_challenges = open_challenges
