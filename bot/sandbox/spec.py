"""Every REST body the bot sends is checked against Discord's own OpenAPI description.

The description (``openapi.json`` beside this module, a copy of discord/discord-api-spec, shipped as
package data because the local table validates with it too) is large, so it is parsed once per
process and each operation's validator is built on first use. Validation uses jsonschema's Draft
2020-12 validator over the whole document, so the spec's internal ``#/components/...`` references
resolve exactly as written.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import ValidationError, relevance  # type: ignore[import-untyped]

from bot.sandbox.errors import DiscordError, form_error

log = logging.getLogger(__name__)

DEFAULT_SPEC_PATH = Path(__file__).resolve().parent / "openapi.json"
_PARAM_RE = re.compile(r"\{[^/]+\}")
_SNOWFLAKE_PATTERN = "^(0|[1-9][0-9]*)$"


@dataclass(frozen=True)
class Operation:
    """One spec path template with one method: what a request matched."""

    template: str
    method: str


@functools.cache
def _load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        document: dict[str, Any] = json.load(handle)
    accept_integer_snowflakes(document)
    return document


def accept_integer_snowflakes(document: dict[str, Any]) -> None:
    """Let every snowflake in a request be a JSON integer as well as a numeric string.

    The description types snowflakes as strings only, but Discord parses either, and discord.py
    sends integers in several places (``allowed_mentions.users`` and ``roles``, ``message_reference``,
    ``sticker_ids``, attachment ids, select ``default_values``). Refusing them would fail tests for
    bodies production accepts. JSON Schema applies ``pattern`` only to strings and ``minimum`` only to
    numbers, so each form keeps its own check.
    """
    schemas = document.get("components", {}).get("schemas", {})
    snowflake = schemas.get("SnowflakeType")
    if isinstance(snowflake, dict) and snowflake.get("type") == "string":
        snowflake["type"] = ["string", "integer"]
        snowflake["minimum"] = 0


def _pointer_escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


class SpecValidator:
    """Matches ``METHOD /path`` to a spec operation and validates its JSON body."""

    def __init__(self, path: Path = DEFAULT_SPEC_PATH) -> None:
        self.document = _load(path)
        routes: list[tuple[int, re.Pattern[str], str]] = []
        for template in self.document["paths"]:
            pattern = (
                "^"
                + "".join(
                    "[^/]+" if _PARAM_RE.fullmatch(chunk) else re.escape(chunk)
                    for chunk in re.split(r"(\{[^/]+\})", template)
                    if chunk
                )
                + "$"
            )
            routes.append((template.count("{"), re.compile(pattern), template))
        # Literal segments such as @original or @me win over a {message_id} parameter.
        routes.sort(key=lambda item: item[0])
        self._routes = routes
        self._validators: dict[tuple[str, str, str], Draft202012Validator | None] = {}

    @staticmethod
    @functools.cache
    def shared(path: Path = DEFAULT_SPEC_PATH) -> SpecValidator:
        """One validator per spec file and process: its routes and compiled schemas serve every fake."""
        return SpecValidator(path)

    def match(self, method: str, path: str) -> Operation | None:
        method = method.lower()
        for _, pattern, template in self._routes:
            if pattern.match(path) and method in self.document["paths"][template]:
                return Operation(template, method)
        return None

    def _validator(self, op: Operation, media_type: str) -> Draft202012Validator | None:
        key = (op.template, op.method, media_type)
        if key not in self._validators:
            body = self.document["paths"][op.template][op.method].get("requestBody")
            validator: Draft202012Validator | None = None
            if body is not None and media_type in body.get("content", {}):
                pointer = "/".join(
                    _pointer_escape(p)
                    for p in ("paths", op.template, op.method, "requestBody", "content", media_type, "schema")
                )
                root = dict(self.document)
                root["$ref"] = "#/" + pointer
                validator = Draft202012Validator(root)
            self._validators[key] = validator
        return self._validators[key]

    def validate(self, method: str, path: str, body: Any, *, multipart: bool = False) -> Operation:
        """Raise a Discord-style 400 if ``body`` breaks the spec; unknown routes raise 404."""
        op = self.match(method, path)
        if op is None:
            raise DiscordError(404, 0, f"404: Not Found ({method} {path} is not in Discord's API)")
        validator = self._validator(op, "multipart/form-data" if multipart else "application/json")
        if validator is None:
            if body is not None:
                raise DiscordError(400, 50109, f"{method} {path} takes no request body of this type")
            return op
        errors = list(validator.iter_errors(normalise_attachment_ids(body)))
        if errors:
            error = _explain(max(errors, key=relevance))
            where = ".".join(str(p) for p in error.absolute_path)
            message = _short(error)
            log.warning("spec violation in %s %s at %s: %s", method, path, where or "(body)", message)
            raise form_error(where or "_spec", message, "SPEC_" + str(error.validator).upper())
        return op


def _explain(error: ValidationError) -> ValidationError:
    """Descend through the spec's discriminated unions to the branch the body meant.

    Interaction callbacks and message components are unions told apart by ``type``; reported as a
    whole they say only "not valid under any of the given schemas", and jsonschema's best match
    may pick a branch the body never meant. Branches that reject the discriminator (or the JSON
    type) are dropped; of the rest, the one with the fewest complaints is the one the body meant.
    """
    while error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        plausible = [subs for subs in branches.values() if not any(_rejects_kind(sub) for sub in subs)]
        if not plausible:
            break
        fewest = min(_leaves(subs) for subs in plausible)
        closest = [subs for subs in plausible if _leaves(subs) == fewest]
        merged = _merge_choices(closest)
        if merged is not None:
            return merged
        # Branches equally close (a webhook body is "create or update", which share most fields) are
        # told apart by how deep their complaint goes: the deepest one names the real offending field,
        # and the first in schema order wins a tie so the answer never depends on set ordering.
        subs = max(closest, key=_depth)
        nested = [sub for sub in subs if sub.context]
        error = nested[0] if nested else max(subs, key=lambda sub: len(sub.absolute_path))
    return error


def _merge_choices(closest: list[list[ValidationError]]) -> ValidationError | None:
    """Branches that differ only in the constant one field must hold (button styles): list them all.

    Each button branch of the spec fixes ``style`` to one value, so naming the first branch's
    constant alone would tell the reader "must be 1" when 1 to 6 are all allowed.
    """
    if len(closest) < 2 or any(len(subs) != 1 or subs[0].validator not in ("const", "enum") for subs in closest):
        return None
    paths = {tuple(subs[0].absolute_path) for subs in closest}
    if len(paths) != 1:
        return None
    values: list[Any] = []
    for subs in closest:
        limit = subs[0].validator_value
        for value in limit if subs[0].validator == "enum" else [limit]:
            if value not in values:
                values.append(value)
    first = closest[0][0]
    return ValidationError(
        f"{first.instance!r} is not one of {values}",
        validator="enum",
        validator_value=values,
        instance=first.instance,
        path=list(first.absolute_path),
    )


def _depth(errors: list[ValidationError]) -> int:
    return max((max(_depth(list(e.context)), len(e.absolute_path)) for e in errors), default=0)


def _leaves(errors: list[ValidationError]) -> int:
    return sum(_leaves(list(e.context)) if e.context else 1 for e in errors)


def _rejects_kind(error: ValidationError) -> bool:
    """The branch is for another kind of object: wrong ``type`` discriminator or wrong JSON type."""
    path = list(error.relative_path)
    return path == ["type"] or (not path and error.validator == "type")


def _short(error: ValidationError) -> str:
    """A one-line reason in Discord's wording where it has one, never the whole offending value."""
    limit = error.validator_value
    if error.validator in ("maxLength", "maxItems"):
        return f"Must be {limit} or fewer in length."
    if error.validator in ("minLength", "minItems"):
        return f"Must be {limit} or more in length."
    if error.validator == "type":
        return f"Must be of type {_kinds(limit)}."
    if error.validator in ("enum", "const"):
        values = limit if isinstance(limit, list) else [limit]
        return "Must be one of " + ", ".join(str(v) for v in values) + "."
    if error.validator == "pattern" and limit == _SNOWFLAKE_PATTERN:
        return f"Value {json.dumps(error.instance)} is not snowflake."
    if error.validator in ("maximum", "minimum"):
        return f"Must be {'at most' if error.validator == 'maximum' else 'at least'} {limit}."
    if error.validator in ("anyOf", "oneOf"):
        kinds = [
            sub.validator_value for sub in error.context or [] if sub.validator == "type" and not sub.relative_path
        ]
        if kinds and len(kinds) == len(error.context or []):
            # Every branch wanted another JSON type (e.g. null or a snowflake): say which ones.
            return f"Must be of type {_kinds(kinds)}."
        return "Does not match any allowed shape (" + str(error.validator) + ")."
    text = str(error.message)
    return text if len(text) <= 200 else text[:200] + "..."


def _kinds(limit: Any) -> str:
    """``"string"``, ``["string", "integer"]`` or a list of those, as one readable phrase."""
    flat: list[str] = []
    for item in limit if isinstance(limit, list) else [limit]:
        for kind in item if isinstance(item, list) else [item]:
            if str(kind) not in flat:
                flat.append(str(kind))
    return " or ".join(flat)


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def normalise_attachment_ids(body: Any) -> Any:
    """discord.py sends attachment ids as integer indexes; the spec says snowflake strings. Allow both."""
    if not isinstance(body, (dict, list)):
        return body
    body = copy.deepcopy(body)
    for node in _walk(body):
        attachments = node.get("attachments")
        if isinstance(attachments, list):
            for item in attachments:
                if isinstance(item, dict) and isinstance(item.get("id"), int):
                    item["id"] = str(item["id"])
    return body
