"""This process's end of every live table: the phones connected here, by table.

A change to a table is published once per process, not once per phone. The process that made
the change renders the new version for its own phones where it committed it (on the event loop
for most changes, else in the worker thread), from the state it has just written (no query, no
replay), and the event loop sends the frames. Behind PostgreSQL, the other processes hear of it
from the database itself: the change's transaction sent a notice (games/live/notices.py), which
PostgreSQL delivers to every process's listening connection as the change commits, whatever
becomes of the process that made it. Each hub keeps the notices of the tables it has phones
at and renders the version once for its own phones. Behind SQLite there is one process.

Each phone still gets its own view, rendered from the engine's `observe` for its own seats:
only the version number travels between processes, never a card. Phones that see the table
alike (watching members, in one language) share one render, and the phones rendered together
share the public part of their views (games.view.parts.Shared).

The hub also beats the heart of every phone connected here: one `UPDATE` every
`TOEPEN_HEARTBEAT_SECONDS` for all of them, instead of one per phone.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from channels.db import database_sync_to_async
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from games.live import notices
from games.models import PlayedHand
from games.services import events, store, tables
from games.services.access import watchers_allowed
from games.services.conf import seconds
from games.services.snapshots import advance, refresh_presence, view_state
from games.services.state import Holder, TableState, phones_heard, phones_unheard
from games.view.parts import Shared

log = logging.getLogger(__name__)

PING_SECONDS = 5.0  # a quiet listening connection that does not answer this soon is made again
# A phone that pings (static/js/table.js: once a heartbeat round when it has said nothing
# else) is here while it was heard within this many rounds; its grace counts from the last
# round that heard it.
HEARD_ROUNDS = 1.5


class Phone(Protocol):
    """What the hub needs of a connection (games.live.consumers.TableConsumer)."""

    table_id: int
    holder: Holder
    seats: tuple[int, ...]
    may_watch: bool
    user_id: int | None
    last_version: int
    sent_at: float  # time.monotonic() of the last frame sent to it
    can_keep: bool  # a slate's keeper (her view has the slate's buttons)
    by_code: bool  # follows a slate by its code: no membership to check

    heard_at: float  # time.monotonic() of the last frame it sent
    pings: bool  # it has pinged: its presence follows what it sends

    async def beat(self) -> None: ...

    async def wait(self) -> None: ...

    def held_in(self, state: TableState) -> tuple[int, ...]:
        """The seats its holder holds in `state`."""

    def render(
        self, state: TableState, shared: Shared | None = None, seats: tuple[int, ...] | None = None
    ) -> str: ...

    async def deliver(self, version: int, html: str | None) -> None:
        """Send the view (None: the phone may no longer see the table: close it)."""


class Hub:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.phones: dict[int, set[Phone]] = {}
        self.lock = threading.Lock()  # `phones` is read by worker threads
        self.tasks: list[asyncio.Task[None]] = []
        self.started: asyncio.Task[None] | None = None
        self.to_render: dict[int, list[dict[str, Any]]] = {}  # table -> changes heard, to render
        self.wake = asyncio.Event()
        self.listen_failures = 0  # tries to listen that failed since it last worked
        self.unreachable = False  # the last heartbeat round could not reach the database

    # -- phones come and go (on the event loop) ----------------------------------------------

    async def _start(self) -> None:
        self.tasks.append(self.loop.create_task(self._beat(), name="toepen-heartbeats"))
        self.tasks.append(self.loop.create_task(self._render_heard(), name="toepen-views"))
        if notices.enabled():
            # Listening before the first phone's first view is read: a change committed after
            # that read is heard, one committed before it is in the view.
            try:
                listening = await notices.listen()
            except Exception:
                log.warning("cannot listen for the tables' changes yet", exc_info=True)
                listening = None  # `_hear` tries again, and catches the phones up then
            self.tasks.append(self.loop.create_task(self._hear(listening), name="toepen-hub"))

    async def join(self, phone: Phone) -> None:
        if self.started is None:
            self.started = self.loop.create_task(self._start())
        await asyncio.shield(self.started)  # phones that connect at once wait for one start
        with self.lock:
            self.phones.setdefault(phone.table_id, set()).add(phone)

    async def leave(self, phone: Phone) -> None:
        table_id = phone.table_id
        with self.lock:
            phones = self.phones.get(table_id)
            if phones is None:
                return
            phones.discard(phone)
            if not phones:
                del self.phones[table_id]

    def phones_at(self, table_id: int) -> list[Phone]:
        with self.lock:
            return list(self.phones.get(table_id, ()))

    # -- a table changed -------------------------------------------------------------------

    def changed(self, table_id: int, version: int, state: TableState | None) -> None:
        """Called by the thread that committed the change: render this process's phones now
        (callable from any thread but the loop's)."""
        phones = self.phones_at(table_id)
        if phones:
            frames = render_all(phones, table_id, version, state)
            asyncio.run_coroutine_threadsafe(send_all(frames), self.loop).add_done_callback(_logged)

    async def _hear(self, listening: Any) -> None:
        """The changes the other processes commit, as PostgreSQL announces them on `listening`
        (games/live/notices.py; None: not connected yet).

        Only notes the newest version heard of each table and wakes `_render_heard`, so the
        notices are read at once however busy the process is. A lost connection (a database
        restart, a dropped session) is made again, at once and then after growing pauses of
        at most two seconds, and the phones here catch up with what committed meanwhile."""
        try:
            while True:
                if listening is None:
                    await asyncio.sleep(notices.pause(self.listen_failures))
                    try:
                        listening = await notices.listen()
                    except Exception:
                        self.listen_failures += 1
                        log.warning("cannot listen for the tables' changes", exc_info=True)
                        continue
                    await self._caught_up()
                try:
                    await self._hear_on(listening)
                except Exception:
                    log.warning("lost the connection that hears the tables' changes", exc_info=True)
                # Counted until it has worked a while: a connection lost again at once is not
                # made again and again without a pause.
                self.listen_failures += 1
                await _closed(listening)
                listening = None
        finally:
            await _closed(listening)

    async def _hear_on(self, listening: Any) -> None:
        """Read notices until the connection fails. Once a heartbeat round it is asked whether
        it is still there: a connection the network lost says nothing by itself."""
        while True:
            async for notice in listening.notifies(timeout=seconds("TOEPEN_HEARTBEAT_SECONDS")):
                message = notices.heard(notice.payload, self.phones)
                if message is not None:
                    self.to_render.setdefault(message["table"], []).append(message)
                    self.wake.set()
            await asyncio.wait_for(listening.execute("SELECT 1"), PING_SECONDS)
            self.listen_failures = 0

    async def _caught_up(self) -> None:
        try:
            await self.catch_up()
        except Exception:
            log.exception("catching up after listening again failed")  # the heartbeat will

    async def _render_heard(self) -> None:
        """Render what `_hear` heard (or `catch_up` found), every table at once in one trip
        to a worker thread."""
        while True:
            await self.wake.wait()
            self.wake.clear()
            heard, self.to_render = self.to_render, {}
            work = []
            for table_id, messages in heard.items():
                version = max(m["version"] for m in messages)
                phones = [p for p in self.phones_at(table_id) if p.last_version < version]
                if phones:
                    work.append((phones, table_id, messages))
            if not work:
                continue
            # Most changes move this process's snapshot on without a query: rendered here, on
            # the loop, they reach the phones without waiting for the worker thread (busy with
            # this process's own actions) and without two thread hand-overs. The GIL lets one
            # thread run at a time, so the worker would not have rendered them any sooner.
            frames, left = _render_from_snapshots(work)
            await send_all(frames)
            if not left:
                continue
            try:
                frames = await _render_tables(left)
            except Exception:
                log.exception("rendering the tables %s failed", [w[1] for w in left])
                continue
            await send_all(frames)

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(seconds("TOEPEN_HEARTBEAT_SECONDS"))
            try:
                await self.beat_round()
            except Exception:
                log.exception("heartbeats failed")

    async def beat_round(self) -> None:
        """One heartbeat round: the presence of the phones heard lately written in one
        `UPDATE` (a paused table one of them holds a seat at goes on), the phones caught up
        with the database, and `tend`. While the database does not answer, every phone here
        hears that the server is catching up, once a round, and no person's clock at a table
        counts on (`state.phones_unheard`) until presence reaches the database again."""
        round_ = seconds("TOEPEN_HEARTBEAT_SECONDS")
        quiet = time.monotonic() - HEARD_ROUNDS * round_
        with self.lock:
            held = {
                (phone.table_id, phone.holder)
                for phones in self.phones.values()
                for phone in phones
                if phone.seats and (phone.heard_at >= quiet or not phone.pings)
            }
        work = asyncio.ensure_future(self._heard_here(held))
        while True:
            # A database that does not answer at all (a connection waiting on a lost network,
            # a locked file) is told as soon as one that refuses.
            done, _ = await asyncio.wait({work}, timeout=round_)
            if done:
                break
            phones_unheard()
            await self.tell_waiting()
        try:
            work.result()
        except (OperationalError, InterfaceError):
            if not self.unreachable:
                log.warning("the database is out of reach: the phones hear that the server waits")
            self.unreachable = True
            phones_unheard()
            await self.tell_waiting()
            return
        if self.unreachable:
            log.warning("the database answers again: the phones' clocks count from now")
            self.unreachable = False
        phones_heard(timezone.now())
        await self.tend()

    async def _heard_here(self, held: set[tuple[int, Holder]]) -> None:
        if held:
            await database_sync_to_async(tables.heard_all)(held)
        await self.catch_up()

    async def tell_waiting(self) -> None:
        """Every phone here hears that the server is catching up (games.live.consumers)."""
        with self.lock:
            phones = [phone for phones in self.phones.values() for phone in phones]
        for phone in phones:
            try:
                await phone.wait()
            except Exception:
                log.warning("a word that the server waits could not be sent", exc_info=True)

    async def tend(self) -> None:
        """Once a heartbeat round, after the database answered: a watching phone whose user may
        no longer watch (removed from the club, the table closed to watchers) is shut out, and
        every phone that heard nothing for half a round hears the beat, so a phone that hears
        nothing at all knows its server or the way to it is in trouble."""
        with self.lock:
            phones = [phone for phones in self.phones.values() for phone in phones]
        # A slate's followers watch by its code, not as members (games/live/slate_consumer.py).
        watching = [phone for phone in phones if not phone.seats and not phone.by_code]
        asked = {(p.table_id, p.user_id) for p in watching if p.user_id is not None}
        allowed = await database_sync_to_async(watchers_allowed)(asked) if asked else set()
        shut = {p for p in watching if (p.table_id, p.user_id) not in allowed}
        for phone in shut:
            phone.may_watch = False
            await phone.deliver(phone.last_version, None)
        # A phone hears something at least every 1.25 rounds; it worries after two.
        quiet = time.monotonic() - seconds("TOEPEN_HEARTBEAT_SECONDS") / 4
        for phone in phones:
            if phone not in shut and phone.sent_at < quiet:
                try:
                    await phone.beat()
                except Exception:
                    log.warning("a heartbeat could not be sent", exc_info=True)

    async def catch_up(self) -> None:
        """Render any table whose phones here are behind the database: a change whose views
        were lost (a render that failed, a notice sent while this process did not listen)
        costs a phone at most one heartbeat round's wait, not the rest of the hand."""
        with self.lock:
            tables = list(self.phones)
        if not tables:
            return
        versions = await database_sync_to_async(_versions)(tables)
        for table_id, version in versions.items():
            if any(p.last_version < version for p in self.phones_at(table_id)):
                self.to_render.setdefault(table_id, []).append({"version": version})
                self.wake.set()


def _versions(tables: list[int]) -> dict[int, int]:
    """The tables' versions in the database; their seats' presence goes into the snapshots."""
    refresh_presence(store.presence(tables))
    return store.versions(tables)


def render_all(
    phones: list[Phone], table_id: int, version: int, state: TableState | None
) -> list[tuple[Phone, int, str | None]]:
    """Each phone's view of `version` (or newer), from `state` when given, else from this
    process's snapshot of the table; phones that see the table alike share one render, and
    all share the public part of their views."""
    if state is None or state.table.version < version:
        state = view_state(table_id, version)
    version = state.table.version
    frames: list[tuple[Phone, int, str | None]] = []
    rendered: dict[Any, str] = {}
    shared = Shared()
    for phone in phones:
        if phone.last_version >= version:
            continue
        # Who shares a render comes from what the phone's holder holds in this very state, never
        # from the seats it had at its last render: a watcher's old tab whose account has just
        # taken a seat elsewhere is a seat holder now, and must not be rendered for the others.
        seats = phone.held_in(state)
        if not seats and not phone.may_watch:
            frames.append((phone, version, None))  # no seat left, and not one who may watch
            continue
        key = phone_key(phone, seats)
        html = rendered.get(key) if key is not None else None
        if html is None:
            html = phone.render(state, shared, seats)
            if key is not None:
                rendered[key] = html
        frames.append((phone, version, html))
    return frames


Work = list[tuple[list[Phone], int, list[dict[str, Any]]]]


def _render_from_snapshots(work: Work) -> tuple[list[tuple[Phone, int, str | None]], Work]:
    """The tables whose snapshot the messages' changes move to the newest version heard of,
    rendered (no query); the others are left for `_render_tables`."""
    frames: list[tuple[Phone, int, str | None]] = []
    left: Work = []
    for phones, table_id, messages in work:
        version = max(m["version"] for m in messages)
        try:
            state = _moved_on(table_id, messages)
            if state is not None:
                frames += render_all(phones, table_id, version, state)
                continue
        except Exception:
            log.exception("table %s: rendering version %s failed", table_id, version)
        left.append((phones, table_id, messages))
    return frames, left


def _moved_on(
    table_id: int,
    messages: list[dict[str, Any]],
    read: Callable[[int, int], PlayedHand | None] | None = None,
) -> TableState | None:
    """This process's snapshot moved on to the newest version heard of by the messages'
    changes (`read`: store.hand_row, where a deal may be read), or None: the table must be
    read."""
    ordered = sorted(messages, key=lambda m: m["version"])
    if not all("change" in m for m in ordered):
        return None
    state = advance(table_id, [m["change"] for m in ordered], read)
    if state is None or state.table.version < ordered[-1]["version"]:
        return None
    return state


@database_sync_to_async
def _render_tables(work: Work) -> list[tuple[Phone, int, str | None]]:
    """Each table's phones at the newest version heard of (in the worker thread: the snapshot
    could not be moved on by the changes on the loop): a deal moves it on with its hand's row,
    anything else reads the table from the database."""
    frames = []
    for phones, table_id, messages in work:
        version = max(m["version"] for m in messages)
        try:
            # A deal: only the new hand's row is read, the rest moves on from the snapshot.
            state = _moved_on(table_id, messages, store.hand_row)
            frames += render_all(phones, table_id, version, state)
        except Exception:
            log.exception("table %s: rendering version %s failed", table_id, version)
    return frames


def phone_key(phone: Any, seats: tuple[int, ...]) -> Any:
    """Phones with this key see the same view: watchers (holding no seat in the state rendered,
    `seats`), by language and what they may do. A seat holder's view is her own."""
    if seats:
        return None
    # A slate's followers (by code) see the slate's view, never a dealt table's watchers' view.
    return (
        "watching",
        phone.by_code,
        phone.language,
        phone.can_start,
        phone.can_close,
        phone.can_keep,
    )


async def send_all(frames: list[tuple[Phone, int, str | None]]) -> None:
    for phone, version, html in frames:
        try:
            await phone.deliver(version, html)
        except Exception:
            log.exception("a table view could not be sent")


def send_now(loop: asyncio.AbstractEventLoop, frames: list[tuple[Phone, int, str | None]]) -> None:
    """`send_all(frames)` begun at once, on the loop (it is running it): a frame nearly always
    goes to its socket's buffer without waiting, and then the views are out before the change's
    caller goes on, with no task scheduled for them on a later turn of the loop. A send that
    waits (a phone's buffer full) goes on as the task's, as it would have."""
    task = asyncio.Task(send_all(frames), loop=loop, eager_start=True)
    if not task.done():
        task.add_done_callback(_logged)


async def _closed(listening: Any) -> None:
    if listening is not None:
        try:
            await listening.close()
        except Exception:
            log.warning("closing the listening connection failed", exc_info=True)


def _logged(future: Any) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("a table hub task failed", exc_info=future.exception())


_hub: Hub | None = None


def beating() -> bool:
    """Whether this process's hub beats the heart of phones (one has connected here)."""
    return _hub is not None and _hub.started is not None and not _hub.loop.is_closed()


def get() -> Hub:
    """The hub of the running loop (created with it; a new loop gets a new hub)."""
    global _hub
    loop = asyncio.get_running_loop()
    if _hub is None or _hub.loop is not loop or loop.is_closed():
        _hub = Hub(loop)
    return _hub


def _render_committed(
    sender: Any, *, table_id: int, version: int, state: TableState | None = None, **_: Any
) -> None:
    """A change committed in this process (games/services/events.py): its phones here are rendered
    from the state it left, in the thread that committed it, or on the loop for a change committed
    there (games/services/store's `acommit`); the loop only sends the frames."""
    hub = _hub
    if hub is None or hub.loop.is_closed() or not hub.loop.is_running():
        return
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is None:
        hub.changed(table_id, version, state)
    elif running is hub.loop:
        phones = hub.phones_at(table_id)
        if phones:
            send_now(hub.loop, render_all(phones, table_id, version, state))


events.table_changed.connect(_render_committed, dispatch_uid="toepen-hub")
