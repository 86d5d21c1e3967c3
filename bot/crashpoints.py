"""Named points where a test makes the bot process die on the spot (SIGKILL), to prove restartability.

Work that spans Discord and the database (a thread and the game played in it) must be finishable,
or undone, after the process dies between its steps. A test sets ``VELETAS_CRASH_AFTER`` to the
name of a point; the process kills itself there, so no ``finally`` and no shutdown handler runs,
exactly as with a power cut or ``kill -9``. Unset (always, outside tests), ``crash_point`` does nothing.

Points: ``thread-created``: a challenge's thread exists, its game is not in the store yet;
``game-accepted``: the game is stored as started, its first board not posted yet; a tournament round's
``tournament-round-planned``, ``tournament-round-saved``, ``tournament-thread-pending``,
``tournament-thread-created`` and ``tournament-game-created`` (see ``cogs/tournament/steps.py`` and
``cogs/tournament/opening.py``).
"""

from __future__ import annotations

import logging
import os
import signal

log = logging.getLogger(__name__)

CRASH_AFTER = "VELETAS_CRASH_AFTER"


def crash_point(name: str) -> None:
    if os.environ.get(CRASH_AFTER) == name:
        log.critical("Crash point %r reached: the process kills itself, as a test asked", name)
        os.kill(os.getpid(), signal.SIGKILL)
