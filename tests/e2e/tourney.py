"""Helpers for tournament end-to-end tests: members sign up with the button, games are finished through real
commands in their threads, and the test keeps its own record of every result to check the bot against."""

from __future__ import annotations

import csv
import io
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from bot.tournaments import Bye, Game, Player, Round, Tournament


@dataclass(frozen=True)
class Board:
    """One pairing as the bot stored it, read back from the database file (as a second reader would)."""

    pairing_id: int
    round: int
    board: int
    white: int
    black: int
    match: str | None
    result: str | None
    state: str
    thread_id: int | None
    game_id: int | None


def boards(db_path: Path, tournament_id: int, number: int | None = None) -> list[Board]:
    with sqlite3.connect(db_path) as db:
        rows = db.execute(
            "SELECT id, round, board, white, black, match, result, state, thread_id, game_id FROM tournament_pairings "
            "WHERE tournament_id = ? AND (? IS NULL OR round = ?) ORDER BY round, board",
            (tournament_id, number, number),
        ).fetchall()
    return [Board(*row) for row in rows]


def rounds_stored(db_path: Path, tournament_id: int) -> int:
    with sqlite3.connect(db_path) as db:
        return int(
            db.execute("SELECT COUNT(*) FROM tournament_rounds WHERE tournament_id = ?", (tournament_id,)).fetchone()[0]
        )


def status(db_path: Path, tournament_id: int) -> str:
    with sqlite3.connect(db_path) as db:
        return str(db.execute("SELECT status FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()[0])


def byes(db_path: Path, tournament_id: int) -> list[tuple[int, int, str]]:
    with sqlite3.connect(db_path) as db:
        rows = db.execute(
            "SELECT round, user_id, kind FROM tournament_byes WHERE tournament_id = ? ORDER BY round, user_id",
            (tournament_id,),
        ).fetchall()
    return [(int(r[0]), int(r[1]), str(r[2])) for r in rows]


def players(db_path: Path, tournament_id: int) -> list[tuple[int, int, int, int, int | None]]:
    """(user, rating, seed, joined round, left round) of every seeded player."""
    with sqlite3.connect(db_path) as db:
        rows = db.execute(
            "SELECT user_id, rating, seed, joined_round, left_round FROM tournament_players "
            "WHERE tournament_id = ? AND seed IS NOT NULL ORDER BY seed",
            (tournament_id,),
        ).fetchall()
    return [(int(r[0]), int(r[1]), int(r[2]), int(r[3]), r[4]) for r in rows]


def thread_count(db_path: Path, tournament_id: int) -> int:
    with sqlite3.connect(db_path) as db:
        return int(
            db.execute(
                "SELECT COUNT(thread_id) FROM tournament_pairings WHERE tournament_id = ?", (tournament_id,)
            ).fetchone()[0]
        )


async def round_open(fake: FakeDiscord, db_path: Path, tournament_id: int, number: int) -> list[Board]:
    """Wait until round ``number`` is stored and every game of it is on a board in its thread."""

    def ready() -> list[Board] | None:
        if rounds_stored(db_path, tournament_id) < number:
            return None
        found = boards(db_path, tournament_id, number)
        for b in found:
            if b.result is None and (b.state != "game" or b.thread_id is None):
                return None
            if b.thread_id is not None and not any(m.embeds for m in fake.messages(b.thread_id)):
                return None
        return found

    return await fake.wait_until(ready, timeout=60, what=f"round {number} to open")


def posts_owed(db_path: Path, tournament_id: int) -> bool:
    """Whether the tournament still owes its channel a post (its start, a round's announcement or recap, its end)."""
    with sqlite3.connect(db_path) as db:
        return bool(
            db.execute(
                "SELECT 1 FROM tournaments WHERE id = ? AND (start_owed = 1 OR end_owed = 1) UNION ALL "
                "SELECT 1 FROM tournament_rounds WHERE tournament_id = ? AND (announced = 0 OR recap = 'owed')",
                (tournament_id, tournament_id),
            ).fetchall()
        )


async def finished(fake: FakeDiscord, db_path: Path, tournament_id: int) -> None:
    """Wait until the tournament is over and its end (final standings, podium) is posted."""
    await fake.wait_until(
        lambda: status(db_path, tournament_id) == "finished" and not posts_owed(db_path, tournament_id),
        timeout=60,
        what="the tournament to finish",
    )


async def resign_in(fake: FakeDiscord, member: Member, thread_id: int, group: str) -> None:
    """Resign through the command and its private confirmation, in the game's thread."""
    user = fake.user(member, channel_id=thread_id)
    asked = await user.slash(group, "resign")
    assert asked.ephemeral and asked.buttons, asked.content
    confirmed = await user.click(asked, "Resign")
    assert confirmed.content == "You resigned.", confirmed.content


@dataclass
class Record:
    """The test's own account of the tournament, built from what it saw and did, for the oracle."""

    format: str
    total_rounds: int
    players: dict[int, Player] = field(default_factory=dict)
    rounds: list[Round] = field(default_factory=list)

    def tournament(self) -> Tournament:
        return Tournament(self.format, tuple(self.players.values()), self.total_rounds, tuple(self.rounds))  # type: ignore[arg-type]

    def add_round(self, number: int, games: list[tuple[int, int, str]], round_byes: list[tuple[int, str]]) -> None:
        self.rounds.append(
            Round(number, tuple(Game(w, b, r) for w, b, r in games), tuple(Bye(p, k) for p, k in round_byes))  # type: ignore[arg-type]
        )


def csv_rows(message: Message) -> list[dict[str, str]]:
    name = next(n for n in message.files if n.endswith(".csv"))
    return list(csv.DictReader(io.StringIO(message.files[name].decode())))


def png(message: Message, name: str) -> Image.Image:
    """An image the bot attached, decoded (a file that is not a whole PNG fails here)."""
    assert name in message.files, (name, sorted(message.files))
    image = Image.open(io.BytesIO(message.files[name]))
    assert image.format == "PNG"
    image.load()
    return image


def posts_with(fake: FakeDiscord, channel_id: int, filename: str) -> list[Message]:
    """The public posts of a channel carrying a file of this name, in order."""
    return [m for m in fake.messages(channel_id, include_ephemeral=False) if filename in m.files]


async def resign_by_id(fake: FakeDiscord, member: Member, thread_id: int, group: str) -> None:
    """Resign through the command and its confirmation, pressed by its custom id (whatever the member's language)."""
    user = fake.user(member, channel_id=thread_id)
    asked = await user.slash(group, "resign")
    assert asked.ephemeral and asked.buttons, asked.content
    confirm = next(b["custom_id"] for b in asked.buttons if str(b["custom_id"]).endswith(":yes"))
    await user.click(asked, confirm)
