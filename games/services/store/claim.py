"""The write of a change: one transaction that claims the table's row at the version the
change was decided on,

    UPDATE table SET <the changed fields, the new version> WHERE id = %s AND version = %s

then inserts the action's receipt (an id is applied once: a unique constraint), writes the
change's rows beside the table's (rows.py), the hand's record, and the notice that tells the
other processes (games/services/events.py). When the claim finds the table at another
version, nothing is written and `Lost` is raised: the decider reads the table again.

The statements are built here for whichever connection writes them: `write` runs them on the
calling thread's Django connection, `GroupCommit` several changes' `write` in one transaction
in a worker thread, and the event loop's writers (loop_postgres.py, loop_sqlite.py) the same
statements on a connection of their own. Which of them writes a change is chosen in one place,
`commit` (games/services/store/__init__.py).
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import TYPE_CHECKING, Any

from channels.db import database_sync_to_async
from django.db import IntegrityError, OperationalError, connection, transaction

from games.models import ActionReceipt, PlayedHand, Table
from games.services import events
from games.services.prepared import RowInsert, RowUpdate, Statement, run_all
from games.services.state import CHANGED_FIELDS
from games.services.store import reads

if TYPE_CHECKING:
    from games.services.state import TableState


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


# The claim: the table's changed fields, at the version the change was checked against.
CLAIM = RowUpdate(Table, CHANGED_FIELDS, at=("version",))
HAND_RECORD = RowUpdate(PlayedHand, ("record",))
NEW_RECEIPT = RowInsert(ActionReceipt, ("table", "action_id", "version", "created_at"))
# What the clock notes without a new version (a deadline moved, a bot that passed).
NOTE = RowUpdate(Table, ("deadline_at", "bots_offered"), at=("version",))

_SKIPPING: dict[str, str] = {}


def opening(
    state: TableState, base: int, now: datetime, action_id: str | None, db: Any, waits: bool
) -> list[Statement]:
    """The claim of the table's row, the action's receipt, and the rows beside the table's
    that plain statements write (`TableState.statements`: the end of a hand, a new hand)."""
    row = state.table
    sql, params = CLAIM.statement(
        db, tuple(getattr(row, f.attname) for f in CLAIM.fields), (row.pk, base)
    )
    if not waits and db.vendor == "postgresql":
        # A row another transaction holds is passed over at once (nothing written), never
        # waited for: the clock goes on with other tables, the loop's connection with other
        # changes. The same parameters, in the same order.
        sql = _SKIPPING.get(sql) or _SKIPPING.setdefault(sql, _skipping(sql, db.ops.quote_name))
    statements: list[Statement] = [(sql, params)]
    if action_id is not None:
        statements.append(NEW_RECEIPT.statement(db, (row.pk, action_id, row.version, now)))
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


def closing(state: TableState, db: Any) -> list[tuple[str, list[Any]]]:
    """The hand's new actions, and the notice to the other processes (PostgreSQL)."""
    statements = []
    hand = state.hand_row
    if state.record_changed and hand is not None:
        statements.append(HAND_RECORD.statement(db, (hand.record,), (hand.pk,)))
    if db.vendor == "postgresql":
        payload = events.notice(state.table.pk, state.table.version, state)
        statements.append((NOTIFY, [events.CHANNEL, payload]))
    return statements


NOTIFY = "SELECT pg_notify(%s, %s)"


def write(
    state: TableState, base: int, now: datetime, action_id: str | None = None, *, waits: bool = True
) -> None:
    """Write the change `state` holds (its table at its new version), checked against version
    `base`, in one transaction on this thread's connection. Raises Lost, Held or Duplicate
    (nothing written). `waits=False`: a row another transaction holds is not waited for."""
    table_id = state.table.pk
    try:
        with transaction.atomic():
            claim, *receipts = opening(state, base, now, action_id, connection, waits)
            with connection.cursor() as cursor:
                cursor.execute(*claim)
                if cursor.rowcount != 1:
                    if not waits and reads.version(table_id) == base:
                        raise Held
                    raise Lost
                run_all(cursor, receipts)
            for step in state.later:
                step()
            state.later.clear()
            state.statements.clear()
            with connection.cursor() as cursor:
                for statement in closing(state, connection):
                    cursor.execute(*statement)
            state.record_changed = False
            table = state.table
            # The views and the clock hear of it once it commits (games/services/events.py).
            events.send_on_commit(table.pk, table.version, table.deadline_at, state)
    except IntegrityError:
        version = reads.receipt(table_id, action_id) if action_id is not None else None
        if version is None:
            raise
        raise Duplicate(version) from None
    except OperationalError as error:
        # PostgreSQL gave up waiting for the row (lock_timeout, or statement_timeout first).
        if getattr(error.__cause__, "sqlstate", None) in ("55P03", "57014"):
            raise Held from None
        raise


def note_deadline(table: Table, base: int) -> bool:
    """The table's deadline and the computer players who passed, noted without a new version
    (nothing changed that a phone shows); False when the table has moved on meanwhile."""
    return bool(NOTE(table.pk, base, table.deadline_at, table.bots_offered))


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


def group_commit(loop: asyncio.AbstractEventLoop) -> GroupCommit:
    global _grouped
    if _grouped is None or _grouped.loop is not loop:
        _grouped = GroupCommit(loop)
    return _grouped
