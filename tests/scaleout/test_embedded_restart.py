"""The embedded default (a SQLite file and the process's own cache, one daphne): a server
killed mid-hand and started again loses nothing, and its phones carry on."""

from __future__ import annotations

import asyncio
import os
import random

import pytest

from tests.scaleout.conftest import Embedded, assert_one_story, close_all, seat_phones, stored_hand
from tests.scaleout.phones import Signal
from tests.scaleout.servers import seed, unix_path

pytestmark = pytest.mark.server


@pytest.mark.parametrize("listen", ["port", "unix"])
async def test_a_server_restart_loses_nothing(embedded: Embedded, listen: str) -> None:
    """On a port, or on a Unix socket as behind the proxy in production: there the killed
    server's socket file is still on disk when it starts again."""
    server = embedded.server
    if listen == "unix":
        await asyncio.to_thread(server.stop)
        server.unix = unix_path()
        await asyncio.to_thread(server.start)
    (info,) = await asyncio.to_thread(seed, embedded.env)
    table = await seat_phones(info, [server.port] * 4, Signal(), unix=server.unix)
    rng = random.Random(4)
    try:
        await table.play(rng, 5)
        acted = await table.step(rng)
        assert acted is not None
        _, version = acted
        await asyncio.to_thread(server.kill)
        await table.signal.until(
            lambda: not any(p.connected for p in table.phones), 5, "the phones to notice"
        )
        assert server.unix is None or os.path.exists(server.unix)

        await asyncio.to_thread(server.start)
        # The action may have been written and every phone shown it before the kill: then the
        # views alone do not say the phones are back.
        await table.signal.until(
            lambda: all(p.connected for p in table.phones), 30, "every phone to reconnect"
        )
        await table.seen_by_all(version, timeout=30)
        assert all(p.connections == 2 for p in table.phones)

        final = await table.play_hand(rng)
        stored = await asyncio.to_thread(stored_hand, embedded.query, info["id"])
        # Every phone lost its socket, so none is asked to have seen every version.
        assert_one_story(table, final, stored, full=[])
        assert not any(p.errors for p in table.phones)
    finally:
        await close_all(table)


async def test_the_clock_starts_with_the_server(embedded: Embedded) -> None:
    """What fell due while no server ran is fired as soon as one starts, before any phone
    connects: daphne starts the table clock with its reactor, uvicorn through the lifespan
    protocol (toepen_site/asgi.py). A table of computer players is due at once after its deal."""
    await asyncio.to_thread(embedded.server.stop)
    (bots,) = await asyncio.to_thread(seed, embedded.env, 0, 10, 1)

    def version() -> int:
        ((found,),) = embedded.query("SELECT version FROM games_table WHERE id = %s", (bots["id"],))
        return int(found)

    dealt = version()
    await asyncio.to_thread(embedded.server.start)
    for _ in range(100):
        if version() > dealt:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(
        f"the computer players did not move within 10 s ({embedded.server.server})"
    )
