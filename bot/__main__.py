"""``python -m bot``: the bot, and its operator commands (bot/cli.py).

Nothing is imported here but on the way to ``main``. The bot's worker processes (the drawing and AI
workers) are started with multiprocessing's spawn, which imports the main module again in each worker
under another name: anything imported at this module's top would be loaded in every worker for nothing
(discord.py and the whole bot were about 30 MB a worker).
"""

import sys

if __name__ == "__main__":
    from bot.cli import main

    sys.exit(main(sys.argv))
