"""The table clock: fires every table's stored deadline, with no phone sending anything.

Each server process runs one clock task. It sleeps until the nearest deadline in the database
(at most a second, so deadlines set by other processes are seen), and fires each due table in a
worker thread, so bot thinking and database work never block the event loop. Firing twice is
harmless: `services.fire_deadline` locks the table and re-checks the deadline; a table whose row
another transaction holds is passed over, never waited for, and tried again on the next round.
Deadlines live in the database, so after a restart the new process fires whatever fell due
meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from datetime import datetime, timedelta

from channels.db import database_sync_to_async
from django.db.models import Min
from django.utils import timezone

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0

_task: asyncio.Task[None] | None = None
_wake: asyncio.Event | None = None
_loop: asyncio.AbstractEventLoop | None = None
_wakes_at = math.inf  # the loop's time of the clock's next look (a poke for later needs no wake)


def ensure_started() -> None:
    """Start this process's clock on the running loop, once."""
    global _task, _wake, _loop
    loop = asyncio.get_running_loop()
    if _task is not None and not _task.done() and _loop is loop:
        return
    _loop = loop
    _wake = asyncio.Event()
    _task = loop.create_task(_run(), name="toepen-table-clock")


def start_with_server() -> None:
    """Under daphne (whose twisted reactor runs the asyncio loop), start the clock at start-up."""
    import sys

    if "twisted.internet.reactor" not in sys.modules:
        return
    from twisted.internet import reactor

    # Startup callbacks run just before the asyncio loop does: start one tick later, inside it.
    reactor.callWhenRunning(reactor.callLater, 0, ensure_started)  # type: ignore[attr-defined]


def server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop this process serves on, for a caller in another thread (a worker thread
    of the server); None when no server loop runs here or the caller runs a loop itself."""
    loop = _loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return loop
    return None


def poke(deadline: datetime | None = None) -> None:
    """A table's deadline moved to `deadline`: wake the clock if it comes before the clock's
    next look anyway (callable from any thread). None: wake it in any case."""
    loop, wake = _loop, _wake
    if loop is None or wake is None or loop.is_closed():
        return
    if deadline is not None:
        seconds_left = (deadline - timezone.now()).total_seconds()
        if loop.time() + seconds_left >= _wakes_at:
            return
    with contextlib.suppress(RuntimeError):  # the loop is shutting down
        loop.call_soon_threadsafe(wake.set)


async def stop() -> None:
    global _task
    if _task is not None:
        _task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await _task
        _task = None


def _fire_due() -> datetime | None:
    """Fire every due table; the next deadline after that. A table whose row another
    transaction holds (a stuck process) is passed over, so it holds up no other table, and
    looked at again on the next round."""
    from games import services
    from games.models import Table

    held = []
    for table_id in services.due_tables():
        try:
            services.fire_deadline(table_id)
        except services.Busy:
            held.append(table_id)
        except Exception:
            log.exception("table %s: firing its deadline failed", table_id)
    upcoming = Table.objects.exclude(pk__in=held).aggregate(next=Min("deadline_at"))["next"]
    if held:
        # Not at once (their deadlines are past): after a round's pause.
        again = timezone.now() + timedelta(seconds=POLL_SECONDS)
        upcoming = again if upcoming is None else min(upcoming, again)
    return upcoming


_fire_due_async = database_sync_to_async(_fire_due, thread_sensitive=False)


async def _run() -> None:
    global _wakes_at
    assert _wake is not None
    loop = asyncio.get_running_loop()
    while True:
        # Cleared before firing, so a poke while firing is not lost: a deadline sooner than the
        # latest next look wakes the wait below at once.
        _wake.clear()
        _wakes_at = loop.time() + POLL_SECONDS
        try:
            upcoming = await _fire_due_async()
        except Exception:
            log.exception("the table clock failed; trying again")
            upcoming = None
        delay = POLL_SECONDS
        if upcoming is not None:
            delay = min(POLL_SECONDS, max(0.0, (upcoming - timezone.now()).total_seconds()))
        _wakes_at = loop.time() + delay
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(_wake.wait(), timeout=delay)
