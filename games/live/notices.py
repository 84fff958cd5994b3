"""A table's change, announced by PostgreSQL in the change's own transaction.

Every change to a table sends one notice (`pg_notify`) inside the transaction that makes it
(games/services/store.py). PostgreSQL delivers it to every server
process listening when, and only if, that transaction commits: so a committed change reaches
the other processes whatever becomes of the process that made it a moment later (killed,
stuck), and Redis plays no part. Each server process's hub listens on one connection of its
own (`games/live/hub.py`) and hears every table's notices; it keeps those of the tables it has
phones at, and drops its own.

A notice carries what the processes need to move their snapshot of the table on without
reading the database: the table, its new version and the change itself (`state.change_of`:
the table's fields and the actions added, or the new hand's number; public facts only, never a
card). A change too large for a notice (PostgreSQL takes less than 8000 bytes) carries the
version alone, and the processes read the table.

Behind SQLite (the embedded default) there is one process and nothing is sent.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Container
from typing import TYPE_CHECKING, Any

from django.db import connections

from games.services.state import change_of

if TYPE_CHECKING:
    from games.services.state import TableState

log = logging.getLogger(__name__)

CHANNEL = "toepen_tables"
LIMIT = 8000  # bytes: PostgreSQL refuses a payload this long
# This process: its own notices come back to its listening connection and are dropped unread.
SENDER = secrets.token_hex(6)
# After a lost connection the hub listens again at once, then after pauses doubling from this
# up to MAX_PAUSE seconds (a restarting database is back within seconds).
FIRST_PAUSE = 0.1
MAX_PAUSE = 2.0


def enabled() -> bool:
    """Whether changes are announced: behind PostgreSQL, where several processes may serve."""
    return connections["default"].vendor == "postgresql"


def change_message(table_id: int, version: int, state: TableState | None) -> dict[str, Any]:
    """What another process hears of a change: the table and its new version, and the change
    itself when `state` has one its snapshot can move on by (`change_of`)."""
    message: dict[str, Any] = {"type": "table.changed", "table": table_id, "version": version}
    change = change_of(state) if state is not None else None
    if change is not None:
        message["change"] = change
    return message


def payload(table_id: int, version: int, state: TableState | None) -> str:
    """The notice of a change: `<sender> <table> <message as JSON>`, so a process drops its
    own notices and those of tables it has no phones at before parsing anything."""
    message = change_message(table_id, version, state)
    text = f"{SENDER} {table_id} {json.dumps(message, separators=(',', ':'))}"
    if len(text.encode()) >= LIMIT:
        del message["change"]  # the processes read the table instead
        text = f"{SENDER} {table_id} {json.dumps(message, separators=(',', ':'))}"
    return text


def heard(text: str, tables: Container[int]) -> dict[str, Any] | None:
    """The change message of a notice another process sent about one of `tables`, else None
    (a notice that is not one of ours is dropped with a warning)."""
    try:
        sender, table, body = text.split(" ", 2)
        if sender == SENDER or int(table) not in tables:
            return None
        message = json.loads(body)
        if message["table"] != int(table) or not isinstance(message["version"], int):
            raise ValueError(message)
    except (ValueError, TypeError, KeyError):
        log.warning("a notice on %s that is not a table's change: %.200r", CHANNEL, text)
        return None
    return message


def pause(failures: int) -> float:
    """Seconds to wait before listening again after `failures` failures in a row (a lost
    connection counts as one): none after a connection that worked, then doubling."""
    if failures <= 1:
        return 0.0
    return min(MAX_PAUSE, FIRST_PAUSE * 2 ** (failures - 2))
