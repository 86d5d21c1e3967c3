"""``/tournament pairings``'s text: why a round was paired as it was, worded from ``bot.tournaments.explain``.

A Swiss board says its score group, its float and the colour rule that decided; a bye says why that player; a
round robin names its Berger table's row; a bracket says where each side came from. Not Discord, not the store:
a snapshot and the reader's words in, lines out (``paged`` cuts them into embeds).
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.errors import UserError
from bot.i18n import Words
from bot.store.values import TournamentSnapshot
from bot.tournament_flow import bracket_of, engine_tournament, groups, names
from bot.tournaments.explain import (
    BoardWhy,
    ByeWhy,
    Preference,
    SideWhy,
    explain_bracket,
    explain_round_robin,
    explain_swiss,
)
from cogs.tournament import words


def round_asked(snap: TournamentSnapshot, number: int | None) -> int:
    """The round to explain: the one asked for, else the latest; a refusal when it has not been paired."""
    if not snap.rounds:
        raise UserError("tournament.why.no_rounds")
    if number is None:
        return snap.rounds[-1].number
    if not any(r.number == number for r in snap.rounds):
        raise UserError("tournament.why.no_round", round=number, last=snap.rounds[-1].number)
    return number


def why_lines(w: Words, snap: TournamentSnapshot, number: int) -> list[str]:
    """Every line of the explanation of round ``number``, in ``w``'s language."""
    known = {pid: words.escaped(name) for pid, name in names(snap).items()}
    boards = {(p.white, p.black): p.board for p in snap.round_pairings(number)}
    if snap.info.is_elimination:
        return _bracket_lines(w, snap, number, known)
    if snap.info.format != "swiss":
        return _round_robin_lines(w, snap, number, known, boards)
    why = explain_swiss(engine_tournament(snap), number)
    lines = [words.t(w, "why.swiss")]
    for b in why.boards:
        lines += _board_lines(w, b, known, boards.get((b.white, b.black), b.board))
    for bye in why.byes:
        lines += _bye_lines(w, bye, known)
    return lines


def _name(known: Mapping[int, str], pid: int) -> str:
    return known.get(pid, "?")


def _preference(w: Words, p: Preference) -> str:
    if p.side is None:
        return words.t(w, "why.pref.none")
    return words.t(w, f"why.pref.{p.strength}", colour=words.t(w, f"why.side.{p.side}"))


def _board_lines(w: Words, b: BoardWhy, known: Mapping[int, str], board: int) -> list[str]:
    white, black = _name(known, b.white), _name(known, b.black)
    out = [
        words.t(
            w,
            "why.board",
            board=board,
            white=white,
            black=black,
            white_points=words.points(w, b.white_score),
            black_points=words.points(w, b.black_score),
            group=words.points(w, b.group),
        )
    ]
    if b.moved is not None:
        f = b.moved
        out.append(
            words.t(
                w,
                f"why.float.{f.reason}",
                down=_name(known, f.down),
                up=_name(known, f.up),
                high=words.points(w, f.high),
                low=words.points(w, f.low),
            )
        )
    c = b.colour
    if c is not None:
        pref = b.white_preference if c.player == b.white else b.black_preference
        other_pref = b.black_preference if c.player == b.white else b.white_preference
        side = "white" if c.player == b.white else "black"
        out.append(
            words.t(
                w,
                f"why.colour.{c.rule}",
                white=white,
                black=black,
                white_pref=_preference(w, b.white_preference),
                black_pref=_preference(w, b.black_preference),
                player=_name(known, c.player),
                pref=_preference(w, pref),
                other_pref=_preference(w, other_pref),
                difference=abs(pref.difference),
                number=c.number or 0,
                colour=words.t(w, f"why.side.{side}"),
            )
        )
    return out


def _bye_lines(w: Words, bye: ByeWhy, known: Mapping[int, str]) -> list[str]:
    name = _name(known, bye.player)
    if bye.kind != "pairing":
        return [words.t(w, "why.bye.granted", line=words.bye_line(w, name, bye.kind))]
    points = words.points(w, bye.score)
    out = [words.t(w, f"why.bye.{bye.score_reason}", name=name, points=points, count=bye.lower_eligible)]
    if bye.lower_excluded:
        out.append(words.t(w, "why.bye.excluded", count=bye.lower_excluded))
    out.append(words.t(w, f"why.bye.group.{bye.group_reason}", name=name, points=points, count=bye.unplayed))
    return out


def _round_robin_lines(
    w: Words, snap: TournamentSnapshot, number: int, known: Mapping[int, str], boards: Mapping[tuple[int, int], int]
) -> list[str]:
    out: list[str] = []
    for label, t in groups(snap):
        if number > len(t.rounds):
            continue
        why = explain_round_robin(t, number)
        if label is not None:
            out.append(words.division_heading(w, label))
        key = "why.berger_reversed" if why.reversed else "why.berger"
        out.append(words.t(w, key, row=why.table_round, size=why.table_size))
        for _, white, black in why.boards:
            board = boards.get((white, black), 0)
            out.append(words.pairing_line(w, board, _name(known, white), _name(known, black), None, None))
        out += [words.bye_line(w, _name(known, pid), "rest") for pid in why.rests]
    return out


def _side(w: Words, side: SideWhy, seeds: Mapping[int, int], known: Mapping[int, str]) -> str:
    if side.kind == "seed":
        seed = int(side.ref)
        return words.t(w, "why.from.seed", seed=seed, name=_name(known, seeds[seed]) if seed in seeds else "—")
    return words.t(w, f"why.from.{side.kind}", match=side.ref)


def _bracket_lines(w: Words, snap: TournamentSnapshot, number: int, known: Mapping[int, str]) -> list[str]:
    bracket = bracket_of(snap)
    seeds = {i + 1: pid for i, pid in enumerate(bracket.players)}
    pairings = snap.round_pairings(number)
    matches = {m.match: m for m in explain_bracket(bracket, [p.match for p in pairings if p.match])}
    out = [words.t(w, "why.bracket")]
    for p in pairings:
        line = words.pairing_line(w, p.board, _name(known, p.white), _name(known, p.black), None, p.match)
        m = matches.get(p.match or "")
        if m is None:
            out.append(line)
            continue
        out.append(words.t(w, "why.match", line=line, a=_side(w, m.a, seeds, known), b=_side(w, m.b, seeds, known)))
    return out
