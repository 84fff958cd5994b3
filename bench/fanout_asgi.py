"""The bare fan-out the live benchmark compares the app with: a Channels consumer that sends each
frame it receives to its table's group, and each group member passes it on to its socket.

    daphne -b 127.0.0.1 -p 8001 bench.fanout_asgi:application

It uses the app's own settings, so the same channel layer (in-memory, or Redis with REDIS_URL)
carries the frames; no database, no sessions, no rendering. URL: /ws/fanout/<table>/.
"""

from __future__ import annotations

import os
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from games.live.consumers import DirectDispatch  # noqa: E402


class FanoutConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = f"fanout-{self.scope['url_route']['kwargs']['table']}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.channel_layer.group_send(self.group, {"type": "fan.out", "text": text_data})

    async def fan_out(self, event: dict[str, str]) -> None:
        await self.send(text_data=event["text"])


class LeanFanoutConsumer(DirectDispatch, FanoutConsumer):
    """The same without Channels' trip to the database thread before every message, as the
    app's consumer skips it (games.live.consumers.DirectDispatch): a side figure only
    (`FANOUT_LEAN_DISPATCH=1` in the environment), never the floor the target is measured by."""


LEAN = os.environ.get("FANOUT_LEAN_DISPATCH") == "1"
consumer = LeanFanoutConsumer if LEAN else FanoutConsumer


async def lifespan(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Nothing to start or stop; answered, as uvicorn runs with `--lifespan on` (the app's own
    starts its clock, toepen_site/asgi.py)."""
    while True:
        message = await receive()
        kind = message["type"].removeprefix("lifespan.")
        await send({"type": f"lifespan.{kind}.complete"})
        if kind == "shutdown":
            return


application = ProtocolTypeRouter(
    {
        "websocket": URLRouter([path("ws/fanout/<str:table>/", consumer.as_asgi())]),
        "lifespan": lifespan,
    }
)
