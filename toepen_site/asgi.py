"""ASGI entry point: HTTP through Django, websockets through Channels (served by daphne or
uvicorn: docs/performance.md)."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.live.clock import lifespan, start_with_server  # noqa: E402
from games.live.consumers import CLOSE_FLOOD  # noqa: E402
from games.live.routing import websocket_urlpatterns  # noqa: E402
from toepen_site import daphne_sockets  # noqa: E402
from toepen_site.security import SameOriginValidator  # noqa: E402
from toepen_site.sessions import socket_auth_stack  # noqa: E402
from toepen_site.unavailable import DatabaseDownGuard  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Scheme, host and port of the Origin, not only its host (toepen_site/security.py).
        "websocket": SameOriginValidator(
            DatabaseDownGuard(socket_auth_stack(URLRouter(websocket_urlpatterns)))
        ),
        # uvicorn starts the table clock with the server through the lifespan protocol.
        "lifespan": lifespan,
    }
)

# Daphne has no lifespan events: start the table clock as soon as its loop runs, so pending
# deadlines fire after a restart even before any phone reconnects (uvicorn: `lifespan`).
start_with_server()
# Daphne reads no more from a socket closed for flooding (toepen_site/daphne_sockets.py).
daphne_sockets.install(stop_reading=frozenset({CLOSE_FLOOD}))

# The server's heap holds every table's snapshot, and a change frees almost all it makes by
# reference counting, so the cycle collector finds little: at the default thresholds (2,000
# objects) it ran hundreds of times a minute at 512 tables, one pass holding the loop for up to
# 50 ms and a full pass over the snapshots for 200 ms, the slowest actions' wait. Freeze what
# start-up made (a full pass no longer walks it) and collect the youngest objects every 50,000
# left alive instead of every 2,000. Every other pass also walks what the pass before it left
# and moves it to the oldest generation (the middle generation's threshold 0, where Python's is
# 10): what outlives two passes, as a phone's connection does, no longer gathers in the middle
# generation for one pass in twenty to walk all at once (after 4,800 phones had connected, that
# pass held the loop for 520 ms, where the others took about 100). Full passes stay as rare as
# before, one in 2,000.
gc.freeze()
gc.set_threshold(50_000, 0, 1_000)
