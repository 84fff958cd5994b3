"""Faults on PostgreSQL: a table whose row another transaction holds (a stuck process), and the
notice that carries a change to the other processes whatever becomes of its writer.

Not collected by the suite itself (the name does not start with test_): `make test`'s
PostgreSQL pass runs this file, like loop_write_cases.py, with DATABASE_URL pointing at the
local PostgreSQL server (the Makefile's POSTGRES_PASS).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from channels.db import database_sync_to_async
from django.db import connection, transaction
from django.utils import timezone

from games.live import clock, notices
from games.models import Table
from games.services import events, store, tables
from tests.personas import Cast
from tests.services.loop_write_cases import a_card, decided, rows, snapshot
from tests.tables import four_people_table, people

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def on_postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.fail("these cases run on PostgreSQL only: `make test`'s PostgreSQL pass runs them")


@pytest.fixture
def stuck() -> Iterator[psycopg.Connection[Any]]:
    """Another session on the test database, as a stuck process's: what it locks stays locked
    until the test lets go (rollback)."""
    params = connection.get_connection_params()
    for name in ("cursor_factory", "context", "options"):
        params.pop(name, None)
    with psycopg.connect(**params) as session:
        yield session


def hold(session: psycopg.Connection[Any], table_id: int) -> None:
    session.execute("SELECT id FROM games_table WHERE id = %s FOR UPDATE", (table_id,))


def version(table_id: int) -> int:
    return Table.objects.get(pk=table_id).version


def test_the_clock_passes_over_a_held_table_at_once_and_fires_the_others(
    klaver: Cast, stuck: psycopg.Connection[Any]
) -> None:
    held, free = four_people_table(klaver), four_people_table(klaver)
    # Both due long ago: the due players' turns ran out, the table plays for them.
    long_ago = timezone.now() - timedelta(hours=1)
    Table.objects.filter(pk__in=[held.pk, free.pk]).update(
        deadline_at=long_ago, changed_at=long_ago
    )
    hold(stuck, held.pk)
    with pytest.raises(tables.Busy):
        tables.fire_deadline(held.pk)  # at once, not after the lock timeout
    due, _ = clock._due(set())
    assert set(due) == {held.pk, free.pk}
    assert [clock._fire_one(table_id) for table_id in due] == [
        clock.BUSY if t == held.pk else None for t in due
    ]
    assert version(free.pk) == free.version + 1
    assert version(held.pk) == held.version
    stuck.rollback()
    assert clock._fire_one(held.pk) is None
    assert version(held.pk) == held.version + 1


def test_an_action_at_a_table_held_beyond_the_lock_timeout_is_refused_as_busy(
    klaver: Cast, stuck: psycopg.Connection[Any]
) -> None:
    table = four_people_table(klaver)
    seat, payload = a_card(table.pk)
    who = people(klaver)[seat].holder
    before = rows(table.pk)
    hold(stuck, table.pk)
    with pytest.raises(tables.Busy) as refused:
        tables.act(table.pk, who, seat, payload, "held")
    assert refused.value.code == "busy"
    stuck.rollback()
    assert rows(table.pk) == before
    # Nothing was written: the same action goes through once the table is free.
    assert tables.act(table.pk, who, seat, payload, "held").version == table.version + 1


async def test_a_change_on_the_loop_at_a_held_table_writes_nothing_without_waiting(
    klaver: Cast, stuck: psycopg.Connection[Any]
) -> None:
    """The loop's one connection serves every table of the process: it never waits for a row
    (which would hold up every other table's changes), nor takes a held row for a broken
    connection. Its lock timeout is turned off here, so a wait for the row would last until
    the row is let go, which is after the write has answered. (database_sync_to_async: its
    connections are closed after each use, so none is left open on the test database.)"""
    table = await database_sync_to_async(four_people_table)(klaver)
    seat, payload = await database_sync_to_async(a_card)(table.pk)
    await snapshot(table.pk)
    before = await database_sync_to_async(rows)(table.pk)
    await database_sync_to_async(hold)(stuck, table.pk)
    writer = store.LoopWriter(asyncio.get_running_loop())
    writer.django.settings_dict = copy.deepcopy(writer.django.settings_dict)
    options = writer.django.settings_dict.setdefault("OPTIONS", {})
    options["options"] = f"{options.get('options', '')} -c lock_timeout=0".strip()
    try:
        who = people(klaver)[seat].holder
        now = timezone.now()
        state, base = decided(table.pk, who, seat, payload, now)
        # The bound only keeps a waiting writer from hanging the suite.
        assert not await asyncio.wait_for(writer.write(state, base, now, "held"), 60)
        assert writer.connection is not None and writer.failed_at is None  # not dropped
        (timeout,) = await (await writer.connection.execute("SHOW lock_timeout")).fetchone()
        assert timeout == "0"
    finally:
        await database_sync_to_async(stuck.rollback)()
        await writer.close()
    assert await database_sync_to_async(rows)(table.pk) == before


class Undone(Exception):
    pass


def test_a_change_is_announced_by_its_own_transaction_only_when_it_commits(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change rolled back sends nothing; a committed one is heard with what it did, sent by
    the database itself (the writer needs to do nothing more after its commit)."""
    table = four_people_table(klaver)
    params = connection.get_connection_params()
    for name in ("cursor_factory", "context"):
        params.pop(name, None)
    with psycopg.connect(**params, autocommit=True) as listening:
        listening.execute(f"LISTEN {events.CHANNEL}")
        seat, payload = a_card(table.pk)
        who = people(klaver)[seat].holder
        with pytest.raises(Undone), transaction.atomic():
            tables.act(table.pk, who, seat, {"act": "knock"}, "undone")
            raise Undone
        tables.act(table.pk, who, seat, payload, "done")
        (notice,) = listening.notifies(timeout=10, stop_after=1)
    monkeypatch.setattr(notices, "SENDER", "another-process")
    heard = notices.heard(notice.payload, {table.pk})
    assert heard is not None and heard["version"] == table.version + 1
    assert heard["change"]["actions"][-1]["act"] == "play"
