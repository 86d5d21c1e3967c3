"""bot.rules stays pure: importing it pulls in no Discord, database or imaging library."""

import subprocess
import sys


def test_importing_the_rules_loads_no_discord_sqlite_or_pillow() -> None:
    code = (
        "import sys, bot.rules, bot.rules.veletas, bot.rules.__main__\n"
        "banned = {'discord', 'aiosqlite', 'PIL', 'asyncio', 'sqlite3'}\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in banned)\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
