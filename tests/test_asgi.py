"""The server process as uvicorn or daphne starts it (toepen_site/asgi.py)."""

import subprocess
import sys

from tests.scaleout.servers import REPO, base_env

LOOK = """
import gc
import toepen_site.asgi
print(gc.get_threshold()[0], gc.get_freeze_count())
"""


def test_the_server_freezes_what_start_up_made_and_collects_the_young_rarely():
    # A fresh process: the test run's own imports and collections must not decide it.
    out = subprocess.run(
        [sys.executable, "-c", LOOK],
        cwd=REPO,
        env=base_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    youngest, frozen = int(out[0]), int(out[1])
    assert youngest >= 50_000
    # Django's and the app's modules, settings and URL patterns: tens of thousands of objects.
    assert frozen > 10_000


async def test_a_socket_gets_its_session_and_sends_its_frames_without_the_session_wrapper():
    from django.conf import settings

    from toepen_site.sessions import SocketSessionMiddleware

    seen = {}

    async def inner(scope, receive, send):
        seen["session_key"] = scope["session"].session_key
        seen["send"] = send

    async def server_send(message):
        pass

    cookie = {settings.SESSION_COOKIE_NAME: "a-session-key"}
    app = SocketSessionMiddleware(inner)
    await app({"type": "websocket", "cookies": cookie}, None, server_send)
    # The browser's session is in the scope, and the frames go straight to the server.
    assert seen["session_key"] == "a-session-key"
    assert seen["send"] is server_send
    # An HTTP response still goes through Channels' wrapper, which saves the session.
    await app({"type": "http", "cookies": cookie}, None, server_send)
    assert seen["send"] is not server_send
