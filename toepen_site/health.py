"""`/healthz`: whether this server process can do its work, for nginx, systemd and monitoring.

200 when the database answers and, when REDIS_URL is set, Redis answers; 503 otherwise, naming
what is down, one line each:

    database ok
    redis down

It reads no session and sets no cookie, takes no throttle and needs no CSRF token (a GET).
Over a Unix socket, without the site's name, ask it with a Host the site allows:

    python -m toepen_site.health /run/toepen/uvicorn-1.sock     # exit 0 when healthy
    python -m toepen_site.health --wait 60 /run/toepen/uvicorn-1.sock   # until it is, or 1
"""

from __future__ import annotations

import http.client
import logging
import os
import socket
import sys
import time
from http import HTTPStatus

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from redis.exceptions import RedisError

log = logging.getLogger(__name__)


def database_answers() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except DatabaseError as error:
        log.warning("health check: the database does not answer (%s)", error)
        return False


def redis_answers() -> bool:
    try:
        return bool(cache.ping())  # type: ignore[attr-defined]
    except RedisError as error:
        log.warning("health check: Redis does not answer (%s)", error)
        return False


@require_safe
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    checks = {"database": database_answers()}
    if settings.REDIS_URL:
        checks["redis"] = redis_answers()
    body = "".join(f"{name} {'ok' if up else 'down'}\n" for name, up in checks.items())
    status = HTTPStatus.OK if all(checks.values()) else HTTPStatus.SERVICE_UNAVAILABLE
    response = HttpResponse(body, status=status, content_type="text/plain; charset=utf-8")
    # What is down was logged above, once a check; Django's request log would add a line more.
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


# -- the probe: `python -m toepen_site.health SOCKET` -----------------------------------------


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def site_host() -> str:
    """A Host the site answers to: the first of DJANGO_ALLOWED_HOSTS (a leading dot, which
    allows the subdomains too, taken off; `*` as localhost)."""
    host = settings.ALLOWED_HOSTS[0] if settings.ALLOWED_HOSTS else "localhost"
    return "localhost" if host == "*" else host.lstrip(".")


def probe(path: str, timeout: float = 15) -> tuple[int, str]:
    """Ask the server on the Unix socket `path` for /healthz: its status and body (plain http:
    production does not redirect this path to https, SECURE_REDIRECT_EXEMPT)."""
    conn = _UnixConnection(path, timeout)
    try:
        conn.request("GET", "/healthz", headers={"Host": site_host()})
        response = conn.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        conn.close()


def main(argv: list[str]) -> int:
    """`[--wait SECONDS] SOCKET`: 0 when the server on SOCKET is healthy; with --wait, asked
    again until it is (a process starting up) or the seconds have passed."""
    wait = 0.0
    if len(argv) == 3 and argv[0] == "--wait":
        wait, argv = float(argv[1]), argv[2:]
    if len(argv) != 1:
        print("usage: python -m toepen_site.health [--wait SECONDS] SOCKET", file=sys.stderr)
        return 2
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
    deadline = time.monotonic() + wait
    while True:
        try:
            status, body = probe(argv[0])
        except OSError as error:
            status, body = 0, f"{argv[0]}: no answer ({error})"
        if status == HTTPStatus.OK or time.monotonic() >= deadline:
            break
        time.sleep(0.5)
    print(body.strip() or status, file=sys.stdout if status else sys.stderr)
    return 0 if status == HTTPStatus.OK else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
