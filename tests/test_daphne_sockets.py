"""Daphne's websocket protocol as toepen_site/daphne_sockets.py leaves it: a socket the
application closed hands it no more frames, and one closed for flooding is read no more."""

from __future__ import annotations

import asyncio
from typing import Any

import daphne.ws_protocol
import pytest

from games.live.consumers import CLOSE_FLOOD
from toepen_site import daphne_sockets


class Transport:
    def __init__(self) -> None:
        self.paused = 0

    def pauseProducing(self) -> None:
        self.paused += 1


@pytest.fixture
def protocol() -> Any:
    daphne_sockets.install(stop_reading=frozenset({CLOSE_FLOOD}))
    made = daphne.ws_protocol.WebSocketProtocol()
    made.application_queue = asyncio.Queue()
    made.client_addr = None
    made.transport = Transport()
    return made


def test_frames_after_the_close_are_not_handed_to_the_application(protocol: Any) -> None:
    protocol.state = protocol.STATE_OPEN
    protocol.onMessage(b"before", False)
    protocol.state = protocol.STATE_CLOSING  # the application closed it
    protocol.onMessage(b"after", False)
    protocol.onMessage(b"after", True)
    assert protocol.application_queue.qsize() == 1
    assert protocol.application_queue.get_nowait() == {
        "type": "websocket.receive",
        "text": "before",
    }


@pytest.mark.parametrize(("code", "paused"), [(CLOSE_FLOOD, 1), (1000, 0), (4404, 0)])
def test_only_the_flood_close_stops_the_reading(protocol: Any, code: int, paused: int) -> None:
    sent: list[int | None] = []
    protocol.sendClose = lambda code=None, reason=None: sent.append(code)
    protocol.serverClose(code=code)
    assert sent == [code]
    assert protocol.transport.paused == paused
