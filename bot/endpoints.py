"""Where discord.py sends REST calls and opens its gateway socket.

Large deployments put REST and gateway proxies in front of Discord, and our end-to-end tests put
a fake Discord on loopback there; both need the same two knobs. discord.py has no constructor
option for them, but it reads ``discord.http.Route.BASE`` for every REST route (webhooks and
interaction callbacks included) and ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` whenever
it opens a fresh gateway session, so setting those two class attributes once at start-up is enough.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

log = logging.getLogger(__name__)

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"


def apply_endpoints(api_base: str = DEFAULT_API_BASE, gateway_url: str = DEFAULT_GATEWAY_URL) -> None:
    """Point discord.py at ``api_base`` (``DISCORD_API_BASE``) and ``gateway_url`` (``DISCORD_GATEWAY_URL``).

    The values are checked here, at start-up, because a typo would otherwise surface much later as
    a confusing connection error on the first request.
    """
    base = api_base.rstrip("/")
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"DISCORD_API_BASE must be an http(s) URL, got {api_base!r}")
    if not parts.path.endswith("/v10"):
        raise ValueError(f"DISCORD_API_BASE must end with the API version /v10 discord.py speaks, got {api_base!r}")
    gateway = urlsplit(gateway_url)
    if gateway.scheme not in ("ws", "wss") or not gateway.netloc:
        raise ValueError(f"DISCORD_GATEWAY_URL must be a ws(s) URL, got {gateway_url!r}")
    Route.BASE = base
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    if base != DEFAULT_API_BASE or gateway_url != DEFAULT_GATEWAY_URL:
        log.info("Discord endpoints: REST %s, gateway %s", base, gateway_url)


def current_endpoints() -> tuple[str, str]:
    """The REST base and gateway URL in force, so a caller that changes them can put them back."""
    return Route.BASE, str(DiscordWebSocket.DEFAULT_GATEWAY)
