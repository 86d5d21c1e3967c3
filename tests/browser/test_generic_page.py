"""The page knows nothing of Veletas: a stand-in bot's modal, user menu and file all work on it.

This is what lets new commands (``/veloop``, clocks, tournaments...) appear on the local table
without touching the page: it renders whatever the fake Discord holds.
"""

from __future__ import annotations

import asyncio
import io
import socket
from typing import Any

import discord
from aiohttp import web
from discord import app_commands
from discord.ext import commands
from playwright.async_api import async_playwright

from bot.local.page import Page
from bot.sandbox.server import FakeDiscord
from browser.driver import CHROMIUM_ARGS, chromium_path


class Rename(discord.ui.Modal, title="Rename your piece"):
    name: discord.ui.TextInput[Any] = discord.ui.TextInput(label="New name", max_length=20)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(f"Renamed to **{self.name.value}**", ephemeral=True)


class Pick(discord.ui.View):
    @discord.ui.select(cls=discord.ui.UserSelect, placeholder="Whom?")
    async def chosen(self, interaction: discord.Interaction[Any], select: discord.ui.UserSelect[Any]) -> None:
        await interaction.response.send_message(f"You picked {select.values[0].mention}")


def stand_in(fake: FakeDiscord) -> commands.Bot:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default())

    @bot.tree.command(name="form", description="open a form")
    async def form(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_modal(Rename())

    @bot.tree.command(name="pick", description="pick a member")
    async def pick(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("Pick someone", view=Pick())

    @bot.tree.command(name="notes", description="a file")
    @app_commands.describe(size="how many lines")
    async def notes(interaction: discord.Interaction[Any], size: app_commands.Range[int, 1, 9]) -> None:
        text = "".join(f"line {i}\n" for i in range(size)).encode()
        await interaction.response.send_message(file=discord.File(io.BytesIO(text), "notes.txt"))

    return bot


async def test_a_modal_a_user_menu_and_a_file_from_another_bot(sandbox: FakeDiscord) -> None:
    await sandbox.runner.start(stand_in)
    ready = asyncio.Event()
    ready.set()
    runner = web.AppRunner(Page(sandbox, ready=ready).app())
    await runner.setup()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    await web.SockSite(runner, sock).start()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            page = await browser.new_page()
            page.set_default_timeout(15_000)
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            await page.goto(url)
            await page.wait_for_selector("body[data-ready='1']")
            await page.click("#members li[data-member='alice']")

            # A modal: the form opens, is filled and sent; the private answer is alice's alone.
            await page.fill("#composer", "/form")
            await page.press("#composer", "Enter")
            await page.wait_for_selector("#modal-back:not([hidden])")
            assert await page.inner_text("#modal-title") == "Rename your piece"
            await page.fill("#modal [data-field]", "Zephyr")
            await page.click("#modal button[type=submit]")
            answer = page.locator("#messages .msg", has_text="Renamed to Zephyr")
            await answer.wait_for()
            assert "Only you can see this" in await answer.inner_text()
            await page.click("#members li[data-member='bob']")
            await page.wait_for_selector("#members li[data-member='bob'].active")
            await page.wait_for_function("() => !document.getElementById('messages').textContent.includes('Zephyr')")

            # A user select offers the members; choosing one is an interaction the bot answers.
            await page.fill("#composer", "/pick")
            await page.press("#composer", "Enter")
            menu = page.locator("#messages .msg select.component")
            await menu.wait_for()
            await menu.select_option(label="carol")
            await page.locator("#messages .msg", has_text="You picked @carol").wait_for()

            # An integer option out of range is refused by the page as the client would, and a file is a link.
            await page.fill("#composer", "/notes size:12")
            await page.press("#composer", "Enter")
            await page.wait_for_selector("#toast:not([hidden])")
            assert "between 1 and 9" in await page.inner_text("#toast")
            await page.fill("#composer", "/notes size:3")
            await page.press("#composer", "Enter")
            link = page.locator("#messages a.file", has_text="notes.txt")
            await link.wait_for()
            href = await link.get_attribute("href")
            assert href is not None and href.startswith("/attachments/")
            assert not errors, errors
            # The page acts only as the table's people, never as the bot itself.
            before = len(sandbox.messages())
            refused = await page.request.post(
                url + "/api/act", data={"action": "say", "member": str(sandbox.bot_member.id), "content": "hi"}
            )
            assert refused.status == 400 and len(sandbox.messages()) == before
            await browser.close()
    finally:
        await runner.cleanup()
    assert sandbox.message(int(sandbox.messages()[-1].id)).files == {"notes.txt": b"line 0\nline 1\nline 2\n"}
