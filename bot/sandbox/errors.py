"""The three ways the sandbox says no.

``DiscordError`` is what the fake answers over HTTP, shaped like Discord's own error bodies so
discord.py raises the same ``HTTPException`` it would in production. ``InjectionRefused`` is raised
in the test itself when it asks a fake user to do something the real Discord client cannot send;
``SandboxTimeout`` when the bot never does what the test awaited.
"""

from __future__ import annotations

from typing import Any


class DiscordError(Exception):
    """An HTTP error answer in Discord's format: status, numeric JSON code, message, field errors."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" {errors}" if errors else ""))
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            data["errors"] = self.errors
        return data


def form_error(field_path: str, message: str, error_code: str = "BASE_TYPE_INVALID") -> DiscordError:
    """A 400 "Invalid Form Body" naming the offending field, as Discord nests it (``a.0.b``)."""
    errors: dict[str, Any] = {"_errors": [{"code": error_code, "message": message}]}
    for part in reversed([p for p in field_path.split(".") if p]):
        errors = {part: errors}
    return DiscordError(400, 50035, "Invalid Form Body", errors)


def unknown(what: str, code: int) -> DiscordError:
    return DiscordError(404, code, f"Unknown {what}")


class SandboxError(AssertionError):
    """A test expectation about the bot failed; an ``AssertionError`` so pytest reports it plainly."""


class InjectionRefused(SandboxError):
    """The test asked a fake user for an action the real Discord client would never send."""


class SandboxTimeout(SandboxError):
    """The bot did not do what the test was waiting for within the real-time safety bound."""
