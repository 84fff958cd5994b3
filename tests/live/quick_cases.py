"""The quick path of games/quick.py, on PostgreSQL (the only database it runs on).

Not collected by the suite itself (the name does not start with test_): the suite's
tests/scaleout/test_quick_postgres.py runs this file in a pytest of its own whose settings point
at a fresh PostgreSQL database, since the suite's own database is SQLite.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.db.models import F
from django.utils import timezone

from games import notices, quick, services, tables
from games.engine import parse_action
from games.models import ActionReceipt, PlayedHand, Table
from games.tables import CHANGED_FIELDS, editable_snapshot, load_state, view_state
from tests.live.conftest import Club4, Phone, connect, live_attrs
from tests.live.test_table_services import four_people_table, holder, people

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def on_postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.fail("these cases run on PostgreSQL only (tests/scaleout/test_quick_postgres.py)")


def rows(table_id: int) -> dict[str, Any]:
    """Everything an action writes: the table's fields, the hand's record, the receipts."""
    hand = PlayedHand.objects.filter(rubber__table_id=table_id).latest("number")
    return {
        "table": Table.objects.values(*CHANGED_FIELDS).get(pk=table_id),
        "record": hand.record,
        "receipts": list(
            ActionReceipt.objects.filter(table_id=table_id)
            .order_by("pk")
            .values("action_id", "version", "created_at")
        ),
    }


def a_card(table_id: int, legal: bool = True) -> tuple[int, dict[str, Any]]:
    """The due seat, and a card it may play (or one it does not hold)."""
    state = load_state(Table.objects.get(pk=table_id))
    hand_seat = state.hand.due()[0]
    plays = [a for a in state.hand.legal_actions(hand_seat) if a.act == "play"]
    card = plays[0].to_json()["card"]
    if not legal:
        held = {a.to_json()["card"] for a in plays}
        card = next(c for c in ("7C", "7D", "7H", "7S", "AC", "AD", "AH", "AS") if c not in held)
    return state.table_seat(hand_seat), {"act": "play", "card": card}


async def snapshot(table_id: int) -> None:
    """This process's snapshot of the table, as a phone connecting here leaves it."""
    await sync_to_async(view_state)(table_id)


def frozen_now(monkeypatch: pytest.MonkeyPatch) -> Any:
    moment = timezone.now().replace(microsecond=123456)
    monkeypatch.setattr(timezone, "now", lambda: moment)
    return moment


async def test_a_quick_action_writes_exactly_what_the_locked_path_writes(
    klaver: Club4, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    who = holder(people(klaver)[seat])
    frozen_now(monkeypatch)
    before = await sync_to_async(rows)(table.pk)
    await snapshot(table.pk)

    fast = quick.QuickActions(asyncio.get_running_loop())
    outcome = await fast.act(table.pk, who, seat, payload, "same-action")
    assert outcome == services.Outcome(before["table"]["version"] + 1)
    by_quick = await sync_to_async(rows)(table.pk)

    def undo() -> None:
        Table.objects.filter(pk=table.pk).update(**before["table"])
        hand = PlayedHand.objects.filter(rubber__table_id=table.pk).latest("number")
        PlayedHand.objects.filter(pk=hand.pk).update(record=before["record"])
        ActionReceipt.objects.filter(table_id=table.pk).delete()

    await sync_to_async(undo)()
    assert await sync_to_async(rows)(table.pk) == before
    locked = await sync_to_async(services.act)(table.pk, who, seat, payload, "same-action")
    assert locked == outcome
    assert by_quick == await sync_to_async(rows)(table.pk)
    assert len(by_quick["record"]["actions"]) == len(before["record"]["actions"]) + 1
    await fast.close()


async def test_the_quick_path_moves_the_snapshot_on(klaver: Club4) -> None:
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    await snapshot(table.pk)
    fast = quick.QuickActions(asyncio.get_running_loop())
    outcome = await fast.act(table.pk, holder(people(klaver)[seat]), seat, payload, "moves")
    assert outcome is not None
    state = editable_snapshot(table.pk)
    assert state is not None and state.table.version == outcome.version
    assert state.hand_row.record["actions"][-1]["act"] == "play"
    assert fast.written == 1
    await fast.close()


async def test_an_action_on_a_version_the_table_has_left_writes_nothing(klaver: Club4) -> None:
    """Another process changed the table after this one's snapshot: the locked path decides."""
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    await snapshot(table.pk)
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(version=F("version") + 1)
    before = await sync_to_async(rows)(table.pk)
    fast = quick.QuickActions(asyncio.get_running_loop())
    assert await fast.act(table.pk, holder(people(klaver)[seat]), seat, payload, "late") is None
    assert await sync_to_async(rows)(table.pk) == before
    await fast.close()


async def test_a_used_action_id_writes_nothing(klaver: Club4) -> None:
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    await snapshot(table.pk)
    await sync_to_async(ActionReceipt.objects.create)(table=table, action_id="used", version=1)
    before = await sync_to_async(rows)(table.pk)
    fast = quick.QuickActions(asyncio.get_running_loop())
    assert await fast.act(table.pk, holder(people(klaver)[seat]), seat, payload, "used") is None
    assert await sync_to_async(rows)(table.pk) == before
    await fast.close()


@pytest.mark.parametrize("case", ["not held", "not her seat", "no snapshot"])
async def test_what_the_quick_path_cannot_decide_is_left_to_the_locked_path(
    klaver: Club4, case: str
) -> None:
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk, legal=case != "not held")
    who = holder(people(klaver)[seat])
    if case == "not her seat":
        who = holder(people(klaver)[(seat + 1) % 4])
    if case == "no snapshot":
        tables._views.clear()  # as in a process that has no phone at the table
    else:
        await snapshot(table.pk)
    before = await sync_to_async(rows)(table.pk)
    fast = quick.QuickActions(asyncio.get_running_loop())
    assert await fast.act(table.pk, who, seat, payload, uuid.uuid4().hex) is None
    assert await sync_to_async(rows)(table.pk) == before
    await fast.close()


async def test_the_last_card_of_a_hand_is_left_to_the_locked_path(klaver: Club4) -> None:
    """The end of a hand writes the rubber's and the next hand's rows: the locked path's."""
    table = await sync_to_async(four_people_table)(klaver)

    def one_before_the_end() -> tuple[int, dict[str, Any]]:
        while True:
            seat, payload = a_card(table.pk)
            state = load_state(Table.objects.get(pk=table.pk))
            trial = state.hand.copy()
            trial.apply(parse_action({**payload, "seat": state.hand_seat(seat)}, 4))
            if trial.complete:
                return seat, payload
            who = holder(people(klaver)[seat])
            services.act(table.pk, who, seat, payload, uuid.uuid4().hex)

    seat, payload = await sync_to_async(one_before_the_end)()
    await snapshot(table.pk)
    before = await sync_to_async(rows)(table.pk)
    who = holder(people(klaver)[seat])
    fast = quick.QuickActions(asyncio.get_running_loop())
    assert await fast.act(table.pk, who, seat, payload, "last") is None
    assert await sync_to_async(rows)(table.pk) == before
    outcome = await sync_to_async(services.act)(table.pk, who, seat, payload, "last")
    finished = await sync_to_async(
        lambda: PlayedHand.objects.filter(rubber__table_id=table.pk).order_by("number").first()
    )()
    assert outcome.version == before["table"]["version"] + 1 and finished.complete
    await fast.close()


async def test_two_processes_acting_at_once_write_one_action(klaver: Club4) -> None:
    """Two quick paths (two connections, as two server processes have) from the same version:
    one action is written, the other is left to the locked path, which refuses it."""
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    who = holder(people(klaver)[seat])
    await snapshot(table.pk)
    loop = asyncio.get_running_loop()
    first, second = quick.QuickActions(loop), quick.QuickActions(loop)
    before = await sync_to_async(rows)(table.pk)
    outcomes = await asyncio.gather(
        first.act(table.pk, who, seat, payload, "one"),
        second.act(table.pk, who, seat, payload, "two"),
    )
    assert sorted(o is None for o in outcomes) == [False, True]
    after = await sync_to_async(rows)(table.pk)
    assert after["table"]["version"] == before["table"]["version"] + 1
    assert len(after["record"]["actions"]) == len(before["record"]["actions"]) + 1
    assert len(after["receipts"]) == 1
    loser = "two" if outcomes[0] is not None else "one"
    with pytest.raises(services.TableError):
        await sync_to_async(services.act)(table.pk, who, seat, payload, loser)
    await first.close()
    await second.close()


async def test_a_quick_action_announces_its_change_in_its_statement(
    klaver: Club4, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notice goes with the write, and only with it: another process hears the action, and
    an action the quick path leaves to the locked path sends nothing (the first notice heard
    after it is the locked path's)."""
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    who = holder(people(klaver)[seat])
    await snapshot(table.pk)
    listening = await notices.listen()
    fast = quick.QuickActions(asyncio.get_running_loop())
    try:
        outcome = await fast.act(table.pk, who, seat, payload, "told")
        assert outcome is not None
        seat, payload = await sync_to_async(a_card)(table.pk)
        who = holder(people(klaver)[seat])
        assert await fast.act(table.pk, who, seat, payload, "told") is None  # a used id
        locked = await sync_to_async(services.act)(table.pk, who, seat, payload, "locked")
        heard = [n.payload async for n in listening.notifies(timeout=10, stop_after=2)]
    finally:
        await fast.close()
        await listening.close()
    monkeypatch.setattr(notices, "SENDER", "another-process")
    first, second = (notices.heard(text, {table.pk}) for text in heard)
    assert first["version"] == outcome.version and second["version"] == locked.version
    assert first["change"]["actions"][-1]["act"] == "play"
    assert first["change"]["table"]["version"] == outcome.version


async def test_without_the_database_the_locked_path_takes_the_action(klaver: Club4) -> None:
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    await snapshot(table.pk)
    before = await sync_to_async(rows)(table.pk)
    fast = quick.QuickActions(asyncio.get_running_loop())
    fast.django.settings_dict = {**fast.django.settings_dict, "PORT": "1"}  # nobody listens
    who = holder(people(klaver)[seat])
    assert await fast.act(table.pk, who, seat, payload, "away") is None
    assert fast.failed_at is not None
    assert await sync_to_async(rows)(table.pk) == before
    await fast.close()


async def test_a_phone_action_takes_the_quick_path_and_every_phone_sees_it(klaver: Club4) -> None:
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    phones: list[Phone] = [await connect(people(klaver)[s], table.code) for s in range(4)]
    for phone in phones:
        await phone.drain()
    fast = quick.get()
    assert fast is not None
    written = fast.written
    frame = {"type": "action", "seat": seat, "id": "from-a-phone", "hand": "1/1", **payload}
    await phones[seat].send(frame)
    for phone in phones:
        frames = [f for f in await phone.drain(0.5) if "table-live" in f]
        assert frames and live_attrs(frames[-1])["version"] == str(table.version + 1)
    assert fast.written == written + 1
    version = await sync_to_async(lambda: Table.objects.get(pk=table.pk).version)()
    assert version == table.version + 1
    for phone in phones:
        await phone.close()
    await fast.close()
