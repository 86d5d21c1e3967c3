"""Helpers for end-to-end tests: a table of two members playing one game through slash commands."""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.rules import Game
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from bot.sandbox.users import SandboxUser


def split_setup(turn: str) -> dict[str, str]:
    """A canonical setup turn ("c3,e5/d7") as the options of /veletas setup."""
    shooters, _, stone = turn.partition("/")
    options = {"shooters": shooters.replace(",", " ")}
    if stone:
        options["stone"] = stone
    return options


@dataclass
class Table:
    """Two members playing one game, with the rules' view kept alongside to know who acts next."""

    fake: FakeDiscord
    first: SandboxUser
    second: SandboxUser
    channel_id: int
    game: Game
    game_id: int
    boards: list[Message] = field(default_factory=list)

    def user_to_act(self) -> SandboxUser:
        seat = self.game.seat_to_act
        assert seat is not None, "the game is over"
        return self.first if seat == "first" else self.second

    def other(self) -> SandboxUser:
        return self.second if self.user_to_act() is self.first else self.first

    async def turn(self, text: str) -> Message:
        """Play ``text`` (setup, pie or move) with the right command as the member whose turn it is."""
        user = self.user_to_act()
        if self.game.phase == "setup":
            message = await user.slash("veletas", "setup", **split_setup(text))
        elif self.game.phase == "pie":
            message = await user.slash("veletas", "pie", choice=text)
        else:
            message = await user.slash("veletas", "move", move=text)
        self.game = self.game.play(text)
        self.boards.append(message)
        return message

    async def play_setup(self, rng: random.Random) -> None:
        """Random legal setup turns (and pie choice) until moves start."""
        while self.game.phase in ("setup", "pie"):
            await self.turn(random_setup_turn(self.game, rng))


def random_setup_turn(game: Game, rng: random.Random) -> str:
    """A legal setup turn or pie choice for ``game``, as a player would type it."""
    if game.phase == "pie":
        return rng.choice(["keep", "swap"])
    shooters = sorted(rng.sample(game.setup_squares(), game.shooters_to_place))
    text = ",".join(shooters)
    if game.stone_to_place:
        empty = [s for s in _all_squares(game.position.size) if s not in shooters and game.position.piece_at(s) is None]
        text += "/" + rng.choice(empty)
    return text


def _all_squares(size: int) -> list[str]:
    return [f"{'abcdefghij'[f]}{r + 1}" for f in range(size) for r in range(size)]


async def start_game(
    fake: FakeDiscord,
    first: Member,
    second: Member,
    *,
    variant: str = "small",
    rules: str = "current",
    where: str | None = "here",
) -> Table:
    """Challenge and accept; returns the table in the game's channel (the new thread for ``thread``).

    ``where=None`` leaves the option out, as most players will.
    """
    challenger = fake.user(first)
    options = {"opponent": second, "variant": variant, "rules": rules} | ({"where": where} if where else {})
    message = await challenger.slash("veletas", "challenge", **options)
    assert not message.ephemeral, message.content
    accepter = fake.user(second)
    cursor = fake.cursor()
    await accepter.click(message, "Accept")
    board = await fake.wait_for_message(predicate=lambda m: bool(m.embeds) and "Veletas #" in m.text(), after=cursor)
    channel_id = board.channel_id
    game_id = int(board.embeds[0]["title"].split("#")[1].split(" ")[0])
    return Table(
        fake,
        fake.user(first).in_channel(channel_id),
        fake.user(second).in_channel(channel_id),
        channel_id,
        Game.new(variant, rules=rules),
        game_id,
        [board],
    )


async def resign(fake: FakeDiscord, user: SandboxUser, group: str = "veletas") -> Message:
    """Resign as a player does: the command, then the private confirmation; returns the public final board."""
    asked = await user.slash(group, "resign")
    assert asked.ephemeral and [b["label"] for b in asked.buttons] == ["Resign", "Keep playing"], asked.content
    cursor = fake.cursor()
    confirmed = await user.click(asked, "Resign")
    assert confirmed.content == "You resigned." and confirmed.buttons == []
    return await fake.wait_for_message(
        predicate=lambda m: not m.ephemeral and bool(m.embeds) and "resigned" in m.text(), after=cursor
    )


def stored_games(db_path: Path) -> list[tuple[int, str]]:
    """Every row of the games table, challenges included, as (id, status): what a refusal must leave alone."""
    with sqlite3.connect(db_path) as db:
        return [(int(row[0]), str(row[1])) for row in db.execute("SELECT id, status FROM games ORDER BY id")]


def last_public(fake: FakeDiscord, channel_id: int) -> Message:
    return fake.messages(channel_id, include_ephemeral=False)[-1]


def sent_body(fake: FakeDiscord, message: Message) -> dict[str, Any]:
    """The JSON the bot sent to create ``message`` (the fake keeps what Discord stores, not the request)."""
    for request in fake.requests:
        body, response = request.body, request.response
        if not isinstance(body, dict) or not isinstance(response, dict):
            continue
        created = response.get("id") or ((response.get("resource") or {}).get("message") or {}).get("id")
        if created == str(message.id):
            data = body.get("data") if isinstance(body.get("data"), dict) else body
            return dict(data)
    raise AssertionError(f"no request created {message!r}")


def pinged(fake: FakeDiscord, message: Message) -> list[str]:
    """Who Discord would notify for ``message``: the ids its allowed_mentions lets through."""
    allowed = sent_body(fake, message)["allowed_mentions"]
    assert allowed.get("parse") == [], allowed
    return [str(user) for user in allowed.get("users", [])]


def would_ping(fake: FakeDiscord, message: Message) -> list[str]:
    """Who Discord would notify for ``message``: the ids its allowed_mentions lets through that its content names."""
    return [user for user in pinged(fake, message) if f"<@{user}>" in message.content]
