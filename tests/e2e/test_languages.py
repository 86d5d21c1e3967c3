"""Spanish and Japanese members play whole games, and no English reaches them.

Private answers follow the member's own Discord language (the interaction's ``locale``); what the
whole server reads (challenges, boards) follows the server: its preferred locale in Discord, or the
language its managers chose with ``/settings language:``. Every message, embed, button
label and menu a member of these servers sees is checked against the fixed fragments of the English
catalogue: none may appear.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.client import VeletasBot
from bot.i18n import LANGUAGES, read_entries, words
from bot.rules import Game
from bot.rules.veloop import Game as VeloopGame
from bot.sandbox.server import FakeDiscord
from bot.sandbox.state import Member, Message
from bot.sandbox.users import SandboxUser
from e2e.table import random_setup_turn, split_setup

PLACEHOLDER = re.compile(r"\{[a-z_]+\}")
TWO_WORDS = re.compile(r"[A-Za-z]{3,}[ ,'’]+[A-Za-z]{2,}")


def english_fragments() -> set[str]:
    """The English catalogue's fixed text (between placeholders) of two words or more, lowercased, that no
    other language's catalogue shares (the games' names, notation and numbers are the same everywhere)."""
    others = " ".join(
        PLACEHOLDER.sub(" ", form).lower()
        for language in LANGUAGES
        if language != "en"
        for entry in read_entries(language).values()
        for form in entry.forms
    )
    found = set()
    for entry in read_entries("en").values():
        if entry.area == "commands":
            continue  # command names and descriptions are Discord's to show, never in messages
        for form in entry.forms:
            for piece in PLACEHOLDER.split(form):
                for part in re.split(r"[*`~\n()]+", piece):
                    text = part.strip(" .,:;·—-").lower()
                    if TWO_WORDS.search(text) and text not in others:
                        found.add(text)
    return found


ENGLISH = english_fragments()


def english_words() -> re.Pattern[str]:
    """Single-word English messages (field names, button labels: "Players", "Rematch") no other language uses."""
    others = {
        word.lower()
        for language in LANGUAGES
        if language != "en"
        for entry in read_entries(language).values()
        for form in entry.forms
        for word in re.findall(r"[A-Za-z]+", PLACEHOLDER.sub(" ", form))
    }
    single = {
        form.strip().lower()
        for entry in read_entries("en").values()
        if entry.area != "commands"
        for form in entry.forms
        if re.fullmatch(r"[A-Za-z]{4,}", form.strip())
    }
    return re.compile(r"\b(" + "|".join(sorted(single - others)) + r")\b", re.I)


SINGLE_WORDS = english_words()


def seen_texts(message: Message) -> list[str]:
    """Everything a member reads on a message: content, embeds, buttons, menus and their options."""
    texts = [message.text()]
    for row in message.components:
        for item in row.get("components") or []:
            texts.extend(str(item.get(key) or "") for key in ("label", "placeholder"))
            for option in item.get("options") or []:
                texts.extend(str(option.get(key) or "") for key in ("label", "description"))
    return [t for t in texts if t]


ENGLISH_WORDS = re.compile(r"\b(the|you|your|this|with|and|is|are|not|has|move|turn|game|board|wins)\b", re.I)
NOT_PROSE = re.compile(r"`[^`]*`|https?://\S+|<[@#:!&]?[^>]*>|\[[^\]]*\]\([^)]*\)")


def english_in(texts: list[str]) -> list[str]:
    """English the catalogue has, and (a second net for text that never went through it) English words."""
    found = [fragment for text in texts for fragment in ENGLISH if fragment in text.lower()]
    for text in texts:
        prose = NOT_PROSE.sub(" ", text)
        found += [match.group(0) for match in ENGLISH_WORDS.finditer(prose)]
        found += [match.group(0) for match in SINGLE_WORDS.finditer(prose)]
    return found


def assert_no_english(fake: FakeDiscord, members: list[Member], channels: list[int]) -> int:
    """Every message these members can see in these channels is free of English; returns how many were read."""
    ids = {m.id for m in members}
    read = 0
    for channel in channels:
        for message in fake.messages(channel):
            if message.ephemeral and message.visible_to not in ids:
                continue
            leaked = english_in(seen_texts(message))
            assert not leaked, (leaked, message.text())
            read += 1
    return read


def in_language(text: str, language: str) -> bool:
    """Whether a text is visibly written in ``language`` (Japanese kana, or Spanish's own letters and words)."""
    if language == "ja":
        return bool(re.search(r"[\u3040-\u30ff]", text))
    return bool(re.search(r"[áéíóúñ¿¡]|\b(tu|tus|el|la|los|las|de|del|con|para|no es)\b", text.lower()))


def test_the_english_fragments_are_many_and_the_check_bites() -> None:
    assert len(ENGLISH) > 300
    assert english_in(["It is <@1>'s turn, not yours."])
    assert not english_in([words("es")("refusal.not_your_turn_of", who="<@1>")])
    assert not english_in([words("ja")("refusal.not_your_turn_of", who="<@1>")])
    assert english_in(["Sorry, your move"]), "English outside the catalogue is caught too"
    assert english_in(["Rematch"]) and english_in(["Players"]), "single words of the catalogue too"
    assert not english_in(["Veloop #3 · 5×5"]), "names of games and notation are not English"


async def refusal(user: SandboxUser, *path: str, **options: Any) -> Message:
    answer = await user.slash(*path, **options)
    assert answer.ephemeral, answer.text()
    return answer


async def play_veletas(fake: FakeDiscord, first: SandboxUser, second: SandboxUser, rng: random.Random) -> Game:
    """A whole small-board Veletas game, typed, from the board the challenge started; returns the end."""
    game = Game.new("small", rules="current")
    users = {"first": first, "second": second}
    guided = False
    while game.winner is None:
        played: Message | None = None
        seat = game.seat_to_act
        assert seat is not None
        user = users[seat]
        if game.phase in ("setup", "pie"):
            text = random_setup_turn(game, rng)
            if game.phase == "setup":
                played = await user.slash("veletas", "setup", **split_setup(text))
            else:
                played = await user.slash("veletas", "pie", choice=text)
        elif not guided:
            # One move by the Move button's private steps, in the member's own language.
            board = fake.messages(user.channel_id, include_ephemeral=False)[-1]
            step = await user.click(board, "Mover" if user.member.locale.startswith("es") else "着手")
            assert step.ephemeral and in_language(step.text(), language_of_member(user.member)), step.text()
            position = game.position
            shooter = next(s for s in position.unclaimed() if position.targets(s))
            step = await user.select(step, shooter)
            step = await user.select(step, "stay")
            target = position.targets(shooter)[0]
            step = await user.select(step, target)
            confirm = next(b["label"] for b in step.buttons if b["custom_id"].split(":")[1] == "gc")
            cursor = fake.cursor()
            await user.click(step, confirm)
            # The board follows the private "you played" answer; the opponent answers the board once it is out.
            await fake.wait_for_message(user.channel_id, lambda m: not m.ephemeral and bool(m.embeds), after=cursor)
            text = target
            guided = True
        else:
            text = str(rng.choice(game.position.legal_moves()))
            played = await user.slash("veletas", "move", move=text)
        assert played is None or not played.ephemeral, played.text()
        game = game.play(text)
    return game


def language_of_member(member: Member) -> str:
    return "ja" if member.locale == "ja" else "es"


async def test_spanish_members_play_a_whole_veletas_game_without_a_word_of_english(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    await sandbox.set_guild_locale("es-ES")
    alice.locale, bob.locale, carol.locale = "es-419", "es-ES", "ja"
    ana, beto = sandbox.user(alice), sandbox.user(bob)

    # Refusals before any game: no game here, a challenge to oneself, a clock that does not read,
    # a stale client's choice, a command for managers only.
    no_game = await refusal(ana, "veletas", "board")
    assert in_language(no_game.text(), "es") and "/veletas desafiar" in no_game.text(), no_game.text()
    await refusal(ana, "veletas", "challenge", opponent=alice)
    await refusal(ana, "veletas", "challenge", opponent=bob, time="pronto")
    await refusal(ana, "veletas", "challenge", opponent=bob, unchecked=True, variant="huge")
    await refusal(ana, "veletas", "cancel")

    challenge = await ana.slash("veletas", "challenge", opponent=bob, variant="small", where="here")
    assert not challenge.ephemeral and "desafía" in challenge.content, challenge.content
    assert [b["label"] for b in challenge.buttons] == ["Aceptar", "Rechazar"]
    cursor = sandbox.cursor()
    await beto.click(challenge, "Aceptar")
    board = await sandbox.wait_for_message(predicate=lambda m: bool(m.embeds), after=cursor)
    assert "Preparación" not in board.text() and "coloca" in board.text(), board.text()
    channel = board.channel_id

    # Refusals during the game: the wrong phase, not your turn, the rules', an outsider (in Japanese:
    # private answers follow the member's own language), nothing to take back.
    await refusal(ana, "veletas", "move", move="a1")
    await refusal(beto, "veletas", "setup", shooters="b2")
    rules_said = await refusal(ana, "veletas", "setup", shooters="a1")
    assert "borde" in rules_said.content, rules_said.content
    outsider = await refusal(sandbox.user(carol), "veletas", "setup", shooters="c3")
    assert in_language(outsider.content, "ja"), outsider.content
    await refusal(ana, "veletas", "undo")

    game = await play_veletas(sandbox, ana, beto, random.Random(7))
    assert game.winner is not None
    final = sandbox.messages(channel, include_ephemeral=False)[-1]
    assert "Gana" in final.text() and "Partida terminada tras" in final.text(), final.text()
    assert [b["label"] for b in final.buttons] == ["Revancha", "Revisión"]
    late = await refusal(ana, "veletas", "move", move="a1")
    assert in_language(late.content, "es"), late.content

    rules = await ana.slash("veletas", "rules", edition="classic")
    assert "tiradores" in rules.content and "clásicas" in rules.content
    exported = await ana.slash("veletas", "export")
    assert "registro" in exported.content and any(name.endswith(".txt") for name in exported.files)
    record = next(data for name, data in exported.files.items() if name.endswith(".txt")).decode()
    assert '[Game "veletas"]' in record and "[Result " in record, "record headers stay as NOTATION.md says"

    # Everything else a member may ask for, after a game: lists, ratings, profile, history, theme, notices,
    # analysis (refused here: this bot runs without its AI), and the rematch its board offers.
    for path, options in [
        (("veletas", "games"), {}),
        (("veletas", "leaderboard"), {"variant": "small"}),
        (("player", "profile"), {}),
        (("player", "history"), {}),
        (("player", "profile"), {"game": "veloop"}),
        (("player", "theme"), {"choice": "dark"}),
        (("player", "theme"), {}),
        (("player", "notify"), {"how": "both", "reminders": "off"}),
        (("veletas", "analyze"), {}),
        (("veloop", "rules"), {}),
    ]:
        answer = await refusal(ana, *path, **options)
        assert in_language(answer.text(), "es"), (path, answer.text())
    history = await ana.slash("player", "history")
    assert any(select.get("placeholder") == "Exporta una de estas partidas" for select in history.selects)
    rematch = await beto.click(final, "Revancha")
    assert not rematch.ephemeral and "desafía" in rematch.text(), rematch.text()
    assert [b["label"] for b in rematch.buttons] == ["Aceptar", "Rechazar"], rematch.text()

    read = assert_no_english(sandbox, [alice, bob, carol], [sandbox.channel_id, channel])
    assert read > 60


async def play_veloop(user_of: dict[str, SandboxUser], rng: random.Random) -> VeloopGame:
    game = VeloopGame.new(5, "alternating")
    while not game.position.is_over:
        colour = game.position.to_move
        moves = game.position.legal_moves()
        move = rng.choice(moves)
        if not move.is_pass:
            await user_of[colour].slash("veloop", "move", move=str(move))
        game = game.play(move)
    return game


@pytest.mark.slow
async def test_japanese_members_play_a_whole_veloop_game_and_the_server_setting_wins(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    alice.locale, bob.locale = "ja", "ja"
    # The server's Discord language is English; its managers chose Japanese for the bot's posts.
    await sandbox.grant(carol, "manage_guild")
    carol.locale = "ja"
    chosen = await sandbox.user(carol).slash("settings", language="ja")
    assert chosen.ephemeral and "日本語" in chosen.content, chosen.content
    hanako, taro = sandbox.user(alice), sandbox.user(bob)

    challenge = await hanako.slash("veloop", "challenge", opponent=bob, board="5", protocol="alternating", where="here")
    assert not challenge.ephemeral and "挑戦" in challenge.content, challenge.content
    cursor = sandbox.cursor()
    await taro.click(challenge, "受諾")
    board = await sandbox.wait_for_message(predicate=lambda m: bool(m.embeds), after=cursor)
    assert "手番" in board.text(), board.text()
    assert [b["label"] for b in board.buttons] == ["着手"]

    # Refusals of each kind: not your turn, the rules' (not a move, no support, knight's leap), a stale
    # client's choice, an outsider, nothing to take back.
    await refusal(taro, "veloop", "move", move="a1<b3")
    for text in ("zz", "a1<a2", "c3<c4"):
        said = await refusal(hanako, "veloop", "move", move=text)
        assert in_language(said.content, "ja"), said.content
    await refusal(hanako, "veloop", "leaderboard", unchecked=True, board="9")
    await refusal(sandbox.user(carol), "veloop", "move", move="a1<b3")
    await refusal(hanako, "veloop", "undo")
    choices = await hanako.autocomplete("veloop", "move", move="")
    assert choices and all("入れ替え" in c["name"] for c in choices), choices

    rng = random.Random(3)
    game = await play_veloop({"black": hanako, "white": taro}, rng)
    final = sandbox.messages(sandbox.channel_id, include_ephemeral=False)[-1]
    assert "終局" in final.text(), final.text()
    assert game.position.result is not None
    rules = await hanako.slash("veloop", "rules")
    assert "封じ込め" in rules.content
    for path, options in (
        (("veloop", "leaderboard"), {}),
        (("player", "profile"), {}),
        (("player", "history"), {"game": "veloop"}),
        (("veloop", "export"), {}),
    ):
        answer = await refusal(hanako, *path, **options)
        assert in_language(answer.text(), "ja"), (path, answer.text())

    # A Spanish member in the same server reads their own answers in Spanish, the boards in Japanese.
    bob.locale = "es-419"
    spanish = await refusal(taro, "veloop", "move", move="a1<b3")
    assert in_language(spanish.content, "es"), spanish.content
    assert_no_english(sandbox, [alice, bob, carol], [sandbox.channel_id])


async def test_public_posts_follow_the_servers_locale_until_a_manager_chooses(
    sandbox: FakeDiscord, bot: VeletasBot, alice: Member, bob: Member, carol: Member
) -> None:
    alice.locale = "en-US"
    await sandbox.set_guild_locale("es-419")
    challenge = await sandbox.user(alice).slash("veletas", "challenge", opponent=bob, variant="small", where="here")
    assert "desafía" in challenge.content, "an English member's public challenge is in the server's Spanish"
    private = await sandbox.user(alice).slash("veletas", "rules")
    assert "shooters" in private.content, "their private answer is in their own English"
    await sandbox.grant(carol, "manage_guild")
    await sandbox.user(carol).slash("settings", language="en")
    other = sandbox.add_text_channel("english")
    again = await sandbox.user(carol, channel_id=other).slash(
        "veletas", "challenge", opponent=alice, variant="small", where="here"
    )
    assert "challenges" in again.content, again.content
    await sandbox.user(carol).slash("settings", language="auto")
    shown = await sandbox.user(carol).slash("settings")
    assert "Español" in shown.content and "server's language in Discord" in shown.content, shown.content


async def test_lists_are_joined_each_languages_way(sandbox: FakeDiscord, bot: VeletasBot, alice: Member) -> None:
    """Lists in messages use the catalogue's separators: Japanese joins with 、 and has no semicolons."""
    await sandbox.set_guild_locale("ja")
    alice.locale = "ja"
    hanako = sandbox.user(alice)
    summary = (await hanako.slash("veletas", "rules")).text()
    prose = NOT_PROSE.sub(" ", summary)
    assert "7個中4個、" in prose and "5個中3個、" in prose, summary  # each board's shooters to win, listed
    assert not re.search(r"[;；]|, ", prose), summary
    # The boards are named as boards (中型・小型; 中盤 is the middlegame), stones are 石, pieces 駒.
    assert "中型盤 9×9" in prose and "小型盤 7×7" in prose and "中盤" not in prose, summary
    assert "中立の駒" in prose and "コマ" not in prose, summary
    # A stale client's value outside the choices: the choices are offered, listed the reader's way.
    refused = await refusal(hanako, "player", "theme", choice="sepia", unchecked=True)
    assert "`light`、`dark`、`contrast`" in refused.content, refused.content
    alice.locale = "es-ES"
    refused = await refusal(hanako, "player", "theme", choice="sepia", unchecked=True)
    assert "`light`, `dark`, `contrast`" in refused.content, refused.content


async def test_the_language_setting_shows_a_full_example_of_another_language(
    sandbox: FakeDiscord, bot: VeletasBot, carol: Member
) -> None:
    await sandbox.grant(carol, "manage_guild")
    shown = await sandbox.user(carol).slash("settings")
    line = next(line for line in shown.content.split("\n") if line.startswith("**Language**"))
    assert "**English (" in line and "`/settings language:Español`" in line, line
    assert "language:`" not in line, "never an empty example"
    await sandbox.user(carol).slash("settings", language="es")
    spanish = await sandbox.user(carol).slash("settings")
    assert "`/settings language:English`" in spanish.content, spanish.content
