"""Access is asked again while a socket is open: a seat given up, a member removed."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.db import database_sync_to_async

from clubs.models import Membership
from clubs.services import remove_member
from games.live import hub
from games.live.consumers import CLOSE_NOT_ALLOWED
from games.models import Table
from games.services import tables
from tests.personas import Cast, guest, member
from tests.tables import Phone, aseat_people, connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def closed_with(phone: Phone, timeout: float = 3) -> Any:
    """The close code the phone's socket ends with (views may come before it)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        output = await phone.communicator.receive_output(timeout=deadline - loop.time())
        if output["type"] == "websocket.close":
            return output.get("code")
    raise AssertionError("the socket stayed open")


@database_sync_to_async
def waiting_table(klaver: Cast, allow_spectators: bool) -> Table:
    return tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        bots={2: "easy", 3: "easy"},
        allow_spectators=allow_spectators,
        holder_key=klaver.anna.holder_key,
    )


async def test_a_guest_who_leaves_her_seat_at_a_table_without_watchers_hears_no_more(
    klaver: Cast,
) -> None:
    table = await waiting_table(klaver, allow_spectators=False)
    fenna = await database_sync_to_async(guest)("Fenna")
    await aseat_people(table.pk, [(1, fenna)])
    phone = await connect(fenna, table.code)
    await database_sync_to_async(tables.leave_seat)(table.pk, 1, fenna.holder)
    assert await closed_with(phone) == CLOSE_NOT_ALLOWED
    # Another change at the table: nothing of it reaches her.
    bram = klaver.bram
    await aseat_people(table.pk, [(1, bram)])
    assert await phone.communicator.receive_nothing(timeout=0.3)


async def test_a_member_who_leaves_her_seat_at_a_table_members_may_watch_keeps_watching(
    klaver: Cast,
) -> None:
    table = await waiting_table(klaver, allow_spectators=True)
    await aseat_people(table.pk, [(1, klaver.bram)])
    phone = await connect(klaver.bram, table.code)
    await database_sync_to_async(tables.leave_seat)(table.pk, 1, klaver.bram.holder)
    view = await phone.receive()
    assert 'id="table-live"' in view and 'data-seats=""' in view


async def test_a_watching_member_removed_from_the_club_is_shut_out_at_the_next_heartbeat(
    klaver: Cast, settings: Any
) -> None:
    settings.TOEPEN_HEARTBEAT_SECONDS = 0.2
    table = await waiting_table(klaver, allow_spectators=True)
    hanna = await database_sync_to_async(member)(klaver.club, "hanna")
    watcher = await connect(hanna, table.code)
    still = await connect(klaver.cas, table.code)
    membership = await database_sync_to_async(Membership.objects.get)(user=hanna.user)
    await database_sync_to_async(remove_member)(membership)
    assert await closed_with(watcher) == CLOSE_NOT_ALLOWED
    # Cas is still a member: he stays, and hears the heartbeat.
    assert await still.receive(timeout=2) == '{"beat":1}'
    assert hub.get().phones_at(table.pk)  # Cas's phone is still there
    await still.close()
