"""The board page: a game drawn in the browser and played by clicking, in Discord (an Activity) and on the local table.

The page moves through the same store methods as the slash commands; this package speaks HTTP and
WebSocket to the page, and Discord's OAuth2 to learn who the member is.
"""
