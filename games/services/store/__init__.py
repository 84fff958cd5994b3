"""Every statement the live tables send to the database, and the one write of a change.

A change is decided from a `TableState` read without a lock (games/services/tables.py) and
written by `commit` (or `acommit`, the same from the event loop) in one transaction that
claims the table's row at the version the change was decided on (claim.py). The rule code says
which rows the change writes beside the table's (rows.py); which connection writes them is
chosen here, from what the change holds, and nowhere else:

- `commit` runs it on the calling thread's Django connection (a worker thread of the server,
  a view, the clock; always behind SQLite).
- `acommit` runs a change whose rows are all plain statements (an action added to a hand, most
  of them; the end of a hand that does not end the rubber; the clock's deal) on the event loop,
  on a connection of the process's own: behind PostgreSQL as one statement, with the changes
  that came meanwhile, in one round trip and one transaction (loop_postgres.py); behind SQLite,
  a library in this process, on the loop itself, with the changes decided in the same turn of
  the loop, in one transaction that waits a few milliseconds at most for the file's write lock
  (loop_sqlite.py). A change with ORM work (a seat, a new rubber, a rubber's end) goes to
  `commit` in a worker thread, with the loop's other such changes that came meanwhile, each on a
  savepoint of one transaction (`claim.GroupCommit`: one commit, and one trip to the thread,
  for all of them). A change the loop could not write is decided again by the caller.

The modules, by job: reads.py (the live path's reads), claim.py (the claim and the thread's
write), rows.py (the rows beside the table's), loop_postgres.py and loop_sqlite.py (the event
loop's writers), presence.py (the phones' heartbeats).
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import connections

from games.services import events
from games.services.store import claim
from games.services.store.claim import Duplicate, Held, Lost, note_deadline
from games.services.store.loop_postgres import LoopWriter
from games.services.store.loop_sqlite import SqliteLoopWriter
from games.services.store.presence import mark_seen, mark_seen_all
from games.services.store.reads import (
    deadlines,
    hand_row,
    last_hand,
    last_rubber,
    one_snapshot,
    presence,
    receipt,
    seats,
    table,
    table_row,
    table_with_club,
    versions,
)
from games.services.store.rows import (
    with_hand_end,
    with_new_hand,
    with_update,
    with_work,
)

if TYPE_CHECKING:
    from games.services.state import TableState

__all__ = [
    "Duplicate",
    "Held",
    "LoopWriter",
    "Lost",
    "SqliteLoopWriter",
    "acommit",
    "commit",
    "deadlines",
    "hand_row",
    "last_hand",
    "last_rubber",
    "loop_writer",
    "mark_seen",
    "mark_seen_all",
    "new_loop_writer",
    "note_deadline",
    "one_snapshot",
    "presence",
    "receipt",
    "seats",
    "table",
    "table_row",
    "table_with_club",
    "versions",
    "with_hand_end",
    "with_new_hand",
    "with_update",
    "with_work",
]


def commit(
    state: TableState, base: int, now: datetime, action_id: str | None = None, *, waits: bool = True
) -> None:
    """Write the change `state` holds (its table at its new version), decided on version
    `base`, in one transaction on this thread's connection. Raises Lost, Held or Duplicate
    (nothing written). `waits=False`: a row another transaction holds is not waited for."""
    claim.write(state, base, now, action_id, waits=waits)


async def acommit(
    state: TableState,
    base: int,
    now: datetime,
    action_id: str | None = None,
    *,
    alone: bool = False,
) -> bool:
    """`commit` from the event loop: on the loop's own connection when plain statements write
    all of it, else (ORM work) in a worker thread with the loop's other such changes. False
    when nothing was written (the table moved on, its row was held, no connection): the
    caller decides again on a fresh read. Duplicate when the id was used. `alone`: the loop's
    own writer or nothing (the clock's changes never wait for a row another transaction
    holds, and the group's would)."""
    if not state.later:
        written = await loop_writer().write(state, base, now, action_id)
        if written:
            changed = state.table
            events.send(changed.pk, changed.version, changed.deadline_at, state)
        return written
    if alone:
        return False
    try:
        await claim.group_commit(asyncio.get_running_loop()).write(state, base, now, action_id)
    except (Lost, Held):
        return False
    return True


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
