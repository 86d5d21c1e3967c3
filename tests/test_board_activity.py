"""The board page's Activity routes (bot/board/activity.py) against the fake Discord's OAuth2.

A good code gives a session for the member Discord names and the game that member launched from that channel;
a reused, forged or expired code, a forged access token, a game of another channel or server, and malformed or
oversized bodies are refused with a 4xx JSON error and mint nothing. The launches table runs on both databases.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from sqlite_template import fresh_sqlite
from store_fixtures import START, Clock

from bot.board import activity
from bot.board.sessions import verify
from bot.config import Settings, SettingsError
from bot.sandbox.oauth import CODE_SECONDS
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member
from bot.store import Store
from bot.store.values import GameInfo

SECRET = b"board-secret-for-tests"


@dataclasses.dataclass
class Context:
    """The board server's context, as far as the Activity routes use it (store, secret, settings, now())."""

    store: Store
    secret: bytes
    settings: Settings

    def now(self) -> float:
        return self.store.now()


@pytest.fixture
async def sqlite_store(tmp_path: Path, clock: Clock) -> AsyncIterator[Store]:
    path = tmp_path / "data" / "board.sqlite3"
    await fresh_sqlite(path)
    store = await Store.open(path, clock=clock)
    try:
        yield store
    finally:
        await store.close()


def settings_for(sandbox: FakeDiscord, **changes: Any) -> Settings:
    base = Settings(
        token=sandbox.token,
        api_base=sandbox.api_base,
        client_id=sandbox.application_id,
        client_secret=sandbox.client_secret,
    )
    return dataclasses.replace(base, **changes)


@pytest.fixture
async def client(sandbox: FakeDiscord, sqlite_store: Store) -> AsyncIterator[TestClient[Any, Any]]:
    app = web.Application()
    activity.add_routes(app, Context(sqlite_store, SECRET, settings_for(sandbox)))
    async with TestClient(TestServer(app)) as test_client:
        yield test_client


async def game_between(
    store: Store, sandbox: FakeDiscord, a: Member, b: Member, channel: int | None = None
) -> GameInfo:
    where = channel if channel is not None else sandbox.channel_id
    info = await store.create_challenge(
        guild_id=sandbox.guild_id,
        channel_id=where,
        challenger_id=a.id,
        opponent_id=b.id,
        settings={"variant": "small", "rules": "current"},
        where="here",
        expires_at=START + dt.timedelta(minutes=15),
    )
    return await store.accept_challenge(info.id, b.id, channel_id=where)


async def post(client: TestClient[Any, Any], route: str, body: Any) -> tuple[int, dict[str, Any]]:
    response = await client.post(f"/board/api/{route}", json=body)
    return response.status, await response.json()


async def access_token(client: TestClient[Any, Any], sandbox: FakeDiscord, member: Member) -> str:
    status, answer = await post(client, "token", {"code": sandbox.authorize(member)})
    assert status == 200, answer
    return str(answer["access_token"])


def launch_body(
    sandbox: FakeDiscord, token: str, channel: int | None = None, guild: int | None = None
) -> dict[str, str]:
    return {
        "access_token": token,
        "guild_id": str(guild if guild is not None else sandbox.guild_id),
        "channel_id": str(channel if channel is not None else sandbox.channel_id),
        "instance_id": "i-1",
    }


async def test_config_names_the_client_id(client: TestClient[Any, Any], sandbox: FakeDiscord) -> None:
    response = await client.get("/board/api/config")
    assert await response.json() == {"activity": True, "client_id": str(sandbox.application_id)}


async def test_a_good_code_gives_the_members_session_for_the_launched_game(
    client: TestClient[Any, Any], sandbox: FakeDiscord, sqlite_store: Store, alice: Member, bob: Member
) -> None:
    carol = sandbox.member("carol")
    info = await game_between(sqlite_store, sandbox, alice, bob)
    await sqlite_store.record_launch(carol.id, sandbox.guild_id, sandbox.channel_id, info.id)
    await sqlite_store.record_launch(alice.id, sandbox.guild_id, sandbox.channel_id, info.id)
    token = await access_token(client, sandbox, alice)
    status, answer = await post(client, "session", launch_body(sandbox, token))
    assert status == 200, answer
    session = verify(SECRET, answer["session"], sqlite_store.now())
    assert session is not None and (session.user_id, session.game_id) == (alice.id, info.id)
    assert answer["game_id"] == str(info.id) and answer["user_id"] == str(alice.id)
    # Carol launched it too: she gets a session of her own (the board half makes it a spectator's: not a player).
    status, answer = await post(client, "session", launch_body(sandbox, await access_token(client, sandbox, carol)))
    session = verify(SECRET, answer["session"], sqlite_store.now())
    assert status == 200 and session is not None and session.user_id == carol.id
    assert carol.id not in info.participants


async def test_a_code_works_once_and_not_after_ten_minutes(
    client: TestClient[Any, Any], sandbox: FakeDiscord, alice: Member
) -> None:
    code = sandbox.authorize(alice)
    assert (await post(client, "token", {"code": code}))[0] == 200
    status, answer = await post(client, "token", {"code": code})
    assert status == 401 and "code" in answer["error"], "a code is single-use"
    late = sandbox.authorize(alice)
    sandbox.clock.advance(CODE_SECONDS + 1)
    assert (await post(client, "token", {"code": late}))[0] == 401, "an expired code"
    assert (await post(client, "token", {"code": "forged-code"}))[0] == 401, "a forged code"
    assert sandbox.state.oauth.exchanges == 1


async def test_the_wrong_client_secret_is_refused_by_discord(
    sandbox: FakeDiscord, sqlite_store: Store, alice: Member
) -> None:
    app = web.Application()
    activity.add_routes(app, Context(sqlite_store, SECRET, settings_for(sandbox, client_secret="not-the-secret")))
    async with TestClient(TestServer(app)) as client:
        status, answer = await post(client, "token", {"code": sandbox.authorize(alice)})
    assert status == 502 and "application" in answer["error"]
    assert sandbox.state.oauth.tokens == {}


async def test_a_forged_access_token_mints_nothing(
    client: TestClient[Any, Any], sandbox: FakeDiscord, sqlite_store: Store, alice: Member, bob: Member
) -> None:
    info = await game_between(sqlite_store, sandbox, alice, bob)
    await sqlite_store.record_launch(alice.id, sandbox.guild_id, sandbox.channel_id, info.id)
    status, answer = await post(client, "session", launch_body(sandbox, "forged.token"))
    assert status == 401 and "session" not in answer
    # Discord answered 401 to the bot's GET /users/@me with that token.
    assert any(r.path == "/users/@me" and r.status == 401 for r in sandbox.requests)


async def test_no_game_of_another_channel_or_server(
    client: TestClient[Any, Any], sandbox: FakeDiscord, sqlite_store: Store, alice: Member, bob: Member
) -> None:
    other_channel = sandbox.add_text_channel("elsewhere")
    here = await game_between(sqlite_store, sandbox, alice, bob)
    token = await access_token(client, sandbox, alice)
    # No launch from the other channel: nothing to open there, though alice plays in #general.
    status, answer = await post(client, "session", launch_body(sandbox, token, channel=other_channel))
    assert status == 404 and "session" not in answer
    # A launch recorded for another server's id does not open this server's game, nor the other way round.
    await sqlite_store.record_launch(alice.id, sandbox.guild_id, sandbox.channel_id, here.id)
    status, answer = await post(client, "session", launch_body(sandbox, token, guild=sandbox.guild_id + 1))
    assert status == 403 and "session" not in answer
    # A launch row naming a game of another channel (the page cannot make one, but a stale row could) is refused.
    await sqlite_store.record_launch(alice.id, sandbox.guild_id, other_channel, here.id)
    status, answer = await post(client, "session", launch_body(sandbox, token, channel=other_channel))
    assert status == 403 and "session" not in answer


async def test_a_players_own_game_thread_needs_no_launch_but_a_spectators_does(
    client: TestClient[Any, Any], sandbox: FakeDiscord, sqlite_store: Store, alice: Member, bob: Member
) -> None:
    thread = sandbox.add_text_channel("game-thread")
    info = await game_between(sqlite_store, sandbox, alice, bob, channel=thread)
    status, answer = await post(
        client, "session", launch_body(sandbox, await access_token(client, sandbox, bob), thread)
    )
    session = verify(SECRET, answer.get("session", ""), sqlite_store.now())
    assert status == 200 and session is not None and (session.user_id, session.game_id) == (bob.id, info.id)
    carol = sandbox.member("carol")
    status, answer = await post(
        client, "session", launch_body(sandbox, await access_token(client, sandbox, carol), thread)
    )
    assert status == 404 and "session" not in answer


@pytest.mark.parametrize(
    ("route", "data", "content_type", "status"),
    [
        ("token", b"{}", "application/json", 400),
        ("token", b'{"code": 5}', "application/json", 400),
        ("token", b'{"code": "a b"}', "application/json", 400),
        ("token", b"[1]", "application/json", 400),
        ("token", b"not json", "application/json", 400),
        ("token", b"code=x", "application/x-www-form-urlencoded", 415),
        ("token", b'{"code": "' + b"a" * 5000 + b'"}', "application/json", 413),
        ("session", b'{"access_token": "x", "guild_id": "1"}', "application/json", 400),
        ("session", b'{"access_token": "x", "guild_id": "g", "channel_id": "1"}', "application/json", 400),
    ],
)
async def test_malformed_and_oversized_bodies_are_refused(
    client: TestClient[Any, Any], sandbox: FakeDiscord, route: str, data: bytes, content_type: str, status: int
) -> None:
    response = await client.post(f"/board/api/{route}", data=data, headers={"Content-Type": content_type})
    answer = await response.json()
    assert response.status == status and isinstance(answer["error"], str) and answer["error"]
    assert not [r for r in sandbox.requests if r.path in ("/oauth2/token", "/users/@me")], "Discord was not asked"


async def test_without_the_activity_settings_the_routes_refuse(sandbox: FakeDiscord, sqlite_store: Store) -> None:
    app = web.Application()
    activity.add_routes(app, Context(sqlite_store, SECRET, settings_for(sandbox, client_id=None, client_secret="")))
    async with TestClient(TestServer(app)) as client:
        assert await (await client.get("/board/api/config")).json() == {"activity": False}
        status, answer = await post(client, "token", {"code": "abc"})
    assert status == 404 and answer["error"]


@pytest.mark.slow
async def test_a_launch_is_the_members_and_the_channels_until_it_expires(store: Store, clock: Clock) -> None:
    info = await store.create_challenge(
        guild_id=1,
        channel_id=2,
        challenger_id=11,
        opponent_id=22,
        settings={"variant": "small", "rules": "current"},
        where="here",
        expires_at=START + dt.timedelta(minutes=15),
    )
    await store.record_launch(33, 1, 2, info.id, seconds=60)
    assert await store.launched_game(33, 1, 2) == info.id
    assert await store.launched_game(33, 1, 3) is None and await store.launched_game(44, 1, 2) is None
    assert await store.launched_game(33, 9, 2) is None, "another server's launch"
    await store.record_launch(33, 1, 2, info.id, seconds=120)  # launched again: replaced, not duplicated
    clock.advance(seconds=90)
    assert await store.launched_game(33, 1, 2) == info.id
    clock.advance(seconds=60)
    assert await store.launched_game(33, 1, 2) is None


def test_the_committed_sdk_bundle_is_the_pinned_version() -> None:
    """bot/board/static/vendor holds the package at the version bot/board/sdk pins (scripts/build-sdk rebuilds it)."""
    root = Path(__file__).resolve().parents[1]
    sdk = root / "bot" / "board" / "sdk"
    vendor = root / "bot" / "board" / "static" / "vendor"
    pinned = json.loads((sdk / "package.json").read_text(encoding="utf-8"))["dependencies"]["@discord/embedded-app-sdk"]
    locked = json.loads((sdk / "package-lock.json").read_text(encoding="utf-8"))
    assert locked["packages"]["node_modules/@discord/embedded-app-sdk"]["version"] == pinned
    assert (vendor / "discord-embedded-app-sdk.VERSION").read_text(encoding="utf-8").strip() == pinned
    bundle = (vendor / "discord-embedded-app-sdk.js").read_text(encoding="utf-8")
    assert bundle.startswith(f"// @discord/embedded-app-sdk {pinned}, bundled by scripts/build-sdk")
    assert "var DiscordSDK = class" in bundle and "export {" in bundle
    licence = (vendor / "discord-embedded-app-sdk.LICENSE").read_text(encoding="utf-8")
    assert licence.startswith(f"@discord/embedded-app-sdk {pinned} (MIT)") and "Discord Inc." in licence


def test_the_activity_settings_are_read_from_the_environment() -> None:
    environ = {
        "DISCORD_TOKEN": "t",
        "DISCORD_CLIENT_ID": "123456789012345678",
        "DISCORD_CLIENT_SECRET": " s3cret ",
        "BOARD_PUBLIC_URL": "https://board.example.org/",
        "BOARD_SECRET": "k",
    }
    settings = Settings.from_env(environ)
    assert (settings.client_id, settings.client_secret) == (123456789012345678, "s3cret")
    assert settings.board_public_url == "https://board.example.org" and settings.board_secret == b"k"
    assert settings.activity_configured
    assert not Settings.from_env({"DISCORD_TOKEN": "t", "DISCORD_CLIENT_ID": "1"}).activity_configured
    # http:// only for this machine (the local table gives its bot its own address so).
    for local in ("http://127.0.0.1:8765", "http://localhost:8765"):
        assert Settings.from_env({"DISCORD_TOKEN": "t", "BOARD_PUBLIC_URL": local}).board_public_url == local
    for bad in (
        "http://board.example.org",
        "board.example.org",
        "https://x.org/?a=1",
        "https://x.org/#f",
        "http://127.0.0.1.example.org",
        "http://localhost.example.org:80",
        "http://localhost@example.org",
        "http://127.0.0.1:port",
    ):
        with pytest.raises(SettingsError, match="BOARD_PUBLIC_URL"):
            Settings.from_env({"DISCORD_TOKEN": "t", "BOARD_PUBLIC_URL": bad})
    with pytest.raises(SettingsError, match="DISCORD_CLIENT_ID"):
        Settings.from_env({"DISCORD_TOKEN": "t", "DISCORD_CLIENT_ID": "abc"})
