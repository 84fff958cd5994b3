"""The event loop's writer behind PostgreSQL: a change's statements as one statement, with
the changes that came meanwhile, in one round trip and one transaction."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from django.db import connections

from games.services.prepared import Returning, Statement
from games.services.store import claim

if TYPE_CHECKING:
    from games.services.state import TableState

log = logging.getLogger(__name__)


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
    """This process's connection for `acommit`: the changes that come while one batch is on
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
            claim.opening(state, base, now, action_id, self.django, waits=False)
            + claim.closing(state, self.django)
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
