"""Every statement the live tables send to the database, and the one write of a change.

A change to a table is decided from a `TableState` read without a lock (tables.py), and
written here in one transaction that first claims the table's row at the version the change was
checked against:

    UPDATE table SET <the changed fields, the new version> WHERE id = %s AND version = %s

then inserts the action's receipt (an id is applied once: a unique constraint), writes the
change's other rows (`TableState.statements`, plain statements: the end of a hand with its
rubber and tallies, a new hand; `TableState.later`, through the ORM: seats, a new rubber and
its first hand, a rubber's end with the nights hook), the hand's record, and the notice that
tells the other processes (games/live/notices.py). When the claim finds the table at another
version, nothing is written and `Lost` is raised: the caller reads the table again and retries
once.

Where the write runs is an executor choice made here and nowhere else:

- `write` runs it on the calling thread's Django connection (a worker thread of the server, a
  view, the clock; always behind SQLite).
- `write_here` runs it on the event loop, on a connection of the process's own: a change whose
  rows are all written by plain statements (an action added to a hand, most of them, the
  end of a hand that does not end the rubber, and the clock's deal, whose new hand's key
  comes back from its `INSERT`) never waits for a worker thread. Behind
  PostgreSQL the statements go as one statement, with the changes that came meanwhile, in one
  round trip and one transaction (`LoopWriter`); behind SQLite, a library in this process,
  they run on the loop itself, with the changes decided in the same turn of the loop, in one
  transaction that waits a few milliseconds at most for the file's write lock
  (`SqliteLoopWriter`). A change with rows the ORM writes
  (`TableState.later`) goes to `write` in a worker thread, with the loop's other changes that
  came meanwhile, each on a savepoint of one transaction (`GroupCommit`: one commit, and one
  trip to the thread, for all of them). The statements are the same; a change the loop could
  not write is decided again in a worker thread.

The reads of the live path are here too: a table's rows, prepared once (games/services/prepared.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, NamedTuple

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import IntegrityError, OperationalError, connection, connections, transaction
from django.utils import timezone

from games.live import notices
from games.models import ActionReceipt, PlayedHand, Rubber, RubberPlayer, Seat, Table
from games.services import events
from games.services.prepared import (
    Prepared,
    Returning,
    RowCreate,
    RowInsert,
    RowUpdate,
    Statement,
    run_all,
)
from games.services.state import CHANGED_FIELDS, Holder, SeatKeys

if TYPE_CHECKING:
    from django.db.models import Model

    from games.services.state import TableState

log = logging.getLogger(__name__)


class Lost(Exception):
    """The table was not at the version the change was checked against: nothing written."""


class Held(Exception):
    """Another transaction holds the table's row (past the lock timeout, or at all for a write
    that does not wait): nothing written."""


class Duplicate(Exception):
    """The action's id was applied before, at `version`: nothing written."""

    def __init__(self, version: int) -> None:
        super().__init__(version)
        self.version = version


# -- reads ---------------------------------------------------------------------------------------

table = Prepared(lambda table_id: Table.objects.filter(pk=table_id))
seats = Prepared(lambda table_id: Seat.objects.filter(table_id=table_id).order_by("index"))
last_rubber = Prepared(
    lambda table_id: Rubber.objects.filter(table_id=table_id).order_by("-number")[:1]
)
last_hand = Prepared(
    lambda rubber_id: PlayedHand.objects.filter(rubber_id=rubber_id).order_by("-number")[:1]
)
_RECEIPT = Prepared(
    lambda table_id, action_id: ActionReceipt.objects.filter(
        table_id=table_id, action_id=action_id
    ).values_list("version")[:1]
)


def table_row(table_id: int) -> Table | None:
    return next(iter(table(table_id)), None)


def table_with_club(table_id: int) -> Table:
    return Table.objects.select_related("club").get(pk=table_id)


def hand_row(rubber_id: int, number: int) -> PlayedHand | None:
    """The row of a rubber's hand by its number (in a worker thread: it queries the database;
    once a deal another process made, so through the ORM)."""
    # At most one row (a rubber's hands are numbered uniquely); unordered, as `first()` would
    # order it by the model's ordering, which joins the rubber and the table for nothing.
    return next(
        iter(PlayedHand.objects.filter(rubber_id=rubber_id, number=number).order_by()[:1]), None
    )


def receipt(table_id: int, action_id: str) -> int | None:
    """The version an action id was applied at, or None."""
    for (version,) in _RECEIPT(table_id, action_id):
        return int(version)
    return None


@contextlib.contextmanager
def one_snapshot() -> Iterator[None]:
    """Reads of a table's rows that all see the database at one moment, so a version is never
    shown with a hand from a later one (a commit between reading the table's row and its
    hand's). Inside a transaction that writes the table nothing can change it anyway."""
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # READ COMMITTED gives each statement its own snapshot; this, one for all of them.
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


# -- the write of a change -----------------------------------------------------------------------

# The claim: the table's changed fields, at the version the change was checked against.
_CLAIM = RowUpdate(Table, CHANGED_FIELDS, at=("version",))
_HAND_RECORD = RowUpdate(PlayedHand, ("record",))
_NEW_RECEIPT = RowInsert(ActionReceipt, ("table", "action_id", "version", "created_at"))
# What the clock notes without a new version (a deadline moved, a bot that passed).
_NOTE = RowUpdate(Table, ("deadline_at", "bots_offered"), at=("version",))
_VERSION = Prepared(lambda table_id: Table.objects.filter(pk=table_id).values_list("version"))
# The end of a hand: its row and its rubber's, as the engine leaves them (games.services.state's
# `finish_hand`), and each player's tally.
_HAND_END = RowUpdate(PlayedHand, ("record", "complete", "result", "finished_at"))
_RUBBER_END = RowUpdate(Rubber, ("lives", "dealer", "over", "winner", "losers", "finished_at"))
# A hand dealt: its new row (the ORM's insert was a fifth of a deal's time).
_NEW_HAND = RowCreate(
    PlayedHand,
    ("rubber", "number", "seats", "record", "complete", "result", "started_at", "finished_at"),
)


_SKIPPING: dict[str, str] = {}


def _opening(
    state: TableState, base: int, now: datetime, action_id: str | None, db: Any, waits: bool
) -> list[Statement]:
    """The claim of the table's row, the action's receipt, and the rows beside the table's
    that plain statements write (`TableState.statements`: the end of a hand, a new hand)."""
    row = state.table
    sql, params = _CLAIM.statement(
        db, tuple(getattr(row, f.attname) for f in _CLAIM.fields), (row.pk, base)
    )
    if not waits and db.vendor == "postgresql":
        # A row another transaction holds is passed over at once (nothing written), never
        # waited for: the clock goes on with other tables, the loop's connection with other
        # changes. The same parameters, in the same order.
        sql = _SKIPPING.get(sql) or _SKIPPING.setdefault(sql, _skipping(sql, db.ops.quote_name))
    statements: list[Statement] = [(sql, params)]
    if action_id is not None:
        statements.append(_NEW_RECEIPT.statement(db, (row.pk, action_id, row.version, now)))
    for make in state.statements:
        statements += make(db)
    state.taken = action_id
    return statements


def _skipping(claim: str, quote: Any) -> str:
    meta = Table._meta
    key, name = quote(meta.pk.column), quote(meta.db_table)
    version = quote(meta.get_field("version").column)
    head, _, _ = claim.partition(" WHERE ")
    return (
        f"{head} WHERE {key} = (SELECT {key} FROM {name} WHERE {key} = %s "  # noqa: S608
        f"AND {version} = %s FOR UPDATE SKIP LOCKED)"
    )


def _closing(state: TableState, db: Any) -> list[tuple[str, list[Any]]]:
    """The hand's new actions, and the notice to the other processes (PostgreSQL)."""
    statements = []
    hand = state.hand_row
    if state.record_changed and hand is not None:
        statements.append(_HAND_RECORD.statement(db, (hand.record,), (hand.pk,)))
    if db.vendor == "postgresql":
        payload = notices.payload(state.table.pk, state.table.version, state)
        statements.append((NOTIFY, [notices.CHANNEL, payload]))
    return statements


def write(
    state: TableState, base: int, now: datetime, action_id: str | None = None, *, waits: bool = True
) -> None:
    """Write the change `state` holds (its table at its new version), checked against version
    `base`, in one transaction on this thread's connection. Raises Lost, Held or Duplicate
    (nothing written). `waits=False`: a row another transaction holds is not waited for."""
    table_id = state.table.pk
    try:
        with transaction.atomic():
            claim, *receipts = _opening(state, base, now, action_id, connection, waits)
            with connection.cursor() as cursor:
                cursor.execute(*claim)
                if cursor.rowcount != 1:
                    if not waits and _version(table_id) == base:
                        raise Held
                    raise Lost
                run_all(cursor, receipts)
            for step in state.later:
                step()
            state.later.clear()
            state.statements.clear()
            with connection.cursor() as cursor:
                for statement in _closing(state, connection):
                    cursor.execute(*statement)
            state.record_changed = False
            table = state.table
            # The views and the clock hear of it once it commits (games/services/events.py).
            events.send_on_commit(table.pk, table.version, table.deadline_at, state)
    except IntegrityError:
        version = receipt(table_id, action_id) if action_id is not None else None
        if version is None:
            raise
        raise Duplicate(version) from None
    except OperationalError as error:
        # PostgreSQL gave up waiting for the row (lock_timeout, or statement_timeout first).
        if getattr(error.__cause__, "sqlstate", None) in ("55P03", "57014"):
            raise Held from None
        raise


def hand_end(
    db: Any, hand: PlayedHand, rubber: Rubber, lives_lost: dict[int, int]
) -> list[tuple[str, list[Any]]]:
    """The end of a hand as statements for `db` (a connection, which need not be connected):
    the hand's row with its whole record, the rubber's, and the lives each player lost added
    to her tally (built once: the ORM's saves and updates were a few per cent of a busy
    server's time)."""
    statements = [
        _HAND_END.statement(
            db, (hand.record, hand.complete, hand.result, hand.finished_at), (hand.pk,)
        ),
        _RUBBER_END.statement(
            db,
            (
                rubber.lives,
                rubber.dealer,
                rubber.over,
                rubber.winner,
                rubber.losers,
                rubber.finished_at,
            ),
            (rubber.pk,),
        ),
    ]
    tally = _TALLIES.get(db.vendor)
    if tally is None:
        table, _, lost, of, at = _quoted(db, RubberPlayer, "lives_lost", "rubber", "seat")
        tally = _TALLIES[db.vendor] = (
            f"UPDATE {table} SET {lost} = {lost} + %s WHERE {of} = %s AND {at} = %s"  # noqa: S608
        )
    statements += [(tally, [n, rubber.pk, seat]) for seat, n in lives_lost.items() if n]
    return statements


_TALLIES: dict[str, str] = {}  # a player's tally, by the database's vendor


def new_hand(db: Any, row: PlayedHand) -> list[Statement]:
    """Insert `row`, a hand just dealt, as its `save` would, as a statement for `db`: its
    start stamped now, its rubber's key taken from the rubber row, its own key read back
    into it when the statement has run (`Returning`)."""
    rubber_id = row.rubber.pk
    if rubber_id is None:
        raise ValueError("a hand's rubber is written before the hand")
    row.rubber_id = rubber_id
    row.started_at = timezone.now()

    def keyed(key: int) -> None:
        row.pk = key
        row._state.adding = False
        row._state.db = _NEW_HAND.alias

    values = (rubber_id, row.number, row.seats, row.record, row.complete, row.result)
    return [_NEW_HAND.creating(db, (*values, row.started_at, row.finished_at), keyed)]


def insert_hand(row: PlayedHand) -> None:
    """`new_hand` run now, in the change's transaction (a worker thread's `later`: the hand
    of a rubber whose own row the same change inserts first)."""
    with connection.cursor() as cursor:
        run_all(cursor, new_hand(connection, row))


def _quoted(db: Any, model: type[Model], *fields: str) -> tuple[str, ...]:
    """`model`'s table, primary key and `fields`' columns, quoted for `db`: the only names the
    plain statements here write into their SQL (every value is a parameter)."""
    quote = db.ops.quote_name
    meta = model._meta
    columns = (quote(meta.get_field(name).column) for name in fields)
    return (quote(meta.db_table), quote(meta.pk.column), *columns)


def _version(table_id: int) -> int | None:
    for (version,) in _VERSION(table_id):
        return int(version)
    return None


def note(table: Table, base: int) -> bool:
    """The table's deadline and the computer players who passed, noted without a new version
    (nothing changed that a phone shows); False when the table has moved on meanwhile."""
    return bool(_NOTE(table.pk, base, table.deadline_at, table.bots_offered))


# -- the write on the event loop ------------------------------------------------------------------


class OneStatement(NamedTuple):
    """A change as one statement (`_as_one`), and what its row hands back: the `then` of each
    `Returning` statement in it, given its column of the row (after the claim's)."""

    sql: str
    params: list[Any]
    thens: list[Callable[[tuple[Any, ...]], None]]

    def returned(self, row: tuple[Any, ...]) -> None:
        for column, then in enumerate(self.thens, start=1):
            then((row[column],))


def _as_one(statements: list[Statement]) -> OneStatement:
    """A change's statements as one (its own transaction, one round trip): the claim and the
    other writes as data-modifying parts of a `WITH`, which all run, and what the others
    select (a new row's key, the notice) in the select list; the claim fails the whole of it
    when it wrote no row (a division by zero, 22012)."""
    (claim, params), *rest = statements
    parts, selected, values = [f"claimed AS ({claim} RETURNING 1)"], ["1 / COUNT(*)"], []
    thens = []
    params = list(params)
    for statement in rest:
        if isinstance(statement, Returning):
            # Its key, in the select list right after the claim's column (the notice names
            # the new hand by its number, known before it is written).
            name = f"w{len(parts)}"
            parts.append(f"{name} AS ({statement.sql})")
            params += statement.params
            selected.insert(1 + len(thens), f"(SELECT * FROM {name})")  # noqa: S608
            thens.append(statement.then)
            continue
        sql, more = statement
        if sql.startswith("SELECT "):
            selected.append(sql.removeprefix("SELECT "))
            values += more
        else:
            parts.append(f"w{len(parts)} AS ({sql})")
            params += more
    # Only the statements' own SQL goes in (built from the models' quoted names); every value
    # is a parameter.
    sql = f"WITH {', '.join(parts)} SELECT {', '.join(selected)} FROM claimed"  # noqa: S608
    return OneStatement(sql, params + values, thens)


# After a failed connection, changes go to a worker thread this long before a new try.
RETRY_SECONDS = 5.0


class LoopWriter:
    """This process's connection for `write_here`: the changes that come while one batch is on
    its way are sent together next, in one round trip and one transaction (a group commit on
    the loop).

    A change waited for its answer before the next was sent: a round trip, and then the loop's
    turn to read it, which under load is most of the time (3-8 ms each with the loop busy at
    512 tables), so past a few hundred changes a second every table's change waited behind the
    others and the wait grew without end (p50 about a second at 512 tables). Now a batch
    goes as a pipeline: every change its own statement (`_as_one`), one sync at the end. When
    one of them fails (a lost race, a used id, a held row) the whole batch is rolled back and
    each change is sent again alone, so it is told its own outcome and costs the others
    nothing but a round trip. The changes of a table are sent in the order they were decided,
    and a later one sees an earlier one's claim in the same transaction."""

    BATCH = 64  # changes at most in one transaction

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.lock = asyncio.Lock()
        self.connection: Any = None
        self.failed_at: float | None = None
        # Each change waiting to be sent, and where its statement's row goes (None: not written).
        self.waiting: list[tuple[OneStatement, asyncio.Future[tuple[Any, ...] | None]]] = []
        self.sending: asyncio.Task[None] | None = None  # the task sending the batches
        self.written = 0  # changes written on the loop (for the logs and the tests)
        self.batches = 0  # transactions of more than one change (for the logs and the tests)
        # A wrapper of its own (never connected) prepares the values as the ORM does.
        self.django = connections.create_connection("default")

    async def write(
        self, state: TableState, base: int, now: datetime, action_id: str | None
    ) -> bool:
        """`write`'s statements on the loop; False when nothing was written (the table moved
        on, its row was held, the id was used, or no connection): the caller decides with a
        fresh read in a worker thread.

        The statements go as one (`_as_one`): PostgreSQL runs it in the batch's transaction and
        commits it with the batch, or rolls all of it back when a part fails. The claim fails
        (a division by zero) when it wrote no row, so a change that lost the race writes
        nothing; and once the statement is sent, the change commits or not whatever becomes
        of this process."""
        statement = _as_one(
            _opening(state, base, now, action_id, self.django, waits=False)
            + _closing(state, self.django)
        )
        done: asyncio.Future[tuple[Any, ...] | None] = self.loop.create_future()
        self.waiting.append((statement, done))
        if self.sending is None:
            self.sending = self.loop.create_task(self._send_waiting())
        row = await done
        if row is None:
            return False
        statement.returned(row)  # a new hand's key
        self.written += 1
        state.record_changed = False
        state.statements.clear()
        return True

    async def _send_waiting(self) -> None:
        try:
            while self.waiting:
                batch, self.waiting = self.waiting[: self.BATCH], self.waiting[self.BATCH :]
                try:
                    async with self.lock:
                        outcomes = await self._send([statement for statement, _ in batch])
                except asyncio.CancelledError:
                    for _, done in batch:
                        done.cancel()
                    raise
                except Exception:
                    log.exception("changes on the loop failed; worker threads decide them")
                    outcomes = [None] * len(batch)
                for (_, done), row in zip(batch, outcomes, strict=True):
                    if not done.done():
                        done.set_result(row)
        finally:
            self.sending = None

    async def _send(self, statements: list[OneStatement]) -> list[tuple[Any, ...] | None]:
        """Each statement's row (None: not written): all of them in one transaction, or each
        alone when one of them failed."""
        connection = await self._connect()
        if connection is None:
            return [None] * len(statements)
        if len(statements) > 1:
            try:
                async with connection.pipeline():
                    cursors = [
                        await connection.execute(statement.sql, statement.params)
                        for statement in statements
                    ]
                rows = [await cursor.fetchone() for cursor in cursors]
            except Exception:
                if await self._dropped_if_broken(connection):
                    return [None] * len(statements)
            else:
                self.batches += 1
                return rows
        return [await self._send_one(connection, statement) for statement in statements]

    async def _send_one(self, connection: Any, statement: OneStatement) -> tuple[Any, ...] | None:
        if connection.closed:
            return None
        try:
            cursor = await connection.execute(statement.sql, statement.params)
            return await cursor.fetchone()
        except Exception as error:
            if getattr(error, "sqlstate", None) not in ("22012", "23505"):
                log.warning("a change on the loop failed; a worker thread decides", exc_info=True)
            await self._dropped_if_broken(connection)
            return None

    async def _dropped_if_broken(self, connection: Any) -> bool:
        """Drop the connection, and say so, when a failure left it unusable."""
        if connection.closed or connection.broken:
            await self._drop()
            return True
        return False

    async def _connect(self) -> Any:
        connection = self.connection
        if connection is not None and not connection.closed:
            return connection
        if self.failed_at is not None and self.loop.time() - self.failed_at < RETRY_SECONDS:
            return None
        import psycopg

        params = self.django.get_connection_params()
        params.pop("cursor_factory", None)
        try:
            self.connection = await psycopg.AsyncConnection.connect(autocommit=True, **params)
        except Exception:
            log.exception("no connection for changes on the loop; worker threads write them")
            self.failed_at = self.loop.time()
            return None
        self.failed_at = None
        return self.connection

    async def close(self) -> None:
        async with self.lock:
            await self._drop()

    async def _drop(self) -> None:
        connection, self.connection = self.connection, None
        if connection is not None:
            try:
                await connection.close()
            except Exception:
                log.exception("closing the loop's connection failed")


class SqliteLoopWriter:
    """This process's SQLite connection for `write_here`, used on the event loop alone.

    SQLite runs in this process: a statement is a function call, and a commit appends to the
    write-ahead log (`synchronous=NORMAL`, as the server's other connections), so the loop writes
    a change in less time than a trip to a worker thread and back takes. The changes decided in
    one turn of the loop are written together in the next, in one transaction (a group commit,
    as `LoopWriter`'s): the file's lock is taken and given back once for all of them, and the
    log's pages they share (the newest receipts, the deadlines' index) are written once. It
    waits for the file's write lock, which one writer at a time holds, `BUSY_MS` at most: a
    change that could not be written then is decided again in a worker thread, as one that
    lost its race.

    The loop never copies the log into the database file itself (a checkpoint syncs the file:
    milliseconds of the disk's time, every phone's change waiting meanwhile); a thread of the
    writer's own does, every `CHECKPOINT_CHANGES` changes (`_checkpoint`). With nearly every
    change written here, the worker threads' commits, which checkpoint as SQLite does by
    itself, are too few to keep the log short: without it the log grew by megabytes a second
    (110 MB after 25 s at 1,024 tables) and every write slowed. Once the log is larger than
    `LOG_FRAMES`, that thread restarts it, holding the file's write lock for milliseconds: a
    change that comes meanwhile waits for it on the loop's terms (`restarting`, awaited),
    never in SQLite's busy handler, which would hold the loop and every phone's frames with it
    (at 1,024 tables 17-32 changes in 4,000 waited there over a millisecond). Restarted at
    every checkpoint, four or five times a second at 1,200 tables, the log made a sixth of the
    changes wait, 58 ms at the median of those: the largest part of the slowest actions' time."""

    BUSY_MS = 10
    CHECKPOINT_CHANGES = 256  # about SQLite's own 1,000 pages of log between two checkpoints
    # The log's length (pages) past which a checkpoint restarts it: 64 MiB of 4 KiB pages, at
    # 1,200 tables every 2-3 s (a change writes six or seven pages).
    LOG_FRAMES = 16_384

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.connection: sqlite3.Connection | None = None
        self.written = 0  # changes written on the loop (for the logs and the tests)
        self.passed = 0  # changes it could not write (lock held, race lost, id used, error)
        self.batches = 0  # transactions of more than one change (for the logs and the tests)
        # Each change waiting for the next transaction (its claim, its parameters, the rest),
        # and where its outcome goes.
        self.waiting: list[tuple[tuple[str, list[Any], list[Statement]], asyncio.Future[bool]]] = []
        self.due = False  # whether the loop's next turn writes them (`_write_waiting`)
        # A wrapper of its own (never connected) prepares the values as the ORM does.
        self.django = connections.create_connection("default")
        self.queries: dict[str, str] = {}  # Django's placeholders -> sqlite3's
        self.since_checkpoint = 0  # changes written since the last checkpoint began
        self.checkpoints = 0  # checkpoints that restarted the log (for the logs and the tests)
        self.copies = 0  # checkpoints that copied the log into the file and left it as it was
        self.checkpointer: ThreadPoolExecutor | None = None
        self.checkpointing = False
        self.checkpoint_connection: sqlite3.Connection | None = None  # the checkpointer's own
        # Held by the loop while it writes a change, and by the checkpointer while it restarts
        # the log; the loop never blocks on it (`write`).
        self.restarting = threading.Lock()
        self.checkpoint: asyncio.Future[bool | None] | None = None  # the checkpoint under way

    async def write(
        self, state: TableState, base: int, now: datetime, action_id: str | None
    ) -> bool:
        """`write`'s statements on the loop, with the changes decided in the same turn of the
        loop; False when nothing was written (the table moved on, the id was used, the lock
        was held too long, an error): the caller decides with a fresh read in a worker
        thread."""
        (claim, params), *rest = _opening(state, base, now, action_id, self.django, waits=False)
        rest += _closing(state, self.django)
        done: asyncio.Future[bool] = self.loop.create_future()
        self.waiting.append(((claim, params, rest), done))
        if not self.due:
            self.due = True
            self.loop.call_soon(self._write_waiting)
        if not await done:
            return False
        state.record_changed = False
        state.statements.clear()
        return True

    def _write_waiting(self) -> None:
        """The changes waiting, all of them in one transaction: those decided in the turn of
        the loop before, and any decided while a restart of the log held them back."""
        if not self.restarting.acquire(blocking=False):
            # The checkpointer is restarting the log: the changes wait for it, the loop not.
            # (A table may move on meanwhile: its claim then writes nothing, as any lost race.)
            assert self.checkpoint is not None
            self.checkpoint.add_done_callback(lambda _: self._write_waiting())
            return
        changes, self.waiting = self.waiting, []
        self.due = False
        written = [False] * len(changes)
        try:
            written = self._write([change for change, _ in changes])
        except Exception:  # its callers are told, never left waiting
            log.exception("changes on the loop failed; worker threads decide them")
        finally:
            self.restarting.release()
        for (_, done), outcome in zip(changes, written, strict=True):
            if not done.done():  # its caller may be gone: the change is written all the same
                done.set_result(outcome)

    def _write(self, changes: list[tuple[str, list[Any], list[Statement]]]) -> list[bool]:
        """Each change written or not, in one transaction. A claim that finds its table moved on
        writes nothing, and the others go on; a change whose id was used (its receipt refused)
        is left out and the others are written again without it, in a transaction of their
        own (a savepoint for each change, two statements more, took back half of what the
        shared commit saves). Any other error, or a failed commit, leaves all of them
        unwritten (and their callers told so: they wait for no more than this)."""
        left = list(range(len(changes)))
        taken: list[int] = []
        while left:
            try:
                cursor = self._connect().cursor()
                cursor.execute("BEGIN IMMEDIATE")
            except sqlite3.Error:
                log.debug(
                    "the loop could not begin a change; a worker thread decides", exc_info=True
                )
                break
            try:
                taken, refused = self._run_changes(cursor, [(i, changes[i]) for i in left])
                if refused is None:
                    cursor.execute("COMMIT")
                    break
                cursor.execute("ROLLBACK")
                left.remove(refused)
                taken = []
            except Exception:
                # Nothing of them is written: the callers are told, never left waiting.
                log.warning("changes on the loop failed; worker threads decide them", exc_info=True)
                if cursor.connection.in_transaction:
                    cursor.execute("ROLLBACK")
                taken = []
                break
        written = [False] * len(changes)
        for i in taken:
            written[i] = True
        self.written += len(taken)
        self.passed += len(changes) - len(taken)
        self.batches += len(changes) > 1
        self.since_checkpoint += len(taken)
        if self.since_checkpoint >= self.CHECKPOINT_CHANGES and not self.checkpointing:
            self._checkpoint_soon()
        return written

    def _run_changes(
        self,
        cursor: sqlite3.Cursor,
        changes: list[tuple[int, tuple[str, list[Any], list[Statement]]]],
    ) -> tuple[list[int], int | None]:
        """The changes' statements in the transaction begun: those whose claim took the
        table's row, and the first refused by a constraint (its id used), where it stopped."""
        taken = []
        for i, (claim, params, rest) in changes:
            try:
                if cursor.execute(self._query(claim), params).rowcount != 1:
                    continue  # the table moved on: nothing of it written
                run_all(cursor, [self._here(statement) for statement in rest])
            except sqlite3.IntegrityError:
                return taken, i
            taken.append(i)
        return taken, None

    def _connect(self) -> sqlite3.Connection:
        if self.connection is None:
            self.connection = self._open("PRAGMA wal_autocheckpoint = 0")  # `_checkpoint` does
        return self.connection

    def _open(self, *commands: str) -> sqlite3.Connection:
        """A connection as Django's (its foreign keys, its init commands), then `commands`."""
        params = self.django.get_connection_params()
        params.pop("detect_types", None)  # it only writes
        params["timeout"] = self.BUSY_MS / 1000
        connection = sqlite3.connect(**params, isolation_level=None)
        try:
            connection.execute("PRAGMA foreign_keys = ON")
            for command in (*self.django.init_commands, *commands):
                if command.strip():
                    connection.execute(command)
        except BaseException:
            connection.close()
            raise
        return connection

    def _checkpoint_soon(self) -> None:
        self.since_checkpoint = 0
        self.checkpointing = True
        if self.checkpointer is None:
            self.checkpointer = ThreadPoolExecutor(1, thread_name_prefix="toepen-checkpoint")
        future = self.checkpoint = self.loop.run_in_executor(self.checkpointer, self._checkpoint)
        future.add_done_callback(self._checkpointed)

    def _checkpoint(self) -> bool | None:
        """In the checkpointer's thread (its connection is its own): the log copied into the
        database file while the loop goes on writing (`PASSIVE`); once the log is longer than
        `LOG_FRAMES` (what it holds since it last began, not its file's size, which a restart
        leaves as it was), then the few changes that came meanwhile with the write lock held
        (`RESTART`: for that tail only, and with `restarting` held, so that the changes that
        come meanwhile wait and the loop does not), so that the next change writes the log
        from its start. True when it restarted, None when it only copied."""
        connection = self.checkpoint_connection
        if connection is None:
            connection = self.checkpoint_connection = self._open()
        _, frames, _ = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if frames <= self.LOG_FRAMES:
            return None
        with self.restarting:  # the loop's changes wait meanwhile, the loop itself not
            busy, _, _ = connection.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
        return not busy

    def _checkpointed(self, future: asyncio.Future[bool | None]) -> None:
        self.checkpointing = False
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:
            log.warning("a checkpoint of the log failed", exc_info=error)
            return
        restarted = future.result()
        if restarted is None:
            self.copies += 1
        elif restarted:
            self.checkpoints += 1

    def _close_checkpoints(self) -> None:
        """In the checkpointer's thread: its connection closed."""
        connection, self.checkpoint_connection = self.checkpoint_connection, None
        if connection is not None:
            connection.close()

    def _query(self, sql: str) -> str:
        query = self.queries.get(sql)
        if query is None:
            # The statements' only placeholders are %s (games/services/prepared.py).
            query = self.queries[sql] = sql.replace("%s", "?")
        return query

    def _here(self, statement: Statement) -> Statement:
        """`statement` with sqlite3's placeholders."""
        if isinstance(statement, Returning):
            return statement._replace(sql=self._query(statement.sql))
        return self._query(statement[0]), statement[1]

    async def close(self) -> None:
        while self.due:  # the changes on their way are written first
            await asyncio.sleep(0.001)
        self.close_now()

    def close_now(self) -> None:
        connection, self.connection = self.connection, None
        if connection is not None:
            connection.close()
        checkpointer, self.checkpointer = self.checkpointer, None
        if checkpointer is not None:
            checkpointer.submit(self._close_checkpoints)
            checkpointer.shutdown(wait=True)


_writer: LoopWriter | SqliteLoopWriter | None = None


def loop_writer() -> LoopWriter | SqliteLoopWriter:
    """The running loop's writer (one per loop: each has a connection of its own)."""
    global _writer
    loop = asyncio.get_running_loop()
    if _writer is None or _writer.loop is not loop or loop.is_closed():
        if isinstance(_writer, SqliteLoopWriter):
            _writer.close_now()  # a loop that is gone (the tests run one each)
        _writer = new_loop_writer(loop)
    return _writer


def new_loop_writer(loop: asyncio.AbstractEventLoop) -> LoopWriter | SqliteLoopWriter:
    """A writer for `loop`, with a connection of its own to the database the settings name."""
    if connections["default"].vendor == "postgresql":
        return LoopWriter(loop)
    return SqliteLoopWriter(loop)


async def write_here(
    state: TableState,
    base: int,
    now: datetime,
    action_id: str | None = None,
    *,
    alone: bool = False,
) -> bool:
    """Write the change from the event loop: on the loop's own connection when plain statements
    write all of it, else (`state.later`) `write` in a worker thread. False when nothing was
    written (the caller decides with a fresh read); Duplicate when the id was used. `alone`:
    the loop's own writer or nothing (the clock's changes never wait for a row another
    transaction holds, and the group's would)."""
    if not state.later:
        written = await loop_writer().write(state, base, now, action_id)
        if written:
            table = state.table
            events.send(table.pk, table.version, table.deadline_at, state)
        return written
    if alone:
        return False
    try:
        await _group(asyncio.get_running_loop()).write(state, base, now, action_id)
    except (Lost, Held):
        return False
    return True


class GroupCommit:
    """The changes of a loop's phones written in a worker thread, as few transactions as the
    thread's pace allows (a group commit): a change is sent at once when none is on its way,
    and those that come while one is are written together next, each on its own savepoint, so
    one that lost its race writes nothing and costs the others nothing. Each is `write` itself;
    only the commit is shared, and every change is told its own outcome after it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.waiting: list[tuple[tuple[Any, ...], asyncio.Future[None]]] = []
        self.writing = False

    async def write(
        self, state: TableState, base: int, now: datetime, action_id: str | None
    ) -> None:
        done = self.loop.create_future()
        self.waiting.append(((state, base, now, action_id), done))
        if not self.writing:
            self.writing = True
            self.loop.create_task(self._write_waiting())
        await done

    async def _write_waiting(self) -> None:
        try:
            while self.waiting:
                changes, self.waiting = self.waiting, []
                try:
                    # In a worker thread, its connection closed first if it grew old, as every
                    # database call from the loop is made.
                    outcomes = await database_sync_to_async(write_all)([c for c, _ in changes])
                except asyncio.CancelledError:
                    for _, done in changes:
                        done.cancel()
                    raise
                except Exception as error:  # the commit failed: none of them was written
                    outcomes = [error] * len(changes)
                for (_, done), outcome in zip(changes, outcomes, strict=True):
                    if done.done():
                        continue
                    if outcome is None:
                        done.set_result(None)
                    else:
                        done.set_exception(outcome)
        finally:
            self.writing = False


def write_all(changes: list[tuple[Any, ...]]) -> list[Exception | None]:
    """`write` for each change, in one transaction: each change's outcome (None: written; an
    error, Lost, Held or Duplicate among them: nothing of it written, its savepoint rolled
    back). A commit that fails raises: none of them was written."""
    outcomes: list[Exception | None] = []
    with transaction.atomic():
        for change in changes:
            try:
                write(*change)
            except Exception as outcome:
                outcomes.append(outcome)
            else:
                outcomes.append(None)
    return outcomes


_grouped: GroupCommit | None = None


def _group(loop: asyncio.AbstractEventLoop) -> GroupCommit:
    global _grouped
    if _grouped is None or _grouped.loop is not loop:
        _grouped = GroupCommit(loop)
    return _grouped


# -- the notices between processes (games/live/notices.py) --------------------------------------

NOTIFY = "SELECT pg_notify(%s, %s)"


async def listen() -> Any:
    """A connection of this process's own, listening for every table's notices (named after
    the process, for the database's view of its sessions)."""
    import psycopg

    params = connections.create_connection("default").get_connection_params()
    params.pop("cursor_factory", None)
    params["application_name"] = f"toepen-hub {os.getpid()}"
    params.setdefault("connect_timeout", 5)
    listening = await psycopg.AsyncConnection.connect(autocommit=True, **params)
    try:
        await listening.execute(f"LISTEN {notices.CHANNEL}")
    except BaseException:
        await listening.close()
        raise
    return listening


# -- presence, versions, deadlines -----------------------------------------------------------------


def mark_seen(table_id: int, holder: Holder) -> None:
    """A phone is here: its seats count as connected (one update, no lock, no new version)."""
    if holder.key or holder.user_id is not None or holder.guest_id is not None:
        mark_seen_all([(table_id, holder)])


def mark_seen_all(held: Iterable[tuple[int, Holder]]) -> None:
    """The heartbeats of every phone connected to a process, in one `UPDATE`."""
    holders: dict[int, list[Holder]] = {}
    for table_id, holder in held:
        holders.setdefault(table_id, []).append(holder)
    # Plain statements, not the ORM: a round reads every seat of the process's tables, and the
    # ORM prepared each of the thousands of ids of its `IN` lists one by one.
    table, key, at, *columns = _quoted(connection, Seat, "table", *SeatKeys._fields)
    read = f"SELECT {key}, {at}, {', '.join(columns)} FROM {table} WHERE {at} IN ({{}})"  # noqa: S608
    seen = [
        pk
        for pk, table_id, *keys in _in_parts(read, list(holders))
        if any(h.holds(SeatKeys(*keys)) for h in holders[table_id])
    ]
    if seen:
        table, key, last_seen = _quoted(connection, Seat, "last_seen")
        now = Seat._meta.get_field("last_seen").get_db_prep_save(timezone.now(), connection)
        update = f"UPDATE {table} SET {last_seen} = %s WHERE {key} IN ({{}})"  # noqa: S608
        _in_parts(update, seen, [now])


IN_AT_ONCE = 500  # ids in one statement's `IN` list


def _in_parts(sql: str, ids: list[int], params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """`sql` (its `IN` list written `({})`) run for `ids`, `IN_AT_ONCE` at a time, after
    `params`: the rows it returns."""
    rows: list[tuple[Any, ...]] = []
    with connection.cursor() as cursor:
        for start in range(0, len(ids), IN_AT_ONCE):
            part = ids[start : start + IN_AT_ONCE]
            cursor.execute(sql.format(", ".join(["%s"] * len(part))), [*(params or ()), *part])
            if cursor.description is not None:
                rows += cursor.fetchall()
    return rows


def presence(tables: list[int]) -> list[tuple[int, int, datetime | None]]:
    """Each seat's id, table and `last_seen`, at `tables`, as the ORM reads them (a plain
    statement: the ORM looked up `settings.USE_TZ` for every seat of a heartbeat round)."""
    table, key, at, seen = _quoted(connection, Seat, "table", "last_seen")
    rows = _in_parts(f"SELECT {key}, {at}, {seen} FROM {table} WHERE {at} IN ({{}})", tables)  # noqa: S608
    aware = _moments()
    return [(pk, table_id, aware(moment)) for pk, table_id, moment in rows]


def _moments() -> Callable[[datetime | None], datetime | None]:
    """A date and time column's value as the ORM reads it, from this thread's connection's
    plain statement: SQLite hands back the UTC moment without its zone, PostgreSQL with it."""
    zone = connection.timezone if settings.USE_TZ else None

    def aware(moment: datetime | None) -> datetime | None:
        return moment.replace(tzinfo=zone) if zone and moment and not moment.tzinfo else moment

    return aware


def versions(tables: list[int]) -> dict[int, int]:
    table, key, version = _quoted(connection, Table, "version")
    return dict(_in_parts(f"SELECT {key}, {version} FROM {table} WHERE {key} IN ({{}})", tables))  # noqa: S608


DUE_AT_ONCE = 100  # tables one look of the clock fires at most


def deadlines(
    skip: Collection[int],
    now: datetime,
    first: Collection[int] | None = None,
    others_after: timedelta = timedelta(0),
) -> tuple[list[int], datetime | None]:
    """The tables due at `now` but `skip`, soonest first (`DUE_AT_ONCE` at most), and when the
    next of the others falls due (or sooner): one query, the soonest deadlines in the index.
    `first`: the tables due at their deadline, the others only `others_after` past it (None:
    every table is due at its deadline)."""
    limit = 2 * DUE_AT_ONCE + len(skip) + 1
    # A plain statement, as the ORM would write it: the clock looks up to twenty times a second,
    # and building the query each time cost more than running it.
    table, key, at = _quoted(connection, Table, "deadline_at")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {key}, {at} FROM {table} WHERE {at} IS NOT NULL ORDER BY {at} LIMIT %s",  # noqa: S608
            [limit],
        )
        aware = _moments()
        rows = [(table_id, aware(moment)) for table_id, moment in cursor.fetchall()]
    due: list[int] = []
    later: datetime | None = None
    for table_id, deadline in rows:
        if table_id in skip:
            continue
        if deadline > now or len(due) == DUE_AT_ONCE:
            return due, min(deadline, later or deadline)
        if first is not None and table_id not in first and deadline + others_after > now:
            later = min(deadline + others_after, later or deadline + others_after)
            continue
        due.append(table_id)
    # Every row read was due or skipped: the next look comes at once.
    return due, (now if len(rows) == limit else later)
