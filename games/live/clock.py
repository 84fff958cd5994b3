"""The table clock: fires every table's stored deadline, with no phone sending anything.

Each server process runs one clock task. It sleeps until the nearest deadline in the database
(at most a second, so deadlines set by other processes are seen; at least `GATHER_SECONDS`
between two looks, each one query), and fires each due table: a deal from this process's
snapshot on the event loop where it can (`tables.fire_here`, one a turn of the loop), anything
else in a worker thread, several tables at once, so bot thinking and database work never block
the event loop and one table's computer player never holds up another table. Where several processes
serve (PostgreSQL), the process a table's phones are at fires it, and renders the change from
the state it made; the others fire it only `OTHERS_SECONDS` late. Firing twice is
harmless: `tables.fire_deadline` writes only at the version it read; a table whose row
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
from typing import Any

from channels.db import database_sync_to_async
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from games.live import hub, notices
from games.services import events, store, tables
from games.services.state import phones_heard, phones_unheard, server_started, unheard

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
# Looks closer together than this are one look: the tables a look fired, and the deadlines
# their changes set, are looked for together, not one query each.
GATHER_SECONDS = 0.05
OTHERS_SECONDS = 0.25  # long enough for the process with the phones, short for a table with none

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


async def lifespan(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The ASGI lifespan protocol (uvicorn): the clock starts with the server, so deadlines
    that fell due while it was down fire before any phone reconnects."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            start_with_server_now()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def start_with_server() -> None:
    """Under daphne (whose twisted reactor runs the asyncio loop, and which knows no lifespan
    protocol), start the clock at start-up."""
    import sys

    if "twisted.internet.reactor" not in sys.modules:
        return
    from twisted.internet import reactor

    # Startup callbacks run just before the asyncio loop does: start one tick later, inside it.
    reactor.callWhenRunning(reactor.callLater, 0, start_with_server_now)  # type: ignore[attr-defined]


def start_with_server_now() -> None:
    """The server starts: its clock starts, and the phones it served before it stopped (or
    that another process served, if it was down too) get their grace to reconnect from now,
    however long it was down."""
    server_started(timezone.now())
    ensure_started()


def _changed(sender: Any, *, deadline: datetime | None = None, **_: Any) -> None:
    """A change committed here (games/services/events.py) set its table's next deadline."""
    if deadline is not None:
        poke(deadline)


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


# Tables fired at once: a computer player's thinking, and the steady pace it keeps so its
# pauses say nothing of its cards (games.services.bot_seats), hold up no other table.
WORKERS = 4


# A table whose firing fails (a write error that lasts: a full disk) is tried again after a
# pause that doubles from the first to the last, and logged once per fault.
FAILED_FIRST_SECONDS = 0.25
FAILED_LAST_SECONDS = 30.0
BUSY, FAILED = "busy", "failed"
# How often the clock lets the apps catch up on work left for later (events.catch_up).
CATCH_UP_SECONDS = 5.0


def _fire_one(table_id: int, failing: bool = False) -> str | None:
    """Fire one due table (in a worker thread). BUSY when another transaction holds its row (a
    stuck process): it is passed over, holds up no other table, and is tried again after a
    round's pause. FAILED when it could not be fired (nothing was written): logged with its
    traceback unless the table is `failing` already (the same fault, logged once)."""
    try:
        tables.fire_deadline(table_id)
    except tables.Busy:
        return BUSY
    except Exception:
        if not failing:
            log.exception(
                "table %s: firing its deadline failed; tried again, less and less often, "
                "until it holds",
                table_id,
            )
        return FAILED
    return None


def _due(skip: set[int], here: frozenset[int] | None = None) -> tuple[list[int], datetime | None]:
    """The due tables but `skip` (being fired, or held), and the next deadline of the others.
    `here`: the tables with phones at this process, where several processes serve (else None):
    a table is fired by the process its phones are at, which renders the change from the state
    it made; the others stand by, and fire it `OTHERS_SECONDS` late (its phones' process is
    gone, or it has none anywhere)."""
    return store.deadlines(skip, timezone.now(), here, timedelta(seconds=OTHERS_SECONDS))


def _tables_here() -> frozenset[int] | None:
    if not notices.enabled():
        return None  # one process serves every table
    return frozenset(hub.get().phones)


def _catch_up() -> None:
    """events.catch_up, in a worker thread: a receiver that fails is logged, the clock goes on."""
    for receiver, result in events.catch_up.send_robust(sender=None):
        if isinstance(result, Exception):
            log.error("catching up failed in %s: %r", receiver, result)


_fire_one_async = database_sync_to_async(_fire_one, thread_sensitive=False)
_catch_up_async = database_sync_to_async(_catch_up, thread_sensitive=False)
_due_async = database_sync_to_async(_due, thread_sensitive=False)


async def _run() -> None:
    global _wakes_at
    assert _wake is not None
    wake = _wake
    loop = asyncio.get_running_loop()
    workers = asyncio.Semaphore(WORKERS)
    here = asyncio.Lock()
    firing: set[int] = set()
    held: dict[int, float] = {}  # table -> the loop's time it is tried again
    failing: dict[int, float] = {}  # table -> its pause since its last failed firing
    tasks: set[asyncio.Task[None]] = set()
    catching_up: asyncio.Task[None] | None = None
    caught_up = loop.time() - CATCH_UP_SECONDS  # at its first look: after a restart too

    async def fire(table_id: int) -> None:
        try:
            # A deal on the loop first (a millisecond: no query, no worker thread), one a turn
            # of the loop: the deals a look finds all at once, dealt in one turn, held every
            # phone's frames behind them (p50 at 1,024 tables 114-323 ms, against 26-33).
            async with here:
                await asyncio.sleep(0)
                fired = await tables.fire_here(table_id)
            if fired:
                return
            async with workers:
                result = await _fire_one_async(table_id, table_id in failing)
            if result == BUSY:
                held[table_id] = loop.time() + POLL_SECONDS
            elif result == FAILED:
                pause = failing.get(table_id)
                pause = min(FAILED_LAST_SECONDS, 2 * pause if pause else FAILED_FIRST_SECONDS)
                failing[table_id] = pause
                held[table_id] = loop.time() + pause
            elif table_id in failing:
                del failing[table_id]
                log.warning("table %s: its deadline fired again", table_id)
        except Exception:
            log.exception("table %s: firing its deadline failed", table_id)
        finally:
            firing.discard(table_id)
            wake.set()  # its next deadline may come before the clock's next look

    while True:
        # Cleared before looking, so a poke while looking is not lost: a deadline sooner than
        # the latest next look wakes the wait below at once.
        wake.clear()
        looked = loop.time()
        _wakes_at = loop.time() + POLL_SECONDS
        for table_id, again in list(held.items()):
            if again <= loop.time():
                del held[table_id]
        try:
            due, upcoming = await _due_async(firing | set(held), _tables_here())
        except (OperationalError, InterfaceError):
            # No person's clock counts on while the database is away (games.services.state).
            if not unheard():
                log.warning("the table clock cannot reach the database; trying again")
            phones_unheard()
            due, upcoming = [], None
        except Exception:
            log.exception("the table clock failed; trying again")
            due, upcoming = [], None
        else:
            if unheard() and not hub.beating():
                # No phone here: nothing to write first (the hub's round does it where there is).
                phones_heard(timezone.now())
        if loop.time() >= caught_up + CATCH_UP_SECONDS and (
            catching_up is None or catching_up.done()
        ):
            caught_up = loop.time()
            catching_up = loop.create_task(_catch_up_async(), name="toepen-catch-up")
        for table_id in due:
            firing.add(table_id)
            task = loop.create_task(fire(table_id), name=f"toepen-fire-{table_id}")
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        delay = POLL_SECONDS
        if upcoming is not None:
            delay = min(delay, max(0.0, (upcoming - timezone.now()).total_seconds()))
        if held:
            delay = min(delay, max(0.0, min(held.values()) - loop.time()))
        _wakes_at = loop.time() + delay
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), timeout=delay)
        await asyncio.sleep(max(0.0, looked + GATHER_SECONDS - loop.time()))


events.table_changed.connect(_changed, dispatch_uid="toepen-clock")
