"""This process's snapshots of its tables: one `TableState` per table and version, shared.

A committed change's state is the process's snapshot of its version (`remember`): its phones are
rendered from it and the next change starts from a copy of it, with no query and no replay.
Another process's change moves the snapshot on from its change message (`advance`). The ways
to a table's state, each for one need:

- `snapshot_of(table_id)`: the snapshot, with no query (a change decided on the event loop
  starts from it; None when the process has none);
- `view_state(table_id)`: the table to render, the snapshot while it is the table's current
  version, else read (a phone's first view, a change heard of late);
- `read_state(table)`: the table whose row the caller has just read, its rubber and replayed
  hand shared by every reader of that version (a change decided in a worker thread, the
  clock);
- `load_state(table)`: the same, rebuilt with nothing shared (what `read_state` keeps, and
  what a test compares a change with).

Each of them is shared: a change is made to its `editable_copy`, never to it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Model

from games.engine import Hand, parse_action
from games.models import PlayedHand, Rubber, Table
from games.services import events, store
from games.services.state import (
    MOMENTS,
    TableState,
    finish_hand,
    presence_round,
    set_presence,
    take_hand,
)


def clone[M: Model](row: M) -> M:
    """A copy of a model instance to change: what `copy.copy` makes (its own `_state`, without
    the peers a queryset's rows share, and its own cache of related rows), built directly:
    Django's pickling hooks went through `copy.copy` twice and looked for memoryviews, which
    none of these rows has (no binary field), at 3.2 µs a row against 1.1 (several a change,
    and every seat of every table at a heartbeat round)."""
    state = row._state
    copied_state = object.__new__(type(state))
    copied_state.__dict__ = state.__getstate__()
    copied_state.fields_cache = state.fields_cache.copy()
    copied = object.__new__(type(row))
    copied.__dict__ = {**row.__dict__, "_state": copied_state}
    return copied


def load_state(table: Table) -> TableState:
    """Rebuild the table from the database: its seats, rubber, and the hand replayed."""
    seats = store.seats(table.pk)
    state = TableState(table=table, seats=seats)
    rubbers = store.last_rubber(table.pk)
    if not rubbers:
        return state
    state.rubber = rubber = rubbers[0]
    hands = store.last_hand(rubber.pk)
    if not hands:
        return state
    take_hand(state, hands[0])
    return state


@dataclass(frozen=True)
class _Played:
    version: tuple[int, datetime]  # with the moment of the change, never another table's
    rubber: Rubber | None
    hand_row: PlayedHand | None
    hand: Hand | None
    hand_seats: tuple[int, ...]


_played: OrderedDict[int, _Played] = OrderedDict()
_played_lock = threading.Lock()


def read_state(table: Table) -> TableState:
    """The table as `load_state` rebuilds it, for reading only (rendering a view, computing a
    deadline): the rubber and the replayed hand are shared by every reader of the same version
    in this process, so the phones at a table cost one replay per change, not one each.

    Every change that touches the rubber or the hand bumps the version, so they are the same
    for one version; the seats (whose `last_seen` moves without a new version) and the table
    row are the caller's own. Never change what it returns."""
    with _played_lock:
        played = _played.get(table.pk)
        if played is not None:
            _played.move_to_end(table.pk)
        snapshot = _views.get(table.pk)
    version = _version(table)
    if played is None or played.version != version:
        state = load_state(table)
        played = _Played(version, state.rubber, state.hand_row, state.hand, tuple(state.hand_seats))
        with _played_lock:
            _keep(_played, table.pk, played)
    else:
        state = TableState(
            table=table,
            seats=store.seats(table.pk),
            rubber=played.rubber,
            hand_row=played.hand_row,
            hand=played.hand,
            hand_seats=list(played.hand_seats),
        )
    # The row is read afresh (the clock's deadlines, a view read anew): its rules are those of
    # this process's snapshot of the table, parsed already, unless they changed.
    return state if snapshot is None else state.same_rules_as(snapshot)


_views: OrderedDict[int, TableState] = OrderedDict()


def _keep[T](cache: OrderedDict[int, T], table_id: int, value: T) -> None:
    """Under `_played_lock`: store, newest last, and forget the tables least recently used
    past `TOEPEN_SNAPSHOT_TABLES` (a table forgotten is read from the database again, and its
    phones' actions are decided in a worker thread: keep it above the tables a process
    carries)."""
    cache[table_id] = value
    cache.move_to_end(table_id)
    while len(cache) > settings.TOEPEN_SNAPSHOT_TABLES:
        cache.popitem(last=False)


def remember(state: TableState) -> None:
    """`state`, the table as a committed change left it, is this process's snapshot of its
    version: the phones here are rendered from it and the next change starts from it, with no
    query and no replay. Nothing may change it afterwards (the next change copies it)."""
    table = state.table
    played = _Played(
        _version(table),
        state.rubber,
        state.hand_row,
        state.hand,
        tuple(state.hand_seats),
    )
    with _played_lock:
        current = _views.get(table.pk)
        if current is not None and current.table.version > table.version:
            return  # a newer version is known here already
        _keep(_played, table.pk, played)
        _keep(_views, table.pk, state)


def refresh_presence(seen: Iterable[tuple[int, int, datetime | None]]) -> None:
    """When the phones at this process's tables were last heard (`seen`: each seat's id,
    table and `last_seen`, read afresh from the database), for the states to read beside their
    seats (`state.set_presence`): a change made from a snapshot plans the grace deadlines of dropped
    phones from them (`services.act_here`), and the clock decides on them whether a quiet
    phone's player is away. No state is made or changed: presence is not a version of the
    table. A table this round did not read (its phones gone from this process) keeps what the
    last round heard there while this process keeps its snapshot."""
    by_table: dict[int, dict[int, datetime | None]] = {}
    for pk, table_id, moment in seen:
        by_table.setdefault(table_id, {})[pk] = moment
    with _played_lock:
        kept = set(_views)
    heard = {
        table_id: times
        for table_id, times in presence_round().items()
        if table_id in kept and table_id not in by_table
    }
    heard.update(by_table)
    set_presence(heard)


def view_state(table_id: int, at_least: int | None = None) -> TableState:
    """The table for rendering views, shared by every connection of this process at one version.

    When a change is published, the first connection to render it reads the table (one query
    for the row and one for the seats; the replayed hand comes from `read_state`), and the other
    phones at the table render from the same snapshot. `at_least`: the version the caller was
    told of; a snapshot that old or newer will do. None: read the row again (a phone that just
    connected or asked for a full view must get the table as it is now). Never change it."""
    with _played_lock:
        cached = _views.get(table_id)
    if at_least is not None and cached is not None and cached.table.version >= at_least:
        return cached
    if cached is not None and _current(cached, store.table_with_club(table_id)):
        # The row alone, in a statement of its own (one moment): the snapshot is the table as it
        # is now, with no transaction around the read (a phone's connect, three statements fewer).
        return cached
    with store.one_snapshot():
        table = store.table_with_club(table_id)
        if cached is not None and _current(cached, table):
            return cached
        state = read_state(table)
    with _played_lock:
        _keep(_views, table_id, state)
    return state


def _version(table: Table) -> tuple[int, datetime]:
    """Which version of the table `table`'s row holds: its number with the moment of the change,
    so never another table's (as `_Played` keeps it)."""
    return (table.version, table.changed_at)


def _current(state: TableState, table: Table) -> bool:
    """`state` is the version `table`'s row (just read) holds."""
    return _version(state.table) == _version(table)


def editable_copy(shared: TableState) -> TableState:
    """A state to make a change to, from `shared` (a snapshot or `read_state`'s): copied where a
    change writes, so the shared one stays as it was."""
    return _editable(shared, clone(shared.table))


def snapshot_of(table_id: int) -> TableState | None:
    """This process's snapshot of the table (None: it has none), with no query. Never change
    it: a change is made to its `editable_copy`, and holds only if the table is still at the
    snapshot's version when it is written."""
    with _played_lock:
        return _views.get(table_id)


def _editable(shared: TableState, table: Table) -> TableState:
    state = TableState(table=table, seats=shared.seats, hand_seats=list(shared.hand_seats))
    if shared.rubber is not None:
        rubber = state.rubber = clone(shared.rubber)
        rubber.lives = list(rubber.lives)
        rubber.losers = list(rubber.losers)
    if shared.hand_row is not None:
        row = state.hand_row = clone(shared.hand_row)
        row.record = {**row.record, "actions": list(row.record["actions"])}
    if shared.hand is not None:
        state.hand = shared.hand.copy()
    if state.hand_row is not None and state.hand is not None and not state.hand.complete:
        state.base = (table.version, len(state.hand_row.record["actions"]))
    return state.same_rules_as(shared)


def advance(
    table_id: int,
    changes: list[dict[str, Any]],
    read: Callable[[int, int], PlayedHand | None] | None = None,
) -> TableState | None:
    """This process's snapshot of the table moved on by `changes` (from `change_of`, oldest
    first), remembered and returned; None when a change does not start from the snapshot this
    process has (the caller reads the table instead). A deal needs its hand's row: `read` (a
    query: `store.hand_row`, never on the event loop); without it, a deal gives None."""
    with _played_lock:
        state = _views.get(table_id)
    for change in changes:
        if state is not None and state.table.version >= change["table"]["version"]:
            continue  # this process has that version already
        if state is None or state.table.version != change["base"]:
            return None
        if "deal" in change:
            state = _dealt(state, change, read) if read is not None else None
        else:
            state = _moved(state, change)
    if state is not None:
        remember(state)
    return state


def _moved_table(table: Table, change: dict[str, Any]) -> Table:
    """A copy of `table` with the fields a change message carries."""
    table = clone(table)
    for name, value in change["table"].items():
        if name in MOMENTS and value is not None:
            value = datetime.fromisoformat(value)
        setattr(table, name, value)
    return table


def _moved(state: TableState, change: dict[str, Any]) -> TableState | None:
    if state.hand is None or state.hand_row is None:
        return None
    table = _moved_table(state.table, change)
    row = clone(state.hand_row)
    row.record = {**row.record, "actions": [*row.record["actions"], *change["actions"]]}
    hand = state.hand.copy()
    if hand.complete:
        return None
    for data in change["actions"]:
        hand.apply(parse_action(data, hand.n, slate=hand.slate))
    moved = TableState(
        table=table,
        seats=state.seats,
        rubber=state.rubber,
        hand_row=row,
        hand=hand,
        hand_seats=list(state.hand_seats),
    ).same_rules_as(state)
    if hand.complete and moved.rubber is not None:
        # The actions ended the hand: its result and the rubber follow from the rules, as in
        # the process that made the change (the table's fields came with the message).
        rubber = moved.rubber = clone(moved.rubber)
        rubber.lives, rubber.losers = list(rubber.lives), list(rubber.losers)
        finish_hand(moved, table.changed_at)
    return moved


def _dealt(
    state: TableState, change: dict[str, Any], read: Callable[[int, int], PlayedHand | None]
) -> TableState | None:
    """The next hand of the rubber dealt: it follows a finished hand of this snapshot's rubber,
    which the deal leaves as it was; only the new hand's row is read."""
    rubber = state.rubber
    if rubber is None or state.hand is None or not state.hand.complete:
        return None
    row = read(rubber.pk, change["deal"])
    if row is None:
        return None
    # The row as it is now may hold actions of later versions (this process was slow to hear
    # of the deal): the deal's version is the hand with the actions it was dealt with.
    known = change["known"]
    if len(row.record["actions"]) < known:
        return None
    row.record = {**row.record, "actions": row.record["actions"][:known]}
    dealt = TableState(
        table=_moved_table(state.table, change), seats=state.seats, rubber=rubber
    ).same_rules_as(state)
    take_hand(dealt, row)
    return dealt


def _remember_committed(sender: Any, *, state: TableState | None = None, **_: Any) -> None:
    """A committed change's state is this process's snapshot of its version (events.py)."""
    if state is not None:
        remember(state)


events.table_changed.connect(_remember_committed, dispatch_uid="toepen-snapshots")
