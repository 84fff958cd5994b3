"""The one decider of a table's changes: a change is one decision, `make(state, now)`, made on
the table as one version left it (read from the database, or this process's snapshot of it),
with no lock held, and committed by the store at the version it was decided on.

`change` is the decider: it reads the table from the database (a worker thread, a view, a
command), decides, commits, and decides a lost race once more, refusing it as `busy` only
after a second loss. `achange` is the same decider from the event loop (a phone's socket): it
decides on the process's snapshot of the table first (`change_here`: no query, committed by
`store.acommit`), and hands whatever that cannot settle to `change` in a worker thread. The
decisions themselves are in the modules beside this one, by job.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from channels.db import database_sync_to_async
from django.core.exceptions import SynchronousOnlyOperation
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games.engine import table as table_rules
from games.models import (
    Seat,
    Table,
)
from games.services import store
from games.services.conf import pace
from games.services.snapshots import clone, editable_copy, read_state, snapshot_of
from games.services.state import TableState


class TableError(Exception):
    """A refusal for whoever asked: `code` is stable (the engine's codes pass through)."""

    def __init__(self, code: str, message: str | Promise) -> None:
        super().__init__(str(message))
        self.code = code
        self.message = message


class Busy(TableError):
    """Another transaction holds the table's row: for a person longer than the lock timeout
    (DATABASE_LOCK_TIMEOUT_MS), for the clock at all. Nothing changed; try again."""

    def __init__(self) -> None:
        super().__init__("busy", _("The table is busy for a moment. Try again."))


def check_door(table: Table, slate: bool = False) -> None:
    """The one rule of each kind of table, asked by every change a person makes: a dealt
    table is changed through its seats (its page, /ws/tables/), a slate table through its
    slate alone (games/services/slate.py: its keepers, /ws/slates/). A slate's players hold
    real cards and no phone's seat, whoever sits there; `slate`: asked for the slate's
    keepers. Who may look follows the same rule (games.services.access.table_access)."""
    if table.slate and not slate:
        raise TableError("slate_table", _("This table keeps a slate: write on the slate."))
    if slate and not table.slate:
        raise TableError("not_slate", _("This table is not a slate table."))


@dataclass(frozen=True)
class Outcome:
    """The table's version after a change: the new one, the one a repeated id was applied at
    (`duplicate`), or the one it stays at when the change wrote none (`changed` False: the
    clock found nothing due, or only noted a deadline)."""

    version: int
    duplicate: bool = False
    changed: bool = True


class Unchanged(Exception):
    """Raised by a decision that makes no new version: nothing a phone shows changed. The
    table's next deadline and the computer players who passed (`state.table`) are noted."""


class NotDue(Exception):
    """Raised by the clock's decision when nothing is due on the table as it is."""


class InThread(Exception):
    """Raised by a decision made on the event loop that must be made in a worker thread (a
    computer player thinks there, and a pausing table reads the database)."""


def on_the_loop() -> bool:
    """Whether the decision is being made on the event loop (`achange`), where nothing may
    wait: a decision that must wait raises InThread there."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


# A decision: the change checked against `state` and applied to it, at `now` (raising
# TableError to refuse it, or Unchanged, NotDue or InThread).
Make = Callable[[TableState, datetime], None]


def change(
    table_id: int,
    make: Make,
    action_id: str | None = None,
    *,
    now: datetime | None = None,
    waits: bool = True,
) -> Outcome:
    """The one way a table changes, in a worker thread: the table read from the database,
    `make` decides the change on it and applies it to the state, and the store commits it at
    the version it was decided on. A change that lost the race to another is decided again on
    the table as the other left it; after a second loss it is refused as busy. `now`: the
    moment it is decided at (the clock's), else the moment it is read. `waits=False`: a row
    another transaction holds is not waited for (Busy at once)."""
    for _attempt in range(2):
        with store.one_snapshot():
            table = store.table_row(table_id)
            if table is None:
                raise TableError("not_found", _("There is no such table."))
            if action_id is not None and (done := store.receipt(table_id, action_id)):
                return Outcome(done, duplicate=True)
            state = editable_copy(read_state(table))
        try:
            return _commit(state, make, now or timezone.now(), action_id, waits)
        except store.Lost:
            continue
    raise Busy


def _commit(
    state: TableState, make: Make, now: datetime, action_id: str | None, waits: bool
) -> Outcome:
    """`make` decided on `state` (a copy of the table as it was read) and committed in this
    thread. Raises Lost when the table moved on meanwhile."""
    base = state.table.version
    try:
        make(state, now)
    except NotDue:
        return Outcome(base, changed=False)
    except Unchanged:
        state.table.deadline_at = next_deadline(state, now)
        store.note_deadline(state.table, base)
        return Outcome(base, changed=False)
    next_version(state, now)
    try:
        store.commit(state, base, now, action_id, waits=waits)
    except store.Held:
        raise Busy from None
    except store.Duplicate as duplicate:
        return Outcome(duplicate.version, duplicate=True)
    return Outcome(state.table.version)


def _change_now(table_id: int, make: Make, action_id: str | None = None, **kwargs: Any) -> Outcome:
    # `change` looked up at each call, so that a wrapper of it (bench/parts_asgi.py) sees
    # the changes decided again in a worker thread too.
    return change(table_id, make, action_id, **kwargs)


change_in_thread = database_sync_to_async(_change_now)


async def achange(table_id: int, make: Make, action_id: str | None = None) -> Outcome:
    """`change` from the event loop (a phone's socket): decided on this process's snapshot of
    the table (`change_here`), else in a worker thread on the database's version (`change`,
    which decides a lost race once more)."""
    outcome = await change_here(table_id, make, action_id)
    if outcome is not None:
        return outcome
    return await change_in_thread(table_id, make, action_id)


async def change_here(
    table_id: int, make: Make, action_id: str | None = None, *, alone: bool = False
) -> Outcome | None:
    """`achange`'s first half: the decision made on this process's snapshot of the table (no
    query, no replay), committed by the store on the loop where it can (`acommit`). None when
    it must be decided on the table as the database has it (`change`): there is no snapshot,
    the snapshot refused it (it may be a change behind: the database's word is told), the
    change lost its race, or it must be made in a thread (InThread, or a decision that reads
    the database: Django refuses that on the loop before sending anything). `alone`: the loop's
    own writer or nothing (the clock's, which calls the two halves itself to keep its own
    limits on each)."""
    shared = snapshot_of(table_id)
    if shared is None:
        return None
    state = editable_copy(shared)
    now = timezone.now()
    base = state.table.version
    try:
        make(state, now)
    except (TableError, Unchanged, NotDue, InThread, SynchronousOnlyOperation):
        return None
    next_version(state, now)
    try:
        if await store.acommit(state, base, now, action_id, alone=alone):
            return Outcome(state.table.version)
    except store.Duplicate as duplicate:
        return Outcome(duplicate.version, duplicate=True)
    return None


def next_version(state: TableState, now: datetime) -> None:
    """The table's fields as a change leaves them: a new version, and the next deadline."""
    table = state.table
    table.version += 1
    table.changed_at = now
    table.bots_offered = []
    table.deadline_at = next_deadline(state, now)


def next_deadline(state: TableState, now: datetime) -> datetime | None:
    return table_rules.next_deadline(table_rules.plan(state.moment(), pace(), now))


def changed_seat(state: TableState, index: int, **fields: Any) -> Seat:
    """A copy of seat `index` with `fields`, in `state`, written with the change (the state's
    seats may be a snapshot's, shared). Other processes read the table: more than the hand's
    actions changed."""
    seat = clone(state.seats[index])
    for name, value in fields.items():
        setattr(seat, name, value)
    state.seats = [seat if s.index == index else s for s in state.seats]
    store.with_update(state, seat, **fields)
    state.base = None
    return seat


def set_windows(state: TableState, windows: table_rules.Windows) -> None:
    """The table's fields as the engine's windows leave them (games/engine/table.py)."""
    table = state.table
    table.laundry_until = windows.laundry_until
    if windows.laundry_ready is not table.laundry_ready:
        table.laundry_ready = list(windows.laundry_ready)
    table.awaiting_since = windows.awaiting_since
