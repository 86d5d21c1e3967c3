"""Who may do what to a game, decided here once: the cogs ask before showing a private menu, the store
again when writing. Also how a game ended, as a phrase for the catalogue, which refusals quote."""

from __future__ import annotations

import datetime as dt

from bot.clocks import DAY
from bot.errors import ChallengeClosed, GameFinished, NoGameHere, NotAParticipant, NotYourTurn
from bot.i18n import Phrase
from bot.store.values import GameInfo


def closed_message(info: GameInfo) -> str:
    """The key of the refusal for a challenge that is no longer open (worded by the cogs)."""
    if info.status in ("active", "finished", "declined", "expired", "cancelled"):
        return f"refusal.challenge_{info.status}"
    return "refusal.challenge_closed"


def ending_phrase(info: GameInfo) -> Phrase | None:
    """How a game ended, as data for the catalogue (``result`` area), so each reader sees it in their language.

    The stored ``result`` text is the log's English; this is built from the facts (winner, termination,
    clock), never from that text. None while the game goes on.
    """
    if info.status == "cancelled":
        return Phrase("result.cancelled")
    if info.status == "expired":
        return Phrase("result.expired")
    outcome = info.outcome
    if outcome is None:
        return None
    if outcome.termination == "aborted":
        how = "resigned" if info.aborted_how == "resignation" else "time"
        return Phrase(f"result.aborted_{how}", who=side_phrase(info, info.aborted_by))
    if outcome.termination == "no-show":
        if info.aborted_by is None:
            return Phrase("result.no_show_both")
        return Phrase("result.no_show", who=side_phrase(info, info.aborted_by))
    if outcome.termination in ("resignation", "time forfeit"):
        loser = next((p for p in info.participants if p != info.winner_id), None)
        who = side_phrase(info, loser)
        if outcome.termination == "resignation":
            return Phrase("result.resigned", who=who)
        if info.time_control.family == "none":
            return Phrase("result.idle", who=who, count=round(info.time_control.start / DAY))
        return Phrase("result.time", who=who)
    if outcome.termination == "passes":
        return Phrase("result.passes")
    if outcome.winner is None:
        return Phrase("result.drawn")
    return Phrase(f"result.by_{outcome.termination}", winner=Phrase(f"result.{outcome.winner}"))


def side_phrase(info: GameInfo, user: int | None) -> Phrase:
    """A player as a result names them: by colour once colours are fixed, else by seat."""
    colour = None if user is None else info.colour_of_user(user)
    seat = None if user is None else info.seat_of_user(user)
    return Phrase(f"result.{colour}") if colour else Phrase(f"result.{seat or 'first'}_player")


def finished_message(info: GameInfo) -> GameFinished:
    if info.status == "cancelled":
        return GameFinished("refusal.game_cancelled")
    ending = ending_phrase(info)
    return (
        GameFinished("refusal.game_over") if ending is None else GameFinished("refusal.game_over_result", result=ending)
    )


def check_can_answer(info: GameInfo, user_id: int, now: dt.datetime) -> None:
    """Whether ``user_id`` may accept or decline this challenge at ``now``; the refusal says why."""
    if info.status != "challenge":
        raise ChallengeClosed(closed_message(info))
    if user_id == info.proposer:
        raise NotAParticipant("refusal.own_challenge")
    answerer = info.answerer
    if answerer is not None and user_id != answerer:
        raise NotAParticipant("refusal.challenge_for_other", meant_for=answerer)
    if info.expires_at is not None and info.expires_at <= now:
        raise ChallengeClosed("refusal.challenge_expired")


def check_in_play(info: GameInfo) -> None:
    if info.status == "challenge":
        raise NoGameHere("refusal.not_started")
    if info.status != "active":
        raise finished_message(info)


def check_participant(info: GameInfo, user_id: int) -> None:
    if user_id not in info.participants:
        raise NotAParticipant("refusal.not_playing")


def check_to_act(info: GameInfo, user_id: int) -> None:
    """Whether ``user_id`` may take the next turn of this game now (in play, playing, and their turn)."""
    check_in_play(info)
    check_participant(info, user_id)
    if info.user_to_act != user_id:
        raise NotYourTurn(info.user_to_act)


RACE_MESSAGE = "refusal.race"
"""The refusal of a change that lost a race: the game changed between reading it and writing."""
MOVED_ON_MESSAGE = "refusal.moved_on"
"""The refusal of a turn sent before the game's latest change (its stamp is older)."""
