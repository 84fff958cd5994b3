"""ASGI entry point: HTTP through Django, websockets through Channels (served by daphne or
uvicorn: README, "Which server")."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.live.clock import lifespan, start_with_server  # noqa: E402
from games.live.routing import websocket_urlpatterns  # noqa: E402
from toepen_site.security import SameOriginValidator  # noqa: E402
from toepen_site.unavailable import DatabaseDownGuard  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Scheme, host and port of the Origin, not only its host (toepen_site/security.py).
        "websocket": SameOriginValidator(
            DatabaseDownGuard(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
        # uvicorn starts the table clock with the server through the lifespan protocol.
        "lifespan": lifespan,
    }
)

# Daphne has no lifespan events: start the table clock as soon as its loop runs, so pending
# deadlines fire after a restart even before any phone reconnects (uvicorn: `lifespan`).
start_with_server()
