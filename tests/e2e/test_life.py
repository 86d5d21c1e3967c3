"""A game's whole life as players found it: confirming a resignation, a rematch, old boards without dead
buttons, claiming a win on time, the AI's turn, taking back against the AI, counting moves."""

from __future__ import annotations

import random
from functools import partial
from pathlib import Path

from bot.client import VeletasBot
from bot.rules.veloop import Game
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import ManualClock, make_factory
from e2e.table import pinged, random_setup_turn, resign, start_game
from e2e.test_ai_game import RandomAi, ai_has_played


async def veloop_here(sandbox: FakeDiscord, first: Member, second: Member, time: str = "none") -> tuple[Message, int]:
    challenge = await sandbox.user(first).slash(
        "veloop", "challenge", opponent=second, board="5", protocol="alternating", where="here", time=time
    )
    cursor = sandbox.cursor()
    await sandbox.user(second).click(challenge, "Accept")
    board = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "Veloop #" in m.text(), after=cursor
    )
    return board, int(board.embeds[0]["title"].split("#")[1].split(" ")[0])


def a_move(game: Game) -> str:
    return str(next(m for m in game.position.legal_moves() if not m.is_pass))


async def both_move(sandbox: FakeDiscord, first: Member, second: Member) -> None:
    """Each player's first move: from here on a resignation or a flag decides the game (before, it aborts it)."""
    game = Game.new(5, "alternating")
    for player in (first, second):
        turn = a_move(game)
        await sandbox.user(player).slash("veloop", "move", move=turn)
        game = game.play(turn)


async def test_resigning_asks_first_and_keep_playing_changes_nothing(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    _, game_id = await veloop_here(sandbox, alice, bob)
    await both_move(sandbox, alice, bob)
    asked = await sandbox.user(alice).slash("veloop", "resign")
    assert asked.ephemeral and [b["label"] for b in asked.buttons] == ["Resign", "Keep playing"]
    kept = await sandbox.user(alice).click(asked, "Keep playing")
    assert kept.content == "Not resigned: the game goes on." and kept.buttons == []
    assert (await bot.store.get_game(game_id)).status == "active"
    final = await resign(sandbox, sandbox.user(bob), "veloop")
    assert f"**{alice.mention} wins.**" in final.embeds[0]["description"]
    assert (await bot.store.get_game(game_id)).termination == "resignation"


async def test_a_rematch_swaps_the_seats_and_the_other_player_accepts(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    _, game_id = await veloop_here(sandbox, alice, bob, time="3d")
    final = await resign(sandbox, sandbox.user(bob), "veloop")
    assert [b["label"] for b in final.buttons] == ["Rematch", "Review"]
    outsider = sandbox.add_member("carol2")
    refused = await sandbox.user(outsider).click(final, "Rematch")
    assert refused.ephemeral and "Only its two players" in refused.content
    offer = await sandbox.user(alice).click(final, "Rematch")
    assert not offer.ephemeral and "asks" in offer.content and "for a rematch" in offer.content, offer.content
    assert f"{bob.mention} plays first" in offer.content and "Clock: 3 days per move." in offer.content
    assert pinged(sandbox, offer) == [str(bob.id)], "the one to answer is called"
    own = await sandbox.user(alice).click(offer, "Accept")
    assert own.ephemeral and "your own challenge" in own.content
    cursor = sandbox.cursor()
    await sandbox.user(bob).click(offer, "Accept")
    board = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "Veloop #" in m.text(), after=cursor
    )
    new_id = int(board.embeds[0]["title"].split("#")[1].split(" ")[0])
    new = await bot.store.get_game(new_id)
    assert new_id != game_id and new.status == "active"
    assert (new.challenger_id, new.opponent_id) == (bob.id, alice.id), "the seats are swapped"
    assert new.user_to_act == bob.id and new.settings == {"board": "5", "protocol": "alternating"}
    assert new.time_control.text == "3d"


async def test_a_board_that_is_no_longer_current_loses_its_buttons(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    first_board, _ = await veloop_here(sandbox, alice, bob)
    assert [b["label"] for b in first_board.buttons] == ["Move"]
    moved = await sandbox.user(alice).slash("veloop", "move", move=a_move(Game.new(5, "alternating")))
    assert [b["label"] for b in moved.buttons] == ["Move"]
    await sandbox.wait_until(lambda: sandbox.message(first_board.id).buttons == [], what="the old buttons gone")
    assert sandbox.message(first_board.id).embeds, "the old board itself stays, as the game's history"


async def test_the_waiting_player_claims_a_win_on_time_by_asking_for_the_board(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    _, game_id = await veloop_here(sandbox, alice, bob, time="1+0")
    await both_move(sandbox, alice, bob)
    clock.advance(2)  # Alice's minute is gone; the scheduler is not woken
    claimed = await sandbox.user(bob).slash("veloop", "board")
    assert not claimed.ephemeral and f"**{bob.mention} wins.**" in claimed.embeds[0]["description"]
    assert "Black lost on time" in claimed.embeds[0]["description"]
    assert (await bot.store.get_game(game_id)).termination == "time forfeit"


async def test_against_the_ai_the_board_says_it_thinks_and_undo_takes_back_its_reply_too(
    sandbox: FakeDiscord, sandbox_runner: BotRunner, alice: Member, db_path: Path, clock: ManualClock
) -> None:
    ai = RandomAi(seed=4)
    bot = await sandbox_runner.start(make_factory(db_path, clock, ai=ai), sync=False)
    assert isinstance(bot, VeletasBot)
    human = sandbox.user(alice)
    await human.slash(
        "veloop", "challenge", opponent=sandbox.bot_member, board="5", protocol="alternating", where="here", level=1
    )
    info = await bot.store.game_in_channel(sandbox.channel_id)
    state = info.state
    assert isinstance(state, Game)
    move = a_move(state)
    answer = await human.slash("veloop", "move", move=move)
    assert "is thinking about its move" in answer.embeds[0]["description"]
    assert pinged(sandbox, answer) == [], "the AI's turn calls nobody"
    assert [b["label"] for b in answer.buttons] == ["Move"]
    await sandbox.wait_until(partial(ai_has_played, sandbox, db_path, info.id, 1), what="the AI's reply")
    replied = await bot.store.get_game(info.id)
    assert replied.ply == 2 and replied.user_to_act == alice.id
    undone = await human.slash("veloop", "undo")
    assert not undone.ephemeral and f"Taken back: `{move}` `{replied.turns[1]}`" in undone.content
    after = await bot.store.get_game(info.id)
    assert after.ply == 0 and after.user_to_act == alice.id, "the move and the AI's reply are both gone"
    assert [p for p, _, _ in await bot.store.move_log(info.id)] == []


async def test_the_counter_counts_moves_and_autocomplete_mixes_moves_with_shots(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="standard")
    assert table.boards[-1].embeds[0]["footer"]["text"] == "Move 1", "setup turns are not counted as moves"
    await table.play_setup(random.Random(8))
    assert table.boards[-1].embeds[0]["footer"]["text"] == "Move 1"
    mover = table.user_to_act()
    shooters = [c["value"] for c in await mover.autocomplete("veletas", "move", move="")]
    mixed: list[str] = []
    for shooter in shooters:
        after = [c["value"] for c in await mover.autocomplete("veletas", "move", move=shooter)]
        if any("-" in v for v in after) and not all("-" in v for v in after):
            mixed = after
            break
    assert mixed, f"some shooter is offered both its destinations and its shots without moving: {shooters}"
    destination = next(v for v in mixed if "-" in v)
    whole = [c["value"] for c in await mover.autocomplete("veletas", "move", move=destination)]
    assert whole and all(v.startswith(destination + "/") for v in whole), whole
    await table.turn(whole[0])
    assert table.boards[-1].embeds[0]["footer"]["text"] == "Move 2"


def options_of(message: Message) -> list[str]:
    return [o["value"] for menu in message.selects for o in menu["options"]]


async def test_setup_by_clicking_shooters_then_the_stone_then_confirm(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="medium")
    board = table.boards[-1]
    assert [b["label"] for b in board.buttons] == ["Set up"]
    refused = await table.second.click(board, "Set up")
    assert refused.ephemeral and "turn, not yours" in refused.content
    game = table.game
    step = await table.first.click(board, "Set up")
    assert step.ephemeral and "Shooter 1 of 2" in step.text() and step.files["board.png"].startswith(b"\x89PNG")
    assert options_of(step) == game.setup_choices([])
    first = options_of(step)[0]
    menu = next(m for m in step.selects if first in [o["value"] for o in m["options"]])
    step = await table.first.select(step, first, menu=menu["custom_id"])
    assert "Shooter 2 of 2" in step.text() and first not in options_of(step)
    assert options_of(step) == game.setup_choices([first])
    second = options_of(step)[-1]
    menu = next(m for m in step.selects if second in [o["value"] for o in m["options"]])
    step = await table.first.select(step, second, menu=menu["custom_id"])
    assert "Your stone" in step.text() and options_of(step)[:100] == game.stone_choices([first, second])[:100]
    stone = options_of(step)[0]
    step = await table.first.select(step, stone, menu=step.selects[0]["custom_id"])
    turn = f"{first},{second}/{stone}"
    assert f"Set up `{turn}`?" in step.text()
    assert (await bot.store.get_game(table.game_id)).ply == 0, "nothing is placed before confirming"
    cursor = sandbox.cursor()
    await table.first.click(step, f"Play {turn}")
    public = await sandbox.wait_for_message(
        table.channel_id, lambda m: not m.ephemeral and bool(m.embeds), after=cursor
    )
    expected = game.play(turn)
    assert (await bot.store.get_game(table.game_id)).turns == expected.turns
    assert "choose colours" in public.embeds[0]["description"], "the pie choice follows"


async def test_classic_setup_never_offers_a_square_next_to_a_chosen_shooter(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    table = await start_game(sandbox, alice, bob, variant="medium", rules="classic")
    await table.turn(random_setup_turn(table.game, random.Random(2)))  # Black's shooters; White places three
    step = await table.user_to_act().click(table.boards[-1], "Set up")
    first = options_of(step)[0]
    menu = next(m for m in step.selects if first in [o["value"] for o in m["options"]])
    step = await table.user_to_act().select(step, first, menu=menu["custom_id"])
    touching = {f"{chr(ord(first[0]) + df)}{int(first[1:]) + dr}" for df in (-1, 0, 1) for dr in (-1, 0, 1)}
    assert not touching & set(options_of(step)), "no square touching the chosen shooter is offered"


async def test_the_rules_come_with_a_picture_of_the_heart_of_each_game(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member
) -> None:
    veletas = await sandbox.user(alice).slash("veletas", "rules")
    assert veletas.ephemeral and "claims it" in veletas.content and veletas.files["example.png"].startswith(b"\x89PNG")
    veloop = await sandbox.user(alice).slash("veloop", "rules")
    assert veloop.ephemeral and "confined" in veloop.content and veloop.files["example.png"].startswith(b"\x89PNG")
    assert veletas.files["example.png"] != veloop.files["example.png"]
    assert len(veletas.content) <= 2000 and len(veloop.content) <= 2000


async def test_a_finished_game_is_played_again_from_the_games_list(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    empty = await sandbox.user(alice).slash("veletas", "games")
    assert empty.ephemeral and empty.selects == [], "no finished game yet, nothing to play again"
    _, game_id = await veloop_here(sandbox, alice, bob)
    await resign(sandbox, sandbox.user(alice), "veloop")
    listed = await sandbox.user(bob).slash("veloop", "games")
    [menu] = listed.selects
    assert [o["value"] for o in menu["options"]] == [str(game_id)]
    assert menu["options"][0]["label"].startswith(f"Veloop #{game_id}")
    offer = await sandbox.user(bob).select(listed, str(game_id))
    # Bob sat second, so with the seats swapped he is the challenger of the new game, and Alice answers.
    assert not offer.ephemeral and offer.content.startswith(f"{bob.mention} challenges {alice.mention} to Veloop")
    assert pinged(sandbox, offer) == [str(alice.id)]
