"""This process's hub: a change reaches the phones here with one render each (watchers share
one), from the state the change wrote, without a query; heartbeats are one UPDATE."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

from games.engine import HouseRules
from games.live import hub
from games.live.consumers import TableConsumer
from games.models import Seat, Table
from games.services import events, snapshots, state, store, tables
from games.services.changes.decide import changed_seat
from games.services.conf import seconds
from games.services.snapshots import advance, load_state, remember, view_state
from games.services.state import CHANGED_FIELDS, Holder, TableState, change_of
from games.view.context import Viewer, render_view
from games.view.parts import Shared
from tests.personas import Cast
from tests.tables import KEEP_PUBLISHED, clock_plays, four_people_table, people, play_a_card

pytestmark = pytest.mark.django_db(transaction=True)


@dataclass(eq=False)
class FakePhone:
    """A connection as the hub sees it, counting its renders."""

    table_id: int
    seats: tuple[int, ...] = ()
    language: str = "en"
    can_start: bool = False
    can_close: bool = False
    can_keep: bool = False
    by_code: bool = False
    last_version: int = -1
    holder: Holder = field(default_factory=Holder)
    may_watch: bool = True
    user_id: int | None = None
    sent_at: float = 0.0
    heard_at: float = 0.0
    pings: bool = False
    renders: int = 0
    delivered: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.seats and self.holder == Holder():
            # The browser of the person in that seat of `four_people_table` (the hub asks the
            # state what a holder holds, never the seats a phone had before).
            name = ("anna", "bram", "cas", "dirk")[self.seats[0]]
            self.holder = Holder(key=f"phone-of-{name}")

    async def deliver(self, version: int, html: str | None) -> None:
        self.delivered.append(version)
        self.last_version = version

    async def beat(self) -> None:
        pass

    async def wait(self) -> None:
        pass

    def held_in(self, state: TableState) -> tuple[int, ...]:
        return tuple(state.held_by(self.holder))

    def render(
        self, state: TableState, shared: Shared | None = None, seats: tuple[int, ...] | None = None
    ) -> str:
        self.renders += 1
        active = self.seats[0] if self.seats else None
        with translation.override(self.language):
            return render_view(state, Viewer(seats=self.seats, active=active), shared=shared)


def test_a_change_is_rendered_for_the_phones_here_without_a_query(klaver: Cast) -> None:
    table = four_people_table(klaver)
    state = load_state(Table.objects.get(pk=table.pk))
    players = [FakePhone(table.pk, seats=(seat,)) for seat in range(4)]
    watchers = [FakePhone(table.pk), FakePhone(table.pk), FakePhone(table.pk, language="nl")]
    with CaptureQueriesContext(connection) as queries:
        frames = hub.render_all(players + watchers, table.pk, state.table.version, state)
    assert len(queries) == 0
    assert [p.renders for p in players] == [1, 1, 1, 1]
    # Two English watchers share one render; the Dutch one has her own.
    assert sum(w.renders for w in watchers) == 2
    assert {version for _, version, _ in frames} == {state.table.version}
    views = {phone: html for phone, _, html in frames}
    assert views[watchers[0]] == views[watchers[1]] != views[watchers[2]]
    assert len({views[p] for p in players}) == 4  # each her own cards


def test_a_phone_that_has_the_version_is_not_rendered_again(klaver: Cast) -> None:
    table = four_people_table(klaver)
    state = load_state(Table.objects.get(pk=table.pk))
    ahead = FakePhone(table.pk, seats=(0,), last_version=state.table.version)
    behind = FakePhone(table.pk, seats=(1,), last_version=state.table.version - 1)
    frames = hub.render_all([ahead, behind], table.pk, state.table.version, state)
    assert [phone for phone, _, _ in frames] == [behind]
    assert ahead.renders == 0


def test_the_state_a_change_wrote_is_the_snapshot_of_its_version(klaver: Cast) -> None:
    table = four_people_table(klaver)
    _, outcome = play_a_card(klaver, table, "a1")
    fresh = load_state(Table.objects.get(pk=table.pk))
    # Published after the commit: the process's snapshot is that version, equal to a rebuild.
    with CaptureQueriesContext(connection) as queries:
        snapshot = view_state(table.pk, outcome.version)
    assert len(queries) == 0
    assert snapshot.table.version == outcome.version == fresh.table.version
    assert snapshot.hand.record() == fresh.hand.record()
    assert snapshot.hand_row.record == fresh.hand_row.record


def test_a_cloned_row_is_its_own_copy(klaver: Cast) -> None:
    """A clone has the row's fields and its own state and cache of related rows: changing the
    clone, saving it or caching a relation on it leaves the snapshot's row as it was."""
    table = four_people_table(klaver)
    seat = Seat.objects.select_related("table").get(table_id=table.pk, index=1)
    copied = snapshots.clone(seat)
    assert type(copied) is Seat and copied is not seat
    assert {k: v for k, v in vars(copied).items() if k != "_state"} == {
        k: v for k, v in vars(seat).items() if k != "_state"
    }
    assert copied._state is not seat._state and not copied._state.adding
    assert copied._state.db == seat._state.db
    assert copied.table is seat.table  # the cached table comes along, in a cache of its own
    copied._state.fields_cache.clear()
    copied.name = "Kopie"
    copied.save(update_fields=["name"])
    assert seat.name != "Kopie" and seat._state.fields_cache["table"] is not None
    assert Seat.objects.get(pk=seat.pk).name == "Kopie"


def test_an_older_state_never_replaces_a_newer_snapshot(klaver: Cast) -> None:
    table = four_people_table(klaver)
    old = load_state(Table.objects.get(pk=table.pk))
    newer = load_state(Table.objects.get(pk=table.pk))
    newer.table.version = old.table.version + 3
    remember(newer)
    remember(old)
    assert view_state(table.pk, old.table.version).table.version == old.table.version + 3


def test_heartbeats_of_every_phone_here_are_one_update(klaver: Cast) -> None:
    first = four_people_table(klaver)
    second = four_people_table(klaver)
    long_ago = timezone.now() - timedelta(hours=1)
    Seat.objects.update(last_seen=long_ago)
    anna, bram = people(klaver)[0], people(klaver)[1]
    held = {(first.pk, anna.holder), (second.pk, bram.holder)}
    with CaptureQueriesContext(connection) as queries:
        store.mark_seen_all(held)
    assert [q["sql"].split()[0] for q in queries] == ["SELECT", "UPDATE"]
    fresh = {
        (s.table_id, s.index)
        for s in Seat.objects.all()
        if s.last_seen is not None and s.last_seen > long_ago
    }
    assert fresh == {(first.pk, 0), (second.pk, 1)}


def test_heartbeats_of_more_phones_than_one_statement_takes_go_in_parts(
    klaver: Cast, monkeypatch
) -> None:
    monkeypatch.setattr(store.reads, "IN_AT_ONCE", 2)
    tables = [four_people_table(klaver) for _ in range(3)]
    long_ago = timezone.now() - timedelta(hours=1)
    Seat.objects.update(last_seen=long_ago)
    anna, bram, cas = klaver.anna, klaver.bram, klaver.cas
    held = {(t.pk, p.holder) for t in tables for p in (anna, cas)} | {(tables[1].pk, bram.holder)}
    with CaptureQueriesContext(connection) as queries:
        store.mark_seen_all(held)
    # Three tables' seats read two tables at a time; seven seats written two at a time.
    assert [q["sql"].split()[0] for q in queries] == ["SELECT"] * 2 + ["UPDATE"] * 4
    fresh = {
        (s.table_id, s.index)
        for s in Seat.objects.all()
        if s.last_seen is not None and s.last_seen > long_ago
    }
    assert fresh == {(t.pk, i) for t in tables for i in (0, 2)} | {(tables[1].pk, 1)}


def keep_published(monkeypatch) -> list[TableState]:
    """The states the committed changes leave, in order (games/services/events.py)."""
    published: list[TableState] = []

    def keep(sender, *, state=None, **_):
        published.append(state)

    # From now on into this list; disconnected when the test ends (tests/live/conftest.py).
    events.table_changed.disconnect(dispatch_uid=KEEP_PUBLISHED)
    events.table_changed.connect(keep, weak=False, dispatch_uid=KEEP_PUBLISHED)
    return published


def moved_elsewhere(
    table_id: int, before: TableState, change: dict
) -> tuple[TableState, TableState]:
    """Another process, which had the version `before`, hears `change`: its snapshot moved on
    with no query, and the table as the database now has it (the table's fields compared)."""
    snapshots._views.clear()
    snapshots._played.clear()
    remember(before)
    with CaptureQueriesContext(connection) as queries:
        moved = advance(table_id, [change])
    assert len(queries) == 0
    fresh = load_state(Table.objects.get(pk=table_id))
    assert moved is not None and moved.table.version == fresh.table.version
    for name in CHANGED_FIELDS:
        assert getattr(moved.table, name) == getattr(fresh.table, name), name
    return moved, fresh


def test_another_process_moves_its_snapshot_by_the_change_alone(klaver: Cast, monkeypatch) -> None:
    """What a change message carries takes a process that had the version before to exactly
    the table the database holds after it, with no query."""
    table = four_people_table(klaver)
    published = keep_published(monkeypatch)
    for step in range(6):
        before = load_state(Table.objects.get(pk=table.pk))
        hand_seat = before.hand.due()[0]
        seat = before.table_seat(hand_seat)
        legal = [
            a for a in before.hand.legal_actions(hand_seat) if a.act in ("play", "knock", "stay")
        ]
        payload = legal[step % len(legal)].to_json()
        payload.pop("seat")
        tables.act(table.pk, people(klaver)[seat].holder, seat, payload, f"move-{step}")
        change = change_of(published[-1])
        assert change is not None
        assert all("cards" not in str(key) for key in change)  # actions and fields only
        moved, fresh = moved_elsewhere(table.pk, before, change)
        assert moved.hand.record() == fresh.hand.record()
        assert moved.hand_row.record == fresh.hand_row.record
        for seat in range(4):
            viewer = Viewer(seats=(seat,), active=seat)
            assert render_view(moved, viewer) == render_view(fresh, viewer)


def test_new_states_of_a_table_keep_its_parsed_rules(klaver: Cast, monkeypatch) -> None:
    """A change made from a snapshot, a heard change and a heartbeat round make new states of
    one table: they share the house rules parsed once, and a table read afresh parses its own."""
    table = four_people_table(klaver)
    published = keep_published(monkeypatch)
    before = load_state(Table.objects.get(pk=table.pk))
    rules = before.rules
    assert snapshots._editable(before, copy.copy(before.table)).rules is rules
    play_a_card(klaver, table, "rules-1")
    moved, fresh = moved_elsewhere(table.pk, before, change_of(published[-1]))
    assert moved.rules is rules
    assert fresh.rules == rules and fresh.rules is not rules
    # Heard from the seats: the snapshot stays as it is, rules and all.
    seat = Seat.objects.get(table_id=table.pk, index=1)
    snapshots.refresh_presence([(seat.pk, table.pk, timezone.now() + timedelta(seconds=5))])
    assert snapshots._views[table.pk] is moved and moved.rules is rules
    # A table row read again shares them while they are equal, and parses its own once they
    # differ (a club changed its table's house rules).
    again = snapshots._editable(before, Table.objects.get(pk=table.pk))
    assert again.rules is rules
    changed = Table.objects.get(pk=table.pk)
    changed.rules_json = {**changed.rules_json, "starting_lives": rules.starting_lives + 1}
    other = snapshots._editable(before, changed)
    assert other.parsed_rules is None and other.rules.starting_lives == rules.starting_lives + 1
    # The clock's deadlines read the row afresh: the snapshot's parsed rules serve them too.
    remember(before)
    assert snapshots.read_state(Table.objects.get(pk=table.pk)).rules is rules


def test_the_clock_sees_the_seats_a_state_holds_now(klaver: Cast, monkeypatch) -> None:
    """A state keeps the clock's view of its seats (and passes it on to the next state with the
    rules), but never past a change of the seats: a heartbeat round's presence, which every
    state of the table sees without being changed, and a seat's own change."""
    table = four_people_table(klaver)
    snapshots._views.clear()
    before = load_state(Table.objects.get(pk=table.pk))
    remember(before)
    first = before.moment().seats
    assert before.moment().seats is first  # kept while the seats are the same
    moved = snapshots.editable_copy(before)
    assert moved.moment().seats is first  # passed on with the rules
    seat = Seat.objects.get(table_id=table.pk, index=1)
    heard = timezone.now() + timedelta(seconds=7)
    snapshots.refresh_presence([(seat.pk, table.pk, heard)])
    fresh = snapshots._views[table.pk]
    assert fresh is before and before.seats[1].last_seen != heard  # no state changed
    assert fresh.moment().seats[1].last_seen == heard
    assert moved.moment().seats[1].last_seen == heard
    # A seat's own change (away on a break) makes a new list of seats: seen at once.
    assert snapshots.editable_copy(fresh).moment().away == ("",) * len(fresh.seats)
    away = snapshots.editable_copy(fresh)
    changed_seat(away, 2, away="break")
    assert away.moment().away[2] == "break"


def test_a_process_keeps_the_snapshots_of_as_many_tables_as_it_is_told(
    klaver: Cast, settings
) -> None:
    """`TOEPEN_SNAPSHOT_TABLES` snapshots are kept, the least recently used forgotten past it
    (a forgotten table's next change is decided on the database); the default keeps more
    than one process carries (1,024 had been a fixed bound, and a busy server above it
    decided its phones' actions again and again in worker threads)."""
    assert settings.TOEPEN_SNAPSHOT_TABLES >= 4096
    settings.TOEPEN_SNAPSHOT_TABLES = 2
    snapshots._views.clear()
    states = [load_state(Table.objects.get(pk=four_people_table(klaver).pk)) for _ in range(3)]
    first, second, third = (state.table.pk for state in states)
    remember(states[0])
    remember(states[1])
    assert snapshots.snapshot_of(first) is not None
    remember(states[0])  # used again: the second is now the least recently used
    remember(states[2])
    assert set(snapshots._views) == {first, third}
    assert snapshots.snapshot_of(second) is None
    settings.TOEPEN_SNAPSHOT_TABLES = 3
    remember(states[1])
    assert set(snapshots._views) == {first, second, third}


def test_a_phone_asks_again_which_seats_it_holds_when_the_seats_change(klaver: Cast) -> None:
    """A phone keeps the seats its holder holds while the states hold the same list of seats
    (every change asks it for every phone), and finds them again in a new list: a seat taken,
    or an older state's."""
    table = four_people_table(klaver)
    state = load_state(Table.objects.get(pk=table.pk))
    phone = TableConsumer()
    phone.holder = Holder(key="phone-at-the-bar")
    assert phone.held_in(state) == ()
    moved = snapshots.editable_copy(state)  # an action's copy: the same seats
    assert moved.seats is state.seats and phone.held_in(moved) == ()
    taken = snapshots.editable_copy(state)
    changed_seat(taken, 2, holder_key="phone-at-the-bar", user_id=None, guest_id=None)
    assert phone.held_in(taken) == (2,)
    assert phone.held_in(state) == ()


def test_a_heartbeat_round_is_heard_by_every_state_of_its_tables_and_changes_none(
    klaver: Cast,
) -> None:
    """A round's presence reaches a state remembered while the round read the database, as it
    reaches the states before it; a seat's own moment, later than the round's, wins; a table
    the round did not read keeps the last round's while its snapshot is kept, and is forgotten
    with it."""
    table = four_people_table(klaver)
    other = four_people_table(klaver)
    snapshots._views.clear()
    before = load_state(Table.objects.get(pk=table.pk))
    remember(before)
    remember(load_state(Table.objects.get(pk=other.pk)))
    seat, taken = Seat.objects.filter(table_id=table.pk).order_by("index")[1:3]
    now = timezone.now()
    heard = now + timedelta(seconds=5)
    snapshots.refresh_presence(
        [(seat.pk, table.pk, heard), (taken.pk, table.pk, heard)]
        + [(s.pk, other.pk, heard) for s in Seat.objects.filter(table_id=other.pk)]
    )
    newer = snapshots.editable_copy(before)
    newer.table.version += 1
    # A seat taken since (its row's moment set as it was taken) is later than the round.
    changed_seat(newer, 2, last_seen=heard + timedelta(seconds=3))
    remember(newer)
    assert snapshots._views[table.pk] is newer
    assert [s.last_seen for s in newer.moment().seats][1:3] == [
        heard,
        heard + timedelta(seconds=3),
    ]
    assert before.moment().seats[1].last_seen == heard and before.seats[1].last_seen != heard
    # Nobody is away: the round heard the quiet-looking rows' phones.
    later = heard + timedelta(seconds=seconds("TOEPEN_PRESENCE_SECONDS") - 1)
    assert 1 not in newer.away_seats(later) and 1 in snapshots.editable_copy(before).away_seats(
        later + timedelta(seconds=2)
    )
    # The next round reads only the first table: the other keeps what it heard.
    snapshots.refresh_presence([(seat.pk, table.pk, heard + timedelta(seconds=5))])
    assert newer.moment().seats[1].last_seen == heard + timedelta(seconds=5)
    kept = snapshots._views[other.pk]
    assert {s.last_seen for s in kept.moment().seats} == {heard}
    # Its snapshot forgotten, the next round forgets what was heard there.
    del snapshots._views[other.pk]
    snapshots.refresh_presence([])
    assert other.pk not in state.presence_round() and table.pk in state.presence_round()


def play_out_the_hand(klaver: Cast, table: Table, published: list[TableState]) -> TableState:
    """Cards (and stays) until the hand ends; the table as it was before the last card."""
    step = 0
    while True:
        before = load_state(Table.objects.get(pk=table.pk))
        hand_seat = before.hand.due()[0]
        seat = before.table_seat(hand_seat)
        plays = [a for a in before.hand.legal_actions(hand_seat) if a.act in ("play", "stay")]
        payload = plays[0].to_json()
        payload.pop("seat")
        tables.act(table.pk, people(klaver)[seat].holder, seat, payload, f"card-{step}")
        step += 1
        if published[-1].hand.complete:
            return before


def test_another_process_moves_its_snapshot_through_a_deal_with_one_read(
    klaver: Cast, monkeypatch
) -> None:
    """The clock deals the next hand: another process that has the finished hand takes the
    table's fields from the message and reads only the new hand's row (its cards never
    travel), and has exactly the table the database holds. On the event loop (no reading),
    the deal is left for the worker thread."""
    table = four_people_table(klaver)
    published = keep_published(monkeypatch)
    before_last_card = play_out_the_hand(klaver, table, published)
    finished = published[-1]
    assert clock_plays(table.pk)
    change = change_of(published[-1])
    assert change is not None and change["deal"] == published[-1].hand_row.number
    assert "actions" not in change and "cards" not in str(change)
    snapshots._views.clear()
    snapshots._played.clear()
    remember(finished)
    assert advance(table.pk, [change]) is None  # no reading on the loop
    assert snapshots._views[table.pk] is finished
    with CaptureQueriesContext(connection) as queries:
        dealt = advance(table.pk, [change], store.hand_row)
    assert len(queries) == 1
    fresh = load_state(Table.objects.get(pk=table.pk))
    assert dealt is not None and snapshots._views[table.pk] is dealt
    for name in CHANGED_FIELDS:
        assert getattr(dealt.table, name) == getattr(fresh.table, name), name
    assert dealt.hand_row.pk == fresh.hand_row.pk and dealt.hand_row.number == 2
    assert dealt.hand.record() == fresh.hand.record()
    assert dealt.hand_seats == fresh.hand_seats
    assert dealt.rubber is finished.rubber and dealt.rubber.lives == fresh.rubber.lives
    for seat in range(4):
        viewer = Viewer(seats=(seat,), active=seat)
        assert render_view(dealt, viewer) == render_view(fresh, viewer)
    # A process whose snapshot is not the finished hand reads the table instead.
    snapshots._views.clear()
    remember(before_last_card)
    assert advance(table.pk, [change], store.hand_row) is None


def test_a_deal_heard_late_is_the_hand_as_dealt_not_as_it_is_now(klaver: Cast, monkeypatch) -> None:
    """A process that hears of a deal after the hand has moved on (it was paused) reads the
    hand's row as it is now: its snapshot of the deal's version must still be the hand with
    the actions it was dealt with, one state for one version."""
    table = four_people_table(klaver)
    published = keep_published(monkeypatch)
    play_out_the_hand(klaver, table, published)
    finished = published[-1]
    assert clock_plays(table.pk)
    dealt_state = published[-1]
    change = change_of(dealt_state)
    assert change is not None and "deal" in change
    dealt_record = dealt_state.hand.record()
    # The hand moves on in the database before this process hears of the deal.
    state = load_state(Table.objects.get(pk=table.pk))
    seat = state.table_seat(state.hand.to_play)
    legal = state.hand.legal_actions(state.hand.to_play)
    card = next(a for a in legal if a.act == "play").to_json()["card"]
    tables.act(table.pk, people(klaver)[seat].holder, seat, {"act": "play", "card": card}, "x1")
    snapshots._views.clear()
    snapshots._played.clear()
    remember(finished)
    late = advance(table.pk, [change], store.hand_row)
    assert late is not None and late.table.version == dealt_state.table.version
    assert late.hand.record() == dealt_record
    assert late.hand_row.record["actions"] == []


@pytest.mark.parametrize("lives", [10, 1])
def test_another_process_moves_its_snapshot_through_the_end_of_a_hand(
    klaver: Cast, monkeypatch, lives: int
) -> None:
    """The last card of a hand: the hand's result and the rubber's lives (and, with one life
    each, the rubber's end) follow from the rules in the other process too, with no query,
    exactly as the database has them."""
    table = four_people_table(klaver, HouseRules(starting_lives=lives))
    published = keep_published(monkeypatch)
    before = play_out_the_hand(klaver, table, published)
    change = change_of(published[-1])
    assert change is not None
    moved, fresh = moved_elsewhere(table.pk, before, change)
    assert moved.hand.complete
    for name in ("complete", "result", "finished_at", "record"):
        assert getattr(moved.hand_row, name) == getattr(fresh.hand_row, name), name
    for name in ("lives", "dealer", "over", "winner", "losers", "finished_at"):
        assert getattr(moved.rubber, name) == getattr(fresh.rubber, name), name
    # With one life each, that hand ended the rubber (the table shows its result).
    assert fresh.rubber.over == (lives == 1)
    assert (fresh.table.status == Table.Status.RUBBER_OVER) == (lives == 1)
    for seat in range(4):
        viewer = Viewer(seats=(seat,), active=seat)
        assert render_view(moved, viewer) == render_view(fresh, viewer)
    assert before.rubber.lives != moved.rubber.lives or not fresh.hand_row.result["lost"]
    assert not before.hand_row.complete  # the snapshot it moved from is left as it was


def test_a_change_from_another_version_is_not_applied(klaver: Cast) -> None:
    table = four_people_table(klaver)
    state = load_state(Table.objects.get(pk=table.pk))
    remember(state)
    stray = {"base": state.table.version - 1, "actions": [], "table": {"version": 99}}
    assert advance(table.pk, [stray]) is None
    assert view_state(table.pk, 0).table.version == state.table.version


async def test_phones_behind_the_database_catch_up_without_a_message(klaver: Cast) -> None:
    """Views of a change that never arrived (a notice sent while this process did not listen,
    or a render that failed) are made up for by the next heartbeat round: the hub compares its
    phones' versions with the database."""
    table = await database_sync_to_async(four_people_table)(klaver)
    version = (await Table.objects.aget(pk=table.pk)).version
    loop = asyncio.get_running_loop()
    here = hub.Hub(loop)
    renderer = loop.create_task(here._render_heard())
    behind = FakePhone(table.pk, seats=(0,), last_version=version - 1)
    current = FakePhone(table.pk, seats=(1,), last_version=version)
    here.phones[table.pk] = {behind, current}
    try:
        await here.catch_up()
        for _ in range(100):
            if behind.delivered:
                break
            await asyncio.sleep(0.02)
    finally:
        renderer.cancel()
    assert behind.delivered == [version]
    assert current.delivered == [] and current.renders == 0


def test_a_change_heard_from_another_process_is_rendered_on_the_loop_when_it_can_be(
    klaver: Cast, monkeypatch
) -> None:
    """A change message that moves this process's snapshot on is rendered at once (on the
    event loop: no query, no worker thread); one whose snapshot is missing is left for the
    worker thread, which reads the table."""
    table = four_people_table(klaver)
    published = keep_published(monkeypatch)
    before, _ = play_a_card(klaver, table, "heard-1")
    message = {
        "table": table.pk,
        "version": published[-1].table.version,
        "change": change_of(published[-1]),
    }
    # Another process: it had the version before the change.
    snapshots._views.clear()
    snapshots._played.clear()
    remember(before)
    phone = FakePhone(table.pk, seats=(2,), last_version=before.table.version)
    with CaptureQueriesContext(connection) as queries:
        frames, left = hub._render_from_snapshots([([phone], table.pk, [message])])
    assert len(queries) == 0 and left == []
    assert [version for _, version, _ in frames] == [message["version"]]
    # A process that knows nothing of the table leaves it to the worker thread.
    snapshots._views.clear()
    snapshots._played.clear()
    late = FakePhone(table.pk, seats=(3,), last_version=before.table.version)
    frames, left = hub._render_from_snapshots([([late], table.pk, [message])])
    assert frames == [] and [work[1] for work in left] == [table.pk]


async def test_a_heartbeat_round_brings_the_snapshots_presence_up_to_date(klaver: Cast) -> None:
    """Heard changes move a snapshot on without reading the seats: each heartbeat round reads
    when the phones at this process's tables were last heard, and the snapshots' states see it
    beside their seats, so a change made from a snapshot plans dropped phones' grace from fresh
    times."""
    table = await database_sync_to_async(four_people_table)(klaver)
    before = await database_sync_to_async(view_state)(table.pk)
    heard = timezone.now() + timedelta(seconds=7)
    await Seat.objects.filter(table_id=table.pk, index=2).aupdate(last_seen=heard)
    here = hub.Hub(asyncio.get_running_loop())
    here.phones[table.pk] = {FakePhone(table.pk, seats=(0,), last_version=before.table.version)}
    await here.catch_up()
    assert snapshots._views[table.pk] is before  # no new state
    assert before.seats[2].last_seen != heard  # nor a state changed
    assert [s.last_seen for s in snapshots.editable_copy(before).moment().seats] == [
        heard if s.index == 2 else s.last_seen for s in before.seats
    ]


async def test_a_change_on_the_loop_is_sent_before_its_caller_goes_on() -> None:
    """The views of a change the loop wrote go to the phones' sockets at once, within the call
    that published them, not on a later turn of the loop; a phone whose send waits (its socket's
    buffer full) gets its view when that send can go on, the others theirs at once."""

    @dataclass(eq=False)
    class Socket:
        blocked: asyncio.Event | None = None
        sent: list[int] = field(default_factory=list)

        async def deliver(self, version: int, html: str | None) -> None:
            if self.blocked is not None:
                await self.blocked.wait()
            self.sent.append(version)

    loop = asyncio.get_running_loop()
    quick = Socket()
    hub.send_now(loop, [(quick, 7, "<view>")])
    assert quick.sent == [7]  # no await in between: sent within the call

    full = Socket(blocked=asyncio.Event())
    after = Socket()
    hub.send_now(loop, [(full, 8, "<view>"), (after, 8, "<view>")])
    assert full.sent == [] and after.sent == []  # in order: the second waits for the first
    full.blocked.set()
    for _ in range(3):
        await asyncio.sleep(0)
    assert full.sent == [8] and after.sent == [8]
