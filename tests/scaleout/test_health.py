"""`/healthz` on a production server (DEBUG off, uvicorn on a Unix socket, PostgreSQL): asked
over the socket as the proxy and systemd ask it, 200 while the database answers and 503 naming
it once it does not; it sets no cookie and is not redirected to https."""

from __future__ import annotations

import secrets
import subprocess
from pathlib import Path

import pytest

from tests.conftest import require_service, service_reachable
from tests.scaleout.http import Browser
from tests.scaleout.servers import (
    PG_HOST,
    PG_PORT,
    PYTHON,
    REPO,
    Daphne,
    PostgresDatabase,
    base_env,
    migrate,
    unix_path,
)

pytestmark = pytest.mark.postgres

SITE = "toepen.example.nl"


def probe(env: dict[str, str], socket_path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "toepen_site.health", socket_path],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # a bound for a busy machine: it ends in seconds
        check=False,
    )


def test_the_health_check_answers_over_the_socket_and_names_a_database_that_is_gone(
    tmp_path: Path,
) -> None:
    require_service("PostgreSQL on 127.0.0.1:5432", service_reachable(PG_HOST, PG_PORT))
    database = PostgresDatabase().create()
    try:
        env = base_env(
            DATABASE_URL=database.url,
            DATABASE_POOL_TIMEOUT="2",
            DJANGO_DEBUG="false",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_ALLOWED_HOSTS=SITE,
            DJANGO_BEHIND_PROXY="true",
            DJANGO_STATIC_ROOT=str(tmp_path / "static"),
        )
        migrate(env)
        server = Daphne(env, tmp_path / "uvicorn.log", server="uvicorn", unix=unix_path())
        server.start()
        try:
            proxy = Browser(unix=server.unix, host=SITE)
            healthy = proxy.get("/healthz")
            assert (healthy.status, healthy.body) == (200, "database ok\n")
            assert "set-cookie" not in healthy.headers
            assert "no-cache" in healthy.headers["cache-control"]
            assert proxy.request("HEAD", "/healthz").status == 200
            # Any other page over plain http is sent to https: the health check alone is not.
            assert proxy.get("/").status == 301
            done = probe(env, str(server.unix))
            assert (done.returncode, done.stdout) == (0, "database ok\n"), done.stderr

            database.drop()

            down = proxy.get("/healthz")
            assert (down.status, down.body) == (503, "database down\n")
            done = probe(env, str(server.unix))
            assert (done.returncode, done.stdout) == (1, "database down\n"), done.stderr
        finally:
            server.stop()
        assert probe(env, str(server.unix)).returncode == 1  # nothing listens: unhealthy
    finally:
        database.drop()
