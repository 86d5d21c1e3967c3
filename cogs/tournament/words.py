"""What the tournament feature says, worded from the catalogue's ``tournament`` area (one place per sentence).

Not an extension. Every function takes the reader's ``Words`` first (the member's for a private answer, the
server's for a public post: the cog chooses) and plain values, and returns text; nothing here talks to Discord
or the store. The exports (CSV, TRF) are not worded here: their formats' headers are fixed English.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import discord

from bot.i18n import Words
from bot.render.tournament import TournamentWords
from bot.store.values import TournamentInfo
from bot.tournaments import Standing
from bot.tournaments.standings import TIEBREAK_LABELS

MEDALS = ("🥇", "🥈", "🥉")
RESULT_KEYS: Mapping[str, str] = {
    "1-0": "white",
    "0-1": "black",
    "1/2-1/2": "draw",
    "+-": "white_forfeit",
    "-+": "black_forfeit",
    "--": "double_forfeit",
}
TIEBREAK_KEYS: Mapping[str, str] = {label: code for code, label in TIEBREAK_LABELS.items()}
"""The engine's tie-break labels (``Buchholz cut 1``) to their catalogue keys (``buchholz_cut1``)."""
NAMES_SHOWN = 30
FIELD_TEXT = 1024
"""The most an embed field's value holds (Discord's limit)."""
CONTENT_TEXT = 2000
"""The most a message's text holds."""
MENTIONS_A_POST = 100
"""The most members a post's allowed mentions may name (Discord's limit)."""


def escaped(text: str) -> str:
    """A name someone chose (a tournament's, a player's) as a post shows it: its markdown and mentions shown as
    typed, never acted on (``**Cup**`` stays as typed, ``@everyone`` pings nobody)."""
    return discord.utils.escape_markdown(discord.utils.escape_mentions(text))


def shown(info: TournamentInfo) -> str:
    """The tournament's name in a message (content, an embed): escaped. Thread names, images and autocomplete
    choices show it as it is (nothing there reads markdown)."""
    return escaped(info.name)


def t(w: Words, key: str, /, **data: object) -> str:
    """A message of the ``tournament`` area."""
    return w(f"tournament.{key}", **data)


def listed(w: Words, items: Sequence[str]) -> str:
    """Names or labels one after another, with the language's separator (``, `` / ``、``)."""
    return t(w, "separator").join(items)


def format_name(w: Words, fmt: str) -> str:
    return t(w, f"format.{fmt}")


def status_name(w: Words, status: str) -> str:
    return t(w, f"status.{status}")


def result_word(w: Words, result: str) -> str:
    return t(w, f"result.{RESULT_KEYS[result]}")


def tiebreak_name(w: Words, label: str) -> str:
    return t(w, f"tiebreak.{TIEBREAK_KEYS[label]}")


def tiebreak_short(w: Words, label: str) -> str:
    return t(w, f"tiebreak.{TIEBREAK_KEYS[label]}.short")


def label(w: Words, action: str) -> str:
    """A button's label: join, leave, checkin, withdraw."""
    return t(w, f"{action}.label")


def image_words(w: Words) -> TournamentWords:
    """The fixed words of the tournament images, in ``w``'s language."""
    return TournamentWords(
        rank=t(w, "image.rank"),
        player=t(w, "image.player"),
        points=t(w, "image.points"),
        withdrawn=t(w, "image.withdrawn"),
        round=t(w, "image.round", n="{n}"),
        final=t(w, "image.final"),
        semifinals=t(w, "image.semifinals"),
        quarterfinals=t(w, "image.quarterfinals"),
        winners_bracket=t(w, "image.winners_bracket"),
        losers_bracket=t(w, "image.losers_bracket"),
        losers_final=t(w, "image.losers_final"),
        grand_final=t(w, "image.grand_final"),
        reset=t(w, "image.reset"),
        winner_of=t(w, "image.winner_of", match="{match}"),
        loser_of=t(w, "image.loser_of", match="{match}"),
        bye=t(w, "image.bye"),
        crosstable_bye=t(w, "image.crosstable_bye"),
        walkover=t(w, "image.walkover"),
        not_needed=t(w, "image.not_needed"),
        best_of=t(w, "image.best_of", n="{n}"),
        champion=w("separator.label", label=t(w, "image.champion"), text=""),
        places=(t(w, "image.first"), t(w, "image.second"), t(w, "image.third")),
        more=t(w, "image.more", n="{n}"),
    )


def status_text(w: Words, info: TournamentInfo, started: int) -> str:
    text = status_name(w, info.status)
    if info.status in ("running", "paused") and started:
        if info.rounds:
            text = t(w, "status_round_of", status=text, round=started, total=info.rounds)
        else:
            text = t(w, "status_round", status=text, round=started)
        if info.format == "swiss" and info.rounds is not None and started <= info.rounds // 2:
            text = t(w, "status_late", status=text, round=info.rounds // 2 + 1)
    return text


def format_line(w: Words, info: TournamentInfo) -> str:
    text = format_name(w, info.format)
    if info.format == "swiss" and info.rounds:
        text = t(w, "format_rounds", format=text, rounds=t(w, "rounds_count", count=info.rounds))
    if info.is_elimination and info.best_of > 1:
        text = t(w, "format_best_of", format=text, count=info.best_of)
    if info.division_size is not None and not info.is_elimination and info.format != "swiss":
        text = t(w, "format_divisions", format=text, count=info.division_size)
    return text


def announcement_title(info: TournamentInfo) -> str:
    return f"🏆 {shown(info)}"[:256]


def arena_length(w: Words, info: TournamentInfo) -> tuple[str, str, bool]:
    """An arena's length and whether it allows berserk, as a field of its announcement."""
    berserk = w("arena.berserk_allowed" if info.berserk else "arena.berserk_not_allowed")
    return w("arena.field.length"), w("arena.length", count=info.round_minutes, berserk=berserk), False


def announcement_fields(
    w: Words,
    info: TournamentInfo,
    game_text: str,
    clock: str,
    count: int,
    names: Sequence[str],
    checked_in: int | None,
    started: int = 0,
    checked_names: Sequence[str] = (),
) -> list[tuple[str, str, bool]]:
    """(name, value, inline) of each field of the announcement: with check-in, who has checked in is listed."""
    players = (
        t(w, "players_of", count=count, limit=info.max_players)
        if info.max_players
        else t(w, "players_count", count=count)
    )
    shown = names_within(w, names, FIELD_TEXT - len(players) - 16)
    fields = [
        (t(w, "field.game"), game_text, True),
        (t(w, "field.format"), format_line(w, info), True),
        (t(w, "field.clock"), clock, True),
        (t(w, "field.rated"), t(w, "rated_yes" if info.rated else "rated_no"), True),
        arena_length(w, info)
        if info.is_arena
        else (t(w, "field.round_deadline"), t(w, "round_minutes", count=info.round_minutes), False),
        (t(w, "field.players"), t(w, "players_names", players=players, names=shown) if shown else players, False),
        (t(w, "field.status"), status_text(w, info, started), True),
    ]
    if info.starts_at is not None and info.status == "signup":
        fields.append((t(w, "field.starts"), t(w, "starts_at", at=str(int(info.starts_at))), True))
    else:
        fields.append(
            (t(w, "field.starts"), t(w, "starts_manual" if info.status == "signup" else "starts_started"), True)
        )
    if info.checkin_minutes and info.status == "signup":
        opens = int(info.checkin_opens_at or 0)
        done = "" if checked_in is None else t(w, "checked_in_count", count=checked_in)
        fields.append(
            (t(w, "field.checkin"), t(w, "checkin_opens", opens=str(opens), count=info.checkin_minutes) + done, True)
        )
    if info.checkin_minutes and info.status == "signup" and checked_names:
        fields.append((t(w, "field.checked_in"), names_within(w, checked_names, FIELD_TEXT), False))
    fields.append((t(w, "field.organiser"), f"<@{info.organiser_id}>", True))
    return [(name, value[:FIELD_TEXT], inline) for name, value, inline in fields]


def names_within(w: Words, names: Sequence[str], limit: int) -> str:
    """Names one after another, at most ``NAMES_SHOWN`` of them and within ``limit`` characters; those left out are
    counted ("Ann, Bo and 143 more"). A name is never cut."""
    for shown in range(min(len(names), NAMES_SHOWN), 0, -1):
        text = listed(w, names[:shown])
        if shown < len(names):
            text = t(w, "and_more", names=text, count=len(names) - shown)
        if len(text) <= limit:
            return text
    return ""


def joined(w: Words, info: TournamentInfo, late: bool) -> str:
    return t(w, "joined_late" if late else "joined", name=shown(info))


def left(w: Words, info: TournamentInfo) -> str:
    return t(w, "left" if info.status == "signup" else "withdrew", name=shown(info))


def started(w: Words, info: TournamentInfo, players: int) -> str:
    if info.rounds:
        return t(w, "started_rounds", name=shown(info), count=players, rounds=t(w, "rounds_count", count=info.rounds))
    return t(w, "started", name=shown(info), count=players)


def round_header(w: Words, info: TournamentInfo, number: int, deadline: float) -> str:
    at = str(int(deadline))
    if info.rounds:
        return t(w, "round_header_of", name=shown(info), round=number, total=info.rounds, at=at)
    return t(w, "round_header", name=shown(info), round=number, at=at)


def pairing_line(w: Words, board: int, white: str, black: str, result: str | None, match: str | None) -> str:
    line = (
        t(w, "pairing_line_match", board=board, match=match, white=white, black=black)
        if match
        else t(w, "pairing_line", board=board, white=white, black=black)
    )
    return t(w, "pairing_result", line=line, result=result_word(w, result)) if result else line


def bye_line(w: Words, name: str, kind: str) -> str:
    return t(w, f"bye.{kind}", name=name)


def thread_name(w: Words, tournament: str, tournament_id: int, number: int, board: int, white: str, black: str) -> str:
    """``R3 B7: Ann vs Bo · Spring Swiss #12``: the round and board first, the tournament's number always kept."""
    suffix = thread_suffix(tournament_id)
    whole = t(w, "thread_name", prefix=thread_prefix(w, number, board), white=white, black=black, name=tournament)
    return whole[: 100 - len(suffix)] + suffix


def thread_prefix(w: Words, number: int, board: int) -> str:
    return t(w, "thread_prefix", round=str(number), board=str(board))


def thread_suffix(tournament_id: int) -> str:
    return f" #{tournament_id}"


def game_intro(w: Words, info: TournamentInfo, number: int, board: int, white: int, black: int, deadline: float) -> str:
    return t(
        w,
        "game_intro",
        name=shown(info),
        round=number,
        board=board,
        white=f"<@{white}>",
        black=f"<@{black}>",
        at=str(int(deadline)),
    )


def standings_title(w: Words, info: TournamentInfo, number: int, final: bool, *, escape: bool = True) -> str:
    """The standings' title: escaped for a post, as it is for an image (``escape=False``)."""
    name = shown(info) if escape else info.name
    return t(w, "standings_final.title", name=name) if final else t(w, "standings.title", name=name, round=number)


def score(w: Words, x: float) -> str:
    """Points with halves as ½ (``2½``, ``½``)."""
    whole = int(x)
    half = x - whole >= 0.5
    if half and whole == 0:
        return "½"
    return w.number(whole) + ("½" if half else "")


def points(w: Words, x: float) -> str:
    """A score with its unit, in the catalogue's plural forms: ``1 pt``, ``2 pts``, ``1½ pts``."""
    if float(x).is_integer():
        return t(w, "points", count=int(x))
    return t(w, "points_half", points=score(w, x))


def standings_lines(w: Words, table: Sequence[Standing], names: Mapping[int, str], short: Sequence[str]) -> list[str]:
    out = []
    for s in table:
        breaks = " · ".join(f"{tag} {score(w, v)}" for tag, v in zip(short, s.tiebreaks, strict=True))
        player = names.get(s.player, str(s.player))
        line = t(w, "standings_line", player=player, points=points(w, s.points), breaks=breaks)
        out.append(f"`{s.rank:>3}` " + line)
    return out


def tiebreak_legend(w: Words, labels: Sequence[str]) -> str:
    legend = listed(w, [f"{tiebreak_short(w, label)} = {tiebreak_name(w, label)}" for label in labels])
    return t(w, "tiebreak_legend", legend=legend)


def bracket_line(w: Words, match: str, a: str, b: str, winner: str | None) -> str:
    return w("separator.label", label=match, text=f"{a} – {b}") + (f" → **{winner}**" if winner else "")


def podium_text(w: Words, info: TournamentInfo, podiums: Sequence[tuple[str | None, Sequence[tuple[int, str]]]]) -> str:
    lines = [t(w, "podium", name=shown(info))]
    for group, places in podiums:
        if group is not None:
            lines.append(division_heading(w, group))
        for place, name in places:
            medal = MEDALS[place - 1] if place <= 3 else f"{place}."
            lines.append(f"{medal} {name}")
    return "\n".join(lines)


def division_name(w: Words, label: str) -> str:
    """A division's label (``Division 2``, as the flow names it) in ``w``'s language."""
    number = label.rsplit(" ", 1)[-1]
    return t(w, "division", number=number) if number.isdigit() else label


def division_heading(w: Words, label: str) -> str:
    return f"**{division_name(w, label)}**"


def exports_note(w: Words, info: TournamentInfo) -> str:
    """What the exports attached at the end are: the standings' CSV, a round-played format's crosstable CSV, a
    Swiss's TRF."""
    if info.is_elimination:
        return t(w, "exports")
    return t(w, "exports_trf" if info.format == "swiss" else "exports_crosstable")


def organiser_action(w: Words, actor: int, text: str) -> str:
    return t(w, "organiser_action", actor=f"<@{actor}>", action=text)


def action_result(w: Words, number: int, board: int, white: str, black: str, result: str) -> str:
    return t(w, "action_result", round=number, board=board, white=white, black=black, result=result_word(w, result))


def action_added(w: Words, name: str, late: bool) -> str:
    return t(w, "action_added_late" if late else "action_added", name=name)


def info_lines(w: Words, info: TournamentInfo, game_text: str, clock: str, players: int, round_now: int) -> str:
    fmt = format_line(w, info)
    count = t(w, "info.players", count=players)
    lines = [
        t(
            w,
            "info.head",
            name=shown(info),
            id=str(info.id),
            channel=f"<#{info.channel_id}>",
            status=status_name(w, info.status),
        ),
        t(w, "info.rated" if info.rated else "info.casual", game=game_text, format=fmt, clock=clock),
        t(w, "info.round", players=count, round=round_now) if round_now else count,
    ]
    if info.starts_at is not None and info.status == "signup":
        lines.append(t(w, "info.starts", at=str(int(info.starts_at))))
    return "\n".join(lines)


def choice_name(w: Words, info: TournamentInfo) -> str:
    return t(w, "choice", id=str(info.id), name=info.name, status=status_name(w, info.status))


def list_line(w: Words, info: TournamentInfo, players: int) -> str:
    return t(
        w,
        "list_line",
        id=str(info.id),
        name=shown(info),
        channel=f"<#{info.channel_id}>",
        format=format_name(w, info.format),
        status=status_name(w, info.status),
        players=t(w, "info.players", count=players),
    )


def mentions_posts(w: Words, key: str, user_ids: Sequence[int], **data: object) -> list[tuple[str, list[int]]]:
    """A channel post of ``key`` naming these members, cut into as many posts as Discord's limits need (2,000
    characters, 100 mentions a post): each post's text and whom it names."""
    out: list[tuple[str, list[int]]] = []
    batch: list[int] = []

    def text(ids: Sequence[int]) -> str:
        return t(w, key, mentions=" ".join(f"<@{uid}>" for uid in ids), **data)

    for uid in user_ids:
        if batch and (len(batch) == MENTIONS_A_POST or len(text([*batch, uid])) > CONTENT_TEXT):
            out.append((text(batch), batch))
            batch = []
        batch.append(uid)
    if batch:
        out.append((text(batch), batch))
    return out
