"""A rubber's booking while another session holds the club night's row (a stuck session): the
rubbers end and the table plays on, and once the row is let go the clock books every one of
them, once.

Not collected by the suite itself (the name does not start with test_): `make test`'s
PostgreSQL pass runs this file with DATABASE_URL pointing at the local PostgreSQL server (the
Makefile's POSTGRES_PASS).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.db.models import Count

from games.live import clock
from games.models import Rubber, Table
from nights import services
from nights.models import BookingDue, Night, PlayerRubber
from tests.nights.conftest import next_rubber, open_table, play_rubber
from tests.nights.test_booking import admin, snapshot_then_rebuilt
from tests.personas import Cast

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


def test_rubbers_that_end_while_the_nights_row_is_held_are_booked_once_when_it_is_let_go(
    klaver: Cast, stuck: psycopg.Connection[Any]
) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET lock_timeout = '300ms'")  # as DATABASE_LOCK_TIMEOUT_MS sets it
    night = services.open_night(admin(klaver))
    table = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas, klaver.guus])
    players = {0: klaver.anna, 1: klaver.bram, 2: klaver.cas, 3: klaver.guus}
    stuck.execute("SELECT id FROM nights_night WHERE id = %s FOR UPDATE", (night.pk,))
    for number in range(3):
        if number:
            next_rubber(table, klaver.anna)
        play_rubber(table, players, seed=number)
    table.refresh_from_db()
    assert table.status == Table.Status.RUBBER_OVER  # the table played on
    rubbers = list(
        Rubber.objects.filter(table=table, over=True)
        .order_by("finished_at")
        .values_list("pk", flat=True)
    )
    assert len(rubbers) == 3
    assert not PlayerRubber.objects.exists()
    assert BookingDue.objects.count() == 3

    clock._catch_up()  # the row is still held: nothing is booked, nothing is lost
    assert not PlayerRubber.objects.exists()
    assert BookingDue.objects.count() == 3

    stuck.rollback()
    clock._catch_up()
    assert not BookingDue.objects.exists()
    per_rubber = dict(
        PlayerRubber.objects.values("rubber_id")
        .annotate(n=Count("id"))
        .values_list("rubber_id", "n")
    )
    assert per_rubber == dict.fromkeys(rubbers, 4)
    clock._catch_up()
    assert PlayerRubber.objects.count() == 12
    assert Night.objects.get().version > night.version
    booked, rebuilt = snapshot_then_rebuilt(klaver)
    assert booked == rebuilt
