"""The layers of the code and what may import what: the rules as data, the imports as the files say.

Every module of ``bot/`` and ``cogs/`` is read with ``ast`` (imports at any depth, inside functions and
``if TYPE_CHECKING:`` blocks included) and checked against ``FORBIDDEN`` by ``tests/test_layers.py``.
A new layer is one line in ``FORBIDDEN``; an exception to a rule is one commented line in ``ALLOWED``.

``python -m bot layers`` prints the drawing of the layers (a Mermaid graph GitHub renders, then each
layer's modules by the first line of their docstrings), made from these rules and the modules as they
are; ``--write`` puts it into ``docs/ARCHITECTURE.md`` between its markers, and a test holds the two equal.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "cogs")
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
START, END = "<!-- layers -->", "<!-- /layers -->"

# Which modules (a package prefix) may not import which (a module or package prefix; "discord" covers
# discord.ext, ...). ``"*"`` as the forbidden name is anything of the project outside ``ONLY`` below.
FORBIDDEN: list[tuple[str, tuple[str, ...]]] = [
    ("bot.rules", ("*",)),  # the rules are pure: nothing of the project but bot.rules (see ONLY)
    ("bot.render", ("discord", "bot.store", "bot.db", "cogs")),
    ("bot.ai", ("discord", "bot.store", "bot.db", "cogs")),
    ("bot.puzzles", ("discord", "bot.store", "bot.db", "cogs")),  # pure like the AI: the miner's store part is outside
    ("bot.tournaments", ("discord", "bot.store", "bot.db", "cogs")),
    ("bot.ratings", ("discord", "bot.store", "bot.db", "cogs")),
    ("bot.store", ("discord", "cogs")),
    ("bot.store.values", ("discord", "cogs", "bot.db", "bot.store")),  # plain values, none of the machinery
    ("bot.db", ("discord", "cogs", "bot.store")),
    ("bot", ("cogs",)),  # the client loads cogs by name (strings: EXTENSIONS, descriptors), never by import
    ("bot.sandbox", ("cogs", "bot.store")),
    ("bot.clocks", ("discord", "bot.store", "bot.db", "cogs")),  # pure time controls
    ("bot.tournament_flow", ("discord", "bot.db", "cogs")),  # Discord- and SQL-free
    ("bot.scheduler", ("discord", "cogs")),  # Discord-free
    ("bot.i18n", ("bot.store", "bot.db", "cogs")),  # catalogues; bot.i18n.commands alone speaks discord.py
    ("bot.board", ("discord", "cogs")),  # the board page's server: a peer of the cogs that speaks no Discord
]
# For a "*" rule: the only part of the project that layer may import.
ONLY: dict[str, str] = {"bot.rules": "bot.rules"}

# Explicit exceptions, (importer, imported), each with its reason. Empty: none is needed today.
ALLOWED: set[tuple[str, str]] = set()


def under(name: str, prefix: str) -> bool:
    """Whether a dotted name is the prefix itself or inside it."""
    return name == prefix or name.startswith(prefix + ".")


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the project by dotted name (a package by its own name), with its file."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported_names(module: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
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
                if f"{source}.{alias.name}" in modules:
                    yield f"{source}.{alias.name}"


def project_imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Each module's imported names, as ``imported_names`` reads them."""
    return {module: set(imported_names(module, path, modules)) for module, path in modules.items()}


def project_module(name: str, modules: dict[str, Path]) -> str | None:
    """The project module an imported name is (the longest known prefix), or None outside the project."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def violations(imports: dict[str, set[str]], modules: dict[str, Path]) -> list[str]:
    """Each import that breaks a rule of ``FORBIDDEN`` (and is not in ``ALLOWED``), worded for a reader."""
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
                        bad = project_module(name, modules) is not None and not under(name, ONLY[layer])
                    else:
                        bad = under(name, target)
                    if bad:
                        found.append(f"{module} imports {name} ({layer} may not import {target})")
    return found


def project_graph(imports: dict[str, set[str]], modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module to the project modules it imports."""
    graph: dict[str, set[str]] = {}
    for module, names in imports.items():
        targets = {target for name in names if (target := project_module(name, modules)) is not None}
        # A package's own ``__init__`` is imported on the way to any submodule: not an edge worth a cycle.
        graph[module] = {t for t in targets if t != module and not under(module, t)}
    return graph


# The drawing.

EXTERNAL = "discord"  # the one outside package the layers are about


def units(modules: dict[str, Path]) -> list[str]:
    """The boxes of the drawing: each layer with a rule, each package and module directly under ``bot/``,
    and ``cogs``; ``bot`` itself holds only the package's ``__init__``."""
    found = {layer for layer, _ in FORBIDDEN} | {"cogs"}
    found |= {name for name in modules if name.startswith("bot.") and name.count(".") == 1}
    return sorted(found, key=lambda unit: (unit == "bot", unit))


def unit_of(module: str, boxes: list[str]) -> str:
    """The most specific box a module falls in."""
    return max((box for box in boxes if under(module, box)), key=len)


def first_line(path: Path) -> str:
    """The first line of a module's docstring (empty when it has none)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return doc.strip().splitlines()[0] if doc else ""


def _node(unit: str) -> str:
    return re.sub(r"\W", "_", unit)


def drawing(root: Path = ROOT) -> str:
    """The layers as Markdown: a Mermaid graph of which boxes import which (as the code does today,
    every edge allowed by the rules), the rules themselves, and each box's modules."""
    modules = module_files(root)
    imports = project_imports(modules)
    boxes = units(modules)
    graph = project_graph(imports, modules)
    edges: set[tuple[str, str]] = set()
    for module, targets in graph.items():
        for target in targets:
            source, sink = unit_of(module, boxes), unit_of(target, boxes)
            if source != sink:
                edges.add((source, sink))
    for module, names in imports.items():
        if any(under(name, EXTERNAL) for name in names):
            edges.add((unit_of(module, boxes), EXTERNAL))
    rules = dict(FORBIDDEN)
    lines = [
        "```mermaid",
        "flowchart TD",
        *(f'    {_node(box)}["{box}"]' for box in boxes),
        f'    {_node(EXTERNAL)}(["{EXTERNAL} (discord.py)"])',
        *(f"    {_node(a)} --> {_node(b)}" for a, b in sorted(edges)),
        "```",
        "",
        "An arrow is an import the code makes today; every one is allowed by the rules below. "
        "A box with no rule of its own keeps `bot`'s.",
        "",
        "| layer | may not import |",
        "|---|---|",
    ]
    for layer, forbidden in FORBIDDEN:
        said = ", ".join(
            f"anything of the project outside `{ONLY[layer]}`" if target == "*" else f"`{target}`"
            for target in forbidden
        )
        lines.append(f"| `{layer}` | {said} |")
    exceptions = ", ".join(f"`{a}` → `{b}`" for a, b in sorted(ALLOWED)) or "none"
    lines += ["", f"Exceptions (`ALLOWED`): {exceptions}.", ""]
    for box in boxes:
        members = sorted(name for name in modules if unit_of(name, boxes) == box)
        if not members:
            continue
        rule = "" if box in rules else " (the rules of `bot`)"
        lines += [f"**`{box}`**{rule}", "", "| module | what it is |", "|---|---|"]
        for name in members:
            text = first_line(modules[name]).replace("|", "\\|")
            lines.append(f"| `{name}` | {text} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def block_of(text: str) -> str | None:
    """What the document holds between the markers, or None without them."""
    match = re.search(re.escape(START) + r"\n(.*?)" + re.escape(END), text, re.S)
    return match.group(1) if match else None


def write(path: Path = ARCHITECTURE) -> None:
    """Put the drawing between the document's markers (which must be there)."""
    text = path.read_text(encoding="utf-8")
    if block_of(text) is None:
        raise ValueError(f"{path} has no {START} ... {END} markers")
    block = f"{START}\n{drawing()}{END}"
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.S)
    path.write_text(pattern.sub(lambda _m: block, text), encoding="utf-8")


def main(args: list[str]) -> int:
    """``python -m bot layers [--write]``: print the drawing, or write it into docs/ARCHITECTURE.md."""
    if args == ["--write"]:
        write()
        print(f"Wrote the layers into {ARCHITECTURE}")
        return 0
    if args:
        print("veletas-bot: usage: python -m bot layers [--write]", file=sys.stderr)
        return 2
    print(drawing(), end="")
    return 0
