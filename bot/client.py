"""The Discord client: one ``Bot`` subclass, one command tree with one error handler, and the extension list.

Features live in ``cogs/``; this module only wires them together: it loads the extensions (the shared
ones listed here and each registered game's cog, named by its descriptor in ``bot.rules.registry``), gathers
their slash commands under a few top-level groups (each game's ``/veletas`` and ``/veloop``, the member's
``/player``, ``/tournament``), syncs the tree when (and only when) it changed, and answers every failure
the same way whether it came from a command or a button. Discord limits each top-level command's size
(``command_sizes``; ``python -m bot commands --sizes`` prints them), which is why what is not one game's
lives outside the games' groups.
"""

from __future__ import annotations

import asyncio
import collections
import copy
import datetime as dt
import hashlib
import importlib
import json
import logging
import math
import re
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import discord
from discord import app_commands
from discord.ext import commands

from bot.config import Settings
from bot.errors import NoGameHere, NotAParticipant, NotYourTurn, UserError
from bot.i18n import DEFAULT, LANGUAGES, Phrase, Words, language_of, words
from bot.i18n.commands import CatalogueTranslator
from bot.posting import http_trace
from bot.render.workers import Drawers
from bot.rules.common import quote
from bot.rules.protocol import GameState
from bot.rules.registry import DESCRIPTORS
from bot.scheduler import Scheduler
from bot.store import Store

log = logging.getLogger(__name__)

_TRANSLATED_PAYLOADS: dict[str, tuple[list[dict[str, Any]], str]] = {}
"""Translated command payloads built in this process, with their digests (see ``VeletasBot._translated_payload``)."""


def _digest(payload: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


BASE_EXTENSIONS: tuple[str, ...] = ("cogs.challenge", "cogs.play", "cogs.guided")
"""The shared cogs every game's cog builds on, loaded before the games' cogs."""

EXTENSIONS: tuple[str, ...] = (
    "cogs.player",
    "cogs.admin",
    "cogs.ai",
    "cogs.theme",
    "cogs.analyze",
    "cogs.review",
    "cogs.puzzles",
    "cogs.settings",
    "cogs.clocks",
    "cogs.tournament",
    "cogs.board",
    "cogs.board_page",
    "cogs.puzzle_mining",
)
"""The shared features, loaded after the games' cogs (some add commands to a game's group)."""


def extensions() -> list[str]:
    """Every extension to load, in order: the base, each registered game's cog (its descriptor's ``cog``), the rest."""
    return [*BASE_EXTENSIONS, *(each.cog for each in DESCRIPTORS.values()), *EXTENSIONS]


GROUP_NAME = "veletas"
MAX_REMEMBERED_NAMES = 50_000
LAG_PROBE_SECONDS = 0.1
# Option types whose value names a member: one that is not a member here is refused as such.
MEMBER_TYPES = (discord.AppCommandOptionType.user, discord.AppCommandOptionType.mentionable)
# Not "nothing was changed": a fault after a commit (posting the board, say) leaves the turn played.
APOLOGY = "refusal.apology"


class AiOpponent(Protocol):
    """What the bot needs from an AI player: the text of its next turn (setup, pie choice or move).

    Implementations must keep the search off the event loop (a process pool); the bot awaits this
    after posting a board on which the AI is the one to act.
    """

    async def choose_turn(self, game: GameState, level: int) -> str: ...


class OptionRefused(app_commands.CheckFailure):
    """An option value the command never offered: a stale client's (old choices, old limits) or a forged one."""

    def __init__(self, key: str, /, **data: object) -> None:
        self.phrase = Phrase(key, **data)
        super().__init__(str(self.phrase))


class VeletasTree(app_commands.CommandTree["VeletasBot"]):
    """The command tree: answers errors in one place, and refuses option values the commands never offered."""

    async def interaction_check(self, interaction: discord.Interaction[VeletasBot], /) -> bool:
        """Hold every slash command's options to what it declared, before any command runs.

        The Discord client only sends declared choices, lengths and ranges, but a client with stale
        command definitions (or a forged request) can send anything up to Discord's own limits, and
        discord.py passes choices and ranges through unchecked. Autocomplete is left to its callbacks,
        which only suggest.
        """
        if interaction.type is discord.InteractionType.application_command:
            check_options(interaction)
        return True

    async def on_error(self, interaction: discord.Interaction[VeletasBot], error: app_commands.AppCommandError) -> None:
        await self.client.answer_error(interaction, error)


def _shard_options(settings: Settings) -> dict[str, Any]:
    if settings.shard_count is None:
        return {}
    ids = list(settings.shard_ids) if settings.shard_ids is not None else None
    return {"shard_count": settings.shard_count, "shard_ids": ids}


class VeletasBot(commands.Bot):
    """The bot process: settings, the store, and the shared ``/veletas`` group every feature adds to."""

    tree: VeletasTree

    def __init__(
        self,
        settings: Settings,
        store: Store,
        *,
        ai: AiOpponent | None = None,
        clock: Callable[[], dt.datetime] | None = None,
    ) -> None:
        # The bot never joins voice: discord.py's warnings about missing voice libraries are noise to operators.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        super().__init__(
            command_prefix=commands.when_mentioned,
            # Slash commands and components arrive without any privileged intent; guilds gives the
            # channel and thread cache the cogs use for names and links.
            intents=discord.Intents(guilds=True),
            # Nothing the bot sends may ping anyone unless a message opts in for the player to move.
            allowed_mentions=discord.AllowedMentions.none(),
            tree_cls=VeletasTree,
            help_command=None,
            # Board posts outside interactions give up on a server error at once and retry on their own schedule.
            http_trace=http_trace(),
            **_shard_options(settings),
        )
        self.settings = settings
        self.store = store
        if settings.shard_count is not None:
            store.shards = (settings.shard_count, settings.shard_ids or tuple(range(settings.shard_count)))
        self.ai = ai
        # Deadlines (challenge expiry) are computed with the same clock the store compares them with.
        self.clock: Callable[[], dt.datetime] = clock or (lambda: dt.datetime.now(dt.UTC))
        # One slash command group per game (``/veletas``, ``/veloop``), made by the first feature added to it.
        self.groups: dict[str, app_commands.Group] = {}
        # Whether this start pushed the commands to Discord (False: unchanged since the last sync).
        self.synced: bool | None = None
        # Display names seen in interactions: without the members intent there is no member list to ask.
        self.names: dict[int, str] = {}
        # Games whose AI turn is being computed, so a reconnect does not start a second search.
        self.ai_thinking: set[int] = set()
        # Games changed while their AI turn ran: the turn reads the store again before it stops.
        self.ai_look_again: set[int] = set()
        # One board poster per game at a time (cogs._board.board_lock); entries vanish with their last user.
        self.board_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        # Games with an interaction answer on its way (cogs._board.deliver), which a sweep leaves alone.
        self.replying: collections.Counter[int] = collections.Counter()
        # The one scheduler of everything that falls due (deadlines, reminders, challenge expiry); features
        # register a handler per kind of row, and it runs while the bot is connected.
        self.scheduler = Scheduler(store, {}, owner=store.claimant)
        # When each (server, member) was last seen a member, for leaderboards (no members intent: Discord is asked).
        self.members_seen: dict[tuple[int, int], float] = {}
        # How late the event loop runs (seconds), so answers are deferred at once when the bot is busy.
        self.loop_lag = 0.0
        # Each server's chosen language for public posts ("" follows its Discord locale), read once.
        self.guild_languages: dict[int, str] = {}
        # Each member's language as their last interaction said (Discord tells it nowhere else), for DMs.
        self.user_languages: dict[int, str] = {}
        self._background: set[asyncio.Task[Any]] = set()
        # The custom id templates of every button and menu added (add_dynamic_items), for the catch-all.
        self.control_templates: list[re.Pattern[str]] = []
        # Boards are drawn in worker processes (threads with none), off this interpreter's GIL.
        self.drawers = Drawers(settings.drawing_workers, languages=LANGUAGES)

    async def setup_hook(self) -> None:
        for language in LANGUAGES:
            words(language)  # read and compile every catalogue now, not in the first answer that needs it
        await self.build_tree()
        self.synced = await self.sync_if_changed()
        # Fonts and sprites load off the event loop now rather than in the first answer that draws a board: in
        # the drawing workers (their first job), or here when this process draws its boards itself. With
        # workers, this process draws only the rarer images and loads what they need when they first do.
        if self.drawers.workers:
            self.drawers.start()
        else:
            from bot import render

            self.spawn(asyncio.to_thread(render.warm, [words(language) for language in LANGUAGES]), name="warm-images")
        self.spawn(self._heartbeat(), name="heartbeat")
        self.spawn(self._run_scheduler(), name="scheduler")
        self.spawn(self._watch_lag(), name="loop-lag")

    async def build_tree(self) -> None:
        """Load every feature and put its commands in the tree, translated by the catalogue.

        A feature is a module named in ``extensions()`` with an ``async def setup(bot)`` that adds its cogs and
        components to this bot. It is imported once per process and set up on each bot: discord.py's
        ``load_extension`` would execute the module again for every bot (a shard, a restart) to allow
        reloading it in place, which this bot never does.
        """
        await self.tree.set_translator(CatalogueTranslator())
        for name in extensions():
            await importlib.import_module(name).setup(self)
        for group in self.groups.values():
            self.tree.add_command(group)

    async def _run_scheduler(self) -> None:
        await self.wait_until_ready()
        await self.scheduler.run()

    async def _watch_lag(self) -> None:
        """Measure how late a short sleep wakes up: under load every timer, the deferral's included, is that late."""
        loop = asyncio.get_running_loop()
        while not self.is_closed():
            started = loop.time()
            await asyncio.sleep(LAG_PROBE_SECONDS)
            lag = loop.time() - started - LAG_PROBE_SECONDS
            # Rise at once, fall slowly: a lull between bursts should not make the next answer late.
            self.loop_lag = lag if lag > self.loop_lag else 0.8 * self.loop_lag + 0.2 * lag

    async def _heartbeat(self) -> None:
        """Touch the heartbeat file while connected, for the container health check (``python -m bot health``)."""
        await self.wait_until_ready()
        path = self.settings.heartbeat_path
        while not self.is_closed():
            if self.is_ready() and math.isfinite(self.latency):
                try:
                    # With PostgreSQL nothing else makes the data directory the heartbeat lives in.
                    await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
                    await asyncio.to_thread(path.touch)
                except OSError:
                    log.warning("Cannot write the heartbeat file %s", path, exc_info=True)
            await asyncio.sleep(self.settings.heartbeat_seconds)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if len(self.names) >= MAX_REMEMBERED_NAMES:
            self.names.clear()
            self.user_languages.clear()
        self.names[interaction.user.id] = interaction.user.display_name
        self.user_languages[interaction.user.id] = language_of(interaction.locale)

    def user_language(self, user_id: int, guild_id: int | None) -> str:
        """A member's language for a message only they read outside an interaction (a DM): as last seen,
        else their server's (``guild_languages``, else English)."""
        known = self.user_languages.get(user_id)
        if known is not None:
            return known
        chosen = self.guild_languages.get(guild_id or 0)
        if chosen:
            return chosen
        guild = self.get_guild(guild_id) if guild_id else None
        return language_of(guild.preferred_locale) if guild is not None else language_of(None)

    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        """Register buttons and menus by their custom id templates, remembering the templates: a catch-all
        (``cogs._lookup.UnknownControl``, whose own template is left out) answers the ids none of them reads."""
        super().add_dynamic_items(*items)
        self.control_templates.extend(
            item.__discord_ui_compiled_template__ for item in items if item.__name__ != "UnknownControl"
        )

    async def add_feature(self, cog: commands.Cog, *, group: str = GROUP_NAME, description: str | None = None) -> None:
        """Add a feature cog and move its slash commands under ``/<group>`` (``/veletas`` by default).

        discord.py gives each ``GroupCog`` its own top-level group, but features share a game's
        group, so a plain cog is added and its (already bound) commands are re-parented. The first
        feature of a group gives its description.
        """
        parent = self.groups.get(group)
        if parent is None:
            if description is None:
                raise ValueError(f"the first feature of /{group} must describe the group")
            parent = self.groups[group] = app_commands.Group(name=group, description=description, guild_only=True)
        await self.add_cog(cog)
        for command in cog.get_app_commands():
            self.tree.remove_command(command.name)
            parent.add_command(command, override=True)

    async def command_payload(self, guild: discord.abc.Snowflake | None = None) -> list[dict[str, Any]]:
        """What a sync sends Discord: every top-level command with its translations, as discord.py builds it."""
        payload, _ = await self._translated_payload(guild)
        return copy.deepcopy(payload)

    async def _translated_payload(self, guild: discord.abc.Snowflake | None) -> tuple[list[dict[str, Any]], str]:
        """The sync payload (shared: never to be changed) and its digest.

        discord.py asks the translator for every string in each of Discord's thirty-odd locales, a few hundred
        thousand calls for this tree: the translated payload and its digest are kept per process, keyed by the
        untranslated tree and the translator's class, so a second bot in the same process (a shard, a restart,
        a test) reuses them. The catalogue does not change while a process runs.
        """
        guild = guild if guild is not None else self._sync_guild()
        translator = self.tree.translator
        commands_ = self.tree.get_commands(guild=guild)
        plain = [command.to_dict(self.tree) for command in commands_]
        if translator is None:
            return plain, _digest(plain)
        key = f"{type(translator).__module__}.{type(translator).__qualname__}:" + json.dumps(
            plain, sort_keys=True, default=str
        )
        cached = _TRANSLATED_PAYLOADS.get(key)
        if cached is None:
            translated = [await command.get_translated_payload(self.tree, translator) for command in commands_]
            cached = _TRANSLATED_PAYLOADS[key] = (translated, _digest(translated))
        return cached

    async def sync_commands(self, guild: discord.abc.Snowflake | None = None) -> int:
        """Send the command tree to Discord (globally, or to ``guild``), as ``CommandTree.sync`` does with the
        payload ``command_payload`` built; returns how many commands Discord now has."""
        if self.application_id is None:
            raise app_commands.MissingApplicationID
        payload = await self.command_payload(guild)
        try:
            if guild is None:
                data = await self.http.bulk_upsert_global_commands(self.application_id, payload=payload)
            else:
                data = await self.http.bulk_upsert_guild_commands(self.application_id, guild.id, payload=payload)
        except discord.HTTPException as exc:
            if exc.status == 400 and exc.code == 50035:
                raise app_commands.CommandSyncFailure(exc, self.tree.get_commands(guild=guild)) from None
            raise
        return len(data)

    async def command_hash(self) -> str:
        """A digest of what a sync would send (translations included): an unchanged tree is never synced again."""
        _, digest = await self._translated_payload(None)
        return digest

    def _sync_guild(self) -> discord.Object | None:
        return discord.Object(id=self.settings.dev_guild_id) if self.settings.dev_guild_id else None

    async def sync_if_changed(self) -> bool:
        """Sync the commands (to DEV_GUILD_ID when set) only when they differ from the last sync.

        Discord rate-limits command syncs hard, and a blind sync at every start would also make
        clients re-fetch the commands; the digest of the last synced payload lives in the store.
        """
        guild = self._sync_guild()
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        digest = await self.command_hash()
        scope = f"guild:{guild.id}" if guild is not None else "global"
        key = f"command_sync:{self.application_id}:{scope}"
        if await self.store.get_meta(key) == digest:
            log.info("Commands unchanged since the last sync (%s); not syncing", scope)
            return False
        synced = await self.sync_commands(guild)
        await self.store.set_meta(key, digest)
        log.info("Synced %d command(s) (%s)", synced, scope)
        return True

    def spawn(self, coro: Awaitable[Any], *, name: str) -> asyncio.Task[Any]:
        """Run work after an interaction was answered, keeping a reference so it is not collected."""

        async def runner() -> Any:
            try:
                return await coro
            except Exception:
                log.exception("Background task %s failed", name)
                return None

        def done(task: asyncio.Task[Any]) -> None:
            self._background.discard(task)
            if task.cancelled() and asyncio.iscoroutine(coro):
                coro.close()  # cancelled before it began (the bot closing): it is dropped, not left unawaited

        task = asyncio.create_task(runner(), name=name)
        self._background.add(task)
        task.add_done_callback(done)
        return task

    async def answer_error(self, interaction: discord.Interaction[Any], error: BaseException) -> None:
        """Tell the user privately what went wrong: their mistake in words, ours as a short apology."""
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        w = words(language_of(interaction.locale))
        if isinstance(original, UserError):
            message = self.word_refusal(original, w)
            log.debug("Refused %s for user %s: %s", _describe(interaction), interaction.user.id, original)
        elif isinstance(original, app_commands.MissingPermissions):
            names = [w(f"permission.{name}") for name in original.missing_permissions]
            needed = names[0]
            for name in names[1:]:
                needed = w("refusal.permission_and", first=needed, second=name)
            message = w("refusal.missing_permission", permission=needed)
        elif isinstance(original, app_commands.TransformerError) and original.type in MEMBER_TYPES:
            # An id Discord resolved to no member here (someone elsewhere, a role's, nobody's): never its repr.
            message = w("refusal.no_such_member")
        elif isinstance(original, app_commands.TransformerError):
            # discord.py's own wording quotes the whole value, however long.
            kind = w.get(f"refusal.type_{original.type.name}", original.type.name)
            message = w("refusal.not_valid", value=quote(str(original.value)), type=kind)
        elif isinstance(original, OptionRefused):
            message = w.phrase(original.phrase)
        elif isinstance(original, app_commands.CheckFailure):
            message = str(original)
        else:
            log.error(
                "Error while handling %s for user %s",
                _describe(interaction),
                interaction.user.id,
                exc_info=(type(original), original, original.__traceback__),
            )
            message = w(APOLOGY)
        if interaction.type is discord.InteractionType.autocomplete:
            return
        try:
            await self.send_private(interaction, message)
        except discord.HTTPException:
            log.warning("Could not deliver an error message for %s", _describe(interaction), exc_info=True)

    def word_refusal(self, error: UserError, w: Words | None = None) -> str:
        """A refusal as the player reads it, in ``w``'s language: errors carry a key and data, worded here."""
        w = w or words()
        text = error.worded(w)
        # The store speaks no Discord: the member a refusal is about is named (mentioned) here.
        if isinstance(error, NotYourTurn) and error.waiting is not None:
            text = w("refusal.not_your_turn_of", who=f"<@{error.waiting}>")
        if isinstance(error, NotAParticipant) and error.meant_for is not None:
            text = w("refusal.challenge_for", who=f"<@{error.meant_for}>")
        if isinstance(error, NoGameHere) and error.channel_empty:
            # Only the groups that have a challenge command (the games'), not every group of the bot.
            starts = [
                f"`/{w.get(f'commands.{name}.name', name)} {w.get(f'commands.{name}.challenge.name', 'challenge')}`"
                for name, group in self.groups.items()
                if group.get_command("challenge") is not None
            ]
            joined = starts[0] if starts else ""
            for start in starts[1:]:
                joined = w("refusal.or", first=joined, second=start)
            return w("refusal.start_one", refusal=text, commands=joined)
        return text

    async def send_private(self, interaction: discord.Interaction[Any], message: str) -> None:
        """Send an ephemeral message, whatever has been answered on this interaction so far.

        After a public defer the first followup would replace the public placeholder, so the
        placeholder is removed first and the message goes out as a fresh ephemeral followup.
        """
        if not interaction.response.is_done():
            await interaction.response.send_message(message, ephemeral=True)
            return
        if interaction.extras.get("deferred_public"):
            interaction.extras["deferred_public"] = False
            try:
                await interaction.delete_original_response()
            except discord.HTTPException:
                log.debug("The deferred placeholder was already gone")
        await interaction.followup.send(message, ephemeral=True)

    async def guard(self, interaction: discord.Interaction[Any], action: Awaitable[Any]) -> None:
        """Run a component callback so its failures are answered like command failures.

        discord.py only logs exceptions raised by dynamic items; players must hear about them.
        """
        try:
            await action
        except Exception as exc:
            await self.answer_error(interaction, exc)

    async def close(self) -> None:
        """Stop background work, disconnect, then close the store, so nothing writes after the bot is gone."""
        for task in list(self._background):
            task.cancel()
        await super().close()
        self.drawers.close()
        await self.store.close()


def check_options(interaction: discord.Interaction[Any]) -> None:
    """Refuse (OptionRefused) a value outside the options' declared choices, lengths or ranges."""
    command = interaction.command
    if not isinstance(command, app_commands.Command):
        return
    data: dict[str, Any] = dict(interaction.data or {})
    given: list[dict[str, Any]] = list(data.get("options") or [])
    while given and given[0].get("type") in (1, 2):  # sub-command groups and sub-commands
        given = list(given[0].get("options") or [])
    params = {param.display_name: param for param in command.parameters}
    for option in given:
        param = params.get(str(option.get("name")))
        if param is None:
            continue
        value = option.get("value")
        name = param.display_name
        if param.choices:
            if value not in [choice.value for choice in param.choices]:
                offered = [f"`{choice.value}`" for choice in param.choices]
                raise OptionRefused("refusal.not_a_choice", value=quote(str(value)), name=name, offered=offered)
            continue
        if isinstance(value, str):
            if param.max_value is not None and len(value) > param.max_value:
                raise OptionRefused("refusal.too_long", name=name, count=int(param.max_value), given=len(value))
            if param.min_value is not None and len(value) < param.min_value:
                raise OptionRefused("refusal.too_short", name=name, count=int(param.min_value))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            low, high = param.min_value, param.max_value
            if (low is not None and value < low) or (high is not None and value > high):
                shown = quote(str(value))
                if low is not None and high is not None:
                    raise OptionRefused("refusal.range", name=name, low=f"{low:g}", high=f"{high:g}", value=shown)
                if low is not None:
                    raise OptionRefused("refusal.range_low", name=name, low=f"{low:g}", value=shown)
                raise OptionRefused("refusal.range_high", name=name, high=f"{high:g}", value=shown)


def _describe(interaction: discord.Interaction[Any]) -> str:
    if interaction.command is not None:
        return f"/{interaction.command.qualified_name}"
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id = data.get("custom_id")
    return f"component {custom_id}" if custom_id else f"interaction {interaction.type.name}"


class ShardedVeletasBot(VeletasBot, commands.AutoShardedBot):
    """The bot split over processes: this one runs the gateway shards SHARD_IDS of SHARD_COUNT (all, without
    SHARD_IDS), on the database every process shares (PostgreSQL). Discord sends each server's events to
    the shard ``(guild_id >> 22) % SHARD_COUNT``; boards and messages go over REST from whichever process
    acts, and what falls due is taken by whichever process's scheduler gets it first (bot/scheduler.py)."""


def make_bot(
    settings: Settings,
    store: Store,
    *,
    ai: AiOpponent | None = None,
    clock: Callable[[], dt.datetime] | None = None,
) -> VeletasBot:
    """The bot these settings ask for: one gateway connection, or the shards SHARD_COUNT/SHARD_IDS name."""
    if settings.shard_count is None:
        return VeletasBot(settings, store, ai=ai, clock=clock)
    return ShardedVeletasBot(settings, store, ai=ai, clock=clock)


SIZE_COLUMNS: tuple[str, ...] = (*LANGUAGES, "discord")
"""The columns of ``command_sizes``: each language as its members see the commands, then Discord's own count."""


def language_locales(language: str) -> list[str]:
    """The Discord locales whose members see a language of the catalogue (English: en-US, Discord's default)."""
    if language == DEFAULT:
        return [str(discord.Locale.american_english)]
    return [str(locale) for locale in discord.Locale if language_of(locale) == language]


def command_sizes(payload: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Each top-level command's size by Discord's registration limit (``bot.sandbox.limits.command_size``): as
    each language's members see it, and as Discord counts it ("discord": every field at its longest localisation)."""
    from bot.sandbox.limits import command_size

    sizes: dict[str, dict[str, int]] = {}
    for command in payload:
        row = {language: command_size(command, language_locales(language)) for language in LANGUAGES}
        row["discord"] = command_size(command)
        sizes[str(command["name"])] = row
    return sizes


async def tree_payload() -> list[dict[str, Any]]:
    """The sync payload of the whole command tree, built offline (no token, no connection, a throwaway database)."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "commands.sqlite3"
        store = await Store.open(path)
        try:
            bot = VeletasBot(Settings(token="", database_path=path), store)
            async with bot:
                await bot.build_tree()
                return await bot.command_payload()
        finally:
            await store.close()
