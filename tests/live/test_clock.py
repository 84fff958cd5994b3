"""The table clock fires several tables at once: one table's slow step holds up no other."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games.live import clock
from games.models import Table
from games.services import tables
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
