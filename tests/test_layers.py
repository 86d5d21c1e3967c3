"""The imports run one way: every module of ``bot/`` and ``cogs/`` is read with ``ast`` (imports at any depth,
inside functions and ``if TYPE_CHECKING:`` blocks included) and checked against the layers below.

A new layer is one line in ``FORBIDDEN``; an exception to a rule is one commented line in ``ALLOWED``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "cogs")

# Which modules (a package prefix) may not import which (a module or package prefix; "discord" covers
# discord.ext, ...). ``"*"`` as the forbidden name is anything of the project outside ``ONLY`` below.
FORBIDDEN: list[tuple[str, tuple[str, ...]]] = [
    ("bot.rules", ("*",)),  # the rules are pure: nothing of the project but bot.rules (see ONLY)
    ("bot.render", ("discord", "bot.store", "bot.db", "cogs")),
    ("bot.ai", ("discord", "bot.store", "bot.db", "cogs")),
    ("bot.tournaments", ("discord", "bot.store", "bot.db", "cogs")),
    ("bot.ratings", ("discord", "bot.store", "bot.db", "cogs")),
    ("bot.store", ("discord", "cogs")),
    ("bot.db", ("discord", "cogs", "bot.store")),
    ("bot", ("cogs",)),  # the client loads cogs by name (strings in EXTENSIONS), never by import
    ("bot.sandbox", ("cogs", "bot.store")),
    ("bot.clocks", ("discord", "bot.store", "bot.db", "cogs")),  # pure time controls
    ("bot.tournament_flow", ("discord", "bot.db", "cogs")),  # Discord- and SQL-free (README)
    ("bot.scheduler", ("discord", "cogs")),  # Discord-free (README)
    ("bot.i18n", ("bot.store", "bot.db", "cogs")),  # catalogues; bot.i18n.commands alone speaks discord.py
]
# For a "*" rule: the only part of the project that layer may import.
ONLY: dict[str, str] = {"bot.rules": "bot.rules"}

# Explicit exceptions, (importer, imported), each with its reason. Empty: none is needed today.
ALLOWED: set[tuple[str, str]] = set()


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def module_files() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = module_files()


def imported_names(module: str, path: Path) -> Iterator[str]:
    """Every module name an import in the file names, absolute, at any depth of the tree."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            yield source
            for alias in node.names:  # ``from bot import render`` imports the module bot.render
                if f"{source}.{alias.name}" in MODULES:
                    yield f"{source}.{alias.name}"


def project_module(name: str) -> str | None:
    """The project module an imported name is (the longest known prefix), or None outside the project."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in MODULES:
            return candidate
    return None


IMPORTS: dict[str, set[str]] = {module: set(imported_names(module, path)) for module, path in MODULES.items()}


def violations(imports: dict[str, set[str]]) -> list[str]:
    found = []
    for module, names in sorted(imports.items()):
        for name in sorted(names):
            if (module, name) in ALLOWED:
                continue
            for layer, forbidden in FORBIDDEN:
                if not under(module, layer):
                    continue
                for target in forbidden:
                    if target == "*":
                        bad = project_module(name) is not None and not under(name, ONLY[layer])
                    else:
                        bad = under(name, target)
                    if bad:
                        found.append(f"{module} imports {name} ({layer} may not import {target})")
    return found


def project_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, names in IMPORTS.items():
        targets = {target for name in names if (target := project_module(name)) is not None}
        # A package's own ``__init__`` is imported on the way to any submodule: not an edge worth a cycle.
        graph[module] = {t for t in targets if t != module and not under(module, t)}
    return graph


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
    assert violations(wrong) == [
        "bot.client imports cogs._words (bot may not import cogs)",
        "bot.db.sqlite imports bot.store (bot.db may not import bot.store)",
        "bot.render.canvas imports discord.ext.commands (bot.render may not import discord)",
        "bot.rules.veletas imports bot.i18n (bot.rules may not import *)",
        "bot.sandbox.server imports bot.store (bot.sandbox may not import bot.store)",
    ]


def test_the_client_loads_cogs_by_name() -> None:
    from bot.client import EXTENSIONS

    assert EXTENSIONS and all(name.startswith("cogs.") and name in MODULES for name in EXTENSIONS)


def test_no_import_runs_the_wrong_way() -> None:
    assert violations(IMPORTS) == []


def test_no_import_cycle() -> None:
    assert cycles(project_graph()) == []
