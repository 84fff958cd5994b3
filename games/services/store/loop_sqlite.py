"""The event loop's writer behind SQLite: the changes decided in one turn of the loop,
written in the next, in one transaction on a connection of the loop's own."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import connections

from games.services.prepared import Returning, Statement, run_all
from games.services.store import claim

if TYPE_CHECKING:
    from games.services.state import TableState

log = logging.getLogger(__name__)


class SqliteLoopWriter:
    """This process's SQLite connection for `acommit`, used on the event loop alone.

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
        (sql, params), *rest = claim.opening(state, base, now, action_id, self.django, False)
        rest += claim.closing(state, self.django)
        done: asyncio.Future[bool] = self.loop.create_future()
        self.waiting.append(((sql, params, rest), done))
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
        for i, (sql, params, rest) in changes:
            try:
                if cursor.execute(self._query(sql), params).rowcount != 1:
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
