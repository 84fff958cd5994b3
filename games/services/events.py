"""The one way a change to a table leaves the code that made it: `table_changed`, on commit.

The code that changes a table (tables.py, written by store.py) knows nothing of who listens. In a
server process the hub renders its phones' views from the state the change left (games/live/hub.py)
and the clock wakes for a nearer deadline (games/live/clock.py), each subscribed here; other
processes hear of the change from PostgreSQL, in the change's own transaction
(games/live/notices.py). As Zulip's `send_event_on_commit`: nothing is told of a change that did not
commit, and a listener that fails is logged and costs the change nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.dispatch import Signal


class Tables:
    """The one sender of `table_changed`. Django keeps a signal's receivers by sender only for a
    sender it can hold a weak reference to (`use_caching`); without that, every change would
    look its receivers up again under the signal's lock."""


# Sent by `Tables` with table_id, version, deadline (the table's next one, or None) and state
# (the table as the change left it, a games.services.state.TableState, or None). This module
# imports nothing of the game: everything else may import it.
table_changed = Signal(use_caching=True)


def send_on_commit(table_id: int, version: int, deadline: datetime | None, state: Any) -> None:
    """`table_changed`, once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: send(table_id, version, deadline, state), robust=True)


def send(table_id: int, version: int, deadline: datetime | None, state: Any) -> None:
    """`table_changed`, now: the change is committed already."""
    table_changed.send_robust(
        sender=Tables, table_id=table_id, version=version, deadline=deadline, state=state
    )
