"""Discord's limits on what a bot may send, enforced with the errors Discord itself answers.

The OpenAPI description carries some of these as ``maxLength``/``maxItems`` but not all (it allows
4000 characters of content for Nitro users, knows nothing of custom_id uniqueness or of the per-file
upload cap), so the ones the bot can trip over are checked here explicitly, each with a message that
names the field.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection
from typing import Any

from bot.sandbox.errors import DiscordError, form_error
from bot.sandbox.state import IS_COMPONENTS_V2, SELECT_TYPES

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
# Each embed's own limits (Discord's "Embed Limits" table; the OpenAPI description's RichEmbed,
# RichEmbedField, RichEmbedFooter and RichEmbedAuthor carry the same numbers). Checked here too so
# the fake refuses them with the spec check off, and with the field path Discord names.
MAX_EMBED_TITLE = 256
MAX_EMBED_DESCRIPTION = 4096
MAX_EMBED_FIELDS = 25
MAX_EMBED_FIELD_NAME = 256
MAX_EMBED_FIELD_VALUE = 1024
MAX_EMBED_FOOTER = 2048
MAX_EMBED_AUTHOR = 256
MAX_ACTION_ROWS = 5
MAX_ROW_BUTTONS = 5
MAX_CUSTOM_ID = 100
MAX_SELECT_OPTIONS = 25
MAX_AUTOCOMPLETE_CHOICES = 25
MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_FILES = 10
MAX_BUTTON_LABEL = 80
MAX_MODAL_TITLE = 45
MAX_MODAL_COMPONENTS = 5
MAX_V2_COMPONENTS = 40
MAX_THREAD_NAME = 100
MAX_COMMAND_DESCRIPTION = 100
MAX_CHOICE_NAME = 100
# Discord's locales (the OpenAPI description's AvailableLocalesEnum): the only keys of name_localizations
# and description_localizations it accepts.
LOCALES: frozenset[str] = frozenset(
    [
        "ar",
        "bg",
        "cs",
        "da",
        "de",
        "el",
        "en-GB",
        "en-US",
        "es-419",
        "es-ES",
        "fi",
        "fr",
        "he",
        "hi",
        "hr",
        "hu",
        "id",
        "it",
        "ja",
        "ko",
        "lt",
        "nl",
        "no",
        "pl",
        "pt-BR",
        "ro",
        "ru",
        "sv-SE",
        "th",
        "tr",
        "uk",
        "vi",
        "zh-CN",
        "zh-TW",
    ]
)
# A string option's value: 6,000 is the largest ``max_length`` a command may declare (the OpenAPI
# description's ApplicationCommandStringOption.max_length maximum, and Discord's documentation of
# application command options), so no client can send more; the fake assumes Discord's servers
# refuse longer values from forged requests too.
MAX_OPTION_VALUE = 6000


def check_message(body: dict[str, Any], prefix: str = "") -> None:
    """Content, embeds and components of a message create or edit body."""
    content = body.get("content")
    if isinstance(content, str) and len(content) > MAX_CONTENT:
        raise form_error(prefix + "content", f"Must be {MAX_CONTENT} or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    embeds = body.get("embeds") or []
    if len(embeds) > MAX_EMBEDS:
        raise form_error(prefix + "embeds", f"Must be {MAX_EMBEDS} or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    total = 0
    for index, embed in enumerate(embeds):
        _check_embed(embed, f"{prefix}embeds.{index}")
        total += len(str(embed.get("title") or "")) + len(str(embed.get("description") or ""))
        total += len(str((embed.get("footer") or {}).get("text") or ""))
        total += len(str((embed.get("author") or {}).get("name") or ""))
        for item in embed.get("fields") or []:
            total += len(str(item.get("name") or "")) + len(str(item.get("value") or ""))
    if total > MAX_EMBED_TOTAL:
        raise form_error(
            prefix + "embeds", f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL}", "MAX_EMBED_SIZE_EXCEEDED"
        )
    components = body.get("components")
    if components:
        check_components(components, int(body.get("flags") or 0), prefix + "components")
    check_allowed_mentions(body.get("allowed_mentions"), prefix + "allowed_mentions")


def _check_embed(embed: dict[str, Any], where: str) -> None:
    def longest(path: str, value: Any, limit: int) -> None:
        if isinstance(value, str) and len(value) > limit:
            raise form_error(f"{where}.{path}", f"Must be {limit} or fewer in length.", "BASE_TYPE_MAX_LENGTH")

    longest("title", embed.get("title"), MAX_EMBED_TITLE)
    longest("description", embed.get("description"), MAX_EMBED_DESCRIPTION)
    longest("footer.text", (embed.get("footer") or {}).get("text"), MAX_EMBED_FOOTER)
    longest("author.name", (embed.get("author") or {}).get("name"), MAX_EMBED_AUTHOR)
    fields = embed.get("fields") or []
    if len(fields) > MAX_EMBED_FIELDS:
        raise form_error(f"{where}.fields", f"Must be {MAX_EMBED_FIELDS} or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    for number, item in enumerate(fields):
        longest(f"fields.{number}.name", item.get("name"), MAX_EMBED_FIELD_NAME)
        longest(f"fields.{number}.value", item.get("value"), MAX_EMBED_FIELD_VALUE)


def check_allowed_mentions(allowed: Any, where: str) -> None:
    """Discord refuses ``parse: ["users"]`` together with a ``users`` list (and the same for roles)."""
    if not isinstance(allowed, dict):
        return
    parse = allowed.get("parse") or []
    for kind in ("users", "roles"):
        if kind in parse and allowed.get(kind):
            raise form_error(
                where,
                f'parse:["{kind}"] and {kind}: [ids...] are mutually exclusive.',
                "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
            )


def check_not_empty(body: dict[str, Any], uploads: int) -> None:
    """A new message needs something to show; Discord answers 50006 otherwise."""
    if not (
        body.get("content")
        or body.get("embeds")
        or body.get("components")
        or body.get("sticker_ids")
        or body.get("poll")
        or uploads
    ):
        raise DiscordError(400, 50006, "Cannot send an empty message")


def check_components(components: list[dict[str, Any]], flags: int, where: str) -> None:
    seen: set[str] = set()
    if flags & IS_COMPONENTS_V2:
        if _count(components) > MAX_V2_COMPONENTS:
            raise form_error(where, f"Must be {MAX_V2_COMPONENTS} or fewer in total.", "BASE_TYPE_MAX_LENGTH")
    else:
        if len(components) > MAX_ACTION_ROWS:
            raise form_error(where, f"Must be {MAX_ACTION_ROWS} or fewer in length.", "BASE_TYPE_MAX_LENGTH")
        for index, row in enumerate(components):
            if row.get("type") != 1:
                raise form_error(
                    f"{where}.{index}",
                    "Only action rows are allowed at the top level without the IS_COMPONENTS_V2 flag.",
                    "COMPONENT_LAYOUT_INVALID",
                )
    _check_tree(components, where, seen)


def _count(components: list[dict[str, Any]]) -> int:
    total = 0
    for component in components:
        total += 1
        total += _count(component.get("components") or [])
        for key in ("accessory", "component"):
            if isinstance(component.get(key), dict):
                total += _count([component[key]])
    return total


def _check_tree(components: list[dict[str, Any]], where: str, seen: set[str]) -> None:
    for index, component in enumerate(components):
        path = f"{where}.{index}"
        kind = component.get("type")
        if kind == 1:
            children = component.get("components") or []
            if not children:
                raise form_error(f"{path}.components", "Must be between 1 and 5 in length.", "BASE_TYPE_BAD_LENGTH")
            selects = [c for c in children if c.get("type") in SELECT_TYPES]
            if len(children) > MAX_ROW_BUTTONS or (selects and len(children) > 1):
                raise form_error(
                    f"{path}.components",
                    "An action row holds at most 5 buttons or exactly one select menu.",
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                )
        custom_id = component.get("custom_id")
        if custom_id is not None:
            if len(str(custom_id)) > MAX_CUSTOM_ID:
                raise form_error(
                    f"{path}.custom_id", f"Must be {MAX_CUSTOM_ID} or fewer in length.", "BASE_TYPE_MAX_LENGTH"
                )
            if custom_id in seen:
                raise form_error(
                    f"{path}.custom_id", "Component custom id cannot be duplicated", "COMPONENT_CUSTOM_ID_DUPLICATED"
                )
            seen.add(str(custom_id))
        if kind == 2:
            label = component.get("label")
            if isinstance(label, str) and len(label) > MAX_BUTTON_LABEL:
                raise form_error(
                    f"{path}.label", f"Must be {MAX_BUTTON_LABEL} or fewer in length.", "BASE_TYPE_MAX_LENGTH"
                )
            if component.get("style") == 5 and ("url" not in component or custom_id is not None):
                raise form_error(path, "Link buttons need a url and cannot have a custom_id.", "COMPONENT_INVALID")
        if kind == 3:
            options = component.get("options") or []
            if not 1 <= len(options) <= MAX_SELECT_OPTIONS:
                raise form_error(
                    f"{path}.options", f"Must be between 1 and {MAX_SELECT_OPTIONS} in length.", "BASE_TYPE_BAD_LENGTH"
                )
        if kind in SELECT_TYPES:
            for key in ("min_values", "max_values"):
                value = component.get(key)
                if value is not None and not 0 <= int(value) <= MAX_SELECT_OPTIONS:
                    raise form_error(f"{path}.{key}", f"Must be {MAX_SELECT_OPTIONS} or less.", "NUMBER_TYPE_MAX")
        _check_tree(component.get("components") or [], f"{path}.components", seen)
        for key in ("accessory", "component"):
            if isinstance(component.get(key), dict):
                _check_tree([component[key]], f"{path}.{key}", seen)


def check_choices(choices: list[dict[str, Any]]) -> None:
    """An autocomplete answer: at most 25 choices, each named in 1-100 characters with a string value of 100 at most,
    as the choices a command declares."""
    if len(choices) > MAX_AUTOCOMPLETE_CHOICES:
        raise form_error(
            "data.choices", f"Must be {MAX_AUTOCOMPLETE_CHOICES} or fewer in length.", "BASE_TYPE_MAX_LENGTH"
        )
    for number, choice in enumerate(choices):
        check_text(choice.get("name"), f"data.choices.{number}.name", MAX_CHOICE_NAME)
        if isinstance(choice.get("value"), str):
            check_text(choice["value"], f"data.choices.{number}.value", MAX_CHOICE_VALUE, required=False)


def check_modal(data: dict[str, Any]) -> None:
    title = str(data.get("title") or "")
    if len(title) > MAX_MODAL_TITLE:
        raise form_error("data.title", f"Must be {MAX_MODAL_TITLE} or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    custom_id = str(data.get("custom_id") or "")
    if len(custom_id) > MAX_CUSTOM_ID:
        raise form_error("data.custom_id", f"Must be {MAX_CUSTOM_ID} or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    components = data.get("components") or []
    if not 1 <= len(components) <= MAX_MODAL_COMPONENTS:
        raise form_error(
            "data.components", f"Must be between 1 and {MAX_MODAL_COMPONENTS} in length.", "BASE_TYPE_BAD_LENGTH"
        )
    _check_tree(components, "data.components", set())


def check_files(files: list[tuple[str, bytes]]) -> None:
    if len(files) > MAX_FILES:
        raise form_error("files", f"Must be {MAX_FILES} or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    for name, data in files:
        if len(data) > MAX_FILE_BYTES:
            raise DiscordError(
                413, 40005, f"Request entity too large: {name} is {len(data)} bytes (max {MAX_FILE_BYTES})"
            )


def check_thread_name(name: Any) -> None:
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_THREAD_NAME:
        raise form_error("name", f"Must be between 1 and {MAX_THREAD_NAME} in length.", "BASE_TYPE_BAD_LENGTH")


# -- application commands -------------------------------------------------------------------------
# Discord's "Application Command Object" documentation: names 1-32 on the naming pattern, descriptions
# 1-100, at most 25 options (sub-commands and groups included) per level and 25 choices per option,
# choice names 1-100 and string values up to 100, in every localisation.
MAX_COMMAND_NAME = 32
MAX_CHOICE_VALUE = 100
MAX_COMMAND_OPTIONS = 25
MAX_OPTION_CHOICES = 25
# How many top-level commands of each type one scope (global, or one guild) may hold: 100 chat-input,
# 5 user and 5 message commands.
MAX_COMMANDS_BY_TYPE: dict[int, int] = {1: 100, 2: 5, 3: 5}
# The combined size of one top-level command: its name, description, and every option's (sub-commands
# and groups included) and choice's name, description and value, each field counted at its longest
# localisation (the default included). Discord answers a larger one with APPLICATION_COMMAND_TOO_LARGE,
# "Command exceeds maximum size (4000)" in its documentation's example of a request error and in its
# limits for years; its current page says 8,000. The fake holds the stricter 4,000, so a tree it accepts
# is accepted under either.
MAX_COMMAND_SIZE = 4000
_NAME_PUNCTUATION = frozenset("-_'")
# Discord's naming pattern is ^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$ (Unicode flag): letters and
# numbers of any script, plus the Devanagari and Thai blocks (their vowel signs are marks, not letters).
_SCRIPT_BLOCKS = ((0x0900, 0x097F), (0x0E00, 0x0E7F))


def valid_command_name(name: object) -> bool:
    """A chat-input command or option name Discord accepts: its naming pattern, lowercase where letters have a case."""
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_COMMAND_NAME or name != name.lower():
        return False
    for char in name:
        if char in _NAME_PUNCTUATION or unicodedata.category(char)[0] in "LN":
            continue
        if not any(low <= ord(char) <= high for low, high in _SCRIPT_BLOCKS):
            return False
    return True


def shown_length(item: dict[str, Any], key: str, locales: Collection[str] | None = None) -> int:
    """The length of a field as the size limit counts it: its longest localisation, the default included.

    With ``locales``, only what members in those locales are shown (their localisation, else the default).
    """
    default = str(item.get(key) if item.get(key) is not None else "")
    localised: dict[str, Any] = item.get(f"{key}_localizations") or {}
    if locales is None:
        return max([len(default), *(len(str(text)) for text in localised.values())])
    return max(len(str(localised.get(locale, default))) for locale in locales)


def command_size(item: dict[str, Any], locales: Collection[str] | None = None) -> int:
    """What a command (or an option, or a choice) adds to its top-level command's size, as Discord counts it."""
    size = shown_length(item, "name", locales) + shown_length(item, "description", locales)
    if "value" in item:
        size += len(str(item["value"]))
    for choice in item.get("choices") or []:
        size += command_size(choice, locales)
    for option in item.get("options") or []:
        size += command_size(option, locales)
    return size


def check_command_size(command: dict[str, Any], where: str) -> None:
    size = command_size(command)
    if size > MAX_COMMAND_SIZE:
        raise form_error(where, f"Command exceeds maximum size ({MAX_COMMAND_SIZE})", "APPLICATION_COMMAND_TOO_LARGE")


def check_command_count(commands: list[dict[str, Any]], where: str = "") -> None:
    """At most ``MAX_COMMANDS_BY_TYPE`` top-level commands of each type in one scope."""
    for kind, limit in MAX_COMMANDS_BY_TYPE.items():
        if sum(1 for c in commands if int(c.get("type") or 1) == kind) > limit:
            raise form_error(where, f"Must be {limit} or fewer in length.", "BASE_TYPE_MAX_LENGTH")


def check_text(value: Any, where: str, limit: int, *, required: bool = True) -> None:
    """A description, choice name or string value: 1 to ``limit`` characters (0 allowed when not required)."""
    if value is None and not required:
        return
    low = 1 if required else 0
    if not isinstance(value, str) or not low <= len(value) <= limit:
        raise form_error(where, f"Must be between {low} and {limit} in length.", "BASE_TYPE_BAD_LENGTH")
