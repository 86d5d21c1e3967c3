"""Every word the bot shows, in every language it speaks: gettext catalogues read with Babel.

Pure: no Discord, no asyncio. A catalogue is one ``.po`` file per area per language
(``bot/i18n/locales/<language>/<area>.po``); its message ids are keys (``board.your_turn``), each
starting with the area's name, and its messages are Python format strings with named
placeholders (``{who} to move``). A message with a plural has one form per plural category of its
language (Spanish two, Japanese one), chosen by the ``count`` placeholder through the language's
gettext plural rule, which Babel knows from CLDR.

``words(language)`` gives a ``Words``: ``w("board.your_turn", who=mention)`` is the message in
that language; whole numbers are written the language's way (``1,234`` / ``1234`` / ``1.234``), and a
list or tuple given as data is joined with the language's separator (``separator.items``: ``a, b`` / ``a、b``;
``Clauses``, whole clauses, with ``separator.clauses``: ``a; b`` / ``a、b``).
A key missing in a language falls back to English (the catalogue test keeps that from happening).

A game's command texts (``commands.<game>.move.description``) fall back to the words every game shares
(``commands.game.move.description``): a game's catalogue holds a key of its own only where it says
something else (``shared_key``). A registered game may bring catalogue files of its own (its
descriptor's ``catalogue``, ``bot.rules.registry``), read with the built-in ones.
"""

from __future__ import annotations

import gettext
import io
import re
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

from bot.rules.registry import DESCRIPTORS, GAMES

LANGUAGES: Final[tuple[str, ...]] = ("en", "es", "ja")
"""The languages the bot speaks; English first, the fallback."""

DEFAULT: Final = "en"
LOCALES_DIR: Final = Path(__file__).with_name("locales")

LANGUAGE_NAMES: Final[Mapping[str, str]] = {"en": "English", "es": "Español", "ja": "日本語"}
"""Each language in its own words, as a server setting offers them."""

_BABEL_LOCALE: Final[Mapping[str, str]] = {"en": "en", "es": "es", "ja": "ja"}


def language_of(locale: object) -> str:
    """The language the bot speaks to a Discord locale (``es-ES``, ``es-419``, ``ja``, ``en-US`` …).

    Any Spanish is Spanish, Japanese is Japanese, everything else (and None) is English.
    """
    text = str(getattr(locale, "value", locale) or "").lower()
    base = text.replace("_", "-").split("-", 1)[0]
    return base if base in LANGUAGES else DEFAULT


def placeholders(text: str) -> set[str]:
    """The named placeholders of a format string (``{who}``, ``{count}``); ValueError if it is malformed."""
    names: set[str] = set()
    for _, field, _, _ in string.Formatter().parse(text):
        if field is None:
            continue
        if not field or not re.fullmatch(r"[a-z_][a-z0-9_]*", field):
            raise ValueError(f"placeholder {{{field}}} is not a plain name")
        names.add(field)
    return names


@dataclass(frozen=True)
class Phrase:
    """A message named by key and data, worded later in the reader's language (refusals, results, colours)."""

    key: str
    data: Mapping[str, object]

    def __init__(self, key: str, /, **data: object) -> None:
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "data", data)

    def __str__(self) -> str:
        return words(DEFAULT)(self.key, **self.data)


class Clauses(tuple[object, ...]):
    """Data shown as clauses joined the language's way (``10×10: 6 of 11; 9×9: 5 of 9``), not as a plain list."""


@dataclass(frozen=True)
class Entry:
    """One message of a catalogue: its forms (one, or one per plural category) and where it was read."""

    key: str
    forms: tuple[str, ...]
    plural: bool
    area: str


SHARED_COMMANDS: Final = "game"
"""The catalogue's name for what every game's command group shares: ``commands.game.<command>...``."""


def catalogue_folders() -> tuple[Path, ...]:
    """Where the catalogue is read from: the built-in folder, then each registered game's own (if any)."""
    extra = (each.catalogue for each in DESCRIPTORS.values() if each.catalogue is not None)
    return (LOCALES_DIR, *extra)


def catalogue_files(language: str) -> list[Path]:
    """A language's area files: the built-in ones, then those of registered games that bring their own."""
    found = sorted((LOCALES_DIR / language).glob("*.po"))
    for folder in catalogue_folders()[1:]:
        found += sorted((folder / language).glob("*.po"))
    return found


def shared_key(key: str) -> str | None:
    """The shared key a game's command key falls back to (``commands.veloop.move.name`` →
    ``commands.game.move.name``); None for any other key."""
    parts = key.split(".", 2)
    if len(parts) == 3 and parts[0] == "commands" and parts[1] in GAMES:
        return f"commands.{SHARED_COMMANDS}.{parts[2]}"
    return None


def read_entries(language: str) -> dict[str, Entry]:
    """Every message of a language, by key, read from all its area files (a key in two files is refused)."""
    found: dict[str, Entry] = {}
    for path in catalogue_files(language):
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=_BABEL_LOCALE[language], abort_invalid=True)
        for message in catalog:
            if not message.id:
                continue
            key = str(message.id[0] if isinstance(message.id, tuple | list) else message.id)
            value = message.string
            forms = tuple(str(v) for v in value) if isinstance(value, tuple | list) else (str(value or ""),)
            if key in found:
                raise ValueError(f"{language}: {key} is in {found[key].area}.po and {path.stem}.po")
            found[key] = Entry(key, forms, isinstance(message.id, tuple), path.stem)
    return found


def _translations(language: str) -> gettext.GNUTranslations:
    """The language's areas merged into one compiled catalogue (its plural rule from Babel's CLDR data)."""
    merged = Catalog(locale=_BABEL_LOCALE[language], domain="bot")
    rules: set[str] = set()
    for path in catalogue_files(language):
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=_BABEL_LOCALE[language])
        # The plural rule the translator wrote the forms for is the one in the file's own header: a
        # newer CLDR may split a language's plurals further (Spanish gained "many"), and the forms
        # written must still be picked by the rule they were written against.
        rules.add(catalog.plural_forms)
        for message in catalog:
            if message.id:
                merged[message.id] = message
    if len(rules) > 1:
        raise ValueError(f"{language}: the area files disagree on the plural rule: {sorted(rules)}")
    if rules:
        merged.mime_headers = [("Plural-Forms", rules.pop())]
    buffer = io.BytesIO()
    write_mo(buffer, merged, use_fuzzy=False)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


class Words:
    """The bot's messages in one language: ``w(key, **data)``; ``count`` picks a plural form."""

    def __init__(self, language: str, fallback: Words | None = None) -> None:
        self.language = language
        self._translations = _translations(language)
        self._entries = read_entries(language)
        self._fallback = fallback
        self._locale = Locale.parse(_BABEL_LOCALE[language])

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickled as its language (a board drawn in a worker process): the worker reads its own catalogue."""
        return words, (self.language,)

    def _key(self, key: str) -> str:
        """The key whose message this language gives for ``key``: itself, or the shared key it falls back to."""
        if key in self._entries:
            return key
        shared = shared_key(key)
        return shared if shared is not None and shared in self._entries else key

    def __contains__(self, key: str) -> bool:
        return self._key(key) in self._entries

    def keys(self) -> Iterator[str]:
        return iter(self._entries)

    def number(self, value: int | float) -> str:
        """A number written this language's way (grouping, decimal mark)."""
        return format_decimal(value, locale=self._locale)

    def __call__(self, key: str, /, **data: object) -> str:
        key = self._key(key)
        entry = self._entries.get(key)
        if entry is None:
            if self._fallback is not None:
                return self._fallback(key, **data)
            raise KeyError(f"no message {key!r} in the {self.language} catalogue")
        if entry.plural:
            count = data.get("count")
            if not isinstance(count, int):
                raise TypeError(f"{key} is a plural message: it needs a whole count")
            template = self._translations.ngettext(key, key, count)
        else:
            template = self._translations.gettext(key)
        return template.format_map({name: self._shown(value) for name, value in data.items()})

    def template(self, key: str) -> str:
        """A message as written, placeholders unfilled (a page that fills them itself); English if missing here."""
        key = self._key(key)
        if key not in self._entries:
            if self._fallback is not None:
                return self._fallback.template(key)
            raise KeyError(f"no message {key!r} in the {self.language} catalogue")
        return str(self._translations.gettext(key))

    def _shown(self, value: object) -> object:
        if isinstance(value, Phrase):
            return self(value.key, **value.data)
        if isinstance(value, int) and not isinstance(value, bool):
            return self.number(value)
        if isinstance(value, list | tuple):
            separator = self("separator.clauses" if isinstance(value, Clauses) else "separator.items")
            return separator.join(str(self._shown(item)) for item in value)
        return value

    def phrase(self, phrase: Phrase) -> str:
        return self(phrase.key, **phrase.data)

    def get(self, key: str, default: str, /, **data: object) -> str:
        """The message if the key exists in the catalogue, else ``default`` (for keys built from data)."""
        return self(key, **data) if key in self or (self._fallback and key in self._fallback) else default


def words(language: str = DEFAULT) -> Words:
    """The catalogue of a language (read once for the games registered); an unknown language gets English."""
    if language not in LANGUAGES:
        language = DEFAULT
    return _words(language, catalogue_folders())


@cache
def _words(language: str, folders: tuple[Path, ...]) -> Words:
    return Words(language, None if language == DEFAULT else words(DEFAULT))


def words_for(locale: object) -> Words:
    """The catalogue for a Discord locale (see ``language_of``)."""
    return words(language_of(locale))


ENGLISH: Final = DEFAULT

__all__ = [
    "DEFAULT",
    "ENGLISH",
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "Clauses",
    "Entry",
    "Phrase",
    "Words",
    "catalogue_files",
    "catalogue_folders",
    "language_of",
    "placeholders",
    "read_entries",
    "shared_key",
    "words",
    "words_for",
]
