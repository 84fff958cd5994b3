"""A slate table is changed and looked at through its slate alone: its players, whoever may
keep it, hold no seat a dealt table's services, pages or socket would let them use."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games.engine.rules import SIWWESCHROOM
from games.live.consumers import CLOSE_NOT_FOUND
from games.live.hub import phone_key
from games.models import ActionReceipt, PlayedHand, Seat, SlateKeepers, Table
from games.services import slate, tables
from games.services.tables import TableError
from tests.personas import Cast, Persona, guest
from tests.services.test_slate_tables import open_slate, play_out, write
from tests.tables import ORIGIN
from toepen_site.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


def seats_and_version(table: Table) -> tuple[list[tuple[str, int | None, str]], int, str]:
    seats = Seat.objects.filter(table=table).order_by("index")
    row = Table.objects.get(pk=table.pk)
    return [(s.name, s.user_id, s.holder_key) for s in seats], row.version, row.status


def test_a_seated_slate_player_who_may_not_keep_it_changes_nothing_through_the_seat_services(
    klaver: Cast,
) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3, keepers=SlateKeepers.CREATOR)
    bram = klaver.bram.holder  # seated at 1 by his account
    before = seats_and_version(table)
    changes: list[Any] = [
        lambda: tables.go_away(table.pk, bram, 1, "break"),
        lambda: tables.come_back(table.pk, bram, 1),
        lambda: tables.ready(table.pk, bram, 1),
        lambda: tables.leave_seat(table.pk, 1, bram),
    ]
    for change in changes:
        with pytest.raises(TableError) as refused:
            change()
        assert refused.value.code == "slate_table"
    assert seats_and_version(table) == before
    # Between rubbers: no start, no seat freed, no seat taken, whoever asks.
    play_out(table)
    before = seats_and_version(table)
    stranger = guest("Stranger").holder
    creator = klaver.anna.user
    assert creator is not None
    between: list[Any] = [
        lambda: tables.start_rubber(table.pk, bram),
        lambda: tables.start_rubber(table.pk, creator),
        lambda: tables.leave_seat(table.pk, 1, bram),
        lambda: tables.take_seat(table.pk, 1, stranger, "Stranger"),
    ]
    for change in between:
        with pytest.raises(TableError) as refused:
            change()
        assert refused.value.code == "slate_table"
    assert seats_and_version(table) == before


def test_the_dealt_tables_pages_free_no_slate_seat_for_a_stranger(klaver: Cast) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3, keepers=SlateKeepers.CREATOR)
    play_out(table)
    before = seats_and_version(table)
    bram = klaver.bram.client()
    bram.post(f"/t/{table.code}/seats/1/leave/")
    bram.post(f"/t/{table.code}/start/")
    stranger = guest("Stranger").client()
    stranger.post(f"/t/{table.code}/join/", {"name": "Stranger", "seat": 1})
    assert seats_and_version(table) == before
    assert Table.objects.get(pk=table.pk).status == Table.Status.RUBBER_OVER


async def closed_as(person: Persona, path: str) -> int | None:
    communicator = WebsocketCommunicator(
        application,
        path,
        headers=[(b"cookie", person.cookie()), ORIGIN, (b"host", b"localhost")],
    )
    connected, code = await communicator.connect(timeout=5)
    if not connected:
        return int(code)
    output = await communicator.receive_output(timeout=3)
    await communicator.disconnect()
    return output.get("code") if output["type"] == "websocket.close" else None


@pytest.mark.asyncio
async def test_the_dealt_tables_socket_lets_nobody_into_a_slate(klaver: Cast) -> None:
    """A seated player who may not keep the slate, and a member who could watch a dealt table
    of the club: the slate's socket is theirs, the dealt table's is shut."""
    table = await database_sync_to_async(open_slate)(
        klaver, SIWWESCHROOM, players=3, keepers=SlateKeepers.CREATOR
    )
    assert table.allow_spectators
    before = await database_sync_to_async(seats_and_version)(table)
    for person in (klaver.bram, klaver.dirk, klaver.anna):
        assert await closed_as(person, f"/ws/tables/{table.code}/") == CLOSE_NOT_FOUND
        assert await closed_as(person, f"/ws/slates/{table.code}/") is None  # a view
    assert await database_sync_to_async(seats_and_version)(table) == before


def test_a_slate_follower_never_shares_a_dealt_table_watchers_render() -> None:
    alike = {"language": "nl", "can_start": False, "can_close": False, "can_keep": False}
    follower = SimpleNamespace(by_code=True, **alike)
    watcher = SimpleNamespace(by_code=False, **alike)
    assert phone_key(follower, ()) != phone_key(watcher, ())
    assert phone_key(follower, ()) == phone_key(SimpleNamespace(by_code=True, **alike), ())


def test_a_slate_change_that_names_no_hand_is_refused_as_a_stale_one(klaver: Cast) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3)
    anna = klaver.anna.user
    write(table, "knock", 1)  # something to undo
    before = seats_and_version(table)
    record = PlayedHand.objects.get().record
    changes: list[Any] = [
        lambda: slate.write(table.pk, anna, {"act": "stay", "seat": 2}, "n1"),
        lambda: slate.write(table.pk, anna, {"act": "stay", "seat": 2, "hand": None}, "n2"),
        lambda: slate.write(table.pk, anna, {"act": "stay", "seat": 2, "hand": 1}, "n3"),
        lambda: slate.undo(table.pk, anna, None, "n4"),
        lambda: slate.go_away(table.pk, anna, {"seat": 2, "reason": "break"}, "n5"),
        lambda: slate.come_back(table.pk, anna, {"seat": 2}, "n6"),
    ]
    for change in changes:
        with pytest.raises(TableError) as refused:
            change()
        assert refused.value.code == "stale_hand"
    assert seats_and_version(table) == before
    assert PlayedHand.objects.get().record == record
    assert not ActionReceipt.objects.filter(action_id__startswith="n").exists()
