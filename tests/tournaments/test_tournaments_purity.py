"""bot.tournaments stays pure: no Discord, database, imaging or asyncio, like bot.rules."""

import subprocess
import sys


def test_importing_the_tournaments_loads_no_discord_sqlite_pillow_or_asyncio() -> None:
    code = (
        "import sys, bot.tournaments, bot.tournaments.swiss, bot.tournaments.standings\n"
        "import bot.tournaments.elimination, bot.tournaments.roundrobin, bot.tournaments.model, bot.tournaments.recap\n"
        "import bot.tournaments.arena\n"
        "banned = {'discord', 'aiosqlite', 'PIL', 'asyncio', 'sqlite3'}\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in banned)\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
