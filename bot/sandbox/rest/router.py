"""The fake's router: a parsed request (``Call``) and the route table that finds its handler."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.sandbox.bodies import Upload
from bot.sandbox.errors import form_error


@dataclass
class Call:
    """A request after parsing: path parameters, query, JSON (or ``payload_json``) and uploads."""

    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    uploads: list[Upload] = field(default_factory=list)

    def id(self, name: str) -> int:
        try:
            return int(self.params[name])
        except ValueError:
            raise form_error(name, "Value is not snowflake.", "NUMBER_TYPE_COERCE") from None

    def flag(self, name: str) -> bool:
        return self.query.get(name, "").lower() in ("1", "true")


Handler = Callable[[Call], Awaitable[Any]]


@dataclass
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler
    bot_auth: bool


def _compile(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{\w+\})", template)
    regex = "".join(f"(?P<{p[1:-1]}>[^/]+)" if p.startswith("{") else re.escape(p) for p in parts if p)
    return re.compile(f"^{regex}$")


class Router:
    """The route table: each route's method, path pattern, handler, and whether it needs the bot's token."""

    def __init__(self) -> None:
        self.routes: list[Route] = []

    def _add(self, method: str, template: str, handler: Handler, *, bot_auth: bool = True) -> None:
        self.routes.append(Route(method, _compile(template), handler, bot_auth))
        # Literal segments such as @original or @me must win over a {message_id} parameter.
        self.routes.sort(key=lambda r: r.pattern.pattern.count("(?P<"))

    def find(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        for route in self.routes:
            if route.method != method:
                continue
            match = route.pattern.match(path)
            if match:
                return route, match.groupdict()
        return None
