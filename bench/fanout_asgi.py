"""The bare fan-out the live benchmark compares the app with: a Channels consumer that sends each
frame it receives to its table's group, and each group member passes it on to its socket.

    daphne -b 127.0.0.1 -p 8001 bench.fanout_asgi:application

It uses the app's own settings and their in-memory channel layer, which carries a group within
one process: a table's clients all connect to one process (bench/live.py). No database, no
sessions, no rendering. URL: /ws/fanout/<table>/.
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


class RawFanout:
    """The same fan-out as a bare ASGI application, without Channels or a channel layer: what
    the ASGI server's own websocket frames cost, under any consumer (`FANOUT_RAW=1` in the
    environment): a side figure too, never the floor the target is measured by."""

    def __init__(self) -> None:
        self.tables: dict[str, set[Any]] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        members = self.tables.setdefault(scope["path"].rstrip("/").rpartition("/")[2], set())
        while True:
            message = await receive()
            if message["type"] == "websocket.connect":
                await send({"type": "websocket.accept"})
                members.add(send)
            elif message["type"] == "websocket.receive":
                frame = {"type": "websocket.send", "text": message.get("text")}
                for member in list(members):
                    await member(frame)
            elif message["type"] == "websocket.disconnect":
                members.discard(send)
                return


LEAN = os.environ.get("FANOUT_LEAN_DISPATCH") == "1"
RAW = os.environ.get("FANOUT_RAW") == "1"
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
        "websocket": (
            RawFanout() if RAW else URLRouter([path("ws/fanout/<str:table>/", consumer.as_asgi())])
        ),
        "lifespan": lifespan,
    }
)
