"""The guided move: Move → shooter → destination or stay → target → confirm, privately, with images."""

from __future__ import annotations

import io
import random
from typing import Any

from PIL import Image

from bot.client import VeletasBot
from bot.render import THEMES, layout
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.table import start_game


def options(message: Message) -> list[str]:
    return [option["value"] for menu in message.selects for option in menu["options"]]


def menu_with(message: Message, value: str) -> str:
    menu: dict[str, Any] = next(m for m in message.selects if value in [o["value"] for o in m["options"]])
    return str(menu["custom_id"])


async def test_one_move_by_clicking(sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member) -> None:
    table = await start_game(sandbox, alice, bob, variant="medium")
    await table.play_setup(random.Random(3))
    position = table.game.position
    mover, waiting = table.user_to_act(), table.other()
    board = table.boards[-1]

    refused = await waiting.click(board, "Move")
    assert refused.ephemeral and "turn, not yours" in refused.content

    step = await mover.click(board, "Move")
    assert step.ephemeral and step.files["board.png"].startswith(b"\x89PNG")
    assert sorted(options(step)) == sorted(position.unclaimed())

    shooter = next(s for s in position.unclaimed() if position.destinations(s))
    step = await mover.select(step, shooter, menu=menu_with(step, shooter))
    assert step.ephemeral and f"shooter **{shooter}**" in step.text()
    assert options(step) == ["stay", *position.destinations(shooter)]

    destination = position.destinations(shooter)[-1]
    step = await mover.select(step, destination, menu=menu_with(step, destination))
    targets = position.targets(destination, vacated=shooter)
    assert options(step) == targets and shooter in targets, "the square just left may be shot"

    cursor = sandbox.cursor()
    step = await mover.select(step, targets[0], menu=menu_with(step, targets[0]))
    move = f"{shooter}-{destination}/{targets[0]}"
    assert f"play **`{move}`**" in step.text()
    assert [b["label"] for b in step.buttons] == [f"Play {move}", "Start over", "Cancel"]
    assert (await bot.store.get_game(table.game_id)).ply == len(table.game.turns), "nothing is played before confirming"

    done = await mover.click(step, f"Play {move}")
    assert done.ephemeral and done.content == f"You played `{move}`." and done.buttons == [] and not done.files
    public = await sandbox.wait_for_message(
        table.channel_id, lambda m: not m.ephemeral and bool(m.embeds), after=cursor
    )
    assert f"`{move}`" in public.text()
    table.game = table.game.play(move)
    assert (await bot.store.get_game(table.game_id)).turns == table.game.turns


async def test_a_stale_menu_refuses_politely(sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member) -> None:
    table = await start_game(sandbox, alice, bob)
    await table.play_setup(random.Random(5))
    mover = table.user_to_act()
    menu = await mover.click(table.boards[-1], "Move")
    position = table.game.position
    move = position.legal_moves()[0]
    await table.turn(str(move))
    before = await bot.store.get_game(table.game_id)
    shooter = table.game.position.unclaimed()[0]
    answer = await mover.select(menu, shooter, menu=menu_with(menu, shooter))
    assert answer.ephemeral and "out of date" in answer.content
    assert await bot.store.get_game(table.game_id) == before


def near(rgb: tuple[int, ...], colour: tuple[int, int, int], within: int = 24) -> bool:
    return max(abs(a - b) for a, b in zip(rgb, colour, strict=False)) <= within


def coloured(png: bytes, square: str, colour: tuple[int, int, int], n: int = 9) -> int:
    """How many pixels of the inner half of ``square`` are drawn in ``colour`` on the step's image."""
    im = Image.open(io.BytesIO(png)).convert("RGB")
    lay = layout(n, im.width)
    cx, cy = lay.center(square)
    q = lay.square // 4
    return sum(near(im.getpixel((x, y)), colour) for x in range(cx - q, cx + q) for y in range(cy - q, cy + q))


async def test_the_setup_steps_draw_the_chosen_shooters_and_stone_as_they_will_stand(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="medium")
    theme = THEMES["light"]
    step = await table.first.click(table.boards[-1], "Set up")
    assert step.embeds[0]["title"] == f"Setup · Veletas #{table.game_id} — place 2 shooters and a black stone"
    first = options(step)[0]
    assert coloured(step.files["board.png"], first, theme.shooter) == 0, "nothing stands there before it is chosen"
    step = await table.first.select(step, first, menu=menu_with(step, first))
    area = (layout(9).square // 2) ** 2  # the inner half of a square: a piece covers most of it
    assert coloured(step.files["board.png"], first, theme.shooter) > area // 4, (
        "the chosen shooter is drawn on its square"
    )
    second = options(step)[-1]
    step = await table.first.select(step, second, menu=menu_with(step, second))
    stone = options(step)[0]
    for square in (first, second):
        assert coloured(step.files["board.png"], square, theme.shooter) > area // 4, square
    assert coloured(step.files["board.png"], stone, theme.black) == 0, "the stone's square is still empty"
    step = await table.first.select(step, stone, menu=step.selects[0]["custom_id"])
    assert step.embeds[0]["title"].startswith(f"Setup · Veletas #{table.game_id}")
    png = step.files["board.png"]
    for square in (first, second):
        assert coloured(png, square, theme.shooter) > area // 4, f"the confirm image shows the shooter on {square}"
    assert coloured(png, stone, theme.black) > area // 4, "the confirm image shows the stone"
    assert coloured(png, stone, theme.shooter) == 0, "as a stone, not a shooter"


async def test_the_setup_title_speaks_the_members_language(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="medium")
    for locale, title in (
        ("es-419", f"Preparación · Veletas #{table.game_id}: coloca 2 tiradores y una piedra negra"),
        ("ja", f"配置 · Veletas #{table.game_id}：シューター2個と黒の石1個を置きます"),
    ):
        alice.locale = locale
        step = await table.first.click(table.boards[-1], "Set up")
        assert step.embeds[0]["title"] == title


async def test_a_stationary_shot_is_confirmed_with_its_shooter_written(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="medium")
    await table.play_setup(random.Random(3))
    position = table.game.position
    mover = table.user_to_act()
    step = await mover.click(table.boards[-1], "Move")
    shooter = next(s for s in position.unclaimed() if position.targets(s))
    step = await mover.select(step, shooter, menu=menu_with(step, shooter))
    step = await mover.select(step, "stay", menu=menu_with(step, "stay"))
    target = options(step)[0]
    step = await mover.select(step, target, menu=menu_with(step, target))
    assert [b["label"] for b in step.buttons] == [f"Play {shooter}/{target}", "Start over", "Cancel"]
    assert f"play **`{shooter}/{target}`**" in step.text()
    cursor = sandbox.cursor()
    done = await mover.click(step, f"Play {shooter}/{target}")
    assert done.ephemeral and done.content == f"You played `{shooter}/{target}`.", "said as the button said it"
    await sandbox.wait_for_message(table.channel_id, lambda m: not m.ephemeral and bool(m.embeds), after=cursor)
    table.game = table.game.play(target)
    assert (await bot.store.get_game(table.game_id)).turns == table.game.turns, "the record keeps the canonical form"


def marked_pixels(png: bytes, square: str, n: int = 9) -> int:
    """How many pixels of ``square`` differ from its plain board colour (light theme): stripes, rings, pieces."""
    look = THEMES["light"]
    im = Image.open(io.BytesIO(png)).convert("RGB")
    lay = layout(n, im.width)
    x0, y0 = lay.origin((ord(square[0]) - ord("a"), int(square[1:]) - 1))
    file, rank = ord(square[0]) - ord("a"), int(square[1:]) - 1
    plain = look.dark if (file + rank) % 2 == 0 else look.light
    inset = lay.square // 8  # away from the neighbours' edges
    return sum(
        not near(im.getpixel((x, y)), plain, 6)
        for x in range(x0 + inset, x0 + lay.square - inset)
        for y in range(y0 + inset, y0 + lay.square - inset)
    )


async def test_classic_setup_hatches_the_squares_next_to_a_chosen_shooter(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="medium", rules="classic")
    step = await table.first.click(table.boards[-1], "Set up")
    first = "e5"
    step = await table.first.select(step, first, menu=menu_with(step, first))
    offered = set(options(step))
    touching = [f"{chr(ord(first[0]) + df)}{int(first[1:]) + dr}" for df in (-1, 0, 1) for dr in (-1, 0, 1)]
    touching.remove(first)
    assert not offered & set(touching)
    png = step.files["board.png"]
    side = (layout(9).square - 2 * (layout(9).square // 8)) ** 2
    for square in touching:
        assert marked_pixels(png, square) > side // 6, f"{square} is hatched: no shooter may go there now"


async def test_a_reply_typed_before_the_clicked_moves_board_is_out_is_refused_and_played_once_it_is(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    # A clicked move's board follows its private "You played" answer. Discord holds that board back (a 429)
    # while the opponent types a reply: the reply was sent before anyone could see the move, so it is refused
    # like a reply sent before the move itself, and the channel shows the clicked move's board last.
    table = await start_game(sandbox, alice, bob)
    await table.play_setup(random.Random(9))
    position = table.game.position
    mover, waiting = table.user_to_act(), table.other()
    step = await mover.click(table.boards[-1], "Move")
    shooter = next(s for s in position.unclaimed() if position.targets(s))
    step = await mover.select(step, shooter, menu=menu_with(step, shooter))
    step = await mover.select(step, "stay", menu=menu_with(step, "stay"))
    target = position.targets(shooter)[0]
    step = await mover.select(step, target, menu=menu_with(step, target))
    held = sandbox.fail("POST", r"^/webhooks/\d+/[^/]+$", 429, retry_after=0.4)
    cursor = sandbox.cursor()
    confirm = next(b["label"] for b in step.buttons if b["custom_id"].split(":")[1] == "gc")
    await mover.click(step, confirm)
    table.game = table.game.play(target)
    reply = str(table.game.position.legal_moves()[0])
    early = await waiting.slash("veletas", "move", move=reply)
    assert held.hits == 1
    assert early.ephemeral and "moved on after you sent this" in early.content, early.content

    def boards() -> list[Message]:
        return [m for m in sandbox.messages(table.channel_id, include_ephemeral=False) if m.id > cursor and m.embeds]

    def last_turn(message: Message) -> str:
        return str({f["name"]: f["value"] for f in message.embeds[0]["fields"]}["Last turn"])

    shown = await sandbox.wait_until(lambda: boards() and boards()[-1], what="the clicked move's board")
    assert last_turn(shown) == f"`{target}`"
    answered = await table.turn(reply)
    assert not answered.ephemeral and last_turn(answered) == f"`{reply}`"
    assert [last_turn(m) for m in boards()] == [f"`{target}`", f"`{reply}`"]
    assert (await bot.store.get_game(table.game_id)).turns == table.game.turns
