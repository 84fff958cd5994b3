"""What games tells the rest of the process, the other processes and the apps built on it.

`table_changed` is the one way a change to a table leaves the code that made it, on commit.
The code that changes a table (tables.py, written by store/) knows nothing of who listens. In a
server process the hub renders its phones' views from the state the change left
(games/live/hub.py) and the clock wakes for a nearer deadline (games/live/clock.py), each
subscribed here. As Zulip's `send_event_on_commit`: nothing is told of a change that did not
commit, and a listener that fails is logged and costs the change nothing.

Other processes hear of a change from PostgreSQL: its transaction sends a notice (`notice`,
`pg_notify` on `CHANNEL`), which PostgreSQL delivers to every listening process when, and
only if, that transaction commits; the hub listens (games/live/notices.py). A notice carries
what the processes need to move their snapshot of the table on without reading the database:
the table, its new version and the change itself (`state.change_of`: the table's fields and
the actions added, or the new hand's number; public facts only, never a card). A change too
large for a notice (PostgreSQL takes less than 8000 bytes) carries the version alone, and the
processes read the table. Behind SQLite (the embedded default) there is one process and
nothing is sent.

`rubber_finished` is sent inside the transaction that ends a rubber (tables' end of a hand),
with `rubber` (games.models.Rubber, `over` set), its `table`, its last `hand`
(games.models.PlayedHand, complete; its record is written to the database only after the
signal, with the table's other fields) and `now`. A receiver (the nights app) writes its own
rows in that transaction, so they are committed with the rubber's end or not at all, and
games never imports it.

`catch_up` is sent by each process's table clock every `CATCH_UP_SECONDS`, from a worker
thread, with no arguments: a receiver does then what could not be done when it should have
been (the nights app books the rubbers whose booking could not be made as they ended).
"""

from __future__ import annotations

import json
import secrets
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.dispatch import Signal

from games.services.state import change_of

if TYPE_CHECKING:
    from games.services.state import TableState


class TableChanges:
    """The one sender of `table_changed`. Django keeps a signal's receivers by sender only for a
    sender it can hold a weak reference to (`use_caching`); without that, every change looked
    its receivers up again under the signal's lock."""


# Sent by `TableChanges` with table_id, version, deadline (the table's next one, or None) and state
# (the table as the change left it, a games.services.state.TableState, or None).
table_changed = Signal(use_caching=True)

rubber_finished = Signal()

catch_up = Signal()


def send_on_commit(table_id: int, version: int, deadline: datetime | None, state: Any) -> None:
    """`table_changed`, once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: send(table_id, version, deadline, state), robust=True)


def send(table_id: int, version: int, deadline: datetime | None, state: Any) -> None:
    """`table_changed`, now: the change is committed already."""
    table_changed.send_robust(
        sender=TableChanges, table_id=table_id, version=version, deadline=deadline, state=state
    )


CHANNEL = "toepen_tables"
LIMIT = 8000  # bytes: PostgreSQL refuses a payload this long
# This process: its own notices come back to its listening connection and are dropped unread.
SENDER = secrets.token_hex(6)


def change_message(table_id: int, version: int, state: TableState | None) -> dict[str, Any]:
    """What another process hears of a change: the table and its new version, and the change
    itself when `state` has one its snapshot can move on by (`change_of`)."""
    message: dict[str, Any] = {"type": "table.changed", "table": table_id, "version": version}
    change = change_of(state) if state is not None else None
    if change is not None:
        message["change"] = change
    return message


def notice(table_id: int, version: int, state: TableState | None) -> str:
    """The notice of a change: `<sender> <table> <message as JSON>`, so a process drops its
    own notices and those of tables it has no phones at before parsing anything."""
    message = change_message(table_id, version, state)
    text = f"{SENDER} {table_id} {json.dumps(message, separators=(',', ':'))}"
    if len(text.encode()) >= LIMIT:
        del message["change"]  # the processes read the table instead
        text = f"{SENDER} {table_id} {json.dumps(message, separators=(',', ':'))}"
    return text
