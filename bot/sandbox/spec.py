"""Every REST body the bot sends is checked against Discord's own OpenAPI description.

The description (``tests/data/openapi.json``, a copy of discord/discord-api-spec) is large, so it is
parsed once per process and each operation's validator is built on first use. Validation uses
jsonschema's Draft 2020-12 validator over the whole document, so the spec's internal
``#/components/...`` references resolve exactly as written.
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

DEFAULT_SPEC_PATH = Path(__file__).resolve().parents[2] / "tests" / "data" / "openapi.json"
_PARAM_RE = re.compile(r"\{[^/]+\}")


@dataclass(frozen=True)
class Operation:
    """One spec path template with one method: what a request matched."""

    template: str
    method: str


@functools.cache
def _load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        document: dict[str, Any] = json.load(handle)
    return document


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
        if len(closest) != 1:
            break
        subs = closest[0]
        nested = [sub for sub in subs if sub.context]
        error = nested[0] if nested else max(subs, key=lambda sub: len(sub.absolute_path))
    return error


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
        return f"Must be of type {limit}."
    if error.validator in ("enum", "const"):
        return f"Must be one of {limit}."
    if error.validator in ("maximum", "minimum"):
        return f"Must be {'at most' if error.validator == 'maximum' else 'at least'} {limit}."
    if error.validator in ("anyOf", "oneOf"):
        return "Does not match any allowed shape (" + str(error.validator) + ")."
    text = str(error.message)
    return text if len(text) <= 200 else text[:200] + "..."


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
