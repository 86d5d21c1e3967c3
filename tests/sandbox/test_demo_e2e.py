"""A real discord.py ``commands.Bot`` with a slash command, a button view and a modal, end to end."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.sandbox import FakeDiscord, Member


class NameModal(discord.ui.Modal, title="Name your game"):
    name: discord.ui.TextInput[NameModal] = discord.ui.TextInput(label="Game name", max_length=30)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.edit_message(content=f"Game named {self.name.value}", view=None)


class Invitation(discord.ui.View):
    def __init__(self, opponent: int) -> None:
        super().__init__(timeout=60)
        self.opponent = opponent

    @discord.ui.button(label="Accept", style=discord.ButtonStyle.success)
    async def accept(self, interaction: discord.Interaction, button: discord.ui.Button[Invitation]) -> None:
        if interaction.user.id != self.opponent:
            await interaction.response.send_message("This invitation is not for you.", ephemeral=True)
            return
        await interaction.response.edit_message(content=f"{interaction.user.mention} accepted!", view=NameView())


class NameView(discord.ui.View):
    @discord.ui.button(label="Name it")
    async def name_it(self, interaction: discord.Interaction, button: discord.ui.Button[NameView]) -> None:
        await interaction.response.send_modal(NameModal())


class DemoBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())

    async def setup_hook(self) -> None:
        @self.tree.command(description="Invite someone to play")
        @app_commands.describe(opponent="who to play against")
        @app_commands.choices(
            size=[app_commands.Choice(name="small", value=5), app_commands.Choice(name="big", value=7)]
        )
        async def invite(interaction: discord.Interaction, opponent: discord.Member, size: int) -> None:
            await interaction.response.send_message(
                f"{interaction.user.mention} invites {opponent.mention} to a {size}x{size} game",
                view=Invitation(opponent.id),
            )


def make_demo_bot(fake: FakeDiscord) -> commands.Bot:
    return DemoBot()


async def test_invite_accept_and_name_through_a_modal(sandbox: FakeDiscord, alice: Member, bob: Member) -> None:
    await sandbox.start_bot(make_demo_bot)
    async with sandbox.user(alice) as u:
        msg = await u.slash("invite", opponent=bob, size=5)
    assert msg.content == f"{alice.mention} invites {bob.mention} to a 5x5 game"

    refusal = await sandbox.user(alice).click(msg, "Accept")
    assert refusal.ephemeral and refusal.content == "This invitation is not for you."

    accepted = await sandbox.user(bob).click(msg, "Accept")
    assert accepted.id == msg.id and accepted.content == f"{bob.mention} accepted!"
    modal = await sandbox.user(bob).click_modal(accepted, "Name it")
    assert modal.title == "Name your game"
    named = await sandbox.user(bob).submit(modal, {"Game name": "Friday final"})
    assert named.content == "Game named Friday final" and named.buttons == []
