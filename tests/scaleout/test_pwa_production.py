"""The installable app's files as production serves them: DEBUG off, `collectstatic` done
(hashed names, ServeStatic), a real server. The manifest, the service worker, the offline page,
every icon the manifest names and every file the worker precaches answer 200."""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path

from tests.scaleout.http import Browser
from tests.scaleout.servers import Daphne, base_env, migrate, run

PRECACHE = re.compile(r"^const PRECACHE = \[(.*)\];$", re.M)
STATIC = re.compile(r'^const STATIC = "([^"]*)";$', re.M)


def test_every_file_of_the_installable_app_is_served_in_production(tmp_path: Path) -> None:
    env = base_env(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_STATIC_ROOT=str(tmp_path / "static"),
    )
    migrate(env)
    run(["manage.py", "collectstatic", "--noinput", "-v", "0"], env, timeout=300)
    server = Daphne(env, tmp_path / "uvicorn.log", server="uvicorn").start()
    try:
        phone = Browser(port=server.port)
        manifest = phone.get("/manifest.webmanifest")
        assert manifest.status == 200
        icons = [icon["src"] for icon in json.loads(manifest.body)["icons"]]
        assert len(icons) == 4

        worker = phone.get("/sw.js")
        assert worker.status == 200, worker.body[:300]
        assert worker.headers["service-worker-allowed"] == "/"
        static = STATIC.search(worker.body)
        assert static is not None and static[1] == "/static/"
        listed = PRECACHE.search(worker.body)
        assert listed is not None
        precached = json.loads(f"[{listed[1]}]")
        assert "/offline/" in precached

        assert phone.get("/offline/").status == 200
        for url in [*icons, *precached]:
            answer = phone.get(url)
            assert answer.status == 200, url
        # Production names the files by their content, so a phone may keep them a year.
        hashed = [url for url in [*icons, *precached] if url.startswith("/static/")]
        assert hashed and all(re.search(r"\.[0-9a-f]{12}\.", url) for url in hashed), hashed
    finally:
        server.stop()
