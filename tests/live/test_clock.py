"""The table clock fires several tables at once: one table's slow step holds up no other."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games.live import clock
from games.models import Table
from games.services import store, tables
from tests.personas import Cast
from tests.tables import four_people_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_a_table_whose_step_is_slow_holds_up_no_other_table(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = await database_sync_to_async(four_people_table)(klaver)
    quick = await database_sync_to_async(four_people_table)(klaver)
    long_ago = timezone.now() - timedelta(hours=1)

    @database_sync_to_async
    def due_long_ago() -> None:
        # The slow table first: a clock that fires one table after the other starts with it.
        Table.objects.filter(pk=slow.pk).update(
            deadline_at=long_ago - timedelta(minutes=1), changed_at=long_ago
        )
        Table.objects.filter(pk=quick.pk).update(deadline_at=long_ago, changed_at=long_ago)

    await due_long_ago()
    # The slow table's step (a computer player thinking at its steady pace) may only end once
    # the other table has moved on: a clock that fires one table after the other never ends it.
    other_fired = threading.Event()
    real_fire = tables.fire_deadline

    def fire(table_id: int, now=None) -> bool:
        if table_id == slow.pk:
            assert other_fired.wait(timeout=10), "the other table waited for this one"
        changed = real_fire(table_id, now)
        if table_id == quick.pk:
            other_fired.set()
        return changed

    monkeypatch.setattr(tables, "fire_deadline", fire)
    clock.ensure_started()

    @database_sync_to_async
    def versions() -> tuple[int, int]:
        return (
            Table.objects.get(pk=slow.pk).version,
            Table.objects.get(pk=quick.pk).version,
        )

    def both_moved(now: tuple[int, int]) -> bool:
        return now[0] > slow.version and now[1] > quick.version

    for _ in range(100):
        if both_moved(await versions()):
            break
        await asyncio.sleep(0.05)
    assert both_moved(await versions())
    assert other_fired.is_set()


async def test_one_look_finds_the_due_tables_but_those_skipped_and_the_next_deadline(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = [await database_sync_to_async(four_people_table)(klaver) for _ in range(5)]
    now = timezone.now()
    # Two due, one skipped (being fired), two to come, and tables with no deadline at all.
    when = [-30, -20, -10, 5, 9]

    @database_sync_to_async
    def set_deadlines() -> None:
        Table.objects.update(deadline_at=None)
        for table, seconds in zip(at, when, strict=True):
            Table.objects.filter(pk=table.pk).update(deadline_at=now + timedelta(seconds=seconds))

    await set_deadlines()
    due, upcoming = await database_sync_to_async(store.deadlines)({at[1].pk}, now)
    assert due == [at[0].pk, at[2].pk]
    assert upcoming == now + timedelta(seconds=5)
    # Skipping the next one too: the one after it.
    _, upcoming = await database_sync_to_async(store.deadlines)({at[3].pk}, now)
    assert upcoming == now + timedelta(seconds=9)
    # At most DUE_AT_ONCE a look; the next look comes at once for the rest.
    monkeypatch.setattr(store.reads, "DUE_AT_ONCE", 2)
    due, upcoming = await database_sync_to_async(store.deadlines)(set(), now)
    assert due == [at[0].pk, at[1].pk] and upcoming == now - timedelta(seconds=10)
    due, upcoming = await database_sync_to_async(store.deadlines)(set(), now - timedelta(hours=1))
    assert due == [] and upcoming == now - timedelta(seconds=30)


async def test_pokes_that_come_close_together_share_one_look(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A burst of changes that each set a near deadline wakes the clock once per
    GATHER_SECONDS, not once each; a deadline that falls due is still fired."""
    table = await database_sync_to_async(four_people_table)(klaver)
    looks = 0
    real = store.deadlines

    def counted(*args):
        nonlocal looks
        looks += 1
        return real(*args)

    monkeypatch.setattr(store, "deadlines", counted)
    monkeypatch.setattr(clock, "GATHER_SECONDS", 0.2)
    clock.ensure_started()
    await asyncio.sleep(0.3)
    before = looks
    started = time.monotonic()
    for _ in range(40):  # 40 pokes in about 0.4 s (longer on a busy machine)
        clock.poke(timezone.now())
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.25)
    # One look per gathering at most, however long the burst took (about 4 for 40 pokes).
    windows = (time.monotonic() - started) / clock.GATHER_SECONDS
    assert 1 <= looks - before <= windows + 2
    due_now = timezone.now() - timedelta(seconds=1)
    await database_sync_to_async(Table.objects.filter(pk=table.pk).update)(deadline_at=due_now)
    clock.poke(due_now)

    @database_sync_to_async
    def deadline() -> object:
        return Table.objects.get(pk=table.pk).deadline_at

    for _ in range(400):  # the bound only stops a clock that never fires
        if await deadline() != due_now:
            break
        await asyncio.sleep(0.05)
    assert await deadline() != due_now  # fired: planned again
    await clock.stop()


async def test_a_table_whose_phones_are_elsewhere_is_due_here_a_while_later(
    klaver: Cast,
) -> None:
    """Where several processes serve, each fires its own phones' tables at their deadline and
    another process's only `others_after` late (that process may be gone)."""
    mine, theirs, late = [await database_sync_to_async(four_people_table)(klaver) for _ in range(3)]
    now = timezone.now()

    @database_sync_to_async
    def set_deadlines() -> None:
        Table.objects.update(deadline_at=None)
        for table, seconds in ((mine, -0.5), (theirs, -0.4), (late, -3)):
            Table.objects.filter(pk=table.pk).update(deadline_at=now + timedelta(seconds=seconds))

    await set_deadlines()
    look = database_sync_to_async(store.deadlines)
    second = timedelta(seconds=1)
    due, upcoming = await look(set(), now, {mine.pk}, second)
    assert due == [late.pk, mine.pk]  # the other process's table 3 s overdue: fired here too
    assert upcoming == now + timedelta(seconds=0.6)  # when `theirs` falls due here
    due, upcoming = await look(set(), now, None, second)  # one process: all due now
    assert due == [late.pk, mine.pk, theirs.pk] and upcoming is None
    due, _ = await look(set(), now + second, {mine.pk}, second)
    assert due == [late.pk, mine.pk, theirs.pk]


def _failing_writes(on: bool) -> None:
    """Every write to the tables' rows fails, as on a full disk: a trigger of the database's
    own, so the clock's write meets a real database error."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            if on:
                cursor.execute(
                    "CREATE FUNCTION toepen_full_disk() RETURNS trigger AS $$ BEGIN "
                    "RAISE EXCEPTION 'could not extend file: No space left on device'; END; "
                    "$$ LANGUAGE plpgsql"
                )
                cursor.execute(
                    "CREATE TRIGGER toepen_full_disk BEFORE UPDATE ON games_table "
                    "FOR EACH ROW EXECUTE FUNCTION toepen_full_disk()"
                )
            else:
                cursor.execute("DROP TRIGGER toepen_full_disk ON games_table")
                cursor.execute("DROP FUNCTION toepen_full_disk()")
        elif on:
            cursor.execute(
                "CREATE TRIGGER toepen_full_disk BEFORE UPDATE ON games_table BEGIN "
                "SELECT RAISE(ABORT, 'database or disk is full'); END"
            )
        else:
            cursor.execute("DROP TRIGGER toepen_full_disk")


async def test_a_table_that_cannot_be_written_is_tried_less_and_less_often_and_logged_once(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    table = await database_sync_to_async(four_people_table)(klaver)
    long_ago = timezone.now() - timedelta(hours=1)
    await database_sync_to_async(
        lambda: Table.objects.filter(pk=table.pk).update(deadline_at=long_ago, changed_at=long_ago)
    )()
    tries: list[int] = []
    real_fire = tables.fire_deadline

    def fire(table_id: int, now=None) -> bool:
        tries.append(table_id)  # counted, then fired for real
        return real_fire(table_id, now)

    monkeypatch.setattr(tables, "fire_deadline", fire)
    await database_sync_to_async(_failing_writes)(True)
    try:
        clock.ensure_started()
        await asyncio.sleep(2.0)
    finally:
        await database_sync_to_async(_failing_writes)(False)
    failed = [r for r in caplog.records if "firing its deadline failed" in r.getMessage()]
    # At 50 ms a look, two seconds were 40 tries and as many tracebacks.
    assert 2 <= tries.count(table.pk) <= 5, tries
    assert len(failed) == 1 and failed[0].exc_info is not None
    # The fault over, the table is fired again within its longest pause so far.
    for _ in range(80):
        moved = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).version)()
        if moved > table.version:
            break
        await asyncio.sleep(0.05)
    assert moved > table.version
