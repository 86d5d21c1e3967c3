"""The store's own failures: a database it cannot use, and a write lock it could not get. Neither is a
player's refusal (those are ``bot.errors``)."""

from __future__ import annotations


class StoreError(RuntimeError):
    """The database file cannot be used by this version of the bot (newer schema, failed migration)."""


class StoreBusy(RuntimeError):
    """Another connection held the write lock for all of ``BUSY_TIMEOUT_MS``: nothing was written.

    Not a refusal: the action was fine and may be tried again. Where a retry is safe and the first
    write of an action failed, the caller says so; elsewhere it is a fault like any other.
    """
