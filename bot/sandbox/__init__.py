"""A fake Discord on loopback: the real discord.py client connects to it and tests act as users.

An end-to-end test, with the fixtures of the test suite's ``tests/sandbox_plugin.py``::

    async def test_challenge(sandbox, sandbox_bot, alice, bob):
        async with sandbox.user(alice) as u:
            msg = await u.slash("veletas", "challenge", opponent=bob, variant="small")
            assert "challenge" in msg.content
        await sandbox.user(bob).click(msg, "Accept")
        board = await sandbox.wait_for_message(sandbox.channel_id, lambda m: "board.png" in m.files)

Everything the bot sends is validated against Discord's OpenAPI description and Discord's limits;
error answers fail the test at teardown unless the test claims them with ``sandbox.take_errors()``.
Deadlines run on ``sandbox.clock`` (``sandbox.clock.advance(3.5)`` makes an answer late).
Channel permissions are overwrites a test sets (``await sandbox.deny(channel_id, "create_public_threads")``);
discord.py sees them, and the bot's REST calls are refused with Discord's 403 where they fall short.
"""

from bot.sandbox.errors import DiscordError, InjectionRefused, SandboxError, SandboxTimeout
from bot.sandbox.runner import BotFactory, BotRunner
from bot.sandbox.server import FakeDiscord, Fault, RecordedRequest
from bot.sandbox.state import Attachment, Interaction, Member, Message
from bot.sandbox.users import Modal, SandboxUser, TextField

__all__ = [
    "Attachment",
    "BotFactory",
    "BotRunner",
    "DiscordError",
    "FakeDiscord",
    "Fault",
    "InjectionRefused",
    "Interaction",
    "Member",
    "Message",
    "Modal",
    "RecordedRequest",
    "SandboxError",
    "SandboxTimeout",
    "SandboxUser",
    "TextField",
]
