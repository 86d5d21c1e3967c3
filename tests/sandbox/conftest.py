"""The sandbox fixtures for these tests.

Imported rather than listed in ``pytest_plugins``, which pytest only honours in the top-level
conftest; once that registers ``bot.sandbox.pytest_plugin`` these imports simply shadow it.
"""

from bot.sandbox.pytest_plugin import alice, bob, sandbox, sandbox_bot, sandbox_runner

__all__ = ["alice", "bob", "sandbox", "sandbox_bot", "sandbox_runner"]
