"""The server's own faults are no player's: a database that refuses every connection for
longer than a phone's grace, and a server down for longer than it, put nobody on a break,
play for nobody and pause no table whose players' phones are there.

The database outage: the test's own database stops taking connections (`ALLOW_CONNECTIONS
false`) and every session on it is ended, on the machine's PostgreSQL, which itself keeps
running for everyone else; then it takes them again. The phones ping as static/js/table.js
does, so the servers go by what each one sends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.scaleout.conftest import close_all
from tests.scaleout.phones import Phone, Signal, Table, new_id
from tests.scaleout.servers import (
    CALM_TIMERS,
    SUPPORTED,
    Daphne,
    PostgresDatabase,
    _pg_connect,
    base_env,
    migrate,
    seed,
    start_rubber,
)

GRACE = 2.0
ROUND = 0.5
CLOCKS = {
    **CALM_TIMERS,
    "TOEPEN_GRACE_SECONDS": str(GRACE),
    "TOEPEN_HEARTBEAT_SECONDS": str(ROUND),
    # A request waits at most a second for a connection the database refuses.
    "DATABASE_POOL_TIMEOUT": "1",
}


async def pinging_phones(env: dict[str, str], ports: list[int]) -> tuple[dict[str, Any], Table]:
    """A table of four whose phones, at `ports` by seat, ping as static/js/table.js does; its
    rubber starts once every phone is connected (a grace is short here)."""
    (info,) = await asyncio.to_thread(seed, env, waiting=True)
    signal = Signal()
    phones = [
        Phone(p["name"], p["seat"], p["session"], info["code"], ports[p["seat"]], signal)
        for p in info["phones"]
    ]
    for phone in phones:
        phone.ping_every = ROUND
    table = Table(phones, signal)
    try:
        for phone in phones:
            await phone.open()
        await asyncio.to_thread(start_rubber, env, info["id"])
        await signal.until(
            lambda: all(p.views and p.latest.status == "playing" for p in phones),
            30,
            "every phone to see the rubber start",
        )
    except BaseException:
        await close_all(table)
        raise
    return info, table


@dataclass
class Outage:
    """Two processes on a database of their own that the test can make refuse them."""

    env: dict[str, str]
    a: Daphne
    b: Daphne
    database: PostgresDatabase

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.database.connect() as conn:
            return list(conn.execute(sql, params).fetchall())

    @contextlib.contextmanager
    def database_away(self) -> Iterator[None]:
        """No session on the database, and no new one, until the block ends."""
        conn, _ = _pg_connect()
        with conn:
            name = self.database.name
            conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            try:
                conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = %s AND pid <> pg_backend_pid()",
                    (name,),
                )
                yield
            finally:
                conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')

    def played(self, table_id: int) -> tuple[int, bool, list[str], list[dict[str, Any]]]:
        """The table's version, whether it is paused, its seats' `away`, and the actions of
        its current hand."""
        ((version, paused),) = self.query(
            "SELECT version, paused FROM games_table WHERE id = %s", (table_id,)
        )
        away = [
            a
            for (a,) in self.query(
                "SELECT away FROM games_seat WHERE table_id = %s ORDER BY index", (table_id,)
            )
        ]
        ((record,),) = self.query(
            "SELECT h.record FROM games_playedhand h JOIN games_rubber r ON r.id = h.rubber_id"
            " WHERE r.table_id = %s ORDER BY r.number DESC, h.number DESC LIMIT 1",
            (table_id,),
        )
        record = json.loads(record) if isinstance(record, str) else record
        return int(version), bool(paused), away, list(record["actions"])


@pytest.fixture(scope="module", params=SUPPORTED)
def outage(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Outage]:
    from tests.conftest import require_service, service_reachable
    from tests.scaleout.servers import PG_HOST, PG_PORT

    require_service("PostgreSQL on 127.0.0.1:5432", service_reachable(PG_HOST, PG_PORT))
    logs = tmp_path_factory.mktemp(f"outage-{request.param}")
    database = PostgresDatabase().create()
    try:
        env = base_env(DATABASE_URL=database.url, **CLOCKS)
        migrate(env)
        a = Daphne(env, logs / "a.log", server=request.param)
        b = Daphne(env, logs / "b.log", server=request.param)
        try:
            a.start()
            b.start()
            yield Outage(env, a, b, database)
        finally:
            a.stop()
            b.stop()
    finally:
        database.drop()


@pytest.mark.postgres
@pytest.mark.server
async def test_a_database_away_past_the_grace_costs_no_connected_player_anything(
    outage: Outage,
) -> None:
    ports = [outage.a.port, outage.b.port, outage.a.port, outage.b.port]
    info, table = await pinging_phones(outage.env, ports)
    rng = random.Random(66)
    try:
        view = await table.agreed()
        phone = table.holder_of(view.due_seats()[0])
        frame = next(dict(o) for o in phone.latest.offers(phone.seat) if o["act"] == "play")
        frame["id"] = new_id()
        with outage.database_away():
            await asyncio.sleep(ROUND)
            # A card tapped while the database is away is kept, however long it stays away.
            await phone.act(frame, view.version)
            await asyncio.sleep(3 * GRACE)
            for each in table.phones:
                assert each.connections == 1, f"{each.name}'s socket was closed"
                assert {"wait": 1} in each.words, f"{each.name} was not told the server waits"
                assert each.latest.version == view.version
        # The database is back: the tap is taken, once, and nothing else happened meanwhile.
        await table.seen_by_all(view.version, timeout=20)
        await asyncio.sleep(3 * GRACE)  # the phones ping on; the clocks look
        version, paused, away, actions = await asyncio.to_thread(outage.played, info["id"])
        assert away == ["", "", "", ""], "a connected player was put on a break"
        assert not paused and version == view.version + 1
        assert [a for a in actions if a.get("auto")] == [], "the table played for a player"
        assert sum(1 for a in actions if a.get("card") == frame["card"]) == 1
        # The table goes on by itself: the next player's tap is taken at once.
        await table.play(rng, 1)
    finally:
        await close_all(table)


@pytest.fixture(params=SUPPORTED)
def embedded_quick_grace(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    env = base_env(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", **CLOCKS)
    migrate(env)
    server = Daphne(env, tmp_path / f"{request.param}.log", server=request.param)
    try:
        server.start()
        yield env, server
    finally:
        server.stop()


@pytest.mark.server
async def test_after_a_server_down_longer_than_the_grace_the_phones_get_it_to_reconnect(
    embedded_quick_grace: tuple[dict[str, str], Daphne],
) -> None:
    """The embedded default, its one server killed and started again after three graces: it
    fires the table's deadline at once, and finds every player's phone unheard for longer than
    her grace; it gives them their grace from its start instead, and they are back by then."""
    env, server = embedded_quick_grace
    _, table = await pinging_phones(env, [server.port] * 4)
    try:
        view = await table.agreed()
        await asyncio.to_thread(server.kill)
        await asyncio.sleep(3 * GRACE)
        await asyncio.to_thread(server.start)
        await table.signal.until(
            lambda: all(p.connected for p in table.phones), 30, "every phone to reconnect"
        )
        await asyncio.sleep(2 * GRACE)
        again = await table.agreed()
        # No pause (nor its end when a phone came back), nobody played for or put on a break.
        assert again.version == view.version
        assert "on a break" not in again.html and "Nobody is at the table" not in again.html
    finally:
        await close_all(table)
