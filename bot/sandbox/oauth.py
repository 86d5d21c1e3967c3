"""Discord's OAuth2 side for an Activity: the code a member's client obtains, its exchange, the member's token.

What an Activity's page does in Discord: the client asks the member to authorise the application (the Embedded
App SDK's ``authorize``) and hands the page a short-lived code; the application's own server exchanges that code
at ``POST /oauth2/token`` (form-encoded, with the application's client id and secret) for an access token, and
learns who the member is from ``GET /users/@me`` with ``Authorization: Bearer <token>``. The fake keeps those
rules: a code is single-use, lives ten minutes on the fake's clock and is bound to one member and the
application; the client id and secret must be the application's; a wrong or expired token is answered 401 as
Discord answers it. Errors of the token endpoint have OAuth2's shape (``{"error", "error_description"}``),
not the REST API's.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from bot.sandbox.clock import SimClock

CODE_SECONDS = 10 * 60.0
TOKEN_SECONDS = 7 * 24 * 3600.0
MAX_FORM = 4096
SCOPES = frozenset({"identify", "guilds", "guilds.members.read", "rpc.activities.write"})


@dataclass
class Grant:
    """A code or an access token: whose it is, for which scopes, until when (the fake's clock)."""

    user_id: int
    scopes: tuple[str, ...]
    expires_at: float


class OAuthError(Exception):
    """An answer of the token endpoint or of a Bearer request that is not a success."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"{status} {body}")
        self.status = status
        self.body = body


def _oauth_error(status: int, error: str, description: str) -> OAuthError:
    return OAuthError(status, {"error": error, "error_description": description})


class OAuth:
    """The application's OAuth2 grants: codes waiting for their exchange and access tokens handed out."""

    def __init__(self, clock: SimClock, application_id: int) -> None:
        self.clock = clock
        self.application_id = application_id
        self.client_secret = "sandbox-secret." + secrets.token_urlsafe(24)
        self.codes: dict[str, Grant] = {}
        self.tokens: dict[str, Grant] = {}
        self.exchanges = 0  # codes exchanged successfully, for tests

    def authorize(self, user_id: int, scopes: tuple[str, ...] = ("identify",)) -> str:
        """A code for ``user_id``, as Discord's client obtains one when the member authorises the application."""
        unknown = [s for s in scopes if s not in SCOPES]
        if unknown or not scopes:
            raise ValueError(f"scopes the sandbox does not grant: {unknown or 'none asked'}")
        code = secrets.token_urlsafe(20)
        self.codes[code] = Grant(user_id, tuple(scopes), self.clock.now() + CODE_SECONDS)
        return code

    def exchange(self, raw: bytes, content_type: str, basic: tuple[str, str] | None) -> dict[str, Any]:
        """``POST /oauth2/token``: the body's code for an access token, or an ``OAuthError``."""
        if content_type != "application/x-www-form-urlencoded":
            raise _oauth_error(400, "invalid_request", "Content-Type must be application/x-www-form-urlencoded")
        if len(raw) > MAX_FORM:
            raise _oauth_error(400, "invalid_request", "Request body too large")
        try:
            form = dict(parse_qsl(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=bool(raw)))
        except (UnicodeDecodeError, ValueError):
            raise _oauth_error(400, "invalid_request", "Malformed form body") from None
        client_id, client_secret = basic if basic is not None else (form.get("client_id"), form.get("client_secret"))
        if client_id != str(self.application_id) or not client_secret or client_secret != self.client_secret:
            raise _oauth_error(401, "invalid_client", "Invalid client")
        if form.get("grant_type") != "authorization_code":
            raise _oauth_error(400, "unsupported_grant_type", 'Unsupported "grant_type"')
        code = form.get("code", "")
        grant = self.codes.pop(code, None)  # single use: a second exchange of the same code finds nothing
        if grant is None or grant.expires_at <= self.clock.now():
            raise _oauth_error(400, "invalid_grant", 'Invalid "code" in request.')
        token = secrets.token_urlsafe(24)
        self.tokens[token] = Grant(grant.user_id, grant.scopes, self.clock.now() + TOKEN_SECONDS)
        self.exchanges += 1
        return {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": int(TOKEN_SECONDS),
            "refresh_token": secrets.token_urlsafe(24),
            "scope": " ".join(grant.scopes),
        }

    def bearer(self, authorization: str) -> Grant:
        """The grant behind ``Authorization: Bearer <token>``, or a 401 as Discord answers it."""
        token = authorization.removeprefix("Bearer ").strip()
        grant = self.tokens.get(token)
        if grant is None or grant.expires_at <= self.clock.now():
            raise OAuthError(401, {"message": "401: Unauthorized", "code": 0})
        return grant
