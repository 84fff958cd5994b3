"""A table's state as the engine sees it, rebuilt from the database, and who is looking at it."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any, NamedTuple

from django.db import connection, transaction

from games import events
from games.conf import seconds
from games.engine import Hand, HouseRules, Observation, observe, parse_action, parse_record
from games.engine import table as table_rules
from games.engine.rubber import Rubber as EngineRubber
from games.models import PlayedHand, Rubber, Seat, Table
from games.prepared import Prepared


class SeatKeys(NamedTuple):
    """What `Holder.holds` reads of a seat, without a model instance (a heartbeat round reads
    these for every seat of a process's tables)."""

    holder_key: str
    user_id: int | None
    guest_id: int | None
    bot_level: str


@dataclass(frozen=True)
class Holder:
    """Who a request or a websocket speaks for: a member, a guest, and the browser's seat key."""

    user_id: int | None = None
    guest_id: int | None = None
    key: str = ""

    def holds(self, seat: Seat | SeatKeys) -> bool:
        if seat.bot_level or not seat.holder_key:
            return False
        if self.key and seat.holder_key == self.key:
            return True
        if self.user_id is not None and seat.user_id == self.user_id:
            return True
        return self.guest_id is not None and seat.guest_id == self.guest_id


@dataclass
class TableState:
    table: Table
    seats: list[Seat]
    rubber: Rubber | None = None
    hand_row: PlayedHand | None = None
    hand: Hand | None = None
    # hand seat -> table seat, for the current hand
    hand_seats: list[int] = field(default_factory=list)
    # A change in the making (`editable_state`): the version it started from, and how many of
    # the hand's actions were there then; None once it does more than add actions to the hand
    # (a deal, the end of a hand), or for a state read from the database.
    base: tuple[int, int] | None = None
    # The hand's record has new actions that are not written yet (services._save writes them).
    record_changed: bool = False
    # A new hand dealt from the version this was (the rubber unchanged): another process takes
    # the table's fields from the change message and reads only the new hand's row.
    dealt_from: int | None = None

    @cached_property
    def rules(self) -> HouseRules:
        # Parsed (and checked) once per state: views and deadlines ask for it many times.
        return self.table.rules()

    def same_rules_as(self, earlier: TableState) -> TableState:
        """This state, with the house rules `earlier` has parsed already when its table holds
        the very same ones (a copy of `earlier`'s table row): a change or a heard change makes
        a new state, and parsing the rules again was a few per cent of a busy server's time."""
        parsed = earlier.__dict__.get("rules")
        if parsed is not None and self.table.rules_json is earlier.table.rules_json:
            self.__dict__["rules"] = parsed
        return self

    def hand_seat(self, table_seat: int) -> int | None:
        try:
            return self.hand_seats.index(table_seat)
        except ValueError:
            return None

    def table_seat(self, hand_seat: int) -> int:
        return self.hand_seats[hand_seat]

    def hand_name(self) -> str:
        """The hand being played, as "rubber/hand" (what an action names it by)."""
        rubber = self.rubber.number if self.rubber is not None else 0
        return f"{rubber}/{self.hand_row.number if self.hand_row is not None else 0}"

    def held_by(self, holder: Holder) -> list[int]:
        return [seat.index for seat in self.seats if holder.holds(seat)]

    def observe(self, table_seat: int | None) -> Observation | None:
        if self.hand is None:
            return None
        hand_seat = None if table_seat is None else self.hand_seat(table_seat)
        if hand_seat is not None and self.table.status != Table.Status.PLAYING:
            # Once the rubber is over a seat may change hands: the last hand is shown to
            # everyone as it is to a spectator, never with its unplayed cards to whoever sits
            # there next.
            hand_seat = None
        # A player who is out of the rubber watches like a spectator.
        return observe(self.hand, hand_seat)

    def engine_rubber(self) -> EngineRubber:
        assert self.rubber is not None
        rubber = EngineRubber(
            self.rules,
            list(self.rubber.players),
            dealer=self.rubber.dealer,
            lives=list(self.rubber.lives),
            number=self.rubber.number,
            over=self.rubber.over,
            slate=self.table.slate,
        )
        if self.hand is not None:
            rubber.hand = self.hand
            rubber.hand_seats = tuple(self.hand_seats)
        return rubber

    def laundry_open(self, now: datetime) -> bool:
        return table_rules.laundry_open(self.hand, self.table.laundry_until, now)

    def moment(self) -> table_rules.Moment:
        """The table as its clock's rules see it (games.engine.table)."""
        table = self.table
        return table_rules.Moment(
            hand=self.hand,
            hand_seats=self.hand_seats,
            seats=[table_rules.Seat(bool(s.bot_level), s.last_seen) for s in self.seats],
            changed_at=table.changed_at,
            playing=table.status == Table.Status.PLAYING and self.rubber is not None,
            rubber_over=self.rubber is not None and self.rubber.over,
            laundry_until=table.laundry_until,
            laundry_ready=table.laundry_ready,
            bots_offered=table.bots_offered,
            awaiting_since=table.awaiting_since,
            away=[seat.away for seat in self.seats],
        )

    def away_seats(self, now: datetime) -> set[int]:
        """The seats of people whose phones have not been heard from lately."""
        since = now - timedelta(seconds=seconds("TOEPEN_PRESENCE_SECONDS"))
        return {
            seat.index
            for seat in self.seats
            if seat.holder_key
            and not seat.bot_level
            and (seat.last_seen is None or seat.last_seen < since)
        }


_SEATS = Prepared(lambda table_id: Seat.objects.filter(table_id=table_id).order_by("index"))
_LAST_RUBBER = Prepared(
    lambda table_id: Rubber.objects.filter(table_id=table_id).order_by("-number")[:1]
)
_LAST_HAND = Prepared(
    lambda rubber_id: PlayedHand.objects.filter(rubber_id=rubber_id).order_by("-number")[:1]
)
_HAND = Prepared(lambda hand_id: PlayedHand.objects.filter(pk=hand_id))


@contextlib.contextmanager
def one_snapshot() -> Iterator[None]:
    """Reads of a table's rows that all see the database at one moment, so a version is never
    shown with a hand from a later one (a commit between reading the table's row and its
    hand's). Inside a transaction that locks the table nothing can change it anyway."""
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # READ COMMITTED gives each statement its own snapshot; this, one for all of them.
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def load_state(table: Table) -> TableState:
    """Rebuild the table from the database: its seats, rubber, and the hand replayed."""
    seats = _SEATS(table.pk)
    state = TableState(table=table, seats=seats)
    rubbers = _LAST_RUBBER(table.pk)
    if not rubbers:
        return state
    state.rubber = rubber = rubbers[0]
    hands = _LAST_HAND(rubber.pk)
    if not hands:
        return state
    _take_hand(state, hands[0])
    return state


def _take_hand(state: TableState, hand_row: PlayedHand) -> None:
    """`hand_row` as `state`'s hand: its seats, and the hand replayed from its record."""
    state.hand_row = hand_row
    state.hand_seats = list(hand_row.seats)
    hand, actions = parse_record(hand_row.record)
    for action in actions:
        hand.apply(action)
    state.hand = hand


@dataclass(frozen=True)
class _Played:
    version: tuple[int, datetime]  # with the moment of the change, never another table's
    rubber: Rubber | None
    hand_row: PlayedHand | None
    hand: Hand | None
    hand_seats: tuple[int, ...]


_played: OrderedDict[int, _Played] = OrderedDict()
_played_lock = threading.Lock()
PLAYED_CACHE_TABLES = 1024


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
    version = (table.version, table.changed_at)
    if played is None or played.version != version:
        state = load_state(table)
        played = _Played(version, state.rubber, state.hand_row, state.hand, tuple(state.hand_seats))
        with _played_lock:
            _keep(_played, table.pk, played)
        return state
    return TableState(
        table=table,
        seats=_SEATS(table.pk),
        rubber=played.rubber,
        hand_row=played.hand_row,
        hand=played.hand,
        hand_seats=list(played.hand_seats),
    )


_views: OrderedDict[int, TableState] = OrderedDict()


def _keep[T](cache: OrderedDict[int, T], table_id: int, value: T) -> None:
    """Under `_played_lock`: store, newest last, and forget the tables least recently used."""
    cache[table_id] = value
    cache.move_to_end(table_id)
    while len(cache) > PLAYED_CACHE_TABLES:
        cache.popitem(last=False)


def remember(state: TableState) -> None:
    """`state`, the table as a committed change left it, is this process's snapshot of its
    version: the phones here are rendered from it and the next change starts from it, with no
    query and no replay. Nothing may change it afterwards (the next change copies it)."""
    table = state.table
    played = _Played(
        (table.version, table.changed_at),
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
    table and `last_seen`, read afresh from the database), copied into the snapshots: a change
    made from a snapshot plans the grace deadlines of dropped phones from them
    (games/quick.py), and between two reads of the table's row only heard changes move a
    snapshot on."""
    by_table: dict[int, dict[int, datetime | None]] = {}
    for pk, table_id, last_seen in seen:
        by_table.setdefault(table_id, {})[pk] = last_seen
    with _played_lock:
        for table_id, times in by_table.items():
            state = _views.get(table_id)
            if state is None:
                continue
            fresh = []
            for seat in state.seats:
                if times.get(seat.pk, seat.last_seen) != seat.last_seen:
                    seat = copy.copy(seat)
                    seat.last_seen = times[seat.pk]
                fresh.append(seat)
            if any(a is not b for a, b in zip(fresh, state.seats, strict=True)):
                _views[table_id] = dataclasses.replace(state, seats=fresh).same_rules_as(state)


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
    with one_snapshot():
        table = Table.objects.select_related("club").get(pk=table_id)
        if cached is not None and (cached.table.version, cached.table.changed_at) == (
            table.version,
            table.changed_at,
        ):
            return cached
        state = read_state(table)
    with _played_lock:
        _keep(_views, table_id, state)
    return state


def editable_state(table: Table) -> TableState:
    """The state to make a change to (`table` locked by the caller): `read_state`'s snapshot,
    copied where a change writes, so the shared snapshot stays as it was."""
    return _editable(read_state(table), table)


def editable_snapshot(table_id: int) -> TableState | None:
    """`editable_state` of this process's snapshot of the table, with no query: a change made
    from it holds only if the table is still at the snapshot's version when it is written."""
    with _played_lock:
        shared = _views.get(table_id)
    if shared is None:
        return None
    return _editable(shared, copy.copy(shared.table))


def _editable(shared: TableState, table: Table) -> TableState:
    state = TableState(table=table, seats=shared.seats, hand_seats=list(shared.hand_seats))
    if shared.rubber is not None:
        rubber = state.rubber = copy.copy(shared.rubber)
        rubber.lives = list(rubber.lives)
        rubber.losers = list(rubber.losers)
    if shared.hand_row is not None:
        row = state.hand_row = copy.copy(shared.hand_row)
        row.record = {**row.record, "actions": list(row.record["actions"])}
    if shared.hand is not None:
        state.hand = shared.hand.copy()
    if state.hand_row is not None and state.hand is not None and not state.hand.complete:
        state.base = (table.version, len(state.hand_row.record["actions"]))
    return state.same_rules_as(shared)


def finish_hand(state: TableState, now: datetime) -> Any:
    """The end of `state`'s hand (complete): the hand's result and the rubber as the rules
    leave them, in `state`'s own rows (services._finish_hand saves them; another process moves
    its snapshot through the same end without a query). The engine's outcome."""
    hand, row, rubber_row = state.hand, state.hand_row, state.rubber
    assert hand is not None and hand.complete and row is not None and rubber_row is not None
    rubber = state.engine_rubber()
    outcome = rubber.finish_hand()
    row.complete = True
    row.result = outcome.result
    row.finished_at = now
    rubber_row.lives = rubber.lives
    rubber_row.dealer = rubber.dealer
    rubber_row.over = rubber.over
    rubber_row.winner = rubber.winner
    rubber_row.losers = list(rubber.losers)
    table = state.table
    if rubber.over:
        rubber_row.finished_at = now
        table.status = Table.Status.RUBBER_OVER
    table.laundry_until = None
    table.awaiting_since = None
    return outcome


# The table's fields a change writes (services._save), as a change message carries them.
CHANGED_FIELDS = (
    "version",
    "changed_at",
    "laundry_until",
    "laundry_ready",
    "awaiting_since",
    "status",
    "bots_offered",
    "deadline_at",
)
_MOMENTS = ("changed_at", "laundry_until", "awaiting_since", "deadline_at")


def change_of(state: TableState) -> dict[str, Any] | None:
    """What another process needs to move its snapshot of the table to `state` (just
    committed) without reading the database, or with one read: the version it starts from, the
    table's new fields, and the actions added to the hand or the new hand's row (a deal). Only
    public facts: the actions are what everybody at the table saw happen, and the cards they
    deal stay inside each process's own copy of the hand. None when the change did more (a
    new rubber): the other processes read the table."""
    if state.hand is None or state.hand_row is None:
        return None
    table = state.table
    fields = {name: getattr(table, name) for name in CHANGED_FIELDS}
    for name in _MOMENTS:
        fields[name] = fields[name].isoformat() if fields[name] is not None else None
    fields_of = {"table": fields}
    if state.base is not None:
        version, known = state.base
        actions = state.hand_row.record["actions"][known:]
        return {"base": version, "actions": actions, "table": fields}
    if state.dealt_from is not None:
        known = len(state.hand_row.record["actions"])
        return {"base": state.dealt_from, "deal": state.hand_row.pk, "known": known, **fields_of}
    return None


def read_hand(hand_id: int) -> PlayedHand | None:
    """A hand's row (in a worker thread: it queries the database)."""
    return next(iter(_HAND(hand_id)), None)


def advance(
    table_id: int,
    changes: list[dict[str, Any]],
    read: Callable[[int], PlayedHand | None] | None = None,
) -> TableState | None:
    """This process's snapshot of the table moved on by `changes` (from `change_of`, oldest
    first), remembered and returned; None when a change does not start from the snapshot this
    process has (the caller reads the table instead). A deal needs its hand's row: `read` (a
    query: `read_hand`, never on the event loop); without it, a deal gives None."""
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
    table = copy.copy(table)
    for name, value in change["table"].items():
        if name in _MOMENTS and value is not None:
            value = datetime.fromisoformat(value)
        setattr(table, name, value)
    return table


def _moved(state: TableState, change: dict[str, Any]) -> TableState | None:
    if state.hand is None or state.hand_row is None:
        return None
    table = _moved_table(state.table, change)
    row = copy.copy(state.hand_row)
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
        rubber = moved.rubber = copy.copy(moved.rubber)
        rubber.lives, rubber.losers = list(rubber.lives), list(rubber.losers)
        finish_hand(moved, table.changed_at)
    return moved


def _dealt(
    state: TableState, change: dict[str, Any], read: Callable[[int], PlayedHand | None]
) -> TableState | None:
    """The next hand of the rubber dealt: it follows a finished hand of this snapshot's rubber,
    which the deal leaves as it was; only the new hand's row is read."""
    rubber = state.rubber
    if rubber is None or state.hand is None or not state.hand.complete:
        return None
    row = read(change["deal"])
    if row is None or row.rubber_id != rubber.pk:
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
    _take_hand(dealt, row)
    return dealt


def _remember_committed(sender: Any, *, state: TableState | None = None, **_: Any) -> None:
    """A committed change's state is this process's snapshot of its version (games/events.py)."""
    if state is not None:
        remember(state)


events.table_changed.connect(_remember_committed, dispatch_uid="toepen-snapshots")
