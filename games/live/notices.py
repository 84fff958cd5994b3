"""The other processes' changes, heard from PostgreSQL.

Every change to a table sends a notice (`pg_notify`) inside the transaction that makes it; its
payload is built with the change (games/services/events.py, `notice`). PostgreSQL delivers it
to every server process listening when, and only if, that transaction commits: so a committed
change reaches the other processes whatever becomes of the process that made it a moment later
(killed, stuck), and Redis plays no part. Each server process's hub listens on one connection
of its own (`listen`; games/live/hub.py) and hears every table's notices; it keeps those of
the tables it has phones at (`heard`), and drops its own.

Behind SQLite (the embedded default) there is one process and nothing is sent.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Container
from typing import Any

from django.db import connections

from games.services.events import CHANNEL, SENDER

log = logging.getLogger(__name__)

# After a lost connection the hub listens again at once, then after pauses doubling from this
# up to MAX_PAUSE seconds (a restarting database is back within seconds).
FIRST_PAUSE = 0.1
MAX_PAUSE = 2.0


def enabled() -> bool:
    """Whether changes are announced: behind PostgreSQL, where several processes may serve."""
    return connections["default"].vendor == "postgresql"


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
        await listening.execute(f"LISTEN {CHANNEL}")
    except BaseException:
        await listening.close()
        raise
    return listening


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
