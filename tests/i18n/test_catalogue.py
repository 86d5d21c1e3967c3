"""The catalogue: every key in every language, the same placeholders, valid syntax, within Discord's limits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from bot.i18n import (
    LANGUAGES,
    LOCALES_DIR,
    SHARED_COMMANDS,
    Phrase,
    catalogue_files,
    language_of,
    placeholders,
    read_entries,
    shared_key,
    words,
)
from bot.rules.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]
# Where a message goes, by the end of its key, and Discord's limit there.
LIMITS = {
    ".label": 80,  # a button label
    ".option": 100,  # a select option's label or description
    ".placeholder": 150,  # a select menu's placeholder
    ".modal_title": 45,
    ".field": 256,  # an embed field's name
    ".title": 256,  # an embed's title
    ".footer": 2048,
    ".name": 32,  # a command or option name (commands area)
    ".description": 100,  # a command or option description (commands area)
}
NAME = re.compile(r"^[-_'\w]{1,32}$")


def areas(language: str) -> set[str]:
    return {path.stem for path in catalogue_files(language)}


def test_every_language_has_the_same_areas() -> None:
    english = areas("en")
    assert {"commands", "refusal", "rules", "board", "challenge", "render"} <= english
    for language in LANGUAGES:
        assert areas(language) == english, language


@pytest.mark.parametrize("language", LANGUAGES)
def test_files_read_without_errors_and_keys_start_with_their_area(language: str) -> None:
    for path in catalogue_files(language):
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=language, abort_invalid=True)
        assert catalog.locale is not None and str(catalog.locale) == language
        for message in catalog:
            if message.id:
                key = message.id[0] if isinstance(message.id, tuple | list) else message.id
                assert key.startswith(path.stem + "."), (path.name, key)
                assert not message.fuzzy, key


def test_every_key_in_every_language_with_the_same_placeholders() -> None:
    english = read_entries("en")
    others = {language: read_entries(language) for language in LANGUAGES if language != "en"}
    for language, entries in others.items():
        assert set(entries) == set(english), (language, sorted(set(entries) ^ set(english))[:10])
    for key, entry in english.items():
        wanted = set().union(*(placeholders(form) for form in entry.forms))
        for language, entries in others.items():
            theirs = entries[key]
            assert theirs.plural == entry.plural, (language, key)
            found = set().union(*(placeholders(form) for form in theirs.forms))
            assert found == wanted, (language, key, found, wanted)
            for form in theirs.forms:
                # Every form of a plural says the count itself or (one form) needs none.
                assert form.strip(), (language, key)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_empty_values_and_plural_forms_as_the_language_has(language: str) -> None:
    forms_wanted = {"en": 2, "es": 2, "ja": 1}[language]
    for key, entry in read_entries(language).items():
        assert all(form.strip() for form in entry.forms), key
        if entry.plural:
            assert len(entry.forms) == forms_wanted, key
            assert any("{count}" in form for form in entry.forms), key
        else:
            assert len(entry.forms) == 1, key


@pytest.mark.parametrize("language", LANGUAGES)
def test_messages_fit_where_they_go(language: str) -> None:
    for key, entry in read_entries(language).items():
        limit = (
            100
            if key.startswith("commands.choice.")
            else next((n for end, n in LIMITS.items() if key.endswith(end)), 2000)
        )
        for form in entry.forms:
            # A placeholder stands for at most 40 characters (a name, a square, a number) in this estimate.
            shown = re.sub(r"\{[a-z_]+\}", "x" * 40 if limit > 100 else "x" * 8, form)
            assert len(shown) <= limit, (language, key, len(shown), limit)
        if entry.area == "commands" and key.endswith(".name") and not key.startswith("commands.choice."):
            assert entry.forms[0] == entry.forms[0].lower() and NAME.match(entry.forms[0]), (language, key)


def test_plurals_follow_each_language() -> None:
    assert words("en")("refusal.too_many_challenges", count=1) == "There is already 1 open challenge by this player."
    assert words("en")("refusal.too_many_challenges", count=5).startswith("There are already 5 open challenges")
    assert words("es")("refusal.too_many_challenges", count=1) == "Este jugador ya tiene 1 desafío abierto."
    assert words("es")("refusal.too_many_challenges", count=2) == "Este jugador ya tiene 2 desafíos abiertos."
    assert words("ja")("refusal.too_many_challenges", count=2) == "このプレイヤーはすでに2件の挑戦を受付中です。"


def test_numbers_are_written_each_languages_way() -> None:
    assert words("en").number(12345) == "12,345"
    assert words("es").number(12345) == "12.345"
    assert words("ja").number(12345) == "12,345"
    assert words("es").number(1.5) == "1,5"


def test_locales_map_to_languages() -> None:
    assert language_of("es-ES") == language_of("es-419") == "es"
    assert language_of("ja") == "ja"
    assert language_of("en-GB") == language_of("en-US") == "en"
    assert language_of("fr") == language_of(None) == language_of("") == "en"


def test_phrases_are_worded_in_the_readers_language() -> None:
    colour = Phrase("rules.colour.white")
    said = words("es")("rules.veloop_swap_same", first="e4", second="e5", colour=colour)
    assert said.endswith("una piedra blanca arriba."), said
    assert str(Phrase("rules.occupied", square="d4")) == "d4 is occupied."


def test_every_key_the_code_names_exists() -> None:
    """A key written in the code (``"refusal.race"``) must be in the English catalogue: a typo fails here."""
    english = read_entries("en")
    known_areas = {entry.area for entry in english.values()}
    alternatives = "|".join(sorted(known_areas))
    pattern = re.compile(rf"""["']((?:{alternatives})\.[a-z0-9_]+(?:\.[a-z0-9_]+)*)["']""")
    missing = []
    for folder in ("bot", "cogs"):
        for path in (ROOT / folder).rglob("*.py"):
            for key in pattern.findall(path.read_text(encoding="utf-8")):
                # A game's command key may be one it shares with every game (``commands.game.*``).
                known = key in english or shared_key(key) in english
                if not known and key.rsplit(".", 1)[-1] not in ("png", "gif", "txt", "sqlite3"):
                    missing.append((str(path.relative_to(ROOT)), key))
    assert not missing, missing[:20]


def test_catalogue_lives_in_the_package() -> None:
    assert LOCALES_DIR.is_dir() and (ROOT / "bot" / "i18n" / "locales") == LOCALES_DIR


# What is not prose in a message: code spans, links, Discord markup (mentions, timestamps, commands,
# emoji), placeholders, a clock face ("{minutes}:{seconds}") and times of day ("18:00").
NOT_PROSE = re.compile(
    r"`[^`]*`|https?://\S+|\]\([^)]*\)|<(?:t|@[!&]?|#|/|a?:)[^>]*>|\{minutes\}:\{seconds\}|\{[a-z_0-9]+\}|\b\d{1,2}:\d\d\b"
)


def prose(text: str) -> str:
    return NOT_PROSE.sub(" ", text)


def test_prose_leaves_out_code_markup_and_notation() -> None:
    kept = "例：`{stone}:` と <t:{at}:R>、<@{who}>、</veletas board:1>（{minutes}:{seconds}、18:00、[a](https://x.y/z?q=1)）"
    assert not re.search(r"[():?!;]", prose(kept))
    assert re.findall(r"[():?!;]", prose("例:{who}(18:00)? いいえ!;")) == [":", "(", ")", "?", "!", ";"]


def test_japanese_uses_full_width_punctuation_and_no_semicolons() -> None:
    found = []
    for key, entry in read_entries("ja").items():
        for form in entry.forms:
            if re.search(r"[():?!;；]", prose(form)):
                found.append((key, form))
    assert found == []


def test_every_message_with_a_count_has_plural_forms() -> None:
    for language in LANGUAGES:
        for key, entry in read_entries(language).items():
            if any("count" in placeholders(form) for form in entry.forms):
                assert entry.plural, (language, key)


def test_spanish_plural_forms_differ_where_the_english_ones_do() -> None:
    english, spanish = read_entries("en"), read_entries("es")
    for key, entry in english.items():
        if entry.plural and len(set(entry.forms)) > 1:
            assert len(set(spanish[key].forms)) > 1, key


def test_counts_are_worded_with_their_plural_forms() -> None:
    """A record of one game of each kind and of several reads right in each language."""
    from cogs._records import record_text

    es, en, ja = words("es"), words("en"), words("ja")
    assert record_text(es, 1, 1, 1) == "1 ganada, 1 perdida, 1 en tablas"
    assert record_text(es, 2, 0, 3) == "2 ganadas, 0 perdidas, 3 en tablas"
    assert record_text(en, 1, 2, 1) == "1 won, 2 lost, 1 drawn"
    assert record_text(ja, 1, 2, 1) == "1勝2敗1分"
    assert es("play.streak_drawn", count=1) == "1 partida en tablas"
    assert es("tournament.refusal.full", count=1) == "Este torneo está completo (1 jugador)."
    assert (
        es("tournament.format_rounds", format="Suizo", rounds=es("tournament.rounds_count", count=1))
        == "Suizo, 1 ronda"
    )
    assert "1 negras" not in es("render.veloop_draw_confined", black=1, white=1)


# Words a player of the games would misread, by language: each with the reason, as the rulebooks and the
# go, shogi and chess vocabularies use them.
MISREAD = {
    "es": {
        r"\brend(?:irse|iste|ir|ido)\b|\brind": "resigning is abandonar in chess Spanish",
        r"\breclamos\b": "claims read as complaints: the rulebook says tiradores reclamados",
        r"Enhorabuena": "Spain only: the text is for es-ES and es-419 alike",
        r"\w(?:ar|er|ir)le\b": "leísmo",
        r"sin piezas por medio": "shooters fire over shooters in the current edition",
        r"están \{": "a placeholder after están must agree in gender and number",
        r"se rechazaron": "says the member refused, when Discord refused the bot",
    },
    "ja": {
        r"中盤|小盤": "中盤 is the middlegame and 小盤 no word: the boards are 中型 and 小型",
        r"先手|後手": "the second player may become Black: 先手/後手 mislead go and shogi players",
        r"コマ": "stones are 石, pieces 駒: コマ reads as both",
        r"手番を指": "指す takes a move, not a turn",
    },
}


@pytest.mark.parametrize("language", ["es", "ja"])
def test_no_misread_terms(language: str) -> None:
    found = [
        (key, reason)
        for key, entry in read_entries(language).items()
        for form in entry.forms
        for pattern, reason in MISREAD[language].items()
        if re.search(pattern, prose(form))
    ]
    assert found == []


def test_a_resignation_is_not_a_win_without_playing() -> None:
    ja = words("ja")
    assert "不戦" not in ja("result.by_resignation", winner="A")
    assert "不戦勝" in ja("tournament.result.white_forfeit")  # a forfeit is one


def test_labels_joined_in_code_take_the_languages_punctuation() -> None:
    from cogs.tournament.words import bracket_line, image_words

    ja, en = words("ja"), words("en")
    assert image_words(ja).champion == ja("tournament.image.champion") + "："
    assert image_words(en).champion == "Champion: "
    assert bracket_line(ja, "W1-1", "a", "b", None) == "W1-1：a – b"
    assert bracket_line(en, "W1-1", "a", "b", "a") == "W1-1: a – b → **a**"


def test_a_games_command_words_fall_back_to_the_shared_ones() -> None:
    """Veloop's ``board`` is described by the words every game shares; its own key is where it says more."""
    for language in LANGUAGES:
        entries = read_entries(language)
        assert "commands.veloop.board.description" not in entries
        shared = entries["commands.game.board.description"].forms[0]
        assert words(language)("commands.veloop.board.description") == shared
        assert "commands.veloop.board.description" in words(language)
        own = entries["commands.veloop.leaderboard.description"].forms[0]
        assert words(language)("commands.veloop.leaderboard.description") == own
    assert shared_key("commands.veloop.move.move.description") == f"commands.{SHARED_COMMANDS}.move.move.description"
    assert shared_key("commands.player.profile.name") is None and shared_key("board.your_turn") is None


def test_no_games_command_key_copies_its_shared_key() -> None:
    """A game keeps a command key of its own only where it says something else in some language."""
    entries = {language: read_entries(language) for language in LANGUAGES}
    copies = []
    for game in GAMES:
        prefix = f"commands.{game}."
        for key in entries["en"]:
            shared = shared_key(key) if key.startswith(prefix) else None
            same = shared is not None and shared in entries["en"]
            if same and all(entries[lang][key].forms == entries[lang][str(shared)].forms for lang in LANGUAGES):
                copies.append(key)
    assert copies == []
    assert any(key.startswith(f"commands.{SHARED_COMMANDS}.") for key in entries["en"])
