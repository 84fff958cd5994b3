"""Fixtures for the scale-out tests: real databases, Redis, daphne processes and phones.

PostgreSQL (127.0.0.1:5432, trust auth) and Redis (127.0.0.1:6379) are required in CI and skip
the tests that need them on a machine without them (tests.conftest.require_service).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_service, service_reachable
from tests.scaleout.phones import Phone, Signal, Table, View
from tests.scaleout.servers import (
    CALM_TIMERS,
    PG_HOST,
    PG_PORT,
    REDIS_HOST,
    REDIS_PORT,
    SUPPORTED,
    Daphne,
    PostgresDatabase,
    RedisDatabase,
    base_env,
    migrate,
    unix_path,
)

Query = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]


@contextlib.contextmanager
def migrated_postgres() -> Iterator[PostgresDatabase]:
    """A fresh database on the local server, migrated, dropped afterwards."""
    require_service("PostgreSQL on 127.0.0.1:5432", service_reachable(PG_HOST, PG_PORT))
    database = PostgresDatabase().create()
    try:
        migrate(base_env(DATABASE_URL=database.url))
        yield database
    finally:
        database.drop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresDatabase]:
    """A fresh database for this test session."""
    with migrated_postgres() as database:
        yield database


@pytest.fixture(scope="session")
def redis_db() -> Iterator[RedisDatabase]:
    require_service("Redis on 127.0.0.1:6379", service_reachable(REDIS_HOST, REDIS_PORT))
    database = RedisDatabase().claim()
    try:
        yield database
    finally:
        database.release()


@dataclass
class Cluster:
    """Two server processes (daphne, or uvicorn) sharing one PostgreSQL database and one Redis
    cache."""

    env: dict[str, str]
    a: Daphne
    b: Daphne
    query: Query

    def ensure_running(self) -> None:
        for server in (self.a, self.b):
            if not server.running:
                server.start()


@contextlib.contextmanager
def _cluster(
    server: str, postgres: PostgresDatabase, redis_db: RedisDatabase, logs: Path, unix: bool
) -> Iterator[Cluster]:
    env = base_env(DATABASE_URL=postgres.url, REDIS_URL=redis_db.url, **CALM_TIMERS)
    a, b = (
        Daphne(env, logs / f"{name}.log", server=server, unix=unix_path() if unix else None)
        for name in "ab"
    )
    conn = postgres.connect()
    try:
        a.start()
        b.start()

        def query(sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
            return conn.execute(sql, params).fetchall()

        yield Cluster(env, a, b, query)
    finally:
        a.stop()
        b.stop()
        conn.close()


@pytest.fixture(scope="module", params=SUPPORTED)
def cluster(
    request: pytest.FixtureRequest,
    postgres: PostgresDatabase,
    redis_db: RedisDatabase,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Cluster]:
    logs = tmp_path_factory.mktemp(request.param)
    with _cluster(request.param, postgres, redis_db, logs, unix=False) as cluster:
        yield cluster


@pytest.fixture(scope="module", params=SUPPORTED)
def unix_cluster(
    request: pytest.FixtureRequest,
    postgres: PostgresDatabase,
    redis_db: RedisDatabase,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Cluster]:
    """The two processes on Unix sockets, as behind the proxy in production."""
    logs = tmp_path_factory.mktemp(f"{request.param}-unix")
    with _cluster(request.param, postgres, redis_db, logs, unix=True) as cluster:
        yield cluster


@dataclass
class Embedded:
    """The embedded default: one server process (daphne, or uvicorn), a SQLite file and the
    process's own cache."""

    env: dict[str, str]
    server: Daphne
    query: Query


@pytest.fixture(params=SUPPORTED)
def embedded(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Embedded]:
    path = tmp_path / "db.sqlite3"
    env = base_env(DATABASE_URL=f"sqlite:///{path}", **CALM_TIMERS)
    migrate(env)
    server = Daphne(env, tmp_path / f"{request.param}.log", server=request.param)
    try:
        server.start()

        def query(sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
            with sqlite3.connect(path, timeout=10) as conn:
                return conn.execute(sql.replace("%s", "?"), params).fetchall()

        yield Embedded(env, server, query)
    finally:
        server.stop()


async def seat_phones(
    table: dict[str, Any], ports: list[int], signal: Signal, unix: str | None = None
) -> Table:
    """One phone per seat, seat i on ports[i] (or all on the Unix socket `unix`), each with its
    first view."""
    phones = [
        Phone(
            p["name"], p["seat"], p["session"], table["code"], ports[p["seat"]], signal, unix=unix
        )
        for p in table["phones"]
    ]
    at_table = Table(phones, signal)
    try:
        for phone in phones:
            await phone.open()
    except BaseException:
        await close_all(at_table)
        raise
    return at_table


async def close_all(table: Table) -> None:
    for phone in table.phones:
        await phone.close()


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


@dataclass
class StoredHand:
    actions: list[dict[str, Any]]  # as the record has them, seats mapped to table seats
    result: dict[str, Any] | None
    names: list[str]  # by table seat
    seats: list[int]  # hand seat -> table seat
    receipts: list[tuple[str, int]]  # (action id, version) in version order
    version: int


def stored_hand(query: Query, table_id: int) -> StoredHand:
    """The first hand of the table's first rubber, as the database has it."""
    rows = query(
        "SELECT h.record, h.result, h.seats, r.players FROM games_playedhand h"
        " JOIN games_rubber r ON r.id = h.rubber_id"
        " WHERE r.table_id = %s AND r.number = 1 AND h.number = 1",
        (table_id,),
    )
    assert len(rows) == 1, rows
    record, result, seats, players = (_json(value) for value in rows[0])
    actions = []
    for action in record["actions"]:
        mapped = dict(action, seat=seats[action["seat"]])
        if "target" in mapped:
            mapped["target"] = seats[mapped["target"]]
        actions.append(mapped)
    receipts = [
        (str(action_id), int(version))
        for action_id, version in query(
            "SELECT action_id, version FROM games_actionreceipt WHERE table_id = %s"
            " ORDER BY version",
            (table_id,),
        )
    ]
    ((version,),) = query("SELECT version FROM games_table WHERE id = %s", (table_id,))
    return StoredHand(actions, result, list(players), list(seats), receipts, int(version))


def assert_one_story(table: Table, final: View, stored: StoredHand, full: list[Phone]) -> None:
    """Every phone ends on the same view; the phones in `full` saw every version on the way;
    the database holds exactly the actions that were clicked, each once, in order."""
    sent = table.sent
    finals = [phone.latest for phone in table.phones]
    assert {view.version for view in finals} == {final.version}
    assert {view.step for view in finals} == {final.step}
    assert {view.result for view in finals} == {final.result}
    assert final.result is not None

    # Each action is one version: those who never lost their socket saw each of them.
    first = table.phones[0].versions()[0]
    everything = list(range(first, final.version + 1))
    assert len(everything) == len(sent) + 1
    for phone in full:
        assert phone.versions() == everything, phone.name
    for phone in table.phones:
        seen = phone.versions()
        assert seen == sorted(set(seen)) and seen[-1] == final.version, phone.name

    # No lost or doubled action: the record is what was clicked, once each, in order.
    assert final.step == len(stored.actions) == len(sent)
    for clicked, recorded in zip(sent, stored.actions, strict=True):
        # The frame names its hand too (the stored action does not: it is in that hand).
        expected = {k: v for k, v in clicked.items() if k not in ("id", "hand")}
        assert {k: v for k, v in recorded.items() if k != "auto"} == expected
        assert "auto" not in recorded
    assert [action_id for action_id, _ in stored.receipts] == [frame["id"] for frame in sent]
    assert [version for _, version in stored.receipts] == everything[1:]
    assert stored.version == final.version

    # The end of the hand on every screen is the stored result.
    assert stored.result is not None
    if stored.result["winner"] is not None:
        winner = stored.names[stored.seats[stored.result["winner"]]]
        assert f"{winner} wins the hand." in final.result
    for hand_seat, lost in enumerate(stored.result["lives_lost"]):
        name = stored.names[stored.seats[hand_seat]]
        if lost:
            assert f"{name} loses {lost} li" in final.result
        else:
            assert f"{name} loses" not in final.result
