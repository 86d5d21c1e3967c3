"""DISCORD_API_BASE and DISCORD_GATEWAY_URL reach the two places discord.py reads."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.endpoints import DEFAULT_API_BASE, DEFAULT_GATEWAY_URL, apply_endpoints, current_endpoints


@pytest.fixture(autouse=True)
def restore() -> Iterator[None]:
    saved = current_endpoints()
    yield
    apply_endpoints(*saved)


def test_endpoints_are_applied_where_discord_py_reads_them() -> None:
    apply_endpoints("http://127.0.0.1:8080/api/v10/", "ws://127.0.0.1:8080/gateway")
    assert Route("GET", "/users/@me").url == "http://127.0.0.1:8080/api/v10/users/@me"
    assert str(DiscordWebSocket.DEFAULT_GATEWAY) == "ws://127.0.0.1:8080/gateway"


def test_defaults_are_discord() -> None:
    apply_endpoints()
    assert current_endpoints() == (DEFAULT_API_BASE, DEFAULT_GATEWAY_URL)


@pytest.mark.parametrize(
    ("api_base", "gateway"),
    [
        ("ftp://example.com/api/v10", DEFAULT_GATEWAY_URL),
        ("https://example.com/api/v9", DEFAULT_GATEWAY_URL),
        (DEFAULT_API_BASE, "https://gateway.discord.gg"),
    ],
)
def test_bad_values_are_refused_before_anything_changes(api_base: str, gateway: str) -> None:
    before = current_endpoints()
    with pytest.raises(ValueError, match="DISCORD_"):
        apply_endpoints(api_base, gateway)
    assert current_endpoints() == before
