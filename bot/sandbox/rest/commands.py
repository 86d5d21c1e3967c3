"""Application command sync: listing, replacing, adding and deleting commands, refused as Discord refuses them."""

from __future__ import annotations

import copy
import json
from typing import Any

from bot.sandbox import limits
from bot.sandbox.errors import DiscordError, form_error, unknown
from bot.sandbox.rest.base import RestBase
from bot.sandbox.rest.router import Call


class CommandRoutes(RestBase):
    """The global and guild command routes of the bot's application."""

    def _command_scope(self, call: Call) -> int | None:
        if call.id("application_id") != self.state.application_id:
            raise DiscordError(403, 50001, "Missing Access")
        if "guild_id" not in call.params:
            return None
        guild_id = call.id("guild_id")
        if guild_id != self.state.guild_id:
            raise DiscordError(403, 50001, "Missing Access")
        return guild_id

    async def get_commands(self, call: Call) -> Any:
        return copy.deepcopy(self.state.commands.get(self._command_scope(call), []))

    async def put_commands(self, call: Call) -> Any:
        scope = self._command_scope(call)
        body = call.body or []
        limits.check_command_count(body)
        names: set[tuple[str, int]] = set()
        previous = {(c["name"], c["type"]): c for c in self.state.commands.get(scope, [])}
        stored = []
        for index, command in enumerate(body):
            kind = int(command.get("type") or 1)
            key = (str(command["name"]), kind)
            if key in names:
                raise form_error(
                    f"{index}.name", "Application command names must be unique", "APPLICATION_COMMANDS_DUPLICATE_NAME"
                )
            names.add(key)
            stored.append(self._store_command(command, scope, previous.get(key), f"{index}."))
        self.state.commands[scope] = stored
        self._changed()
        return copy.deepcopy(stored)

    async def post_command(self, call: Call) -> Any:
        scope = self._command_scope(call)
        command = call.body
        kind = int(command.get("type") or 1)
        commands = self.state.commands.setdefault(scope, [])
        old = next((c for c in commands if c["name"] == command["name"] and c["type"] == kind), None)
        if old is None and sum(1 for c in commands if c["type"] == kind) >= limits.MAX_COMMANDS_BY_TYPE.get(kind, 0):
            limit = limits.MAX_COMMANDS_BY_TYPE.get(kind, 0)
            raise DiscordError(400, 30032, f"Maximum number of application commands reached ({limit})")
        stored = self._store_command(command, scope, old, "")
        self.state.commands[scope] = [c for c in commands if c is not old] + [stored]
        self._changed()
        return copy.deepcopy(stored)

    async def delete_command(self, call: Call) -> Any:
        scope = self._command_scope(call)
        command_id = call.params["command_id"]
        commands = self.state.commands.get(scope, [])
        if not any(c["id"] == command_id for c in commands):
            raise unknown("application command", 10063)
        self.state.commands[scope] = [c for c in commands if c["id"] != command_id]
        return None

    def _store_command(
        self, command: dict[str, Any], scope: int | None, old: dict[str, Any] | None, where: str
    ) -> dict[str, Any]:
        kind = int(command.get("type") or 1)
        text = json.dumps(command, sort_keys=True, default=str)
        if (where, text) not in _ACCEPTED:
            _check_command(command, kind, where)
            if len(_ACCEPTED) >= KEPT_ACCEPTED:
                _ACCEPTED.clear()
            _ACCEPTED.add((where, text))
        stored = copy.deepcopy(command)
        stored["type"] = kind
        stored["id"] = old["id"] if old else str(self.state.snowflakes.next())
        stored["application_id"] = str(self.state.application_id)
        stored["version"] = str(self.state.snowflakes.next())
        stored.setdefault("default_member_permissions", None)
        if stored["default_member_permissions"] is not None:
            # Discord answers the permission bit set as a string, whichever way it was sent.
            stored["default_member_permissions"] = str(stored["default_member_permissions"])
        stored.setdefault("nsfw", False)
        stored.setdefault("description", "")
        stored.setdefault("contexts", None)
        stored.setdefault("integration_types", [0])
        if scope is not None:
            stored["guild_id"] = str(scope)
        return stored


KEPT_ACCEPTED = 256
_ACCEPTED: set[tuple[str, str]] = set()
"""Commands (where in the request, and the command as JSON) that passed every check: each bot that starts sends
the same tree again, and the checks depend on nothing else. A refused command is never kept."""


def _check_command(command: dict[str, Any], kind: int, where: str) -> None:
    """Discord's rules on one command, every field, and its size."""
    name = str(command["name"])
    if kind == 1 and not limits.valid_command_name(name):
        raise form_error(where + "name", "Command name is invalid", "APPLICATION_COMMAND_INVALID_NAME")
    if kind == 1 and not command.get("description"):
        raise form_error(where + "description", "This field is required", "BASE_TYPE_REQUIRED")
    if kind == 1:
        limits.check_text(command.get("description"), where + "description", limits.MAX_COMMAND_DESCRIPTION)
    _check_localizations(command, where, name_rule=kind == 1)
    _check_options(command.get("options") or [], where + "options")
    # Checked last, as Discord does: a command that breaks a field's rule is refused for that field first.
    limits.check_command_size(command, where.rstrip("."))


def _check_localizations(item: dict[str, Any], where: str, *, name_rule: bool) -> None:
    """Discord's rules on ``name_localizations`` and ``description_localizations``: known locale keys only;
    command and option names as the default name (lowercase, 1-32, the name pattern), choice names 1-100,
    descriptions 1-100 characters. Option names must stay unique among their siblings in each locale
    (checked by ``_check_localized_siblings``)."""
    for key, limit in (
        ("name_localizations", 32 if name_rule else limits.MAX_CHOICE_NAME),
        ("description_localizations", limits.MAX_COMMAND_DESCRIPTION),
    ):
        found = item.get(key)
        if found is None:
            continue
        if not isinstance(found, dict):
            raise form_error(where + key, "Must be an object", "MODEL_TYPE_CONVERT")
        for locale, text in found.items():
            path = f"{where}{key}.{locale}"
            if locale not in limits.LOCALES:
                raise form_error(path, f"Invalid locale {locale!r}", "LOCALE_INVALID")
            if not isinstance(text, str) or not 1 <= len(text) <= limit:
                raise form_error(path, f"Must be between 1 and {limit} in length.", "BASE_TYPE_BAD_LENGTH")
            if key == "name_localizations" and name_rule and not limits.valid_command_name(text):
                raise form_error(path, "Command name is invalid", "APPLICATION_COMMAND_INVALID_NAME")


def _check_localized_siblings(options: list[dict[str, Any]], where: str) -> None:
    """Sibling options (or sub-commands) must have distinct names in every locale, as Discord requires."""
    by_locale: dict[str, set[str]] = {}
    for index, option in enumerate(options):
        for locale, text in (option.get("name_localizations") or {}).items():
            names = by_locale.setdefault(locale, set())
            if text in names:
                raise form_error(
                    f"{where}.{index}.name_localizations.{locale}",
                    "Option names must be unique",
                    "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME",
                )
            names.add(text)


def _check_options(options: list[dict[str, Any]], where: str) -> None:
    """Discord's own rules on command options: at most 25 per level, names on the naming pattern and unique,
    descriptions 1-100, required before optional, at most 25 choices with names and values up to 100."""
    if len(options) > limits.MAX_COMMAND_OPTIONS:
        raise form_error(where, f"Must be {limits.MAX_COMMAND_OPTIONS} or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    _check_localized_siblings(options, where)
    seen: set[str] = set()
    optional_seen = False
    for index, option in enumerate(options):
        path = f"{where}.{index}"
        name = str(option.get("name", ""))
        if not limits.valid_command_name(name):
            raise form_error(f"{path}.name", "Command name is invalid", "APPLICATION_COMMAND_INVALID_NAME")
        if name in seen:
            raise form_error(
                f"{path}.name", "Option names must be unique", "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME"
            )
        seen.add(name)
        limits.check_text(option.get("description"), f"{path}.description", limits.MAX_COMMAND_DESCRIPTION)
        _check_localizations(option, path + ".", name_rule=True)
        choices = option.get("choices") or []
        if len(choices) > limits.MAX_OPTION_CHOICES:
            raise form_error(
                f"{path}.choices", f"Must be {limits.MAX_OPTION_CHOICES} or fewer in length.", "BASE_TYPE_MAX_LENGTH"
            )
        for number, choice in enumerate(choices):
            limits.check_text(choice.get("name"), f"{path}.choices.{number}.name", limits.MAX_CHOICE_NAME)
            value = choice.get("value")
            if isinstance(value, str):
                limits.check_text(value, f"{path}.choices.{number}.value", limits.MAX_CHOICE_VALUE, required=False)
            _check_localizations(choice, f"{path}.choices.{number}.", name_rule=False)
        if option.get("type") in (1, 2):
            _check_options(option.get("options") or [], f"{path}.options")
            continue
        if option.get("required"):
            if optional_seen:
                raise form_error(
                    f"{path}.required",
                    "Required options must be placed before non-required options",
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                )
        else:
            optional_seen = True
        if option.get("choices") and option.get("autocomplete"):
            raise form_error(
                f"{path}.autocomplete",
                "Autocomplete cannot be set with choices.",
                "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
            )
