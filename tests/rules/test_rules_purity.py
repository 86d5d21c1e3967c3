"""bot.rules stays pure: importing any of its modules pulls in no Discord, database, imaging or asyncio."""

import pkgutil
import subprocess
import sys

import bot.rules


def rules_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(bot.rules.__path__, prefix="bot.rules."))


def test_every_rules_module_is_found() -> None:
    found = rules_modules()
    for name in ("bot.rules.veletas", "bot.rules.veloop", "bot.rules.protocol", "bot.rules.registry"):
        assert name in found


def test_importing_every_rules_module_loads_no_discord_sqlite_pillow_or_asyncio() -> None:
    modules = ["bot.rules", *rules_modules()]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "banned = {'discord', 'aiosqlite', 'PIL', 'asyncio', 'sqlite3'}\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in banned)\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
