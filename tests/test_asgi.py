"""The server process as uvicorn or daphne starts it (toepen_site/asgi.py)."""

import subprocess
import sys

import pytest

from tests.scaleout.servers import REPO, base_env

pytestmark = pytest.mark.slow  # a process of its own

LOOK = """
import gc
import toepen_site.asgi
print(gc.get_threshold()[0], gc.get_freeze_count())
gc.collect()  # the count from 0: a pass at every 50,000 objects made from here
kept = []  # as a phone's connection: alive through two passes of the collector
passes = []
gc.callbacks.append(lambda phase, info: phase == "stop" and passes.append(info["generation"]))
made = [[] for _ in range(60_000)]  # the first pass
made += [[] for _ in range(60_000)]  # the second
print(passes, any(o is kept for o in gc.get_objects(2)))
"""


def test_the_server_freezes_start_up_collects_rarely_and_sets_aside_what_lives_on():
    # A fresh process: the test run's own imports and collections must not decide it.
    out = subprocess.run(
        [sys.executable, "-c", LOOK],
        cwd=REPO,
        env=base_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    youngest, frozen = map(int, out[0].split())
    assert youngest >= 50_000
    # Two passes over what was made, the second also walking what the first left: what lived
    # through both is in the oldest generation, where only the rare full passes walk it, not
    # gathered with thousands of phones' connections for one long pass (toepen_site/asgi.py).
    assert out[1] == "[0, 1] True"
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
