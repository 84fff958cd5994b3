"""The write on the event loop behind SQLite (games/services/store/loop_sqlite.py): the cases
both databases share (tests/services/loop_write_cases.py), and what only SQLite has, one write
lock for the whole file."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.utils import timezone

from games.models import ActionReceipt, Table
from games.services import store, tables
from games.services.prepared import Statement
from tests.personas import Cast
from tests.services.loop_write_cases import *  # noqa: F403 (the shared cases, collected here)
from tests.services.loop_write_cases import a_card, decided, rows, snapshot
from tests.tables import four_people_table, people

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def on_sqlite() -> None:
    assert connection.vendor == "sqlite", "the suite's own database is SQLite"


class WriteLock:
    """Another connection holding the file's write lock (a worker thread's long transaction),
    until `release`."""

    def __init__(self) -> None:
        self.taken = threading.Event()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self) -> None:
        other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            self.taken.set()
            self.done.wait(10)
            other.execute("ROLLBACK")
        finally:
            other.close()

    def __enter__(self) -> WriteLock:
        self.thread.start()
        assert self.taken.wait(5)
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join(5)


async def test_the_loop_waits_for_the_write_lock_a_moment_at_most(klaver: Cast) -> None:
    """While another connection holds the file's write lock, the loop gives up on the change
    (every table's phones would wait while it waits) and writes nothing, while the lock is
    still held (the holder lets go after ten seconds at most: a writer that waited for it
    would write); the action is then decided in a worker thread, which waits for the lock."""
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    who = people(klaver)[seat].holder
    await snapshot(table.pk)
    before = await sync_to_async(rows)(table.pk)
    writer = store.new_loop_writer(asyncio.get_running_loop())
    now = timezone.now()
    state, base = decided(table.pk, who, seat, payload, now)
    with WriteLock() as lock:
        assert not await writer.write(state, base, now, "held")
        assert not lock.done.is_set() and lock.thread.is_alive()  # given up under the lock
        assert await sync_to_async(rows)(table.pk) == before  # reading is never held up
        # The phone's action, decided again in a worker thread once the lock is let go.
        deciding = asyncio.ensure_future(tables.act_here(table.pk, who, seat, payload, "held"))
        await asyncio.sleep(0.2)
        assert not deciding.done()
        lock.done.set()
        outcome = await deciding
    assert writer.written == 0 and writer.passed == 1
    after = await sync_to_async(rows)(table.pk)
    assert outcome.version == after["table"]["version"] == before["table"]["version"] + 1
    assert [r["action_id"] for r in after["receipts"]] == ["held"]
    await writer.close()


async def test_a_change_waits_for_the_logs_restart_and_the_loop_does_not(klaver: Cast) -> None:
    """While the writer's checkpointer restarts the log it holds the file's write lock (for
    milliseconds): a change that comes meanwhile waits for it without holding the loop (the
    other phones' frames go on), is not given up on as a lock held by someone else would be,
    and is written once the restart is over."""
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    await snapshot(table.pk)
    before = await sync_to_async(rows)(table.pk)
    loop = asyncio.get_running_loop()
    writer = store.new_loop_writer(loop)
    now = timezone.now()
    state, base = decided(table.pk, people(klaver)[seat].holder, seat, payload, now)
    lock = WriteLock()
    events: list[str] = []
    let_go = threading.Event()

    def restart() -> bool:  # as the checkpointer's `RESTART`: both locks held a while
        with writer.restarting, lock:
            let_go.wait(10)
            events.append("restart over")
        return True

    writer.checkpoint = loop.run_in_executor(None, restart)
    await asyncio.to_thread(lock.taken.wait, 5)
    writing = asyncio.ensure_future(writer.write(state, base, now, "restarted"))
    writing.add_done_callback(lambda _: events.append("written"))
    ticks = 0
    while not writing.done():
        await asyncio.sleep(0.005)
        ticks += 1
        if ticks == 3:  # the loop went on while the change waited: the restart ends now
            let_go.set()
    # Had the change held the loop while it waited, the restart would have ended only at its
    # own bound (ten seconds), before the loop's third turn.
    assert ticks >= 3 and events == ["restart over", "written"]
    assert await writing  # written, not passed to a worker thread
    assert writer.written == 1 and writer.passed == 0
    after = await sync_to_async(rows)(table.pk)
    assert after["table"]["version"] == before["table"]["version"] + 1
    assert [r["action_id"] for r in after["receipts"]] == ["restarted"]
    await writer.close()


async def test_the_changes_of_one_turn_of_the_loop_take_the_write_lock_once(
    klaver: Cast,
) -> None:
    """The changes decided in one turn of the loop are written in one transaction: the file's
    lock taken and given back once, the log's shared pages written once."""
    ids = [(await sync_to_async(four_people_table)(klaver)).pk for _ in range(3)]
    for table_id in ids:
        await snapshot(table_id)
    before = {table_id: await sync_to_async(rows)(table_id) for table_id in ids}
    writer = store.new_loop_writer(asyncio.get_running_loop())
    statements: list[str] = []
    writer._connect().set_trace_callback(statements.append)
    written = await write_together(klaver, writer, ids, ["one", "two", "three"])
    assert written == [True, True, True]
    assert statements.count("BEGIN IMMEDIATE") == statements.count("COMMIT") == 1
    assert (writer.written, writer.passed, writer.batches) == (3, 0, 1)
    for table_id, name in zip(ids, ["one", "two", "three"], strict=True):
        after = await sync_to_async(rows)(table_id)
        assert after["table"]["version"] == before[table_id]["table"]["version"] + 1
        assert [r["action_id"] for r in after["receipts"]] == [name]
    await writer.close()


async def test_a_used_id_among_the_changes_of_a_turn_costs_the_others_nothing(
    klaver: Cast,
) -> None:
    """A change whose id was used (its receipt refused, its table's row claimed already in the
    transaction) is left out of its turn's transaction, and the others are written all the
    same and told so."""
    ids = [(await sync_to_async(four_people_table)(klaver)).pk for _ in range(3)]
    for table_id in ids:
        await snapshot(table_id)
    used = await sync_to_async(Table.objects.get)(pk=ids[1])
    await sync_to_async(ActionReceipt.objects.create)(table=used, action_id="used", version=1)
    before = {table_id: await sync_to_async(rows)(table_id) for table_id in ids}
    writer = store.new_loop_writer(asyncio.get_running_loop())
    names = ["fresh-0", "used", "fresh-2"]
    written = await write_together(klaver, writer, ids, names)
    assert written == [True, False, True]
    assert (writer.written, writer.passed, writer.batches) == (2, 1, 1)
    for table_id, name, was_written in zip(ids, names, written, strict=True):
        after = await sync_to_async(rows)(table_id)
        if not was_written:
            assert after == before[table_id]
            continue
        assert after["table"]["version"] == before[table_id]["table"]["version"] + 1
        assert [r["action_id"] for r in after["receipts"]] == [name]
    await writer.close()


async def write_together(
    klaver: Cast, writer: store.SqliteLoopWriter, ids: list[int], names: list[str]
) -> list[bool]:
    """A card played at each table, decided on its snapshot in one turn of the loop and
    written by `writer` (one action id each, `names`)."""
    now = timezone.now()
    changes = []
    for table_id in ids:
        seat, payload = await sync_to_async(a_card)(table_id)
        changes.append(decided(table_id, people(klaver)[seat].holder, seat, payload, now))
    return list(
        await asyncio.gather(
            *(
                writer.write(state, base, now, name)
                for (state, base), name in zip(changes, names, strict=True)
            )
        )
    )


async def test_a_change_that_fails_otherwise_leaves_its_turn_unwritten_and_told(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error other than a lost race or a used id in one change of a turn (a bug, a full
    disk) writes none of the turn's changes, and every one of them is told so, none left
    waiting: each is decided again in a worker thread."""
    ids = [(await sync_to_async(four_people_table)(klaver)).pk for _ in range(2)]
    for table_id in ids:
        await snapshot(table_id)
    before = {table_id: await sync_to_async(rows)(table_id) for table_id in ids}
    writer = store.new_loop_writer(asyncio.get_running_loop())
    real_run_all = store.loop_sqlite.run_all
    calls = []

    def second_fails(cursor: object, statements: list[Statement]) -> None:
        calls.append(statements)
        if len(calls) == 2:
            raise RuntimeError("a bug")
        real_run_all(cursor, statements)

    monkeypatch.setattr(store.loop_sqlite, "run_all", second_fails)
    written = await asyncio.wait_for(write_together(klaver, writer, ids, ["fails-0", "fails-1"]), 5)
    assert written == [False, False] and len(calls) == 2
    assert (writer.written, writer.passed) == (0, 2)
    assert writer.connection is not None and not writer.connection.in_transaction
    for table_id in ids:
        assert await sync_to_async(rows)(table_id) == before[table_id]
    await writer.close()


async def test_the_loop_leaves_the_checkpoints_to_the_worker_threads(klaver: Cast) -> None:
    """A checkpoint writes the log back into the file and syncs it: never on the loop."""
    table = await sync_to_async(four_people_table)(klaver)
    seat, payload = await sync_to_async(a_card)(table.pk)
    await snapshot(table.pk)
    writer = store.new_loop_writer(asyncio.get_running_loop())
    now = timezone.now()
    state, base = decided(table.pk, people(klaver)[seat].holder, seat, payload, now)
    assert await writer.write(state, base, now, "logged")
    assert writer.connection is not None
    assert writer.connection.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    assert writer.connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    await writer.close()


async def test_the_loop_writers_thread_keeps_the_log_short(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nearly every change is written on the loop, whose connection never checkpoints (a
    checkpoint syncs the file): a thread of the writer's own copies the log into the file every
    `CHECKPOINT_CHANGES` changes and restarts it once it is longer than `LOG_FRAMES`, so the log
    holds the last few changes, not all of them (without it: 110 MB after 25 s at 1,024
    tables, every write slower)."""
    monkeypatch.setattr(store.SqliteLoopWriter, "CHECKPOINT_CHANGES", 2)
    monkeypatch.setattr(store.SqliteLoopWriter, "LOG_FRAMES", 0)
    table = await sync_to_async(four_people_table)(klaver)
    await snapshot(table.pk)
    writer = store.loop_writer()
    written = writer.written
    await play_cards(klaver, table.pk, writer, 12, "short")
    assert writer.written == written + 12
    assert writer.checkpoints >= 5
    busy, frames, _ = log_checkpointed()
    # A change writes four pages or more (the table's, the receipt's and its index's, the
    # hand's): twelve changes and the table's making, had the log not restarted.
    assert not busy and frames < 24
    await writer.close()


async def test_a_log_shorter_than_its_bound_is_copied_and_not_restarted(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Restarting the log holds the write lock while the file syncs, and the changes that come
    meanwhile wait: under its bound the checkpoints only copy it into the file, with every
    change there, and never restart it. The bound is on what the log holds, not on its file,
    which keeps the size it once grew to."""
    monkeypatch.setattr(store.SqliteLoopWriter, "CHECKPOINT_CHANGES", 8)
    monkeypatch.setattr(store.SqliteLoopWriter, "LOG_FRAMES", 0)
    table = await sync_to_async(four_people_table)(klaver)
    await snapshot(table.pk)
    writer = store.loop_writer()
    await play_cards(klaver, table.pk, writer, 8, "long")  # a file of eight changes' pages
    grown = Path(f"{connection.settings_dict['NAME']}-wal").stat().st_size
    assert writer.checkpoints >= 1 and grown >= 8 * 4 * 4096
    monkeypatch.setattr(store.SqliteLoopWriter, "CHECKPOINT_CHANGES", 2)
    monkeypatch.setattr(store.SqliteLoopWriter, "LOG_FRAMES", 12)  # two changes hold fewer
    restarts, copies = writer.checkpoints, writer.copies
    await play_cards(klaver, table.pk, writer, 8, "short")
    assert writer.checkpoints == restarts and writer.copies >= copies + 3
    busy, frames, copied = log_checkpointed()
    # The file has every change the log holds (a quiet log, wholly copied, is written from
    # its start again by the next change: SQLite's own restart, which holds no lock).
    assert not busy and 0 < frames <= 12 and copied == frames
    await writer.close()


async def play_cards(
    klaver: Cast, table_id: int, writer: store.SqliteLoopWriter, count: int, name: str
) -> None:
    """`count` cards played on the loop, each change's checkpoint (if it began one) waited for."""
    for number in range(count):
        seat, payload = await sync_to_async(a_card)(table_id)
        who = people(klaver)[seat].holder
        await tables.act_here(table_id, who, seat, payload, f"{name}-{number}")
        while writer.checkpointing:
            await asyncio.sleep(0.01)


def log_checkpointed() -> tuple[int, int, int]:
    """The log copied into the file from a connection of its own: (busy, frames in the log,
    frames copied)."""
    other = sqlite3.connect(connection.settings_dict["NAME"])
    try:
        return other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    finally:
        other.close()
