"""The documented proxy in front of two server processes (deploy/nginx/, docs/performance.md):
nginx with the project's own configuration files, only its port and the processes' Unix
sockets the test's.

Every socket of one table reaches one process (the one its code picks), so that process renders
each change once and fires the table's deadlines; the tables spread over both processes; a hand
played through the proxy reaches every phone; pages are served through it too; and the
processes know each phone by its own address, as the proxy forwards it, not by the proxy's.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from http.client import HTTPConnection
from pathlib import Path

import pytest
from django.conf import settings
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

from tests.conftest import require_service
from tests.scaleout.conftest import Cluster, close_all, seat_phones
from tests.scaleout.phones import Signal, dial
from tests.scaleout.servers import REPO, free_port, port_open, seed

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.server]

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
CONFIG = """
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 512; }}
http {{
    log_format routed '$uri $upstream_addr $status';
    access_log {dir}/access.log routed;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {repo}/deploy/nginx/toepen-http.conf;
    server {{
        listen 127.0.0.1:{port};
        include {repo}/deploy/nginx/toepen-locations.conf;
    }}
}}
"""


@pytest.fixture
def proxy(unix_cluster: Cluster, tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """nginx on a free port before the cluster's two processes, which listen on Unix sockets
    as in production; its port and access log."""
    require_service("nginx", Path(NGINX).exists())
    unix_cluster.ensure_running()
    port = free_port()
    (tmp_path / "toepen-servers.conf").write_text(
        f"server {unix_cluster.a.address};\nserver {unix_cluster.b.address};\n"
    )
    config = tmp_path / "nginx.conf"
    config.write_text(CONFIG.format(dir=tmp_path, repo=REPO, port=port))
    process = subprocess.Popen(
        [NGINX, "-p", str(tmp_path), "-c", str(config), "-g", "daemon off;"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 10
        while not port_open(port):
            if process.poll() is not None or time.monotonic() > deadline:
                output = process.stdout.read().decode() if process.stdout else ""
                errors = (
                    (tmp_path / "error.log").read_text()
                    if (tmp_path / "error.log").exists()
                    else ""
                )
                raise RuntimeError(f"nginx did not start:\n{output}\n{errors}")
            time.sleep(0.05)
        yield port, tmp_path / "access.log"
    finally:
        process.terminate()
        process.wait(10)


def routed(access_log: Path) -> dict[str, set[str]]:
    """Each table's code, and the processes its sockets reached (once they closed)."""
    reached: dict[str, set[str]] = {}
    for line in access_log.read_text().splitlines():
        uri, upstream, status = line.split(" ")
        if uri.startswith("/ws/tables/") and status == "101":
            reached.setdefault(uri.split("/")[3], set()).add(upstream)
    return reached


async def test_a_tables_sockets_reach_one_process_and_tables_spread(
    unix_cluster: Cluster, proxy: tuple[int, Path]
) -> None:
    cluster = unix_cluster
    port, access_log = proxy
    servers = {cluster.a.address, cluster.b.address}
    infos: list[dict] = []
    # Tables by a dozen until both processes serve some: the codes are random and the ring of
    # the consistent hash is not split half and half (two servers' points), so a dozen tables
    # all landed on one process once in a CI run; 60 on one would be a broken spread.
    while len(infos) < 60:
        more = await asyncio.to_thread(seed, cluster.env, 12)
        for info in more:
            table = await seat_phones(info, [port] * 4, Signal())
            await close_all(table)
        infos += more
        for _ in range(50):  # a socket is logged when it closes
            if len(routed(access_log)) == len(infos):
                break
            await asyncio.sleep(0.1)
        reached = routed(access_log)
        if set().union(*reached.values()) == servers:
            break
    assert sorted(reached) == sorted(info["code"] for info in infos)
    assert all(len(processes) == 1 for processes in reached.values()), reached
    assert set().union(*reached.values()) == servers  # both processes serve some


async def test_a_hand_played_through_the_proxy_reaches_every_phone(
    unix_cluster: Cluster, proxy: tuple[int, Path]
) -> None:
    cluster = unix_cluster
    port, _ = proxy
    (info,) = await asyncio.to_thread(seed, cluster.env)
    table = await seat_phones(info, [port] * 4, Signal())
    rng = random.Random(7)
    try:
        await table.play(rng, 4, timeout=5)
        assert all(phone.connections == 1 and not phone.errors for phone in table.phones)
    finally:
        await close_all(table)
    page = HTTPConnection("127.0.0.1", port, timeout=10)
    page.request("GET", "/accounts/login/")
    assert page.getresponse().status == 200


async def follow(port: int, code: str, address: str) -> tuple[ClientConnection, str]:
    """A phone at `address` (a loopback address of its own) following a slate by its code
    through the proxy, with no session; its first frame."""
    ws = await dial(
        f"ws://127.0.0.1:{port}/ws/slates/{code}/",
        origin=Origin(f"http://127.0.0.1:{port}"),
        open_timeout=5,
        local_addr=(address, 0),
    )
    first = await asyncio.wait_for(ws.recv(), 5)
    return ws, str(first)


async def test_phones_without_a_session_are_counted_by_their_own_address(
    unix_cluster: Cluster, proxy: tuple[int, Path]
) -> None:
    """A slate's followers hold no session: their sockets are counted by the phone's address
    (games/throttle.py). Behind the proxy that address reaches a process only in the proxy's
    `X-Forwarded-For`, which the process must believe (uvicorn `--forwarded-allow-ips`,
    daphne `--proxy-headers`): else every follower in the pub, and in every other pub, would
    be counted as the proxy, and past the limit all of them shut out."""
    port, _ = proxy
    (slate,) = await asyncio.to_thread(seed, unix_cluster.env, 0, slates=1)
    assert slate["slate"]
    # Two addresses of the loopback network of their own (all of 127/8 reaches this machine),
    # fresh each run: a count lives in the shared cache beyond the test.
    network = f"127.{secrets.randbelow(250) + 1}.{secrets.randbelow(250) + 1}"
    crowd, other = f"{network}.2", f"{network}.3"
    crowds: list[ClientConnection] = []
    try:
        # The servers' limit is the settings' default (their environment sets none).
        for _ in range(settings.TOEPEN_SOCKETS_PER_SESSION):
            ws, first = await follow(port, slate["code"], crowd)
            crowds.append(ws)
            assert 'id="slate-live"' in first, first
        ws, first = await follow(port, slate["code"], crowd)
        crowds.append(ws)
        assert "too many table pages open" in first, first
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        # Another phone, from another address, is counted apart.
        ws, first = await follow(port, slate["code"], other)
        crowds.append(ws)
        assert 'id="slate-live"' in first, first
    finally:
        await asyncio.gather(*(ws.close() for ws in crowds))
