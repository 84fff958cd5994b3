"""A player's action written from the event loop in one statement, behind PostgreSQL.

Most actions at a live table start from the version this process already holds (its snapshot:
the change it made itself, or the one it heard of) and only add an action to the hand. Such an
action needs no lock and no reading: it is checked and applied to a copy of the snapshot here,
on the event loop, exactly as `services.act` checks and applies it, and then written with one
statement on this process's own asynchronous connection. That statement moves the table on only
if it is still at the snapshot's version and the action's id is new (optimistic concurrency):
the table's fields, the hand's record and the action's receipt are written together or not at
all, and the notice that tells the other processes (games/notices.py) is sent with them.

Whenever that does not hold (no snapshot here, another change came first, a row another
transaction holds, a repeated id, a refusal, an action that ends the hand, or no connection),
`act` returns None and the caller
takes the locked path (`services.act` in a worker thread), which decides with the database's
word. Both paths run the same checks (`services.play`) and write the same rows.

Behind SQLite (the embedded default) there is one process and every action takes the locked
path: SQLite writes are quick and local.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from django.db import connections
from django.db.models import Field
from django.utils import timezone

from games import events, notices, services
from games.models import ActionReceipt, PlayedHand, Table
from games.services import TableError
from games.tables import CHANGED_FIELDS, Holder, editable_snapshot

log = logging.getLogger(__name__)

# After a failed connection, the locked path carries the actions this long before a new try.
RETRY_SECONDS = 5.0


def _fields() -> list[Field[Any, Any]]:
    return [Table._meta.get_field(name) for name in CHANGED_FIELDS]


def statement(quote: Any) -> str:
    """The quick action's write (PostgreSQL: data-modifying `WITH` clauses), with its notice.

    Its parameters: the table's id and the snapshot's version (the row it claims); the table's
    changed fields; the table's id and the action id (the receipt it must not find); the hand's
    record and id; the action id, the new version and the moment (the receipt); the notice's
    channel and payload. The row is claimed without waiting: when another transaction holds
    it, nothing is written and the locked path decides, so a stuck table never holds up this
    process's other quick actions, which share the one connection. It returns one row when it
    wrote (and sent the notice, delivered as the statement commits), none when it did not."""
    table, hand, receipt = Table._meta, PlayedHand._meta, ActionReceipt._meta

    def column(meta: Any, name: str) -> str:
        return quote(meta.get_field(name).column)

    sets = ", ".join(f"{quote(field.column)} = %s" for field in _fields())
    t, h, r = (quote(m.db_table) for m in (table, hand, receipt))
    table_id = column(table, "id")
    # Only the models' own quoted names go into the SQL; every value is a parameter.
    write = f"""
WITH claimed AS (
    SELECT {table_id} FROM {t} WHERE {table_id} = %s AND {column(table, "version")} = %s
    FOR UPDATE SKIP LOCKED
), changed AS (
    UPDATE {t} SET {sets}
    WHERE {table_id} = (SELECT {table_id} FROM claimed)
      AND NOT EXISTS (
        SELECT 1 FROM {r}
        WHERE {column(receipt, "table")} = %s AND {column(receipt, "action_id")} = %s
      )
    RETURNING {table_id}
), hand AS (
    UPDATE {h} SET {column(hand, "record")} = %s
    WHERE {column(hand, "id")} = %s AND EXISTS (SELECT 1 FROM changed)
), receipt AS (
    INSERT INTO {r} ({column(receipt, "table")}, {column(receipt, "action_id")},
                     {column(receipt, "version")}, {column(receipt, "created_at")})
    SELECT {table_id}, %s, %s, %s FROM changed
)
SELECT pg_notify(%s, %s) FROM changed"""  # noqa: S608
    return write


class QuickActions:
    """This process's quick path: one connection, one statement at a time."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.lock = asyncio.Lock()
        self.connection: Any = None
        self.failed_at: float | None = None
        self.written = 0  # actions written here (for the logs and the tests)
        # A wrapper of its own (never connected) prepares the values as the ORM does.
        self.django = connections.create_connection("default")
        self.write = statement(self.django.ops.quote_name)
        self.fields = _fields()
        self.record = PlayedHand._meta.get_field("record")

    async def act(
        self, table_id: int, holder: Holder, seat: Any, payload: Mapping[str, Any], action_id: str
    ) -> services.Outcome | None:
        """The action written, or None: the locked path decides (see the module)."""
        state = editable_snapshot(table_id)
        if state is None or state.base is None:
            return None
        now = timezone.now()
        try:
            services.play(state, holder, seat, payload, now, ending=False)
        except (TableError, services.EndsHand):
            # A refusal is told by the locked path, with the table as the database has it; the
            # end of a hand writes the rubber's and the next hand's rows there.
            return None
        base = state.base
        assert base is not None and state.hand_row is not None
        services.next_version(state, now)
        table = state.table
        django = self.django
        params = [
            table.pk,
            base[0],
            *(
                field.get_db_prep_save(getattr(table, field.attname), connection=django)
                for field in self.fields
            ),
            table.pk,
            action_id,
            self.record.get_db_prep_save(state.hand_row.record, connection=django),
            state.hand_row.pk,
            action_id,
            table.version,
            now,
            notices.CHANNEL,
            notices.payload(table.pk, table.version, state),
        ]
        if not await self._write(params):
            return None
        self.written += 1
        state.record_changed = False
        events.send(state.table.pk, state.table.version, state.table.deadline_at, state)
        return services.Outcome(table.version)

    async def _write(self, params: list[Any]) -> bool:
        """Write the change and send its notice: False when nothing was written (another change
        came first, the row was held, the id was used, or the database could not be reached)."""
        async with self.lock:
            connection = await self._connect()
            if connection is None:
                return False
            try:
                written = await connection.execute(self.write, params)
                return await written.fetchone() is not None
            except Exception:
                # Written or not, the locked path finds out (a written action is a duplicate
                # there, and its phone gets the table as it is).
                log.exception("a quick action failed; the locked path takes it")
                await self._drop()
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
            log.exception("no connection for quick actions; the locked path takes them")
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
                log.exception("closing the quick actions' connection failed")


_quick: QuickActions | None = None


def get() -> QuickActions | None:
    """The quick path of the running loop, or None where there is none (not PostgreSQL)."""
    global _quick
    if "postgresql" not in connections.settings["default"]["ENGINE"]:
        return None
    loop = asyncio.get_running_loop()
    if _quick is None or _quick.loop is not loop or loop.is_closed():
        _quick = QuickActions(loop)
    return _quick
