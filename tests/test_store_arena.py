"""Arena tournaments in the store, on SQLite and PostgreSQL: pairing from the waiting pool in one transaction,
a game's end freeing its players, berserk's clock, pausing, and the end."""

from __future__ import annotations

import pytest
from store_fixtures import Clock
from test_store import ALICE, BOB, CAROL, CHANNEL, GUILD

from bot.clocks import TimeControl
from bot.errors import UserError
from bot.rules import veloop
from bot.store import Store
from bot.store.values import TournamentInfo

DAVE = 1004
SETTINGS = {"board": "5", "protocol": "alternating"}
THREADS = iter(range(700_000, 799_999))


async def arena(store: Store, players: tuple[int, ...] = (ALICE, BOB, CAROL, DAVE)) -> TournamentInfo:
    info = await store.create_tournament(
        guild_id=GUILD,
        channel_id=CHANNEL,
        organiser_id=ALICE,
        name="Arena",
        game="veloop",
        settings=SETTINGS,
        format="arena",
        rounds=None,
        best_of=1,
        time_control=TimeControl.fischer(300, 4),
        rated=False,
        max_players=None,
        starts_at=None,
        checkin_minutes=0,
        round_minutes=30,
    )
    for player in players:
        await store.join_tournament(info.id, player, f"player {player}")
    return await store.start_tournament(info.id, actor_id=ALICE, rounds_for=lambda n: None)


async def open_games(store: Store, tournament_id: int) -> list[tuple[int, int, int]]:
    """(game, white, black) of every pairing without its game yet, each given a thread and a game."""
    out = []
    for pairing in (await store.snapshot(tournament_id)).pairings:
        if pairing.game_id is None and pairing.result is None:
            assert await store.pairing_thread(pairing.id, next(THREADS))
            game = await store.start_pairing_game(pairing.id)
            out.append((game.id, pairing.white, pairing.black))
    return out


async def test_an_arena_pairs_everyone_then_whoever_comes_free_without_a_rematch(store: Store, clock: Clock) -> None:
    info = await arena(store)
    made = await store.pair_arena(info.id)
    assert len(made.made) == 2 and not made.over
    assert sorted(p for g in made.made for p in g) == sorted((ALICE, BOB, CAROL, DAVE))
    assert (await store.pair_arena(info.id)).made == (), "nobody is paired twice at once"
    (g1, w1, b1), (g2, w2, b2) = await open_games(store, info.id)
    await store.resign(g1, b1)
    after = await store.snapshot(info.id)
    ended = next(p for p in after.pairings if p.game_id == g1)
    assert ended.result == "1-0" and ended.ended_at is not None
    # The two who just met wait while the others play.
    assert (await store.pair_arena(info.id)).made == ()
    await store.resign(g2, w2)
    again = await store.pair_arena(info.id)
    assert len(again.made) == 2
    assert all({w, b} not in ({w1, b1}, {w2, b2}) for w, b in again.made)
    # Colours: who had black takes white.
    assert {w for w, _ in again.made} == {b1, b2}


async def test_berserk_halves_the_own_clock_once_before_the_first_move(store: Store, clock: Clock) -> None:
    info = await arena(store, (ALICE, BOB))
    await store.pair_arena(info.id)
    [(game_id, white, black)] = await open_games(store, info.id)
    with pytest.raises(UserError) as refused:
        await store.arena_berserk(game_id, CAROL)
    assert refused.value.key == "arena.berserk_not_yours"
    game, tournament_id = await store.arena_berserk(game_id, black)
    assert tournament_id == info.id
    assert game.clock is not None and game.clock.second == 150 and game.clock.first == 300
    assert game.clock.bare == ("second",)
    with pytest.raises(UserError) as twice:
        await store.arena_berserk(game_id, black)
    assert twice.value.key == "arena.berserk_already"
    pairing = (await store.snapshot(info.id)).pairings[0]
    assert pairing.black_berserk and not pairing.white_berserk
    # White moves first; after that move it is too late for White. A first turn, in its first-move window, costs
    # nothing and earns no increment.
    first = str(veloop.Game.new(5, "alternating").position.legal_moves()[0])
    moved = await store.play(game_id, white, first)
    with pytest.raises(UserError) as late:
        await store.arena_berserk(game_id, white)
    assert late.value.key == "arena.berserk_too_late"
    assert moved.clock is not None and moved.clock.first == 300 and moved.clock.second == 150
    reply = str(veloop.Game.new(5, "alternating").play(first).position.legal_moves()[0])
    answered = await store.play(game_id, black, reply)
    assert answered.clock is not None and answered.clock.second == 150
    # Past the first turns, the increment comes to White only: Black plays without it.
    position = veloop.Game.new(5, "alternating").play(first).play(reply)
    again = str(position.position.legal_moves()[0])
    white_second = await store.play(game_id, white, again)
    assert white_second.clock is not None and white_second.clock.first == 304, "White's increment"
    black_second = await store.play(game_id, black, str(position.play(again).position.legal_moves()[0]))
    assert black_second.clock is not None and black_second.clock.second == 150, "no increment for the berserk player"


async def test_a_paused_player_waits_out_and_nobody_is_paired_after_the_end(store: Store, clock: Clock) -> None:
    info = await arena(store)
    await store.pair_arena(info.id)
    games = await open_games(store, info.id)
    await store.arena_pause(info.id, games[0][1], paused=True)
    for game_id, _, black in games:
        await store.resign(game_id, black)
    made = await store.pair_arena(info.id)
    assert len(made.made) == 1 and games[0][1] not in made.made[0]
    clock.advance(minutes=31)
    await store.arena_pause(info.id, games[0][1], paused=False)
    await open_games(store, info.id)
    ended = await store.pair_arena(info.id)
    assert ended.made == () and not ended.over, "the game on is played out"
    [(game_id, _, black)] = await open_games_on(store, info.id)
    await store.resign(game_id, black)
    assert (await store.pair_arena(info.id)).over


async def open_games_on(store: Store, tournament_id: int) -> list[tuple[int, int, int]]:
    """(game, white, black) of every game on."""
    return [
        (p.game_id, p.white, p.black)
        for p in (await store.snapshot(tournament_id)).pairings
        if p.game_id is not None and p.result is None
    ]
