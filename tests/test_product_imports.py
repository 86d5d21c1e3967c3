"""The product never needs the test tools: no module under ``bot/`` or ``cogs/`` imports pytest."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import bot
import cogs


def product_modules() -> list[str]:
    found = [m.name for m in pkgutil.walk_packages(bot.__path__, prefix="bot.")]
    found += [m.name for m in pkgutil.walk_packages(cogs.__path__, prefix="cogs.")]
    return sorted(name for name in found if not name.endswith("__main__"))


def test_every_product_module_is_walked() -> None:
    names = product_modules()
    # The fake Discord stays in the product (the local table runs on it); its pytest fixtures do not.
    assert "bot.sandbox.server" in names and "cogs.veloop" in names
    assert not any(name.endswith("pytest_plugin") for name in names)


def test_importing_every_product_module_loads_no_test_tool() -> None:
    script = (
        "import importlib, sys\n"
        f"for name in {product_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "tools = ('pytest', '_pytest', 'hypothesis', 'playwright')\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in tools)\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    assert result.stdout.strip() == "", f"product modules pulled in test tools: {result.stdout.strip()}"
