"""Redis stopped under a running server (uvicorn on PostgreSQL): Redis is a cache here, so table
pages, starting a rubber, wrong codes and websocket handshakes go on (their rate limits and
socket slots let everyone through), the server says so once in its log, and its health check
names Redis as down until it answers again.

The Redis is a private `redis-server` this test starts on a free port and SIGKILLs: the
machine's shared one is never stopped."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import require_service
from tests.scaleout.http import Browser
from tests.scaleout.phones import Phone, Signal
from tests.scaleout.servers import (
    CALM_TIMERS,
    Daphne,
    PostgresDatabase,
    base_env,
    free_port,
    port_open,
    seed,
)

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

REDIS_SERVER = "/usr/bin/redis-server"


class PrivateRedis:
    """A redis-server of this test's own, without persistence, on `port`."""

    def __init__(self, port: int, log: Path) -> None:
        self.port, self.log = port, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 10
        while not port_open(self.port):
            assert self.proc.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, "redis-server did not listen"
            time.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    require_service(f"redis-server at {REDIS_SERVER}", shutil.which(REDIS_SERVER) is not None)
    redis = PrivateRedis(free_port(), tmp_path / "redis.log")
    redis.start()
    try:
        yield redis
    finally:
        redis.kill()


def test_with_redis_stopped_nothing_answers_500_and_the_health_check_says_why(
    postgres: PostgresDatabase, private_redis: PrivateRedis, tmp_path: Path
) -> None:
    env = base_env(
        DATABASE_URL=postgres.url,
        REDIS_URL=f"redis://127.0.0.1:{private_redis.port}/0",
        DJANGO_LOG_LEVEL="INFO",
        **CALM_TIMERS,
    )
    (table,) = seed(env)
    code = table["code"]
    phone = table["phones"][0]
    server = Daphne(env, tmp_path / "uvicorn.log", server="uvicorn").start()
    try:
        player = Browser(port=server.port, cookies={"sessionid": phone["session"]})
        assert player.get(f"/t/{code}/").status == 200
        assert player.get("/healthz").body == "database ok\nredis ok\n"

        private_redis.kill()

        health = player.get("/healthz")
        assert (health.status, health.body) == (503, "database ok\nredis down\n")
        for _ in range(3):
            assert player.get(f"/t/{code}/").status == 200
        # The rubber is on already: starting it is refused with a message, not a 500.
        start = player.post_form(f"/t/{code}/", f"/t/{code}/start/")
        assert start.status == 302, start.body[:500]
        stranger = Browser(port=server.port)
        assert stranger.get("/play/?code=ZZZZZZ").status == 200
        assert stranger.get("/t/ZZZZZZ/").status == 404
        # A failed sign-in (its limits count in the cache too) is told so, not a 500.
        signin = stranger.post_form(
            "/accounts/login/", "/accounts/login/", {"login": "nobody", "password": "wrong"}
        )
        assert signin.status == 200 and "errorlist" in signin.body, signin.body[:300]
        # A phone that dropped comes back: its handshake takes no counted slot, and it is
        # sent its view.
        asyncio.run(_a_phone_connects(code, phone, server.port))

        log = server.log()
        assert log.count("rate limits and socket slots are not counted") == 1, log
        assert log.count("Service Unavailable") == 0, log  # the health check's own line only
        assert "Internal Server Error" not in log and "Traceback" not in log, log

        private_redis.start()
        assert player.get("/healthz").status == 200
        assert player.get(f"/t/{code}/").status == 200
        assert "Redis answers again" in server.log()
    finally:
        server.stop()


async def _a_phone_connects(code: str, phone: dict[str, object], port: int) -> None:
    signal = Signal()
    dialled = Phone(str(phone["name"]), int(str(phone["seat"])), str(phone["session"]), code,
                    port, signal, reconnect_for=5)  # fmt: skip
    try:
        await dialled.open(timeout=15)
        assert dialled.latest.version >= 0
    finally:
        with contextlib.suppress(Exception):
            await dialled.close()
