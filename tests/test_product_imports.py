"""The product never needs the dev extra: no module under ``bot/`` or ``cogs/`` imports what only it installs.

``scripts/run`` (and the Dockerfile) install the product without the dev extra, so such an import ends the
run in ``ModuleNotFoundError``. The packages are read from ``pyproject.toml``, never listed here by hand.
"""

from __future__ import annotations

import importlib.metadata
import pkgutil
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import bot
import cogs

ROOT = Path(__file__).resolve().parents[1]


def product_modules() -> list[str]:
    found = [m.name for m in pkgutil.walk_packages(bot.__path__, prefix="bot.")]
    found += [m.name for m in pkgutil.walk_packages(cogs.__path__, prefix="cogs.")]
    return sorted(name for name in found if not name.endswith("__main__"))


def test_every_product_module_is_walked() -> None:
    names = product_modules()
    # The fake Discord stays in the product (the local table runs on it); its pytest fixtures do not.
    assert "bot.sandbox.server" in names and "cogs.veloop" in names
    assert not any(name.endswith("pytest_plugin") for name in names)


def dev_extra() -> list[str]:
    """The distributions of the ``dev`` extra, as ``pyproject.toml`` declares them."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    requirements = declared["project"]["optional-dependencies"]["dev"]
    return [re.match(r"[A-Za-z0-9._-]+", requirement).group(0) for requirement in requirements]  # type: ignore[union-attr]


def importable_names(distribution: str) -> set[str]:
    """The top-level modules a distribution installs (``_pytest`` and ``py`` for pytest, none for stubs)."""
    names = set()
    for file in importlib.metadata.distribution(distribution).files or []:
        top = file.parts[0]
        if top.endswith((".dist-info", ".data")) or top in ("..", "__pycache__"):
            continue
        name = top.split(".")[0] if len(file.parts) == 1 else top
        if name.isidentifier() and (len(file.parts) > 1 or file.suffix in (".py", ".so", ".pyd")):
            names.add(name)
    return names


def test_every_dev_package_is_known_by_its_modules() -> None:
    found = {distribution: importable_names(distribution) for distribution in dev_extra()}
    assert {"pytest", "jsonschema"} & set(found) == {"pytest"}, "the local table needs jsonschema: not dev-only"
    assert "_pytest" in found["pytest"] and "pytest_asyncio" in found["pytest-asyncio"]
    assert "playwright" in found["playwright"] and "hypothesis" in found["hypothesis"]
    # A stub package installs nothing importable; anything else must name what it installs, or it goes unchecked.
    assert all(names or distribution.endswith("-stubs") for distribution, names in found.items()), found


@pytest.mark.slow
def test_importing_every_product_module_loads_no_dev_package() -> None:
    tools = sorted(set().union(*(importable_names(distribution) for distribution in dev_extra())))
    script = (
        "import importlib, sys\n"
        f"for name in {product_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        f"tools = {tools!r}\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in tools)\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    assert result.stdout.strip() == "", f"product modules pulled in dev-only packages: {result.stdout.strip()}"
