"""Presence: a player's phone is at the table while the server hears it (what it sends, its
pings), and a database the server cannot reach is no player's absence.

Each test beats the hearts every 0.2 s (TOEPEN_HEARTBEAT_SECONDS); a phone that pings sends
what static/js/table.js sends.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import OperationalError
from django.utils import timezone

from games.live import clock
from games.models import Seat, Table
from games.services import store, tables
from tests.personas import Cast
from tests.tables import Phone, connect, four_people_table, live_attrs

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

PING = '{"type":"ping"}'  # as static/js/table.js writes it
ROUND = 0.2


@pytest.fixture(autouse=True)
def quick_rounds(settings: Any) -> None:
    settings.TOEPEN_HEARTBEAT_SECONDS = ROUND


@database_sync_to_async
def seen(table: Table) -> dict[int, datetime | None]:
    return {s.index: s.last_seen for s in Seat.objects.filter(table=table)}


@database_sync_to_async
def all_seen_at(table: Table, at: datetime) -> None:
    Seat.objects.filter(table=table).update(last_seen=at)


@database_sync_to_async
def row(table: Table) -> Table:
    return Table.objects.get(pk=table.pk)


@database_sync_to_async
def away(table: Table) -> list[str]:
    return [s.away for s in Seat.objects.filter(table=table).order_by("index")]


async def pinging(phones: list[Phone], seconds: float) -> None:
    """The phones ping ten times a round for `seconds`, as phones whose network is fine."""
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    while loop.time() < until:
        for phone in phones:
            await phone.send(PING)
        await asyncio.sleep(ROUND / 2)


async def test_a_phone_gone_quiet_is_not_heard_though_its_socket_stays_open(
    klaver: Cast,
) -> None:
    table = await database_sync_to_async(four_people_table)(klaver)
    anna, bram, cas = [await connect(p, table.code) for p in (klaver.anna, klaver.bram, klaver.cas)]
    await anna.send(PING)
    await bram.send(PING)
    # Bram's network goes quiet, with nothing closed; Anna's phone pings on; Cas's page is one
    # from before phones pinged, heard while its socket is open.
    await pinging([anna], 2.5 * ROUND)
    long_ago = timezone.now() - timedelta(hours=1)
    await all_seen_at(table, long_ago)
    await pinging([anna], 5 * ROUND)
    heard = await seen(table)
    assert heard[1] == long_ago, "a socket that says nothing keeps its seat marked as heard"
    assert heard[0] is not None and heard[0] > long_ago
    assert heard[2] is not None and heard[2] > long_ago
    assert heard[3] == long_ago  # no phone at all
    # A ping is answered with nothing, written either way.
    await anna.drain(timeout=0.05)
    await anna.send('{"type": "ping"}')
    assert not [f for f in await anna.drain(timeout=0.1) if "table-error" in f]
    for phone in (anna, bram, cas):
        await phone.close()


async def pause_for_nobody_heard(table: Table) -> Table:
    """Every player's phone went quiet at the table's last change, an hour ago: it pauses."""
    changed = (await row(table)).changed_at
    await all_seen_at(table, changed)
    await asyncio.sleep(3 * ROUND)  # the rounds read the presence written, heard by no one
    fire = database_sync_to_async(tables.fire_deadline)
    # A round that read a phone's last moment before it was written over plays for the
    # others first (each then on a break), and pauses the table after them.
    for _ in range(4):
        assert await fire(table.pk, changed + timedelta(hours=1))
        if (paused := await row(table)).paused:
            return paused
    raise AssertionError("the table did not pause")


async def test_a_table_that_paused_goes_on_when_a_quiet_phone_is_heard_again(
    klaver: Cast,
) -> None:
    table = await database_sync_to_async(four_people_table)(klaver)
    anna = await connect(klaver.anna, table.code)
    await anna.send(PING)
    await asyncio.sleep(2.5 * ROUND)  # her network went quiet; her socket is open
    paused = await pause_for_nobody_heard(table)
    assert paused.paused
    # Her network is back: the phone's pings reach the server over the same socket.
    await pinging([anna], 5 * ROUND)
    going = await row(table)
    assert not going.paused and going.version == paused.version + 1
    views = [f for f in await anna.drain() + anna.frames if "table-live" in f]
    assert live_attrs(views[-1])["paused"] == "0"
    await anna.close()


async def test_a_database_away_past_the_grace_puts_nobody_on_a_break_nor_pauses_the_table(
    klaver: Cast, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TOEPEN_GRACE_SECONDS = 1
    table = await database_sync_to_async(four_people_table)(klaver)
    people = (klaver.anna, klaver.bram, klaver.cas, klaver.dirk)
    phones = [await connect(p, table.code) for p in people]
    version = (await row(table)).version

    def away_with_the_database(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("the database is away")

    # The heartbeats cannot be written for four graces; the table clock looks all the while.
    monkeypatch.setattr(store, "mark_seen_all", away_with_the_database)
    await pinging(phones, 4 * settings.TOEPEN_GRACE_SECONDS)
    for phone in phones:
        heard = await phone.drain(timeout=0.05)
        assert '{"wait":1}' in phone.frames, "a phone with an open socket is told the server waits"
        assert '{"beat":1}' not in heard
    assert (await row(table)).version == version
    # The database is back: the phones are heard again, and nobody's grace ran out meanwhile.
    monkeypatch.undo()
    await pinging(phones, 5 * ROUND)
    assert await away(table) == ["", "", "", ""]
    back = await row(table)
    assert back.version == version and not back.paused
    for phone in phones:
        await phone.close()


async def test_a_server_that_starts_gives_every_phone_its_grace_to_reconnect(
    klaver: Cast,
) -> None:
    table = await database_sync_to_async(four_people_table)(klaver)
    # The server was down for an hour: no phone has been heard since, and the deadline its
    # clock would have fired then is long past.
    long_ago = timezone.now() - timedelta(hours=1)
    await all_seen_at(table, long_ago)
    await Table.objects.filter(pk=table.pk).aupdate(deadline_at=long_ago)
    clock.start_with_server_now()
    started = timezone.now()
    fire = database_sync_to_async(tables.fire_deadline)
    assert not await fire(table.pk, started + timedelta(seconds=29))
    assert not (await row(table)).paused
    # Nobody came back within the grace: the table waits for them.
    assert await fire(table.pk, started + timedelta(seconds=31))
    assert (await row(table)).paused
