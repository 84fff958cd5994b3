"""Faults in a cluster of two daphne processes on PostgreSQL: a table whose row another
transaction holds, a writer killed between its commit and telling anyone, Redis that stops
answering, a process's listening connection cut by the database. Each costs the other tables
and the other process's phones nothing, or at most a second.

Phones of each table sit on both processes (seats 0 and 2 on A, 1 and 3 on B), as in
test_two_servers.py. The bot tables play by themselves on the processes' clocks.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.scaleout.conftest import close_all, seat_phones
from tests.scaleout.phones import Phone, Signal, Table, View, new_id
from tests.scaleout.servers import (
    CALM_TIMERS,
    SUPPORTED,
    Daphne,
    PostgresDatabase,
    RedisDatabase,
    StallingRelay,
    base_env,
    seed,
)

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.server]

FAULT_ENV = {
    **CALM_TIMERS,
    # Computer players at a brisk, steady pace: a table that stops moving stands out.
    "TOEPEN_BOT_SECONDS": "0.2",
    "TOEPEN_BETWEEN_HANDS_SECONDS": "0.5",
    # No heartbeat round (which catches phones up with the database) within any test's
    # window: a change must reach the phones by itself.
    "TOEPEN_HEARTBEAT_SECONDS": "60",
    "DATABASE_LOCK_TIMEOUT_MS": "1000",
}
# A committed change reaches the other process's phones within this, whatever the writer does:
# well before any other way could bring it (the heartbeat above, Redis's socket timeout of 30 s),
# and long enough for a busy machine.
REACH_SECONDS = 15


@dataclass
class Faulty:
    env: dict[str, str]
    a: Daphne
    b: Daphne
    relay: StallingRelay
    database: PostgresDatabase

    def ensure_running(self) -> None:
        for server in (self.a, self.b):
            if not server.running:
                server.start()

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.database.connect() as conn:
            return list(conn.execute(sql, params).fetchall())

    def version(self, table_id: int) -> int:
        ((version,),) = self.query("SELECT version FROM games_table WHERE id = %s", (table_id,))
        return int(version)

    @contextlib.contextmanager
    def holding(self, sql: str, params: tuple[Any, ...]) -> Iterator[None]:
        """A transaction of the test's own holds the rows `sql` locks (FOR UPDATE) until the
        block ends: a table whose row a stuck process holds."""
        import psycopg

        with psycopg.connect(self.database.url.replace("postgres://", "postgresql://")) as conn:
            assert conn.execute(sql, params).fetchall(), "nothing to hold"
            yield
            conn.commit()


@pytest.fixture(scope="module", params=SUPPORTED)
def faulty(
    request: pytest.FixtureRequest,
    postgres: PostgresDatabase,
    redis_db: RedisDatabase,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Faulty]:
    logs = tmp_path_factory.mktemp(f"faults-{request.param}")
    relay = StallingRelay().start()
    redis_url = f"redis://127.0.0.1:{relay.port}/{redis_db.number}"
    env = base_env(DATABASE_URL=postgres.url, REDIS_URL=redis_url, **FAULT_ENV)
    a = Daphne(env, logs / "a.log", server=request.param)
    b = Daphne(env, logs / "b.log", server=request.param)
    try:
        a.start()
        b.start()
        yield Faulty(env, a, b, relay, postgres)
    finally:
        a.stop()
        b.stop()
        relay.stop()


def ports(faulty: Faulty) -> list[int]:
    return [faulty.a.port, faulty.b.port, faulty.a.port, faulty.b.port]


async def people_table(faulty: Faulty) -> tuple[dict[str, Any], Table]:
    faulty.ensure_running()
    (info,) = await asyncio.to_thread(seed, faulty.env)
    return info, await seat_phones(info, ports(faulty), Signal())


async def due_on(table: Table, port: int, rng: random.Random) -> tuple[Phone, View]:
    """Play on until the due player's phone is on the process at `port`."""
    for _ in range(12):
        view = await table.agreed()
        phone = table.holder_of(view.due_seats()[0])
        if phone.port == port:
            return phone, view
        acted = await table.step(rng)
        assert acted is not None, "the hand ended"
        await table.seen_by_all(acted[1])
    raise AssertionError("no phone on that process was due")


async def play_a_card(table: Table, phone: Phone, view: View) -> dict[str, Any]:
    """The phone plays one of its cards (an action that never ends the hand this early)."""
    frame = next(dict(o) for o in phone.latest.offers(phone.seat) if o["act"] == "play")
    frame["id"] = new_id()
    table.sent.append(frame)
    await phone.act(frame, view.version)
    return frame


async def reached(phones: list[Phone], version: int, signal: Signal, timeout: float) -> float:
    """Seconds until every one of `phones` holds `version` (or newer)."""
    start = time.perf_counter()
    await signal.until(
        lambda: all(p.views and p.latest.version >= version for p in phones),
        timeout,
        f"{[p.name for p in phones]} to see version {version}",
    )
    return time.perf_counter() - start


async def moved_on(faulty: Faulty, table_id: int, timeout: float, versions: int = 1) -> None:
    """Wait until the table's version moves on by `versions` (polled every 50 ms); `timeout`
    only bounds a table that stopped."""
    first = await asyncio.to_thread(faulty.version, table_id)
    deadline = time.monotonic() + timeout
    while await asyncio.to_thread(faulty.version, table_id) < first + versions:
        assert time.monotonic() < deadline, f"table {table_id} did not move in {timeout} s"
        await asyncio.sleep(0.05)


# -- a table whose row another transaction holds -------------------------------------------------


async def test_a_table_whose_row_is_held_stops_no_other_tables_clock(faulty: Faulty) -> None:
    faulty.ensure_running()
    held, free = await asyncio.to_thread(seed, faulty.env, tables=0, lives=30, bots=2)
    # A process's clock finds a table another process seeded within its next look (a second):
    # its pace is measured from its first move on.
    await moved_on(faulty, free["id"], 30)
    # The held table's deadline comes within a bot's pause and stays due: both processes'
    # clocks meet it first, at every look, and the other table plays on all the while.
    with faulty.holding("SELECT id FROM games_table WHERE id = %s FOR UPDATE", (held["id"],)):
        version = await asyncio.to_thread(faulty.version, held["id"])
        await moved_on(faulty, free["id"], 60, versions=6)
        assert await asyncio.to_thread(faulty.version, held["id"]) == version
    # The held table goes on once it is free.
    await moved_on(faulty, held["id"], 30)


async def test_an_action_at_a_table_whose_row_is_held_is_refused_as_busy(faulty: Faulty) -> None:
    info, table = await people_table(faulty)
    rng = random.Random(4)
    try:
        phone, view = await due_on(table, faulty.a.port, rng)
        with faulty.holding("SELECT id FROM games_table WHERE id = %s FOR UPDATE", (info["id"],)):
            frame = await play_a_card(table, phone, view)
            # The lock timeout is 1 s in these servers: a refusal, not a wait without end.
            await table.signal.until(lambda: bool(phone.errors), 4, "a refusal")
        assert "busy" in phone.errors[-1], phone.errors
        assert all(p.latest.version == view.version for p in table.phones)
        # Nothing was written: the same frame (same id) goes through now.
        await phone.send(frame)
        await table.seen_by_all(view.version, timeout=5)
    finally:
        await close_all(table)


# -- a committed change reaches the other process ------------------------------------------------


async def test_a_change_whose_writer_dies_right_after_its_commit_reaches_the_other_process(
    faulty: Faulty,
) -> None:
    """The writer's commit lands while the writer is stopped, and the writer is killed: it never
    tells anyone of the change. (Its quick action, one statement, waits for a row the test
    holds; the test stops the writer, lets the row go, and PostgreSQL commits the statement.)"""
    info, table = await people_table(faulty)
    rng = random.Random(5)
    try:
        phone, view = await due_on(table, faulty.a.port, rng)
        ((hand,),) = await asyncio.to_thread(
            faulty.query,
            "SELECT h.id FROM games_playedhand h JOIN games_rubber r ON r.id = h.rubber_id"
            " WHERE r.table_id = %s ORDER BY r.number DESC, h.number DESC LIMIT 1",
            (info["id"],),
        )
        with faulty.holding("SELECT id FROM games_playedhand WHERE id = %s FOR UPDATE", (hand,)):
            await play_a_card(table, phone, view)
            await until(lambda: faulty.query(WAITING), 5, "the write to wait for the hand's row")
            faulty.a.pause()
        await until(
            lambda: faulty.version(info["id"]) > view.version,
            5,
            "the stopped writer's statement to commit",
        )
        await asyncio.to_thread(faulty.a.kill)
        on_b = [p for p in table.phones if p.port == faulty.b.port]
        seconds = await reached(on_b, view.version + 1, table.signal, REACH_SECONDS)
        print(f"reached the other process {seconds * 1000:.0f} ms after the commit")
    finally:
        await close_all(table)
        faulty.ensure_running()


WAITING = (
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
    " AND wait_event_type = 'Lock' AND backend_type = 'client backend'"
)


async def until(ready: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not await asyncio.to_thread(ready):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)


async def test_a_change_reaches_the_other_process_while_redis_answers_nothing(
    faulty: Faulty,
) -> None:
    _, table = await people_table(faulty)
    rng = random.Random(6)
    try:
        phone, view = await due_on(table, faulty.a.port, rng)
        faulty.relay.stall()
        try:
            await play_a_card(table, phone, view)
            await table.seen_by_all(view.version, timeout=REACH_SECONDS)
        finally:
            faulty.relay.resume()
    finally:
        await close_all(table)


async def test_a_process_whose_listening_connection_was_cut_catches_up(faulty: Faulty) -> None:
    """B's connection that hears the changes is cut by the database while B is stopped, and a
    change is committed meanwhile: when B runs again it connects again and catches up."""
    _, table = await people_table(faulty)
    rng = random.Random(7)
    try:
        phone, view = await due_on(table, faulty.a.port, rng)
        faulty.b.pause()
        try:
            assert faulty.b.proc is not None
            cut = faulty.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND application_name = %s",
                (f"toepen-hub {faulty.b.proc.pid}",),
            )
            assert cut == [(True,)], "B listens on one connection"
            await play_a_card(table, phone, view)
            on_a = [p for p in table.phones if p.port == faulty.a.port]
            await reached(on_a, view.version + 1, table.signal, REACH_SECONDS)
        finally:
            faulty.b.resume()
        on_b = [p for p in table.phones if p.port == faulty.b.port]
        await reached(on_b, view.version + 1, table.signal, REACH_SECONDS)
    finally:
        await close_all(table)
