"""Every sentence the tournament feature says, in one place (the words move into the message catalogue).

Not an extension. Functions take plain values and return text; nothing here talks to Discord or the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.store import TournamentInfo
from bot.tournaments import Standing

FORMAT_NAMES: Mapping[str, str] = {
    "swiss": "Swiss (FIDE Dutch)",
    "round_robin": "round robin",
    "double_round_robin": "double round robin",
    "single_elimination": "single elimination",
    "double_elimination": "double elimination",
}
STATUS_NAMES: Mapping[str, str] = {
    "signup": "open for sign-up",
    "running": "running",
    "paused": "paused",
    "finished": "finished",
    "cancelled": "cancelled",
}
MEDALS = ("🥇", "🥈", "🥉")
RESULT_WORDS: Mapping[str, str] = {
    "1-0": "1-0",
    "0-1": "0-1",
    "1/2-1/2": "½-½",
    "+-": "1-0 (forfeit)",
    "-+": "0-1 (forfeit)",
    "--": "0-0 (neither played)",
}

SHORT_TIEBREAKS: Mapping[str, str] = {
    "Buchholz cut 1": "BH-C1",
    "Buchholz": "BH",
    "Sonneborn-Berger": "SB",
    "head-to-head": "H2H",
    "wins": "W",
}
LIST_TITLE = "Tournaments"
NO_ORGANISER_ROLE = "Only members with Manage Server organise tournaments here; name a role to add its members."

JOIN = "Join"
LEAVE = "Leave"
CHECK_IN = "Check in"
WITHDRAW = "Withdraw for good"
NOT_PLAYING = "You are not playing in this tournament."

# --- refusals (private) ---
NOT_ORGANISER = (
    "Only this tournament's organiser, members with Manage Server, or the server's tournament organiser role "
    "can do this."
)
NOT_ORGANISER_CREATE = (
    "Only members with Manage Server, or the server's tournament organiser role, can create tournaments."
)
NO_TOURNAMENT_HERE = "No tournament is signing up or running in this channel; name one with the `tournament` option."
NOT_THIS_SERVER = "That tournament is not one of this server's."
FORGED = "This button does not belong to that tournament."
OPTION_OTHER_GAME = "`{option}` is a {other} setting; {game} tournaments take {takes}."
BEST_OF_ROUNDS = "`best_of` is for elimination brackets only."
ROUNDS_NOT_SWISS = "`rounds` is for a Swiss only: a round robin plays everyone once, a bracket until its final."
ROUNDS_OVER_LIMIT = "{rounds} rounds need at least {need} players, but the limit is {limit}."
CHECKIN_NEEDS_START = "A check-in window needs a start time (`start`), which check-in closes at."
BAD_START = (
    "{text} is not a start time I can read. Write it as a delay (`30m`, `2h`, `1d`), a UTC date and time "
    "(`2026-12-01 18:00`), or a Discord timestamp (`<t:1796144400>`)."
)
START_PAST = "That start time (<t:{at}:F>) has already passed; choose a time in the future."
START_TOO_FAR = "A tournament starts within 60 days; choose an earlier start."
DIVISIONS_NOT_RR = "`division_size` is for a round robin only."
NO_SUCH_PAIRING = "Round {round} has no board {board}."
NO_PLAYER = "{member} is not in this tournament."
NAME_EMPTY = "Give the tournament a name."
NOT_RUNNING_FOR_ROUND = "The tournament is not running, so there is no round to pair again."
ALREADY_ORGANISER_ROLE = "Tournament organisers are now members with the {role} role (and Manage Server)."

# --- public ---


def status_text(info: TournamentInfo, started: int) -> str:
    text = STATUS_NAMES[info.status]
    if info.status in ("running", "paused") and started:
        text += f", round {started}" + (f" of {info.rounds}" if info.rounds else "")
        if info.format == "swiss" and info.rounds is not None and started <= info.rounds // 2:
            text += f"; late entries open until round {info.rounds // 2 + 1} starts"
    return text


def format_line(info: TournamentInfo) -> str:
    text = FORMAT_NAMES[info.format]
    if info.format == "swiss" and info.rounds:
        text += f", {info.rounds} rounds"
    if info.is_elimination and info.best_of > 1:
        text += f", best of {info.best_of}"
    if info.division_size is not None and not info.is_elimination and info.format != "swiss":
        text += f", divisions of at most {info.division_size}"
    return text


def announcement_title(info: TournamentInfo) -> str:
    return f"🏆 {info.name}"[:256]


def announcement_fields(
    info: TournamentInfo, game_text: str, count: int, names: Sequence[str], checked_in: int | None, started: int = 0
) -> list[tuple[str, str]]:
    players = f"{count}" + (f" / {info.max_players}" if info.max_players else "")
    shown = ", ".join(names[:30])
    if len(names) > 30:
        shown += f" and {len(names) - 30} more"
    fields = [
        ("Game", game_text),
        ("Format", format_line(info)),
        ("Clock", info.time_control.describe()),
        ("Rated", "yes: results change ratings, and seeding follows them" if info.rated else "no (casual)"),
        ("Round deadline", f"{info.round_minutes} minutes a round; a game still on then is adjudicated by the clock"),
        ("Players", players + (f": {shown}" if shown else "")),
        ("Status", status_text(info, started)),
    ]
    if info.starts_at is not None and info.status == "signup":
        at = int(info.starts_at)
        fields.append(("Starts", f"<t:{at}:F> (<t:{at}:R>)"))
    else:
        fields.append(("Starts", "when the organiser starts it" if info.status == "signup" else "started"))
    if info.checkin_minutes and info.status == "signup":
        opens = int(info.checkin_opens_at or 0)
        done = "" if checked_in is None else f" ({checked_in} checked in)"
        fields.append(("Check-in", f"opens <t:{opens}:R>, {info.checkin_minutes} minutes before the start{done}"))
    fields.append(("Organiser", f"<@{info.organiser_id}>"))
    return [(name, value[:1024]) for name, value in fields]


def created(info: TournamentInfo) -> str:
    return f"Tournament **{info.name}** (#{info.id}) is open: press **Join** to play."


def joined(info: TournamentInfo, late: bool) -> str:
    if late:
        return (
            f"You are entered in **{info.name}** from the next round on (with a ½-point bye for the last round missed)."
        )
    return f"You are entered in **{info.name}**."


def left(info: TournamentInfo) -> str:
    if info.status == "signup":
        return f"You left **{info.name}**."
    return f"You withdrew from **{info.name}**: your results so far stay, and you are not paired again."


def confirm_withdraw(info: TournamentInfo) -> str:
    return (
        f"Withdraw from **{info.name}**? Your results so far stay, a game you are playing goes on, and you are not "
        "paired again; you cannot come back."
    )


def checked_in(info: TournamentInfo) -> str:
    return f"You are checked in for **{info.name}**."


def checkin_open(info: TournamentInfo) -> str:
    at = int(info.starts_at or 0)
    return (
        f"Check-in for **{info.name}** is open until the start, <t:{at}:t> (<t:{at}:R>): entered players, press "
        "**Check in** on the announcement, or you will not be paired."
    )


def started(info: TournamentInfo, players: int) -> str:
    rounds = f", {info.rounds} rounds" if info.rounds else ""
    return f"**{info.name}** has started with {players} players{rounds}. Good luck!"


def not_started(info: TournamentInfo, reason: str) -> str:
    return f"**{info.name}** could not start at its time and is cancelled: {reason}"


def round_header(info: TournamentInfo, number: int, deadline: float) -> str:
    total = f" of {info.rounds}" if info.rounds else ""
    return (
        f"**{info.name}: round {number}{total}.** Your game is in its own thread below; it ends at the "
        f"round's deadline, <t:{int(deadline)}:F> (<t:{int(deadline)}:R>), if not before."
    )


def pairing_line(board: int, white: str, black: str, result: str | None, match: str | None) -> str:
    where = f"{match}: " if match else ""
    outcome = f" · **{RESULT_WORDS[result]}**" if result else ""
    return f"{board}. {where}{white} – {black}{outcome}"


def pairings_title(info: TournamentInfo, number: int) -> str:
    return f"{info.name}: round {number} pairings"


def withdrawn_line(names: Sequence[str]) -> str:
    return "Withdrawn: " + ", ".join(names)


def bot_cannot_play(mention: str) -> str:
    return f"{mention} is a bot and cannot play."


def bye_line(name: str, kind: str) -> str:
    return {
        "pairing": f"{name}: bye (1 point)",
        "half": f"{name}: ½-point bye",
        "full": f"{name}: bye (1 point)",
        "zero": f"{name}: absent (0 points)",
        "rest": f"{name}: sits this round out",
    }[kind]


def thread_name(tournament: str, tournament_id: int, number: int, board: int, white: str, black: str) -> str:
    """``R3 B7: Ann vs Bo · Spring Swiss #12``: the round and board first, the tournament's number always kept."""
    suffix = thread_suffix(tournament_id)
    return f"{thread_prefix(number, board)} {white} vs {black} · {tournament}"[: 100 - len(suffix)] + suffix


def thread_prefix(number: int, board: int) -> str:
    return f"R{number} B{board}:"


def thread_suffix(tournament_id: int) -> str:
    return f" #{tournament_id}"


def game_intro(info: TournamentInfo, number: int, board: int, white: int, black: int, deadline: float) -> str:
    return (
        f"**{info.name}**, round {number}, board {board}: <@{white}> plays first against <@{black}>. "
        f"The round ends <t:{int(deadline)}:R>; play your turns here. Good luck!"
    )


def cannot_open(info: TournamentInfo, number: int) -> str:
    return (
        f"I cannot open the games of round {number} of **{info.name}**: Discord refuses me a thread or a post "
        "here. A server manager should give me Create Public Threads, Send Messages in Threads, Embed Links and "
        "Attach Files in this channel; I try again every minute."
    )


def cannot_pair(info: TournamentInfo, number: int) -> str:
    return (
        f"Round {number} of **{info.name}** cannot be paired: the players left have all met already. "
        "The tournament ends with the rounds played."
    )


def standings_title(info: TournamentInfo, number: int, final: bool) -> str:
    return f"{info.name}: final standings" if final else f"{info.name}: standings after round {number}"


def standings_lines(
    table: Sequence[Standing], names: Mapping[int, str], labels: Sequence[str], short: Sequence[str]
) -> list[str]:
    out = []
    for s in table:
        breaks = " · ".join(f"{tag} {_num(v)}" for tag, v in zip(short, s.tiebreaks, strict=True))
        out.append(f"`{s.rank:>3}` **{names.get(s.player, str(s.player))}** — {_num(s.points)} pts · {breaks}")
    return out


def tiebreak_legend(labels: Sequence[str], short: Sequence[str]) -> str:
    return "Tie-breaks in order: " + ", ".join(f"{tag} = {label}" for tag, label in zip(short, labels, strict=True))


def bracket_title(info: TournamentInfo, number: int) -> str:
    return f"{info.name}: bracket after round {number}"


def bracket_line(match: str, a: str, b: str, winner: str | None) -> str:
    return f"{match}: {a} – {b}" + (f" → **{winner}**" if winner else "")


def podium_text(info: TournamentInfo, podiums: Sequence[tuple[str | None, Sequence[tuple[int, str]]]]) -> str:
    lines = [f"🏆 **{info.name}** is over. Congratulations!"]
    for group, places in podiums:
        if group is not None:
            lines.append(division_heading(group))
        for place, name in places:
            medal = MEDALS[place - 1] if place <= 3 else f"{place}."
            lines.append(f"{medal} {name}")
    return "\n".join(lines)


def division_heading(label: str) -> str:
    return f"**{label}**"


def exports_note(swiss: bool) -> str:
    return "Standings as CSV" + (" and the tournament as TRF (for FIDE pairing programs)" if swiss else "") + "."


def organiser_action(actor: int, text: str) -> str:
    return f"🛠️ <@{actor}> {text}"


def action_paused() -> str:
    return "paused the tournament: games in progress go on, the next round waits until it resumes."


def action_resumed() -> str:
    return "resumed the tournament."


def action_cancelled() -> str:
    return "cancelled the tournament; games still in progress were cancelled."


def action_started() -> str:
    return "started the tournament."


def action_result(number: int, board: int, white: str, black: str, result: str) -> str:
    return f"set round {number}, board {board} ({white} – {black}) to **{RESULT_WORDS[result]}**."


def action_removed(name: str) -> str:
    return f"removed {name} from the tournament (their results so far stay)."


def action_added(name: str, late: bool) -> str:
    return f"added {name}" + (" from the next round on (½-point bye for the last round missed)." if late else ".")


def action_repaired(number: int) -> str:
    return f"threw away the pairings of round {number} before any game began; it is paired again now."


GAME_STOPPED_BY_CANCEL = "The tournament was cancelled, and this game with it."


def game_stopped_by_result(result: str) -> str:
    return f"The organiser set this game's result: {RESULT_WORDS[result]}. It is over."


def no_show(name: str) -> str:
    return f"{name} did not play their game: a forfeit loss, and withdrawn from the tournament."


def info_lines(info: TournamentInfo, game_text: str, players: int, round_now: int) -> str:
    lines = [
        f"**{info.name}** (#{info.id}) in <#{info.channel_id}>: {STATUS_NAMES[info.status]}",
        f"{game_text}; {format_line(info)}; clock {info.time_control.describe()}; "
        f"{'rated' if info.rated else 'casual'}",
        f"{players} players" + (f"; round {round_now}" if round_now else ""),
    ]
    if info.starts_at is not None and info.status == "signup":
        lines.append(f"Starts <t:{int(info.starts_at)}:F> (<t:{int(info.starts_at)}:R>)")
    return "\n".join(lines)


def choice_name(info: TournamentInfo) -> str:
    return f"#{info.id} {info.name} ({STATUS_NAMES[info.status]})"


def list_line(info: TournamentInfo, players: int) -> str:
    return (
        f"#{info.id} **{info.name}** in <#{info.channel_id}> · {FORMAT_NAMES[info.format]} · "
        f"{STATUS_NAMES[info.status]} · {players} players"
    )


NO_TOURNAMENTS = "This server has no tournaments yet. Create one with `/tournament create`."
NO_STANDINGS_YET = "No round has finished yet, so there are no standings."


def _num(x: float) -> str:
    return f"{x:g}".replace(".5", "½") if x != 0.5 else "½"
