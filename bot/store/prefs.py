"""What players and servers chose: a player's board theme and how they hear of their turn, a server's
settings; and the store's own key-value notes (``meta``).

Themes and notification choices are read for every board drawn, so they are kept in memory; another
process that changes one tells this one to forget it (``StoreBase._heard``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.clocks import TimeControl
from bot.errors import UserError
from bot.i18n import LANGUAGES
from bot.store.base import MAX_CACHED_THEMES, StoreBase
from bot.store.rows import GUILD_SETTINGS_SQL, guild_settings
from bot.store.values import (
    FOLLOW_SERVER,
    MAX_INACTIVITY_DAYS,
    NOTIFY_MODES,
    THEMES,
    GuildSettings,
    NotifyPrefs,
)


class Preferences(StoreBase):
    """Player preferences, server settings and meta notes."""

    async def get_meta(self, key: str) -> str | None:
        rows = await self._fetchall("SELECT value FROM meta WHERE key = ?", (key,))
        return None if not rows else str(rows[0][0])

    async def set_meta(self, key: str, value: str) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # --- player preferences ---------------------------------------------------------------------

    async def get_theme(self, user_id: int) -> str | None:
        """The board theme this player chose, or None if they never chose (the caller picks the default)."""
        if user_id in self._themes:
            return self._themes[user_id]
        changes = self._prefs_changes
        rows = await self._fetchall("SELECT theme FROM player_prefs WHERE user_id = ?", (user_id,))
        theme = None if not rows else str(rows[0][0])
        if changes == self._prefs_changes:  # else a choice landed meanwhile: what was read may be older than it
            if len(self._themes) >= MAX_CACHED_THEMES:
                self._themes.clear()
            self._themes[user_id] = theme
        return theme

    async def get_themes(self, user_ids: Sequence[int]) -> dict[int, str]:
        """The chosen themes of several players in one query; players who never chose are left out."""
        wanted = sorted(set(user_ids))
        if not wanted:
            return {}
        marks = ", ".join("?" * len(wanted))
        rows = await self._fetchall(f"SELECT user_id, theme FROM player_prefs WHERE user_id IN ({marks})", wanted)
        return {int(row[0]): str(row[1]) for row in rows}

    async def set_theme(self, user_id: int, theme: str) -> None:
        """Remember the player's board theme for every image drawn for them from now on."""
        if theme not in THEMES:
            raise UserError("refusal.no_theme", theme=repr(theme), themes=list(THEMES))
        self._prefs_changes += 1
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO player_prefs (user_id, theme, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET theme = excluded.theme, updated_at = excluded.updated_at",
                (user_id, theme, self._now()),
            )
            await db.notify(f"prefs {user_id}")  # other processes forget what they remembered
        self._prefs_changes += 1
        self._themes[user_id] = theme

    async def get_notify(self, user_id: int) -> NotifyPrefs:
        """How a player wants to hear of their turn and their clock; the defaults for one who never chose."""
        cached = self._notify.get(user_id)
        if cached is not None:
            return cached
        changes = self._prefs_changes
        rows = await self._fetchall(
            "SELECT mode, reminders, dm_blocked FROM notify_prefs WHERE user_id = ?", (user_id,)
        )
        prefs = NotifyPrefs() if not rows else NotifyPrefs(str(rows[0][0]), bool(rows[0][1]), bool(rows[0][2]))
        if changes == self._prefs_changes:  # else a choice landed meanwhile: what was read may be older than it
            if len(self._notify) >= MAX_CACHED_THEMES:
                self._notify.clear()
            self._notify[user_id] = prefs
        return prefs

    async def set_notify(
        self, user_id: int, *, mode: str | None = None, reminders: bool | None = None, dm_blocked: bool | None = None
    ) -> NotifyPrefs:
        """Change what is given (None leaves it) and return the whole choice. Choosing DMs again clears a refusal."""
        if mode is not None and mode not in NOTIFY_MODES:
            raise UserError("refusal.notify_modes", modes=list(NOTIFY_MODES))
        current = await self.get_notify(user_id)
        chosen = NotifyPrefs(
            current.mode if mode is None else mode,
            current.reminders if reminders is None else reminders,
            (False if mode in ("dm", "both") else current.dm_blocked) if dm_blocked is None else dm_blocked,
        )
        self._prefs_changes += 1
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO notify_prefs (user_id, mode, reminders, dm_blocked, updated_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET mode = excluded.mode, reminders = excluded.reminders, "
                "dm_blocked = excluded.dm_blocked, updated_at = excluded.updated_at",
                (user_id, chosen.mode, int(chosen.reminders), int(chosen.dm_blocked), self._now()),
            )
            await db.notify(f"prefs {user_id}")
        self._prefs_changes += 1
        self._notify[user_id] = chosen
        return chosen

    # --- server settings ------------------------------------------------------------------------

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        rows = await self._fetchall(GUILD_SETTINGS_SQL, (guild_id,))
        return GuildSettings() if not rows else guild_settings(rows[0])

    async def set_guild_settings(
        self,
        guild_id: int,
        *,
        analysis: bool | None = None,
        time_control: TimeControl | None = None,
        inactivity_days: int | None = None,
        rated: bool | None = None,
        language: str | None = None,
    ) -> GuildSettings:
        """Change the settings given (None leaves one as it is) and return them all, in one transaction.

        ``language``: one of ``bot.i18n.LANGUAGES``, or ``FOLLOW_SERVER`` to follow the server's locale.
        """
        if inactivity_days is not None and not 1 <= inactivity_days <= MAX_INACTIVITY_DAYS:
            raise UserError("refusal.inactivity_range", count=MAX_INACTIVITY_DAYS)
        if language is not None and language != FOLLOW_SERVER and language not in LANGUAGES:
            raise UserError("refusal.no_language", language=repr(language), languages=list(LANGUAGES))
        async with self._transaction() as db:
            rows = await db.execute_fetchall(GUILD_SETTINGS_SQL, (guild_id,))
            found = list(rows)
            current = GuildSettings() if not found else guild_settings(found[0])
            chosen = replace(
                current,
                analysis=current.analysis if analysis is None else analysis,
                time_control=current.time_control if time_control is None else time_control.text,
                inactivity_days=current.inactivity_days if inactivity_days is None else inactivity_days,
                rated=current.rated if rated is None else rated,
                language=current.language if language is None else None if language == FOLLOW_SERVER else language,
            )
            await db.execute(
                "INSERT INTO guild_settings (guild_id, analysis, time_control, inactivity_days, rated, language, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET "
                "analysis = excluded.analysis, time_control = excluded.time_control, "
                "inactivity_days = excluded.inactivity_days, rated = excluded.rated, language = excluded.language, "
                "updated_at = excluded.updated_at",
                (
                    guild_id,
                    int(chosen.analysis),
                    chosen.time_control,
                    chosen.inactivity_days,
                    int(chosen.rated),
                    chosen.language,
                    self._now(),
                ),
            )
        return chosen
