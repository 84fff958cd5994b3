from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.services import tables
from tests.personas import Cast
from tests.tables import connect, live_attrs

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_a_seated_player_gets_her_view_on_connect(klaver: Cast) -> None:
    table = await database_sync_to_async(tables.create_table)(
        club=klaver.club,
        user=klaver.anna.user,
        bots={1: "easy", 2: "easy", 3: "easy"},
        holder_key=klaver.anna.holder_key,
    )
    phone = await connect(klaver.anna, table.code)
    attrs = live_attrs(phone.frames[0])
    assert attrs["version"] == "0"
    await database_sync_to_async(tables.start_rubber)(table.pk, klaver.anna.user)
    frame = await phone.receive()
    assert "table-hand" in frame
    await phone.close()
