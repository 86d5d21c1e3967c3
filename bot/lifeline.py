"""Child processes that die with their parent, whatever ends it: ``kill -9`` and the out-of-memory killer included.

A parent that stops cleanly stops its children itself; one that is killed cannot, and a worker left
behind holds its memory (a drawing worker about 78 MB) for as long as nobody notices. Linux's
``prctl(PR_SET_PDEATHSIG)`` has the kernel signal the child when its parent goes.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator

log = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies
# Set by a process that starts ``python -m bot`` as its child (the local table) to its own pid: the bot dies with it.
PARENT_VARIABLE = "VELETAS_DIE_WITH_PARENT"


def die_with_parent(parent: int, sig: signal.Signals = signal.SIGKILL) -> None:
    """Have the kernel send this process ``sig`` when ``parent`` dies, and end now if it already has.

    Call it first thing in the child (a worker's initializer, a ``preexec_fn``). ``parent`` is the pid of
    the process that started the child, read there before starting it: the parent may die before the
    child gets here, and the child is then already someone else's (init's, a subreaper's), which
    ``os.getppid()`` compared with ``parent`` tells, since a signal asked for after the death never comes.

    The signal fires when the *thread* that started the child ends, not only the process: start such
    children from a thread that lives as long as its process (the main thread, the event loop's).
    Without ``prctl`` (not Linux) only the check that the parent is still there is left.
    """
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
            log.warning("prctl(PR_SET_PDEATHSIG) failed: %s", os.strerror(ctypes.get_errno()))
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)


@contextlib.contextmanager
def spared_ctrl_c() -> Iterator[None]:
    """Start child processes inside this, so that a Ctrl+C cannot interrupt them while they start.

    A terminal sends Ctrl+C to its whole foreground process group, workers included. A worker ignores
    SIGINT as its first step (the bot stops its workers itself), but one still starting its interpreter or
    importing would die of it, with a ``KeyboardInterrupt`` traceback on the terminal. An ignored signal
    stays ignored through ``exec``, and Python leaves it ignored as it starts, so this thread ignores
    SIGINT while its children are started: a Ctrl+C within those few milliseconds is lost to the parent
    too. Only the main thread may change a signal's handler; elsewhere this changes nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        # None: a handler not set from Python, which cannot be put back; the default is what Python starts with.
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
