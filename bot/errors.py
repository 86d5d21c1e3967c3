"""Refusals a player reads.

Anything raised as a ``UserError`` is answered to the person who acted, privately, with the
exception's message and nothing else, worded in their language: a refusal carries a catalogue key
and its data (``bot.i18n``), never words of its own; every other exception is a fault of ours and is logged.
That split is why the store and the cogs raise these instead of returning flags: one handler
in the command tree can answer them all, and a refusal can never be mistaken for a crash.

Every refusal is raised before anything is written, so a refused action changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.i18n import Phrase, Words, words


class UserError(Exception):
    """A refusal for the player who caused it: a catalogue key and its data, worded in the reader's language."""

    def __init__(self, key: str, /, **data: object) -> None:
        super().__init__(key)
        self.key = key
        self.data = data

    @property
    def phrase(self) -> Phrase:
        return Phrase(self.key, **self.data)

    def worded(self, w: Words) -> str:
        return w(self.key, **self.data)

    @property
    def message(self) -> str:
        """In English (logs, the command line)."""
        return self.worded(words())

    def __str__(self) -> str:
        return self.message


class NoGameHere(UserError):
    """The channel (or the game id a button carries) has no game that this action applies to.

    ``channel_empty``: the channel has no game in play at all, so the answer may suggest starting one.
    """

    def __init__(self, key: str, /, *, channel_empty: bool = False, **data: object) -> None:
        super().__init__(key, **data)
        self.channel_empty = channel_empty


class NotYourTurn(UserError):
    """A participant acted while it is the other player's turn (``waiting``: whose turn it is, if anyone's)."""

    def __init__(self, waiting: int | None = None) -> None:
        super().__init__("refusal.other_players_turn" if waiting else "refusal.not_your_turn")
        self.waiting = waiting


class NotAParticipant(UserError):
    """Someone outside the game (or outside the challenge) tried to act on it.

    ``meant_for``: the member a challenge was made to, when someone else tried to answer it.
    """

    def __init__(self, key: str, /, *, meant_for: int | None = None, **data: object) -> None:
        super().__init__(key, **data)
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
    """The rules refused the text: the rules' own reason (a key and data), worded for the player.

    The rules name pieces and colours by value (``piece="stone"``); those become catalogue words.
    """

    def __init__(self, key: str, /, **data: object) -> None:
        super().__init__(
            key,
            **{
                name: Phrase(f"rules.{name}.{value}") if name in ("piece", "colour") else value
                for name, value in data.items()
            },
        )


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
        super().__init__("refusal.challenge_exists")
        self.existing = existing
        self.challenger_id = challenger_id


class TooManyChallenges(UserError):
    """A member has as many open challenges as one member may have at once."""

    def __init__(self, limit: int, open_challenges: tuple[OpenChallenge, ...]) -> None:
        super().__init__("refusal.too_many_challenges", count=limit)
        self.limit = limit
        self.open_challenges = open_challenges
