"""The database out of reach: a page says to try again (503), a phone is told to reconnect later.

A database that is down, restarting or refusing connections is the server's trouble, not a bug:
one warning in the log, no traceback, and an answer the visitor can act on.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Awaitable
from typing import Any

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.views import defaults

log = logging.getLogger(__name__)

DATABASE_DOWN = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 30
CLOSE_TRY_AGAIN = 1013  # RFC 6455 "try again later"; the phone's htmx reconnects by itself


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 page, except when the database was out of reach: a 503 saying to try again.

    Django calls this for an exception anywhere in a request, middleware included (a signed-in
    visitor's session is read before any view)."""
    error = sys.exc_info()[1]
    if not isinstance(error, DATABASE_DOWN):
        return defaults.server_error(request)
    log.warning(
        "%s %s: the database is out of reach (%s); answered 503",
        request.method,
        request.path,
        error,
    )
    # No request context: its processors (the user, messages) would ask the database again.
    response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    # Logged above as the warning it is; Django's request log would call any 5xx an error.
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


class DatabaseDownGuard:
    """Around a websocket application: when the database is out of reach (reading the session,
    looking up the table, acting), the phone is closed with 1013 so that it reconnects later."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        accepted = closed = False

        # A plain function handing back the server's own awaitable, not a coroutine around it:
        # every frame a phone is sent passes here (100-150 ns a frame spared, measured alone).
        def watched_send(message: dict[str, Any]) -> Awaitable[None]:
            nonlocal accepted, closed
            accepted = accepted or message["type"] == "websocket.accept"
            closed = closed or message["type"] == "websocket.close"
            return send(message)

        try:
            await self.inner(scope, receive, watched_send)
        except DATABASE_DOWN as error:
            log.warning(
                "websocket %s: the database is out of reach (%s); closed with %d",
                scope.get("path"),
                error,
                CLOSE_TRY_AGAIN,
            )
            if closed:
                return
            if not accepted:
                # A close before the handshake reaches the phone as 1006, without a reason.
                await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN})
