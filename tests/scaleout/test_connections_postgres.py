"""A server process on PostgreSQL holds a bounded number of connections, however many requests
and sockets it serves: its pool's (DATABASE_POOL_SIZE) and the live core's own two, the loop's
writer and the listening connection (games/services/store.py, games/live/notices.py).

The test serves a few hundred page views and health checks, then a hundred phones' sockets with
a few actions played, through a real server on a database of its own, and counts the server's
connections in `pg_stat_activity` all along."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.scaleout.conftest import close_all, migrated_postgres, seat_phones
from tests.scaleout.http import Browser
from tests.scaleout.phones import Signal, Table
from tests.scaleout.servers import (
    CALM_TIMERS,
    SUPPORTED,
    Daphne,
    PostgresDatabase,
    RedisDatabase,
    base_env,
    seed,
)

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

POOL = 4
# The live core's own: the loop's writer and the connection that listens for other processes'
# changes.
OWN = 2
TABLES = 25  # four phones each


@pytest.fixture(scope="module")
def database() -> Iterator[PostgresDatabase]:
    """A database of this test's own: nobody else's connections are counted."""
    with migrated_postgres() as database:
        yield database


class Counter:
    """The server's connections to `database`, sampled every 20 ms in a thread: the most seen."""

    def __init__(self, database: PostgresDatabase) -> None:
        self.conn = database.connect()
        self.name = database.name
        self.most = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def now(self) -> int:
        ((count,),) = self.conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (self.name,),
        ).fetchall()
        return int(count)

    def listening(self) -> int:
        ((count,),) = self.conn.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = %s AND application_name LIKE 'toepen-hub %%'",
            (self.name,),
        ).fetchall()
        return int(count)

    def _sample(self) -> None:
        while not self.stopping.wait(0.02):
            self.most = max(self.most, self.now())

    def __enter__(self) -> Counter:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)
        self.conn.close()


@pytest.mark.parametrize("server_name", SUPPORTED)
def test_a_server_holds_a_bounded_number_of_connections_however_many_requests_it_serves(
    server_name: str, database: PostgresDatabase, redis_db: RedisDatabase, tmp_path: Path
) -> None:
    env = base_env(
        DATABASE_URL=database.url,
        REDIS_URL=redis_db.url,
        DATABASE_POOL_SIZE=str(POOL),
        **CALM_TIMERS,
    )
    tables = seed(env, tables=TABLES)
    server = Daphne(env, tmp_path / f"{server_name}.log", server=server_name).start()
    try:
        with Counter(database) as counter:
            before = counter.now()
            assert before <= POOL + OWN

            def visit(n: int) -> int:
                table = tables[n % TABLES]
                phone = table["phones"][n % 4]
                browser = Browser(port=server.port, cookies={"sessionid": phone["session"]})
                path = "/healthz" if n % 3 == 0 else f"/t/{table['code']}/"
                return browser.get(path).status

            with ThreadPoolExecutor(16) as pool:
                statuses = list(pool.map(visit, range(300)))
            assert statuses.count(200) == 300, statuses
            after_pages = counter.now()

            during_sockets, listening = asyncio.run(_phones_play(tables, server.port, counter))
            after_sockets = counter.now()
            most = counter.most
        log = server.log()
    finally:
        server.stop()

    assert most <= POOL + OWN, (before, after_pages, during_sockets, after_sockets, most)
    assert after_pages <= POOL + OWN and after_sockets <= POOL + OWN
    # The live core's own connections are there and work: one process listens (the actions
    # above were written by the loop's writer and seen by every phone).
    assert listening == 1
    assert "Traceback" not in log, log


async def _phones_play(
    tables: list[dict[str, Any]], port: int, counter: Counter
) -> tuple[int, int]:
    """Every table's four phones connected at once, three actions played at each of five
    tables; the server's connections counted while they are all open."""
    signal = Signal()
    seated: list[Table] = []
    try:
        for info in tables:
            seated.append(await seat_phones(info, [port] * 4, signal))
        rng = random.Random(7)
        for table in seated[:5]:
            await table.play(rng, 3)
        return await asyncio.to_thread(counter.now), await asyncio.to_thread(counter.listening)
    finally:
        for table in seated:
            await close_all(table)
