"""The imports run one way: every module of ``bot/`` and ``cogs/`` is checked against the layers of
``bot/layers.py`` (the rules are data at its top), and the drawing in docs/ARCHITECTURE.md is the one
``python -m bot layers`` makes.
"""

from __future__ import annotations

import pytest

from bot.layers import (
    ARCHITECTURE,
    block_of,
    drawing,
    module_files,
    project_graph,
    project_imports,
    under,
    violations,
)

MODULES = module_files()
IMPORTS = project_imports(MODULES)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_walk_sees_every_kind_of_import() -> None:
    assert {"bot.store", "bot.db.postgres", "bot.rules.veletas", "cogs._words", "bot.client"} <= set(MODULES)
    # a top-level import, an import inside a function, and a relative-free ``from bot import x``
    assert "discord" in IMPORTS["bot.client"]
    assert {"bot.sandbox.limits", "bot.render"} <= IMPORTS["bot.client"]  # inside functions; ``from bot import render``
    assert {"bot.rules.common", "bot.rules.protocol"} <= IMPORTS["bot.rules.veletas.game"]


def test_the_checks_catch_what_they_are_meant_to() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    wrong = {
        "bot.rules.veletas": {"bot.rules.common", "bot.i18n", "random"},
        "bot.render.canvas": {"discord.ext.commands", "bot.rules"},
        "bot.db.sqlite": {"bot.store"},
        "bot.client": {"cogs._words", "bot.store"},
        "bot.sandbox.server": {"bot.store"},
    }
    assert violations(wrong, MODULES) == [
        "bot.client imports cogs._words (bot may not import cogs)",
        "bot.db.sqlite imports bot.store (bot.db may not import bot.store)",
        "bot.render.canvas imports discord.ext.commands (bot.render may not import discord)",
        "bot.rules.veletas imports bot.i18n (bot.rules may not import *)",
        "bot.sandbox.server imports bot.store (bot.sandbox may not import bot.store)",
    ]


def test_the_client_loads_cogs_by_name() -> None:
    from bot.client import extensions

    assert extensions() and all(name.startswith("cogs.") and name in MODULES for name in extensions())


def test_no_import_runs_the_wrong_way() -> None:
    assert violations(IMPORTS, MODULES) == []


def test_no_import_cycle() -> None:
    assert cycles(project_graph(IMPORTS, MODULES)) == []


@pytest.mark.slow
def test_the_architecture_drawing_is_the_commands() -> None:
    """docs/ARCHITECTURE.md shows the layers as ``python -m bot layers`` draws them from the code today."""
    block = block_of(ARCHITECTURE.read_text(encoding="utf-8"))
    assert block is not None, "docs/ARCHITECTURE.md lost its <!-- layers --> markers"
    assert block == drawing(), "docs/ARCHITECTURE.md's drawing is stale: run `python -m bot layers --write`"


def test_each_built_in_games_descriptor_names_its_parts_in_their_layers() -> None:
    """Its strings name a drawer of bot.render, an AI of bot.ai, a cog of cogs and an adapter of bot.rules."""
    from bot.render.game_drawer import Drawer
    from bot.rules.registry import BUILT_IN, DESCRIPTORS, load

    for name in BUILT_IN:
        descriptor = DESCRIPTORS[name]
        assert under(descriptor.drawer.partition(":")[0], "bot.render") and under(descriptor.cog, "cogs")
        assert under(descriptor.ai.partition(":")[0], "bot.ai") and under(descriptor.cli.partition(":")[0], "bot.rules")
        drawer = load(descriptor.drawer)
        assert isinstance(drawer, Drawer) and drawer.game == name
        assert callable(load(descriptor.ai)) and callable(load(descriptor.cli).replay)
        assert descriptor.cog in MODULES
