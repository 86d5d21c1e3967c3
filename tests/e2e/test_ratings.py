"""Ratings end to end: rated games between three members move the leaderboard exactly as Glicko-2 says;
casual games and games against the AI move nothing; a restart changes nothing; the last board shows the change."""

from __future__ import annotations

import random
from pathlib import Path

from bot.client import VeletasBot
from bot.ratings import Rating, rate_game
from bot.rules import veloop
from bot.sandbox.runner import BotRunner
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from e2e.conftest import Factory, ManualClock
from e2e.table import Table, random_setup_turn, resign, start_game


async def veloop_game(
    sandbox: FakeDiscord, first: Member, second: Member, *, rated: str | None = None, opened: bool = True
) -> int:
    """A 5×5 Veloop game started here; ``opened``: each player has made a first move, so its end decides it
    (a game ended before both players moved is aborted, rating nobody)."""
    options = {"opponent": second, "board": "5", "protocol": "alternating", "where": "here"}
    if rated is not None:
        options["rated"] = rated
    challenge = await sandbox.user(first).slash("veloop", "challenge", **options)
    assert not challenge.ephemeral, challenge.content
    cursor = sandbox.cursor()
    await sandbox.user(second).click(challenge, "Accept")
    board = await sandbox.wait_for_message(
        sandbox.channel_id, lambda m: bool(m.embeds) and "Veloop #" in m.text(), after=cursor
    )
    if opened:
        game = veloop.Game.new(5, "alternating")
        for player in (first, second):
            turn = str(game.position.legal_moves()[0])
            await sandbox.user(player).slash("veloop", "move", move=turn)
            game = game.play(turn)
    return int(board.embeds[0]["title"].split("#")[1].split(" ")[0])


async def open_veletas(table: Table) -> None:
    """Each player's first turn (the first seat's setup, the second's pie choice): the game is decided from here."""
    rng = random.Random(table.game_id)
    for _ in range(2):
        await table.turn(random_setup_turn(table.game, rng))


def leaderboard_lines(message: Message) -> list[str]:
    return str(message.embeds[0]["description"]).split("\n")


async def test_rated_games_between_three_members_move_the_leaderboard_as_glicko2_says(
    sandbox: FakeDiscord,
    sandbox_runner: BotRunner,
    factory: Factory,
    alice: Member,
    bob: Member,
    clock: ManualClock,
) -> None:
    carol = sandbox.add_member("carol")
    bot = await sandbox_runner.start(factory, sync=False)
    assert isinstance(bot, VeletasBot)
    expected: dict[int, Rating] = {}
    for first, second, loser in ((alice, bob, bob), (bob, carol, bob), (carol, alice, carol)):
        clock.advance(5)
        game_id = await veloop_game(sandbox, first, second)
        final = await resign(sandbox, sandbox.user(loser).in_channel(sandbox.channel_id), "veloop")
        info = await bot.store.get_game(game_id)
        assert info.ended_at is not None
        score = 0.0 if loser is first else 1.0
        a, b = rate_game(expected.get(first.id, Rating()), expected.get(second.id, Rating()), score, info.ended_at)
        expected[first.id], expected[second.id] = a, b
        shown = next(f["value"] for f in final.embeds[0]["fields"] if f["name"] == "Ratings (this server)")
        assert f"{first.mention} 1" in shown and f"→ {round(a.value)} (" in shown, shown
        assert f"{second.mention} 1" in shown and f"→ {round(b.value)} (" in shown, shown
        if first is alice and second is bob:
            bot = await sandbox_runner.restart(factory)  # a restart in the middle changes nothing
            assert isinstance(bot, VeletasBot)
    # A casual game changes nothing.
    await veloop_game(sandbox, alice, carol, rated="no")
    await resign(sandbox, sandbox.user(carol), "veloop")
    board = await sandbox.user(bob).slash("veloop", "leaderboard", board="5", protocol="alternating")
    assert board.ephemeral
    ranked = sorted(expected.items(), key=lambda item: (-item[1].value, item[0]))
    lines = leaderboard_lines(board)
    assert len(lines) == 3
    for line, (user, rating) in zip(lines, ranked, strict=True):
        assert f"<@{user}> **{rating.shown}** ±{round(rating.deviation)}" in line, line
    established = await sandbox.user(bob).slash(
        "veloop", "leaderboard", board="5", protocol="alternating", established="yes"
    )
    assert "Nobody is rated here yet." in established.text(), "everybody is provisional after two games"
    other_pool = await sandbox.user(bob).slash("veloop", "leaderboard", board="8", protocol="122")
    assert "Nobody is rated here yet." in other_pool.text(), "8×8 protocol 122 is another pool"


async def test_a_leaderboard_without_options_shows_the_pool_this_server_plays(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    for loser in (bob, alice, bob):
        clock.advance(5)
        table = await start_game(sandbox, alice, bob, variant="small")
        await open_veletas(table)
        await resign(sandbox, sandbox.user(loser).in_channel(table.channel_id))
    clock.advance(5)
    await veloop_game(sandbox, alice, bob)
    await resign(sandbox, sandbox.user(alice), "veloop")
    for group, size in (("veletas", "small board"), ("veloop", "5×5")):
        board = await sandbox.user(bob).slash(group, "leaderboard")
        assert board.ephemeral and size in board.embeds[0]["title"], board.embeds[0]["title"]
        lines = leaderboard_lines(board)
        assert len(lines) == 2 and {alice.mention, bob.mention} == {line.split()[1] for line in lines}, lines
    # An option given picks among what matches it; a pool nobody plays here is still empty.
    standard = await sandbox.user(bob).slash("veletas", "leaderboard", variant="standard")
    assert "Nobody is rated here yet." in standard.text() and "standard board" in standard.embeds[0]["title"]
    classic = await sandbox.user(bob).slash("veletas", "leaderboard", rules="classic")
    assert "Nobody is rated here yet." in classic.text()


async def test_a_leaderboard_turns_its_pages_and_refuses_forged_buttons(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    members = [sandbox.add_member(f"player{i}") for i in range(11)]
    for member in members:
        clock.advance(1)
        await veloop_game(sandbox, alice, member)
        await resign(sandbox, sandbox.user(member), "veloop")
    first = await sandbox.user(bob).slash("veloop", "leaderboard", board="5", protocol="alternating")
    assert len(leaderboard_lines(first)) == 10 and "Page 1 of 2 · 12 players" in first.embeds[0]["footer"]["text"]
    assert leaderboard_lines(first)[0].startswith(f"**1.** {alice.mention}")
    assert [b["label"] for b in first.buttons] == ["Previous", "Next"] and first.buttons[0]["disabled"]
    second = await sandbox.user(bob).click(first, "Next")
    assert leaderboard_lines(second)[0].startswith("**11.**") and "Page 2 of 2" in second.embeds[0]["footer"]["text"]
    forged = next(b for b in second.buttons if b["label"] == "Previous")
    forged["custom_id"] = "veloop:lb:99.nonsense:0:0:p"
    refused = await sandbox.user(bob).click(second, "Previous")
    assert refused.ephemeral and "out of date" in refused.content


async def test_the_server_default_makes_challenges_casual_and_a_challenge_may_say_otherwise(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member
) -> None:
    default = await sandbox.user(alice).slash("veloop", "challenge", opponent=bob, where="here")
    assert "Rated." in default.content, "rated unless the server says otherwise"
    await sandbox.user(alice).click(default, "Decline")
    settings = await sandbox.user(sandbox.state.owner).slash("settings", rated="no")
    assert settings.ephemeral and "**casual**" in settings.content
    casual = await sandbox.user(alice).slash("veloop", "challenge", opponent=bob, where="here")
    assert "Casual (no rating changes)." in casual.content
    await sandbox.user(alice).click(casual, "Decline")
    rated = await sandbox.user(alice).slash("veloop", "challenge", opponent=bob, where="here", rated="yes")
    assert "Rated." in rated.content


async def test_profile_and_history_show_ratings_record_streak_and_export_any_game(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    carol = sandbox.add_member("carol")
    ids = []
    for rival, loser in ((bob, bob), (carol, carol), (bob, alice)):
        clock.advance(3)
        ids.append(await veloop_game(sandbox, alice, rival))
        await resign(sandbox, sandbox.user(loser), "veloop")
    profile = await sandbox.user(bob).slash("player", "profile", member=alice, game="veloop")
    assert profile.ephemeral and profile.files["rating.png"].startswith(b"\x89PNG")
    fields = {f["name"]: f["value"] for f in profile.embeds[0]["fields"]}
    rating = (await bot.store.player_ratings(sandbox.guild_id, alice.id, "veloop"))[0][1]
    assert fields["5×5 board, protocol alternating"].startswith(f"**{rating.shown}** ±{round(rating.deviation)}")
    assert "3 rated: 2 won, 1 lost, 0 drawn" in fields["5×5 board, protocol alternating"]
    assert fields["Streak"] == "1 loss"
    assert fields["Recent games"].split("\n")[0].startswith(f"[Veloop #{ids[-1]}]")
    mine = await sandbox.user(carol).slash("player", "profile", game="veloop")
    assert "0 won, 1 lost" in str(mine.embeds[0]["fields"][0]["value"])

    history = await sandbox.user(alice).slash("player", "history", against=bob, game="veloop")
    lines = str(history.embeds[0]["description"]).split("\n")[1:]
    assert [line.split("]")[0] for line in lines] == [f"[Veloop #{ids[2]}", f"[Veloop #{ids[0]}"]
    assert "**lost**" in lines[0] and "**won**" in lines[1]
    exported = await sandbox.user(alice).select(history, str(ids[0]))
    assert exported.ephemeral and f"veloop-{ids[0]}.txt" in exported.files and f"veloop-{ids[0]}.gif" in exported.files
    nobody = await sandbox.user(carol).slash("player", "history", against=bob, game="veloop")
    assert "No finished Veloop game" in nobody.content


async def test_a_member_who_left_disappears_from_the_leaderboard(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    carol = sandbox.add_member("carol")
    for rival in (bob, carol):
        clock.advance(3)
        await veloop_game(sandbox, alice, rival)
        await resign(sandbox, sandbox.user(rival), "veloop")
    before = await sandbox.user(alice).slash("veloop", "leaderboard", board="5", protocol="alternating")
    assert len(leaderboard_lines(before)) == 3
    await sandbox.remove_member(carol)
    bot.members_seen.clear()  # an hour later, as far as the bot's memory of who is here goes
    after = await sandbox.user(alice).slash("veloop", "leaderboard", board="5", protocol="alternating")
    lines = leaderboard_lines(after)
    assert len(lines) == 2 and all(carol.mention not in line for line in lines)
    assert "2 players" in after.embeds[0]["footer"]["text"]
    assert [e.error_code for e in sandbox.take_errors()] == [10007], "Discord said carol is not a member"


async def test_however_many_who_left_rank_above_the_rest_none_of_them_is_shown(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, db_path: Path
) -> None:
    """35 players who left rank above the five still here (more than three pages of them): the first page shows
    exactly the five, each who left is asked about once, and nobody is asked about again on the next look."""
    from dbtools import raw

    from bot.ratings import PoolKey

    pool = PoolKey.of(sandbox.guild_id, "veloop", {"board": "5", "protocol": "alternating"})
    departed = [sandbox.add_member(f"gone{i}") for i in range(35)]
    present = [alice, bob, *(sandbox.add_member(f"here{i}") for i in range(3))]
    rated = [(m, 2400.0 - i) for i, m in enumerate(departed)] + [(m, 1600.0 - i) for i, m in enumerate(present)]
    with raw(db_path) as db:
        for member, value in rated:
            db.execute(
                "INSERT INTO ratings (scope, game, settings, user_id, value, deviation, volatility, games, "
                "last_played, wins, losses, draws) VALUES (?, ?, ?, ?, ?, 80, 0.06, 20, 0, 10, 10, 0)",
                (pool.scope, pool.game, pool.settings, member.id, value),
            )
    for member in departed:
        await sandbox.remove_member(member)
    board = await sandbox.user(alice).slash("veloop", "leaderboard", board="5", protocol="alternating")
    lines = leaderboard_lines(board)
    assert [line.split(" ")[1] for line in lines] == [m.mention for m in present]
    assert lines[0].startswith(f"**1.** {alice.mention}")
    assert "Page 1 of 1 · 5 players" in board.embeds[0]["footer"]["text"]
    assert [e.error_code for e in sandbox.take_errors()] == [10007] * 35, "each who left was asked about once"
    bot.members_seen.clear()  # an hour later: those who left are remembered, only those here are asked again
    again = await sandbox.user(bob).slash("veloop", "leaderboard", board="5", protocol="alternating")
    assert leaderboard_lines(again) == lines and sandbox.take_errors() == []


async def veletas_game(sandbox: FakeDiscord, first: Member, second: Member) -> int:
    """A small Veletas game started here, each player's first turn taken."""
    table = await start_game(sandbox, first, second, variant="small")
    await open_veletas(table)
    return table.game_id


async def test_player_profile_and_history_cover_every_game_unless_one_is_named(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    """/player profile and history are the member's, not one game's: both games unless ``game`` names one."""
    carol = sandbox.add_member("carol")
    clock.advance(3)
    loop_id = await veloop_game(sandbox, alice, bob)
    await resign(sandbox, sandbox.user(bob), "veloop")
    clock.advance(3)
    letas_id = await veletas_game(sandbox, alice, bob)
    await resign(sandbox, sandbox.user(alice), "veletas")

    both = await sandbox.user(bob).slash("player", "profile", member=alice)
    assert both.ephemeral and both.files["rating.png"].startswith(b"\x89PNG")
    embed = both.embeds[0]
    assert embed["title"] == "Profile"
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    pools = [name for name in fields if " · " in name]
    assert sorted(name.split(" · ")[0] for name in pools) == ["Veletas", "Veloop"], fields
    assert "0 won, 1 lost" in fields[next(p for p in pools if p.startswith("Veletas"))]
    assert "1 won, 0 lost" in fields["Veloop · 5×5 board, protocol alternating"]
    assert fields["Streak"] == "1 loss"  # the latest game, whichever game it was
    recent = fields["Recent games"].split("\n")
    assert [line.split("]")[0] for line in recent] == [f"[Veletas #{letas_id}", f"[Veloop #{loop_id}"]

    one = await sandbox.user(bob).slash("player", "profile", member=alice, game="veloop")
    assert one.embeds[0]["title"] == "Veloop profile"
    assert "Veletas" not in one.text() and "5×5 board, protocol alternating" in one.text()

    history = await sandbox.user(alice).slash("player", "history")
    assert history.embeds[0]["title"] == "Games"
    lines = str(history.embeds[0]["description"]).split("\n")[1:]
    assert [line.split("]")[0] for line in lines] == [f"[Veletas #{letas_id}", f"[Veloop #{loop_id}"]
    [menu] = history.selects
    assert [o["value"] for o in menu["options"]] == [str(letas_id), str(loop_id)]
    exported = await sandbox.user(alice).select(history, str(loop_id))
    assert exported.ephemeral and f"veloop-{loop_id}.txt" in exported.files
    veletas_only = await sandbox.user(alice).slash("player", "history", game="veletas")
    assert veletas_only.embeds[0]["title"] == "Veletas games"
    assert str(veletas_only.embeds[0]["description"]).count("\n") == 1

    nobody = await sandbox.user(carol).slash("player", "history")
    assert nobody.ephemeral and nobody.content == f"No finished game of {carol.mention} in this server yet."
    fresh = await sandbox.user(carol).slash("player", "profile")
    assert fresh.embeds[0]["title"] == "Profile" and "rating.png" not in fresh.files


async def test_history_shows_what_each_rated_game_did_to_the_rating_and_nothing_for_a_casual_one(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, clock: ManualClock
) -> None:
    ids = []
    for loser, rated in ((bob, None), (alice, None), (bob, "no")):
        clock.advance(3)
        ids.append(await veloop_game(sandbox, alice, bob, rated=rated))
        await resign(sandbox, sandbox.user(loser), "veloop")
    history = await sandbox.user(alice).slash("player", "history", game="veloop")
    lines = str(history.embeds[0]["description"]).split("\n")[1:]
    by_game = {int(line.split("#")[1].split("]")[0]): line for line in lines}
    for game_id in ids[:2]:
        change = next(c for c in await bot.store.rating_changes(game_id) if c.user_id == alice.id and c.scope)
        delta = round(change.after) - round(change.before)
        shown = f"+{delta}" if delta > 0 else f"\u2212{-delta}"
        assert by_game[game_id].endswith(f" · `{shown}`"), by_game[game_id]
    assert by_game[ids[0]].endswith("`") and "+" in by_game[ids[0]], "a win raises the rating"
    assert "\u2212" in by_game[ids[1]], "a loss lowers it, written with a minus sign"
    assert not by_game[ids[2]].endswith("`"), "a casual game changes no rating and shows none"
    profile = await sandbox.user(alice).slash("player", "profile", game="veloop")
    recent = next(f["value"] for f in profile.embeds[0]["fields"] if f["name"] == "Recent games").split("\n")
    assert recent == lines, "the profile's recent games read as the history's lines"
