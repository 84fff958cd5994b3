"""A table nobody is at, as its phones see it: a watcher is told the table waits, and a
player's phone that connects again sets it going."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async

from games.models import Seat, Table
from games.services import tables
from tests.personas import Cast, member
from tests.tables import connect, four_people_table, live_attrs

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@database_sync_to_async
def paused_table(klaver: Cast) -> Table:
    """A table of four whose players' phones all went quiet at its last change: paused."""
    table = four_people_table(klaver)
    changed = Table.objects.get(pk=table.pk).changed_at
    Seat.objects.filter(table=table).update(last_seen=changed)
    assert tables.fire_deadline(table.pk, changed + timedelta(seconds=31))
    return Table.objects.get(pk=table.pk)


async def test_a_watcher_is_told_the_table_waits_and_a_player_back_sets_it_going(
    klaver: Cast,
) -> None:
    table = await paused_table(klaver)
    assert table.paused
    hanna = await database_sync_to_async(member)(klaver.club, "hanna")  # a member watching
    watcher = await connect(hanna, table.code)
    shown = watcher.frames[-1]
    assert live_attrs(shown)["paused"] == "1"
    assert "Nobody is at the table: it waits until a player is back." in shown
    assert "turn-clock" not in shown  # no clock runs while it waits
    # Anna's phone connects again: she is back, and the table goes on.
    anna = await connect(klaver.anna, table.code)
    resumed = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    assert not resumed.paused and resumed.version == table.version + 1
    for phone in (watcher, anna):
        await phone.drain()
        latest = [f for f in phone.frames if "table-live" in f][-1]
        assert live_attrs(latest)["paused"] == "0" and "Nobody is at the table" not in latest
        await phone.close()
