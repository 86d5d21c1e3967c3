"""A fake Discord in a process of its own, as the local table runs it for its bot: ``python fake_process.py MS``.

Prints one JSON line (token, api_base, gateway_url) once it listens, with a heartbeat interval of MS
milliseconds, and serves until its standard input closes.
"""

from __future__ import annotations

import asyncio
import json
import sys

from bot.sandbox.server import FakeDiscord


async def main(interval_ms: int) -> None:
    fake = FakeDiscord()
    await fake.start()
    fake.gateway.heartbeat_interval_ms = interval_ms  # told in HELLO, when a client connects
    print(json.dumps({"token": fake.token, "api_base": fake.api_base, "gateway_url": fake.gateway_url}), flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)
    await fake.stop()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
