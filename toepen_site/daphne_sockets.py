"""Daphne's websockets, made to stop reading a socket the application has closed.

Daphne reads a websocket as fast as its client writes and hands every frame to the application's
queue, which has no limit; after the application has closed the socket it goes on reading and
queueing, until the client answers the close (its answer queued behind all it sent before) or
the close handshake times out (autobahn's second). A client flooding frames makes the process
parse and queue tens of thousands of them after the table closed its socket with 4429, and
every other phone and page of the process waits for the loop meanwhile. uvicorn reads a socket
only as fast as the application takes its frames, and none after the close.

`install` changes daphne's websocket protocol, in the daphne process only, so that:

- a frame that arrives after the application closed the socket is not handed to it (ASGI's
  rule: after `websocket.close` the application hears only the disconnect);
- once the application closes a socket with one of the `stop_reading` codes (the flood close),
  nothing more is read from it: the client's frames wait in the system's buffers until the
  close handshake's timeout drops the connection, a second later. The client was sent the
  close, with its code, before.
"""

from __future__ import annotations

import sys
from typing import Any

_installed: set[int] = set()


def install(stop_reading: frozenset[int]) -> None:
    """Under daphne (its websocket protocol already imported by its command), once per
    process; anywhere else (uvicorn, a test, a management command) nothing."""
    module = sys.modules.get("daphne.ws_protocol")
    if module is None or _installed:
        return
    protocol: Any = module.WebSocketProtocol
    on_message = protocol.onMessage
    server_close = protocol.serverClose

    def onMessage(self: Any, payload: bytes, isBinary: bool) -> None:
        if self.state != self.STATE_OPEN:
            return  # closed: the application hears nothing more but the disconnect
        on_message(self, payload, isBinary)

    def serverClose(self: Any, code: int | None = None) -> None:
        server_close(self, code)
        if code in stop_reading and self.transport is not None:
            self.transport.pauseProducing()

    protocol.onMessage = onMessage
    protocol.serverClose = serverClose
    _installed.update(stop_reading)
