from aiohttp import web

from bot.board.context import BoardContext


def add_routes(app: web.Application, context: BoardContext) -> None:
    """The Activity's routes (OAuth2 exchange, sessions): see the Activity half."""
