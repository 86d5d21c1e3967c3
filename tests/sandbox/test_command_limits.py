"""Discord's registration limits on application commands, each one over refused and at the limit accepted.

Each body goes over HTTP as discord.py sends a sync (``PUT`` of the whole list, or ``POST`` of one),
and each refusal is Discord's 400 "Invalid Form Body" naming the field as Discord nests it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bot.sandbox import FakeDiscord, limits


@pytest.fixture(params=[True, False], ids=["openapi-and-limits", "limits-alone"])
async def sandbox(request: pytest.FixtureRequest) -> AsyncIterator[FakeDiscord]:
    """The fake with its OpenAPI check (which catches some lengths first) and without it, so ``limits`` holds alone."""
    fake = FakeDiscord(validate=request.param)
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()
    fake.check()


def code_is(sandbox: FakeDiscord, error: dict[str, Any], expected: str) -> bool:
    """Discord's error code; with the OpenAPI check on, a length the schema also bounds is refused by it first."""
    if sandbox.validator is not None and str(error["code"]).startswith("SPEC_"):
        return True
    return error["code"] == expected


async def send(sandbox: FakeDiscord, body: Any, *, method: str = "PUT") -> tuple[int, dict[str, Any] | list[Any]]:
    url = f"{sandbox.api_base}/applications/{sandbox.application_id}/commands"
    headers = {"Authorization": f"Bot {sandbox.token}"}
    async with aiohttp.ClientSession() as session, session.request(method, url, json=body, headers=headers) as r:
        return r.status, await r.json()


async def accepted(sandbox: FakeDiscord, body: Any, *, method: str = "PUT") -> None:
    status, answer = await send(sandbox, body, method=method)
    assert status in (200, 201), answer
    assert sandbox.take_errors() == []


async def refused(sandbox: FakeDiscord, body: Any, *, method: str = "PUT") -> dict[str, Any]:
    """The error answer, with the fake's command list unchanged by the refused request."""
    before = sandbox.commands()
    status, answer = await send(sandbox, body, method=method)
    assert status == 400, answer
    assert isinstance(answer, dict)
    assert sandbox.commands() == before
    assert len(sandbox.take_errors()) == 1
    return answer


def error_at(answer: dict[str, Any], *path: str) -> dict[str, Any]:
    """The one error Discord nests at ``path`` in an Invalid Form Body answer."""
    assert answer["code"] == 50035 and answer["message"] == "Invalid Form Body"
    node = answer["errors"]
    for part in path:
        assert list(node) == [part], node
        node = node[part]
    assert list(node) == ["_errors"], node
    [error] = node["_errors"]
    return dict(error)


def text(length: int, letter: str = "x") -> str:
    return letter * length


def command(**fields: Any) -> dict[str, Any]:
    return {"name": "probe", "description": "a probe", "type": 1, **fields}


def option(name: str = "opt", **fields: Any) -> dict[str, Any]:
    return {"name": name, "description": "an option", "type": 3, **fields}


def sized(total: int) -> dict[str, Any]:
    """A command whose combined size is exactly ``total`` (3,906 to 4,005): 25 options of 100 characters each
    (name and description), 7 choices of 200 (name and value), "probe" and a description making up the rest."""
    options = [option(f"o{i:02d}", description=text(97)) for i in range(25)]
    options[0]["choices"] = [{"name": text(100, "n"), "value": f"{i:02d}" + text(98, "v")} for i in range(7)]
    return command(description=text(total - 5 - 25 * 100 - 7 * 200), options=options)


def test_sized_builds_what_it_says() -> None:
    for total in (3906, 3999, 4000, 4001, 4005):
        assert limits.command_size(sized(total)) == total


async def test_a_command_of_4000_characters_is_accepted_and_4001_refused(sandbox: FakeDiscord) -> None:
    await accepted(sandbox, [sized(4000)])
    assert limits.command_size(sandbox.commands()[0]) == 4000
    answer = await refused(sandbox, [command(name="first"), sized(4001)])
    error = error_at(answer, "1")
    assert error == {"code": "APPLICATION_COMMAND_TOO_LARGE", "message": "Command exceeds maximum size (4000)"}
    answer = await refused(sandbox, sized(4001), method="POST")
    assert error_at(answer)["code"] == "APPLICATION_COMMAND_TOO_LARGE"


async def test_each_field_counts_at_its_longest_localisation(sandbox: FakeDiscord) -> None:
    body = sized(4000)
    # Shorter translations cost nothing more: the English default is the longest.
    body["description_localizations"] = {"ja": text(50, "あ"), "es-ES": text(95, "e")}
    body["options"][1]["name_localizations"] = {"ja": "短い"}
    await accepted(sandbox, [body])
    # One character more in one language (a description, an option's name or description) is one over.
    for where in ("description", "option name", "option description"):
        over = sized(4000)
        if where == "description":
            over["description_localizations"] = {"es-419": text(96, "e")}
        elif where == "option name":
            over["options"][1]["name_localizations"] = {"ja": "ながいな"}  # 4 characters, "o01" has 3
        else:
            over["options"][1]["description_localizations"] = {"es-ES": text(98, "e")}  # 97 in English
        assert limits.command_size(over) == 4001, where
        assert error_at(await refused(sandbox, [over]), "0")["code"] == "APPLICATION_COMMAND_TOO_LARGE", where
    # A choice counts its name (at its longest localisation) and its value.
    under = sized(4000)
    first = under["options"][0]["choices"][0]
    first["name"], first["name_localizations"] = text(99, "n"), {"ja": text(100, "名")}
    assert limits.command_size(under) == 4000
    await accepted(sandbox, [under])
    # A choice of one-character name and two-character value, for two characters less of description: one over,
    # which it would not be if values were not counted.
    over = sized(3998)
    over["options"][0]["choices"].append({"name": "z", "value": "zz"})
    assert error_at(await refused(sandbox, [over]), "0")["code"] == "APPLICATION_COMMAND_TOO_LARGE"


def test_size_per_language_counts_what_those_members_are_shown() -> None:
    body = command(description=text(10), description_localizations={"ja": text(30, "あ"), "es-ES": text(20)})
    assert limits.command_size(body, ["en-US"]) == 5 + 10
    assert limits.command_size(body, ["ja"]) == 5 + 30
    # es-419 has no translation here, so its members see the English default.
    assert limits.command_size(body, ["es-ES", "es-419"]) == 5 + 20
    assert limits.command_size(body) == 5 + 30


@pytest.mark.parametrize(
    ("good", "bad"),
    [
        (text(32), text(33)),
        ("mover-ficha_2", "Mover"),
        ("ñandú", "dos palabras"),
        ("着手", "a.b"),
        ("हिंदी", "x/y"),
        ("l'ordre", ""),
    ],
)
async def test_names_follow_discords_pattern_at_every_level_and_in_every_localisation(
    sandbox: FakeDiscord, good: str, bad: str
) -> None:
    await accepted(sandbox, [command(name=good, options=[option(good, name_localizations={"ja": good})])])
    error = error_at(await refused(sandbox, [command(name=bad)]), "0", "name")
    assert code_is(sandbox, error, "APPLICATION_COMMAND_INVALID_NAME")
    answer = await refused(sandbox, [command(options=[option(bad)])])
    assert code_is(sandbox, error_at(answer, "0", "options", "0", "name"), "APPLICATION_COMMAND_INVALID_NAME")
    answer = await refused(sandbox, [command(options=[option(name_localizations={"es-ES": bad})])])
    error = error_at(answer, "0", "options", "0", "name_localizations", "es-ES")
    # An empty or too long name is refused for its length, before the pattern.
    assert code_is(
        sandbox, error, "APPLICATION_COMMAND_INVALID_NAME" if 1 <= len(bad) <= 32 else "BASE_TYPE_BAD_LENGTH"
    )


async def test_descriptions_are_1_to_100_characters_everywhere(sandbox: FakeDiscord) -> None:
    at_limit = text(100, "d")
    await accepted(
        sandbox,
        [
            command(
                description=at_limit,
                description_localizations={"ja": text(100, "説")},
                options=[option(description=at_limit, description_localizations={"es-ES": at_limit})],
            )
        ],
    )
    over = text(101, "d")
    for body, path in (
        (command(description=over), ("0", "description")),
        (command(options=[option(description=over)]), ("0", "options", "0", "description")),
        (command(options=[option(description="")]), ("0", "options", "0", "description")),
        (
            command(options=[option(description_localizations={"ja": text(101, "説")})]),
            ("0", "options", "0", "description_localizations", "ja"),
        ),
    ):
        assert code_is(sandbox, error_at(await refused(sandbox, [body]), *path), "BASE_TYPE_BAD_LENGTH"), path


async def test_at_most_25_options_sub_commands_and_choices_per_level(sandbox: FakeDiscord) -> None:
    def sub(name: str, options: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        return {"name": name, "description": "a sub-command", "type": 1, "options": options or []}

    def group(name: str, subs: list[dict[str, Any]]) -> dict[str, Any]:
        return {"name": name, "description": "a group", "type": 2, "options": subs}

    def choices(count: int) -> list[dict[str, Any]]:
        return [{"name": f"c{i}", "value": f"c{i}"} for i in range(count)]

    def options(count: int) -> list[dict[str, Any]]:
        return [option(f"o{i}") for i in range(count)]

    at = [
        command(options=options(25)),
        command(name="subs", options=[sub(f"s{i}") for i in range(25)]),
        command(name="groups", options=[group("g", [sub(f"s{i}") for i in range(25)])]),
        command(name="deep", options=[sub("s", options(25))]),
        command(name="choices", options=[option(choices=choices(25))]),
    ]
    await accepted(sandbox, at)
    for body, path in (
        (command(options=options(26)), ("0", "options")),
        (command(options=[sub(f"s{i}") for i in range(26)]), ("0", "options")),
        (command(options=[group("g", [sub(f"s{i}") for i in range(26)])]), ("0", "options", "0", "options")),
        (command(options=[sub("s", options(26))]), ("0", "options", "0", "options")),
        (command(options=[option(choices=choices(26))]), ("0", "options", "0", "choices")),
    ):
        assert code_is(sandbox, error_at(await refused(sandbox, [body]), *path), "BASE_TYPE_MAX_LENGTH"), path


async def test_choice_names_and_values_are_at_most_100_characters(sandbox: FakeDiscord) -> None:
    choice = {"name": text(100, "n"), "value": text(100, "v"), "name_localizations": {"ja": text(100, "名")}}
    await accepted(sandbox, [command(options=[option(choices=[choice])])])
    where = ("0", "options", "0", "choices", "0")
    for field, over in (
        ("name", {"name": text(101, "n")}),
        ("value", {"value": text(101, "v")}),
        ("name", {"name": ""}),
    ):
        body = command(options=[option(choices=[{**choice, **over}])])
        assert code_is(sandbox, error_at(await refused(sandbox, [body]), *where, field), "BASE_TYPE_BAD_LENGTH"), over
    body = command(options=[option(choices=[{**choice, "name_localizations": {"ja": text(101, "名")}}])])
    error = error_at(await refused(sandbox, [body]), *where, "name_localizations", "ja")
    assert code_is(sandbox, error, "BASE_TYPE_BAD_LENGTH")


async def test_at_most_100_chat_input_commands_per_scope(sandbox: FakeDiscord) -> None:
    hundred = [command(name=f"c{i:03d}") for i in range(100)]
    await accepted(sandbox, hundred)
    assert len(sandbox.commands()) == 100
    answer = await refused(sandbox, [*hundred, command(name="c100")])
    assert code_is(sandbox, error_at(answer), "BASE_TYPE_MAX_LENGTH")
    # One more by POST is refused too; replacing one of the hundred by POST is not a new command.
    status, answer = await send(sandbox, command(name="c100"), method="POST")
    assert status == 400 and isinstance(answer, dict) and answer["code"] == 30032
    assert len(sandbox.take_errors()) == 1
    await accepted(sandbox, command(name="c000", description="replaced"), method="POST")
    assert len(sandbox.commands()) == 100
    # User and message commands have their own counts.
    await accepted(sandbox, [*hundred, {"name": "Profile", "type": 2}])
