"""Board themes: each player's choice is kept and used for the images drawn for them."""

from __future__ import annotations

import io
import random

from PIL import Image

from bot import render
from bot.client import VeletasBot
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.table import start_game


def theme_of_image(message: Message, name: str = "board.png") -> str:
    """Which theme drew the board: each theme has its own background colour in the image's corner."""
    corner = Image.open(io.BytesIO(message.files[name])).convert("RGB").getpixel((1, 1))
    found = [theme.name for theme in render.THEMES.values() if theme.background == corner]
    assert len(found) == 1, corner
    return found[0]


async def test_a_player_chooses_a_theme_and_their_boards_use_it(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    shown = await sandbox.user(alice).slash("player", "theme")
    assert shown.ephemeral and "You have not chosen a theme" in shown.content
    assert theme_of_image(shown) == "light"
    # The words name the theme; its description is the image's title, not said twice; the example is whole.
    assert "**Light**" in shown.content and "`/player theme choice:Dark`" in shown.content, shown.content
    assert "wooden" not in shown.content and "wooden" in shown.embeds[0]["title"]
    chosen = await sandbox.user(alice).slash("player", "theme", choice="dark")
    assert chosen.ephemeral and "**Dark**" in chosen.content and theme_of_image(chosen) == "dark"
    assert "slate" not in chosen.content, chosen.content
    # What it says about the public board is what happens below: the challenger's theme, the whole game.
    assert "whenever it is your turn" not in chosen.content
    assert "public board of the games you challenge" in chosen.content and "whole game" in chosen.content
    assert await bot.store.get_theme(alice.id) == "dark"
    await sandbox.user(bob).slash("player", "theme", choice="contrast")

    table = await start_game(sandbox, alice, bob, variant="small")
    # The public board keeps one look for the whole game, the challenger's, whoever is to act.
    assert theme_of_image(table.boards[-1]) == "dark"
    await table.play_setup(random.Random(5))
    mover = table.user_to_act()
    mover_theme = "dark" if mover.member.id == alice.id else "contrast"
    assert [theme_of_image(board) for board in table.boards] == ["dark"] * len(table.boards)
    # The private guided steps use the mover's theme, and so does a board asked for privately.
    step = await mover.click(table.boards[-1], "Move")
    assert step.ephemeral and theme_of_image(step) == mover_theme
    other = table.other()
    private = await other.slash("veletas", "board", private=True)
    assert private.ephemeral and theme_of_image(private) == ("contrast" if mover_theme == "dark" else "dark")
    # A private board is not the game's board: the buttons of the public one stay the ones in use.
    assert (await bot.store.get_game(table.game_id)).board_message_id != private.id
    public = await other.slash("veletas", "board")
    assert not public.ephemeral and theme_of_image(public) == "dark", "the game's own look, asked by anyone"
