"""The store hosts every game of the registry: a game column, settings as JSON, and a migration that loses nothing."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
from pathlib import Path

import pytest
from dbtools import raw, rows, schema_version
from store_fixtures import Clock
from test_store import ALICE, BOB, CHANNEL, GUILD, check_consistent, some_turn

from bot.errors import NoGameHere, RaceLost, UserError
from bot.rules import veletas, veloop
from bot.store import Store, StoreError
from bot.store.schema import MIGRATIONS
from bot.store.values import GameInfo, settings_json

# The schema before games became plug-ins (migration 5): every game a Veletas game, variant and rules columns.
PREVIOUS = MIGRATIONS[:4]
CLOCK_COLUMNS = ("time_control", "inactivity_days", "clock_first", "clock_second", "clock_running", "clock_since")
"""The schema the bot wrote before games were plug-ins (Veletas only, variant and rules columns)."""

# Seeds whose random Veloop game on the 5×5 board ends drawn (two lone passes) and won (confinement).
DRAW_SEED = 0
WIN_SEED = 1


async def veloop_game(store: Store, *, channel: int = CHANNEL, board: str = "5") -> GameInfo:
    info = await store.create_challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger_id=ALICE,
        opponent_id=BOB,
        where="here",
        expires_at=None,
        game="veloop",
        settings={"board": board},
    )
    return await store.accept_challenge(info.id, BOB, channel_id=channel)


def random_move(info: GameInfo, rng: random.Random) -> str:
    state = info.state
    assert isinstance(state, veloop.Game)
    return str(rng.choice(state.position.legal_moves()))


async def play_out(store: Store, info: GameInfo, seed: int) -> GameInfo:
    """Random legal Veloop moves through the store, each by whoever the store says is to act, to the end."""
    rng = random.Random(seed)
    while info.status == "active":
        actor = info.user_to_act
        assert actor is not None
        info = await store.play(info.id, actor, random_move(info, rng), expected_version=info.version)
    return info


# --- the migration --------------------------------------------------------------------------------


def _old_games(path: Path) -> dict[int, tuple[str, str, tuple[str, ...]]]:
    """Veletas games as the previous schema wrote them: every status, both editions, every board."""
    rng = random.Random("old games")
    written: dict[int, tuple[str, str, tuple[str, ...]]] = {}
    plan = [
        ("small", "current", "active", 9),
        ("medium", "classic", "active", 4),
        ("standard", "current", "challenge", 0),
        ("small", "classic", "cancelled", 3),
        ("small", "current", "finished", 6),
    ]
    with raw(path) as con:
        for game_id, (variant, rules, status, plies) in enumerate(plan, start=1):
            game = veletas.Game.new(variant, rules=rules)
            con.execute(
                "INSERT INTO games (id, guild_id, channel_id, origin_channel_id, status, variant, rules, place, "
                "challenger_id, opponent_id, ai_level, created_at, updated_at, expires_at, result, winner_id, "
                "version, board_version, posted_version, changed_stamp) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'here', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    GUILD,
                    CHANNEL + game_id,
                    CHANNEL + game_id,
                    status,
                    variant,
                    rules,
                    ALICE,
                    BOB,
                    3 if game_id == 2 else None,
                    1000.0 + game_id,
                    2000.0 + game_id,
                    3000.0 if status == "challenge" else None,
                    {"cancelled": "Cancelled", "finished": "Black resigned"}.get(status),
                    BOB if status == "finished" else None,
                    plies + 1,
                    plies,
                    plies,
                    77 * game_id,
                ),
            )
            for ply in range(1, plies + 1):
                text = some_turn(game, rng)
                actor = ALICE if game.seat_to_act == "first" else BOB
                game = game.play(text)
                con.execute(
                    "INSERT INTO moves VALUES (?, ?, ?, ?, ?)", (game_id, ply, game.turns[-1], actor, 5.0 * ply)
                )
            con.execute("UPDATE games SET ply = ?, turns = ? WHERE id = ?", (plies, " ".join(game.turns), game_id))
            written[game_id] = (variant, rules, game.turns)
    return written


def _rows(path: Path, sql: str) -> list[dict[str, object]]:
    return rows(path, sql)


async def test_games_written_by_the_previous_schema_read_back_identical(db_path: Path, clock: Clock) -> None:
    await (await Store.open(db_path, clock=clock, migrations=PREVIOUS)).close()
    written = _old_games(db_path)
    before = {row["id"]: row for row in _rows(db_path, "SELECT * FROM games")}
    moves_before = _rows(db_path, "SELECT * FROM moves ORDER BY game_id, ply")

    s = await Store.open(db_path, clock=clock)
    try:
        for game_id, (variant, rules, turns) in written.items():
            info = await s.get_game(game_id)
            old = before[game_id]
            assert info.kind is veletas.KIND
            assert info.settings == {"variant": variant, "rules": rules}
            assert (info.variant, info.rules) == (variant, rules)
            assert info.turns == turns and info.ply == len(turns)
            assert info.game == veletas.Game.replay(turns, variant=variant, rules=rules)
            assert (info.status, info.result, info.winner_id, info.ai_level) == (
                old["status"],
                old["result"],
                old["winner_id"],
                old["ai_level"],
            )
            assert (info.version, info.board_version, info.posted_version, info.changed_stamp) == (
                old["version"],
                old["board_version"],
                old["posted_version"],
                old["changed_stamp"],
            )
            assert info.created_at == dt.datetime.fromtimestamp(float(str(old["created_at"])), dt.UTC)
        # A migrated game goes on being played as before.
        active = await s.get_game(1)
        actor = active.user_to_act
        assert actor is not None
        moved = await s.play(1, actor, some_turn(active.game, random.Random(5)))
        assert moved.ply == active.ply + 1 and moved.version == active.version + 1
        assert (await s.rebuild(1)).turns == moved.turns
    finally:
        await s.close()

    after = {row["id"]: row for row in _rows(db_path, "SELECT * FROM games")}
    for game_id, (variant, rules, _) in written.items():
        row = after[game_id]
        assert row["game"] == "veletas"
        assert row["settings"] == settings_json({"variant": variant, "rules": rules})
        assert json.loads(str(row["settings"])) == {"rules": rules, "variant": variant}
        assert "variant" not in row and "rules" not in row
        if game_id != 1:  # every other column of every other game is byte for byte what it was
            old = {k: v for k, v in before[game_id].items() if k not in ("variant", "rules")}
            added = (
                "game",
                "settings",
                "termination",
                "proposed_by",
                "rated",
                "ended_at",
                "rating_seq",
                "aborted_by",
                "aborted_how",
                "clock_bare",
                *CLOCK_COLUMNS,
            )
            assert {k: v for k, v in row.items() if k not in added} == old
            assert row["rating_seq"] is None, "nothing from before ratings was rated"
            assert row["proposed_by"] is None, "every old challenge was made by its challenger"
            assert row["rated"] == 0, "games from before ratings stay casual"
            assert row["ended_at"] == (old["updated_at"] if old["status"] == "finished" else None)
            # No clock for a game started before clocks: it gets one at its next turn.
            assert (row["time_control"], row["inactivity_days"], row["clock_running"]) == ("none", 14, None)
    # The open challenge's deadline is a row of the one scheduler now.
    # (Game 1 was played on after the migration: it has a clock, and so a deadline, now.)
    due = _rows(db_path, "SELECT kind, game_id, due_at FROM due WHERE game_id <> 1")
    assert due == [{"kind": "expiry", "game_id": 3, "due_at": 3000.0}]
    # How each game ended is filled from its old wording: only the resigned and the cancelled one ended.
    assert {game_id: after[game_id]["termination"] for game_id in written} == {
        1: None,
        2: None,
        3: None,
        4: "cancelled",
        5: "resignation",
    }
    # Old moves are byte for byte what they were, with no clock kept (an undo of one charges time as it did then).
    assert _rows(db_path, "SELECT * FROM moves WHERE game_id <> 1 ORDER BY game_id, ply") == [
        m | {"clock_first": None, "clock_second": None} for m in moves_before if m["game_id"] != 1
    ]
    assert schema_version(db_path) == len(MIGRATIONS)
    check_consistent(db_path)  # on SQLite, the file's integrity too


async def test_a_failed_game_migration_leaves_the_previous_schema_whole(db_path: Path, clock: Clock) -> None:
    """Something outside the bot that reads the old columns (a view) makes the drop fail: nothing changes."""
    await (await Store.open(db_path, clock=clock, migrations=PREVIOUS)).close()
    _old_games(db_path)
    with raw(db_path) as con:
        con.execute("CREATE VIEW boards AS SELECT id, variant, rules FROM games")
    before = _rows(db_path, "SELECT * FROM games ORDER BY id")
    with pytest.raises(StoreError, match=f"migration {len(PREVIOUS) + 1} failed"):
        await Store.open(db_path, clock=clock)
    assert _rows(db_path, "SELECT * FROM games ORDER BY id") == before
    assert schema_version(db_path) == len(PREVIOUS)


# --- Veloop through the store ---------------------------------------------------------------------


async def test_a_veloop_game_is_stored_with_its_game_and_filled_in_settings(store: Store, db_path: Path) -> None:
    info = await veloop_game(store)
    assert info.kind is veloop.KIND
    assert info.settings == {"board": "5", "protocol": "122"}
    assert info.state == veloop.Game.new(5)
    assert info.user_to_act == ALICE  # the challenger sits first, and Black moves first
    row = _rows(db_path, f"SELECT game, settings FROM games WHERE id = {info.id}")[0]
    assert row == {"game": "veloop", "settings": '{"board":"5","protocol":"122"}'}
    with pytest.raises(TypeError, match="veloop"):
        _ = info.game
    with pytest.raises(TypeError, match="no variant"):
        _ = info.variant


async def test_unknown_games_and_settings_are_refused_before_anything_is_written(store: Store, db_path: Path) -> None:
    bad: list[tuple[str, dict[str, str]]] = [
        ("chess", {}),
        ("veloop", {"variant": "small"}),
        ("veloop", {"board": "7"}),
        ("veletas", {"board": "5"}),
        ("veletas", {"rules": "modern"}),
    ]
    for game, settings in bad:
        with pytest.raises(ValueError):
            await store.create_challenge(
                guild_id=GUILD,
                channel_id=CHANNEL,
                challenger_id=ALICE,
                opponent_id=BOB,
                where="here",
                expires_at=None,
                game=game,
                settings=settings,
            )
    assert _rows(db_path, "SELECT COUNT(*) AS n FROM games") == [{"n": 0}]
    # No game named means Veletas with its defaults, as before.
    info = await store.create_challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, where="here", expires_at=None
    )
    assert info.kind is veletas.KIND and info.settings == {"variant": "standard", "rules": "current"}


async def test_a_veloop_game_won_on_the_board_names_its_winner(store: Store, db_path: Path, clock: Clock) -> None:
    info = await play_out(store, await veloop_game(store), WIN_SEED)
    outcome = info.state.outcome
    assert outcome is not None and outcome.winner is not None and outcome.termination == "confinement"
    assert info.status == "finished"
    assert info.result == f"{outcome.winner.capitalize()} wins by confinement"
    assert info.winner_id == (ALICE if outcome.winner == "black" else BOB)
    assert [turn for _, turn, _ in await store.move_log(info.id)] == list(info.turns)
    reopened = await Store.open(db_path, clock=clock)
    try:
        again = await reopened.get_game(info.id)
        assert again == info and again.state == info.state
    finally:
        await reopened.close()
    check_consistent(db_path)


async def test_a_drawn_veloop_game_is_finished_with_no_winner(store: Store, db_path: Path) -> None:
    info = await play_out(store, await veloop_game(store), DRAW_SEED)
    outcome = info.state.outcome
    assert outcome is not None and outcome.is_draw and outcome.termination == "passes"
    assert (info.status, info.winner_id, info.result) == ("finished", None, "Drawn")
    assert await store.get_game(info.id) == info
    # The log says drawn even when the row's cache was lost: rebuilding finishes it the same way.
    with raw(db_path) as con:
        con.execute("UPDATE games SET status = 'active', result = NULL, ply = 0, turns = '' WHERE id = ?", (info.id,))
    rebuilt = await store.rebuild(info.id)
    assert (rebuilt.status, rebuilt.winner_id, rebuilt.result) == ("finished", None, "Drawn")
    assert rebuilt.turns == info.turns
    check_consistent(db_path)


async def test_veloop_moves_race_and_take_back_like_veletas_ones(store: Store) -> None:
    rng = random.Random(3)
    info = await veloop_game(store, board="8")
    first = random_move(info, rng)
    played = await store.play(info.id, ALICE, first, expected_version=info.version)
    assert played.version == info.version + 1 and played.turns == (first,)
    # A second turn chosen on the same version lost the race, even from the right player.
    with pytest.raises(RaceLost):
        await store.play(info.id, BOB, random_move(played, rng), expected_version=info.version)
    reply = random_move(played, rng)
    answered = await store.play(info.id, BOB, reply, expected_version=played.version)
    # The 1-2-2 protocol: Black's single first move, then two in a row by White.
    assert answered.turns == (first, reply) and answered.user_to_act == BOB
    await store.request_undo(info.id, BOB)
    undone = await store.answer_undo(info.id, ALICE, True)
    assert undone.turns == (first,) and undone.state == veloop.KIND.replay([first], {"board": "8"})
    assert undone.version == answered.version + 2 and undone.user_to_act == BOB
    # A turn chosen before the take-back never lands, though the ply is the same again.
    with pytest.raises(RaceLost):
        await store.play(info.id, BOB, reply, expected_version=answered.version)


# --- snapshots ------------------------------------------------------------------------------------


async def test_a_snapshot_cannot_be_changed_and_equal_snapshots_are_equal(store: Store) -> None:
    info = await veloop_game(store)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.status = "finished"  # type: ignore[misc]
    with pytest.raises(TypeError):
        info.settings["board"] = "12"  # type: ignore[index]
    assert info.settings == {"board": "5", "protocol": "122"}
    again = await store.get_game(info.id)
    assert again == info and hash(again) == hash(info)
    _ = again.state  # replaying changes nothing a snapshot is compared by
    assert again == info and "_replayed" not in repr(again)
    moved = await store.play(info.id, ALICE, random_move(info, random.Random(1)))
    assert moved != info
    # A snapshot made from another by replace() replays its own turns, never the other's game.
    rewound = dataclasses.replace(moved, turns=(), ply=0)
    assert rewound.state == veloop.Game.new(5) and moved.state.turns == moved.turns


@pytest.mark.parametrize("game_id", [0, -1, 2**63, 10**29])
async def test_an_id_no_row_can_have_is_no_such_game_not_an_overflow(store: Store, db_path: Path, game_id: int) -> None:
    """Ids come from custom ids and options a member may forge: past 63 bits neither database takes them."""
    info = await veloop_game(store)
    before = rows(db_path, "SELECT * FROM games ORDER BY id")
    with pytest.raises(NoGameHere):
        await store.get_game(game_id)
    with pytest.raises(NoGameHere):
        await store.resign(game_id, ALICE)
    with pytest.raises(NoGameHere):
        await store.set_board_message(game_id, 1)
    with pytest.raises(UserError, match="That tournament does not exist"):
        await store.tournament(game_id)
    with pytest.raises(UserError, match="That tournament does not exist"):
        await store.join_tournament(game_id, ALICE, "alice")
    assert rows(db_path, "SELECT * FROM games ORDER BY id") == before and (await store.get_game(info.id)).id == info.id
