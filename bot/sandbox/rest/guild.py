"""Who is who: the bot's user and application, users, the guild, its channels and members, the gateway URL."""

from __future__ import annotations

import copy
from typing import Any

from bot.sandbox.errors import unknown
from bot.sandbox.rest.base import RestBase
from bot.sandbox.rest.router import Call


class GuildRoutes(RestBase):
    """Identity, gateway and guild routes: read-only answers from the fake's state."""

    async def get_me(self, call: Call) -> Any:
        return self.state.bot.user_json() | {"verified": True, "mfa_enabled": False, "flags": 0, "email": None}

    async def get_user(self, call: Call) -> Any:
        member = self.state.members.get(call.id("user_id"))
        if member is None:
            raise unknown("User", 10013)
        return member.user_json()

    async def get_application(self, call: Call) -> Any:
        return self.state.application_json()

    async def get_gateway(self, call: Call) -> Any:
        return {"url": self.gateway.url}

    async def get_gateway_bot(self, call: Call) -> Any:
        return {
            "url": self.gateway.url,
            "shards": self.gateway.recommended_shards,
            "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 86_400_000, "max_concurrency": 1},
        }

    async def get_guild(self, call: Call) -> Any:
        if call.id("guild_id") != self.state.guild_id:
            raise unknown("Guild", 10004)
        data = self.state.guild_json()
        for key in ("members", "channels", "threads", "voice_states", "presences"):
            data.pop(key, None)
        return data

    async def get_guild_channels(self, call: Call) -> Any:
        if call.id("guild_id") != self.state.guild_id:
            raise unknown("Guild", 10004)
        return [copy.deepcopy(c) for c in self.state.channels.values() if c["type"] not in (1, 10, 11, 12)]

    async def get_member(self, call: Call) -> Any:
        if call.id("guild_id") != self.state.guild_id:
            raise unknown("Guild", 10004)
        member = self.state.members.get(call.id("user_id"))
        if member is None:
            raise unknown("Member", 10007)
        return member.member_json()
