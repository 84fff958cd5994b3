"""Two daphne processes, one PostgreSQL database, one Redis cache, one table.

Phones of the same table sit on different processes (seats 0 and 2 on A, 1 and 3 on B), so every
turn crosses from one process to the other as a PostgreSQL notice.
"""

from __future__ import annotations

import asyncio
import random
from http.client import HTTPConnection

import pytest

from tests.scaleout.conftest import Cluster, assert_one_story, close_all, seat_phones, stored_hand
from tests.scaleout.phones import Signal
from tests.scaleout.servers import SUPPORTED, seed

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.server]

# Longer than redis-py 8's default socket timeout (5 s): a process whose connections sat idle
# that long still hears the other's changes.
IDLE_SECONDS = 6.5


def ports(cluster: Cluster) -> list[int]:
    return [cluster.a.port, cluster.b.port, cluster.a.port, cluster.b.port]


async def test_phones_on_two_servers_see_the_same_versions_and_result(cluster: Cluster) -> None:
    cluster.ensure_running()
    (info,) = await asyncio.to_thread(seed, cluster.env)
    table = await seat_phones(info, ports(cluster), Signal())
    try:
        final = await table.play_hand(random.Random(1))
        stored = await asyncio.to_thread(stored_hand, cluster.query, info["id"])
        assert_one_story(table, final, stored, full=table.phones)
        assert all(phone.connections == 1 for phone in table.phones)
        assert not any(phone.errors for phone in table.phones)
    finally:
        await close_all(table)


async def test_a_socket_idle_longer_than_redis_timeouts_still_gets_updates(
    cluster: Cluster,
) -> None:
    cluster.ensure_running()
    (info,) = await asyncio.to_thread(seed, cluster.env)
    table = await seat_phones(info, ports(cluster), Signal())
    try:
        view = await table.agreed()
        # Nothing at all crosses between the processes meanwhile: the idle time is the test.
        await asyncio.sleep(IDLE_SECONDS)
        acted = await table.step(random.Random(2))
        assert acted is not None
        phone, version = acted
        await table.seen_by_all(version, timeout=5)
        # The other server's phones heard it too, on the sockets they opened before the wait.
        others = [p for p in table.phones if p.port != phone.port]
        assert len(others) == 2
        assert all(p.latest.version == view.version + 1 for p in table.phones)
        assert all(p.connections == 1 for p in table.phones)
        for server in (cluster.a, cluster.b):
            assert "Timeout" not in server.log(), server.log()[-2000:]
    finally:
        await close_all(table)


async def test_a_server_killed_mid_hand_restarts_and_the_hand_goes_on(cluster: Cluster) -> None:
    cluster.ensure_running()
    (info,) = await asyncio.to_thread(seed, cluster.env)
    table = await seat_phones(info, ports(cluster), Signal())
    rng = random.Random(3)
    try:
        await table.play(rng, 3)
        # The next action a phone on A sends: A dies (SIGKILL) right behind it, so the action
        # may or may not have been applied; its phone does not know which.
        while True:
            acted = await table.step(rng)
            assert acted is not None, "the hand ended before a phone on A was due"
            phone, version = acted
            if phone.port == cluster.a.port:
                await asyncio.to_thread(cluster.a.kill)
                break
            await table.seen_by_all(version)
        killed_at = version
        on_a = [p for p in table.phones if p.port == cluster.a.port]
        on_b = [p for p in table.phones if p.port == cluster.b.port]
        await table.signal.until(
            lambda: not any(p.connected for p in on_a), 5, "A's phones to notice"
        )

        await asyncio.to_thread(cluster.a.start)  # the same port, a new process
        # The action may have been written and shown to every phone before the kill: then the
        # views alone do not say A's phones are back.
        await table.signal.until(
            lambda: all(p.connected for p in on_a), 30, "A's phones to reconnect"
        )
        await table.seen_by_all(killed_at, timeout=30)
        assert all(p.connections == 2 for p in on_a)
        assert all(p.connections == 1 for p in on_b)

        # A retry of an action already applied (same id) changes nothing.
        view = await table.agreed()
        retried = table.sent[-1]
        frames_before = len(phone.views)
        await phone.send(retried)
        await table.signal.until(lambda: len(phone.views) > frames_before, 5, "the resent view")
        assert phone.latest.version == view.version
        assert (await table.agreed()).version == view.version

        final = await table.play_hand(rng)
        stored = await asyncio.to_thread(stored_hand, cluster.query, info["id"])
        assert_one_story(table, final, stored, full=on_b)
        assert not any(p.errors for p in table.phones)
    finally:
        await close_all(table)


def test_wrong_codes_tried_at_one_server_count_at_the_other(cluster: Cluster) -> None:
    """The throttles count in the shared cache: spreading guesses over processes gains nothing."""
    cluster.ensure_running()

    # From an address of its own, so the other tests' client is not the one held back (one for
    # each server the cluster runs under: the cache, and its counts, are the session's).
    client = f"127.0.0.{2 + SUPPORTED.index(cluster.a.server)}"

    def status(port: int, code: str) -> int:
        conn = HTTPConnection("127.0.0.1", port, timeout=10, source_address=(client, 0))
        try:
            conn.request("GET", f"/play/?code={code}")
            return conn.getresponse().status
        finally:
            conn.close()

    # TOEPEN_CODE_GUESS_RATE's default: 20 wrong codes in ten minutes from one client.
    ports = [cluster.a.port, cluster.b.port] * 11
    answers = [status(port, f"ZZZ{n:03d}") for n, port in enumerate(ports[:21])]
    assert answers == [200] * 20 + [429]
