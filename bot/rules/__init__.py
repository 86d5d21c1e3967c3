"""Pure game rules: no Discord, no I/O, no asyncio. One module per game."""
