"""Sessions and signed-in users for the websockets (Channels' stack, minus a cost per frame)."""

from typing import Any

from channels.auth import AuthMiddleware
from channels.sessions import CookieMiddleware, InstanceSessionWrapper, SessionMiddleware


class SocketSessionMiddleware(SessionMiddleware):
    """Channels' session middleware, which puts the browser's session in the scope, without
    its wrapper around every frame a socket sends: that wrapper saves the session or sets its
    cookie only on the start of an HTTP response, which a websocket never sends, yet it asked
    the session whether it had changed for each of the views a server sends (2% of a busy
    server's CPU). HTTP keeps the wrapper."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket":
            return await super().__call__(scope, receive, send)
        wrapper = InstanceSessionWrapper(scope, send)
        await wrapper.resolve_session()
        return await self.inner(wrapper.scope, receive, send)


def socket_auth_stack(inner: Any) -> Any:
    """Channels' `AuthMiddlewareStack` with `SocketSessionMiddleware` for its sessions."""
    return CookieMiddleware(SocketSessionMiddleware(AuthMiddleware(inner)))
