"""Websocket routes."""

from typing import Any

from django.urls import path, re_path

from games.live.consumers import CLOSE_NOT_FOUND, TableConsumer
from games.live.slate_consumer import SlateConsumer


async def unknown_path(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Any other address: closed as not found, as an unknown table is. Without this route
    Channels' URLRouter raises "No route found", an error in the log for a mistyped address."""
    await receive()  # the connect
    await send({"type": "websocket.close", "code": CLOSE_NOT_FOUND})


websocket_urlpatterns = [
    path("ws/tables/<str:code>/", TableConsumer.as_asgi()),
    path("ws/slates/<str:code>/", SlateConsumer.as_asgi()),
    re_path(r"", unknown_path),
]
