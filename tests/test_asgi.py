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
