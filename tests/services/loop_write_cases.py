"""The write on the event loop (games/services/store/'s `LoopWriter` on PostgreSQL,
`SqliteLoopWriter` on SQLite): the same change, decided by the same rules, written by the same
statements as in a worker thread.

Not collected by the suite itself (the name does not start with test_): the cases in `__all__`
hold on both databases, and tests/services/test_loop_write_sqlite.py runs them on the suite's
own (SQLite); `make test`'s PostgreSQL pass runs the whole file with DATABASE_URL pointing at
the local PostgreSQL server (the Makefile's POSTGRES_PASS).
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.db.models import F, Field
from django.utils import timezone

from games.engine import HouseRules, parse_action
from games.live import notices
from games.models import ActionReceipt, PlayedHand, RubberPlayer, Seat, Table
from games.services import snapshots, store, tables
from games.services.snapshots import editable_copy, load_state, snapshot_of, view_state
from games.services.state import CHANGED_FIELDS, Holder, TableState
from tests.personas import Cast
from tests.tables import Phone, connect, four_people_table, heard_later, live_attrs, people

pytestmark = pytest.mark.django_db(transaction=True)

# The cases that hold on both databases (the others need PostgreSQL's notices).
__all__ = [
    "test_a_change_decided_on_a_version_the_table_has_left_writes_nothing",
    "test_a_deal_the_clock_fires_is_decided_on_the_snapshot",
    "test_a_phone_action_is_written_on_the_loop_and_every_phone_sees_it_with_no_field_made",
    "test_a_phone_action_that_loses_a_race_on_the_loop_and_one_in_a_thread_is_written",
    "test_a_refusal_on_the_snapshot_is_told_with_the_databases_word",
    "test_a_used_action_id_writes_nothing_and_is_told_as_a_repeat",
    "test_changes_of_several_tables_at_once_are_each_told_their_own_outcome",
    "test_deals_of_several_tables_at_once_each_get_their_own_hands_key",
    "test_the_clocks_plain_statement_reads_the_deadlines_the_orm_reads",
    "test_the_heartbeat_rounds_plain_statements_read_what_the_orm_reads",
    "test_the_last_card_of_a_hand_writes_the_end_in_the_same_transaction",
    "test_two_processes_writing_at_once_write_one_change",
    "test_without_a_snapshot_the_action_is_decided_in_a_worker_thread",
    "test_without_the_database_a_worker_thread_decides",
]


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


def decided(
    table_id: int, who: Holder, seat: int, payload: dict[str, Any], now: Any
) -> tuple[TableState, int]:
    """The action decided on this process's snapshot, as `tables.act_here` decides it: the
    state at its new version, and the version it was decided on."""
    shared = snapshot_of(table_id)
    assert shared is not None
    state = editable_copy(shared)
    tables.play(state, who, seat, payload, now)
    base = state.table.version
    tables.next_version(state, now)
    return state, base


def one_before_the_end(klaver: Cast, table_id: int) -> tuple[int, dict[str, Any]]:
    """The hand played (in worker threads) up to its last card: the seat due, and that card."""
    while True:
        seat, payload = a_card(table_id)
        state = load_state(Table.objects.get(pk=table_id))
        trial = state.hand.copy()
        trial.apply(parse_action({**payload, "seat": state.hand_seat(seat)}, 4))
        if trial.complete:
            return seat, payload
        who = people(klaver)[seat].holder
        tables.act(table_id, who, seat, payload, uuid.uuid4().hex)


async def test_a_change_decided_on_a_version_the_table_has_left_writes_nothing(
    klaver: Cast,
) -> None:
    """Another process changed the table after this one's snapshot: nothing is written, and
    `act_here` decides again on the table as the database has it."""
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    who = people(klaver)[seat].holder
    await snapshot(table.pk)
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(version=F("version") + 1)
    before = await sync_to_async(rows)(table.pk)
    writer = store.new_loop_writer(asyncio.get_running_loop())
    now = timezone.now()
    state, base = decided(table.pk, who, seat, payload, now)
    assert not await writer.write(state, base, now, "late")
    assert await sync_to_async(rows)(table.pk) == before
    await writer.close()
    # The phone's action is not lost: decided again on the version the database has.
    outcome = await tables.act_here(table.pk, who, seat, payload, "late")
    assert outcome.version == before["table"]["version"] + 1 and not outcome.duplicate


async def test_a_phone_action_that_loses_a_race_on_the_loop_and_one_in_a_thread_is_written(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other processes' changes land between the decision on the snapshot and its write, and
    again between the worker thread's read and its write: the action is decided once more on
    the table as they left it and written, never refused as busy for one race lost in each."""
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    who = people(klaver)[seat].holder
    await snapshot(table.pk)
    real_commit = store.commit
    thread_bases: list[int] = []

    def another_process_first(state: TableState, base: int, *args: Any, **kwargs: Any) -> None:
        thread_bases.append(base)
        if len(thread_bases) == 1:
            Table.objects.filter(pk=table.pk).update(version=F("version") + 1)
        real_commit(state, base, *args, **kwargs)

    monkeypatch.setattr(store, "commit", another_process_first)
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(version=F("version") + 1)
    outcome = await tables.act_here(table.pk, who, seat, payload, "raced")
    assert thread_bases == [table.version + 1, table.version + 2]
    assert outcome == tables.Outcome(table.version + 3)
    assert (await sync_to_async(rows)(table.pk))["receipts"][-1]["action_id"] == "raced"


async def test_a_used_action_id_writes_nothing_and_is_told_as_a_repeat(klaver: Cast) -> None:
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    who = people(klaver)[seat].holder
    await snapshot(table.pk)
    await sync_to_async(ActionReceipt.objects.create)(table=table, action_id="used", version=1)
    before = await sync_to_async(rows)(table.pk)
    writer = store.new_loop_writer(asyncio.get_running_loop())
    now = timezone.now()
    state, base = decided(table.pk, who, seat, payload, now)
    assert not await writer.write(state, base, now, "used")
    assert await sync_to_async(rows)(table.pk) == before
    await writer.close()
    assert await tables.act_here(table.pk, who, seat, payload, "used") == tables.Outcome(
        1, duplicate=True
    )
    assert await sync_to_async(rows)(table.pk) == before


@pytest.mark.parametrize("case", ["not held", "not her seat"])
async def test_a_refusal_on_the_snapshot_is_told_with_the_databases_word(
    klaver: Cast, case: str
) -> None:
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk, legal=case != "not held")
    who = people(klaver)[seat].holder
    if case == "not her seat":
        who = people(klaver)[(seat + 1) % 4].holder
    await snapshot(table.pk)
    before = await sync_to_async(rows)(table.pk)
    with pytest.raises(tables.TableError):
        await tables.act_here(table.pk, who, seat, payload, uuid.uuid4().hex)
    assert await sync_to_async(rows)(table.pk) == before


async def test_without_a_snapshot_the_action_is_decided_in_a_worker_thread(klaver: Cast) -> None:
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    snapshots._views.clear()  # as in a process that has no phone at the table
    writer = store.loop_writer()
    written = writer.written
    who = people(klaver)[seat].holder
    outcome = await tables.act_here(table.pk, who, seat, payload, "thread")
    assert outcome.version == table.version + 1
    assert writer.written == written
    await writer.close()


async def test_the_last_card_of_a_hand_writes_the_end_in_the_same_transaction(
    klaver: Cast,
) -> None:
    """The end of a hand writes the hand's result, the rubber and the tallies with the action,
    on the loop: plain statements, in the change's own transaction after the same claim (only
    a rubber's end, with the ORM's rows and the nights hook, goes to a worker thread)."""
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(one_before_the_end)(klaver, table.pk)
    await snapshot(table.pk)
    before = await sync_to_async(rows)(table.pk)
    who = people(klaver)[seat].holder
    writer = store.loop_writer()
    outcome = await tables.act_here(table.pk, who, seat, payload, "last")

    def ended() -> tuple[PlayedHand, list[int], list[int]]:
        finished = PlayedHand.objects.filter(rubber__table_id=table.pk).order_by("number")[0]
        rubber = finished.rubber
        tallies = list(
            RubberPlayer.objects.filter(rubber=rubber)
            .order_by("seat")
            .values_list("lives_lost", flat=True)
        )
        start = HouseRules.from_json(rubber.rules_json).starting_lives
        return finished, tallies, [start - lives for lives in rubber.lives]

    finished, tallies, lost = await sync_to_async(ended)()
    assert outcome.version == before["table"]["version"] + 1 and finished.complete
    assert finished.finished_at is not None and not finished.rubber.over
    # The whole record, the last card in it, went with the hand's end.
    last = finished.record["actions"][-1]
    assert len(finished.record["actions"]) == len(before["record"]["actions"]) + 1
    assert (last["act"], last["card"]) == ("play", payload["card"])
    # The rubber's lives and the players' tallies were written with it, and agree.
    assert finished.result is not None and sum(tallies) > 0 and tallies == lost
    assert await sync_to_async(rows)(table.pk) != before
    receipt = await sync_to_async(ActionReceipt.objects.get)(table_id=table.pk, action_id="last")
    assert receipt.version == outcome.version
    await writer.close()


async def test_a_deal_the_clock_fires_is_decided_on_the_snapshot(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next hand, due a moment after the last one ended, is dealt from this process's
    snapshot: the loop's writer inserts the hand's row and reads its key back (no worker
    thread, no query before it; on PostgreSQL in the one statement the change is sent as).
    The snapshot holds the new row, and the next card is written to it. Any other step (a turn
    clock run out) is left to a worker thread, on the table as the database has it."""
    table = await sync_to_async(four_people_table)(klaver)
    writer = store.loop_writer()
    written = writer.written

    at = await sync_to_async(heard_later)(table.pk)
    monkeypatch.setattr(timezone, "now", lambda: at)
    await snapshot(table.pk)
    before = await sync_to_async(rows)(table.pk)
    assert not await tables.fire_here(table.pk)  # a turn clock: not a deal
    assert await sync_to_async(rows)(table.pk) == before and writer.written == written

    monkeypatch.undo()
    seat, payload = await sync_to_async(one_before_the_end)(klaver, table.pk)
    await sync_to_async(tables.act)(table.pk, people(klaver)[seat].holder, seat, payload, "end")
    at = await sync_to_async(heard_later)(table.pk)
    monkeypatch.setattr(timezone, "now", lambda: at)
    await snapshot(table.pk)
    ended = await sync_to_async(rows)(table.pk)
    assert await tables.fire_here(table.pk)
    assert writer.written == written + 1

    hands = await sync_to_async(list)(
        PlayedHand.objects.filter(rubber__table_id=table.pk).order_by("number")
    )
    assert [hand.number for hand in hands] == [1, 2] and hands[0].complete
    dealt = hands[1]
    state = snapshots.snapshot_of(table.pk)
    assert state is not None and state.table.version == ended["table"]["version"] + 1
    assert state.hand_row.pk == dealt.pk and state.hand_row.record == dealt.record
    assert dealt.started_at == at and not dealt.complete and len(dealt.record["hands"]) == 4

    seat, payload = await sync_to_async(a_card)(table.pk)
    who = people(klaver)[seat].holder
    outcome = await tables.act_here(table.pk, who, seat, payload, "first-card")
    assert outcome.version == state.table.version + 1
    await sync_to_async(dealt.refresh_from_db)()
    assert dealt.record["actions"][-1]["card"] == payload["card"]
    await writer.close()


async def test_deals_of_several_tables_at_once_each_get_their_own_hands_key(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deals that come together (one transaction; on PostgreSQL each new hand's key in its own
    statement's row) each hand their own snapshot the key of the row they wrote."""
    ids = []
    for _ in range(3):
        table = await sync_to_async(four_people_table)(klaver)
        seat, payload = await sync_to_async(one_before_the_end)(klaver, table.pk)
        await sync_to_async(tables.act)(
            table.pk, people(klaver)[seat].holder, seat, payload, f"end-{table.pk}"
        )
        ids.append(table.pk)
    at = max([await sync_to_async(heard_later)(table_id) for table_id in ids])
    monkeypatch.setattr(timezone, "now", lambda: at)
    for table_id in ids:
        await snapshot(table_id)
    writer = store.loop_writer()
    assert await asyncio.gather(*(tables.fire_here(table_id) for table_id in ids)) == [True] * 3
    keys = set()
    for table_id in ids:
        dealt = await sync_to_async(PlayedHand.objects.get)(rubber__table_id=table_id, number=2)
        state = snapshots.snapshot_of(table_id)
        assert state is not None and state.hand_row.pk == dealt.pk
        assert state.hand_row.record == dealt.record
        keys.add(dealt.pk)
    assert len(keys) == 3
    await writer.close()


async def test_two_processes_writing_at_once_write_one_change(klaver: Cast) -> None:
    """Two loop writers (two connections, as two server processes have) from the same
    version: one change is written, the other finds the table moved on and writes nothing."""
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    who = people(klaver)[seat].holder
    await snapshot(table.pk)
    loop = asyncio.get_running_loop()
    first, second = store.new_loop_writer(loop), store.new_loop_writer(loop)
    before = await sync_to_async(rows)(table.pk)
    now = timezone.now()
    one, base = decided(table.pk, who, seat, payload, now)
    two, _ = decided(table.pk, who, seat, payload, now)
    written = await asyncio.gather(
        first.write(one, base, now, "one"), second.write(two, base, now, "two")
    )
    assert sorted(written) == [False, True]
    after = await sync_to_async(rows)(table.pk)
    assert after["table"]["version"] == before["table"]["version"] + 1
    assert len(after["record"]["actions"]) == len(before["record"]["actions"]) + 1
    assert len(after["receipts"]) == 1
    loser = "two" if written[0] else "one"
    with pytest.raises(tables.TableError):
        await sync_to_async(tables.act)(table.pk, who, seat, payload, loser)
    await first.close()
    await second.close()


async def test_changes_of_several_tables_at_once_are_each_told_their_own_outcome(
    klaver: Cast,
) -> None:
    """Changes that come together (one transaction) are each written, and one that lost its
    race writes nothing and costs the others nothing: they are written all the same, and told
    so."""
    ids = [(await sync_to_async(four_people_table)(klaver)).pk for _ in range(3)]
    for table_id in ids:
        await snapshot(table_id)
    before = {table_id: await sync_to_async(rows)(table_id) for table_id in ids}
    writer = store.new_loop_writer(asyncio.get_running_loop())

    async def round_of(tag: str, losing: bool) -> list[bool]:
        now = timezone.now()
        changes = []
        for table_id in ids:
            seat, payload = await sync_to_async(a_card)(table_id)
            who = people(klaver)[seat].holder
            changes.append(decided(table_id, who, seat, payload, now))
            if losing and table_id == ids[0]:
                # The same table from the same version once more: it lost the race.
                changes.append(decided(table_id, who, seat, payload, now))
        return list(
            await asyncio.gather(
                *(
                    writer.write(state, base, now, f"{tag}{n}")
                    for n, (state, base) in enumerate(changes)
                )
            )
        )

    assert await round_of("lost", losing=True) == [True, False, True, True]
    # The next change of each table is decided on the snapshot the written change left.
    for table_id in ids:
        version = before[table_id]["table"]["version"] + 1
        await sync_to_async(view_state)(table_id, version)
    assert await round_of("next", losing=False) == [True, True, True]
    for table_id in ids:
        after = await sync_to_async(rows)(table_id)
        assert after["table"]["version"] == before[table_id]["table"]["version"] + 2
        assert len(after["record"]["actions"]) == len(before[table_id]["record"]["actions"]) + 2
    receipts = await sync_to_async(list)(
        ActionReceipt.objects.filter(table_id__in=ids).values_list("action_id", flat=True)
    )
    assert sorted(receipts) == ["lost0", "lost2", "lost3", "next0", "next1", "next2"]
    assert writer.batches >= 1  # a round went as one transaction
    assert writer.written == 6
    await writer.close()


async def test_a_change_on_the_loop_announces_itself_in_its_transaction(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notice goes with the write, and only with it: another process hears the action, and
    a change that is not written sends nothing (the next notice heard is the next change's)."""
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    who = people(klaver)[seat].holder
    await snapshot(table.pk)
    listening = await notices.listen()
    writer = store.new_loop_writer(asyncio.get_running_loop())
    try:
        now = timezone.now()
        state, base = decided(table.pk, who, seat, payload, now)
        assert await writer.write(state, base, now, "told")
        remembered = state
        snapshots.remember(remembered)
        seat, payload = await sync_to_async(a_card)(table.pk)
        who = people(klaver)[seat].holder
        again, base = decided(table.pk, who, seat, payload, now)
        assert not await writer.write(again, base, now, "told")  # a used id
        thread = await sync_to_async(tables.act)(table.pk, who, seat, payload, "thread")
        heard = [n.payload async for n in listening.notifies(timeout=10, stop_after=2)]
    finally:
        await writer.close()
        await listening.close()
    monkeypatch.setattr(notices, "SENDER", "another-process")
    first, second = (notices.heard(text, {table.pk}) for text in heard)
    assert first["version"] == remembered.table.version and second["version"] == thread.version
    assert first["change"]["actions"][-1]["act"] == "play"
    assert first["change"]["table"]["version"] == remembered.table.version


async def test_without_the_database_a_worker_thread_decides(klaver: Cast) -> None:
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    await snapshot(table.pk)
    before = await sync_to_async(rows)(table.pk)
    writer = store.new_loop_writer(asyncio.get_running_loop())
    # Where nobody listens (PostgreSQL), a file that cannot be opened (SQLite).
    away = {"PORT": "1"} if connection.vendor == "postgresql" else {"NAME": "/nowhere/db.sqlite3"}
    writer.django.settings_dict = {**writer.django.settings_dict, **away}
    who = people(klaver)[seat].holder
    now = timezone.now()
    state, base = decided(table.pk, who, seat, payload, now)
    assert not await writer.write(state, base, now, "away")
    assert writer.written == 0
    if connection.vendor == "postgresql":
        assert writer.failed_at is not None  # the next changes go to a thread a while
    else:
        assert writer.passed == 1 and writer.connection is None
    assert await sync_to_async(rows)(table.pk) == before
    await writer.close()


async def test_a_phone_action_is_written_on_the_loop_and_every_phone_sees_it_with_no_field_made(
    klaver: Cast,
) -> None:
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    # Connects and an action make no model field: each one made changes the class `Field`,
    # and past a thousand changes CPython stops caching lookups on every field class
    # (games/keys.py). On PostgreSQL Django asked one at every join on a foreign key.
    fields = Field.creation_counter
    phones: list[Phone] = [await connect(people(klaver)[s], table.code) for s in range(4)]
    for phone in phones:
        await phone.drain()
    writer = store.loop_writer()
    written = writer.written
    frame = {"type": "action", "seat": seat, "id": "from-a-phone", "hand": "1/1", **payload}
    await phones[seat].send(frame)
    for phone in phones:
        frames = [f for f in await phone.drain(0.5) if "table-live" in f]
        assert frames and live_attrs(frames[-1])["version"] == str(table.version + 1)
    assert writer.written == written + 1
    assert Field.creation_counter == fields
    version = await sync_to_async(lambda: Table.objects.get(pk=table.pk).version)()
    assert version == table.version + 1
    for phone in phones:
        await phone.close()
    await writer.close()


def test_the_heartbeat_rounds_plain_statements_read_what_the_orm_reads(
    klaver: Cast, monkeypatch
) -> None:
    """Not a loop write: the heartbeat round's statements (the store's `mark_seen_all`,
    `presence`, `versions`), here to run on both databases, in parts of two ids."""
    monkeypatch.setattr(store.reads, "IN_AT_ONCE", 2)
    made = [four_people_table(klaver) for _ in range(3)]
    ids = [table.pk for table in made]
    store.mark_seen_all({(made[1].pk, people(klaver)[2].holder)})
    read = store.presence(ids)
    orm = Seat.objects.filter(table_id__in=ids).values_list("pk", "table_id", "last_seen")
    assert sorted(read) == sorted(orm) and len(read) == 12
    seen = [moment for _, _, moment in read if moment is not None]
    assert seen and all(moment.tzinfo is not None for moment in seen)
    assert store.versions(ids) == dict(
        Table.objects.filter(pk__in=ids).values_list("pk", "version")
    )


def test_the_clocks_plain_statement_reads_the_deadlines_the_orm_reads(klaver: Cast) -> None:
    """Not a loop write: the clock's look (the store's `deadlines`), on both databases."""
    made = [four_people_table(klaver) for _ in range(4)]
    now = timezone.now()
    Table.objects.update(deadline_at=None)
    for table, seconds in zip(made[:3], [7.25, -3.5, 1.0], strict=True):
        Table.objects.filter(pk=table.pk).update(deadline_at=now + timedelta(seconds=seconds))
    orm = list(
        Table.objects.filter(deadline_at__isnull=False)
        .order_by("deadline_at")
        .values_list("pk", "deadline_at")
    )
    assert [pk for pk, _ in orm] == [made[1].pk, made[2].pk, made[0].pk]
    due, upcoming = store.deadlines(set(), now)
    assert due == [made[1].pk]
    assert upcoming == orm[1][1] == now + timedelta(seconds=1)
    assert upcoming is not None and upcoming.tzinfo is not None
    # Past every deadline: all three are due, in the order they fell due.
    due, _ = store.deadlines(set(), now + timedelta(seconds=10))
    assert due == [pk for pk, _ in orm]
